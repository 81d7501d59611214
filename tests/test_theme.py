"""Readable log axes: no labelled minor ticks between decades."""

import numpy as np
import plotly.graph_objects as go
import pytest

from hetdp_ui.theme import log_ticks, tidy_log_axes


@pytest.mark.parametrize(
    "lo,hi,expected",
    [
        (0.01, 10, [0.01, 0.1, 1, 10]),
        (0.3, 8, [0.5, 1, 2, 5]),
        (2.0, 9.0, [2, 3, 5]),
        (2.1, 2.9, []),  # no 1..9 multiple inside: plotly's own ticks
        (1e-6, 1e6, [10.0**e for e in range(-6, 7)]),
    ],
)
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
    from hetdp_core.scenarios import get, pages
    from hetdp_ui.report import report_figures

    seen = 0
    for page in sorted(pages()):
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


# ---------------------------------------------------------------- one palette, one style per method

from hetdp_ui.theme import COLORWAY, GREY, METHOD_STYLES, OKABE_ITO, apply_palette, method_of, summarize  # noqa: E402

ALLOWED = {c.lower() for c in OKABE_ITO.values()} | {
    GREY.lower(),
    "#bbbbbb",
    "#cccccc",
    "#222222",
    "#333333",
    "black",
    "white",
    "#ffffff",
}


def _page_figures():
    from hetdp_core.scenarios import get, pages
    from hetdp_ui.report import report_figures

    out = []
    for page in sorted(pages()):
        mod = get(page)
        sp = mod.SCENARIO.specs()
        s = mod.SCENARIO.from_query({"trials": str(int(sp["trials"].lo))} if "trials" in sp else {})
        out += [(page, title, fig) for title, fig in report_figures(page, s, mod.run(s))]
    return out


@pytest.fixture(scope="module")
def page_figures():
    return _page_figures()


def _colours(fig):
    for tr in fig.data:
        line, marker = getattr(tr, "line", None), getattr(tr, "marker", None)
        for c in (getattr(line, "color", None), getattr(marker, "color", None)):
            if isinstance(c, str):
                yield tr.name, c


def test_every_trace_colour_comes_from_the_palette(page_figures):
    bad = [
        (page, title, name, c)
        for page, title, fig in page_figures
        for name, c in _colours(fig)
        if c.lower() not in ALLOWED
    ]
    assert not bad, bad[:10]


def test_each_method_keeps_its_colour_on_every_page(page_figures):
    seen: dict = {}
    for page, title, fig in page_figures:
        for tr in fig.data:
            m = method_of(tr.name)
            line = getattr(tr, "line", None)
            if m and line is not None and line.color and getattr(tr, "fill", None) is None:
                seen.setdefault(m, set()).add(line.color)
                assert line.color == METHOD_STYLES[m].color, (page, title, tr.name, line.color)
    assert {"M_mean (BCDP)", "min-δ LDP (two copies)", "CP", "UNI", "DP-SGD", "Laplace"} <= set(seen)
    assert METHOD_STYLES["min-δ LDP"].color == METHOD_STYLES["min-δ LDP (two copies)"].color


def test_methods_shown_together_differ_in_colour_or_line_style():
    groups = [
        ("CP", "CE", "UP", "UE", "A", "CT", "UT", "UNI", "PROP", "SM", "LDP"),
        ("M_mean (BCDP)", "min-δ LDP"),
        ("Algorithm 2 (two copies)", "naive single copy", "min-δ LDP (two copies)"),
        ("Laplace", "Gaussian", "MNM", "bounded Laplace", "plain Laplace", "no privacy"),
        ("DP-SGD", "DP-SGD, a_h = 1", "SGD (no noise)", "GD (full gradient)"),
        ("Algorithm 1", "Algorithm 2"),
    ]
    for g in groups:
        looks = [(METHOD_STYLES[m].color, METHOD_STYLES[m].dash) for m in g]
        assert len(set(looks)) == len(g), g
        assert len({METHOD_STYLES[m].symbol for m in g}) == len(g), g
    assert COLORWAY[0] == OKABE_ITO["blue"] and OKABE_ITO["yellow"] not in COLORWAY  # yellow: fills only


@pytest.mark.parametrize(
    "name, method",
    [
        ("M_mean (BCDP): median (simulated)", "M_mean (BCDP)"),
        ("plan A — CP", "CP"),
        ("laplace (analytic density)", "Laplace"),
        ("bounded Laplace, b = 3.5 (analytic)", "bounded Laplace"),
        ("DP-SGD, a_h = 1: 10–90 %", "DP-SGD, a_h = 1"),
        ("DP-SGD: median over runs (simulated)", "DP-SGD"),
        ("Algorithm 2 (two copies): 25–75%", "Algorithm 2 (two copies)"),
        ("α = 2", None),
        (None, None),
        ("Axis", None),
    ],
)
def test_method_of(name, method):
    assert method_of(name) == method


def test_dashes_keep_their_meaning_where_a_builder_uses_them():
    fig = go.Figure(
        [
            go.Scatter(x=[1, 2], y=[1, 2], name="min-δ LDP: median", mode="lines"),
            go.Scatter(x=[1, 2], y=[2, 3], name="min-δ LDP: exact (analytic)", line={"dash": "dash"}),
        ]
    )
    apply_palette(fig)
    assert fig.data[0].line.dash is None and fig.data[1].line.dash == "dash"
    assert fig.data[0].line.color == fig.data[1].line.color == METHOD_STYLES["min-δ LDP"].color
    alone = apply_palette(go.Figure([go.Scatter(x=[1], y=[1], name="UNI"), go.Scatter(x=[1], y=[2], name="CP")]))
    assert [t.line.dash for t in alone.data] == ["dot", "solid"]


def test_summary_names_axes_series_and_ranges():
    fig = go.Figure(
        [
            go.Scatter(x=[1, 2, 3], y=[0.5, 2.0, float("inf")], name="D_α up"),
            go.Bar(x=["a", "b"], y=[3, 3], name="counts"),
        ]
    )
    fig.update_layout(xaxis_title="order α", yaxis={"title": "divergence", "type": "log"})
    text = summarize(fig)
    assert "x: order α; y: divergence (log scale)." in text
    assert "D_α up: 3 values, 0.5 to 2, 1 infinite" in text and "counts: 2 values, 3" in text
    many = go.Figure([go.Scatter(x=[1], y=[i], name=f"s{i}") for i in range(12)])
    assert "and 4 more series" in summarize(many)
    assert summarize("not a figure") == ""


def test_every_page_figure_has_a_summary(page_figures):
    for page, title, fig in page_figures:
        text = summarize(fig)
        assert "Series —" in text and len(text) > 30, (page, title, text)


def test_dotplot_summary_reports_the_released_values_not_the_stacking():
    from hetdp_ui.figures import quantile_dotplot_figure

    table = __import__("pandas").DataFrame(
        {"mechanism": ["M"] * 20, "dot": range(20), "released value": [10.0 + i for i in range(20)], "true value": 15.0}
    )
    text = summarize(quantile_dotplot_figure(table))
    assert "M: 20 values, 10 to 29" in text, text  # the released values themselves, not their bins


def test_number_axes_get_fixed_margins_and_axes_with_words_keep_plotlys():
    """fixed_margins: plotly stops measuring an axis of numbers (automargin off) and the figure gets
    margins that hold its labels (a builder's wider one stays); an axis of categories, tick texts, dates or
    a box's name keeps automatic margins; a figure without cartesian axes is left alone."""
    import datetime

    from hetdp_ui.theme import FIXED_MARGIN, finish, fixed_margins

    fig = go.Figure([go.Scatter(x=[1, 2, 3], y=[0.1, 5.0, 1e3]), go.Scatter(x=[1, 2], y=[3, 4], yaxis="y2")])
    fig.update_layout(yaxis2={"overlaying": "y", "side": "right"}, margin={"t": 10, "b": 150})
    fixed_margins(fig)
    assert fig.layout.xaxis.automargin is False and fig.layout.yaxis.automargin is False
    assert fig.layout.yaxis2.automargin is False
    m = fig.layout.margin
    assert (m.l, m.r, m.b, m.t) == (FIXED_MARGIN["l"], FIXED_MARGIN["r_axis"], 150, 10)

    words = go.Figure(go.Bar(x=["x1 (δ = 0.2)", "x2 (δ = 2)"], y=[1.0, 2.0]))
    words.update_layout(margin={"l": 7})
    fixed_margins(words)
    assert words.layout.xaxis.automargin is None  # categories: plotly measures them
    assert words.layout.yaxis.automargin is False
    assert words.layout.margin.l == FIXED_MARGIN["l"] and words.layout.margin.b is None

    ticks = go.Figure(go.Scatter(x=[1, 2], y=[1, 2]))
    ticks.update_yaxes(tickvals=[1, 2], ticktext=["a long tick text", "another"])
    ticks = finish(ticks)  # a new, finished figure
    assert ticks.layout.yaxis.automargin is None and ticks.layout.xaxis.automargin is False
    assert ticks.layout.margin.l is None and ticks.layout.margin.r == FIXED_MARGIN["r"]

    boxes = fixed_margins(go.Figure([go.Box(x=[0.1, 0.2, 0.3], name="M1 0.693 ± 0.01 (12)")]))
    assert boxes.layout.yaxis.automargin is None and boxes.layout.margin.l is None  # names on the y axis
    assert boxes.layout.xaxis.automargin is False

    days = [datetime.date(2026, 11, d) for d in (1, 2, 3)]
    dated = fixed_margins(go.Figure(go.Scatter(x=np.array(days, dtype="datetime64[D]"), y=[1, 2, 3])))
    assert dated.layout.xaxis.automargin is None and dated.layout.margin.b is None

    pie = fixed_margins(go.Figure(go.Pie(values=[1, 2], labels=["a", "b"])))
    assert pie.layout.margin.l is None and pie.layout.margin.b is None and pie.layout.xaxis.automargin is None
