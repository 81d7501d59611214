"""One bounded, thread-safe memo for every cache of the app (runs, figures, CSV bytes, chart
summaries, the Rényi divergences of Algorithm 1), bounded in **bytes**.

It wraps ``cachetools.LRUCache`` (a well-kept library) with a size function, :func:`size_of`, and a
lock: least recently used entries leave first once the sizes of the entries exceed ``max_bytes``.
An entry larger than the whole memo is not kept.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np

from ._doc import document

__all__ = [
    "Memo",
    "size_of",
    "SharedStore",
    "set_shared_store",
    "shared_store",
    "memoised",
    "content_key",
    "clear_memoised",
]


def size_of(obj, _depth: int = 0) -> int:
    """Approximate memory of a value: numpy arrays and pandas tables by their buffers, containers and
    dataclasses recursively (four levels), anything else by ``sys.getsizeof``."""
    if _depth > 4:
        return sys.getsizeof(obj)
    nbytes = getattr(obj, "nbytes", None)
    if isinstance(nbytes, int) and hasattr(obj, "dtype"):  # a numpy array
        return nbytes + 112
    if hasattr(obj, "memory_usage") and hasattr(obj, "columns"):  # a pandas DataFrame
        try:
            return _frame_bytes(obj)
        except Exception:  # noqa: BLE001 — exotic dtypes
            return sys.getsizeof(obj)
    if isinstance(obj, dict):
        return sys.getsizeof(obj) + sum(size_of(k, _depth + 1) + size_of(v, _depth + 1) for k, v in obj.items())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return sys.getsizeof(obj) + sum(size_of(v, _depth + 1) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        frozen = type(obj).__dataclass_params__.frozen
        kept = _FROZEN_SIZES.get(id(obj)) if frozen else None
        # a size counted at this depth or above (as deep or deeper into the object) serves; one counted
        # further down, where the depth limit cut the count short, does not
        if kept is not None and kept[0]() is obj and kept[2] <= _depth:
            return kept[1]
        total = sys.getsizeof(obj) + sum(size_of(getattr(obj, f.name), _depth + 1) for f in dataclasses.fields(obj))
        if frozen:
            _keep_size(obj, total, _depth)
        return total
    return sys.getsizeof(obj)


#: the sizes of frozen dataclasses (a page's result, its staged parts) by identity, while they live, with
#: the depth they were counted at: one result is sized by every memo that keeps something derived from it
#: (its figures, CSVs, summaries), at every put — walking its tables again each time cost a slider step
#: 20-40 ms
_FROZEN_SIZES: dict[int, tuple[weakref.ref, int, int]] = {}


def _keep_size(obj, total: int, depth: int) -> None:
    try:
        ref = weakref.ref(obj, lambda _r, key=id(obj): _FROZEN_SIZES.pop(key, None))
    except TypeError:  # a dataclass with slots and no __weakref__: sized again next time
        return
    _FROZEN_SIZES[id(obj)] = (ref, total, depth)


#: values of an object (text) column whose sizes are counted; the column is sized from them
_SAMPLE = 64


def _frame_bytes(df) -> int:
    """A table's buffers from its column types (a number column: its item size times its length), and
    for a column of pandas' text (Arrow) or another extension type its buffers' size (categories: their
    codes and their categories' buffers, not Python objects among them); a column of Python objects or
    Python strings: the pointers and its values' sizes estimated from at most :data:`_SAMPLE` evenly
    spaced ones. pandas' ``memory_usage`` builds a Series per call (0.6 ms a table here) and a cached
    run, its figures and its downloads are sized at every put: a slider step spent 50 ms of its script
    run sizing tables that way."""
    n = len(df)
    total = int(df.index.memory_usage(deep=False))
    for i, dtype in enumerate(df.dtypes.tolist()):
        if isinstance(dtype, np.dtype) and dtype.kind != "O":
            total += dtype.itemsize * n
        elif n:
            values = df.iloc[:, i].array
            if isinstance(dtype, np.dtype) or getattr(dtype, "storage", None) == "python":
                # Python objects (or text kept as Python strings): the pointers and a sample of the objects
                sample = values[:: max(1, n // _SAMPLE)]
                total += 8 * n + int(sum(map(sys.getsizeof, sample)) * n / len(sample))
            else:  # pandas' text (Arrow buffers), categories, …: their buffers' size
                total += int(values.nbytes)
    return total


class Memo:
    """A least-recently-used memo of at most ``max_bytes`` (by ``size``, default :func:`size_of`)."""

    def __init__(self, max_bytes: int, *, size: Callable[[Any], int] = size_of, name: str = "memo"):
        import cachetools

        self.name = name
        self.max_bytes = int(max_bytes)
        self._lru = cachetools.LRUCache(maxsize=self.max_bytes, getsizeof=lambda v: max(1, int(size(v))))
        self._lock = threading.Lock()
        # single flight: cachetools' ``condition`` makes concurrent callers of one key wait for the
        # first one's value instead of each computing it (50 sessions opening one fresh view built its
        # figures 50 times); the condition shares the memo's lock
        cond = threading.Condition(self._lock)
        self._flight = cachetools.cached(self._lru, key=lambda key, compute: key, lock=cond, condition=cond)(
            lambda key, compute: compute()
        )

    def get(self, key, default=None):
        with self._lock:
            return self._lru.get(key, default)

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._lru

    def put(self, key, value) -> bool:
        """Store ``value``; False when it is larger than the whole memo (then it is not kept)."""
        with self._lock:
            try:
                self._lru[key] = value
                return True
            except ValueError:  # cachetools: value too large
                self._lru.pop(key, None)
                return False

    def get_or_compute(self, key, compute: Callable[[], Any]):
        """The value kept for ``key``, else ``compute()`` — kept for next time (when it fits). One
        thread computes a key at a time; the others asking for it meanwhile wait for its value (if it
        fails, the next one computes)."""
        return self._flight(key, compute)

    def pop(self, key, default=None):
        with self._lock:
            return self._lru.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._lru.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._lru)

    @property
    def bytes(self) -> int:
        with self._lock:
            return int(self._lru.currsize)

    def values(self) -> list:
        with self._lock:
            return list(self._lru.values())


def content_key(value):
    """A hashable key of ``value`` by content: numbers by type and exact value (floats by their bits,
    so −0.0 is not 0.0), strings, None, tuples and lists, dicts, numpy arrays (dtype, shape and a
    BLAKE2 digest of their bytes), frozen dataclasses by their fields. Anything else raises TypeError
    (the caller does not memoise then)."""
    import numpy as np

    if value is None or isinstance(value, (bool, int, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, np.generic):
        return ("np", value.dtype.str, value.tobytes())
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("arr", value.shape, tuple(content_key(v) for v in value.ravel().tolist()))
        import hashlib

        return ("arr", value.shape, value.dtype.str, hashlib.blake2b(np.ascontiguousarray(value).tobytes()).digest())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(content_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((content_key(k), content_key(v)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and value.__dataclass_params__.frozen:
        return (type(value).__qualname__, tuple(content_key(getattr(value, f.name)) for f in dataclasses.fields(value)))
    raise TypeError(f"no content key for a {type(value).__name__}")


def _read_only(value):
    """``value`` with its numpy arrays (at its top level, in a tuple or dict, or in a frozen dataclass's
    fields) made read-only: a memoised value is shared, and a caller writing into it would change it
    for every later caller."""
    import numpy as np

    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for v in value:
            _read_only(v)
    elif isinstance(value, dict):
        for v in value.values():
            _read_only(v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _read_only(getattr(value, f.name))
    return value


#: every memo made by :func:`memoised`, for :func:`clear_memoised`
_MEMOISED: list[Memo] = []


def clear_memoised() -> None:
    """Empty every memo of :func:`memoised` (a test that patches the core computes afresh)."""
    for memo in _MEMOISED:
        memo.clear()


def memoised(max_bytes: int, *, name: str, key: Callable | None = None):
    """Decorator: keep a deterministic function's values in a :class:`Memo` of ``max_bytes``, keyed by
    the content of its arguments (:func:`content_key`) or by ``key(*args, **kw)`` — the inputs the value
    depends on, when an argument carries more (a whole scenario). A call whose arguments have no
    content key computes without the memo. Values are shared: their arrays are made read-only. The
    same arguments give the same value, computed once (the functions memoised draw their random
    numbers from a seed among their arguments)."""
    import functools

    def deco(fn):
        memo = Memo(max_bytes, name=name)
        _MEMOISED.append(memo)

        def key_of(*args, **kw):  # the one key of a call: a single call and many() share their entries
            return content_key(key(*args, **kw) if key is not None else (args, tuple(sorted(kw.items()))))

        @functools.wraps(fn)
        def wrapper(*args, **kw):
            try:
                k = key_of(*args, **kw)
            except TypeError:
                return fn(*args, **kw)
            return memo.get_or_compute(k, lambda: _read_only(fn(*args, **kw)))

        def many(calls, compute_many):
            """The values of several calls (each a dict of keyword arguments): those kept are served,
            the others computed together by ``compute_many(missing_calls)`` — one value per call, in
            order, each the value ``fn(**call)`` would give — and kept like ``fn``'s own. Unlike a single
            call, two threads asking for the same missing values at once may both compute them (the
            same values). Calls whose arguments have no content key are all computed, none kept."""
            calls = list(calls)
            try:
                keys = [key_of(**c) for c in calls]
            except TypeError:
                return list(compute_many(calls))
            missing = object()
            values = [memo.get(k, missing) for k in keys]
            todo = [i for i, v in enumerate(values) if v is missing]
            if todo:
                for i, v in zip(todo, compute_many([calls[i] for i in todo]), strict=True):
                    values[i] = _read_only(v)
                    memo.put(keys[i], values[i])
            return values

        wrapper.memo = memo
        wrapper.many = many
        return wrapper

    return deco


class SharedStore(Protocol):
    """A store shared between processes for deterministic sub-results that are expensive and reused by
    many scenarios (e.g. Algorithm 1's divergences, which do not depend on the seed): ``load(key)`` →
    ``(found, value)``, ``save(key, value)`` → stored or not, ``lock(key)`` → a context manager held
    by one process at a time (single flight across processes). The app installs one backed by its
    result cache on disk (:class:`hetdp_ui.runcache.DiskStore`); the core never needs one."""

    def load(self, key) -> tuple[bool, Any]: ...

    def save(self, key, value) -> bool: ...

    def lock(self, key) -> AbstractContextManager: ...


_SHARED: list[SharedStore | None] = [None]


def set_shared_store(store: SharedStore | None) -> None:
    """Install (or, with None, remove) the process's shared store for the core's reusable sub-results."""
    _SHARED[0] = store


def shared_store() -> SharedStore | None:
    """The shared store installed in this process, or None (then every process computes its own)."""
    return _SHARED[0]


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
