r"""Per-user privacy's weight objectives: the demands, the effective levels, the seven objectives and the baselines'
names, and the checks of a set of weights (the overview and the formulas: :mod:`hetdp_core.per_user.hetero`).

Weights w on the simplex and Laplace noise of scale ``b = κ max_i w_i/ε_i`` give user i the level
``ε_i^eff = κ w_i / b ≤ ε_i`` (κ = 2 for frequencies, 1 for means).

Reference: Chaudhuri & Courtade, heterogeneous differential privacy for means and frequencies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..framework._doc import document
from ..framework._validate import MIN_EPS, check_choice
from ..framework.constraints import Interval

__all__ = ["PROBLEMS", "VARIANTS", "BASELINES", "ALGORITHMS", "WEIGHTED"]  # the problems' and algorithms' names
__all__ += ["check_bins", "check_demands", "kappa_of", "noise_scale", "eps_effective"]
__all__ += ["objective_value", "Weights", "weight_checks"]

#: this part of hetero's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "hetero"

PROBLEMS = ("frequency", "mean")
VARIANTS = ("CP", "CE", "UP", "UE", "A", "CT", "UT")
BASELINES = ("UNI", "PROP", "SM", "LDP")
ALGORITHMS = VARIANTS + BASELINES
#: the weighted estimators: a weight per user, computed before any release (SM samples users; LDP's
#: weights combine its users' local releases)
WEIGHTED = VARIANTS + ("UNI", "PROP")
_BASES = {
    "CP": ("P1",),
    "CE": ("E1",),
    "UP": ("P1", "P2"),
    "UE": ("E1", "Q2"),
    "A": ("A",),
    "CT": ("P1T",),
    "UT": ("P1T", "P2"),
}
MAX_USERS = 10_000_000


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_DEMANDS = Interval(float, MIN_EPS, None, allow_inf=True)
_BETA = Interval(float, 0.0, 1.0, closed="neither")
_K_2 = Interval(int, 2, 10_000)
_SIZE = Interval(int, 1, 50_000_000)
_TRIALS = Interval(int, 1, 100_000)
_N = Interval(int, 1, MAX_USERS)
_K_3 = Interval(int, 2, 1000)
_EPS_BY_BIN = Interval(float, MIN_EPS, None, allow_inf=True)
_BINS = Interval(int, 1, 1000)
_LOWS = Interval(float, 0.0, None, closed="right", allow_inf=True)
_HIGHS = Interval(float, 0.0, None, closed="right", allow_inf=True)


def check_demands(demands) -> np.ndarray:
    """Demands ε_i ∈ (0, ∞] (∞ = public), 1 to 10 000 000 users."""
    return _DEMANDS.check_vector(
        "demands", demands, max_length=MAX_USERS, what=" (per-user privacy demands; inf = public)"
    )


def kappa_of(problem: str) -> float:
    """The sensitivity constant κ of a problem: 2 for a histogram (one user moves two bins), 1 for a mean."""
    return 2.0 if check_choice("problem", problem, PROBLEMS) == "frequency" else 1.0


def check_bins(problem: str, k: int) -> int:
    """The number of bins K of a problem's release: ``k`` for a histogram (2 to 10 000), 1 for a mean."""
    return _K_2.check("k", k, what=" (number of bins)") if problem == "frequency" else 1


def _consts(problem: str, k: int, beta: float) -> dict:
    K = check_bins(problem, k)
    beta = _BETA.check("beta", beta, what=" (failure probability β)")
    j = np.arange(1, K + 1)
    return {
        "kappa": kappa_of(problem),
        "K": K,
        "H": float(np.sum(1 / j)),
        "S": float(np.sum(1 / j**2)),
        "L1": math.log(K / beta),
        "L2": math.sqrt(math.log(4 * K / beta) / 2),
        "L3": math.log(2 * K / beta),
        "L4": 1 + math.log(2 * K),
    }


def noise_scale(w, demands, kappa: float) -> float:
    """b = κ max_i w_i/ε_i (public users contribute 0)."""
    return float(kappa * _max_ratio(np.asarray(w, float), np.asarray(demands, float)))


def eps_effective(w, b: float, kappa: float) -> np.ndarray:
    """ε_i^eff = κ w_i / b (0 for zero weight; ∞ when b = 0 and w_i > 0 — only public users then)."""
    return _eps_effective(np.asarray(w, float), b, kappa)


def _eps_effective(w: np.ndarray, b: float, kappa: float, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`eps_effective`, written into ``out`` (an array of w's shape) when given."""
    if b == 0:
        return np.where(w > 0, np.inf, 0.0)
    out = np.multiply(kappa, w, out=out)
    out /= b  # (κ w_i)/b in place: the same numbers as kappa * w / b, one array
    return out


#: the base objectives that read Q = ‖w − 1/n‖₂² (the others read only T): only their variants need the
#: prefix sums of ε² (:class:`_Family`'s ``squares``)
_Q_BASES = frozenset({"P1T", "P2", "Q2", "A"})


def _base_value(base: str, T, Q, s, c, n):
    kap = c["kappa"]
    if base == "P1":
        return T + kap * s * c["L1"]
    if base == "E1":
        return (T + kap * c["H"] * s) ** 2 + kap**2 * c["S"] * s**2
    E = np.sqrt(np.maximum(Q, 0.0))
    if base == "P1T":
        return math.sqrt(n) / 2 * E + kap * s * c["L1"]
    if base == "P2":
        return E * c["L2"] + kap * s * c["L3"]
    if base == "Q2":
        return Q * c["L4"] + 2 * kap**2 * s**2 * (c["H"] ** 2 + c["S"])
    return Q / 4 + 2 * kap**2 * s**2  # "A"


def _base_deriv(base: str, T, Q, s, dT, dQ, c, n):
    kap = c["kappa"]
    if base == "P1":
        return dT + kap * c["L1"]
    if base == "E1":
        return 2 * (T + kap * c["H"] * s) * (dT + kap * c["H"]) + 2 * kap**2 * c["S"] * s
    E = np.sqrt(np.maximum(Q, 1e-300))
    dE = dQ / (2 * E)
    if base == "P1T":
        return math.sqrt(n) / 2 * dE + kap * c["L1"]
    if base == "P2":
        return dE * c["L2"] + kap * c["L3"]
    if base == "Q2":
        return dQ * c["L4"] + 4 * kap**2 * s * (c["H"] ** 2 + c["S"])
    return dQ / 4 + 4 * kap**2 * s


def objective_value(variant: str, w, demands, *, problem: str, k: int = 2, beta: float = 0.05) -> float:
    """The variant's objective at weights w (evaluated directly from w)."""
    variant = check_choice("variant", variant, VARIANTS)
    c = _consts(problem, k, beta)
    return _objective(variant, np.asarray(w, float), check_demands(demands), c)


def _objective(
    variant: str, w: np.ndarray, demands: np.ndarray, c: dict, s: float | None = None, scratch: np.ndarray | None = None
) -> float:
    """:func:`objective_value` on validated input (``s``: max_i w_i/ε_i when the caller has it; ``scratch``: an
    array of w's shape it may overwrite, which saves a fresh one — its first touch costs at 10⁶ users)."""
    n = w.size
    s = _max_ratio(w, demands) if s is None else s
    a = np.subtract(w, 1.0 / n, out=scratch)
    Q = float(a @ a)
    T = 0.5 * np.abs(a, out=a).sum()
    return float(min(_base_value(b, T, Q, s, c, n) for b in _BASES[variant]))


def _max_ratio(w: np.ndarray, demands: np.ndarray) -> float:
    """max_i w_i/ε_i over the finite demands (0 if there are none). A public user's ratio is
    w_i/∞ = 0, never above the others' (all ≥ 0), so one pass over everyone gives the same maximum."""
    with np.errstate(invalid="ignore"):
        r = w / demands
    return float(np.max(r)) if np.isfinite(demands).any() else 0.0


@dataclass(frozen=True)
class Weights:
    """Weights in the order the demands were given, with b, ε_eff, the objective and the solver."""

    weights: np.ndarray
    b: float
    eps_eff: np.ndarray
    objective: float
    algorithm: str
    solver: str
    t: float | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)


def weight_checks(*, demands, eps_eff, weights, algorithm: str, b: float) -> list:
    """ε_eff,i = κ w_i / b ≤ ε_i for every user (the release is private for everyone), and the
    weights lie on the simplex. A failure is a numerical failure of the solver, not a finding."""
    from ..framework.checks import check_le

    demands = np.asarray(demands, dtype=float)
    w = np.asarray(weights, dtype=float)
    ins = {"algorithm": algorithm, "b": b}
    return [
        check_le(
            f"{algorithm}: effective ε_i ≤ demanded ε_i", eps_eff, demands, labels=lambda i: f"user {i + 1}", inputs=ins
        ),
        check_le(
            f"{algorithm}: weights on the simplex (|Σw − 1| ≤ 1e-9, w ≥ 0)",
            max(abs(float(w.sum()) - 1.0), float(-w.min(initial=0.0))),
            1e-9,
            inputs=ins,
        ),
    ]


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
