"""Guarantee checks: every number shown as a guarantee is compared with a bound that provably holds.

A failed check is a *numerical failure of this software* (round-off, a solver, a bug), never a finding
about a paper: it is reported with the inputs that produced it. Findings (e.g. Algorithm 2's claim
failing) are computed elsewhere and are not checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._doc import document

__all__ = ["Check", "check_le", "failures"]

#: Relative and absolute slack of a check (floating-point round-off of the quantities compared).
REL_TOL = 1e-9
ABS_TOL = 1e-12


@dataclass(frozen=True)
class Check:
    """One verified inequality ``value ≤ bound`` (element-wise).

    ``worst`` is the largest ``value − bound`` (negative when it holds with room), ``where`` names the
    entry at which it is attained, ``inputs`` the parameters that produced the values."""

    name: str
    holds: bool
    worst: float
    where: str
    inputs: dict = field(default_factory=dict)

    def message(self) -> str:
        ins = ", ".join(f"{k} = {v}" for k, v in self.inputs.items())
        return (
            f"Numerical failure: {self.name} is violated by {self.worst:.3g} at {self.where}"
            + (f" (inputs: {ins})" if ins else "")
            + ". This is a failure of the computation, not a property of the mechanism."
        )

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "holds": self.holds,
            "worst": self.worst,
            "where": self.where,
            "inputs": {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in self.inputs.items()},
        }


def check_le(
    name: str, value, bound, *, labels=None, inputs: dict | None = None, rel: float = REL_TOL, abs_tol: float = ABS_TOL
) -> Check:
    """Check ``value ≤ bound·(1 + rel) + abs_tol`` element-wise (``+inf ≤ +inf`` holds; NaN values,
    i.e. "not computed", are skipped; a NaN bound fails). ``labels`` names the entries: a sequence, or a
    function of an entry's index (only the worst entry is named: a check over 200 000 users need not
    write 200 000 names)."""
    v = np.atleast_1d(np.asarray(value, dtype=float))
    b = np.broadcast_to(np.atleast_1d(np.asarray(bound, dtype=float)), v.shape)
    present = ~np.isnan(v)
    with np.errstate(invalid="ignore"):
        slack = np.where(np.isinf(b) & (b > 0), np.inf, np.abs(b) * rel + abs_tol)
        ok = ~present | (v <= b + slack) | (np.isinf(v) & (v == b))
        excess = np.where(present, v - b, -np.inf)
    excess = np.where(np.isnan(excess), np.where(np.isnan(b) & present, np.inf, -np.inf), excess)
    i = int(np.argmax(np.where(ok, -np.inf, excess))) if not ok.all() else int(np.argmax(excess)) if v.size else 0
    name_of = labels if callable(labels) else (labels.__getitem__ if labels is not None else None)
    where = (str(name_of(i)) if name_of is not None else f"entry {i + 1}") if v.size else "-"
    worst = float(excess[i]) if v.size else float("-inf")
    return Check(name=name, holds=bool(ok.all()), worst=worst, where=where, inputs=dict(inputs or {}))


def failures(checks) -> list[Check]:
    """The checks that do not hold."""
    return [c for c in checks if not c.holds]


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
