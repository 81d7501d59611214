"""The widget sweep's second half of the views (see test_widget_sweep.py, which has the first half and
the sweep itself): a file of its own so that pytest-xdist runs the two halves on two workers."""

from __future__ import annotations

import pytest

from .test_widget_sweep import SECOND_HALF, sweep_view, view_ids

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path,query,tabs", SECOND_HALF, ids=view_ids(SECOND_HALF))
def test_every_table_and_text_input_and_one_of_every_other_input(page, server, artifacts, path, query, tabs):
    sweep_view(page, server, artifacts, path, query, tabs)
