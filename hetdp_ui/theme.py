"""Figure finishing shared by every builder (Streamlit-free): one colour-blind-safe palette with a
fixed style per method, one plot theme, readable log axes, and a text summary of each chart.

Plotly labels the minor ticks of a log axis that spans few decades ("2 3 4 5 6 7 8 9" between the
powers of ten), which clutters the axis. :func:`tidy_log_axes` sets explicit ticks from the data:
powers of ten, or 1-2-5 (then 1-2-3-5) multiples when the data span too few decades, or every
integer multiple within a single decade.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from hetdp_ui.figdict import array

__all__ = [
    "log_ticks",
    "tidy_log_axes",
    "OKABE_ITO",
    "METHOD_STYLES",
    "Style",
    "method_of",
    "apply_palette",
    "finish",
    "fixed_margins",
    "summarize",
    "rgba",
]


def log_ticks(lo: float, hi: float, *, min_ticks: int = 3) -> list[float]:
    """Tick values for a log axis covering [lo, hi] (both > 0)."""
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo <= hi):
        return []
    e0, e1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    for mult in ((1,), (1, 2, 5), (1, 2, 3, 5), tuple(range(1, 10))):
        ticks = [m * 10.0**e for e in range(e0, e1 + 1) for m in mult]
        inside = [t for t in ticks if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]
        if len(inside) >= min_ticks or mult == tuple(range(1, 10)):
            return [float(f"{t:.12g}") for t in inside]
    return []


def _axis_data(d: dict, name: str) -> np.ndarray:
    """The positive finite numbers the traces drawn on axis ``name`` (``xaxis``, ``yaxis2`` …) of the
    figure dictionary ``d`` give it."""
    parts = []
    for arr in _axes_shown(d).get(name, []):
        if arr is None:
            continue
        try:
            a = np.asarray(arr, dtype=float).ravel()
        except (TypeError, ValueError):  # categorical axis
            continue
        parts.append(a[np.isfinite(a) & (a > 0)])
    return np.concatenate(parts) if parts else np.empty(0)


def _tidy_log_axes(d: dict) -> None:
    """:func:`tidy_log_axes` on a figure's dictionary."""
    layout = d.setdefault("layout", {})
    for name in list(layout):
        if not name.startswith(("xaxis", "yaxis")):
            continue
        ax = layout[name]
        if ax.get("type") != "log" or ax.get("tickvals") is not None:
            continue
        rng = ax.get("range")
        if rng is not None and all(v is not None for v in rng):
            lo, hi = 10.0 ** float(rng[0]), 10.0 ** float(rng[1])
        else:
            data = _axis_data(d, name)
            if data.size == 0:
                continue
            lo, hi = float(data.min()), float(data.max())
        ticks = log_ticks(lo, hi)
        if len(ticks) >= 2:
            ax["tickvals"] = ticks
            ax["ticktext"] = [f"{t:g}" for t in ticks]


# ---------------------------------------------------------------- one palette, one theme

#: Okabe & Ito's colour-blind-safe palette (yellow is kept for fills: it is too light for lines)
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "black": "#000000",
    "yellow": "#F0E442",
}
GREY = "#666666"
#: the order default-coloured traces take (layout colorway)
COLORWAY = [OKABE_ITO[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "black")]


@dataclass(frozen=True)
class Style:
    """A method's look on every page: its colour and, as a second cue, its line style and marker."""

    color: str
    dash: str = "solid"
    symbol: str = "circle"


_O = OKABE_ITO
#: every method the pages plot → its style (keys matched case-insensitively, see :func:`method_of`)
METHOD_STYLES = {
    # feature privacy and regression (BCDP): BCDP methods blue, the min-δ baseline vermillion
    "M_mean (BCDP)": Style(_O["blue"], "solid", "circle"),
    "min-δ LDP": Style(_O["vermillion"], "dash", "square"),
    "Algorithm 2 (two copies)": Style(_O["blue"], "solid", "circle"),
    "naive single copy": Style(_O["orange"], "dot", "diamond"),
    "min-δ LDP (two copies)": Style(_O["vermillion"], "dash", "square"),
    # per-user privacy
    "CP": Style(_O["blue"], "solid", "circle"),
    "CE": Style(_O["blue"], "dash", "circle-open"),
    "UP": Style(_O["orange"], "solid", "square"),
    "UE": Style(_O["orange"], "dash", "square-open"),
    "A": Style(_O["green"], "solid", "diamond"),
    "CT": Style(_O["sky"], "solid", "triangle-up"),
    "UT": Style(_O["sky"], "dash", "triangle-up-open"),
    "UNI": Style(_O["black"], "dot", "x"),
    "PROP": Style(_O["purple"], "solid", "cross"),
    "SM": Style(_O["vermillion"], "dashdot", "star"),
    "LDP": Style(_O["vermillion"], "dash", "hexagon"),
    # group-wise zCDP
    "Algorithm 1": Style(_O["green"], "solid", "circle"),
    "Algorithm 2": Style(_O["purple"], "dash", "square"),
    # mechanisms
    "Laplace": Style(_O["blue"], "solid", "circle"),
    "Gaussian": Style(_O["orange"], "dash", "square"),
    "MNM": Style(_O["green"], "dot", "diamond"),
    "bounded Laplace": Style(_O["purple"], "solid", "triangle-up"),
    "plain Laplace": Style(_O["blue"], "dash", "circle-open"),
    "exponential": Style(_O["blue"], "solid", "circle"),
    "noisy max": Style(_O["orange"], "dash", "square"),
    "no privacy": Style(_O["black"], "dot", "x"),
    # DP-SGD
    "DP-SGD": Style(_O["blue"], "solid", "circle"),
    "DP-SGD, a_h = 1": Style(_O["vermillion"], "dash", "square"),
    "SGD (no noise)": Style(_O["orange"], "dot", "diamond"),
    "GD (full gradient)": Style(_O["black"], "dashdot", "x"),
}
_KEYS = {k.lower(): k for k in METHOD_STYLES}

#: the earlier default (plotly/matplotlib "tab10") colours → the palette, for reference lines and bars
_REMAP = {
    "#1f77b4": _O["blue"],
    "#d62728": _O["vermillion"],
    "#2ca02c": _O["green"],
    "#ff7f0e": _O["orange"],
    "#9467bd": _O["purple"],
    "#7f7f7f": GREY,
    "#8c564b": _O["black"],
    "#e377c2": _O["purple"],
    "#17becf": _O["sky"],
    "#bcbd22": _O["yellow"],
    "#555555": GREY,
    "#bbbbbb": "#BBBBBB",
    "green": _O["green"],
    "red": _O["vermillion"],
    "blue": _O["blue"],
}
PLAN_A = "plan A — "


def method_of(name) -> str | None:
    """The method a trace name belongs to: the text before ': ', ' (' or ', ' (in that order of
    preference: 'M_mean (BCDP): median' → 'M_mean (BCDP)', 'laplace (analytic density)' → 'Laplace')."""
    if not name:
        return None
    text = str(name)
    if text.startswith(PLAN_A):
        text = text[len(PLAN_A) :]
    cands = [text, text.split(": ")[0], text.split(" (")[0], text.split(", ")[0], text.split(" (")[0].split(", ")[0]]
    for c in cands:
        key = _KEYS.get(c.strip().lower())
        if key:
            return key
    return None


def rgba(hex_color: str, alpha: float) -> str:
    """A ``#rrggbb`` colour with transparency, as plotly's ``rgba(r,g,b,a)``."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _remap(color):
    if isinstance(color, str):
        low = color.lower()
        if low in _REMAP:
            return _REMAP[low]
        if low.startswith("rgba("):
            parts = [p.strip() for p in low[5:-1].split(",")]
            hex_ = "#" + "".join(f"{int(float(p)):02x}" for p in parts[:3])
            if hex_ in _REMAP and _REMAP[hex_].startswith("#"):
                return rgba(_REMAP[hex_], float(parts[3]))
    return color


def _palette(d: dict) -> None:
    """:func:`apply_palette` on a figure's dictionary."""
    data, layout = d.setdefault("data", []), d.setdefault("layout", {})
    dashes_taken = any((tr.get("line") or {}).get("dash") not in (None, "solid") for tr in data)
    for tr in data:
        kind = _TraceKind.of(tr.get("type", "scatter"))
        style = METHOD_STYLES.get(method_of(tr.get("name")) or "")
        if style is not None:
            if tr.get("fill") in ("toself", "tonexty", "tozeroy"):
                tr["fillcolor"] = rgba(style.color, 0.18)
                continue
            if kind.line:
                line = tr.setdefault("line", {})
                line["color"] = style.color
                if line.get("dash") is None and not dashes_taken:
                    line["dash"] = style.dash
            if kind.marker:
                marker = tr.setdefault("marker", {})
                if not isinstance(marker.get("color"), (list, tuple)):
                    marker["color"] = style.color
                if tr.get("type", "scatter") == "scatter" and marker.get("symbol") is None:
                    marker["symbol"] = style.symbol
            continue
        line = tr.get("line")
        if kind.line and line is not None and line.get("color") is not None:
            line["color"] = _remap(line["color"])
        marker = tr.get("marker")
        if kind.marker and marker is not None and isinstance(marker.get("color"), str):
            marker["color"] = _remap(marker["color"])
        if tr.get("fillcolor") is not None:
            tr["fillcolor"] = _remap(tr["fillcolor"])
    for shape in layout.get("shapes") or ():
        line = shape.get("line")
        if line is not None and line.get("color") is not None:
            line["color"] = _remap(line["color"])
        if shape.get("fillcolor") is not None:
            shape["fillcolor"] = _remap(shape["fillcolor"])
    layout["colorway"] = list(COLORWAY)
    font = layout.setdefault("font", {})
    font.update(size=14, color="#222222")
    layout.setdefault("hoverlabel", {}).setdefault("font", {})["size"] = 13


def apply_palette(fig):
    """Colour every trace from the palette: a known method gets its own colour, line style and
    marker (a figure whose builder set dashes — analytic curves, plan A — keeps them as the only
    dashes; its methods differ by colour and marker); other colours
    are mapped from the old defaults. Sets the shared plot theme. Returns the figure, changed in place."""
    return _in_place(fig, _palette)


def tidy_log_axes(fig):
    """Give every log axis without explicit ticks clean ticks computed from its data (or its set
    range). Returns the figure, changed in place (anything that is not a plotly figure is returned
    unchanged)."""
    return _in_place(fig, _tidy_log_axes)


@dataclass(frozen=True)
class _TraceKind:
    """Which of a trace type's properties the finishing reads: whether it has a ``line``, a ``marker``, and
    cartesian axes (``xaxis``/``yaxis``), from plotly's own trace classes (once per type)."""

    line: bool
    marker: bool
    cartesian: bool

    @staticmethod
    @functools.cache
    def of(kind: str) -> _TraceKind:
        import plotly.graph_objects as go

        cls = {c.lower(): getattr(go, c) for c in dir(go) if c[0].isupper()}.get(kind)
        props = cls()._valid_props if cls is not None else set()
        return _TraceKind("line" in props, "marker" in props, "xaxis" in props)


def _in_place(fig, step):
    """``step`` (a finishing step on a figure's dictionary) done to ``fig`` in place: its dictionary
    finished and written back (validated; the app's figures are finished by :func:`finish` without
    this round trip). Anything that is not a plotly figure is returned unchanged."""
    if not hasattr(fig, "layout") or not hasattr(fig, "data") or not hasattr(fig, "to_dict"):
        return fig
    from hetdp_ui.figdict import decoded

    d = decoded(fig.to_dict())
    step(d)
    with fig.batch_update():
        fig.layout = d["layout"]
    fig.data = ()
    fig.add_traces(d["data"])
    return fig


#: the legend under the plot (pages with several series) and a small top margin
LEGEND_BELOW = {"legend": {"orientation": "h", "y": -0.25}, "margin": {"t": 10}}


def styled(fig, x: str | None = None, y: str | None = None, *, log_x: bool = False, log_y: bool = False, **layout):
    """A figure's layout in one call: the white template, the axis titles ``x`` and ``y`` (log axes
    where asked) and any other layout (``**LEGEND_BELOW``, ``barmode``, ``title`` …). Returns ``fig``."""
    from hetdp_ui.figdict import Fig

    if not isinstance(fig, Fig):  # a figure built as a dictionary gets the template when it is made
        _white_template(fig)
    fig.update_layout(**layout)
    if x is not None or log_x:
        fig.update_xaxes(title_text=x, **({"type": "log"} if log_x else {}))
    if y is not None or log_y:
        fig.update_yaxes(title_text=y, **({"type": "log"} if log_y else {}))
    return fig


def styled_figure(fig, x: str | None = None, y: str | None = None, **options):
    """:func:`styled`, as a builder's last step: the plotly figure (made from a figure built as a dictionary,
    :class:`hetdp_ui.figdict.Fig`)."""
    fig = styled(fig, x, y, **options)
    return fig.figure() if hasattr(fig, "figure") and not hasattr(fig, "to_dict") else fig


def _white_template(fig) -> None:
    """Set plotly's "plotly_white" template on ``fig`` as plotly sets its default template: the registered,
    already validated object, assigned without validating it again. ``update_layout(template=...)``
    validated and deep-copied the whole template for every figure (about 10 ms each, 40 % of building
    a page's figures); the figure's dictionary and JSON are the same."""
    import plotly.io as pio

    layout = fig.layout
    layout._validate = False
    try:
        layout.template = pio.templates["plotly_white"]
    finally:
        layout._validate = True


def _add(fig, trace: dict) -> None:
    """Add a scatter ``trace`` written as a dictionary: as it is to a figure built as a dictionary
    (:class:`hetdp_ui.figdict.Fig`), as plotly's object to a plotly figure."""
    from hetdp_ui.figdict import Fig

    if isinstance(fig, Fig):
        fig.add_trace(trace)
    else:
        import plotly.graph_objects as go

        fig.add_trace(go.Scatter(**{k: v for k, v in trace.items() if k != "type"}))


def add_line(fig, x, y, name: str, *, color=None, dash=None, mode: str = "lines", **kw) -> None:
    """One line of a chart (a scatter trace) with its colour and dash given in one call; ``kw`` passes on
    (``legendgroup``, ``yaxis``, ``marker``, hover text)."""
    from hetdp_ui.figdict import trace

    line = {k: v for k, v in (("color", color), ("dash", dash)) if v is not None}
    # kw read as plotly reads keywords (``marker_size=8`` is ``{"marker": {"size": 8}}``, a column its array)
    tr = trace("scatter", x=_data(x), y=_data(y), mode=mode, name=name, **kw)
    if line:
        tr["line"] = {**(tr.get("line") or {}), **line}
    _add(fig, tr)


def _data(v):
    """A column as a trace holds it (pandas' as its numpy array, as plotly stores it)."""
    return v.to_numpy() if hasattr(v, "to_numpy") else v


def add_band(fig, x, lo, hi, *, color: str, name: str, legendgroup: str, showlegend: bool = True):
    """A shaded band between ``lo`` and ``hi`` over ``x`` (e.g. the 25–75 % range of simulated errors)."""
    x = np.asarray(x)
    _add(
        fig,
        {
            "type": "scatter",
            "x": np.concatenate([x, x[::-1]]),
            "y": np.concatenate([np.asarray(hi), np.asarray(lo)[::-1]]),
            "mode": "lines",
            "fill": "toself",
            "fillcolor": rgba(color, 0.18),
            "line": {"width": 0},
            "hoverinfo": "skip",
            "name": name,
            "legendgroup": legendgroup,
            "showlegend": showlegend,
        },
    )
    return fig


def finish(fig):
    """Everything a built figure gets: the palette and theme, readable log axes, fixed margins for its
    number axes. Returns the finished figure — a new one, made from the built figure's dictionary
    finished as plain dicts and lists and not validated again: plotly's object model cost about 20 ms a
    figure for these steps (its property paths, validators and deep copies), the dictionary well under one
    (six Group-wise zCDP figures per slider step). Finishing a finished figure changes nothing. Anything
    that is not a plotly figure is returned unchanged."""
    if not hasattr(fig, "layout") or not hasattr(fig, "data") or not hasattr(fig, "to_dict"):
        return fig
    from hetdp_ui.figdict import DICT, _wrap, decoded

    d = getattr(fig, DICT, None)
    if d is None:
        d = decoded(fig.to_dict())
    else:  # a copy of its dicts and lists (``decoded``: its arrays are numpy already, shared), so the built
        # figure stays as it was; the white template stays shared (read-only)
        layout = {k: v if k == "template" else decoded(v) for k, v in d["layout"].items()}
        d = {"data": [decoded(t) for t in d["data"]], "layout": layout}
    _palette(d)
    _tidy_log_axes(d)
    _fixed_margins(d)
    return _wrap(d)


#: margins (pixels) that hold a number axis's tick labels and title without plotly measuring them: the
#: left (or right) one a y axis's labels of up to 8 characters and its title, the bottom one an x axis's
#: labels and title, the right one without a right axis the half of an x axis's last label that overhangs
FIXED_MARGIN = {"l": 96, "r_axis": 96, "r": 24, "b": 64}


_MISSING = object()

#: trace types that draw each trace at its name on the axis whose values it does not give (a horizontal
#: box has x and its name on the y axis)
_NAMED_AT = ("box", "violin")


def _axes_shown(d: dict) -> dict[str, list]:
    """The cartesian axes the traces of the figure dictionary ``d`` are drawn on (``xaxis``, ``yaxis2`` …),
    each with its traces' values on it (None where a trace gives none)."""
    axes: dict[str, list] = {}
    for tr in d.get("data") or ():
        kind = tr.get("type", "scatter")
        if not _TraceKind.of(kind).cartesian:  # a pie, a polar trace
            continue
        for letter in "xy":
            ref = tr.get(f"{letter}axis") or letter
            values = array(tr.get(letter))
            if values is None and kind in _NAMED_AT:
                values = [tr.get("name") or ""]  # its name is drawn on this axis: words
            axes.setdefault(f"{letter}axis{ref[1:]}", []).append(values)
    return axes


def _numeric_axis(axis: dict, values: list) -> bool:
    """Whether an axis (its layout dictionary) shows numbers only: not categories, dates or tick texts, not
    at the top, and every trace's values on it numbers."""
    if (
        axis.get("type") in ("category", "multicategory", "date")
        or axis.get("ticktext") is not None
        or axis.get("side") == "top"
    ):
        return False
    for v in values:
        if v is None:
            continue
        try:
            arr = np.asarray(v)
            if arr.dtype.kind in "mM":
                return False
            arr.astype(float)
        except (TypeError, ValueError):
            return False
    return True


def _fixed_margins(d: dict) -> None:
    """:func:`fixed_margins` on a figure's dictionary."""
    layout = d.setdefault("layout", {})
    fixed = {}
    for name, values in _axes_shown(d).items():
        axis = layout.get(name) or {}
        if not _numeric_axis(axis, values):
            continue
        layout.setdefault(name, axis)["automargin"] = False
        if name[0] == "x":
            fixed["b"] = FIXED_MARGIN["b"]
        elif axis.get("side") == "right":
            fixed["r"] = FIXED_MARGIN["r_axis"]
        else:
            fixed["l"] = FIXED_MARGIN["l"]
    if "b" in fixed or "l" in fixed:
        fixed.setdefault("r", FIXED_MARGIN["r"])
    if fixed:
        margin = layout.setdefault("margin", {})
        for side, value in fixed.items():
            margin[side] = max(value, margin.get(side) or 0)


def fixed_margins(fig):
    """Turn off plotly's automatic margins (``automargin``) on every axis that shows numbers only and give
    the figure margins that hold them (:data:`FIXED_MARGIN`; a builder's wider margin stays). With automatic
    margins the browser measures every tick label and title at each redraw, and draws again when a margin
    changes: a third of plotly's time in a slider step (Group-wise zCDP's six charts, CPU profile of
    Chromium). An axis with words (categories, tick texts, dates, a box's name) keeps them, as does the
    legend (it still widens the margin it needs). Returns the figure, changed in place."""
    return _in_place(fig, _fixed_margins)


#: the plot width value labels are laid out for (pixels; narrower than a page's charts, so labels that fit
#: here fit there) and the height of one row of labels
LABEL_PLOT_WIDTH, LABEL_ROW = 520, 15


def label_anchor(position: float) -> str:
    """Where a label sits on its point: centred, or ending at it near the right edge and starting at it near
    the left edge (so that a label at an end of the plot stays inside it)."""
    return "left" if position < 0.15 else "right" if position > 0.85 else "center"


def label_rows(positions, texts, *, width: float = LABEL_PLOT_WIDTH, char: float = 7.0) -> list[int]:
    """A row for each label (0 = nearest its point) so that labels in one row do not overlap: label i is
    ``texts[i]`` at ``positions[i]`` (a fraction of the plot's width, anchored by :func:`label_anchor`),
    about ``char`` pixels a character on a plot ``width`` pixels wide; greedy, in order of position."""
    rows: list[list[tuple[float, float]]] = []
    out = [0] * len(texts)
    for i in sorted(range(len(texts)), key=lambda j: positions[j]):
        size, x = char * len(texts[i]) + 8, positions[i] * width
        anchor = label_anchor(positions[i])
        lo = x - size / 2 if anchor == "center" else x if anchor == "left" else x - size
        hi = lo + size
        row = next((r for r, taken in enumerate(rows) if all(hi <= a or lo >= b for a, b in taken)), len(rows))
        if row == len(rows):
            rows.append([])
        rows[row].append((lo, hi))
        out[i] = row
    return out


from hetdp_ui.chart_words import summarize  # noqa: E402 — charts in words, in their own module
