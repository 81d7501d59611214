"""Figures of the DP-SGD schedules page (Streamlit-free plotly builders) and FIGURES, the one list that
the page and its report draw."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import LEGEND_BELOW, METHOD_STYLES, OKABE_ITO, add_line, rgba, styled_figure

METHOD_COLORS = {
    m: METHOD_STYLES[m].color for m in ("DP-SGD", "DP-SGD, a_h = 1", "SGD (no noise)", "GD (full gradient)")
}


@memo_figure
def theta_figure(result) -> go.Figure:
    sch = result.dpsgd_schedule
    fig = Fig()
    add_line(fig, sch["h"], sch["theta"], "θ_h (Theorem 36, exact sums)")
    add_line(fig, sch["h"], sch["eps_release"], "release h is ε·a_h-DP", dash="dash", yaxis="y2")
    return styled_figure(
        fig,
        "iteration h",
        "θ_h",
        log_x=True,
        log_y=True,
        yaxis2={"type": "log", "title": "ε·a_h", "overlaying": "y", "side": "right", "showgrid": False},
        **LEGEND_BELOW,
    )


@memo_figure
def region_figure(result) -> go.Figure:
    reg, s = result.dpsgd_region, result.scenario
    rr = reg["rho"].to_numpy()
    fig = Fig()
    fig.add_scatter(
        x=np.r_[rr, rr[::-1]],
        y=np.r_[np.maximum(1 - rr / 2, 0), np.full(rr.size, 3.0)],
        fill="toself",
        fillcolor=rgba(OKABE_ITO["green"], 0.2),
        line={"width": 0},
        name="2κ + ρ > 2: A3 → 0 (converges)",
    )
    fig.add_scatter(x=rr, y=1 - rr / 2, mode="lines", line={"color": OKABE_ITO["green"]}, name="2κ + ρ = 2")
    if s.lr == "poly":
        ok = bool(reg["your_point_converges"].iloc[0])
        fig.add_scatter(
            x=[s.rho],
            y=[s.used_kappa],
            mode="markers",
            name="your (ρ, κ)",
            marker={"size": 14, "color": OKABE_ITO["blue"] if ok else OKABE_ITO["vermillion"], "symbol": "star"},
        )
    return styled_figure(
        fig, "ρ (learning-rate decay)", "κ (privacy decay)", xaxis_range=[0, 1], yaxis_range=[0, 3], **LEGEND_BELOW
    )


@memo_figure
def bound_terms_figure(result) -> go.Figure:
    bt = result.dpsgd_bound_terms
    fig = Fig()
    for col, name in (("A1", "A1 = ‖β0−β*‖²/Σγ"), ("A2", "A2 = Σγ²/Σγ"), ("A3", "A3 = Σγ²θ²/Σγ (privacy)")):
        fig.add_scatter(x=bt["N"], y=bt[col], mode="lines", name=name)
    return styled_figure(fig, "N", log_x=True, log_y=True, **LEGEND_BELOW)


@memo_figure
def trajectories_figure(result) -> go.Figure:
    fig = Fig()
    for name, band in result.bands.items():
        col = METHOD_COLORS[name]
        fig.add_scatter(
            x=np.r_[band["h"], band["h"][::-1]],
            y=np.r_[band["q90"], band["q10"][::-1]],
            fill="toself",
            fillcolor=rgba(col, 0.15),
            line={"width": 0},
            hoverinfo="skip",
            name=f"{name}: 10–90 %",
            showlegend=False,
        )
        fig.add_scatter(
            x=band["h"],
            y=band["median"],
            mode="lines",
            line={"color": col},
            name=f"{name}: median over runs (simulated)",
        )
    return styled_figure(fig, "iteration h", "‖β^(h) − β*‖", log_x=True, log_y=True, **LEGEND_BELOW)


FIGURES = (
    PageFigure("theta", "Noise scale θ_h per release", lambda s, r: theta_figure(r)),
    PageFigure("region", "The (ρ, κ) plane", lambda s, r: region_figure(r)),
    PageFigure("bound_terms", "Bound terms A1, A2, A3 vs N", lambda s, r: bound_terms_figure(r)),
    PageFigure("trajectories", "Simulated trajectories", lambda s, r: trajectories_figure(r)),
)
