"""Helpers shared by the page runs: mapping sweep points over an executor, progress."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..framework.scenario import RunOptions


def map_points(fn: Callable, items: Iterable, *, options: RunOptions, label: Callable | None = None) -> list:
    """``[fn(x) for x in items]``, on ``options.executor`` when given (anything with ``map``, e.g. a
    ``concurrent.futures`` pool or a Dask ``Client``-backed executor). Each point derives its own
    random stream from the scenario's seed and the point's value, so the results do not depend on
    where or in which order the points run."""
    items, executor, progress = list(items), options.executor, options.progress
    if executor is not None:
        return list(executor.map(fn, items))
    out = []
    for i, x in enumerate(items):
        if progress is not None:
            progress(i / max(len(items), 1), label(x) if label else "")
        out.append(fn(x))
    if progress is not None:
        progress(1.0, "")
    return out
