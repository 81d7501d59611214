"""Plotly figure builders shared by several pages and ``hetdp reproduce`` (no Streamlit here); a page's
own figures live in its folder (``pages/<slug>/figures.py``, :mod:`hetdp_ui.folders`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .figcache import memo_figure
from .figdict import Fig, dict_figure, vline
from .theme import (
    COLORWAY,
    GREY,
    LABEL_ROW,
    METHOD_STYLES,
    OKABE_ITO,
    add_band,
    add_line,
    label_anchor,
    label_rows,
    styled,
    styled_figure,
)

COLORS = {m: METHOD_STYLES[m].color for m in ("M_mean (BCDP)", "min-δ LDP")}
AXIS_TITLES = {
    "q": "correlation q",
    "d": "dimension d",
    "f": "fraction f of sensitive features",
    "n": "number of users n",
}


def _plan_a_medians(fig: Fig, plan_a: pd.DataFrame, axis: str) -> None:
    """A pinned plan A's medians: dotted, open markers."""
    for method, grp in plan_a.groupby("method", sort=False):
        grp = grp.sort_values(axis)
        fig.add_trace(
            dict(
                type="scatter",
                x=grp[axis].to_numpy(),
                y=grp["median"].to_numpy(),
                mode="lines+markers",
                line={"color": COLORS.get(method, GREY), "dash": "dot", "width": 2},
                marker={"symbol": "circle-open", "size": 8},
                name=f"plan A — {method}: median (simulated)",
                legendgroup=f"A {method}",
            )
        )


def _bound_shapes(fig: Fig, grp: pd.DataFrame, x) -> None:
    """Theorem 2's bound shape and Corollary 1's (analytic, on the right axis), where the summary has them."""
    if grp["bound_shape"].notna().any():
        add_line(
            fig,
            x,
            grp["bound_shape"],
            "Theorem 2 bound, constant 1 (analytic, right axis)",
            color=GREY,
            dash="dot",
            legendgroup="bounds",
            yaxis="y2",
        )
    if "corollary1" in grp and grp["corollary1"].notna().any():
        add_line(
            fig,
            x,
            grp["corollary1"],
            "Corollary 1 (ζ = ½), constant 1 (analytic, right axis)",
            color=OKABE_ITO["purple"],
            dash="dashdot",
            legendgroup="bounds",
            yaxis="y2",
        )


def _y_range(fig: Fig, summary: pd.DataFrame, plan_a, *, log_y: bool) -> float | None:
    """Set the y-range from the simulated data (and plan A's medians); return its top (None: automatic)."""
    # the y-range follows the simulated data; an analytic curve may leave the plot (its values are
    # in the hover text and the CSV) rather than squash the simulated curves
    lo, hi = float(summary["q25"].min()), float(summary["q75"].max())
    if plan_a is not None:
        lo, hi = min(lo, float(plan_a["median"].min())), max(hi, float(plan_a["median"].max()))
    top = None
    if log_y:
        if lo > 0 and hi > 0:
            fig.update_yaxes(type="log", range=[np.log10(lo) - 0.25, np.log10(hi) + 0.25])
            top = 10 ** (np.log10(hi) + 0.25)
        else:
            fig.update_yaxes(type="log")
    else:
        pad = 0.1 * (hi - lo if hi > lo else 1.0)
        fig.update_yaxes(range=[lo - pad, hi + pad])
        top = hi + pad
    return top


def _marks_above(fig: Fig, summary: pd.DataFrame, axis: str, top: float, *, log_x: bool, log_y: bool) -> None:
    """An analytic value above the chart, marked ▲ at its top edge with its number as a label under it
    (▲ 121); labels that would overlap go on rows further down. The trace carries the values themselves
    (``meta``), so the chart in words says the values, not the edge where they are drawn."""
    xs = summary[axis].to_numpy(float)
    scale = np.log10 if log_x else (lambda v: v)
    lo, hi = float(scale(xs.min())), float(scale(xs.max()))
    marks = []
    for method, grp in summary.groupby("method", sort=False):
        above = grp[grp["exact_mse"] > top].sort_values(axis)
        if len(above):
            fig.add_trace(
                dict(
                    type="scatter",
                    x=above[axis].to_numpy(),
                    y=[top] * len(above),
                    mode="markers",
                    marker={"symbol": "triangle-up", "size": 10, "color": COLORS.get(method, GREY)},
                    cliponaxis=False,
                    name=f"{method}: exact MSE above the chart (its value)",
                    legendgroup=method,
                    meta={"values": above["exact_mse"].tolist()},
                    text=[f"{v:.4g}" for v in above["exact_mse"]],
                    hovertemplate=f"{method}: exact MSE %{{text}}<extra></extra>",
                )
            )
            marks += [(float(x), f"{v:.4g}", COLORS.get(method, GREY)) for x, v in zip(above[axis], above["exact_mse"])]
    # the chart pads its x range by about 5 % on each side
    span = (hi - lo) or 1.0
    pos = [0.05 + 0.9 * (float(scale(x)) - lo) / span for x, _, _ in marks]
    rows = label_rows(pos, [t for _, t, _ in marks])
    y = float(np.log10(top)) if log_y else top
    for (x, text, color), row, pos_ in zip(marks, rows, pos):
        fig.add_annotation(
            x=float(np.log10(x)) if log_x else x,
            y=y,
            text=text,
            showarrow=False,
            xanchor=label_anchor(pos_),
            yanchor="top",
            yshift=-(10 + LABEL_ROW * row),
            font={"size": 11, "color": color},
            bgcolor="rgba(255, 255, 255, 0.85)",  # readable where a line of the chart passes under it
        )


@memo_figure
def mse_sweep_figure(
    summary: pd.DataFrame,
    axis: str,
    *,
    show_exact: bool = True,
    show_bound: bool = False,
    log_y: bool = True,
    title: str = "",
    plan_a: pd.DataFrame | None = None,
    current: float | None = None,
) -> Fig:
    """Median squared error with the 25–75 % band per method (simulated), plus the analytic
    closed-form pre-projection MSE (dashed) and, optionally, the Theorem 2 bound shape (dotted).
    ``plan_a``: a pinned scenario's summary, drawn as dotted medians with open markers. ``current``:
    the view's own value of the swept quantity (the rest of the page uses it), marked by a line. The
    y-range follows the simulated data; an analytic value above it is marked at the top edge with
    its number (▲ 121), so that no value is out of sight."""
    fig = Fig()  # written as plotly's dictionary (hetdp_ui.figdict)
    if plan_a is not None:
        _plan_a_medians(fig, plan_a, axis)
    for method, grp in summary.groupby("method", sort=False):
        grp = grp.sort_values(axis)
        col = COLORS.get(method, GREY)
        x = grp[axis].to_numpy()
        add_band(fig, x, grp["q25"], grp["q75"], color=col, name=f"{method}: 25–75% (simulated)", legendgroup=method)
        add_line(
            fig, x, grp["median"], f"{method}: median (simulated)", color=col, mode="lines+markers", legendgroup=method
        )
        if show_exact:
            add_line(
                fig,
                x,
                grp["exact_mse"],
                f"{method}: exact MSE, no projection (analytic)",
                color=col,
                dash="dash",
                legendgroup=method,
            )
        if show_bound:
            _bound_shapes(fig, grp, x)
    styled(
        fig,
        AXIS_TITLES.get(axis, axis),
        "squared error ‖x̂ − x̄‖²",
        title=title or None,
        legend={"orientation": "h", "y": -0.25},
        margin={"t": (40 + 22 * title.count("<br>")) if title else 10},
    )
    top = _y_range(fig, summary, plan_a, log_y=log_y)
    if show_exact and top is not None:
        _marks_above(fig, summary, axis, top, log_x=axis == "n", log_y=log_y)
    if current is not None:  # its label at the foot of the line: the top edge holds the values above the chart
        fig.add_vline(
            x=current,
            line_dash="dot",
            line_color=GREY,
            annotation_text=f"this view: {current:g}",
            annotation_position="bottom right",
        )
    if show_bound:
        fig.update_layout(
            yaxis2={
                "title": "bound, constant 1 (only the shape is meaningful)",
                "overlaying": "y",
                "side": "right",
                "type": "log" if log_y else "linear",
                "showgrid": False,
            }
        )
    if axis == "n":
        fig.update_xaxes(type="log")
    return fig.figure()


@memo_figure
def line_figure(
    table: pd.DataFrame, *, x: str, ys: dict[str, str], x_title: str, y_title: str, log_x=False, log_y=False
):
    """One line per column of ``table`` against column ``x``; ``ys`` maps a column to its legend name.
    A generic builder for a new page's first chart (docs/contributing.md)."""
    fig = Fig()
    for column, name in ys.items():
        fig.add_scatter(x=table[x], y=table[column], mode="lines+markers", name=name)
    return styled_figure(fig, x_title, y_title, log_x=log_x, log_y=log_y, legend={"orientation": "h", "y": -0.25})


#: colours by row (plan A and plan B match): the shared colour-blind-safe palette (hetdp_ui/theme.py)
_PALETTE = tuple(COLORWAY)


@memo_figure
def quantile_dotplot_figure(quantiles, title: str = "") -> go.Figure:
    """Quantile dotplot (one row per mechanism): each dot is one of 20 equally likely released
    values; dots that fall in the same bin are stacked; the dashed line is the true value. Written as
    plotly's dictionary (:func:`hetdp_ui.theme.dict_figure`)."""
    mechs = list(dict.fromkeys(quantiles["mechanism"]))
    vals = quantiles["released value"].to_numpy(float)
    lo, hi = float(vals.min()), float(vals.max())
    width = (hi - lo) / 30 if hi > lo else 1.0
    data = []
    for row, m in enumerate(mechs):
        v = np.sort(quantiles.loc[quantiles["mechanism"] == m, "released value"].to_numpy(float))
        bins = np.floor((v - lo) / width)
        stack = np.array([np.sum(bins[:i] == b) for i, b in enumerate(bins)])
        data.append(
            {
                "type": "scatter",
                "x": lo + (bins + 0.5) * width,
                "y": row + 0.12 * stack,
                "mode": "markers",
                "marker": {"size": 9, "color": _PALETTE[row % len(_PALETTE)]},
                "name": m,
                "customdata": v,
                "meta": {"values": v.tolist()},  # a dot is drawn at its bin; its value is what the chart says
                "hovertemplate": f"{m}: %{{customdata:.4g}}<extra></extra>",
            }
        )
    truth = quantiles.groupby("mechanism", sort=False)["true value"].first().reindex(mechs).to_numpy(float)
    layout: dict = {}
    if np.allclose(truth, truth[0]):
        shape, note = vline(float(truth[0]), dash="dash", text="true value")
        layout.update(shapes=[shape], annotations=[note])
    else:  # one true value per row (e.g. per bin)
        data.append(
            {
                "type": "scatter",
                "x": truth,
                "y": np.arange(len(mechs)) - 0.15,
                "mode": "markers",
                "name": "true value",
                "marker": {"symbol": "triangle-up", "size": 11, "color": "#222222"},
                "hovertemplate": "true value %{x:.4g}<extra></extra>",
            }
        )
    layout.update(
        yaxis={"tickvals": list(range(len(mechs))), "ticktext": mechs, "range": [-0.5, len(mechs) + 0.2]},
        showlegend=False,
        margin={"t": 40 if title else 10},
        height=120 + 70 * len(mechs),
        title={"text": title} if title else {},
        xaxis={"title": {"text": "released value"}},
    )
    return dict_figure(data, layout)
