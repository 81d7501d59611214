"""Figures of the release ledger (Streamlit-free): who pays what, and the totals by accountant."""

from __future__ import annotations

import plotly.graph_objects as go

from hetdp_core.accountants.ledger import Headline, Spend, Total
from hetdp_ui.figdict import Fig
from hetdp_ui.theme import COLORWAY, GREY, finish, styled

#: how the totals chart marks each group's headline: the page's words and the chart's legend say this
HEADLINE_MARK = "outlined in black"

ACCOUNTANT_LABELS = {
    "basic": "basic composition (sums)",
    "zcdp": "zCDP",
    "rdp": "Rényi DP",
    "pld": "privacy-loss distribution",
}


def spend_figure(spend: list[Spend]) -> go.Figure:
    """One bar per group, one segment per release: the ε each release costs that group on its own
    (basic composition, repeats included) — who pays most, and for what."""
    fig = Fig()
    groups = list(dict.fromkeys(s.group for s in spend))
    releases = list(dict.fromkeys(s.release for s in spend))
    for i, name in enumerate(releases):
        val = {s.group: s.epsilon_basic for s in spend if s.release == name}
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
        height=max(260, 90 + 60 * len(groups), 110 + 24 * len(releases)),  # the legend fits
    )
    return finish(fig.figure())


def totals_figure(
    totals: list[Total], *, budget: float | None = None, headline: list[Headline] | None = None
) -> go.Figure:
    """The plan's total ε per group under each accountant, side by side, with the budget line; each
    group's headline (the smallest valid bound, which the budget verdict reads) is the bar drawn with
    a thick black outline. An accountant with no finite bound has no bar."""
    import math

    fig = Fig()
    groups = list(dict.fromkeys(t.group for t in totals))
    head = {h.group: h.accountant for h in headline or []}
    for i, acc in enumerate(ACCOUNTANT_LABELS):
        val = {t.group: t.epsilon for t in totals if t.accountant == acc}
        fig.add_bar(
            x=groups,
            y=[val[g] if g in val and math.isfinite(val[g]) else None for g in groups],
            name=ACCOUNTANT_LABELS[acc],
            marker_color=COLORWAY[i % len(COLORWAY)],
            marker_line_color="black",
            marker_line_width=[3 if head.get(g) == acc else 0 for g in groups],
        )
    if head:  # a legend entry for the outline; its values (the headlines) are what the chart in words says
        heads = {h.group: h.epsilon for h in headline}
        fig.add_scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=f"{HEADLINE_MARK}: the headline (judges the budget)",
            marker={"symbol": "square-open", "size": 12, "color": "black", "line": {"width": 3}},
            meta={"values": [heads[g] for g in groups if g in heads]},
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
    return finish(fig.figure())
