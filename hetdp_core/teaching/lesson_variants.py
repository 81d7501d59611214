"""Per-student variants of a lesson's number questions: each student gets their own parameters, drawn
from ranges the lesson declares, and the core computes each student's own answer.

A number question may declare ``[steps.question.variants]``: parameters of the step's page (names of
its URL query), each a grid of values::

    [steps.question.variants]
    rho = { low = 0.3, high = 0.7, step = 0.05 }   # low, low + step, …, high
    n = [500, 1000, 2000]                           # or the values themselves

A student's *variant* is one value per parameter (one point of the grid). Their step is the step with
those values put into its query (the page opens at their scenario), ``{rho}`` in the step's text and
the question's prompt, hint, explanation and key replaced by their value, and their answer is the
question's key evaluated on their scenario's tables (:func:`variant_answer`) — the same grammar and
tables as every written answer, so copying a neighbour's number no longer works. Without a class
session a student sees the step as written (its query's own values; the written answer is the one
``hetdp lesson check`` compares with the core).

:func:`check_variants` (part of ``hetdp lesson check``) computes every variant's answer (a grid has at
most :data:`MAX_VARIANTS` points, so every one is checked), and fails a question when one is not a
finite number, when a misconception covers one, or when two variants' answers lie within the
tolerance of each other (a copied answer would be accepted). :func:`draw_variant` gives a student the
least-used variant of the class so far (random among ties), so neighbours differ while there are
variants left.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from urllib.parse import parse_qs, parse_qsl, urlencode

from ..framework._doc import document
from ..framework._validate import InputError, as_generator

__all__ = [
    "VariantParam",
    "VariantCheck",
    "MAX_VARIANTS",
    "parse_variants",
    "combinations",
    "variant_query",
    "variant_step",
    "base_variant",
    "variant_answer",
    "with_answer",
    "draw_variant",
    "variant_id",
    "parse_variant_id",
    "variant_text",
    "with_ranges",
    "relative_error",
    "check_variant_queries",
    "check_variants",
]

#: most grid points of one question (so `hetdp lesson check` computes every variant) and most parameters
MAX_VARIANTS = 64
MAX_PARAMS = 4
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")

GLOSSARY = """
raw | dict | The ``[steps.question.variants]`` table as TOML gives it (parameter name → grid).
variants | tuple of VariantParam | A question's variant parameters and their grids.
variant | dict | One student's variant: parameter name → value (one point of the grid).
taken | Mapping or None | How many students of the class have each variant so far (by :func:`variant_id`).
answer | float | The right answer of a student's variant.
given | float | A student's answer.
query | str | A step's URL query string.
text | str | A variant's identifier, as :func:`variant_id` writes it.
run | callable or None | Runs a scenario and returns its result (e.g. the app's cached run); None: the
    page's own run at ``budget``.
"""


@dataclass(frozen=True)
class VariantParam:
    """One parameter of a question's variants: a name of the step's page query and its values."""

    name: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class VariantCheck:
    """:func:`check_variants`'s verdict: ``ok``, a one-line ``message``, and every variant's answer."""

    ok: bool
    message: str
    answers: tuple[tuple[str, float | None], ...]


def step_scenario(step):
    """The scenario a lesson's step opens (strictly parsed: a bad query raises InputError); also
    :func:`hetdp_core.teaching.lessons.step_scenario`."""
    from ..scenarios import get

    return get(step.page).SCENARIO.from_query(parse_qs(step.query, keep_blank_values=True))


def _fmt(v: float) -> str:
    """A value as it goes into a query and a sentence: whole numbers without a point, else the shortest form."""
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _grid(name: str, spec, where: str) -> tuple[float, ...]:
    w = f"{where}, variants, {name!r}"
    if isinstance(spec, list):
        if not 2 <= len(spec) <= MAX_VARIANTS or not all(_finite(v) for v in spec):
            raise InputError(
                f"{w}: a list must hold 2 to {MAX_VARIANTS} finite numbers; got {str(spec)[:80]}. "
                "Write e.g. [500, 1000, 2000]."
            )
        if len(set(spec)) != len(spec):
            raise InputError(f"{w}: the values must differ from each other; got {spec}.")
        return tuple(float(v) for v in spec)
    if not isinstance(spec, dict):
        raise InputError(
            f"{w}: must be a range {{ low = …, high = …, step = … }} or a list of values; got {str(spec)[:60]!r}."
        )
    extra = [k for k in spec if k not in ("low", "high", "step")]
    if extra or not all(k in spec for k in ("low", "high", "step")):
        raise InputError(f"{w}: a range needs exactly low, high and step; got {sorted(spec)}.")
    low, high, step = spec["low"], spec["high"], spec["step"]
    if not all(_finite(v) for v in (low, high, step)):
        raise InputError(f"{w}: low, high and step must be finite numbers; got {low!r}, {high!r}, {step!r}.")
    if not low < high or not 0 < step <= high - low:
        raise InputError(
            f"{w}: needs low < high and 0 < step ≤ high − low; got low = {low:g}, high = {high:g}, step = {step:g}."
        )
    count = math.floor((high - low) / step + 1e-9) + 1
    if count > MAX_VARIANTS:
        raise InputError(f"{w}: the range has {count} values; at most {MAX_VARIANTS}. Use a larger step.")
    return tuple(float(f"{low + i * step:.12g}") for i in range(count))


def parse_variants(raw, *, where: str) -> tuple[VariantParam, ...]:
    """The variant parameters a question declares, refused with one line naming the lesson, step,
    parameter, rule and fix: 1 to 4 parameters, each a range or a list, at most :data:`MAX_VARIANTS`
    grid points in all. Whether each is a parameter of the step's page is checked by
    :func:`check_variant_queries`."""
    if not isinstance(raw, dict) or not 1 <= len(raw) <= MAX_PARAMS:
        raise InputError(
            f"{where}: 'variants' must be a table of 1 to {MAX_PARAMS} parameters ([steps.question.variants], "
            f"e.g. rho = {{ low = 0.3, high = 0.7, step = 0.05 }}); got {str(raw)[:60]!r}."
        )
    out = []
    for name, spec in raw.items():
        if not _NAME.match(name):
            raise InputError(f"{where}, variants: {name[:40]!r} is not a parameter name (letters, digits, '_').")
        out.append(VariantParam(name, _grid(name, spec, where)))
    total = math.prod(len(p.values) for p in out)
    if total > MAX_VARIANTS:
        raise InputError(
            f"{where}, variants: {total} combinations of the parameters; at most {MAX_VARIANTS}. "
            "Use fewer values or fewer parameters."
        )
    return tuple(out)


def combinations(variants) -> list[dict[str, float]]:
    """Every variant of a question: one value per parameter, in the grid's order."""
    names = [p.name for p in variants]
    return [dict(zip(names, vals)) for vals in itertools.product(*(p.values for p in variants))]


def variant_query(query: str, variant: Mapping[str, float]) -> str:
    """``query`` with each parameter of ``variant`` set to its value (replaced where the query has it,
    appended where it does not), the other parameters kept in their order."""
    pairs = parse_qsl(query, keep_blank_values=True)
    done = set()
    out = []
    for k, v in pairs:
        if k in variant:
            if k in done:
                continue
            v, _ = _fmt(variant[k]), done.add(k)
        out.append((k, v))
    out += [(k, _fmt(v)) for k, v in variant.items() if k not in done]
    return urlencode(out)


def _filler(variant: Mapping[str, float]) -> Callable[[str], str]:
    if not variant:
        return lambda s: s
    pattern = re.compile(r"\{(" + "|".join(map(re.escape, variant)) + r")\}")
    return lambda s: pattern.sub(lambda m: _fmt(variant[m.group(1)]), s) if s else s


def variant_step(step, variant: Mapping[str, float]):
    """The step a student with ``variant`` sees: their values in its query, and ``{name}`` in its text,
    the question's prompt, hint, explanation, key and misconceptions' explanations replaced by them.
    The question's ``answer`` is still the written one: :func:`with_answer` puts in the student's."""
    fill = _filler(variant)
    q = step.question
    if q is not None:
        q = replace(
            q,
            prompt=fill(q.prompt),
            hint=fill(q.hint),
            explain=fill(q.explain),
            key=fill(q.key) if q.key else q.key,
            misconceptions=tuple(replace(m, explain=fill(m.explain)) for m in q.misconceptions),
        )
    return replace(step, query=variant_query(step.query, variant), text=fill(step.text), question=q)


def base_variant(step) -> dict[str, float]:
    """The values the step's own query gives its question's variant parameters (what a student outside
    a class session sees, and what the written answer is for)."""

    q = step.question
    if q is None or not q.variants:
        return {}
    scenario = step_scenario(step)
    return {p.name: float(getattr(scenario, p.name)) for p in q.variants}


def with_answer(step, answer: float):
    """The step with its question's answer set to ``answer`` (a student's own)."""
    return replace(step, question=replace(step.question, answer=float(answer)))


def variant_answer(step, variant: Mapping[str, float], *, run=None, budget=None) -> float:
    """The core's answer to ``step``'s question for ``variant``: the question's key evaluated on the
    tables of the page's run at the student's scenario (``run``: the app's cached run of a scenario;
    None runs the page at ``budget``). Raises InputError when it is not a finite number."""
    from .lesson_keys import evaluate_key

    mine = variant_step(step, variant)
    scenario = step_scenario(mine)
    if run is None:
        from ..framework.scenario import PAGE_BUDGET, RunOptions
        from ..scenarios import get

        result = get(step.page).run(scenario, options=RunOptions(budget=PAGE_BUDGET if budget is None else budget))
    else:
        result = run(scenario)
    where = f"variant {variant_text(variant)}"
    value = evaluate_key(mine.question.key, result.tables(), where=where)
    if not isinstance(value, float) or not math.isfinite(value):
        raise InputError(f"{where}: key {mine.question.key!r} gives {value!r}, not a finite number.")
    return value


def variant_id(variant: Mapping[str, float]) -> str:
    """A variant as stored and counted: compact JSON, parameters in name order."""
    return json.dumps({k: float(variant[k]) for k in sorted(variant)}, separators=(",", ":"))


def parse_variant_id(text: str, variants) -> dict[str, float]:
    """A stored variant back, refused unless it is a point of the question's grid."""
    try:
        got = json.loads(text)
    except (TypeError, ValueError):
        raise InputError(f"stored variant {str(text)[:60]!r} is not JSON.") from None
    if not isinstance(got, dict) or {p.name for p in variants} != set(got):
        raise InputError(f"stored variant {str(text)[:60]!r} does not name the question's parameters.")
    for p in variants:
        if got[p.name] not in p.values:
            raise InputError(f"stored variant value {p.name} = {got[p.name]!r} is not in the question's grid.")
    return {p.name: float(got[p.name]) for p in variants}


def variant_text(variant: Mapping[str, float]) -> str:
    """``rho = 0.35, n = 1000``: a variant in words."""
    return ", ".join(f"{k} = {_fmt(v)}" for k, v in variant.items())


def with_ranges(text: str, variants) -> str:
    """``text`` with each ``{name}`` of the variants replaced by its range (``0.3–0.7``): a question as the
    whole class sees it, each student with their own value."""
    spans = {p.name: f"{_fmt(min(p.values))}–{_fmt(max(p.values))}" for p in variants}
    if not spans:
        return text
    pattern = re.compile(r"\{(" + "|".join(map(re.escape, spans)) + r")\}")
    return pattern.sub(lambda m: spans[m.group(1)], text)


def draw_variant(variants, *, taken: Mapping[str, int] | None = None, rng=None) -> dict[str, float]:
    """A student's variant: one of the variants the fewest students of the class have so far (``taken``,
    by :func:`variant_id`), chosen at random among those, so neighbours differ while variants remain."""
    rng = as_generator(rng)
    options = combinations(variants)
    taken = taken or {}
    counts = [taken.get(variant_id(v), 0) for v in options]
    least = min(counts)
    pool = [v for v, c in zip(options, counts) if c == least]
    return pool[int(rng.integers(len(pool)))]


def relative_error(given: float, answer: float) -> float | None:
    """(given − answer) / |answer|: how far a student's answer is from their own right answer, as a
    share of it (None when the right answer is 0)."""
    return None if answer == 0 else (float(given) - float(answer)) / abs(float(answer))


def check_variant_queries(step, *, where: str) -> None:
    """Every variant's query is a valid scenario of the step's page: each parameter is one of the
    page's (a number) and each of its values is accepted there; refused with one line otherwise."""
    from ..scenarios import get

    q = step.question
    if q is None or not q.variants:
        return
    specs = get(step.page).SCENARIO.specs()
    for p in q.variants:
        if p.name not in specs:
            raise InputError(
                f"{where}, variants: {p.name!r} is not a parameter of {step.page}; it has "
                f"{', '.join(list(specs)[:30])}."
            )
    for variant in combinations(q.variants):
        try:
            step_scenario(replace(step, query=variant_query(step.query, variant)))
        except InputError as exc:
            raise InputError(
                f"{where}, variant {variant_text(variant)}: not a valid {step.page} scenario: {exc}"
            ) from None


def _computed(step, variants_list, runs: dict, budget) -> list[tuple[dict, float | None, str]]:
    """(variant, answer or None, why not) for every variant, each distinct scenario run once."""

    out = []
    for variant in variants_list:
        cache = (step.page, step_scenario(variant_step(step, variant)).query_string())

        def run(scenario, cache=cache):
            if cache not in runs:
                from ..framework.scenario import PAGE_BUDGET, RunOptions
                from ..scenarios import get

                runs[cache] = get(step.page).run(
                    scenario, options=RunOptions(budget=PAGE_BUDGET if budget is None else budget)
                )
            return runs[cache]

        try:
            out.append((variant, variant_answer(step, variant, run=run), ""))
        except InputError as exc:
            out.append((variant, None, str(exc)))
    return out


def check_variants(step, *, where: str, runs: dict | None = None, budget=None) -> VariantCheck:
    """Compute every variant's answer and check them: each a finite number, none covered by a
    misconception (or overlapping one with its accepted band), and no two within the tolerance of each
    other (else a student copying a neighbour with another variant would be accepted)."""
    q = step.question
    runs = {} if runs is None else runs
    got = _computed(step, combinations(q.variants), runs, budget)
    answers = tuple((variant_id(v), a) for v, a, _ in got)
    bad = [(v, why) for v, a, why in got if a is None]
    if bad:
        v, why = bad[0]
        msg = f"{len(bad)} of {len(got)} variants have no computable answer (first: {variant_text(v)}: {why})"
        return VariantCheck(False, msg, answers)
    tol = float(q.tolerance)
    for v, a, _ in got:
        for j, m in enumerate(q.misconceptions, start=1):
            lo, hi = m.interval()
            if lo <= a + tol and a - tol <= hi:
                msg = (
                    f"variant {variant_text(v)}: its answer {a:.6g} ± {tol:g} meets misconception {j} "
                    f"({m.describe()}); narrow the misconception or the variants' range"
                )
                return VariantCheck(False, msg, answers)
    ordered = sorted(got, key=lambda t: t[1])
    for (v1, a1, _), (v2, a2, _) in zip(ordered, ordered[1:]):
        if a2 - a1 <= tol:
            msg = (
                f"variants {variant_text(v1)} and {variant_text(v2)} give {a1:.6g} and {a2:.6g}, within the "
                f"tolerance {tol:g} of each other: a copied answer would be accepted. Narrow the tolerance or "
                "spread the values"
            )
            return VariantCheck(False, msg, answers)
    names = ", ".join(p.name for p in q.variants)
    gap = min((b[1] - a[1] for a, b in zip(ordered, ordered[1:])), default=math.inf)
    msg = (
        f"{len(got)} variants ({names}): every answer computable ({ordered[0][1]:.4g} to {ordered[-1][1]:.4g}), "
        f"the closest two {gap:.3g} apart (> tolerance {tol:g})"
        + (", no misconception near one" if q.misconceptions else "")
    )
    return VariantCheck(True, msg, answers)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
