"""Figures of the feature privacy page (Streamlit-free plotly builders) and FIGURES, the one list that
the page and its report draw."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig, trace
from hetdp_ui.figures import mse_sweep_figure, quantile_dotplot_figure
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import OKABE_ITO, styled_figure


@memo_figure
def c_vector_figure(
    names: list[str], delta: np.ndarray, c: np.ndarray, guaranteed: np.ndarray, eps: float, plan_a: tuple | None = None
) -> go.Figure:
    """Per-feature demand δ, allocation c and guaranteed δ' as grouped bars (user order).
    ``plan_a`` = (names, c, guaranteed) of a pinned scenario: open markers over the bars."""
    shown = np.minimum(delta, eps * 1.5)
    fig = Fig()
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
            fig.add_scatter(x=list(a_names), y=y, mode="markers", name=name, marker=marker)
    return styled_figure(
        fig, None, "privacy level", barmode="group", legend={"orientation": "h", "y": -0.2}, margin={"t": 10}
    )


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
    fig = Fig(
        [
            trace(
                "heatmap",
                z=z,
                x=names_sorted,
                y=[f"stage {st.k} (m={st.dims})" for st in stages],
                text=text,
                texttemplate="%{text}",
                colorscale=get_colorscale("Blues"),  # as plotly writes a named scale
                colorbar={"title": "Δ_k"},
                hovertemplate="%{y}, %{x}: Δ=%{z:.4g}<extra></extra>",
            )
        ]
    )
    fig.update_yaxes(autorange="reversed")
    return styled_figure(
        fig, "features (most private first)", margin={"t": 10}, height=max(220, 40 * len(stages) + 120)
    )


def _c_vector(s, r, *, plan_a=None):
    pa = None if plan_a is None else (plan_a.names, plan_a.alloc.c, plan_a.guaranteed)
    return c_vector_figure(r.names, r.alloc.demands, r.alloc.c, r.guaranteed, s.eps, plan_a=pa)


def _mse(s, r, *, show_exact: bool = True, show_bound: bool = False, plan_a=None):
    """The sweep of the scenario's axis; a plan A sweeping the same axis is overlaid, and the dotted line
    marks this view's value of the axis."""
    here = {"q": s.q, "n": s.n}
    if s.mode == "two_groups":
        here |= {"d": s.d, "f": s.k / s.d}
    same_axis = plan_a is not None and plan_a.scenario.axis == s.axis
    return mse_sweep_figure(
        r.bcdp_mse_summary,
        s.axis,
        show_exact=show_exact,
        show_bound=show_bound,
        plan_a=plan_a.bcdp_mse_summary if same_axis else None,
        current=here.get(s.axis),
    )


FIGURES = (
    PageFigure("c_vector", "Privacy allocation c (Theorem 2)", _c_vector),
    PageFigure(
        "stages", "Stage schematic of Mechanism 1", lambda s, r: stage_schematic_figure(r.sorted_names, r.stages)
    ),
    PageFigure("mse", lambda s, r: f"Squared error vs {s.axis} (simulated; dashed: analytic)", _mse),
    PageFigure(
        "dotplot",
        lambda s, r: f"Twenty equally likely published means per feature at q = {s.q:g} (quantile dotplot)",
        lambda s, r, *, title="": quantile_dotplot_figure(r.bcdp_release_quantiles, title=title),
    ),
)
