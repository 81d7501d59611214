"""Input validation shared by every public function of :mod:`hetdp_core`.

Every check raises :class:`InputError` (a :class:`ValueError`) with one sentence that names the
parameter, the rule, the value received and the fix, e.g.::

    q must be a number in [0, 1] (a total-variation bound); got 1.5. Pass a value between 0 and 1.

The helpers return the cleaned value (a float, an int or a float64 array) so callers can write
``q = check_real("q", q, lo=0, hi=1)`` and move on.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from ._doc import document

__all__ = [
    "InputError",
    "as_generator",
    "check_choice",
    "check_int",
    "check_real",
    "check_vector",
    "check_matrix",
    "fmt",
    "MIN_EPS",
    "MAX_EPS",
]

#: Smallest privacy level ε accepted anywhere. Below it the noise scale is more than a million
#: times the sensitivity (nothing is learned) and floating point breaks first: 1/ε overflows for
#: denormal ε and weights computed from ε become NaN.
MIN_EPS = 1e-6
#: Largest privacy level accepted anywhere: e^ε overflows a float64 just above 709.
MAX_EPS = 700.0


class InputError(ValueError):
    """The project's input-error type: a bad parameter value, with a message that names the
    parameter, the rule, the value and the fix. Pages catch this type only (around scenario
    construction and the run), so any other exception is a bug that fails a test."""


def fmt(value: Any) -> str:
    """Short printable form of a received value for error messages."""
    if isinstance(value, np.ndarray):
        if value.size > 8:
            return f"array of shape {value.shape}"
        return np.array2string(value, precision=4, separator=", ")
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_real_scalar(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    return isinstance(value, numbers.Real)


def check_real(
    name: str,
    value: Any,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_inf: bool = False,
    what: str = "",
) -> float:
    """Return ``value`` as a float after checking type, finiteness and the interval.

    ``allow_inf`` admits ``+inf`` only (as in "ε = inf means public"). The interval is
    ``[lo, hi]`` with either end made open by ``lo_open`` / ``hi_open``.
    """
    if not _is_real_scalar(value):
        raise InputError(
            f"{name} must be a real number{what}; got {fmt(value)} of type "
            f"{type(value).__name__}. Pass a plain number such as 0.5."
        )
    x = float(value)
    if math.isnan(x):
        raise InputError(f"{name} must be a number{what}; got NaN. Pass a finite value.")
    if math.isinf(x) and not (allow_inf and x > 0):
        extra = " or +inf" if allow_inf else ""
        raise InputError(f"{name} must be finite{extra}{what}; got {x}. Pass a finite value.")
    rule = _interval_text(lo, hi, lo_open, hi_open, allow_inf)
    if lo is not None and (x < lo or (lo_open and x == lo)):
        raise InputError(
            f"{name} must be in {rule}{what}; got {fmt(value)}. Pass a value {'>' if lo_open else '>='} {lo:g}."
        )
    if hi is not None and not (allow_inf and math.isinf(x)) and (x > hi or (hi_open and x == hi)):
        raise InputError(
            f"{name} must be in {rule}{what}; got {fmt(value)}. Pass a value {'<' if hi_open else '<='} {hi:g}."
        )
    return x


def _interval_text(lo, hi, lo_open, hi_open, allow_inf) -> str:
    left = "(" if lo_open or lo is None else "["
    right = ")" if hi_open or hi is None else "]"
    lo_t = "-inf" if lo is None else f"{lo:g}"
    hi_t = "inf" if hi is None else f"{hi:g}"
    if hi is None and allow_inf:
        right = "]"
    return f"{left}{lo_t}, {hi_t}{right}"


def check_int(name: str, value: Any, *, lo: int | None = None, hi: int | None = None, what: str = "") -> int:
    """Return ``value`` as an int after checking it is an integer in ``[lo, hi]``.

    Floats with an integral value (e.g. ``10.0``) are accepted; ``True``/``False`` are not.
    """
    if isinstance(value, bool | np.bool_):
        raise InputError(f"{name} must be an integer{what}; got a boolean {value!r}. Pass a whole number.")
    if isinstance(value, numbers.Integral):
        x = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        x = int(value)
    elif isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a whole number{what}; got {fmt(value)}. Pass an integer such as 10.")
    else:
        raise InputError(
            f"{name} must be an integer{what}; got {fmt(value)} of type {type(value).__name__}. Pass a whole number."
        )
    if lo is not None and x < lo:
        raise InputError(f"{name} must be >= {lo}{what}; got {x}. Pass a larger value.")
    if hi is not None and x > hi:
        raise InputError(
            f"{name} must be <= {hi}{what}; got {x}. Pass a smaller value "
            "(this limit keeps the computation within memory and time)."
        )
    return x


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices`` (strings)."""
    choices = tuple(choices)
    if not isinstance(value, str):
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {fmt(value)}.")
    if value not in choices:
        raise InputError(
            f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}. Pick one of the listed options."
        )
    return value


def _within(arr: np.ndarray, *, lo, hi, lo_open: bool, hi_open: bool, allow_inf: bool) -> bool:
    """True when every entry of ``arr`` passes :func:`check_vector`'s entry rules, from its minimum and
    maximum only (two vectorised passes instead of one per rule; a NaN makes both NaN and fails every
    comparison). False means "look entry by entry", not necessarily an error (e.g. +∞ with ``hi``)."""
    mn, mx = float(arr.min()), float(arr.max())
    if not (-math.inf < mn and (mx < math.inf or (allow_inf and mx == math.inf and hi is None))):
        return False
    if lo is not None and not (mn > lo if lo_open else mn >= lo):
        return False
    return hi is None or (mx < hi if hi_open else mx <= hi)


def check_vector(
    name: str,
    values: Any,
    *,
    length: int | None = None,
    min_length: int = 1,
    max_length: int | None = None,
    what: str = "",
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    allow_inf: bool = False,
) -> np.ndarray:
    """Return a 1-D float64 array after checking shape, type and every entry.

    ``allow_inf`` admits ``+inf`` entries (e.g. "no demand"). Bounds apply to finite entries; ``lo_open`` /
    ``hi_open`` exclude the ends themselves.
    """
    if isinstance(values, str | bytes) or values is None:
        raise InputError(f"{name} must be a list of numbers{what}; got {fmt(values)}.")
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as exc:  # ragged input
        raise InputError(f"{name} must be a flat list of numbers{what}; got {fmt(values)} ({exc}).") from None
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.number)):
        raise InputError(f"{name} must contain numbers only{what}; got {fmt(values)}. Remove text or boolean entries.")
    if np.iscomplexobj(arr):
        raise InputError(f"{name} must contain real numbers{what}; got complex values.")
    if arr.ndim != 1:
        raise InputError(f"{name} must be one-dimensional{what}; got shape {arr.shape}. Pass a flat list.")
    arr = arr.astype(np.float64)
    if length is not None and arr.size != length:
        raise InputError(
            f"{name} must have length {length}{what}; got length {arr.size}. Give exactly {length} values."
        )
    if arr.size < min_length:
        raise InputError(f"{name} must have at least {min_length} entries{what}; got {arr.size}.")
    if max_length is not None and arr.size > max_length:
        raise InputError(f"{name} must have at most {max_length} entries{what}; got {arr.size}.")
    if arr.size and _within(arr, lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open, allow_inf=allow_inf):
        return arr  # every entry is valid: the checks below would find nothing (they name the first bad entry)
    if np.isnan(arr).any():
        i = int(np.flatnonzero(np.isnan(arr))[0])
        raise InputError(f"{name} must not contain NaN{what}; entry {i} is NaN. Fill in a number.")
    bad_inf = np.isinf(arr) & ~((arr > 0) & allow_inf)
    if bad_inf.any():
        i = int(np.flatnonzero(bad_inf)[0])
        extra = " (+inf is allowed)" if allow_inf else ""
        raise InputError(f"{name} must be finite{extra}{what}; entry {i} is {arr[i]}. Pass finite values.")
    finite = np.isfinite(arr)
    if lo is not None:
        bad = finite & ((arr < lo) | ((arr == lo) & lo_open))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            op = ">" if lo_open else ">="
            raise InputError(
                f"{name} entries must be {op} {lo:g}{what}; entry {i} is {arr[i]:g}. Use values {op} {lo:g}."
            )
    if hi is not None:
        bad = finite & ((arr > hi) | ((arr == hi) & hi_open))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            op = "<" if hi_open else "<="
            raise InputError(
                f"{name} entries must be {op} {hi:g}{what}; entry {i} is {arr[i]:g}. Use values {op} {hi:g}."
            )
    return arr


def check_matrix(
    name: str,
    values: Any,
    *,
    shape: tuple[int | None, int | None] = (None, None),
    lo: float | None = None,
    hi: float | None = None,
    what: str = "",
) -> np.ndarray:
    """Return a finite 2-D float64 array after checking its shape and range."""
    if isinstance(values, str | bytes) or values is None:
        raise InputError(f"{name} must be a 2-D array of numbers{what}; got {fmt(values)}.")
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        raise InputError(f"{name} must be a rectangular 2-D array{what}.") from None
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise InputError(f"{name} must contain real numbers only{what}; got dtype {arr.dtype}.")
    if arr.ndim != 2:
        raise InputError(f"{name} must be a 2-D array (rows = users){what}; got shape {arr.shape}.")
    for axis, want in enumerate(shape):
        if want is not None and arr.shape[axis] != want:
            raise InputError(
                f"{name} must have {want} {'rows' if axis == 0 else 'columns'}{what}; got shape {arr.shape}."
            )
    if arr.size == 0:
        raise InputError(f"{name} must not be empty{what}; got shape {arr.shape}.")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise InputError(f"{name} must contain finite numbers only{what}; found NaN or inf.")
    if lo is not None and arr.min() < lo:
        raise InputError(
            f"{name} entries must be >= {lo:g}{what}; the smallest is {arr.min():g}. "
            "Rescale the data into the allowed range."
        )
    if hi is not None and arr.max() > hi:
        raise InputError(
            f"{name} entries must be <= {hi:g}{what}; the largest is {arr.max():g}. "
            "Rescale the data into the allowed range."
        )
    return arr


def as_generator(rng: np.random.Generator | int | None, name: str = "rng") -> np.random.Generator:
    """Turn ``rng`` into a :class:`numpy.random.Generator`.

    A Generator is used as is; an int seeds a new PCG64 generator (same seed, same numbers);
    ``None`` draws fresh OS entropy. The global ``np.random`` state is never used.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, bool | np.bool_) or not isinstance(rng, numbers.Integral):
        raise InputError(
            f"{name} must be a numpy Generator, a non-negative int seed or None; "
            f"got {fmt(rng)} of type {type(rng).__name__}."
        )
    if int(rng) < 0:
        raise InputError(f"{name} seed must be >= 0; got {int(rng)}. Pass a non-negative integer.")
    return np.random.default_rng(int(rng))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
