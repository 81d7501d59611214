"""The constraint vocabulary of a page's inputs: each scenario field is declared once with a constraint
(:class:`Interval`, :class:`Options`, :class:`Subset`, :class:`Numbers`, :class:`Boolean`, :class:`Text`) from
which the URL parser, the widget's range, the CLI's flags and the error messages all follow (in the style of
scikit-learn's parameter constraints). :mod:`hetdp_core.framework.scenario` re-exports it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._doc import document
from ._validate import MAX_EPS, MIN_EPS, InputError, _interval_text, check_int, check_matrix, check_real, check_vector

__all__ = [
    "MAX_QUERY_VALUE",
    "MAX_PIN_LENGTH",
    "Spec",
    "Constraint",
    "Interval",
    "EPS",
    "LEVEL",
    "DELTA",
    "DEMAND",
    "RHO",
    "SEED",
    "TRIALS",
    "USERS",
    "COUNT",
    "UNIT",
    "SIGNED_UNIT",
    "POSITIVE",
    "NONNEGATIVE",
    "Options",
    "Subset",
    "Numbers",
    "Boolean",
    "Text",
    "param",
    "Rule",
    "adapt",
    "split_list",
    "check_value",
    "dump_value",
]

#: Longest accepted value of one query parameter (characters); longer ones are refused unread.
MAX_QUERY_VALUE = 20_000
#: Longest accepted pinned plan A (``pin=``): a whole query string of a scenario.
MAX_PIN_LENGTH = 8 * MAX_QUERY_VALUE


@dataclass(frozen=True)
class Spec:
    """What one scenario parameter accepts, resolved from its :class:`Constraint` (the form every
    parser, widget and message reads).

    kind: ``float`` | ``int`` | ``choice`` | ``bool`` | ``floats`` (a tuple of floats) | ``choices``
    (a tuple of names from ``choices``) | ``text``.
    ``lo``/``hi`` bound numbers (and every entry of ``floats``); ``allow_inf`` admits +∞ in
    ``floats``; ``min_len``/``max_len`` bound list lengths; ``label`` names the parameter in plain
    words in messages."""

    kind: str
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple = ()
    allow_inf: bool = False
    min_len: int = 1
    max_len: int = 200
    label: str = ""
    #: ``choice``: other accepted spellings (identifiers, any case) → the canonical value
    synonyms: tuple = ()
    #: ``choice``: (identifier, label in plain words) pairs — the core and the URL use identifiers, the
    #: widgets show labels; a label is also accepted as a value (links from before the identifiers)
    labels: tuple = ()
    #: the widget's caption on the page, when it says more than ``label`` (e.g. "k — number of groups")
    caption: str = ""
    #: the value may be left unset (None; ``""`` or ``auto`` in text): the computation then chooses it
    optional: bool = False

    @property
    def shown(self) -> str:
        """What the page's widget shows as its label: the caption, else the label."""
        return self.caption or self.label

    def accepts(self) -> str:
        """What the parameter accepts, in words (a command line's help): e.g. ``a number in [0, 1]``."""
        k = self.kind
        if k in ("choice", "choices"):
            return ("one of " if k == "choice" else "comma-separated, from ") + ", ".join(map(str, self.choices))
        if k == "bool":
            return "1 or 0"
        if k == "text":
            return f"text (at most {self.max_len} characters)"
        rng = _range(self) + (" or inf" if self.allow_inf and self.hi is not None else "")
        if k == "floats":
            return f"{self.min_len} to {self.max_len} comma-separated numbers in {rng}"
        if k == "int":
            ends = (
                "-inf" if self.lo is None else f"{int(self.lo):,}",
                "inf" if self.hi is None else f"{int(self.hi):,}",
            )
            return f"a whole number in [{ends[0]}, {ends[1]}{')' if self.hi is None else ']'}"
        return f"a number in {rng}"

    def admits(self, value) -> bool:
        """Whether one value is a canonical value of the parameter (a widget's grid point or option): it
        passes :func:`check_value` unchanged (a number in range, a choice's identifier, not its label)."""
        try:
            return check_value("value", self, value) == value
        except InputError:
            return False

    def label_of(self, value) -> str:
        """The plain-words label of a choice (the value itself when it has none)."""
        return dict(self.labels).get(value, str(value))


class Constraint:
    """What values one scenario input accepts, declared once (in the manner of scikit-learn's
    ``Interval`` and ``StrOptions``): the URL parser, the Python check, the widgets' ranges and the
    CLI derive from it through the :class:`Spec` it resolves to. Subclasses: :class:`Interval`,
    :class:`Options`, :class:`Subset`, :class:`Numbers`, :class:`Boolean`, :class:`Text`."""

    def spec_fields(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError


_CLOSED = ("both", "left", "right", "neither")


@dataclass(frozen=True)
class Interval(Constraint):
    """A number of type ``kind`` (``int`` or ``float``) between ``lo`` and ``hi`` (``None``: unbounded);
    ``closed`` says which ends belong to it, as in scikit-learn: ``"both"`` [lo, hi], ``"left"``
    [lo, hi), ``"right"`` (lo, hi], ``"neither"`` (lo, hi). ``allow_inf`` admits +∞ (e.g. "no demand").

    The same object validates a scenario field (through :func:`param`) and a core function's argument
    (:meth:`check`); a page narrows a shared one (:data:`EPS`, :data:`DELTA`, …) with :meth:`narrow`."""

    kind: type
    lo: float | None
    hi: float | None
    closed: str = "both"
    allow_inf: bool = False

    def __post_init__(self):
        if self.closed not in _CLOSED:
            raise AssertionError(f"Interval.closed must be one of {_CLOSED}; got {self.closed!r}")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise AssertionError(f"Interval: lo {self.lo} > hi {self.hi}")

    @property
    def lo_open(self) -> bool:
        return self.closed in ("right", "neither")

    @property
    def hi_open(self) -> bool:
        return self.closed in ("left", "neither")

    def spec_fields(self) -> dict:
        return {
            "kind": self.kind.__name__,
            "lo": self.lo,
            "hi": self.hi,
            "lo_open": self.lo_open,
            "hi_open": self.hi_open,
            "allow_inf": self.allow_inf,
        }

    def narrow(
        self, lo: float | None = None, hi: float | None = None, *, closed: str | None = None, finite: bool = False
    ) -> Interval:
        """The same constraint on a smaller range (a page's slider range of a shared quantity);
        ``finite`` drops +∞. Widening it is a programming error: every value a page accepts must
        satisfy the shared rule."""
        lo_ = self.lo if lo is None else lo
        hi_ = self.hi if hi is None else hi
        closed_ = self.closed if closed is None else closed
        out = Interval(self.kind, lo_, hi_, closed=closed_, allow_inf=self.allow_inf and not finite)
        if not self.contains_interval(out):
            raise AssertionError(f"Interval {out.text()} is not inside the shared {self.text()}")
        return out

    def contains_interval(self, other: Interval) -> bool:
        """Whether every value ``other`` accepts is accepted here."""

        def below(a, a_open, b, b_open):  # lower end a (of self) admits everything from lower end b
            if a is None:
                return True
            if b is None:
                return False
            return a < b or (a == b and (not a_open or b_open))

        def above(a, a_open, b, b_open):
            if a is None:
                return True
            if b is None:
                return False
            return a > b or (a == b and (not a_open or b_open))

        ends = below(self.lo, self.lo_open, other.lo, other.lo_open) and above(
            self.hi, self.hi_open, other.hi, other.hi_open
        )
        return ends and (self.allow_inf or not other.allow_inf)

    def text(self) -> str:
        """The interval in mathematical notation, e.g. ``(0, 1)``."""
        return _interval_text(self.lo, self.hi, self.lo_open, self.hi_open, self.allow_inf)

    def check(self, name: str, value: Any, *, what: str = "") -> float | int:
        """Validate a core function's argument against this constraint; returns it as a float (an int
        for ``int`` intervals). Raises :class:`InputError` naming the parameter, the rule, the value and
        the fix (the message of :func:`hetdp_core.framework._validate.check_real`)."""
        if self.kind is int:  # whole numbers: an open end excludes the end itself
            lo = None if self.lo is None else int(math.floor(self.lo)) + 1 if self.lo_open else int(math.ceil(self.lo))
            hi = None if self.hi is None else int(math.ceil(self.hi)) - 1 if self.hi_open else int(math.floor(self.hi))
            return check_int(name, value, lo=lo, hi=hi, what=what)
        bounds = {k: v for k, v in self.spec_fields().items() if k != "kind"}  # lo, hi, their ends, allow_inf
        return check_real(name, value, **bounds, what=what)

    def check_vector(self, name: str, values: Any, **sizes) -> np.ndarray:
        """Validate a core function's vector argument: every entry in this interval, and the sizes and
        wording :func:`hetdp_core.framework._validate.check_vector` takes (``length``, ``min_length``, ``max_length``,
        ``what``); returns a 1-D float64 array, with that function's messages."""
        bounds = {k: v for k, v in self.spec_fields().items() if k != "kind"}
        return check_vector(name, values, **sizes, **bounds)

    def check_matrix(self, name: str, values: Any, *, shape: tuple = (None, None), what: str = "") -> np.ndarray:
        """Validate a core function's matrix argument (rows × columns, ``shape`` with None for any): every
        entry in this closed interval (the messages of :func:`hetdp_core.framework._validate.check_matrix`)."""
        if self.lo_open or self.hi_open or self.allow_inf:
            raise AssertionError(f"check_matrix takes a closed, finite interval; got {self.text()}")
        return check_matrix(name, values, shape=shape, lo=self.lo, hi=self.hi, what=what)


#: A privacy level ε (of local or central DP, or a per-user or per-feature level): below MIN_EPS nothing
#: is learned and 1/ε breaks down; above MAX_EPS e^ε overflows. Pages narrow it to their slider range.
EPS = Interval(float, MIN_EPS, MAX_EPS)
#: The level a core channel runs at (Duchi et al.'s α, M_mean's baseline): any positive level up to MAX_EPS —
#: wider than :data:`EPS` at 0, since a channel may be handed a share ε·a_h of a level.
LEVEL = Interval(float, 0.0, MAX_EPS, closed="right")
#: δ of (ε, δ)-DP: a probability strictly between 0 and 1.
DELTA = Interval(float, 0.0, 1.0, closed="neither")
#: A privacy demand (a per-feature or per-user level that must be met): positive, +∞ for "no demand".
DEMAND = Interval(float, 0.0, MAX_EPS, closed="right", allow_inf=True)
#: zCDP level ρ: positive.
RHO = Interval(float, 0.0, None, closed="neither")
#: A random seed (numpy accepts any non-negative integer; URLs keep to 31 bits).
SEED = Interval(int, 0, 2**31 - 1)
#: A number of repetitions (Monte Carlo trials, simulated releases).
TRIALS = Interval(int, 1, None)
#: A number of people (users, data points).
USERS = Interval(int, 1, None)
#: A positive whole number (a dimension, a number of bins).
COUNT = Interval(int, 1, None)
#: A probability or a fraction: [0, 1].
UNIT = Interval(float, 0.0, 1.0)
#: A value of a user's record, scaled to [−1, 1] (the BCDP pages' data).
SIGNED_UNIT = Interval(float, -1.0, 1.0)
#: A positive number (a scale, a sensitivity, a step size).
POSITIVE = Interval(float, 0.0, None, closed="right")
#: A non-negative number.
NONNEGATIVE = Interval(float, 0.0, None)


@dataclass(frozen=True)
class Options(Constraint):
    """One of a few identifiers; ``options`` is a tuple of identifiers or a mapping identifier →
    label in plain words (widgets show the label; the core and the URL use the identifier)."""

    options: Any

    def spec_fields(self) -> dict:
        if isinstance(self.options, Mapping):
            return {"kind": "choice", "choices": tuple(self.options), "labels": tuple(self.options.items())}
        return {"kind": "choice", "choices": tuple(self.options)}


@dataclass(frozen=True)
class Subset(Constraint):
    """Several of a few identifiers (a comma-separated list in the URL), between 1 and ``max_len``."""

    options: tuple
    max_len: int = 200

    def spec_fields(self) -> dict:
        return {"kind": "choices", "choices": tuple(self.options), "max_len": self.max_len}


@dataclass(frozen=True)
class Numbers(Constraint):
    """A list of numbers, each in ``entries`` (an :class:`Interval`), ``min_len`` to ``max_len`` of
    them; ``allow_inf`` admits +∞ (no demand)."""

    entries: Interval
    max_len: int = 200
    min_len: int = 1
    allow_inf: bool = False

    def spec_fields(self) -> dict:
        return {
            "kind": "floats",
            "lo": self.entries.lo,
            "hi": self.entries.hi,
            "lo_open": self.entries.lo_open,
            "hi_open": self.entries.hi_open,
            "min_len": self.min_len,
            "max_len": self.max_len,
            "allow_inf": self.allow_inf,
        }


@dataclass(frozen=True)
class Boolean(Constraint):
    """On or off (``1``/``0`` in the URL)."""

    def spec_fields(self) -> dict:
        return {"kind": "bool"}


@dataclass(frozen=True)
class Text(Constraint):
    """Free text of at most ``max_len`` characters."""

    max_len: int = 200

    def spec_fields(self) -> dict:
        return {"kind": "text", "max_len": self.max_len}


@dataclass(frozen=True)
class Rule:
    """A rule between several fields of a scenario, declared once (scikit-learn's cross-parameter checks
    in ``validate_params`` play this part): ``holds(values)`` says whether it is met, ``message(values)``
    is the error of :meth:`check` (naming the fields, the rule, the values and the fix), and
    ``repair(values)`` the smallest change of the fields that meets it, with ``note(values)`` saying what
    moved (after the change). The scenario's ``validate`` raises on a broken rule; a page's widgets call
    :func:`adapt` so that a change of one input moves the inputs it bounds instead of failing."""

    name: str
    holds: Any
    message: Any
    repair: Any = None
    note: Any = None

    def check(self, values: Mapping) -> None:
        if not self.holds(values):
            raise InputError(self.message(values))


def adapt(rules: tuple, values: Mapping) -> tuple[dict, list[str]]:
    """``values`` with every broken rule repaired in order (rules without a repair are left to
    ``validate``), and a note per repair in plain words."""
    out, notes = dict(values), []
    for rule in rules:
        if rule.repair is not None and not rule.holds(out):
            out.update(rule.repair(out))
            notes.append(rule.note(out))
    return out, notes


def param(default: Any, constraint: Constraint, label: str = "", **extra) -> Any:
    """A scenario field: its default, its :class:`Constraint`, its name in plain words (messages,
    widgets), optionally other accepted spellings ``synonyms`` and the widget's ``caption`` when it says
    more than the label (use inside a frozen dataclass body). The page's widget takes its range and its
    label from here."""
    if isinstance(default, list):
        default = tuple(default)
    return field(default=default, metadata={"spec": Spec(**constraint.spec_fields(), label=label, **extra)})


def _fmt(v: float) -> str:
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _what(name: str, spec: Spec) -> str:
    return f"{name} ({spec.label})" if spec.label and spec.label != name else name


def _range(spec: Spec) -> str:
    return _interval_text(spec.lo, spec.hi, spec.lo_open, spec.hi_open, spec.allow_inf)


def _outside(spec: Spec, v: float) -> bool:
    if spec.lo is not None and (v < spec.lo or (spec.lo_open and v == spec.lo)):
        return True
    return spec.hi is not None and (v > spec.hi or (spec.hi_open and v == spec.hi))


def _number(name: str, spec: Spec, v: Any, *, integer: bool = False, entry: str = "") -> float:
    where = f"{_what(name, spec)}{entry}"
    if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
        if isinstance(v, str):
            text = v.strip()
            try:
                v = int(text) if integer and text.lstrip("+-").isdigit() else float(text)
            except ValueError:
                raise InputError(
                    f"{where} must be a number; got {v[:40]!r}. Type digits, e.g. "
                    f"{spec.lo if spec.lo is not None else 1:g}."
                ) from None
        else:
            raise InputError(f"{where} must be a number; got {type(v).__name__}.")
    try:
        v = float(v)
    except OverflowError:  # a digit string beyond 1.8e308
        raise InputError(
            f"{where} must be in {_range(spec)}; got a {len(str(v))}-digit number. Use a value in that range."
        ) from None
    if math.isnan(v):
        raise InputError(f"{where} must be a number; got NaN. Use a value in {_range(spec)}.")
    if math.isinf(v) and not (spec.allow_inf and v > 0):
        raise InputError(f"{where} must be finite; got {_fmt(v)}. Use a value in {_range(spec)}.")
    if integer and math.isfinite(v) and v != round(v):
        raise InputError(f"{where} must be a whole number; got {v:g}. Round it.")
    if math.isfinite(v) and _outside(spec, v):
        raise InputError(f"{where} must be in {_range(spec)}; got {v:g}. Use a value in that range.")
    return v


def _numbers_array(name: str, spec: Spec, arr: np.ndarray) -> tuple:
    """:func:`check_value` of a ``floats`` parameter given as a 1-D numeric array (millions of entries from
    a file): the same rules and messages, the first bad entry found with numpy instead of one by one."""
    if not spec.min_len <= arr.size <= spec.max_len:
        raise InputError(
            f"{_what(name, spec)} needs {spec.min_len} to {spec.max_len} entries; got {arr.size}. Give between "
            f"{spec.min_len} and {spec.max_len} numbers."
        )
    x = arr.astype(float)
    fin = np.isfinite(x)
    ok = fin | ((x == np.inf) & spec.allow_inf)
    if spec.lo is not None:
        ok &= ~fin | ((x > spec.lo) if spec.lo_open else (x >= spec.lo))
    if spec.hi is not None:
        ok &= ~fin | ((x < spec.hi) if spec.hi_open else (x <= spec.hi))
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        _number(name, spec, float(x[i]), entry=f" entry {i + 1}")  # raises the entry's message
    return tuple(x.tolist())


def split_list(name: str, text: str) -> list[str]:
    """The entries of a comma-separated list, stripped — the one list reader of the URL, the widgets
    and the CLI (blank text: no entries). An empty entry (``0.2,,1``) raises :class:`InputError`."""
    parts = [p.strip() for p in str(text).split(",")]
    if parts == [""]:
        return []
    if "" in parts:
        raise InputError(
            f"{name} has an empty entry in {str(text)[:40]!r}; separate the entries by single commas, e.g. 0.2,0.5,2."
        )
    return parts


def check_value(name: str, spec: Spec, value: Any) -> Any:
    """Parse (from URL text) or validate (a Python value) one parameter; returns the canonical value
    (float, int, str, bool or tuple of floats). Raises :class:`InputError` naming the parameter,
    the rule, the value and the fix."""
    if isinstance(value, str) and len(value) > MAX_QUERY_VALUE:
        raise InputError(
            f"{_what(name, spec)} is {len(value)} characters long; at most {MAX_QUERY_VALUE} are accepted. Shorten it."
        )
    if spec.optional and (value is None or (isinstance(value, str) and value.strip().lower() in ("", "auto"))):
        return None
    k = spec.kind
    if k == "float":
        return _number(name, spec, value)
    if k == "int":
        return int(_number(name, spec, value, integer=True))
    if k == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
            return False
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
        raise InputError(f"{_what(name, spec)} must be 1 or 0 (true/false); got {str(value)[:40]!r}.")
    if k == "choice":
        text = str(value).strip()
        spellings = {a.lower(): c for a, c in spec.synonyms} | {lab.lower(): c for c, lab in spec.labels}
        text = spellings.get(text.lower(), text) if text not in spec.choices else text
        if text not in spec.choices:
            raise InputError(
                f"{_what(name, spec)} must be one of {', '.join(map(str, spec.choices))}; got {text[:40]!r}."
            )
        return text
    if k == "text":
        text = str(value)
        if len(text) > spec.max_len:
            raise InputError(f"{_what(name, spec)} has {len(text)} characters; at most {spec.max_len}.")
        return text
    if k == "choices":
        items = split_list(_what(name, spec), value) if isinstance(value, str) else [str(v) for v in value]
        bad = [p for p in items if p not in spec.choices]
        if bad:
            raise InputError(
                f"{_what(name, spec)} has unknown entries {', '.join(b[:20] for b in bad[:5])}; choose from "
                f"{', '.join(spec.choices)}."
            )
        if not spec.min_len <= len(items) <= spec.max_len:
            raise InputError(
                f"{_what(name, spec)} needs {spec.min_len} to {spec.max_len} entries; got {len(items)}. "
                f"Choose from {', '.join(spec.choices)}."
            )
        return tuple(items)
    if k == "floats" and isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and value.ndim == 1:
        return _numbers_array(name, spec, value)  # a long list read from a file: checked vectorised
    if k == "floats":
        if isinstance(value, str):
            parts = split_list(_what(name, spec), value)
        else:
            try:
                parts = list(value)
            except TypeError:
                parts = [value]
        if not spec.min_len <= len(parts) <= spec.max_len:
            raise InputError(
                f"{_what(name, spec)} needs {spec.min_len} to {spec.max_len} entries; got "
                f"{len(parts)}. Give between {spec.min_len} and {spec.max_len} comma-separated numbers."
            )
        return tuple(_number(name, spec, p, entry=f" entry {i + 1}") for i, p in enumerate(parts))
    raise AssertionError(f"unknown spec kind {k!r}")  # a programming error, not input


def dump_value(spec: Spec, value: Any) -> str:
    """The URL text of a canonical value (round-trips through :func:`check_value`)."""
    if value is None:  # an optional value left unset
        return ""
    if spec.kind == "bool":
        return "1" if value else "0"
    if spec.kind == "float":
        return _fmt(value)
    if spec.kind == "floats":
        return ",".join(_fmt(v) for v in value)
    if spec.kind == "choices":
        return ",".join(value)
    return str(value)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
