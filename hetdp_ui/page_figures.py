"""Plotly figures of the Per-user, Mechanism-lab and DP-SGD pages, built from a page's
:class:`~hetdp_core.scenario.Result` (Streamlit-free: the pages only render them)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figcache import memo_figure
from .theme import COLORWAY, GREY, LEGEND_BELOW, METHOD_STYLES, OKABE_ITO, add_line, rgba, styled


# ---------------------------------------------------------------- per-user privacy
def _demand_axis(eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(users to draw, demands with public users drawn at 3× the largest finite ε): 300 users evenly spaced
    in the order of their demand (each curve is a function of the demand; the browser draws 300 points per
    method far faster than 1 500, and the CSV download has every user)."""
    order = np.argsort(eps)
    pick = order[np.unique(np.linspace(0, eps.size - 1, min(eps.size, 300)).astype(int))]
    fin = np.isfinite(eps)
    shown = np.where(~fin, np.max(eps[fin]) * 3 if fin.any() else 1.0, eps)
    return pick, shown


#: colours by algorithm order (plan A and plan B match); known methods then get their own style (theme.py)
_PALETTE = tuple(COLORWAY)  # the shared colour-blind-safe palette (hetdp_ui/theme.py)


@memo_figure
def error_cdf_figure(result, plan_a=None) -> go.Figure:
    """Error CDF per algorithm; ``plan_a`` (a pinned scenario's result) is overlaid dotted."""
    errors, beta = result.tables()["hetero_errors"], result.scenario.beta
    fig = go.Figure()
    colors = {}
    for i, alg in enumerate(errors.columns):
        e = np.sort(errors[alg].to_numpy())
        colors[alg] = _PALETTE[i % len(_PALETTE)]
        fig.add_trace(
            go.Scatter(x=e, y=np.arange(1, e.size + 1) / e.size, mode="lines", name=alg, line={"color": colors[alg]})
        )
    if plan_a is not None:
        ea = plan_a.tables()["hetero_errors"]
        for i, alg in enumerate(ea.columns):
            e = np.sort(ea[alg].to_numpy())
            fig.add_trace(
                go.Scatter(
                    x=e,
                    y=np.arange(1, e.size + 1) / e.size,
                    mode="lines",
                    name=f"plan A — {alg}",
                    line={"color": colors.get(alg, _PALETTE[i % len(_PALETTE)]), "dash": "dot"},
                )
            )
    fig.add_hline(y=1 - beta, line_dash="dot", annotation_text="1 − β")
    return styled(fig, "error (ℓ∞ for frequencies, |·| for means)", "fraction of trials", log_x=True, **LEGEND_BELOW)


def _per_algorithm(result, plan_a, what: str):
    """(result, label prefix, algorithm, its info, users to draw, demands shown, colour) for every
    algorithm of ``result`` and of a pinned ``plan_a`` that computed ``what`` (weights, eps_eff)."""
    for res, label in ((result, ""), (plan_a, "plan A — ")):
        if res is None:
            continue
        pick, shown = _demand_axis(res.eps)
        for i, (alg, info) in enumerate(res.infos.items()):
            if info.get(what) is not None:
                yield res, label, alg, info, pick, shown, _PALETTE[i % len(_PALETTE)]


@memo_figure
def weights_figure(result, plan_a=None) -> go.Figure:
    """n·w_i against the demand per algorithm; ``plan_a`` (a pinned result) dotted."""
    fig = go.Figure()
    for res, label, alg, info, pick, shown, color in _per_algorithm(result, plan_a, "weights"):
        fig.add_scatter(
            x=shown[pick],
            y=info["weights"][pick] * res.eps.size,
            mode="lines",  # a curve of the demand: one path, not 300 markers per method
            name=f"{label}{alg}",
            line={"color": color, "dash": None if res is result else "dot"},
        )
    fig.add_hline(y=1.0, line_dash="dot", annotation_text="uniform")
    return styled(fig, "demand ε_i (public drawn at the right)", "n · w_i", log_x=True, log_y=True, **LEGEND_BELOW)


@memo_figure
def free_privacy_figure(result, plan_a=None) -> go.Figure:
    """Effective against demanded ε per user; ``plan_a`` (a pinned result) dotted."""
    eps = result.eps
    fig = go.Figure()
    for res, label, alg, info, pick, shown, color in _per_algorithm(result, plan_a, "eps_eff"):
        ee = np.where(np.isinf(info["eps_eff"]), np.nan, info["eps_eff"])
        # ε_eff is a function of the demand: one line per method (plan A dotted), not 300 markers each
        fig.add_scatter(
            x=shown[pick],
            y=ee[pick],
            mode="lines",
            name=f"{label}{alg}",
            line={"color": color, "dash": None if res is result else "dot"},
        )
    fin = eps[np.isfinite(eps)]
    if fin.size:
        fig.add_trace(
            go.Scatter(
                x=[fin.min(), fin.max()],
                y=[fin.min(), fin.max()],
                mode="lines",
                line={"dash": "dash", "color": GREY},
                name="ε_eff = ε (demand)",
            )
        )
    return styled(fig, "demanded ε_i", "effective ε_i = κ w_i / b", log_x=True, log_y=True, **LEGEND_BELOW)


# ---------------------------------------------------------------- mechanism lab
@memo_figure
def noise_density_figure(result) -> go.Figure:
    dens = result.tables()["mech_noise_densities"]
    fig = go.Figure()
    for col in dens.columns[1:]:
        fig.add_trace(
            go.Scatter(
                x=dens["noise"],
                y=dens[col],
                mode="lines",
                name=col,
                line={"dash": "dash" if col.startswith("mnm") else "solid"},
            )
        )
    return styled(fig, "added noise", "density", **LEGEND_BELOW)


@memo_figure
def pareto_figure(result) -> go.Figure:
    pm = result.tables()["mech_pareto_mse"]
    fig = go.Figure()
    for mech, g in pm.groupby("mechanism"):
        fig.add_trace(go.Scatter(x=g["eps"], y=g["mse"], mode="lines+markers", name=f"{mech} (simulated MSE)"))
    g0 = pm.groupby("eps")["mse_nonprivate"].first()
    fig.add_trace(
        go.Scatter(
            x=g0.index, y=g0.values, mode="lines", name="no privacy (simulated)", line={"dash": "dot", "color": GREY}
        )
    )
    fig.update_xaxes(type="log", title="ε")
    fig.update_yaxes(type="log", title="MSE of the noisy mean")
    return styled(fig, **LEGEND_BELOW)


@memo_figure
def local_sensitivity_figure(result) -> go.Figure:
    out1, out2 = result.local
    fig = go.Figure()
    fig.add_trace(go.Histogram(x=out1, name="dataset 1: median + Lap(local/ε)", opacity=0.6, nbinsx=60))
    fig.add_trace(
        go.Histogram(x=out2, name="dataset 2 (neighbour): local sensitivity 0 → no noise", opacity=0.6, nbinsx=60)
    )
    return styled(fig, "released median", barmode="overlay", **LEGEND_BELOW)


@memo_figure
def bounded_laplace_figure(result) -> go.Figure:
    bl, s = result.tables()["mech_bounded_laplace"], result.scenario
    fig = go.Figure()
    for col, dash in zip(bl.columns[1:], ("solid", "dash")):
        fig.add_trace(go.Scatter(x=bl["output"], y=bl[col], mode="lines", name=col, line={"dash": dash}))
    fig.add_vrect(x0=s.bl_lower, x1=s.bl_upper, fillcolor="green", opacity=0.05, line_width=0)
    return styled(fig, "output", "density", **LEGEND_BELOW)


@memo_figure
def exponential_figure(result) -> go.Figure:
    tbl = result.tables()["mech_exponential"]
    fig = go.Figure()
    for col in tbl.columns[2:]:
        fig.add_bar(x=tbl["candidate"].astype(str), y=tbl[col], name=col)
    return styled(fig, "candidate", "probability of being selected", barmode="group", **LEGEND_BELOW)


# ---------------------------------------------------------------- DP-SGD
METHOD_COLORS = {
    m: METHOD_STYLES[m].color for m in ("DP-SGD", "DP-SGD, a_h = 1", "SGD (no noise)", "GD (full gradient)")
}


@memo_figure
def theta_figure(result) -> go.Figure:
    sch = result.tables()["dpsgd_schedule"]
    fig = go.Figure()
    add_line(fig, sch["h"], sch["theta"], "θ_h (Theorem 36, exact sums)")
    add_line(fig, sch["h"], sch["eps_release"], "release h is ε·a_h-DP", dash="dash", yaxis="y2")
    return styled(
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
    reg, s = result.tables()["dpsgd_region"], result.scenario
    rr = reg["rho"].to_numpy()
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=np.r_[rr, rr[::-1]],
            y=np.r_[np.maximum(1 - rr / 2, 0), np.full(rr.size, 3.0)],
            fill="toself",
            fillcolor=rgba(OKABE_ITO["green"], 0.2),
            line={"width": 0},
            name="2κ + ρ > 2: A3 → 0 (converges)",
        )
    )
    fig.add_trace(go.Scatter(x=rr, y=1 - rr / 2, mode="lines", line={"color": OKABE_ITO["green"]}, name="2κ + ρ = 2"))
    if s.lr == "poly":
        ok = bool(reg["your_point_converges"].iloc[0])
        fig.add_trace(
            go.Scatter(
                x=[s.rho],
                y=[s.used_kappa],
                mode="markers",
                name="your (ρ, κ)",
                marker={"size": 14, "color": OKABE_ITO["blue"] if ok else OKABE_ITO["vermillion"], "symbol": "star"},
            )
        )
    return styled(
        fig, "ρ (learning-rate decay)", "κ (privacy decay)", xaxis_range=[0, 1], yaxis_range=[0, 3], **LEGEND_BELOW
    )


@memo_figure
def bound_terms_figure(result) -> go.Figure:
    bt = result.tables()["dpsgd_bound_terms"]
    fig = go.Figure()
    for col, name in (("A1", "A1 = ‖β0−β*‖²/Σγ"), ("A2", "A2 = Σγ²/Σγ"), ("A3", "A3 = Σγ²θ²/Σγ (privacy)")):
        fig.add_trace(go.Scatter(x=bt["N"], y=bt[col], mode="lines", name=name))
    return styled(fig, "N", log_x=True, log_y=True, **LEGEND_BELOW)


@memo_figure
def trajectories_figure(result) -> go.Figure:
    fig = go.Figure()
    for name, band in result.bands.items():
        col = METHOD_COLORS[name]
        fig.add_trace(
            go.Scatter(
                x=np.r_[band["h"], band["h"][::-1]],
                y=np.r_[band["q90"], band["q10"][::-1]],
                fill="toself",
                fillcolor=rgba(col, 0.15),
                line={"width": 0},
                hoverinfo="skip",
                name=f"{name}: 10–90 %",
                showlegend=False,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=band["h"],
                y=band["median"],
                mode="lines",
                line={"color": col},
                name=f"{name}: median over runs (simulated)",
            )
        )
    return styled(fig, "iteration h", "‖β^(h) − β*‖", log_x=True, log_y=True, **LEGEND_BELOW)


@memo_figure
def quantile_dotplot_figure(quantiles, title: str = "") -> go.Figure:
    """Quantile dotplot (one row per mechanism): each dot is one of 20 equally likely released
    values; dots that fall in the same bin are stacked; the dashed line is the true value."""
    fig = go.Figure()
    mechs = list(dict.fromkeys(quantiles["mechanism"]))
    vals = quantiles["released value"].to_numpy(float)
    lo, hi = float(vals.min()), float(vals.max())
    width = (hi - lo) / 30 if hi > lo else 1.0
    for row, m in enumerate(mechs):
        v = np.sort(quantiles.loc[quantiles["mechanism"] == m, "released value"].to_numpy(float))
        bins = np.floor((v - lo) / width)
        stack = np.array([np.sum(bins[:i] == b) for i, b in enumerate(bins)])
        fig.add_trace(
            go.Scatter(
                x=lo + (bins + 0.5) * width,
                y=row + 0.12 * stack,
                mode="markers",
                marker={"size": 9, "color": _PALETTE[row % len(_PALETTE)]},
                name=m,
                customdata=v,
                hovertemplate=f"{m}: %{{customdata:.4g}}<extra></extra>",
            )
        )
    truth = quantiles.groupby("mechanism", sort=False)["true value"].first().reindex(mechs).to_numpy(float)
    if np.allclose(truth, truth[0]):
        fig.add_vline(x=float(truth[0]), line_dash="dash", annotation_text="true value")
    else:  # one true value per row (e.g. per bin)
        fig.add_trace(
            go.Scatter(
                x=truth,
                y=np.arange(len(mechs)) - 0.15,
                mode="markers",
                name="true value",
                marker={"symbol": "triangle-up", "size": 11, "color": "#222222"},
                hovertemplate="true value %{x:.4g}<extra></extra>",
            )
        )
    return styled(
        fig,
        "released value",
        yaxis={"tickvals": list(range(len(mechs))), "ticktext": mechs, "range": [-0.5, len(mechs) + 0.2]},
        showlegend=False,
        margin={"t": 40 if title else 10},
        height=120 + 70 * len(mechs),
        title=title or None,
    )
