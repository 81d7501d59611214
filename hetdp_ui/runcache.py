"""A process-wide cache of page runs, keyed by (page, scenario query).

Unlike ``st.cache_data`` it returns the cached :class:`~hetdp_core.scenario.Result` itself (no copy
per hit: results are treated as read-only by the pages), lets the computation report progress to
the page that triggered it, and computes each key once even when many sessions ask for it at the
same moment (the others wait for the first). Streamlit-free.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = ["RunCache"]


class RunCache:
    def __init__(self, max_entries: int = 128):
        self.max_entries = max_entries
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._inflight: dict = {}
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key, compute: Callable[[], Any]) -> Any:
        while True:
            with self._lock:
                if key in self._data:
                    self._data.move_to_end(key)
                    self.hits += 1
                    return self._data[key]
                ev = self._inflight.get(key)
                if ev is None:
                    ev = self._inflight[key] = threading.Event()
                    mine = True
                else:
                    mine = False
            if not mine:
                ev.wait()
                continue              # computed (or failed: then compute it ourselves)
            try:
                value = compute()
            except BaseException:
                with self._lock:
                    self._inflight.pop(key).set()
                raise
            with self._lock:
                self.misses += 1
                self._data[key] = value
                while len(self._data) > self.max_entries:
                    self._data.popitem(last=False)
                self._inflight.pop(key).set()
            return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
