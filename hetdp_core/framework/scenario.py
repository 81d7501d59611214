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

from ..reading.meaning import Meaning
from . import constraints as _constraints
from ._doc import document
from ._validate import InputError
from .constraints import (  # noqa: F401 (re-exported: scenario modules import the vocabulary from here)
    COUNT,
    DELTA,
    DEMAND,
    EPS,
    LEVEL,
    MAX_PIN_LENGTH,
    MAX_QUERY_VALUE,
    NONNEGATIVE,
    POSITIVE,
    RHO,
    SEED,
    SIGNED_UNIT,
    TRIALS,
    UNIT,
    USERS,
    Boolean,
    Constraint,
    Interval,
    Numbers,
    Options,
    Rule,
    Spec,
    Subset,
    Text,
    adapt,
    check_value,
    dump_value,
    param,
    split_list,
)

__all__ = [  # the constraint vocabulary (re-exported from hetdp_core.framework.constraints), then the scenario's own
    *_constraints.__all__,
    "InputError",
    "Question",
    "Scenario",
    "Result",
    "table",
    "log_grid",
    "Budget",
    "Cost",
    "PAGE_BUDGET",
    "LARGE_BUDGET",
    "check_budget",
    "PRIOR_GRID",
    "with_meaning",
    "levels_of",
    "READING",
    "FPR_GRID",
    "page_run",
    "page_quick",
    "PENDING",
    "partial_result",
    "pending_fields",
    "in_short",
    "RunOptions",
    "DEFAULT_OPTIONS",
]


def log_grid(lo: float, hi: float, per_decade: int = 12, extra=()) -> tuple[float, ...]:
    """A log-spaced slider grid from lo to hi (3 significant digits), plus ``extra`` values."""
    k = int(round(per_decade * math.log10(hi / lo)))
    import numpy as np

    vals = {float(f"{v:.3g}") for v in np.logspace(math.log10(lo), math.log10(hi), k + 1)}
    vals.update(float(e) for e in extra)
    return tuple(sorted(vals))


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
class Question:
    """A typed, validated set of inputs: a frozen dataclass of :func:`param` fields. Construction
    validates every field against its spec, then :meth:`validate` checks the rules that involve several
    fields (:attr:`RULES`); both raise :class:`InputError`. :meth:`from_query` reads it from text (a URL
    query, command-line flags), :meth:`to_query` writes it back. A page's :class:`Scenario` is one; so is
    the input of a command of ``hetdp <verb> <name>`` (:class:`hetdp_core.framework.commands.Command`)."""

    #: old parameter names → field names (a renamed parameter keeps old links and command lines working)
    ALIASES: ClassVar[dict] = {}

    def __post_init__(self):
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, check_value(f.name, f.metadata["spec"], getattr(self, f.name)))
        self.validate()

    #: rules between fields (:class:`~hetdp_core.framework.constraints.Rule`), checked by :meth:`validate` and
    #: repaired by a page's widgets through :func:`~hetdp_core.framework.constraints.adapt`: one declaration each
    RULES: ClassVar[tuple] = ()

    def validate(self) -> None:
        """Cross-field rules: every rule of :attr:`RULES` (override to add checks a rule cannot state)."""
        if self.RULES:
            values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
            for rule in self.RULES:
                rule.check(values)

    @classmethod
    def specs(cls) -> dict[str, Spec]:
        """Field name → spec, in declaration order."""
        return {f.name: f.metadata["spec"] for f in dataclasses.fields(cls)}

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
        """The question a query string describes (missing fields take their defaults; keys that are not
        fields are ignored). Any bad value raises :class:`InputError` naming it."""
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


class _FromPageSpec:
    """A scenario class's ``PAGE`` or ``TITLE``: that field of the ``PAGE_SPEC`` of its module (or of the
    module of the nearest base class that has one), looked up when read."""

    def __init__(self, field: str):
        self.field = field

    def __get__(self, obj, owner) -> str:
        import sys

        for cls in owner.__mro__:
            spec = getattr(sys.modules.get(cls.__module__), "PAGE_SPEC", None)
            if spec is not None:
                return getattr(spec, self.field)
        return ""


@dataclass(frozen=True)
class Scenario(Question):
    """Base of every page's scenario: the :class:`Question` a page asks and its ``run`` answers
    (subclasses are frozen dataclasses of :func:`param` fields). Every scenario has ``prior``, the
    attacker's prior probability with which the page's privacy levels are read as a posterior, and
    ``fpr``, the false-positive rate at which they are read as an attack's true-positive rate (table
    ``privacy_meaning``), so a link and ``hetdp run`` give every number the page shows; neither
    changes what ``run`` computes (:data:`READING`)."""

    prior: float = param(0.01, Interval(float, 0.001, 0.5), "attacker's prior p")
    fpr: float = param(0.01, Interval(float, 0.0001, 0.5), "attack false-positive rate")

    #: the page's URL path (e.g. "My_page") and title, read from its module's ``PAGE_SPEC`` when asked (the
    #: spec may come before or after the class); "" for a scenario outside a page's module
    PAGE: ClassVar[str] = _FromPageSpec("url")
    TITLE: ClassVar[str] = _FromPageSpec("title")
    #: fields a preset leaves free: a variant of the same setup (how it is computed, e.g. the published
    #: versus the corrected mechanism), so changing one keeps the preset's name
    VARIANTS: ClassVar[tuple] = ()

    def estimate(self) -> Cost:
        """The run's estimated cost (override for pages with heavy computations)."""
        return Cost()

    @classmethod
    def specs(cls) -> dict[str, Spec]:
        """Field name → spec, the page's own fields first and the shared ``prior`` last."""
        fields = super().specs()
        return {n: v for n, v in fields.items() if n not in READING} | {n: fields[n] for n in READING}


def table(what: str, *, optional: bool = False) -> dataclasses.Field:
    """A download table of a page's result, declared as a typed field (``pandas.DataFrame``) whose name
    is the table's CSV name (``<name>.csv``, the key of ``hetdp run --json``'s ``tables``); ``what`` says
    what it holds. An ``optional`` table (default None) is one that some views do not have."""
    meta = {"table": what}
    return field(default=None, metadata=meta) if optional else field(metadata=meta)


@dataclass(frozen=True)
class Result:
    """What a page's run computed: the scenario, the download tables, the guarantee checks it verified
    and messages to show. Each page subclasses it (``kw_only``) with typed attributes for everything
    its page renders — its tables as fields declared with :func:`table` (the field's name is the CSV's
    name) and the rest as typed, documented attributes — so pages, reports and the CLI read named
    fields instead of string keys. ``meaning`` is what the page's levels mean for a person
    (:class:`hetdp_core.reading.meaning.Meaning`, set by :func:`with_meaning`; its table is ``privacy_meaning``);
    ``tables_`` holds the tables of a page that declares none."""

    scenario: Scenario
    tables_: dict = field(default_factory=dict)
    checks: tuple = ()
    notes: tuple = ()
    meaning: Meaning | None = None

    @classmethod
    def table_names(cls) -> tuple[str, ...]:
        """The tables this result class declares (:func:`table`), in order."""
        return tuple(f.name for f in dataclasses.fields(cls) if "table" in f.metadata)

    def tables(self) -> dict:
        """Every table this view has, name → DataFrame: the declared ones, then ``tables_``, then
        ``privacy_meaning`` (the :attr:`meaning`'s table)."""
        declared = {n: getattr(self, n) for n in self.table_names()}
        out = {**{n: t for n, t in declared.items() if t is not None}, **self.tables_}
        if self.meaning is not None:
            out["privacy_meaning"] = self.meaning.table()
        return out


def page_module(scenario: Scenario):
    """The module that defines ``scenario``'s class: for a page, its scenario module (``levels``,
    ``summarize``, ``PAGE_SPEC``)."""
    import sys

    return sys.modules[type(scenario).__module__]


def levels_of(result: Result) -> list:
    """The privacy levels ``result``'s page states (its module's ``levels``; a list of
    :class:`hetdp_core.reading.meaning.Level`), or none."""
    from .registry import hook

    levels = hook(page_module(result.scenario), "levels")
    return [] if levels is None else list(levels(result))


def with_meaning(result: Result, prior: float | None = None) -> Result:
    """``result`` with its :attr:`~Result.meaning`: the page's levels (its module's ``levels``) read as
    an attacker's worst-case posterior from ``prior`` (default: the scenario's ``prior``) and as risk in
    attack terms; none when the page states no level (:func:`hetdp_core.reading.meaning.meaning_of`)."""
    from ..reading.meaning import meaning_of

    levels = levels_of(result)
    prior = result.scenario.prior if prior is None else prior
    meaning = meaning_of(levels, prior=prior, fpr=result.scenario.fpr) if levels else None
    return dataclasses.replace(result, meaning=meaning)


def in_short(result: Result, meaning: Meaning | None = None) -> tuple[str, ...]:
    """The run in a few plain sentences, the same on the page, in its report and from ``hetdp run``:
    whether every guarantee check held, the page's own findings (its module's ``summarize``) and the
    most exposed level in words (from ``meaning``, default the result's :attr:`~Result.meaning`)."""
    lines = [
        "Every guarantee this page states was checked before display and holds."
        if all(c.holds for c in result.checks)
        else "A guarantee check FAILED (a numerical failure of this software; see the checks): do not rely on "
        "this view."
    ]
    lines += page_module(result.scenario).summarize(result)
    from ..reading.words import most_exposed

    worst = most_exposed(result.meaning if meaning is None else meaning)
    return tuple(lines) if worst is None else (*lines, worst)


class _Pending:
    """The value of a result's field that its page's quick part has not computed (:data:`PENDING`)."""

    def __repr__(self) -> str:
        return "PENDING"

    def __reduce__(self):  # one value in every process (a partial result crossing a pipe stays partial)
        return "PENDING"


#: a field of a partial result (:func:`partial_result`) that the page's run computes and its quick part does not
PENDING = _Pending()


def partial_result(cls: type, scenario: Scenario, *, pending: tuple[str, ...], **known) -> Result:
    """A result of the page's result class ``cls`` for ``scenario`` whose fields ``pending`` are
    :data:`PENDING` (the page's run computes them) and whose other fields are ``known`` (or their
    defaults). A page's quick part returns one; its run fills in the rest (``dataclasses.replace``), so
    every field the quick part computed is the run's own."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "scenario"}
    unknown = (set(known) | set(pending)) - set(fields)
    both = set(known) & set(pending)
    missing = [
        n
        for n, f in fields.items()
        if n not in known
        and n not in pending
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if unknown or both or missing:
        raise TypeError(
            f"{cls.__name__}: fields unknown {sorted(unknown)}, both known and pending {sorted(both)}, "
            f"neither {missing}"
        )
    return cls(scenario=scenario, **known, **dict.fromkeys(pending, PENDING))


def pending_fields(result: Result) -> tuple[str, ...]:
    """The fields of ``result`` still :data:`PENDING` (none for a run's result)."""
    return tuple(f.name for f in dataclasses.fields(result) if getattr(result, f.name) is PENDING)


def _page_call(fn, scenario, options: RunOptions | None):
    """(the page module of ``fn``, the options to call it with): ``options`` defaults to
    :data:`DEFAULT_OPTIONS`; a scenario of another page or options of another type are programming errors
    (``TypeError``), an upload to a page that takes none an input error."""
    import sys

    module = sys.modules[fn.__module__]
    options = DEFAULT_OPTIONS if options is None else options
    if not isinstance(options, RunOptions):
        raise TypeError(f"options must be a RunOptions; got {type(options).__name__}")
    if not isinstance(scenario, module.SCENARIO):
        raise TypeError(
            f"{module.__name__}.{fn.__name__} needs a {module.SCENARIO.__name__}; got {type(scenario).__name__}"
        )
    spec = module.PAGE_SPEC
    if options.upload is not None and not spec.upload:
        raise InputError(
            f"upload: {spec.title} takes no data file; got {len(options.upload):,} bytes. Drop the file "
            "(pages that take one say so under their data source)."
        )
    return module, options


def page_quick(quick):
    """Decorator of a page's ``quick(scenario, *, options)``, the cheap part of its run — the guarantee
    checks, the analytic curves and every input check of the run (on Group-wise zCDP, whose analytic part
    is the costly one, its few simulated releases too) — which the app shows first (:func:`partial_result`;
    the page's ``run`` builds on it). Arguments are checked as by :func:`page_run`; an input the run would
    refuse is refused here."""
    import functools

    @functools.wraps(quick)
    def wrapped(scenario, *, options: RunOptions | None = None):
        _, options = _page_call(quick, scenario, options)
        return quick(scenario, options=options)

    return wrapped


def page_run(run):
    """Decorator of a page's ``run(scenario, *, options)``: ``options`` defaults to
    :data:`DEFAULT_OPTIONS`; an upload is refused by a page that takes none (its ``PageSpec.upload``);
    the result carries ``privacy_meaning`` (:func:`with_meaning`). A scenario of another page or
    options of another type are programming errors (``TypeError``), not input."""
    import functools

    @functools.wraps(run)
    def wrapped(scenario, *, options: RunOptions | None = None):
        module, options = _page_call(run, scenario, options)
        result = run(scenario, options=options)
        left = pending_fields(result)
        if left:  # a run that forgot a field its quick part left to it: a programming error
            raise RuntimeError(f"{module.__name__}.run left fields {', '.join(left)} uncomputed")
        return with_meaning(result)

    return wrapped


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
