"""The strip "your levels among real deployments" (Streamlit-free plotly): the deployments of
:mod:`hetdp_core.reading.deployments` on a log-ε axis — central ones on the upper row, local ones on the lower,
the marker's shape saying whom a level protects (a person or user for a release; a user, device or
event per period) — and the view's levels as labelled vertical lines."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .figcache import memo_figure
from .figdict import Fig
from .theme import OKABE_ITO, label_anchor, label_rows, styled_figure

#: marker shape by unit of privacy: a whole person/user/household for a release, or a smaller unit
SHAPES = {"release": "circle", "period": "diamond", "event": "square"}
ROWS = {"central": 1.0, "local": 0.0}


def _kind(d) -> str:
    if d.unit == "event":
        return "event"
    return "release" if d.period == "one release" else "period"


def _short(d) -> str:
    return f"{d.organisation.split()[0]} {d.name.split(' (')[0].split(' - ')[0][:28]}"


def _labels(fig: go.Figure, placements: tuple, at) -> tuple[int, list[int]]:
    """The strip's labels: the neighbours the sentences name (every point has its label on hover), above
    the central row and under the local one, on as many rows as it takes for none to overlap; the view's
    levels as lines labelled above all of them (in the top margin, which grows with them). ``at`` gives
    an ε's place as a fraction of the plot's width. Returns the rows of central names and of levels."""
    near = {d for p in placements for d in (p.below, p.above) if d is not None}
    central_rows = 0
    for model, y in ROWS.items():
        pick = sorted((d for d in near if d.model == model), key=lambda d: d.epsilon)
        rows = label_rows([at(d.epsilon) for d in pick], [_short(d) for d in pick], char=6.5)
        up = model == "central"
        for d, row in zip(pick, rows):
            fig.add_annotation(
                x=math.log10(d.epsilon),
                y=y,
                text=_short(d),
                showarrow=False,
                xanchor=label_anchor(at(d.epsilon)),
                yanchor="bottom" if up else "top",
                yshift=(8 + 13 * row) * (1 if up else -1),
                font={"size": 10, "color": "#333333"},
            )
        if up:
            central_rows = max(rows, default=-1) + 1
    shown = [p for p in placements if math.isfinite(p.epsilon) and p.epsilon > 0]
    texts = [f"{p.name or p.level} (ε = {p.epsilon:.3g})" for p in shown]
    texts = [t if len(t) <= 40 else t[:31] + f"… (ε = {p.epsilon:.3g})" for t, p in zip(texts, shown)]
    rows = label_rows([at(p.epsilon) for p in shown], texts)
    for p, text, row in zip(shown, texts, rows):
        fig.add_vline(x=p.epsilon, line={"color": OKABE_ITO["vermillion"], "width": 2})
        fig.add_annotation(
            x=math.log10(p.epsilon),
            y=1,
            yanchor="bottom",
            yshift=12 + 13 * central_rows + 18 * row,
            text=text,
            showarrow=False,
            xanchor=label_anchor(at(p.epsilon)),
            font={"color": OKABE_ITO["vermillion"], "size": 11},
            bgcolor="rgba(255, 255, 255, 0.85)",
        )
    return central_rows, rows


@memo_figure
def deployments_strip(placements: tuple, title: str = "Your levels among real deployments") -> go.Figure:
    """``placements``: :class:`hetdp_core.reading.deployments.Placement` tuples (the view's levels)."""
    from hetdp_core.reading.deployments import deployments

    deps = deployments()
    fig = Fig()
    names = {
        "release": "protects a person, user or household for a whole release",
        "period": "protects a user or device per day / month",
        "event": "protects one event (a report) per day / month",
    }
    for kind, shape in SHAPES.items():
        for model, y in ROWS.items():
            pick = [d for d in deps if _kind(d) == kind and d.model == model]
            if not pick:
                continue
            fig.add_scatter(
                x=[d.epsilon for d in pick],
                y=[y] * len(pick),
                mode="markers",
                marker={
                    "symbol": shape,
                    "size": 11,
                    "color": OKABE_ITO["blue"] if model == "central" else OKABE_ITO["orange"],
                    "line": {"width": 1, "color": "white"},
                },
                name=f"{model}: {names[kind]}",
                text=[d.label for d in pick],
                customdata=[_short(d) for d in pick],
                hovertemplate="%{text}<extra></extra>",
            )
    xs = [d.epsilon for d in deps] + [p.epsilon for p in placements if math.isfinite(p.epsilon) and p.epsilon > 0]
    lo, hi = math.log10(min(xs)) - 0.45, math.log10(max(xs)) + 0.45  # room for the end points' labels
    at = lambda eps: (math.log10(eps) - lo) / (hi - lo)  # noqa: E731 — a fraction of the plot's width
    central_rows, rows = _labels(fig, placements, at)
    above = 13 * central_rows + 18 * (max(rows, default=-1) + 1)
    fig.update_xaxes(range=[lo, hi])
    fig.update_yaxes(tickvals=[0, 1], ticktext=["local", "central"], range=[-1.0, 1.2], showgrid=False, title_text=None)
    return styled_figure(
        fig,
        "ε — hover a point for the deployment, its unit of privacy and period",
        None,
        log_x=True,
        height=260 + above,
        margin={"t": 40 + above, "b": 10},
        title={"text": title, "font": {"size": 14}, "yref": "container", "y": 0.99, "yanchor": "top"},
        legend={"orientation": "h", "y": -0.45, "font": {"size": 11}},
        xaxis_gridcolor="#eeeeee",
        plot_bgcolor="white",
        hoverlabel={"bgcolor": "white"},
    )
