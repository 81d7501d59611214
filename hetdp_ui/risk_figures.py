"""Figures of risk in attack terms (Streamlit-free): trade-off curves of privacy levels."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from hetdp_ui.figdict import Fig
from hetdp_ui.theme import COLORWAY, GREY, finish, styled


def tradeoff_figure(meaning, *, title: str = "What an attacker can do at each false-positive rate") -> go.Figure:
    """One curve per level of a view's :class:`~hetdp_core.reading.meaning.Meaning`
    (:func:`hetdp_core.reading.meaning.tradeoff_curves`): the most an attack catches (TPR) at each false-positive
    rate, the diagonal being a blind guess; the chosen false-positive rate is marked."""
    from hetdp_core.reading.meaning import tradeoff_curves

    return curves_figure(tradeoff_curves(meaning), fpr=meaning.fpr, title=title)


def curves_figure(curves, *, fpr: float | None = None, title: str, legend: str = "level") -> go.Figure:
    """Trade-off curves (:class:`hetdp_core.reading.meaning.TradeoffCurve`, one per level or group) on a log FPR
    axis."""
    fig = Fig()
    guess = np.logspace(-4, 0, 41)  # TPR = FPR, drawn on the log axis as a curve
    fig.add_scatter(
        x=guess, y=guess, mode="lines", name="blind guess", line=dict(color=GREY, dash="dot"), hoverinfo="skip"
    )
    for i, c in enumerate(curves):
        fig.add_scatter(
            x=c.fpr,
            y=c.tpr,
            mode="lines",
            name=str(c.name)[:60],
            line=dict(color=COLORWAY[i % len(COLORWAY)]),
            hovertemplate="FPR %{x:.3g}: TPR ≤ %{y:.3g}<extra>%{fullData.name}</extra>",
        )
    if fpr is not None:
        fig.add_vline(x=fpr, line=dict(color=GREY, dash="dash"))
    styled(
        fig,
        "attack false-positive rate (people wrongly flagged)",
        "attack true-positive rate, at most",
        title=title,
        xaxis=dict(type="log", range=[-4, 0]),
        yaxis=dict(range=[0, 1.02]),
        legend_title=legend,
        height=380,
    )
    return finish(fig.figure())
