"""A page's result in two stages (Streamlit-free): the quick part first, the rest when first read.

A page whose core module has a quick part (the ``quick`` hook: the guarantee checks, the analytic curves
and every input check, computed without simulation — or, on Group-wise zCDP, whose costly part is its
numerical divergences, everything but them) gets a :class:`Staged` result from its shell: reading
a field that the quick part computed answers at once; reading any other field — or calling a method of
the result — waits for the page's whole run (cached, with its progress bar where the page reads it). So
a page draws everything up to its first simulated field while the simulation has not even started: the
checks and analytic curves appear first, and the simulated curves follow in their own place, the old
ones greyed meanwhile, as Streamlit shows what a run has not redrawn yet.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from hetdp_core.framework.memo import size_of
from hetdp_core.framework.scenario import PENDING

__all__ = ["Staged"]


class Staged:
    """The result of ``quick`` (a partial result) until a field it left :data:`PENDING` is read, then of
    ``finish()`` (the page's whole run, which builds on the same quick part). The figure memo keys a
    staged result by its identity, as a cached result (:func:`hetdp_ui.figcache.memo_figure`)."""

    #: read by the figure memo without touching the instance (which would finish the run)
    STAGED = True
    __slots__ = ("_quick", "_finish", "_full", "_lock", "_on_full")

    def __init__(self, quick, finish: Callable[[], object], *, on_full: Callable[[Staged], None] | None = None):
        """``on_full(self)`` is called once the whole run is here (the memo that keeps this result counts
        its size again: :func:`hetdp_ui.execution.staged_run`)."""
        self._quick, self._finish, self._full, self._lock = quick, finish, None, threading.Lock()
        self._on_full = on_full

    @property
    def quick(self):
        """The quick part: a partial result of the page's result class."""
        return self._quick

    @property
    def done(self) -> bool:
        """Whether the whole run is here."""
        return self._full is not None

    def full(self):
        """The page's whole run (computed, or read from the run cache, the first time)."""
        if self._full is None:
            with self._lock:
                if self._full is None:
                    self._full = self._finish()
                    if self._on_full is not None:
                        self._on_full(self)
        return self._full

    def __getattr__(self, name: str):
        """A field the quick part computed, at once; any other field or attribute of the page's result
        class, from the whole run. A name the result class does not have raises AttributeError without
        running anything (``hasattr(staged, "nbytes")``, as the memo's size count asks, must not start
        the simulation)."""
        cls = type(self._quick)
        fields = cls.__dataclass_fields__
        if name in fields:
            value = getattr(self._quick, name)
            if value is not PENDING:
                return value
        elif not hasattr(cls, name):
            raise AttributeError(f"{cls.__name__!r} results have no attribute {name!r}")
        return getattr(self.full(), name)

    def __sizeof__(self) -> int:  # the memo that keeps a staged result counts what it keeps alive
        return object.__sizeof__(self) + size_of(self._quick) + (0 if self._full is None else size_of(self._full))

    def __repr__(self) -> str:
        return f"Staged({type(self._quick).__name__}, {'done' if self.done else 'quick part'})"
