"""Scenarios: one typed, validated question per page, serialised as the page's URL query string.

A scenario is a frozen dataclass whose fields are declared once with :func:`param` and a
:class:`Constraint` (:class:`Interval`, :class:`Options`, :class:`Subset`, :class:`Numbers`,
:class:`Boolean`, :class:`Text`), resolved to a :class:`Spec`. The *same* spec parses a URL
parameter, validates a value set in Python, bounds the page's widget and the CLI's ``--query`` /
``--set`` — one definition, one limit and one message per input. ``run(scenario, *, options)`` in
the page's module (:mod:`hetdp_core.scenarios`) computes everything the page shows — how it runs is
a :class:`RunOptions` — and returns the page's subclass of :class:`Result`, whose
:meth:`Result.tables` are exactly the tables the page offers for download; :func:`in_short` says
what it found in a few sentences.

Serialisation: ``to_query()`` writes every field (floats with ``repr`` so that they round-trip
exactly, ``inf`` for +∞, lists comma-separated, booleans ``1``/``0``); ``from_query(mapping)``
accepts a ``dict`` of strings (or of lists of strings, as ``urllib.parse.parse_qs`` returns) and
ignores keys that are not fields (UI-only parameters such as ``preset``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._doc import document
from ._validate import InputError

__all__ = [
    "InputError",
    "Spec",
    "param",
    "Constraint",
    "Interval",
    "Options",
    "Subset",
    "Numbers",
    "Boolean",
    "Text",
    "Scenario",
    "Result",
    "MAX_QUERY_VALUE",
    "MAX_PIN_LENGTH",
    "log_grid",
    "check_value",
    "split_list",
    "dump_value",
    "Budget",
    "Cost",
    "PAGE_BUDGET",
    "LARGE_BUDGET",
    "check_budget",
    "PRIOR_GRID",
    "with_meaning",
    "READING",
    "FPR_GRID",
    "page_run",
    "in_short",
    "RunOptions",
    "DEFAULT_OPTIONS",
]

#: Longest accepted value of one query parameter (characters); longer ones are refused unread.
MAX_QUERY_VALUE = 20_000
#: Longest accepted pinned plan A (``pin=``): a whole query string of a scenario.
MAX_PIN_LENGTH = 8 * MAX_QUERY_VALUE


def log_grid(lo: float, hi: float, per_decade: int = 12, extra=()) -> tuple[float, ...]:
    """A log-spaced slider grid from lo to hi (3 significant digits), plus ``extra`` values."""
    k = int(round(per_decade * math.log10(hi / lo)))
    import numpy as np

    vals = {float(f"{v:.3g}") for v in np.logspace(math.log10(lo), math.log10(hi), k + 1)}
    vals.update(float(e) for e in extra)
    return tuple(sorted(vals))


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


@dataclass(frozen=True)
class Interval(Constraint):
    """A number of type ``kind`` (``int`` or ``float``) in the closed interval [lo, hi]."""

    kind: type
    lo: float | None
    hi: float | None

    def spec_fields(self) -> dict:
        return {"kind": self.kind.__name__, "lo": self.lo, "hi": self.hi}


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


def param(default: Any, constraint: Constraint, label: str = "", **extra) -> Any:
    """A scenario field: its default, its :class:`Constraint`, its name in plain words (messages,
    widgets) and optionally other accepted spellings ``synonyms`` (use inside a frozen dataclass body)."""
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
    lo = "-inf" if spec.lo is None else f"{spec.lo:g}"
    hi = "inf" if spec.hi is None else f"{spec.hi:g}"
    return f"[{lo}, {hi}]"


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
    if math.isfinite(v) and ((spec.lo is not None and v < spec.lo) or (spec.hi is not None and v > spec.hi)):
        raise InputError(f"{where} must be in {_range(spec)}; got {v:g}. Use a value in that range.")
    return v


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
    if spec.kind == "bool":
        return "1" if value else "0"
    if spec.kind == "float":
        return _fmt(value)
    if spec.kind == "floats":
        return ",".join(_fmt(v) for v in value)
    if spec.kind == "choices":
        return ",".join(value)
    return str(value)


#: the sweep-size "limit" when there is none (more random numbers than any run could draw)
NO_CELL_LIMIT = 10**18


@dataclass(frozen=True)
class Budget:
    """What one request may cost: wall-clock seconds on the 2-core reference machine and memory."""

    seconds: float
    bytes: int
    name: str = "page"
    #: random numbers one Monte Carlo sweep may draw (≈ 5 ns each on two cores); None: no such limit
    cells: int | None = None

    @property
    def max_cells(self) -> int:
        """The sweep-size limit in random numbers (a huge number when there is none)."""
        return NO_CELL_LIMIT if self.cells is None else self.cells


#: The per-request budget of the app (and of ``hetdp run`` by default): about 10 s and 1 GiB, so a
#: few hostile requests cannot take down a server that a whole class is using.
PAGE_BUDGET = Budget(seconds=10.0, bytes=2**30, name="page", cells=1_500_000_000)
#: ``hetdp run --budget large``: for deliberate long runs on your own machine.
LARGE_BUDGET = Budget(seconds=3600.0, bytes=16 * 2**30, name="large", cells=50_000_000_000)


@dataclass(frozen=True)
class RunOptions:
    """How a page's ``run(scenario, *, options)`` is carried out — never what it computes (a
    scenario's numbers are the same under any options; each sweep point draws its own stream).

    Attributes
    ----------
    budget : Budget or None
        The request's compute budget, checked against the scenario's estimate before the run and
        bounding the Monte Carlo size while it runs (``budget.cells``); None: no limit.
    executor : object with ``map`` or None
        Where the sweep points run (a ``concurrent.futures`` pool, a Dask-backed executor); None: here.
    progress : callable(fraction, label) or None
        Called with the share done and the point being computed.
    upload : bytes or None
        An uploaded CSV for pages whose data source is ``upload`` (``PageSpec.upload``); a page that
        takes no data refuses it.
    """

    budget: Budget | None = PAGE_BUDGET
    executor: Any = None
    progress: Callable[[float, str], None] | None = None
    upload: bytes | None = None

    @property
    def max_cells(self) -> int:
        """The sweep-size limit of :attr:`budget` in random numbers."""
        return NO_CELL_LIMIT if self.budget is None else self.budget.max_cells


#: the options of a page view in the app: the page's budget, computed here, no upload
DEFAULT_OPTIONS = RunOptions()


@dataclass(frozen=True)
class Cost:
    """An estimate of a run's cost, made from the scenario alone before anything is computed
    (constants measured on the 2-core reference machine; see ``benchmarks/``). ``driver`` names what
    dominates, in the page's words, so a refusal can say what to reduce."""

    seconds: float = 0.0
    bytes: int = 0
    driver: str = ""
    #: random numbers the run's Monte Carlo sweep draws (compared with ``Budget.cells``)
    cells: int = 0

    def __add__(self, other: Cost) -> Cost:
        drv = self.driver if self.seconds >= other.seconds else other.driver
        return Cost(self.seconds + other.seconds, self.bytes + other.bytes, drv, self.cells + other.cells)


def check_budget(scenario, budget: Budget | None, cost: Cost | None = None) -> Cost:
    """Refuse a scenario whose estimated cost (``scenario.estimate()`` unless ``cost`` is given)
    exceeds ``budget`` (None: no limit) with an InputError that says what it would cost, the limit
    and what to reduce."""
    cost = scenario.estimate() if cost is None else cost
    if budget is None:
        return cost
    over = []
    if cost.seconds > budget.seconds:
        over.append(f"about {cost.seconds:.0f} s of computation (limit {budget.seconds:g} s)")
    if cost.bytes > budget.bytes:
        over.append(f"about {cost.bytes / 2**30:.1f} GiB of memory (limit {budget.bytes / 2**30:g} GiB)")
    if cost.cells > budget.max_cells:
        over.append(f"{cost.cells:.3g} random numbers (limit {budget.max_cells:.3g})")
    if over:
        raise InputError(
            f"compute budget: this request needs {' and '.join(over)}, driven by {cost.driver}. "
            "Reduce those inputs"
            + (" (or run it with `hetdp run … --budget large`)." if budget.name == "page" else ".")
        )
    return cost


#: the fields every scenario has that only change how its levels are read (table ``privacy_meaning``),
#: never what ``run`` computes: the attacker's prior and the attack's false-positive rate
READING = ("prior", "fpr")
#: the false-positive rates the pages offer (the ``fpr`` field)
FPR_GRID = (0.0001, 0.001, 0.01, 0.05, 0.1)
#: prior probabilities offered for "what does this level mean for a person" (the ``prior`` field)
PRIOR_GRID = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)


@dataclass(frozen=True)
class Scenario:
    """Base of every page's scenario (subclasses are frozen dataclasses of :func:`param` fields).

    Construction validates every field against its spec, then :meth:`validate` checks rules that
    involve several fields; both raise :class:`InputError`. Every scenario has ``prior``, the
    attacker's prior probability with which the page's privacy levels are read as a posterior, and
    ``fpr``, the false-positive rate at which they are read as an attack's true-positive rate (table
    ``privacy_meaning``), so a link and ``hetdp run`` give every number the page shows; neither
    changes what ``run`` computes (:data:`READING`)."""

    prior: float = param(0.01, Interval(float, 0.001, 0.5), "attacker's prior p")
    fpr: float = param(0.01, Interval(float, 0.0001, 0.5), "attack false-positive rate")

    #: the page's URL path (e.g. "Feature_privacy") and title, from its module's ``PAGE_SPEC``
    PAGE: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    #: old URL parameter names → field names (a renamed parameter keeps old links working)
    ALIASES: ClassVar[dict] = {}
    #: fields a preset leaves free: a variant of the same setup (how it is computed, e.g. the published
    #: versus the corrected mechanism), so changing one keeps the preset's name
    VARIANTS: ClassVar[tuple] = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        import sys

        spec = getattr(sys.modules.get(cls.__module__), "PAGE_SPEC", None)
        if spec is not None:  # a page's scenario: named by its one declaration
            cls.PAGE, cls.TITLE = spec.url, spec.title

    def __post_init__(self):
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, check_value(f.name, f.metadata["spec"], getattr(self, f.name)))
        self.validate()

    def validate(self) -> None:
        """Cross-field rules (override)."""

    def estimate(self) -> Cost:
        """The run's estimated cost (override for pages with heavy computations)."""
        return Cost()

    @classmethod
    def specs(cls) -> dict[str, Spec]:
        """Field name → spec, the page's own fields first and the shared ``prior`` last."""
        fields = {f.name: f.metadata["spec"] for f in dataclasses.fields(cls)}
        return {n: v for n, v in fields.items() if n not in READING} | {n: fields[n] for n in READING}

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def _flat(cls, query: Mapping) -> dict[str, str]:
        out = {}
        for k, v in query.items():
            if isinstance(v, (list, tuple)):
                if not v:
                    continue
                v = v[-1]
            out[str(k)] = v
        for old, new in cls.ALIASES.items():  # an old name counts unless the new one is given
            if old in out and new not in out:
                out[new] = out[old]
        return out

    @classmethod
    def from_query(cls, query: Mapping):
        """The scenario a URL query string describes (missing fields take their defaults; keys that
        are not fields are ignored). Any bad value raises :class:`InputError` naming it."""
        q = cls._flat(query)
        values = cls.defaults()
        for name, spec in cls.specs().items():
            if name in q:
                values[name] = check_value(name, spec, q[name])
        return cls(**values)

    def to_query(self) -> dict[str, str]:
        return {name: dump_value(spec, getattr(self, name)) for name, spec in self.specs().items()}

    def query_string(self) -> str:
        from urllib.parse import urlencode

        return urlencode(self.to_query())


@dataclass(frozen=True)
class Result:
    """What a page's run computed: the scenario, the download tables (name → DataFrame; the page's
    CSV file is ``<name>.csv``), the guarantee checks it verified and messages to show. Each page
    subclasses it (``kw_only``) with typed attributes for everything else its page renders, so pages,
    reports and the CLI read named, documented fields instead of string keys."""

    scenario: Scenario
    tables_: dict = field(default_factory=dict)
    checks: tuple = ()
    notes: tuple = ()

    def tables(self) -> dict:
        return dict(self.tables_)


def page_module(scenario: Scenario):
    """The module that defines ``scenario``'s class: for a page, its scenario module (``levels``,
    ``summarize``, ``PAGE_SPEC``)."""
    import sys

    return sys.modules[type(scenario).__module__]


def with_meaning(result: Result, prior: float | None = None) -> Result:
    """``result`` with the table ``privacy_meaning``: the page's levels (its module's ``levels``)
    read as an attacker's worst-case posterior from ``prior`` (default: the scenario's ``prior``);
    no table when the page states no level (:func:`hetdp_core.meaning.meaning_table`)."""
    from .meaning import meaning_table

    levels = getattr(page_module(result.scenario), "levels", None)
    tables = {k: v for k, v in result.tables_.items() if k != "privacy_meaning"}
    if levels is not None:
        table = meaning_table(
            levels(result), prior=result.scenario.prior if prior is None else prior, fpr=result.scenario.fpr
        )
        if not table.empty:
            tables["privacy_meaning"] = table
    return dataclasses.replace(result, tables_=tables)


def in_short(result: Result, meaning=None) -> tuple[str, ...]:
    """The run in a few plain sentences, the same on the page, in its report and from ``hetdp run``:
    whether every guarantee check held, the page's own findings (its module's ``summarize``) and the
    most exposed level in words (from ``meaning``, default the result's ``privacy_meaning`` table)."""
    lines = [
        "Every guarantee this page states was checked before display and holds."
        if all(c.holds for c in result.checks)
        else "A guarantee check FAILED (a numerical failure of this software; see the checks): do not rely on "
        "this view."
    ]
    lines += page_module(result.scenario).summarize(result)
    meaning = result.tables_.get("privacy_meaning") if meaning is None else meaning
    if meaning is not None and not meaning.empty:
        col = next(
            c
            for c in ("posterior ≤ (any attacker)", "posterior ≤ (delivered)", "posterior ≤ (demanded)")
            if c in meaning
        )
        key = meaning[col].to_numpy(float)
        if "posterior ≤ (delivered)" in meaning:  # ties (one any-attacker level): the worse model level
            key = key + 1e-6 * meaning["posterior ≤ (delivered)"].to_numpy(float)
        i = int(key.argmax())
        lines.append(f"Most exposed: {meaning['level'].iloc[i]} — {meaning['in words'].iloc[i]}.")
    return tuple(lines)


def page_run(run):
    """Decorator of a page's ``run(scenario, *, options)``: ``options`` defaults to
    :data:`DEFAULT_OPTIONS`; an upload is refused by a page that takes none (its ``PageSpec.upload``);
    the result carries ``privacy_meaning`` (:func:`with_meaning`). A scenario of another page or
    options of another type are programming errors (``TypeError``), not input."""
    import functools
    import sys

    @functools.wraps(run)
    def wrapped(scenario, *, options: RunOptions | None = None):
        module = sys.modules[run.__module__]
        options = DEFAULT_OPTIONS if options is None else options
        if not isinstance(options, RunOptions):
            raise TypeError(f"options must be a RunOptions; got {type(options).__name__}")
        if not isinstance(scenario, module.SCENARIO):
            raise TypeError(f"{module.__name__}.run needs a {module.SCENARIO.__name__}; got {type(scenario).__name__}")
        spec = module.PAGE_SPEC
        if options.upload is not None and not spec.upload:
            raise InputError(
                f"upload: {spec.title} takes no data file; got {len(options.upload):,} bytes. Drop the file "
                "(pages that take one say so under their data source)."
            )
        return with_meaning(run(scenario, options=options))

    return wrapped


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core._doc)
