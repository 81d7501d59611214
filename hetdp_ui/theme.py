"""Figure finishing shared by every builder (Streamlit-free): readable log axes.

Plotly labels the minor ticks of a log axis that spans few decades ("2 3 4 5 6 7 8 9" between the
powers of ten), which clutters the axis. :func:`tidy_log_axes` sets explicit ticks from the data:
powers of ten, or 1-2-5 (then 1-2-3-5) multiples when the data span too few decades, or every
integer multiple within a single decade.
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_ticks", "tidy_log_axes"]


def log_ticks(lo: float, hi: float, *, min_ticks: int = 3) -> list[float]:
    """Tick values for a log axis covering [lo, hi] (both > 0)."""
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo <= hi):
        return []
    e0, e1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    for mult in ((1,), (1, 2, 5), (1, 2, 3, 5), tuple(range(1, 10))):
        ticks = [m * 10.0**e for e in range(e0, e1 + 1) for m in mult]
        inside = [t for t in ticks if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]
        if len(inside) >= min_ticks or mult == tuple(range(1, 10)):
            return [float(f"{t:.12g}") for t in inside]
    return []


def _axis_data(fig, letter: str, ref: str) -> np.ndarray:
    parts = []
    for tr in fig.data:
        if (getattr(tr, f"{letter}axis", None) or letter) != ref:
            continue
        arr = getattr(tr, letter, None)
        if arr is None:
            continue
        try:
            a = np.asarray(arr, dtype=float).ravel()
        except (TypeError, ValueError):           # categorical axis
            continue
        parts.append(a[np.isfinite(a) & (a > 0)])
    return np.concatenate(parts) if parts else np.empty(0)


def tidy_log_axes(fig):
    """Give every log axis without explicit ticks clean ticks computed from its data (or its set
    range). Returns the figure (anything that is not a plotly figure is returned unchanged)."""
    if not hasattr(fig, "layout") or not hasattr(fig, "data"):
        return fig
    for name in list(fig.layout.to_plotly_json()):
        if not name.startswith(("xaxis", "yaxis")):
            continue
        ax = fig.layout[name]
        if ax.type != "log" or ax.tickvals is not None:
            continue
        letter, suffix = name[0], name[5:]
        if ax.range is not None and all(v is not None for v in ax.range):
            lo, hi = 10.0 ** float(ax.range[0]), 10.0 ** float(ax.range[1])
        else:
            data = _axis_data(fig, letter, letter + suffix)
            if data.size == 0:
                continue
            lo, hi = float(data.min()), float(data.max())
        ticks = log_ticks(lo, hi)
        if len(ticks) >= 2:
            ax.tickvals = ticks
            ax.ticktext = [f"{t:g}" for t in ticks]
    return fig
