"""Plan A vs plan B: the same key numbers of two scenarios of one page, side by side.

Every page supports a comparison: :func:`key_numbers` takes a page's own ``key_numbers(result)``
(guarantees and accuracy figures, named in plain words) where its scenario module defines one, else
the numbers of the key tables its :class:`~hetdp_core.framework.registry.PageSpec` declares (each numeric cell
named ``table: row, column``); :func:`compare` joins two such dictionaries. A quantity that exists
in one plan only (e.g. a sweep point that the other plan does not have) is shown with an empty cell.
"""

from __future__ import annotations

import math

from ..framework._doc import document

__all__ = ["compare", "key_numbers"]

#: rows of each key table compared (the CSV downloads have all of them)
KEY_ROWS = 20


def compare(numbers_a: dict, numbers_b: dict):
    """Table ``quantity, plan A, plan B, B − A`` (rows in A's order, then B's new ones)."""
    import pandas as pd

    keys = list(numbers_a) + [k for k in numbers_b if k not in numbers_a]
    rows = []
    for k in keys:
        a, b = numbers_a.get(k, math.nan), numbers_b.get(k, math.nan)
        rows.append(
            {
                "quantity": k,
                "plan A": a,
                "plan B": b,
                "B − A": b - a if math.isfinite(a) and math.isfinite(b) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def key_numbers(page, result) -> dict:
    """The numbers plan A vs plan B compares for ``page`` (its scenario module): its own
    ``key_numbers`` if it has one, else every finite numeric cell of its spec's key tables (first
    :data:`KEY_ROWS` rows), named ``"<table>: <first column's value>, <column>"``."""
    import numbers

    from ..framework.registry import hook

    own = hook(page, "key_numbers")
    if own is not None:
        return own(result)
    tables = result.tables()
    out: dict = {}
    for name in page.PAGE_SPEC.key_tables:
        df = tables.get(name)
        if df is None or df.empty:
            continue
        first = df.columns[0]
        for _, row in df.head(KEY_ROWS).iterrows():
            for col in df.columns[1:]:
                v = row[col]
                if isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v)):
                    out[f"{name}: {row[first]}, {col}"] = float(v)
    return out


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
