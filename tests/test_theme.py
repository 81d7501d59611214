"""Readable log axes (issue 13 §2, first part): no labelled minor ticks between decades."""

import numpy as np
import plotly.graph_objects as go
import pytest

from hetdp_ui.theme import log_ticks, tidy_log_axes


@pytest.mark.parametrize("lo,hi,expected", [
    (0.01, 10, [0.01, 0.1, 1, 10]),
    (0.3, 8, [0.5, 1, 2, 5]),
    (2.0, 9.0, [2, 3, 5]),
    (2.1, 2.9, []),                                    # no 1..9 multiple inside: plotly's own ticks
    (1e-6, 1e6, [10.0**e for e in range(-6, 7)]),
])
def test_log_ticks(lo, hi, expected):
    assert log_ticks(lo, hi) == pytest.approx(expected)


def test_tidy_log_axes_replaces_minor_labels_and_respects_explicit_ticks():
    fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[0.02, 0.3, 4.0]))
    fig.update_yaxes(type="log")
    tidy_log_axes(fig)
    assert list(fig.layout.yaxis.tickvals) == pytest.approx([0.02, 0.05, 0.1, 0.2, 0.5, 1, 2])
    assert fig.layout.yaxis.ticktext[0] == "0.02"
    fixed = go.Figure(go.Scatter(x=[1, 2], y=[1, 100]))
    fixed.update_yaxes(type="log", tickvals=[1, 100])
    assert list(tidy_log_axes(fixed).layout.yaxis.tickvals) == [1, 100]


def test_every_page_figure_with_a_log_axis_has_clean_ticks():
    """The builders the pages use: every log axis gets ticks that are 1-2-3-5 multiples of powers of ten
    (or all integer multiples within a single decade)."""
    from hetdp_core.scenarios import PAGES, get
    from hetdp_ui.report import report_figures

    seen = 0
    for page in sorted(PAGES):
        mod = get(page)
        sp = mod.SCENARIO.specs()
        s = mod.SCENARIO.from_query({"trials": str(int(sp["trials"].lo))} if "trials" in sp else {})
        for _, fig in report_figures(page, s, mod.run(s)):
            for name, ax in fig.layout.to_plotly_json().items():
                if name.startswith(("xaxis", "yaxis")) and ax.get("type") == "log" and ax.get("tickvals"):
                    seen += 1
                    mant = np.round(np.asarray(ax["tickvals"]) / 10.0 ** np.floor(np.log10(ax["tickvals"])), 6)
                    assert set(mant) <= set(range(1, 10)), (page, name, ax["tickvals"])
    assert seen >= 5
