"""Figures of the per-user privacy page (Streamlit-free plotly builders) and FIGURES, the one list that
the page and its report draw."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from hetdp_core.scenarios import per_user_privacy as pu
from hetdp_ui.figcache import memo_figure
from hetdp_ui.figdict import Fig
from hetdp_ui.figures import quantile_dotplot_figure
from hetdp_ui.folders import PageFigure
from hetdp_ui.theme import COLORWAY, GREY, LEGEND_BELOW, styled_figure


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
    errors, beta = result.hetero_errors, result.scenario.beta
    fig = Fig()
    colors = {}
    for i, alg in enumerate(errors.columns):
        e = np.sort(errors[alg].to_numpy())
        colors[alg] = _PALETTE[i % len(_PALETTE)]
        fig.add_scatter(x=e, y=np.arange(1, e.size + 1) / e.size, mode="lines", name=alg, line={"color": colors[alg]})
    if plan_a is not None:
        ea = plan_a.hetero_errors
        for i, alg in enumerate(ea.columns):
            e = np.sort(ea[alg].to_numpy())
            fig.add_scatter(
                x=e,
                y=np.arange(1, e.size + 1) / e.size,
                mode="lines",
                name=f"plan A — {alg}",
                line={"color": colors.get(alg, _PALETTE[i % len(_PALETTE)]), "dash": "dot"},
            )
    fig.add_hline(y=1 - beta, line_dash="dot", annotation_text="1 − β")
    return styled_figure(
        fig, "error (ℓ∞ for frequencies, |·| for means)", "fraction of trials", log_x=True, **LEGEND_BELOW
    )


def _per_algorithm(result, plan_a, values):
    """(result, label prefix, algorithm, its values, users to draw, demands shown, colour) for every
    algorithm of ``result`` and of a pinned ``plan_a`` for which ``values(res, alg)`` (per user) is not
    None; colours by the algorithm's place in the scenario's list."""
    for res, label in ((result, ""), (plan_a, "plan A — ")):
        if res is None:
            continue
        pick, shown = _demand_axis(res.demands)
        for i, alg in enumerate(res.scenario.algs):
            v = values(res, alg)
            if v is not None:
                yield res, label, alg, v, pick, shown, _PALETTE[i % len(_PALETTE)]


def _effective(res, alg):
    """Every user's effective level under a weighted algorithm (the others have none)."""
    return res.weightings[alg].eps_eff if alg in res.weightings else None


@memo_figure
def weights_figure(result, plan_a=None) -> go.Figure:
    """n·w_i against the demand per algorithm; ``plan_a`` (a pinned result) dotted. The weighted
    algorithms' come from the quick part (drawn before the simulations); LDP's from its run."""
    fig = Fig()
    for res, label, alg, w, pick, shown, color in _per_algorithm(result, plan_a, pu.weights_of):
        fig.add_scatter(
            x=shown[pick],
            y=w[pick] * res.demands.size,
            mode="lines",  # a curve of the demand: one path, not 300 markers per method
            name=f"{label}{alg}",
            line={"color": color, "dash": None if res is result else "dot"},
        )
    fig.add_hline(y=1.0, line_dash="dot", annotation_text="uniform")
    return styled_figure(
        fig, "demand ε_i (public drawn at the right)", "n · w_i", log_x=True, log_y=True, **LEGEND_BELOW
    )


@memo_figure
def free_privacy_figure(result, plan_a=None) -> go.Figure:
    """Effective against demanded ε per user; ``plan_a`` (a pinned result) dotted."""
    eps = result.demands
    fig = Fig()
    for res, label, alg, eff, pick, shown, color in _per_algorithm(result, plan_a, _effective):
        ee = np.where(np.isinf(eff), np.nan, eff)
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
        fig.add_scatter(
            x=[fin.min(), fin.max()],
            y=[fin.min(), fin.max()],
            mode="lines",
            line={"dash": "dash", "color": GREY},
            name="ε_eff = ε (demand)",
        )
    return styled_figure(fig, "demanded ε_i", "effective ε_i = κ w_i / b", log_x=True, log_y=True, **LEGEND_BELOW)


FIGURES = (
    PageFigure("cdf", "Error CDFs (simulated)", lambda s, r, *, plan_a=None: error_cdf_figure(r, plan_a)),
    PageFigure(
        "dotplot",
        "Twenty equally likely releases (quantile dotplot)",
        lambda s, r, *, title="": quantile_dotplot_figure(r.hetero_release_quantiles, title=title),
    ),
    PageFigure("weights", "Weights against demands", lambda s, r, *, plan_a=None: weights_figure(r, plan_a)),
    PageFigure(
        "free",
        "Free privacy: what each user actually gets",
        lambda s, r, *, plan_a=None: free_privacy_figure(r, plan_a),
    ),
)
