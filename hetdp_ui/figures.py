"""Plotly figure builders shared by the pages and ``hetdp reproduce`` (no Streamlit here)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .figcache import memo_figure
from .theme import GREY, METHOD_STYLES, OKABE_ITO, add_band, add_line, styled

COLORS = {m: METHOD_STYLES[m].color for m in ("M_mean (BCDP)", "min-δ LDP")}
AXIS_TITLES = {
    "q": "correlation q",
    "d": "dimension d",
    "f": "fraction f of sensitive features",
    "n": "number of users n",
}


def _plan_a_medians(fig: go.Figure, plan_a: pd.DataFrame, axis: str) -> None:
    """A pinned plan A's medians: dotted, open markers."""
    for method, grp in plan_a.groupby("method", sort=False):
        grp = grp.sort_values(axis)
        fig.add_trace(
            go.Scatter(
                x=grp[axis],
                y=grp["median"],
                mode="lines+markers",
                line={"color": COLORS.get(method, GREY), "dash": "dot", "width": 2},
                marker={"symbol": "circle-open", "size": 8},
                name=f"plan A — {method}: median (simulated)",
                legendgroup=f"A {method}",
            )
        )


def _bound_shapes(fig: go.Figure, grp: pd.DataFrame, x) -> None:
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


def _y_range(fig: go.Figure, summary: pd.DataFrame, plan_a, *, log_y: bool) -> float | None:
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


def _marks_above(fig: go.Figure, summary: pd.DataFrame, axis: str, top: float) -> None:
    """An analytic value above the chart, marked at its top edge with its number (▲ 121)."""
    for method, grp in summary.groupby("method", sort=False):
        above = grp[grp["exact_mse"] > top].sort_values(axis)
        if len(above):
            fig.add_trace(
                go.Scatter(
                    x=above[axis],
                    y=[top] * len(above),
                    mode="markers+text",
                    marker={"symbol": "triangle-up", "size": 10, "color": COLORS.get(method, GREY)},
                    text=[f"{v:.3g}" for v in above["exact_mse"]],
                    textposition="bottom center",
                    cliponaxis=False,
                    name=f"{method}: exact MSE above the chart (its value)",
                    legendgroup=method,
                )
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
) -> go.Figure:
    """Median squared error with the 25–75 % band per method (simulated), plus the analytic
    closed-form pre-projection MSE (dashed) and, optionally, the Theorem 2 bound shape (dotted).
    ``plan_a``: a pinned scenario's summary, drawn as dotted medians with open markers. ``current``:
    the view's own value of the swept quantity (the rest of the page uses it), marked by a line. The
    y-range follows the simulated data; an analytic value above it is marked at the top edge with
    its number (▲ 121), so that no value is out of sight."""
    fig = go.Figure()
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
        _marks_above(fig, summary, axis, top)
    if current is not None:
        fig.add_vline(x=current, line_dash="dot", line_color=GREY, annotation_text=f"this view: {current:g}")
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
    return fig


@memo_figure
def c_vector_figure(
    names: list[str], delta: np.ndarray, c: np.ndarray, guaranteed: np.ndarray, eps: float, plan_a: tuple | None = None
) -> go.Figure:
    """Per-feature demand δ, allocation c and guaranteed δ' as grouped bars (user order).
    ``plan_a`` = (names, c, guaranteed) of a pinned scenario: open markers over the bars."""
    shown = np.minimum(delta, eps * 1.5)
    fig = go.Figure()
    fig.add_bar(x=names, y=shown, name="demanded δ (∞ shown at 1.5ε)", marker_color="#bbbbbb")
    fig.add_bar(x=names, y=guaranteed, name="guaranteed δ'", marker_color=OKABE_ITO["green"])
    fig.add_bar(x=names, y=c, name="budget spent on the feature (c_i)", marker_color=OKABE_ITO["blue"])
    fig.add_hline(y=eps, line_dash="dash", annotation_text="ε (global LDP)", line_color=OKABE_ITO["vermillion"])
    if plan_a is not None:
        a_names, a_c, a_g = plan_a
        for y, name, symbol, color in (
            (a_g, "plan A: guaranteed δ'", "diamond-open", "green"),
            (a_c, "plan A: allocated c", "circle-open", "blue"),
        ):
            marker = {"symbol": symbol, "size": 11, "color": OKABE_ITO[color], "line": {"width": 2}}
            fig.add_trace(go.Scatter(x=list(a_names), y=y, mode="markers", name=name, marker=marker))
    return styled(fig, None, "privacy level", barmode="group", legend={"orientation": "h", "y": -0.2}, margin={"t": 10})


@memo_figure
def stage_schematic_figure(names_sorted: list[str], stages: list) -> go.Figure:
    """Heatmap: stage k (rows) × feature (columns, most private first), coloured by level Δ_k."""
    d = len(names_sorted)
    z = np.full((len(stages), d), np.nan)
    text = [["" for _ in range(d)] for _ in stages]
    for r, st in enumerate(stages):
        z[r, st.start :] = st.level
        for j in range(st.start, d):
            text[r][j] = f"{st.level:.3g}"
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=names_sorted,
            y=[f"stage {st.k} (m={st.dims})" for st in stages],
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            colorbar={"title": "Δ_k"},
            hovertemplate="%{y}, %{x}: Δ=%{z:.4g}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    return styled(fig, "features (most private first)", margin={"t": 10}, height=max(220, 40 * len(stages) + 120))


@memo_figure
def line_figure(
    table: pd.DataFrame, *, x: str, ys: dict[str, str], x_title: str, y_title: str, log_x=False, log_y=False
):
    """One line per column of ``table`` against column ``x``; ``ys`` maps a column to its legend name.
    A generic builder for a new page's first chart (docs/contributing.md)."""
    fig = go.Figure()
    for column, name in ys.items():
        fig.add_trace(go.Scatter(x=table[x], y=table[column], mode="lines+markers", name=name))
    return styled(fig, x_title, y_title, log_x=log_x, log_y=log_y, legend={"orientation": "h", "y": -0.25})
