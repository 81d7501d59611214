"""Figures of the private regression page (Streamlit-free plotly builders) and FIGURES, the one list
that the page and its report draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import GREY, LEGEND_BELOW, OKABE_ITO, add_band, add_line, styled_figure

BLUE, RED, GREEN, PURPLE = OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"], OKABE_ITO["purple"]

COLORS = {"Algorithm 2 (two copies)": BLUE, "naive single copy": RED, "min-δ LDP (two copies)": GREEN}


@memo_figure
def excess_risk_figure(df: pd.DataFrame, axis: str) -> go.Figure:
    """Median excess risk with 25–75 % band per method (simulated; non-convex runs excluded)."""
    fig = Fig()
    for method, g in df.groupby("method", sort=False):
        g = g.sort_values(axis)
        col = COLORS.get(method, GREY)
        x = g[axis].to_numpy()
        ok = g["median"].notna().to_numpy()
        if ok.any():
            lo, hi = g["q25"].to_numpy()[ok], g["q75"].to_numpy()[ok]
            add_band(fig, x[ok], lo, hi, color=col, name=f"{method}: 25–75%", legendgroup=method, showlegend=False)
        add_line(
            fig,
            x,
            g["median"],
            f"{method}: median (simulated)",
            color=col,
            mode="lines+markers",
            legendgroup=method,
            text=[f"{nc}/{r} runs stopped (f̂ non-convex)" for nc, r in zip(g["nonconvex"], g["runs"])],
            hovertemplate="%{x}: %{y:.4g}<br>%{text}<extra></extra>",
        )
    fig.update_xaxes(type="log", title="number of users n" if axis == "n" else "ε (global LDP level)")
    fig.update_yaxes(type="log", title="excess risk f(θ̂) − f*")
    return styled_figure(fig, **LEGEND_BELOW)


@memo_figure
def trajectory_figure(trajs: dict[str, np.ndarray], theta_star: np.ndarray) -> go.Figure:
    """‖θ_h − θ*‖ along projected gradient descent for one privatisation per method."""
    fig = Fig()
    for method, traj in trajs.items():
        if traj is None:
            continue
        dist = np.linalg.norm(traj - theta_star, axis=1)
        fig.add_scatter(
            x=np.arange(dist.size), y=dist, mode="lines", name=method, line={"color": COLORS.get(method, GREY)}
        )
    fig.update_yaxes(type="log", title="‖θ_h − θ*‖")
    return styled_figure(fig, "gradient step h", **LEGEND_BELOW)


FIGURES = (
    PageFigure(
        "trajectory",
        "One private fit: distance to the non-private optimum",
        lambda s, r: trajectory_figure(r.trajectories, r.reference.theta),
    ),
    PageFigure(
        "excess_risk",
        lambda s, r: f"Excess risk vs {s.axis}",
        lambda s, r: excess_risk_figure(r.regression_excess_risk, s.axis),
    ),
)
