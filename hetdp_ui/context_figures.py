"""The strip "your levels among real deployments" (Streamlit-free plotly): the deployments of
:mod:`hetdp_core.deployments` on a log-ε axis — central ones on the upper row, local ones on the lower,
the marker's shape saying whom a level protects (a person or user for a release; a user, device or
event per period) — and the view's levels as labelled vertical lines."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from .figcache import memo_figure
from .theme import OKABE_ITO, styled

#: marker shape by unit of privacy: a whole person/user/household for a release, or a smaller unit
SHAPES = {"release": "circle", "period": "diamond", "event": "square"}
ROWS = {"central": 1.0, "local": 0.0}


def _kind(d) -> str:
    if d.unit == "event":
        return "event"
    return "release" if d.period == "one release" else "period"


def _short(d) -> str:
    return f"{d.organisation.split()[0]} {d.name.split(' (')[0].split(' - ')[0][:28]}"


@memo_figure
def deployments_strip(placements: tuple, title: str = "Your levels among real deployments") -> go.Figure:
    """``placements``: :class:`hetdp_core.deployments.Placement` tuples (the view's levels)."""
    from hetdp_core.deployments import deployments

    deps = deployments()
    fig = go.Figure()
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
            fig.add_trace(
                go.Scatter(
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
            )
    # the neighbours the sentences name are labelled on the strip (every point has its label on hover)
    near = {d for p in placements for d in (p.below, p.above) if d is not None}
    for model, y in ROWS.items():
        pick = sorted((d for d in near if d.model == model), key=lambda d: d.epsilon)
        if pick:
            fig.add_trace(
                go.Scatter(
                    x=[d.epsilon for d in pick],
                    y=[y] * len(pick),
                    mode="text",
                    text=[_short(d) for d in pick],
                    textposition=["bottom center" if j % 2 else "top center" for j in range(len(pick))],
                    textfont={"size": 10, "color": "#333333"},
                    hoverinfo="skip",
                    showlegend=False,
                    name="named neighbours",
                )
            )
    for i, p in enumerate(placements):
        if not math.isfinite(p.epsilon) or p.epsilon <= 0:
            continue
        fig.add_vline(x=p.epsilon, line={"color": OKABE_ITO["vermillion"], "width": 2})
        fig.add_annotation(
            x=math.log10(p.epsilon),
            y=1.45 + 0.22 * (i % 3),
            text=p.level if len(p.level) <= 40 else p.level[:38] + "…",
            showarrow=False,
            font={"color": OKABE_ITO["vermillion"], "size": 11},
        )
    # room on both sides for the labels of the lowest and highest points
    xs = [d.epsilon for d in deps] + [p.epsilon for p in placements if math.isfinite(p.epsilon) and p.epsilon > 0]
    fig.update_xaxes(range=[math.log10(min(xs)) - 0.45, math.log10(max(xs)) + 0.45])
    fig.update_yaxes(tickvals=[0, 1], ticktext=["local", "central"], range=[-0.6, 2.2], showgrid=False, title_text=None)
    return styled(
        fig,
        "ε — hover a point for the deployment, its unit of privacy and period",
        None,
        log_x=True,
        height=300,
        margin={"t": 30, "b": 10},
        title={"text": title, "font": {"size": 14}},
        legend={"orientation": "h", "y": -0.45, "font": {"size": 11}},
        xaxis_gridcolor="#eeeeee",
        plot_bgcolor="white",
        hoverlabel={"bgcolor": "white"},
    )
