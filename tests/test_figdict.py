"""Figures written as plotly's dictionary (hetdp_ui/figdict.py) are the figures plotly's objects give for the
same calls: each figure method the builders use, with magic underscores, titles given as text, lines with
their labels at every position, axes updated across subplots — compared by plotly's own JSON of both."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from hetdp_ui.figdict import Fig, dict_figure, figure_dict, nested


def _same(fig: Fig, ref: go.Figure) -> None:
    ref.update_layout(template=pio.templates["plotly_white"])
    got = json.loads(pio.to_json(fig.figure(), validate=False))
    want = json.loads(pio.to_json(ref, validate=False))
    assert got == want


def test_traces_with_magic_underscores_and_layout_titles_given_as_text():
    x = np.linspace(0.0, 1.0, 5)
    fig, ref = Fig(), go.Figure()
    for f in (fig, ref):
        f.add_scatter(x=x, y=x**2, mode="lines+markers", name="a", line_dash="dot", marker_line_color="#222222")
        f.add_bar(x=["p", "q"], y=[1, 2], marker_color="#0072B2", marker_line_width=[3, 0], error_y={"array": [1, 2]})
        f.update_layout(
            title="A title",
            legend_title="method",
            barmode="group",
            height=300,
            yaxis2={"title": "right", "side": "right"},
        )
        f.update_layout(legend={"orientation": "h", "y": -0.25}, margin={"t": 10}, plot_bgcolor="white")
    _same(fig, ref)


def _same_dict(fig: Fig, ref: go.Figure) -> None:
    """``fig``'s own dictionary (what the browser gets: :func:`hetdp_ui.figcache.figure_json`) is plotly's
    (plotly's constructor would drop an emptied title of a second axis, which ``_same`` goes through)."""
    from plotly.io.json import to_json_plotly

    want = json.loads(pio.to_json(ref, validate=False))
    want["layout"].pop("template", None)
    assert json.loads(to_json_plotly({"data": fig.data, "layout": fig.layout})) == want


def test_a_property_set_to_none_is_removed_as_plotly_removes_it():
    """None in an update removes a property (a number, a title's text) or empties one that holds
    properties (a title, a legend), as plotly's ``update`` does; None in a trace is no property."""
    fig, ref = Fig(), go.Figure()
    for f in (fig, ref):
        f.add_scatter(x=[1, 2], y=[3, 4], name="a", marker_size=None, line_dash=None)
        f.update_layout(title="A", height=300, width=500, legend={"y": 1}, yaxis2={"title": "right", "side": "right"})
        f.update_xaxes(title_text="x", showgrid=True)
        f.update_yaxes(title_text=None)  # only a removal: no property is made
        f.update_layout(height=None, title=None, legend=None, yaxis2_title_text=None)
        f.update_xaxes(title_text=None, showgrid=None)
    _same_dict(fig, ref)
    assert "height" not in fig.layout and fig.layout["title"] == {} and fig.layout["width"] == 500
    fresh, ref = Fig(), go.Figure()
    for f in (fresh, ref):
        f.update_layout(title=None)  # a title set to None on a new figure: plotly writes an empty one
        f.update_xaxes(title_text=None)
    _same_dict(fresh, ref)
    _same(fresh, ref)


@pytest.mark.parametrize("second", [False, True])
def test_axes_updates_reach_every_axis_of_a_letter(second):
    fig, ref = Fig(), go.Figure()
    for f in (fig, ref):
        f.add_scatter(x=[1, 2], y=[3, 4])
        if second:
            f.update_layout(yaxis2={"overlaying": "y", "side": "right"})
        f.update_xaxes(title_text="x", type="log")
        f.update_yaxes(title_text="y", range=[0, 5])
    _same(fig, ref)


@pytest.mark.parametrize("position", [None, "top right", "top left", "bottom right", "bottom left"])
def test_lines_and_their_labels_are_where_plotly_puts_them(position):
    fig, ref = Fig(), go.Figure()
    for f in (fig, ref):
        f.add_scatter(x=[0, 1], y=[0, 1])
        kw = {} if position is None else {"annotation_position": position}
        f.add_vline(x=0.3, line_dash="dash", line_color="#666666", annotation_text="v", **kw)
        f.add_hline(y=0.7, line_dash="dot", annotation_text="h", **kw)
        f.add_vline(x=0.5)
        f.add_annotation(x=0.1, y=0.2, text="n", showarrow=False, font={"size": 11})
    _same(fig, ref)


def test_a_dict_figure_keeps_its_dictionary_and_reads_as_plotlys():
    d = {"type": "scatter", "x": np.arange(3.0), "y": np.ones(3), "name": "s"}
    fig = dict_figure([d], {"height": 200})
    assert figure_dict(fig)["data"][0] is d  # the dictionary it was made from: no copy, no base64
    assert list(fig.data[0].x) == [0.0, 1.0, 2.0] and fig.layout.height == 200  # plotly's objects read it
    plain = go.Figure(go.Scatter(x=[1, 2]))
    assert figure_dict(plain)["data"][0]["x"] == [1, 2]


def test_every_property_name_that_holds_an_underscore_is_known():
    """Magic underscores split a name at every underscore but in plotly's own names that hold one: those
    are every such name of every plotly object (read from plotly, so a new one fails this test)."""
    import importlib
    import inspect
    import pkgutil
    import warnings

    import plotly.graph_objs as objs

    from hetdp_ui.figdict import _UNDERSCORED

    found = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in pkgutil.walk_packages(objs.__path__, "plotly.graph_objs."):
            try:
                mod = importlib.import_module(m.name)
            except ImportError:  # the FigureWidget module needs the optional anywidget
                continue
            for name, cls in vars(mod).items():
                if inspect.isclass(cls) and name[0].isupper() and hasattr(cls, "_valid_props"):
                    try:
                        props = cls()._valid_props
                    except Exception:  # a deprecated alias
                        continue
                    found |= {p for p in props if "_" in p}
    assert found == set(_UNDERSCORED)


def test_nested_reads_underscored_names_as_plotly_does():
    assert nested({"marker_line_color": "k", "error_y": {"array": [1]}}) == {
        "marker": {"line": {"color": "k"}},
        "error_y": {"array": [1]},
    }
    assert nested({"legend_title": "t", "yaxis": {"title": "y"}}) == {
        "legend": {"title": {"text": "t"}},
        "yaxis": {"title": {"text": "y"}},
    }


@pytest.mark.parametrize("position", [None, "top right", "top left", "bottom left", "bottom right"])
def test_a_band_and_its_label_are_where_plotly_puts_them(position):
    fig, ref = Fig(), go.Figure()
    for f in (fig, ref):
        f.add_scatter(x=[0, 1], y=[0, 1])
        kw = {} if position is None else {"annotation_position": position}
        f.add_vrect(x0=0.2, x1=0.4, fillcolor="green", opacity=0.05, line_width=0, annotation_text="M1", **kw)
        f.add_vrect(x0=0.5, x1=0.6, fillcolor="rgba(0,0,0,0.1)", line_width=0)
    _same(fig, ref)


def test_a_line_s_keywords_are_read_as_plotly_reads_them_on_both_kinds_of_figure():
    import pandas as pd

    from hetdp_ui.theme import add_line

    col = pd.Series([1.0, 4.0, 9.0])
    fig, ref = Fig(), go.Figure()
    for f in (fig, ref):
        add_line(f, col.index, col, "a", color="#0072B2", dash="dot", mode="lines+markers", marker_size=8, line_width=3)
    _same(fig, ref)
    assert fig.data[0]["line"] == {"width": 3, "color": "#0072B2", "dash": "dot"}


def test_finishing_a_figure_leaves_the_built_one_as_it_was():
    """``finish`` returns a new figure and rewrites none of the built one's dicts (a caller's, a shared one)."""
    import copy

    from hetdp_ui.figdict import DICT
    from hetdp_ui.theme import finish

    fig = Fig()
    fig.add_scatter(x=np.arange(3.0), y=np.array([1.0, 10.0, 100.0]), name="a", line={"dash": "dot"})
    fig.update_layout(yaxis_type="log", margin={"t": 10})
    built = fig.figure()
    before = copy.deepcopy(getattr(built, DICT))
    done = finish(built)
    assert done is not built
    after = getattr(built, DICT)
    assert json.dumps(after, default=list) == json.dumps(before, default=list)
    assert getattr(done, DICT)["data"][0]["line"] != before["data"][0]["line"]  # the palette was set on the copy
