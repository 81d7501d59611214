"""Widgets that adapt instead of failing: on every page (from the registry), each sidebar widget is
moved to the ends of its range (sliders, number inputs) or through its options (radios, selects,
checkboxes, toggles), one after another in the same session, and the page never shows an exception
or an input error — a change to one widget never leaves another one invalid. Cost inputs (users,
trials, steps) are left at the page's cheap query so the sweep stays a few seconds per page."""

from __future__ import annotations

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import get, specs

#: inputs that set the amount of computation, not the shape of the question
COST = {"n", "trials", "runs", "steps", "m", "seed", "med_n", "check_trials"}


def _open(spec):
    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=300)
    at.query_params.update(dict(spec.fast_query))
    return at.run()


def _assert_clean(at, what):
    assert not at.exception, (what, [e.value for e in at.exception])
    errors = [e.value for e in at.error]
    assert not errors, (what, errors)


def _name(spec, w) -> str | None:
    key = getattr(w, "key", None) or ""
    return key[len(spec.slug) + 1 :] if key.startswith(spec.slug + "_") else None


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.url)
def test_every_sidebar_widget_across_its_range(spec):
    at = _open(spec)
    _assert_clean(at, "default view")
    moved = 0
    for kind in ("slider", "number_input", "selectbox", "radio", "checkbox", "toggle"):
        for i in range(len(getattr(at.sidebar, kind))):
            widgets = getattr(at.sidebar, kind)
            if i >= len(widgets):
                break
            w = widgets[i]
            name = _name(spec, w)
            if name is None or name in COST or getattr(w, "disabled", False):
                continue
            field = get(spec.url).SCENARIO.specs().get(name)
            if kind in ("slider", "number_input"):
                values = [w.min, w.max] if w.min is not None and w.max is not None else []
            elif field is not None and field.kind == "choice":
                values = list(field.choices)[:6]  # the raw values (labels may be formatted)
            elif field is not None and field.kind == "int" and kind == "radio":
                values = list(range(int(field.lo), int(field.hi) + 1))[:6]  # e.g. the zCDP algorithm, 1 or 2
            elif kind == "selectbox" and w.format_func is not str:
                continue  # set by its raw value in the page tests (e.g. zc_group in test_pages.py)
            elif kind == "selectbox":
                values = [("index", i) for i in range(min(len(w.options), 6))]
            elif kind == "radio":
                values = list(w.options)[:6]
            else:
                values = [not w.value, w.value]
            for v in values:
                w = next((x for x in getattr(at.sidebar, kind) if getattr(x, "key", None) == w.key), None)
                if w is None:  # the widget is hidden by an earlier move
                    break
                if isinstance(v, tuple) and v[0] == "index":
                    if v[1] >= len(w.options):
                        break
                    w.select_index(v[1])
                else:
                    w.set_value(v)
                at.run()
                _assert_clean(at, f"{spec.url}: {name} = {v!r}")
                moved += 1
    assert moved >= 3, moved
