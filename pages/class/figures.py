"""The Class page's live figures (Streamlit-free plotly): the class's answers to one step, and the
private poll's estimate. Inputs are :mod:`hetdp_ui.classroom.store`'s frozen results."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from hetdp_core.reading.words import share
from hetdp_ui.figdict import Fig, trace
from hetdp_ui.theme import GREY, OKABE_ITO, finish, rgba, styled_figure


def numbers_figure(stats) -> go.Figure:
    """The first answers to a number (or "your choice") step. A "your choice" step: a histogram of where
    the class put it. A number question: one dot per student on a row of its own per verdict — right,
    each misconception, another wrong answer — so the right answer and a known mistake never share a bar,
    however close they are; the right value ± tolerance is shaded green and each misconception's range
    vermillion with its number. With per-student variants each dot is the answer's error relative to the
    student's own right answer (0 % = right for their values), as copying a neighbour shows up there."""
    q = stats.question
    if q.kind == "your-choice":
        vals = np.asarray(stats.numbers, dtype=float)
        fig = Fig(
            [
                trace(
                    "histogram",
                    x=vals,
                    nbinsx=min(40, max(5, len(vals))),
                    marker_color=OKABE_ITO["blue"],
                    name="choices",
                )
            ]
        )
        title = "your choice: where the class put it"
        return finish(styled_figure(fig, "answer", "students", title=title, bargap=0.05, showlegend=False, height=300))
    relative = bool(stats.relative) and all(r is not None for r in stats.relative)
    xs = [100 * r for r in stats.relative] if relative else list(stats.numbers)
    fig = Fig()
    rows = verdict_rows(stats)
    for label, color, idx in rows:
        fig.add_trace(
            trace(
                "box",
                x=[xs[i] for i in idx],
                name=f"{label} ({len(idx)})",
                boxpoints="all",
                jitter=0.6,
                pointpos=0,
                fillcolor="rgba(0,0,0,0)",
                line={"color": "rgba(0,0,0,0)"},
                marker={"color": color, "size": 9, "opacity": 0.85},
                hoveron="points",
                hovertemplate="%{x:.4g}" + (" %" if relative else "") + "<extra>%{fullData.name}</extra>",
            )
        )
    if relative:
        fig.add_vline(x=0, line_color=OKABE_ITO["green"], annotation_text="each student's own answer")
        x_title = "first answer − the student's own answer (% of it)"
    else:
        lo, hi = q.answer - q.tolerance, q.answer + q.tolerance
        fig.add_vrect(x0=lo, x1=hi, fillcolor=rgba(OKABE_ITO["green"], 0.25), line_width=0)
        fig.add_vline(
            x=q.answer, line_color=OKABE_ITO["green"], annotation_text=f"right: {q.answer:g} ± {q.tolerance:g}"
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
        x_title = "first answer"
    height = 160 + 45 * len(rows)
    return finish(
        styled_figure(
            fig, x_title, "verdict", title="first answers, one dot per student", showlegend=False, height=height
        )
    )


def verdict_rows(stats) -> list[tuple[str, str, list[int]]]:
    """(label, colour, indices into the first answers) per verdict with at least one answer: right,
    misconception j (with its one-line reading), another wrong answer — bottom to top."""
    q = stats.question
    rows = [("right", OKABE_ITO["green"], [i for i, v in enumerate(stats.verdicts) if v == 0])]
    for j, m in enumerate(q.misconceptions, start=1):
        rows.append(
            (f"M{j} {m.describe()}", OKABE_ITO["vermillion"], [i for i, v in enumerate(stats.verdicts) if v == j])
        )
    rows.append(("other wrong", GREY, [i for i, v in enumerate(stats.verdicts) if v is None]))
    return [r for r in rows if r[2]]


def choices_figure(stats) -> go.Figure:
    """Bars: students per choice (first answers), the right choice in green."""
    q = stats.question
    names = list(stats.choices)
    colors = [OKABE_ITO["green"] if c == q.answer else GREY for c in names]
    fig = Fig([trace("bar", x=names, y=[stats.choices[c] for c in names], marker_color=colors, name="students")])
    return finish(styled_figure(fig, "choice (green: right)", "students", title="first answers", height=280))


def poll_figure(history) -> go.Figure:
    """The poll's estimate of the true share of "yes" with its 95 % interval as reports arrive
    (``history``: :class:`hetdp_core.teaching.poll.PollEstimate` snapshots), next to the raw share of "yes"
    sent. The estimate is drawn within [0, 1] (its unbiased value, possibly outside, on hover)."""
    hist = [h for h in history if h.n > 0]
    fig = Fig()
    if hist:
        n = [h.n for h in hist]
        shown = [min(1.0, max(0.0, h.estimate)) for h in hist]
        fig.add_scatter(
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
            meta={"quantity": "share"},
            mode="lines+markers",
            name="estimated true share, 95 % interval",
            line_color=OKABE_ITO["blue"],
        )
        fig.add_scatter(
            x=n,
            y=[h.raw_share for h in hist],
            mode="lines+markers",
            name="share of “yes” sent",
            line={"color": GREY, "dash": "dot"},
            meta={"quantity": "share"},
        )
    fig.update_yaxes(range=[-0.05, 1.05], tickformat=".0%")
    return finish(styled_figure(fig, "reports received", "share of yes", title="Class poll", height=320))
