"""Figures of the release ledger (Streamlit-free): who pays what, and the totals by accountant."""

from __future__ import annotations

import plotly.graph_objects as go

from hetdp_ui.theme import COLORWAY, GREY, finish, styled

ACCOUNTANT_LABELS = {
    "basic": "basic composition (sums)",
    "zcdp": "zCDP",
    "rdp": "Rényi DP",
    "pld": "privacy-loss distribution",
}


def spend_figure(spend: list[dict]) -> go.Figure:
    """One bar per group, one segment per release: the ε each release costs that group on its own
    (basic composition, repeats included) — who pays most, and for what."""
    fig = go.Figure()
    groups = list(dict.fromkeys(r["group"] for r in spend))
    releases = list(dict.fromkeys(r["release"] for r in spend))
    for i, name in enumerate(releases):
        val = {r["group"]: r["epsilon (basic)"] for r in spend if r["release"] == name}
        fig.add_bar(
            y=groups,
            x=[val.get(g, 0.0) for g in groups],
            name=name,
            orientation="h",
            marker_color=COLORWAY[i % len(COLORWAY)],
        )
    styled(
        fig,
        "ε of the release on its own (basic composition)",
        "group",
        barmode="stack",
        title="What each release spends, per group",
        legend_title="release",
        height=max(260, 90 + 60 * len(groups)),
    )
    return finish(fig)


def totals_figure(totals: list[dict], *, budget: float | None = None, headline: list[dict] | None = None) -> go.Figure:
    """The plan's total ε per group under each accountant, side by side, with the budget line and each
    group's headline (the smallest valid bound, which the budget verdict reads) marked. An accountant
    with no finite bound has no bar."""
    import math

    fig = go.Figure()
    groups = list(dict.fromkeys(r["group"] for r in totals))
    for i, acc in enumerate(ACCOUNTANT_LABELS):
        val = {r["group"]: r["epsilon"] for r in totals if r["accountant"] == acc}
        fig.add_bar(
            x=groups,
            y=[val[g] if g in val and math.isfinite(val[g]) else None for g in groups],
            name=ACCOUNTANT_LABELS[acc],
            marker_color=COLORWAY[i % len(COLORWAY)],
        )
    if headline:
        head = {r["group"]: r for r in headline}
        fig.add_scatter(
            x=groups,
            y=[head[g]["epsilon"] if g in head and math.isfinite(head[g]["epsilon"]) else None for g in groups],
            mode="markers",
            marker={"symbol": "diamond", "size": 13, "color": "black", "line": {"color": "white", "width": 1}},
            name="headline: the smallest bound (judges the budget)",
            hovertext=[f"{head[g]['epsilon']:.4g} by {head[g]['accountant']}" if g in head else "" for g in groups],
        )
    if budget is not None:
        fig.add_hline(y=budget, line_dash="dash", line_color=GREY, annotation_text=f"budget ε = {budget:g}")
    styled(
        fig,
        "group",
        "total ε at the chosen δ",
        barmode="group",
        title="Total privacy loss per group",
        legend_title="accountant",
    )
    return finish(fig)
