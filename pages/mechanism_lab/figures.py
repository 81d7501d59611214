"""Figures of the mechanism lab (Streamlit-free plotly builders) and FIGURES, the one list that the page
and its report draw."""

from __future__ import annotations

import plotly.graph_objects as go

from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig, trace
from hetdp_ui.figures import quantile_dotplot_figure
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import GREY, LEGEND_BELOW, styled_figure


@memo_figure
def noise_density_figure(result) -> go.Figure:
    dens = result.mech_noise_densities
    fig = Fig()
    for col in dens.columns[1:]:
        fig.add_scatter(
            x=dens["noise"],
            y=dens[col],
            mode="lines",
            name=col,
            line={"dash": "dash" if col.startswith("mnm") else "solid"},
        )
    return styled_figure(fig, "added noise", "density", **LEGEND_BELOW)


@memo_figure
def pareto_figure(result) -> go.Figure:
    pm = result.mech_pareto_mse
    fig = Fig()
    for mech, g in pm.groupby("mechanism"):
        fig.add_scatter(x=g["eps"], y=g["mse"], mode="lines+markers", name=f"{mech} (simulated MSE)")
    g0 = pm.groupby("eps")["mse_nonprivate"].first()
    fig.add_scatter(
        x=g0.index, y=g0.values, mode="lines", name="no privacy (simulated)", line={"dash": "dot", "color": GREY}
    )
    fig.update_xaxes(type="log", title="ε")
    fig.update_yaxes(type="log", title="MSE of the noisy mean")
    return styled_figure(fig, **LEGEND_BELOW)


@memo_figure
def local_sensitivity_figure(result) -> go.Figure:
    out1, out2 = result.local
    fig = Fig()
    fig.add_trace(trace("histogram", x=out1, name="dataset 1: median + Lap(local/ε)", opacity=0.6, nbinsx=60))
    fig.add_trace(
        trace("histogram", x=out2, name="dataset 2 (neighbour): local sensitivity 0 → no noise", opacity=0.6, nbinsx=60)
    )
    return styled_figure(fig, "released median", barmode="overlay", **LEGEND_BELOW)


@memo_figure
def bounded_laplace_figure(result) -> go.Figure:
    bl, s = result.mech_bounded_laplace, result.scenario
    fig = Fig()
    for col, dash in zip(bl.columns[1:], ("solid", "dash")):
        fig.add_scatter(x=bl["output"], y=bl[col], mode="lines", name=col, line={"dash": dash})
    fig.add_vrect(x0=s.bl_lower, x1=s.bl_upper, fillcolor="green", opacity=0.05, line_width=0)
    return styled_figure(fig, "output", "density", **LEGEND_BELOW)


@memo_figure
def exponential_figure(result) -> go.Figure:
    tbl = result.mech_exponential
    fig = Fig()
    for col in tbl.columns[2:]:
        fig.add_bar(x=tbl["candidate"].astype(str), y=tbl[col], name=col)
    return styled_figure(fig, "candidate", "probability of being selected", barmode="group", **LEGEND_BELOW)


FIGURES = (
    PageFigure("density", "Noise densities", lambda s, r: noise_density_figure(r)),
    PageFigure("pareto", "Pareto sample mean (Example 11)", lambda s, r: pareto_figure(r)),
    PageFigure("local", "Local vs smooth sensitivity of the median", lambda s, r: local_sensitivity_figure(r)),
    PageFigure("bounded", "Bounded Laplace", lambda s, r: bounded_laplace_figure(r)),
    PageFigure(
        "dotplot",
        "Twenty equally likely releases of the true value (quantile dotplot)",
        lambda s, r: quantile_dotplot_figure(r.mech_release_quantiles),
    ),
    PageFigure("exponential", "Exponential mechanism", lambda s, r: exponential_figure(r)),
)
