"""Lessons: a path through the pages that an instructor writes as a TOML file, without Python.

A lesson is a title, the lecture or paper it follows, and steps. Each step opens a page with a
scenario (the page's URL query string), shows a short text and optionally asks a question whose
answer the core can compute. The schema is documented in the lessons guide (the Documentation page,
topic ``lessons``); :func:`parse_lesson` enforces it and :func:`check_lesson` runs every step's
scenario and compares every answer with the number (or yes/no, or text) the core computes, so a
lesson whose answer drifts from the code fails CI (``hetdp lesson check FILE``).

Answer keys (``key``) name a value of the step's download tables — the same tables the page offers
as CSV — in a small, safe grammar (no ``eval``)::

    key   := term | term OP term              OP: " / ", " - ", " < ", " > " (with the spaces)
    term  := ref | AGG "(" ref ")"            AGG: max, min, mean, sum, count, any, all, finite
    ref   := TABLE ["[" COLUMN "=" VALUE {"," COLUMN "=" VALUE} "]"] "." COLUMN

``TABLE[col=value].column`` must select exactly one row unless an aggregate is used; ``value``
matches a numeric column numerically (``q=0.1``) and any other column as text; cells are numbers
("∞" and "inf" included), yes/no or text. ``<`` and ``>`` give yes/no, ``finite`` says whether a
single cell is finite. A
choice question's key gives a yes/no or a text cell; the answer must be that choice.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from ..framework._doc import document
from ..framework._validate import InputError
from .lesson_claims import Claims, check_claims, misconception_readings, parse_claims
from .lesson_keys import AGGREGATES, _as_choice, evaluate_key, parse_key  # noqa: F401 (re-exported)
from .lesson_variants import (
    VariantParam,
    check_variant_queries,
    check_variants,
    combinations,
    parse_variants,
    step_scenario,
    variant_step,
)

__all__ = [
    "Question",
    "Misconception",
    "Step",
    "Lesson",
    "StepCheck",
    "parse_lesson",
    "load_lesson",
    "lesson_ids",
    "bundled_lesson",
    "bundled_lessons",
    "evaluate_key",
    "check_lesson",
    "step_scenario",
    "MAX_LESSON_BYTES",
]

#: largest accepted lesson file (bytes) and the schema's other limits
MAX_LESSON_BYTES = 64 * 1024
MAX_STEPS = 30
MAX_TEXT = 4000
MAX_SHORT = 200
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,59}$")


#: the question kinds: a number (answer ± tolerance), a choice, and "your choice" (a value the student
#: picks on a slider; no right answer — the class's values are what the instructor discusses)
KINDS = ("number", "choice", "your-choice")


@dataclass(frozen=True)
class Misconception:
    """A known wrong answer with its one-line explanation: a number within ``tolerance`` of ``answer``
    (0: that number exactly), a number in ``[low, high]``, or a choice ``choice``."""

    explain: str
    answer: float | None = None
    tolerance: float = 0.0
    low: float | None = None
    high: float | None = None
    choice: str | None = None
    #: the reading the mistake makes, as a key (a number question's, e.g. the simulated column instead of the
    #: exact one): ``hetdp lesson check`` computes it and refuses the lesson when it falls outside the
    #: misconception's numbers, so "you read the medians" names the medians' value
    key: str | None = None

    def interval(self) -> tuple[float, float] | None:
        """The numbers this misconception covers (None for a choice)."""
        if self.choice is not None:
            return None
        if self.answer is not None:
            return self.answer - self.tolerance, self.answer + self.tolerance
        return self.low, self.high

    def matches(self, given) -> bool:
        if given is None:
            return False
        if self.choice is not None:
            return str(given).strip().lower() == self.choice.lower()
        try:
            g = float(given)
        except (TypeError, ValueError):
            return False
        lo, hi = self.interval()
        return math.isfinite(g) and lo <= g <= hi

    def describe(self) -> str:
        if self.choice is not None:
            return repr(self.choice)
        if self.answer is not None:
            return f"{self.answer:g} ± {self.tolerance:g}"
        return f"[{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Question:
    """A step's question: ``kind`` "number" (answer ± tolerance), "choice" (answer ∈ choices) or
    "your-choice" (a value in [low, high] on a slider, no right answer; ``context`` "epsilon" puts
    the class's values next to real deployments' levels)."""

    prompt: str
    kind: str
    answer: float | str | None
    tolerance: float | None = None
    choices: tuple[str, ...] = ()
    key: str | None = None
    hint: str = ""
    explain: str = ""
    misconceptions: tuple[Misconception, ...] = ()
    low: float | None = None
    high: float | None = None
    slider_step: float | None = None
    value: float | None = None
    context: str | None = None
    #: per-student parameters of a number question (:mod:`hetdp_core.teaching.lesson_variants`); () for none
    variants: tuple[VariantParam, ...] = ()

    def classify(self, given) -> tuple[bool | None, int | None]:
        """(right, misconception number from 1 or None) of an answer; right is None for "your choice"."""
        if self.kind == "your-choice":
            return None, None
        if self.accepts(given):
            return True, None
        for i, m in enumerate(self.misconceptions, start=1):
            if m.matches(given):
                return False, i
        return False, None

    def accepts(self, given) -> bool:
        """Whether a student's answer is right: |given − answer| ≤ tolerance, or the same choice (a
        "your choice" answer is accepted when it is a number in [low, high])."""
        if given is None:
            return False
        if self.kind == "your-choice":
            try:
                g = float(given)
            except (TypeError, ValueError):
                return False
            return math.isfinite(g) and self.low <= g <= self.high
        if self.kind == "number":
            try:
                g = float(given)
            except (TypeError, ValueError):
                return False
            return math.isfinite(g) and abs(g - float(self.answer)) <= float(self.tolerance)
        return str(given).strip().lower() == str(self.answer).strip().lower()


@dataclass(frozen=True)
class Step:
    page: str
    query: str
    text: str
    title: str = ""
    question: Question | None = None
    #: its claims and the table that answers it (hetdp_core.teaching.lesson_claims)
    claims: Claims = Claims()


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    follows: str
    steps: tuple[Step, ...]
    summary: str = ""


@dataclass(frozen=True)
class StepCheck:
    """One step of :func:`check_lesson`: ``status`` is "ok", "no question", "your choice",
    "unchecked" (a choice question without a key) or "wrong" (the written answer disagrees with the
    core, or a misconception covers the core's value)."""

    step: int
    page: str
    status: str
    message: str
    computed: float | str | None = None


# ---------------------------------------------------------------- schema


def _where(lesson: str, step: int | None = None, q: bool = False) -> str:
    at = f"lesson {lesson!r}"
    if step is not None:
        at += f", step {step}"
    if q:
        at += ", question"
    return at


def _text(d: dict, name: str, where: str, *, required: bool = True, limit: int = MAX_SHORT, default: str = "") -> str:
    if name not in d:
        if required:
            raise InputError(f"{where}: '{name}' is missing; add {name} = \"…\".")
        return default
    v = d[name]
    if not isinstance(v, str) or (required and not v.strip()):
        raise InputError(f"{where}: '{name}' must be non-empty text; got {type(v).__name__} {str(v)[:40]!r}.")
    if len(v) > limit:
        raise InputError(f"{where}: '{name}' has {len(v)} characters; at most {limit}. Shorten it.")
    return v.strip()


def _only(d: dict, allowed: tuple[str, ...], where: str) -> None:
    extra = [k for k in d if k not in allowed]
    if extra:
        raise InputError(
            f"{where}: unknown field(s) {', '.join(map(repr, extra))}; the schema allows "
            f"{', '.join(allowed)} (see the lessons guide in the documentation)."
        )


def _question(d, where: str) -> Question:
    if not isinstance(d, dict):
        raise InputError(f"{where}: 'question' must be a table ([steps.question]); got {type(d).__name__}.")
    kind = d.get("kind")
    if kind not in KINDS:
        raise InputError(f"{where}: 'kind' must be one of {', '.join(map(repr, KINDS))}; got {kind!r}.")
    if "variants" in d and kind != "number":
        raise InputError(f"{where}: 'variants' are for number questions (each student's own answer); remove them.")
    if kind == "your-choice":
        return _your_choice(d, where)
    fields = ("prompt", "kind", "answer", "tolerance", "choices", "key", "hint", "explain", "misconception")
    _only(d, (*fields, "variants") if kind == "number" else fields, where)
    prompt = _text(d, "prompt", where, limit=MAX_TEXT)
    hint = _text(d, "hint", where, required=False, limit=MAX_TEXT)
    explain = _text(d, "explain", where, required=False, limit=MAX_TEXT)
    key = _text(d, "key", where, required=kind == "number", limit=MAX_SHORT) or None
    if key is not None:
        parse_key(key, where=where)
    if "answer" not in d:
        raise InputError(f"{where}: 'answer' is missing; add answer = … (a number, or one of the choices).")
    answer = d["answer"]
    if kind == "number":
        if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not math.isfinite(answer):
            raise InputError(f"{where}: 'answer' of a number question must be a finite number; got {answer!r}.")
        tol = d.get("tolerance")
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not (0 < tol < math.inf):
            raise InputError(
                f"{where}: 'tolerance' must be a positive number (the accepted distance from the "
                f"answer); got {tol!r}. Add e.g. tolerance = 0.05."
            )
        if "choices" in d:
            raise InputError(f"{where}: a number question has no 'choices'; remove them or use kind = \"choice\".")
        q = Question(prompt, kind, float(answer), float(tol), (), key, hint, explain)
        if "variants" in d:
            q = replace(q, variants=parse_variants(d["variants"], where=where))
        return _with_misconceptions(q, d.get("misconception"), where)
    choices = d.get("choices")
    if (
        not isinstance(choices, list)
        or not 2 <= len(choices) <= 8
        or not all(isinstance(c, str) and c.strip() and len(c) <= MAX_SHORT for c in choices)
    ):
        raise InputError(f"{where}: 'choices' must be a list of 2 to 8 non-empty texts; got {str(choices)[:80]!r}.")
    choices = tuple(c.strip() for c in choices)
    if len({c.lower() for c in choices}) != len(choices):
        raise InputError(f"{where}: 'choices' must be different from each other; got {list(choices)}.")
    if not isinstance(answer, str) or answer.strip().lower() not in [c.lower() for c in choices]:
        raise InputError(f"{where}: 'answer' must be one of the choices {list(choices)}; got {answer!r}.")
    if "tolerance" in d:
        raise InputError(f"{where}: a choice question has no 'tolerance'; remove it.")
    answer = next(c for c in choices if c.lower() == answer.strip().lower())
    q = Question(prompt, kind, answer, None, choices, key, hint, explain)
    return _with_misconceptions(q, d.get("misconception"), where)


def _number(d: dict, name: str, where: str, *, required: bool = True) -> float | None:
    if name not in d and not required:
        return None
    v = d.get(name)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InputError(f"{where}: '{name}' must be a finite number; got {v!r}.")
    return float(v)


MAX_MISCONCEPTIONS = 8


def _with_misconceptions(q: Question, raw, where: str) -> Question:
    """``[[steps.question.misconception]]``: each a wrong answer (outside the accepted answer) with
    its explanation; for a number question ``answer`` (± ``tolerance``, default the question's) or
    ``range = [low, high]``, for a choice question ``choice``."""
    if raw is None:
        return q
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_MISCONCEPTIONS:
        raise InputError(
            f"{where}: 'misconception' must be 1 to {MAX_MISCONCEPTIONS} tables "
            "([[steps.question.misconception]]); got " + (f"{len(raw)}." if isinstance(raw, list) else "one value.")
        )
    out = []
    for i, m in enumerate(raw, start=1):
        w = f"{where}, misconception {i}"
        if not isinstance(m, dict):
            raise InputError(f"{w}: must be a table; got {type(m).__name__}.")
        explain = _text(m, "explain", w, limit=MAX_SHORT * 2)
        if q.kind == "choice":
            _only(m, ("choice", "explain"), w)
            c = m.get("choice")
            if not isinstance(c, str) or c.strip().lower() not in [x.lower() for x in q.choices]:
                raise InputError(f"{w}: 'choice' must be one of the choices {list(q.choices)}; got {c!r}.")
            c = next(x for x in q.choices if x.lower() == c.strip().lower())
            if c == q.answer:
                raise InputError(f"{w}: 'choice' {c!r} is the right answer; a misconception is a wrong one.")
            out.append(Misconception(explain, choice=c))
            continue
        _only(m, ("answer", "tolerance", "range", "explain", "key"), w)
        mkey = _text(m, "key", w, required=False, limit=MAX_SHORT) or None
        if mkey is not None:
            if q.variants:
                raise InputError(f"{w}: 'key' needs one view; a question with variants has one per student.")
            parse_key(mkey, where=w)
        if ("answer" in m) == ("range" in m):
            raise InputError(f"{w}: give either 'answer' (with an optional 'tolerance') or 'range' = [low, high].")
        if "range" in m:
            r = m["range"]
            if (
                not isinstance(r, list)
                or len(r) != 2
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in r)
                or not r[0] < r[1]
            ):
                raise InputError(f"{w}: 'range' must be [low, high] with finite numbers low < high; got {r!r}.")
            mc = Misconception(explain, low=float(r[0]), high=float(r[1]), key=mkey)
        else:
            if "tolerance" in m:
                tol = _number(m, "tolerance", w)
                if not tol > 0:
                    raise InputError(f"{w}: 'tolerance' must be positive; got {tol!r}.")
            else:
                tol = q.tolerance
            mc = Misconception(explain, answer=_number(m, "answer", w), tolerance=tol, key=mkey)
        lo, hi = mc.interval()
        a_lo, a_hi = q.answer - q.tolerance, q.answer + q.tolerance
        if lo <= a_hi and a_lo <= hi:
            raise InputError(
                f"{w}: {mc.describe()} overlaps the accepted answer {q.answer:g} ± {q.tolerance:g}; "
                "a misconception must be a wrong answer. Narrow it."
            )
        out.append(mc)
    return replace(q, misconceptions=tuple(out))


def _your_choice(d: dict, where: str) -> Question:
    """A "your choice" step: a slider from ``min`` to ``max`` (``step``, start ``value``) and no
    right answer; ``context = "epsilon"`` compares the class's values with real deployments."""
    _only(d, ("prompt", "kind", "min", "max", "step", "value", "context", "explain", "hint"), where)
    prompt = _text(d, "prompt", where, limit=MAX_TEXT)
    low, high = _number(d, "min", where), _number(d, "max", where)
    if not low < high:
        raise InputError(f"{where}: 'min' must be below 'max'; got min = {low:g}, max = {high:g}.")
    step = _number(d, "step", where, required=False) or (high - low) / 100
    if not 0 < step <= high - low:
        raise InputError(f"{where}: 'step' must be positive and at most max − min; got {step:g}.")
    value = _number(d, "value", where, required=False)
    value = low if value is None else value
    if not low <= value <= high:
        raise InputError(f"{where}: 'value' must lie in [min, max] = [{low:g}, {high:g}]; got {value:g}.")
    context = d.get("context")
    if context not in (None, "epsilon"):
        raise InputError(f"{where}: 'context' must be \"epsilon\" (compare with real deployments) or absent.")
    if context == "epsilon" and low < 0:
        raise InputError(f"{where}: a privacy level cannot be negative; got min = {low:g}.")
    return Question(
        prompt,
        "your-choice",
        None,
        hint=_text(d, "hint", where, required=False, limit=MAX_TEXT),
        explain=_text(d, "explain", where, required=False, limit=MAX_TEXT),
        low=low,
        high=high,
        slider_step=step,
        value=value,
        context=context,
    )


def parse_lesson(text: str | bytes, *, id: str) -> Lesson:
    """A lesson from TOML text. Raises :class:`InputError` naming the lesson, the step, the field,
    the rule and the fix: unknown fields, missing texts, unknown pages, scenario queries the page
    rejects, and questions whose answer is not one of its choices are all refused here."""
    from ..scenarios import page_name

    if not isinstance(id, str) or not _ID.match(id):
        raise InputError(
            f"lesson id must be 1-60 lowercase letters, digits, '-' or '_' (the file name without "
            f".toml); got {str(id)[:60]!r}. Rename the file."
        )
    if isinstance(text, str):
        text = text.encode()
    if len(text) > MAX_LESSON_BYTES:
        raise InputError(f"lesson {id!r} is {len(text)} bytes; at most {MAX_LESSON_BYTES}. Split it into two lessons.")
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"lesson {id!r} is not UTF-8 text. Save it as UTF-8.") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"lesson {id!r} is not valid TOML: {exc}. Fix the line it names.") from None
    except RecursionError:  # e.g. thousands of nested arrays
        raise InputError(
            f"lesson {id!r} nests arrays or tables too deeply to read; a lesson needs no "
            "nesting beyond [[steps]] and [steps.question]."
        ) from None
    except ValueError as exc:  # e.g. an integer of more than 4 300 digits
        raise InputError(
            f"lesson {id!r} has a value that cannot be read: {str(exc)[:120]}. Use an ordinary number."
        ) from None
    where = _where(id)
    _only(data, ("title", "follows", "summary", "steps"), where)
    title = _text(data, "title", where)
    follows = _text(data, "follows", where, limit=400)
    summary = _text(data, "summary", where, required=False, limit=MAX_TEXT)
    raw = data.get("steps")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_STEPS:
        raise InputError(
            f"{where}: needs 1 to {MAX_STEPS} [[steps]]; got {len(raw) if isinstance(raw, list) else 'none'}."
        )
    steps = []
    for i, st in enumerate(raw, start=1):
        w = _where(id, i)
        if not isinstance(st, dict):
            raise InputError(f"{w}: must be a table ([[steps]]); got {type(st).__name__}.")
        _only(st, ("page", "query", "title", "text", "question", "claims", "answered_by"), w)
        page_raw = _text(st, "page", w)
        try:
            page = page_name(page_raw)
        except InputError as exc:
            raise InputError(f"{w}: 'page': {exc}") from None
        query = _text(st, "query", w, required=False, limit=2000).lstrip("?")
        step = Step(
            page=page,
            query=query,
            text=_text(st, "text", w, limit=MAX_TEXT),
            title=_text(st, "title", w, required=False),
            question=_question(st["question"], _where(id, i, True)) if "question" in st else None,
        )
        step = parse_claims(step, st, w)
        try:
            step_scenario(step)
        except InputError as exc:
            raise InputError(f"{w}: 'query' is not a valid {page} scenario: {exc}") from None
        check_variant_queries(step, where=_where(id, i, True))
        steps.append(step)
    return Lesson(id=id, title=title, follows=follows, steps=tuple(steps), summary=summary)


def load_lesson(path: str | Path) -> Lesson:
    """A lesson file (its id is the file name without ``.toml``)."""
    path = Path(path)
    if path.suffix != ".toml":
        raise InputError(f"lesson file must end in .toml; got {path.name!r}.")
    if not path.is_file():
        raise InputError(f"lesson file {str(path)!r} not found. Give the path of a .toml file.")
    if path.stat().st_size > MAX_LESSON_BYTES:
        raise InputError(f"lesson {path.stem!r} is {path.stat().st_size} bytes; at most {MAX_LESSON_BYTES}.")
    return parse_lesson(path.read_bytes(), id=path.stem)


def _lesson_files():
    try:
        root = resources.files("hetdp_core.data").joinpath("lessons")
        if root.is_dir():
            return root
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[1] / "data" / "lessons"  # a source checkout, not installed


def lesson_ids() -> list[str]:
    """The bundled lessons (``data/lessons/*.toml``), in file-name order."""
    return sorted(p.name[:-5] for p in _lesson_files().iterdir() if p.name.endswith(".toml"))


def bundled_lesson(id: str) -> Lesson:
    """A bundled lesson by id (an unknown id raises InputError listing the lessons)."""
    ids = lesson_ids()
    if id not in ids:
        raise InputError(f"lesson must be one of {', '.join(ids)}; got {str(id)[:60]!r}.")
    return parse_lesson(_lesson_files().joinpath(f"{id}.toml").read_bytes(), id=id)


def bundled_lessons() -> list[Lesson]:
    """Every bundled lesson, in file-name order."""
    return [bundled_lesson(i) for i in lesson_ids()]


def check_lesson(lesson: Lesson, *, budget=None, runs: dict | None = None) -> list[StepCheck]:
    """Run every step's scenario (each distinct scenario once; ``runs`` may share results between
    calls) and compare each question's written answer with the core's value of its key: a number
    answer must lie within half its tolerance of the computed value (so the exact value is always
    accepted from a student), a choice answer must equal the computed yes/no or text."""
    from ..framework.scenario import PAGE_BUDGET, RunOptions
    from ..scenarios import get

    budget = PAGE_BUDGET if budget is None else budget
    runs = {} if runs is None else runs

    def result_of(step):
        cache_key = (step.page, step_scenario(step).query_string())
        if cache_key not in runs:
            runs[cache_key] = get(step.page).run(step_scenario(step), options=RunOptions(budget=budget))
        return runs[cache_key]

    out = []
    for i, step in enumerate(lesson.steps, start=1):
        check_claims(lesson.id, i, step, result_of)  # its words: claims hold, the table that answers it
        if step.question is not None and step.question.variants:  # … at every student's own view too
            for variant in combinations(step.question.variants):
                check_claims(lesson.id, i, variant_step(step, variant), result_of)
        q = step.question
        if q is None:
            out.append(StepCheck(i, step.page, "no question", "no question on this step"))
            continue
        if q.kind == "your-choice":
            out.append(StepCheck(i, step.page, "your choice", f"the student's own value in [{q.low:g}, {q.high:g}]"))
            continue
        if q.key is None:
            out.append(
                StepCheck(i, step.page, "unchecked", "choice question without a key: not checked against the core")
            )
            continue
        result = result_of(step)
        where = _where(lesson.id, i, True)
        value = evaluate_key(q.key, result.tables(), where=where)
        if q.kind == "number":
            if not isinstance(value, float) or not math.isfinite(value):
                raise InputError(f"{where}: key {q.key!r} gives {value!r}, not a finite number; use a numeric column.")
            ok = abs(value - float(q.answer)) <= 0.5 * float(q.tolerance)
            msg = f"answer {q.answer:g} ± {q.tolerance:g}; the core computes {value:.6g}" + (
                ""
                if ok
                else f" — outside half the tolerance ({0.5 * q.tolerance:g}). Update the answer or the tolerance."
            )
            right = [j for j, m in enumerate(q.misconceptions, start=1) if m.matches(value)]
            if right:
                ok = False
                msg += f"; misconception {right[0]} ({q.misconceptions[right[0] - 1].describe()}) covers that value"
            elif q.misconceptions:
                msg += f"; {len(q.misconceptions)} misconception(s) are wrong answers"
            read_ok, read_msg = misconception_readings(
                q, result.tables(), where=where
            )  # misconceptions that name their reading
            ok, msg = ok and read_ok, msg + read_msg
            if q.variants:
                varied = check_variants(step, where=where, runs=runs, budget=budget)
                ok, msg = ok and varied.ok, f"{msg}; {varied.message}"
        else:
            got = _as_choice(value)
            ok = got.strip().lower() == str(q.answer).lower()
            if got.strip().lower() not in [c.lower() for c in q.choices]:
                ok = False
                msg = f"the core gives {got!r}, which is not one of the choices {list(q.choices)}."
            else:
                msg = f"answer {q.answer!r}; the core gives {got!r}" + ("" if ok else " — they differ. Fix the answer.")
                hit = [j for j, m in enumerate(q.misconceptions, start=1) if m.matches(got)]
                if hit:
                    ok = False
                    msg += f"; misconception {hit[0]} is the core's value"
        out.append(StepCheck(i, step.page, "ok" if ok else "wrong", msg, value))
    return out


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
