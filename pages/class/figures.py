"""The Class page's live figures (Streamlit-free plotly): the class's answers to one step, and the
private poll's estimate. Inputs are :mod:`hetdp_ui.classroom.store`'s frozen results."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from hetdp_core.words import share
from hetdp_ui.theme import GREY, OKABE_ITO, finish, rgba, styled


def numbers_figure(stats) -> go.Figure:
    """Histogram of the first answers to a number (or "your choice") step; for a number question the
    right value and its tolerance are marked, and each misconception's range is shaded with its number."""
    q = stats.question
    vals = np.asarray(stats.numbers, dtype=float)
    fig = go.Figure()
    fig.add_trace(
        go.Histogram(x=vals, nbinsx=min(40, max(5, len(vals))), marker_color=OKABE_ITO["blue"], name="first answers")
    )
    if q.kind == "number":
        lo, hi = q.answer - q.tolerance, q.answer + q.tolerance
        fig.add_vrect(x0=lo, x1=hi, fillcolor=rgba(OKABE_ITO["green"], 0.25), line_width=0)
        fig.add_vline(
            x=q.answer,
            line_color=OKABE_ITO["green"],
            annotation_text=f"right: {q.answer:g} ± {q.tolerance:g}",
            annotation_position="top",
        )
        for j, m in enumerate(q.misconceptions, start=1):
            a, b = m.interval()
            fig.add_vrect(
                x0=a,
                x1=b,
                fillcolor=rgba(OKABE_ITO["vermillion"], 0.18),
                line_width=0,
                annotation_text=f"M{j}",
                annotation_position="bottom left",
            )
    title = "your choice: where the class put it" if q.kind == "your-choice" else "first answers"
    return finish(styled(fig, "answer", "students", title=title, bargap=0.05, showlegend=False, height=300))


def choices_figure(stats) -> go.Figure:
    """Bars: students per choice (first answers), the right choice in green."""
    q = stats.question
    names = list(stats.choices)
    colors = [OKABE_ITO["green"] if c == q.answer else GREY for c in names]
    fig = go.Figure(go.Bar(x=names, y=[stats.choices[c] for c in names], marker_color=colors, name="students"))
    return finish(styled(fig, "choice (green: right)", "students", title="first answers", height=280))


def poll_figure(history) -> go.Figure:
    """The poll's estimate of the true share of "yes" with its 95 % interval as reports arrive
    (``history``: :class:`hetdp_core.poll.PollEstimate` snapshots), next to the raw share of "yes"
    sent. The estimate is drawn within [0, 1] (its unbiased value, possibly outside, on hover)."""
    hist = [h for h in history if h.n > 0]
    fig = go.Figure()
    if hist:
        n = [h.n for h in hist]
        shown = [min(1.0, max(0.0, h.estimate)) for h in hist]
        fig.add_trace(
            go.Scatter(
                x=n,
                y=shown,
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [h.high - y for h, y in zip(hist, shown)],
                    "arrayminus": [y - h.low for h, y in zip(hist, shown)],
                    "color": rgba(OKABE_ITO["blue"], 0.5),
                },
                customdata=[h.estimate for h in hist],
                text=[f"{share(y)} (unbiased estimate {share(h.estimate)})" for h, y in zip(hist, shown)],
                hovertemplate="%{text}, 95 % interval<extra></extra>",
                meta={"quantity": "share"},  # the chart in words says it as the caption does (73.1 %)
                mode="lines+markers",
                name="estimated true share, 95 % interval",
                line_color=OKABE_ITO["blue"],
            )
        )
        fig.add_trace(
            go.Scatter(
                x=n,
                y=[h.raw_share for h in hist],
                mode="lines+markers",
                name="share of “yes” sent",
                line={"color": GREY, "dash": "dot"},
                meta={"quantity": "share"},
            )
        )
    fig.update_yaxes(range=[-0.05, 1.05], tickformat=".0%")
    return finish(styled(fig, "reports received", "share of yes", title="Class poll", height=320))
