"""Where a script run's time goes, for ``make bench`` (``benchmarks/slider_step.py``); off unless the
environment variable ``HETDP_TIMING`` names a file.

With it set, every script run of the server appends one JSON line to that file: its wall-clock start
and end (``time.time()``, comparable with the browser's clock on the same machine), its total and
the seconds spent in its parts — ``run`` (the page's computation: a cache hit, an in-process run or
a limited child), ``figures`` (building plotly figures), ``serialisation`` (handing charts, tables
and downloads to Streamlit, which encodes them: plotly's JSON, Arrow, CSV bytes) — and the page's
URL path. Everything else of the run (text, metrics, widgets, the checks) is the panels' part, the
total minus those. Without the variable every hook is a no-op costing one attribute read.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time

__all__ = ["ENV", "enabled", "part", "script_run", "note"]

ENV = "HETDP_TIMING"
_LOCAL = threading.local()
_WRITE = threading.Lock()


def enabled() -> bool:
    return bool(os.environ.get(ENV))


@contextlib.contextmanager
def part(name: str):
    """Add the seconds spent in the block to part ``name`` of the current script run (nothing when
    timing is off or no run is being timed in this thread). Parts nest exclusively: a part entered
    inside another (the run a figure's builder waits for) counts for itself, not for the outer one."""
    rec = getattr(_LOCAL, "rec", None)
    if rec is None:
        yield
        return
    stack = rec.setdefault("_stack", [])
    t0 = time.perf_counter()
    stack.append(0.0)  # time spent in parts nested in this one
    try:
        yield
    finally:
        spent = time.perf_counter() - t0
        inner = stack.pop()
        rec[name] = rec.get(name, 0.0) + spent - inner
        if stack:
            stack[-1] += spent


def note(name: str, value) -> None:
    """Record a value (e.g. where the run executed) in the current script run's line."""
    rec = getattr(_LOCAL, "rec", None)
    if rec is not None:
        rec[name] = value


@contextlib.contextmanager
def script_run(page: str = ""):
    """Time one script run (``app.py`` wraps its page's run in it) and append its line to the file
    ``HETDP_TIMING`` names; a run that stops or reruns early (``st.stop``, a rerun) is recorded too,
    with ``"ended": "stopped"``."""
    path = os.environ.get(ENV)
    if not path:
        yield
        return
    rec = {"page": page, "start": time.time()}
    _LOCAL.rec = rec
    t0 = time.perf_counter()
    ended = "finished"
    try:
        yield
    except BaseException:
        ended = "stopped"
        raise
    finally:
        _LOCAL.rec = None
        rec.pop("_stack", None)
        rec.update(end=time.time(), total=time.perf_counter() - t0, ended=ended)
        with _WRITE, open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
