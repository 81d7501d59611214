"""Plan A vs plan B: the same key numbers of two scenarios of one page, side by side.

Each page that supports a comparison exposes ``key_numbers(result) -> dict[str, float]`` in its
scenario module (guarantees and accuracy figures, named in plain words); :func:`compare` joins two
such dictionaries. A quantity that exists in one plan only (e.g. a sweep point that the other plan
does not have) is shown with an empty cell.
"""

from __future__ import annotations

import math

__all__ = ["compare"]


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
