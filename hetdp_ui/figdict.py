"""Figures written as plotly's own dictionary form (Streamlit-free): builders that pay no plotly validation.

Building a figure through plotly's objects costs 20–50 ms a figure on this project's 2-core machines (each
property path parsed, validated, deep-copied: a dotplot of ten rows took 47 ms), its dictionary well under
one. A builder writes its traces as dicts and uses :class:`Fig`, which has the few figure methods the
builders call (``add_trace``, ``update_layout``, ``update_xaxes``/``update_yaxes``, ``add_vline``/``add_hline``,
``add_vrect``, ``add_annotation``) and writes what plotly writes for them; :meth:`Fig.figure` makes the plotly figure
(not validated), which keeps its dictionary (:data:`DICT`) for finishing (:func:`hetdp_ui.theme.finish`)
and for the chart's JSON (:func:`hetdp_ui.figcache.figure_json`). Every builder written so is compared with
what plotly's objects give for the same calls (``tests/test_figdict.py``) and, through the pages' figures,
with the JSON the app sent before.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["DICT", "Fig", "dict_figure", "figure_dict", "trace", "vline"]

#: attribute of a figure made from plotly's dictionary form: that dictionary (numpy arrays in it, not base64),
#: which finishing and the chart's JSON read instead of plotly's objects (:func:`figure_dict`)
DICT = "_hetdp_dict"

#: property names that hold an underscore themselves (``error_y`` is not ``error.y``): every one plotly has
_UNDERSCORED = ("error_x", "error_y", "error_z", "paper_bgcolor", "plot_bgcolor", "copy_ystyle", "copy_zstyle")
#: properties whose text may be given alone: plotly writes ``"title": "t"`` as ``{"text": "t"}``
_TEXT_OR_DICT = ("title",)


@functools.cache
def _white() -> dict:
    """plotly's "plotly_white" template as a dictionary (written once; shared by every figure, read-only)."""
    import plotly.io as pio

    return pio.templates["plotly_white"].to_plotly_json()


def dict_figure(data: list[dict], layout: dict):
    """A figure from traces and a layout written as plotly's own dictionary form, with the white template,
    not validated (see the module)."""
    return _wrap({"data": data, "layout": {"template": _white(), **layout}})


def _wrap(d: dict):
    """A plotly figure of the dictionary ``d`` (not validated), which it keeps (:data:`DICT`)."""
    import plotly.graph_objects as go

    fig = go.Figure(d, _validate=False)
    object.__setattr__(fig, DICT, d)
    return fig


def figure_dict(fig) -> dict:
    """A figure's dictionary with numpy arrays: the one it was made from (:func:`dict_figure`,
    :func:`hetdp_ui.theme.finish`), else plotly's ``to_dict`` with its base64 arrays decoded. Read-only: a
    figure may share it."""
    d = getattr(fig, DICT, None)
    return d if d is not None else decoded(fig.to_dict())


def array(v):
    """A value of a figure's dictionary as data: plotly writes a numeric array as base64 (``{"dtype": …,
    "bdata": …, "shape": …}``); anything else is as it is."""
    if isinstance(v, dict) and "bdata" in v and "dtype" in v:
        import base64

        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        shape = v.get("shape")
        return a.reshape([int(n) for n in str(shape).split(",")]) if shape else a
    return v


def decoded(v):
    """A figure's dictionary with plotly's base64 arrays as numpy arrays again (``to_dict`` writes them for
    the browser; a finished figure keeps arrays, as a built one does): its dicts and lists are new, its
    arrays and other values shared."""
    if isinstance(v, dict):
        if "bdata" in v and "dtype" in v:
            return array(v)
        return {k: decoded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [decoded(x) for x in v]
    return v


def nested(props: dict, *, removals: bool = False) -> dict:
    """Keyword properties as plotly reads them: ``marker_line_color="k"`` is ``{"marker": {"line": {"color":
    "k"}}}`` (magic underscores, but for names that hold one: :data:`_UNDERSCORED`), and a title given as text
    is ``{"text": …}``. A property given as None is left out (a trace's or shape's, as plotly's constructors
    do), or with ``removals`` kept as None: an update, which removes it when merged (:func:`merge`)."""
    out: dict = {}
    for key, value in props.items():
        parts, i = [], 0
        names = key.split("_")
        while i < len(names):
            two = "_".join(names[i : i + 2])
            if two in _UNDERSCORED:
                parts.append(two)
                i += 2
            else:
                parts.append(names[i])
                i += 1
        merge(out, _at(parts, value, removals), keep=removals)
    return out


def _at(path: list[str], value, removals: bool = False) -> dict:
    if path[-1] in _TEXT_OR_DICT and isinstance(value, str):
        value = {"text": value}
    elif path[-1] in _TEXT_OR_DICT and value is None and not removals:  # plotly writes a title set to None as {}
        value = {}
    if isinstance(value, dict):
        value = {k: (_titled(k, v)) for k, v in value.items()}
    for name in reversed(path):
        value = {name: value}
    return value


def _titled(key: str, value):
    """A nested property: a title given as text is ``{"text": …}``, a pandas column its array; dictionaries
    inside are read the same way."""
    if key in _TEXT_OR_DICT and isinstance(value, str):
        return {"text": value}
    if isinstance(value, dict):
        return {k: _titled(k, v) for k, v in value.items()}
    return _column(value)


def merge(into: dict, update: dict, *, keep: bool = False) -> dict:
    """``update`` merged into ``into`` as plotly's ``update`` does: dictionaries merged key by key, anything
    else (numbers, text, lists, arrays) replaced; None removes a property, and empties one that holds
    properties (a title, a legend: plotly leaves ``{}``). With ``keep`` a None is kept as such (an update
    being gathered: :func:`nested`)."""
    for k, v in update.items():
        if v is None:
            if keep:
                into[k] = None
            elif isinstance(into.get(k), dict) or k in _TEXT_OR_DICT:
                into[k] = {}
            else:
                into.pop(k, None)
        elif isinstance(v, dict) and isinstance(into.get(k), dict):
            merge(into[k], v, keep=keep)
        elif isinstance(v, dict):
            made = merge({}, v, keep=keep)
            if made or not v:  # a property given only as None (``title_text=None``) is not made; ``{}`` is
                into[k] = made
        else:
            into[k] = v
    return into


def trace(kind: str, **props) -> dict:
    """A trace of type ``kind`` (``scatter``, ``bar``, ``histogram``, ``heatmap``, ``box``) as plotly writes it
    for ``go.<Kind>(**props)``: magic underscores read (:func:`nested`), pandas columns as their arrays."""
    return {"type": kind, **nested({k: _column(v) for k, v in props.items()})}


def _column(v):
    """A pandas column or index as the numpy array plotly keeps of it."""
    return v.to_numpy() if hasattr(v, "to_numpy") and not isinstance(v, np.ndarray) else v


def vline(x: float, *, dash: str | None = None, color: str | None = None, text: str | None = None) -> tuple:
    """(shape, annotation or None) of a vertical line across the plot at ``x`` with its label at the top
    right, as plotly's ``add_vline`` writes them."""
    fig = Fig()
    fig.add_vline(x=x, line_dash=dash, line_color=color, annotation_text=text)
    shapes, notes = fig.layout["shapes"], fig.layout.get("annotations")
    return shapes[0], (notes[0] if notes else None)


#: where plotly puts a line's label (``annotation_position``): (x or y of the label along the line, its anchor)
_V_POSITIONS = {
    "top right": (1, "left", "top"),
    "top left": (1, "right", "top"),
    "bottom right": (0, "left", "bottom"),
    "bottom left": (0, "right", "bottom"),
}


class Fig:
    """A figure being built as plotly's dictionary, with the figure methods this project's builders use
    (plotly's names and arguments); :meth:`figure` makes the plotly figure."""

    def __init__(self, data: list[dict] | None = None):
        self.data: list[dict] = list(data or [])
        self.layout: dict = {}

    def add_trace(self, trace: dict) -> Fig:
        """A trace written as its dictionary (``{"type": "scatter", "x": …}``)."""
        self.data.append(trace)
        return self

    def add_scatter(self, **props) -> Fig:
        return self.add_trace(trace("scatter", **props))

    def add_bar(self, **props) -> Fig:
        return self.add_trace(trace("bar", **props))

    def update_layout(self, **props) -> Fig:
        merge(self.layout, nested(props, removals=True))
        return self

    def _axes(self, letter: str) -> list[str]:
        """The layout's axes of a letter that ``update_xaxes``/``update_yaxes`` update: the first, and every
        other already in the layout."""
        return [f"{letter}axis"] + sorted(
            (k for k in self.layout if k.startswith(f"{letter}axis") and k != f"{letter}axis"), key=lambda k: int(k[5:])
        )

    def update_xaxes(self, **props) -> Fig:
        return self._update_axes("x", props)

    def update_yaxes(self, **props) -> Fig:
        return self._update_axes("y", props)

    def _update_axes(self, letter: str, props: dict) -> Fig:
        update = nested(props, removals=True)
        for name in self._axes(letter):
            axis = merge(self.layout.get(name, {}), update)
            if axis or name in self.layout:  # an update that only removes makes no axis, as in plotly
                self.layout[name] = axis
        return self

    def add_annotation(self, **props) -> Fig:
        self.layout.setdefault("annotations", []).append(nested(props))
        return self

    def add_shape(self, **props) -> Fig:
        self.layout.setdefault("shapes", []).append(nested(props))
        return self

    def _line(self, kind: str, at: float, props: dict) -> Fig:
        """``add_vline``/``add_hline``: a line shape across the plot and its label, as plotly writes them."""
        text = props.pop("annotation_text", None)
        position = props.pop("annotation_position", None) or "top right"
        style = nested({k: v for k, v in props.items() if v is not None})
        if kind == "v":
            shape = {"type": "line", "x0": at, "x1": at, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
        else:
            shape = {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": at, "y1": at, "yref": "y"}
        self.layout.setdefault("shapes", []).append({**shape, **style})
        if text is not None:
            if kind == "v":
                y, xanchor, yanchor = _V_POSITIONS[position]
                note = {"x": at, "xanchor": xanchor, "xref": "x", "y": y, "yanchor": yanchor, "yref": "y domain"}
            else:
                x = 0 if "left" in position else 1
                xanchor = "left" if "left" in position else "right"
                yanchor = "top" if position.startswith("bottom") else "bottom"
                note = {"x": x, "xanchor": xanchor, "xref": "x domain", "y": at, "yanchor": yanchor, "yref": "y"}
            self.layout.setdefault("annotations", []).append({"showarrow": False, "text": text, **note})
        return self

    def add_vrect(self, x0: float, x1: float, **props) -> Fig:
        """A band across the plot from ``x0`` to ``x1`` and its label (plotly's positions: ``top right``, its
        default, ``top left``, ``bottom left``, ``bottom right``)."""
        text = props.pop("annotation_text", None)
        position = (props.pop("annotation_position", None) or "top right").removeprefix("inside ")
        style = nested({k: v for k, v in props.items() if v is not None})
        shape = {"type": "rect", "x0": x0, "x1": x1, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain"}
        self.layout.setdefault("shapes", []).append({**shape, **style})
        if text is not None:
            left = "left" in position
            y, yanchor = (0, "bottom") if position.startswith("bottom") else (1, "top")
            note = {"x": x0 if left else x1, "xanchor": "left" if left else "right", "xref": "x"}
            self.layout.setdefault("annotations", []).append(
                {"showarrow": False, "text": text, **note, "y": y, "yanchor": yanchor, "yref": "y domain"}
            )
        return self

    def add_vline(self, x: float, **props) -> Fig:
        return self._line("v", x, props)

    def add_hline(self, y: float, **props) -> Fig:
        return self._line("h", y, props)

    def figure(self):
        """The plotly figure (with the white template; not validated)."""
        return dict_figure(self.data, self.layout)
