r"""Claims of lessons: what a step's words say about the numbers, written so that the core can check it.

A lesson's answers are computed (answer keys, :mod:`hetdp_core.teaching.lesson_keys`); the words around them must
be too. A step may declare

* ``answered_by`` — the download table whose numbers answer the step, whether they are ``exact``
  (formulas) or ``simulated``, and what the page calls it where it shows it (``shown_as``), so a student
  reads the right numbers: ``answered_by = { table = "bcdp_mse_summary", kind = "exact", shown_as = "…" }``;
* ``[[steps.claims]]`` — each a sentence (``says``) and a key that must give *yes* at the step's view
  (``holds``, a comparison ``a < b`` / ``a > b`` or a yes/no aggregate), with an ``id`` by which the
  step's texts cite it: ``{mmean-loses}`` in a hint is replaced by the claim's sentence.

The question's hint, explanation and misconceptions may compare quantities only through claims: their
own words may not use a comparative (:data:`COMPARATIVES`: "wins", "smaller", "than", "above", …)
outside a cited claim (what they quote is not their words: a column's name in quotes, a formula in
$…$). A claim states one comparison, and its numbers must be the numbers it compares (the cells its key
reads, to the digits written) or the view's own settings (its query). :func:`check_claims` — run by
``hetdp lesson check`` on every step — evaluates every claim with the core and refuses a lesson whose
claim is false (:class:`ClaimError`, one line), and a step with a checkable question that does not say
which table answers it, or whose answer key reads another table.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError
from .lesson_keys import _as_choice, evaluate_key, key_cells, parse_key

__all__ = [
    "KINDS",
    "COMPARATIVES",
    "AnsweredBy",
    "Claim",
    "Claims",
    "ClaimError",
    "parse_claims",
    "comparatives",
    "check_claims",
    "misconception_readings",
]

#: what the numbers that answer a step are: computed by a formula, or by simulating releases
KINDS = ("exact", "simulated")
#: words that compare quantities: a question's hint, explanation and misconceptions use them only inside
#: a cited claim
COMPARATIVES = (
    "better",
    "worse",
    "wins",
    "win",
    "winning",
    "won",
    "loses",
    "lose",
    "losing",
    "lost",
    "beats",
    "exceeds",
    "exceed",
    "dominates",
    "larger",
    "smaller",
    "lower",
    "higher",
    "greater",
    "bigger",
    "fewer",
    "above",
    "below",
    "than",
)
_COMPARATIVE = re.compile(r"\b(" + "|".join(COMPARATIVES) + r")\b|[<>≤≥]", re.IGNORECASE)
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
_CITE = re.compile(r"\{([a-z0-9][a-z0-9-]{0,59})\}")
#: what a text quotes rather than says: a column's name in quotes, code in backticks, a formula in $…$
_VERBATIM = re.compile(r'"[^"]*"|“[^”]*”|`[^`]*`|\$[^$]*\$')
#: a number that names a part of a paper ("Proposition 4", "Algorithm 2"), not a quantity
_REFERENCE = re.compile(
    r"\b(Proposition|Theorem|Lemma|Corollary|Example|Figure|Algorithm|Table|Section|Definition|Mechanism|Appendix)"
    r"\s+\d+(\.\d+)*"
)
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?!\w|\.\d)")


class ClaimError(InputError):
    """A lesson's claim is false at its step's view (or cannot be evaluated): the lesson is refused."""


@dataclass(frozen=True)
class AnsweredBy:
    """The table whose numbers answer a step (its CSV name), whether they are exact or simulated, and
    what the page calls it where it shows it."""

    table: str
    kind: str
    shown_as: str

    def sentence(self) -> str:
        """ "Answered by the table … (exact values: formulas, not simulations)." for the lesson panel."""
        what = "exact values: formulas, not simulations" if self.kind == "exact" else "simulated values"
        return f"Answered by {self.shown_as} ({what})."


@dataclass(frozen=True)
class Claim:
    """A sentence a step's words may cite (``says``) and the key that must give yes at the step's view."""

    id: str
    says: str
    holds: str

    def cells(self, tables: dict, where: str) -> list:
        """The cells its key reads at a view (:func:`hetdp_core.teaching.lesson_keys.key_cells`)."""
        return key_cells(self.holds, tables, where=where)


@dataclass(frozen=True)
class Claims:
    """A step's claims, the table that answers it, and its question's texts as written (with the claims
    they cite), which :func:`comparatives` reads."""

    claims: tuple[Claim, ...] = ()
    answered_by: AnsweredBy | None = None
    written: dict = field(default_factory=dict)


def _answered_by(raw, where: str) -> AnsweredBy | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"table", "kind", "shown_as"}:
        raise InputError(
            f"{where}: 'answered_by' must be a table with table, kind and shown_as, e.g. answered_by = "
            '{ table = "bcdp_mse_summary", kind = "exact", shown_as = "the table under the chart" }; '
            f"got {str(raw)[:80]!r}."
        )
    if raw["kind"] not in KINDS:
        raise InputError(f"{where}: answered_by's 'kind' must be one of {', '.join(KINDS)}; got {raw['kind']!r}.")
    if not all(isinstance(raw[k], str) and raw[k].strip() and len(raw[k]) <= 200 for k in ("table", "shown_as")):
        raise InputError(f"{where}: answered_by's 'table' and 'shown_as' must be texts of at most 200 characters.")
    return AnsweredBy(raw["table"].strip(), raw["kind"], raw["shown_as"].strip())


def _claims(raw, where: str) -> tuple[Claim, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not 1 <= len(raw) <= 12:
        raise InputError(f"{where}: 'claims' must be 1 to 12 tables ([[steps.claims]]).")
    out = []
    for i, c in enumerate(raw, start=1):
        w = f"{where}, claim {i}"
        if not isinstance(c, dict) or set(c) != {"id", "says", "holds"}:
            raise InputError(f"{w}: a claim has exactly id, says and holds; got {str(c)[:80]!r}.")
        if not isinstance(c["id"], str) or not _ID.match(c["id"]):
            raise InputError(f"{w}: 'id' must be 1-60 lowercase letters, digits or '-'; got {str(c['id'])[:60]!r}.")
        if not all(isinstance(c[k], str) and c[k].strip() and len(c[k]) <= 400 for k in ("says", "holds")):
            raise InputError(f"{w}: 'says' and 'holds' must be texts of at most 400 characters.")
        key = parse_key(c["holds"], where=w)
        if key.op not in ("<", ">") and (key.op is not None or key.terms[0].agg not in ("any", "all", "finite")):
            raise InputError(
                f"{w}: 'holds' must give yes or no: two cells compared with ' < ' or ' > ', or any(…), all(…) "
                f"or finite(…); got {c['holds'][:80]!r}."
            )
        said = [m.group(0) for m in _COMPARATIVE.finditer(c["says"]) if m.group(0).lower() != "than"]
        if len(said) > 1:
            raise InputError(
                f"{w}: 'says' states {len(said)} comparisons ({', '.join(said)}); a claim states the one its "
                "'holds' checks: split it into claims."
            )
        out.append(Claim(c["id"], " ".join(c["says"].split()), c["holds"]))
    ids = [c.id for c in out]
    if len(set(ids)) != len(ids):
        raise InputError(f"{where}: claim ids must be different; {ids} repeats one.")
    return tuple(out)


def _cite(text: str, claims: dict[str, Claim], where: str, keep: frozenset = frozenset()) -> str:
    """``text`` with each ``{id}`` replaced by that claim's sentence (an unknown id is refused); a name in
    ``keep`` — a parameter of the question's per-student variants, :mod:`hetdp_core.teaching.lesson_variants` —
    stays, for the student's own value to fill it."""

    def sub(m: re.Match) -> str:
        if m.group(1) in keep:
            return m.group(0)
        if m.group(1) not in claims:
            raise InputError(
                f"{where}: cites {{{m.group(1)}}}, which is not a claim of this step; its claims are "
                f"{', '.join(claims) or 'none'} ([[steps.claims]])"
                + (f" and its variants' parameters {', '.join(sorted(keep))}." if keep else ".")
            )
        return claims[m.group(1)].says

    return _CITE.sub(sub, text)


def parse_claims(step, raw: dict, where: str):
    """``step`` (a :class:`hetdp_core.teaching.lessons.Step` parsed from the TOML table ``raw``) with its claims and
    ``answered_by``, its text and its question's texts citing claims by ``{id}`` replaced by their
    sentences (the texts as written are kept for :func:`comparatives`)."""
    claims = _claims(raw.get("claims"), where)
    by_id = {c.id: c for c in claims}
    q = step.question
    keep = frozenset(v.name for v in getattr(q, "variants", ()))
    written = {} if q is None else {"hint": q.hint, "explain": q.explain}
    if q is not None:
        written |= {f"misconception {i}": m.explain for i, m in enumerate(q.misconceptions, start=1)}
        q = replace(
            q,
            hint=_cite(q.hint, by_id, f"{where}, question's hint", keep),
            explain=_cite(q.explain, by_id, f"{where}, question's explain", keep),
            misconceptions=tuple(
                replace(m, explain=_cite(m.explain, by_id, f"{where}, misconception {i}", keep))
                for i, m in enumerate(q.misconceptions, start=1)
            ),
        )
    return replace(
        step,
        text=_cite(step.text, by_id, f"{where}, text", keep),
        question=q,
        claims=Claims(claims, _answered_by(raw.get("answered_by"), where), written),
    )


def comparatives(step) -> list[tuple[str, str]]:
    """(field, word) for each comparative a step's question uses in its own words: outside the claims it
    cites (its hint, explanation and misconceptions as written)."""
    out = []
    for name, text in step.claims.written.items():
        for m in _COMPARATIVE.finditer(_VERBATIM.sub(" ", _CITE.sub(" ", text or ""))):
            out.append((name, m.group(0)))
    return out


def _cell_numbers(cells: list) -> list[float]:
    """The finite numbers among the cells a key reads (yes/no cells are not numbers)."""
    out = []
    for _, _, series in cells:
        for v in series:
            if isinstance(v, (bool, np.bool_)):
                continue
            try:
                x = float(v)
            except (TypeError, ValueError):
                continue
            if math.isfinite(x):
                out.append(x)
    return out


def _written_as(v: float, text: str) -> bool:
    """Whether ``v`` written as ``text`` is a rounding of it: to the decimals written, or to the
    significant digits written."""
    x = float(text.replace("−", "-"))
    decimals = len(text.split(".")[1]) if "." in text else 0
    digits = max(len(text.replace(".", "").replace("−", "").replace("-", "").lstrip("0")), 1)
    return round(v, decimals) == x or math.isclose(float(f"{v:.{digits}g}"), x, rel_tol=1e-12)


def _numbers_said(claim: Claim, cells: list, query: str) -> list[str]:
    """The numbers a claim's sentence states that are neither a cell its key reads (rounded as written)
    nor a number of the view's settings or of the key's own selectors."""
    values = _cell_numbers(cells)
    allowed = {float(t.replace("−", "-")) for t in _NUMBER.findall(f"{query.replace('&', ' ')} {claim.holds}")}
    return [
        t
        for t in _NUMBER.findall(_REFERENCE.sub(" ", claim.says))
        if float(t.replace("−", "-")) not in allowed and not any(_written_as(v, t) for v in values)
    ]


def _shown(cells: list) -> str:
    """The cells a false claim read, for its message (columns of at most four cells)."""
    parts = []
    for table, column, series in cells:
        if len(series) <= 4:
            parts.append(f"{table}.{column} = {', '.join(_as_choice(_plain(v)) for v in series)}")
    return "; ".join(parts) or "its cells"


def _plain(v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def check_claims(lesson_id: str, number: int, step, result_of) -> int:
    """Check step ``number`` of a lesson: its question's words compare only through claims; a checkable
    question says which table answers it (``answered_by``), and its key reads that table; every claim's
    numbers are those it compares, and every claim holds at the step's view (``result_of(step)``: the
    step's run, computed only when the step has claims or a key). Returns how many claims hold; a false
    or unevaluable claim raises :class:`ClaimError`, any other breach :class:`InputError`."""
    where = f"lesson {lesson_id!r}, step {number}"
    for name, word in comparatives(step):
        raise InputError(
            f"{where}: the question's {name} compares quantities in its own words ({word!r}); write the "
            "comparison as a claim ([[steps.claims]], checked with the core) and cite it as {id}."
        )
    q, c = step.question, step.claims
    checkable = q is not None and q.kind != "your-choice" and q.key is not None
    if checkable and c.answered_by is None:
        raise InputError(
            f"{where}: the question does not say which table answers it; add answered_by = {{ table = …, "
            'kind = "exact" or "simulated", shown_as = "what the page calls it" }.'
        )
    if not (checkable or c.claims or c.answered_by):
        return 0
    tables = result_of(step).tables()
    if c.answered_by is not None and c.answered_by.table not in tables:
        raise InputError(
            f"{where}: answered_by names table {c.answered_by.table!r}; this step's tables are {', '.join(tables)}."
        )
    if checkable:
        read = {t.table for t in parse_key(q.key, where=where).terms}
        if read != {c.answered_by.table}:
            raise InputError(
                f"{where}: the answer key reads {', '.join(sorted(read))}, but the step says it is answered by "
                f"{c.answered_by.table}; make them the same table."
            )
    for claim in c.claims:
        w = f"{where}, claim {claim.id!r}"
        bad = _numbers_said(claim, claim.cells(tables, w), step.query)
        if bad:
            raise ClaimError(
                f"{w} states {', '.join(bad)}, which are neither the numbers it compares nor the view's settings; "
                "state the numbers its key reads, or none."
            )
        if evaluate_key(claim.holds, tables, where=w) is not True:
            raise ClaimError(
                f"{w} ({claim.says!r}) is false at this step's view ({_shown(claim.cells(tables, w))})"
                ": fix the claim or the view."
            )
    return len(c.claims)


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
step | Step | A lesson's step (hetdp_core.teaching.lessons.Step).
raw | dict | The step's table as read from the lesson's TOML.
where | str | Where in the lesson, for error messages ("lesson 'x', step 3").
lesson_id | str | The lesson's id (its file name without .toml).
number | int | The step's number, from 1.
result_of | callable | Runs a step's scenario (once per view) and returns the page's result.
"""


def misconception_readings(q, tables: dict, *, where: str) -> tuple[bool, str]:
    """The misconceptions of a number question that name the reading they are (``key``: the simulated column
    read for the exact one, a ratio taken the other way round), each computed at the step's view with the
    core: (every one within its numbers, what ``hetdp lesson check`` says of them)."""
    ok, msg = True, ""
    for j, m in enumerate(q.misconceptions, start=1):
        if m.key is None:
            continue
        read = evaluate_key(m.key, tables, where=f"{where}, misconception {j}")
        if m.matches(read):
            msg += f"; misconception {j}'s reading computes {read:.4g}, within {m.describe()}"
        else:
            ok = False
            shown = f"{read:.4g}" if isinstance(read, float) else repr(read)
            msg += (
                f"; misconception {j} reads {m.key!r}, which the core computes as {shown}, outside its "
                f"{m.describe()}: update its numbers"
            )
    return ok, msg


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
