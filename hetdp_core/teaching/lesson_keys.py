"""Answer keys of lesson questions: a key names the cell of a step's download tables where the core
computes the answer (``bcdp_guarantee[feature=x1].budget c_i``, an aggregate such as ``max(...)``, or a ratio or
comparison of two cells), so a lesson's answers are computed, never typed. :mod:`hetdp_core.teaching.lessons` re-exports
:func:`parse_key` and :func:`evaluate_key`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..framework._doc import document
from ..framework._validate import InputError

__all__ = ["AGGREGATES", "parse_key", "evaluate_key", "key_cells"]

AGGREGATES = ("max", "min", "mean", "sum", "count", "any", "all", "finite")


_REF = re.compile(r"^(?P<table>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<sel>[^\]]*)\])?\.(?P<col>.+)$")


@dataclass(frozen=True)
class _Ref:
    agg: str | None
    table: str
    where: tuple[tuple[str, str], ...]
    column: str


def _parse_term(term: str, where: str) -> _Ref:
    term = term.strip()
    agg = None
    m = re.match(r"^([a-z]+)\((.*)\)$", term)
    if m:
        agg, term = m.group(1), m.group(2).strip()
        if agg not in AGGREGATES:
            raise InputError(f"{where}: key uses unknown function {agg!r}; use one of {', '.join(AGGREGATES)}.")
    m = _REF.match(term)
    if not m:
        raise InputError(
            f"{where}: key term {term[:80]!r} must look like table[column=value].column (see the lessons guide "
            "in the documentation)."
        )
    sel = []
    if m.group("sel"):
        for part in m.group("sel").split(","):
            if "=" not in part:
                raise InputError(f"{where}: key selector {part.strip()!r} must be column=value.")
            c, v = part.split("=", 1)
            sel.append((c.strip(), v.strip()))
    return _Ref(agg, m.group("table"), tuple(sel), m.group("col").strip())


@dataclass(frozen=True)
class _Key:
    terms: tuple[_Ref, ...]
    op: str | None = None


_OP = re.compile(r" ([/<>-]) ")


def parse_key(key: str, *, where: str = "key") -> _Key:
    """The parsed key: one cell reference, or two joined by `` / `` (ratio), `` - `` (difference),
    `` < `` or `` > `` (comparison); InputError naming ``where`` for a malformed key."""
    parts = _OP.split(key)
    if len(parts) == 1:
        return _Key((_parse_term(key, where),))
    if len(parts) != 3:
        raise InputError(
            f"{where}: key {key[:80]!r} may combine at most two terms with one of ' / ', ' - ', ' < ', ' > '."
        )
    return _Key((_parse_term(parts[0], where), _parse_term(parts[2], where)), parts[1])


def _scalar(v):
    """A cell as float, bool or text ("∞", "inf" and numeric texts become floats)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.number)):
        return float(v)
    text = str(v).strip()
    if text in ("∞", "+∞"):
        return math.inf
    try:
        return float(text)
    except ValueError:
        return text


def _cell_match(series: pd.Series, value: str) -> pd.Series:
    if pd.api.types.is_bool_dtype(series):
        return series == (value.lower() in ("1", "true", "yes"))
    if pd.api.types.is_numeric_dtype(series):
        try:
            v = float(value)
        except ValueError:
            return pd.Series(False, index=series.index)
        return np.isclose(series.astype(float), v, rtol=1e-9, atol=0)
    return series.astype(str).str.strip() == value


def _select(ref: _Ref, tables: dict, where: str) -> pd.Series:
    """The cells a reference selects (its column, in the rows its conditions match)."""
    if ref.table not in tables:
        raise InputError(f"{where}: key names table {ref.table!r}; this step's tables are {', '.join(tables)}.")
    df = tables[ref.table]
    for col in [c for c, _ in ref.where] + [ref.column]:
        if col not in df.columns:
            raise InputError(
                f"{where}: table {ref.table} has no column {col!r}; its columns are {', '.join(map(str, df.columns))}."
            )
    mask = pd.Series(True, index=df.index)
    for c, v in ref.where:
        mask &= _cell_match(df[c], v)
    return df.loc[mask, ref.column]


def key_cells(key: str, tables: dict, *, where: str = "key") -> list[tuple[str, str, pd.Series]]:
    """The cells a key reads, per term: (table, column, the selected cells) — what a page must show for
    the key's answer to be read on the screen."""
    return [(t.table, t.column, _select(t, tables, where)) for t in parse_key(key, where=where).terms]


def _value(ref: _Ref, tables: dict, where: str):
    vals = _select(ref, tables, where)
    if ref.agg in (None, "finite"):  # one cell
        if len(vals) != 1:
            shown = f"{ref.table}[…].{ref.column}" if ref.agg is None else f"finite({ref.table}[…].{ref.column})"
            raise InputError(
                f"{where}: key {shown} selects {len(vals)} rows; it must select exactly one"
                + (" (add column=value conditions) or use an aggregate such as max(…)." if ref.agg is None else ".")
            )
        v = _scalar(vals.iloc[0])
        return v if ref.agg is None else isinstance(v, float) and math.isfinite(v)
    if len(vals) == 0 and ref.agg != "count":
        raise InputError(f"{where}: key {ref.agg}({ref.table}[…].{ref.column}) selects no rows.")
    if ref.agg in ("any", "all"):
        return bool(getattr(vals.astype(bool), ref.agg)())
    if ref.agg == "count":
        return float(len(vals))
    nums = [_scalar(v) for v in vals]
    if not all(isinstance(v, float) for v in nums):
        raise InputError(f"{where}: key {ref.agg}({ref.table}[…].{ref.column}) needs a numeric column.")
    return float(getattr(np, ref.agg)(nums))


def evaluate_key(key: str, tables: dict, *, where: str = "key"):
    """The value a key names in a run's download tables: a float, a bool or a text."""
    k = parse_key(key, where=where)
    vals = [_value(t, tables, where) for t in k.terms]
    if k.op is None:
        return vals[0]
    if not all(isinstance(v, float) for v in vals):
        raise InputError(f"{where}: key {key!r} combines non-numbers; ' {k.op} ' needs numeric cells.")
    a, b = vals
    if k.op == "<":
        return bool(a < b)
    if k.op == ">":
        return bool(a > b)
    if k.op == "/":
        if b == 0:
            raise InputError(f"{where}: key {key!r} divides by zero at this step's scenario.")
        return a / b
    return a - b


def _as_choice(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "∞" if v == math.inf else f"{v:g}"
    return str(v)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
