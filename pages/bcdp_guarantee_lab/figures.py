"""Figures of the BCDP guarantee lab (Streamlit-free plotly builders) and FIGURES, the one list that the
page and its report draw."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import GREY, LEGEND_BELOW, OKABE_ITO, styled_figure

BLUE, RED, GREEN, PURPLE = OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"], OKABE_ITO["purple"]


@memo_figure
def rr_figure(df: pd.DataFrame, coordinate: int) -> go.Figure:
    """Exact BCDP level of one coordinate vs q against the Prop 4 and Prop 3 bounds (all analytic
    / exact: no simulation)."""
    g = df[df["coordinate"] == coordinate].sort_values("q")
    fig = Fig()
    fig.add_scatter(
        x=g["q"], y=g["exact"], mode="lines+markers", name="exact BCDP δ_i (enumeration)", line={"color": BLUE}
    )
    fig.add_scatter(
        x=g["q"], y=g["prop4"], mode="lines", name="Proposition 4 bound", line={"color": RED, "dash": "dash"}
    )
    fig.add_scatter(
        x=g["q"], y=g["prop3"], mode="lines", name="Proposition 3 (LDP level Σc)", line={"color": GREY, "dash": "dot"}
    )
    fig.add_scatter(
        x=g["q"], y=g["c"], mode="lines", name="c_i (its own RR level)", line={"color": GREEN, "dash": "dashdot"}
    )
    return styled_figure(
        fig, "correlation q (q-mixture prior)", f"privacy level of coordinate {coordinate}", **LEGEND_BELOW
    )


@memo_figure
def hypothesis_tests_figure(alpha_all, beta_all, alpha_np, beta_np, delta: float) -> go.Figure:
    """Theorem 1 view: (type I, type II) of every test, the optimal boundary, and the lines
    e^δ α + β = 1 and α + e^δ β = 1 below which no test may go."""
    fig = Fig()
    if alpha_all is not None:
        fig.add_scatter(
            x=alpha_all,
            y=beta_all,
            mode="markers",
            name="every rejection region R ⊆ Y",
            marker={"color": BLUE, "size": 6, "opacity": 0.6},
        )
    fig.add_scatter(
        x=alpha_np, y=beta_np, mode="lines", name="best tests (Neyman–Pearson boundary)", line={"color": BLUE}
    )
    a = np.linspace(0, 1, 200)
    if math.isfinite(delta):
        e = math.exp(min(delta, 700.0))  # beyond e^700 both lines coincide with the axes on screen
        fig.add_scatter(
            x=a, y=np.clip(1 - e * a, 0, 1), mode="lines", name="e^δ α + β = 1", line={"color": RED, "dash": "dash"}
        )
        fig.add_scatter(
            x=a, y=np.clip((1 - a) / e, 0, 1), mode="lines", name="α + e^δ β = 1", line={"color": RED, "dash": "dot"}
        )
    fig.add_scatter(
        x=[0, 1],
        y=[1, 0],
        mode="lines",
        name="no information (α + β = 1)",
        line={"color": GREY, "dash": "dot", "width": 1},
    )
    return styled_figure(
        fig, "type I error α", "type II error β", xaxis_range=[0, 1], yaxis_range=[0, 1], **LEGEND_BELOW, height=480
    )


@memo_figure
def translator_figure(names, c_thm2, c_prop6, delta) -> go.Figure:
    fig = Fig()
    fig.add_bar(
        x=names,
        y=np.minimum(delta, np.nanmax(np.r_[c_thm2, c_prop6]) * 1.5),
        name="demanded δ (capped for display)",
        marker_color="#cccccc",
    )
    fig.add_bar(x=names, y=c_thm2, name="c from Theorem 2 (uses the c_d-LDP structure)", marker_color=BLUE)
    fig.add_bar(x=names, y=c_prop6, name="c from Proposition 6 (A c ≤ 1, cvxpy)", marker_color=PURPLE)
    return styled_figure(fig, None, "privacy level", barmode="group", **LEGEND_BELOW)


def _tests(s, r):
    t = r.bcdp_tradeoff
    a_all, b_all = r.test.all
    return hypothesis_tests_figure(a_all, b_all, t["alpha"].to_numpy(), t["beta"].to_numpy(), r.test.level)


FIGURES = (
    PageFigure(
        "rr",
        lambda s, r: f"Randomized response: exact BCDP level vs the bounds (coordinate {s.rr_coord})",
        lambda s, r: rr_figure(r.bcdp_rr_vs_bounds, s.rr_coord),
    ),
    PageFigure("tests", "Hypothesis tests (Theorem 1)", _tests, shown=lambda s, r: r.test.testable),
    PageFigure(
        "translator",
        "Translator: δ → c (Theorem 2 and Proposition 6)",
        lambda s, r: translator_figure(r.names, r.alloc.c, r.translate.c, r.alloc.demands),
    ),
)
