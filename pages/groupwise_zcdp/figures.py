"""Figures of the group-wise zCDP page (Streamlit-free plotly builders) and FIGURES, the one list that
the page and its report draw."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig
from hetdp_ui.figures import quantile_dotplot_figure
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import GREY, LEGEND_BELOW, OKABE_ITO, add_line, styled_figure

BLUE, RED, GREEN = OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"]


@memo_figure
def release_figure(stats: pd.DataFrame) -> go.Figure:
    """True counts (bars) and released counts: mean with the 2.5–97.5 % range (simulated)."""
    g = [f"g{int(i)}" for i in stats["group"]]
    fig = Fig()
    fig.add_bar(x=g, y=stats["count"], name="true count", marker_color="#cccccc")
    fig.add_scatter(
        x=g,
        y=stats["mean"],
        mode="markers",
        marker={"color": BLUE, "size": 9},
        name="released: mean and 2.5–97.5 % (simulated)",
        error_y={
            "type": "data",
            "symmetric": False,
            "array": stats["q975"] - stats["mean"],
            "arrayminus": stats["mean"] - stats["q025"],
            "color": BLUE,
        },
    )
    return styled_figure(fig, "group", "count", legend={"orientation": "h", "y": -0.2}, margin={"t": 10})


@memo_figure
def relative_error_figure(stats: pd.DataFrame) -> go.Figure:
    """Empirical E|error|/x (simulated) against the accuracy bound / x (analytic), groups with x > 0."""
    s = stats[stats["count"] > 0].sort_values("count")
    fig = Fig()
    add_line(
        fig, s["count"], s["mean_abs_error"] / s["count"], "E|error| / x (simulated)", color=BLUE, mode="markers+lines"
    )
    add_line(fig, s["count"], s["bound"] / s["count"], "accuracy bound / x (analytic)", color=RED, dash="dash")
    fig.update_xaxes(type="log", title="group size x")
    fig.update_yaxes(type="log", title="relative error")
    return styled_figure(fig, **LEGEND_BELOW)


@memo_figure
def budget_figure(sizes: np.ndarray, v: np.ndarray, xi: np.ndarray) -> go.Figure:
    """The paper's claimed budgets v = 1/(2r²x²) and ξ = 2 log(1 + 1/x) (analytic)."""
    m = sizes > 0
    fig = Fig()
    fig.add_scatter(x=sizes[m], y=v[m], mode="lines+markers", name="v(D)_i = 1/(2r²x²)", line={"color": BLUE})
    fig.add_scatter(x=sizes[m], y=xi[m], mode="lines+markers", name="ξ(D)_i = 2 log(1+1/x)", line={"color": GREEN})
    fig.update_xaxes(type="log", title="group size x")
    fig.update_yaxes(type="log", title="budget (analytic)")
    return styled_figure(fig, **LEGEND_BELOW)


@memo_figure
def renyi_figure(alpha, up, down, claimed, violated, reference: str) -> go.Figure:
    """D_α in both directions against the reference line; violations marked; ∞ drawn at the top. The
    second direction is drawn dotted over the first (where they coincide both stay visible, and the
    legend says so); values spanning decades get a log axis (a loss 100× below the claimed line was a
    flat line at 0)."""
    finite = np.concatenate([v[np.isfinite(v)] for v in (up, down, claimed)])
    positive = finite[finite > 0]
    log_y = positive.size > 0 and positive.max() / positive.min() > 20
    top = float(finite.max()) * (3.0 if log_y else 1.3) if finite.size else 1.0
    both = np.isfinite(up) & np.isfinite(down)
    same = bool(both.any()) and bool(
        np.all(np.abs(up[both] - down[both]) <= 0.01 * np.maximum(np.abs(up[both]), 1e-300))
        and np.array_equal(np.isinf(up), np.isinf(down))
    )
    fig = Fig()
    styles = (
        (up, "D_α(M(x) ‖ M(x±1))", {"color": BLUE, "width": 4}),
        (
            down,
            "D_α(M(x±1) ‖ M(x))" + (" — the same here (dotted over it)" if same else ""),
            {"color": GREEN, "dash": "dot"},
        ),
    )
    for vals, name, line in styles:
        shown = np.where(np.isinf(vals), top, vals)
        fig.add_scatter(x=alpha, y=shown, mode="lines", name=name, line=line)
    fig.add_scatter(x=alpha, y=claimed, mode="lines", name=reference, line={"color": GREY, "dash": "dash"})
    worst = np.maximum(up, down)
    if violated.any():
        fig.add_scatter(
            x=alpha[violated],
            y=np.where(np.isinf(worst), top, worst)[violated],
            mode="markers",
            marker={"color": RED, "size": 6, "symbol": "x"},
            name="claim violated (∞ drawn at the top)",
        )
    if log_y:
        lo = float(positive.min()) / 2
        return styled_figure(
            fig,
            "Rényi order α",
            "divergence (log scale)",
            log_y=True,
            yaxis_range=[np.log10(lo), np.log10(top * 1.05)],
            **LEGEND_BELOW,
        )
    return styled_figure(fig, "Rényi order α", "divergence", yaxis_range=[0, top * 1.02], **LEGEND_BELOW)


@memo_figure
def loss_vs_size_figure(df: pd.DataFrame) -> go.Figure:
    """Worst-direction D_α against the group size, one curve per α (numerical for Algorithm 1)."""
    fig = Fig()
    palette = [BLUE, GREEN, RED, OKABE_ITO["purple"], OKABE_ITO["orange"]]
    for j, (al, g) in enumerate(df.groupby("alpha")):
        g = g.sort_values("size")
        fig.add_scatter(
            x=g["size"] + 1,
            y=g["loss"],
            mode="lines+markers",
            name=f"α = {al:g}",
            line={"color": palette[j % len(palette)]},
        )
    fig.update_xaxes(type="log", title="group size x (plotted at x + 1)")
    fig.update_yaxes(type="log", title="max over directions of D_α")
    return styled_figure(fig, **LEGEND_BELOW)


def _renyi(s, r):
    from hetdp_core.per_group.zcdp import claim_reference

    c = r.curves
    return renyi_figure(c.alpha, c.up, c.down, c.claimed, c.violated, claim_reference(s.algorithm))


def _budgets(s, r):
    b = r.zcdp_claimed_budgets
    return budget_figure(b["size"].to_numpy(), b["v"].to_numpy(), b["xi"].to_numpy())


FIGURES = (
    PageFigure("release", "Released vs true counts", lambda s, r: release_figure(r.zcdp_releases)),
    PageFigure("relative_error", "Relative error vs the bound", lambda s, r: relative_error_figure(r.zcdp_releases)),
    PageFigure("renyi", lambda s, r: f"Privacy loss of group {s.group} (x = {r.x_sel:g}) in both directions", _renyi),
    PageFigure(
        "dotplot",
        lambda s, r: f"Twenty equally likely published counts of group {s.group} (quantile dotplot)",
        lambda s, r: quantile_dotplot_figure(r.zcdp_release_quantiles),
    ),
    PageFigure("budgets", "Claimed budgets vs group size (Algorithm 2)", _budgets),
    PageFigure(
        "loss_vs_size",
        "Open question: Algorithm 1's loss vs group size",
        lambda s, r: loss_vs_size_figure(r.zcdp_loss_vs_size),
    ),
)
