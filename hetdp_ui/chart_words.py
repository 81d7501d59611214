"""Charts in words (Streamlit-free): a plain-text summary of a figure from its own data — its axes, then
each series with its number of values and their range in the quantity's one formatter — shown under every
chart ("Chart in words") and in reports, and read by screen readers."""

from __future__ import annotations

import numpy as np

from hetdp_core.reading.words import formatted

__all__ = ["summarize", "trace_values"]


def trace_values(tr, *, labels_on_y: bool = False) -> tuple[np.ndarray, str | None]:
    """The values a trace draws, and the quantity they are (a name of :data:`hetdp_core.reading.words.FORMATS`):
    its ``meta["values"]`` where it draws them at positions that are not the values (a ▲ at the chart's
    top edge for a value above it, a dot stacked in a dotplot's bin, a legend entry for outlined bars),
    a heatmap's z, the x of a histogram or of a horizontal trace (or of any trace where the y axis names
    rows by labels, ``labels_on_y``), else its y."""
    meta = tr.meta if isinstance(getattr(tr, "meta", None), dict) else {}
    if "values" in meta:
        vals = meta["values"]
    elif tr.type == "heatmap":
        vals = getattr(tr, "z", None)
    elif tr.type == "histogram" or labels_on_y or getattr(tr, "orientation", None) == "h":
        vals = getattr(tr, "x", None)
    else:
        vals = getattr(tr, "y", None)
    try:
        arr = np.asarray(vals, dtype=float).ravel() if vals is not None else np.empty(0)
    except (TypeError, ValueError):
        arr = np.empty(0)
    return arr, meta.get("quantity")


def _axis_title(fig, name: str) -> str:
    ax = fig.layout[name] if name in fig.layout else None
    if ax is None:
        return ""
    t = ax.title.text if ax.title is not None and ax.title.text else ""
    return t + (" (log scale)" if ax.type == "log" else "")


def _axis_words(fig, name: str) -> str:
    """An axis in words: its title, else the categories it shows (tick labels, or the text values of
    the traces on it), else "—"."""
    title = _axis_title(fig, name)
    if title:
        return title
    ax = fig.layout[name] if name in fig.layout else None
    cats = list(ax.ticktext) if ax is not None and ax.ticktext is not None else []
    if not cats:
        letter = name[0]
        for tr in fig.data:
            vals = getattr(tr, letter, None)
            if vals is not None and len(vals) and all(isinstance(v, str) for v in vals):
                cats = list(dict.fromkeys(vals))
                break
    if not cats:
        return "—"
    shown = ", ".join(map(str, cats[:6])) + (f", … ({len(cats)} in all)" if len(cats) > 6 else "")
    return f"categories {shown}"


def summarize(fig, *, max_series: int = 8) -> str:
    """A plain-text summary of a figure from its own data: the axes, then each series with its
    number of points and the range of its values (a screen reader's view of the chart)."""
    if not hasattr(fig, "data"):
        return ""
    parts = []
    x, y = _axis_words(fig, "xaxis"), _axis_words(fig, "yaxis")
    if x != "—" or y != "—":
        parts.append(f"x: {x}; y: {y}.")
    yax = fig.layout.yaxis
    y_is_labels = yax is not None and yax.ticktext is not None and yax.type != "log"  # rows named by labels
    series = []
    for tr in fig.data:
        if getattr(tr, "showlegend", None) is False and not getattr(tr, "name", None):
            continue
        name = getattr(tr, "name", None) or tr.type
        arr, quantity = trace_values(tr, labels_on_y=y_is_labels)
        fin = arr[np.isfinite(arr)]
        say = lambda v, q=quantity: formatted(v, q)  # noqa: E731 — the quantity's one formatter
        if fin.size:
            rng = say(fin.min()) if fin.min() == fin.max() else f"{say(fin.min())} to {say(fin.max())}"
            extra = f", {arr.size - fin.size} infinite" if arr.size - fin.size else ""
            series.append(f"{name}: {arr.size} value{'s' if arr.size != 1 else ''}, {rng}{extra}")
        elif arr.size:
            series.append(f"{name}: {arr.size} value{'s' if arr.size != 1 else ''}, none finite")
        else:
            series.append(str(name))
    if series:
        shown = series[:max_series]
        more = f"; and {len(series) - max_series} more series" if len(series) > max_series else ""
        parts.append("Series — " + "; ".join(shown) + more + ".")
    return " ".join(parts)
