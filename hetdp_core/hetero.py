r"""Per-user privacy: heterogeneous DP for frequencies (HPF) and means (HPM), central model.

n users, public demands ε ∈ (0, ∞]^n (∞ = public), data x_i ∈ {0..k−1} (frequency) or [0, 1]
(mean). Weights w on the simplex; κ = 2 (frequency) or 1 (mean); the release adds Laplace noise of
scale ``b = κ max_i w_i/ε_i`` to ``Σ w_i e_{x_i}`` (projected onto the simplex) or to ``Σ w_i x_i``
(clipped to [0, 1]). User i actually gets ``ε_i^eff = κ w_i / b ≤ ε_i``.

Weight objectives (u = 1/n, a = w − u, T = ½‖a‖₁, E2 = ‖a‖₂, s = max_i w_i/ε_i, K = k or 1,
H_K = Σ_{j≤K} 1/j, S_K = Σ_{j≤K} 1/j²):

* CP: T + κ s log(K/β);   CE: (T + κ H_K s)² + κ² S_K s²;
* UP: the better of CP and E2 √(log(4K/β)/2) + κ s log(2K/β);
* UE: the better of CE and E2²(1 + log 2K) + 2κ² s² (H_K² + S_K);
* A: ¼ E2² + 2κ² s²;   CT / UT: CP / UP with T replaced by its bound (√n/2) E2.

**Structure.** Every objective is minimised on the family w(t)_i = min(t ε_i, μ(t)), Σw = 1,
from proportional (t = 1/Σε) to uniform (t = 1/(n ε_min)) weights (verified against cvxpy in the
tests). On it s(t) = t and T(t) = Σ_i (1/n − t ε_i)₊ (saturated users have w = μ ≥ 1/n), and
between consecutive breakpoints — saturation points 1/G_k and the kinks 1/(n ε_i) — a(t) is affine,
so each objective is convex on each piece. It is also convex in t as a whole: w(t) minimises both
T and E2 over the weights with max_i w_i/ε_i ≤ t, a set convex jointly in (w, t), so T(t) and E2(t)
are convex, and each objective is a non-decreasing convex function of them plus a convex function
of s. :func:`fast_weights` sorts the demands once (prefix sums), locates the minimum by bisection on
the slope's sign (O(log n) per step), then evaluates the breakpoints around it and bisects the
derivative inside the piece that holds it: an exact search costing about two sorts of the demands.
:func:`cvxpy_weights` solves the same convex programs directly.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._doc import document
from ._validate import MIN_EPS, InputError, as_generator, check_choice
from .constraints import NONNEGATIVE, POSITIVE, UNIT, Interval
from .rr import rr_channel, rr_estimate, rr_variance

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PROBLEMS",
    "VARIANTS",
    "BASELINES",
    "ALGORITHMS",
    "check_demands",
    "kappa_of",
    "noise_scale",
    "eps_effective",
    "objective_value",
    "Weights",
    "weight_checks",
    "fast_weights",
    "cvxpy_weights",
    "weights",
    "baseline_weights",
    "project_simplex",
    "simulate",
    "summarize",
    "synthetic_frequency",
    "synthetic_mean",
    "demand_by_bin",
    "demand_by_groups",
    "load_randhie",
    "parse_data_csv",
    "noisy_histogram",
    "value_bins",
    "bias_bound",
]

PROBLEMS = ("frequency", "mean")
VARIANTS = ("CP", "CE", "UP", "UE", "A", "CT", "UT")
BASELINES = ("UNI", "PROP", "SM", "LDP")
ALGORITHMS = VARIANTS + BASELINES
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


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.constraints)
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


def _K(problem: str, k: int) -> int:
    return _K_2.check("k", k, what=" (number of bins)") if problem == "frequency" else 1


def _consts(problem: str, k: int, beta: float) -> dict:
    K = _K(problem, k)
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
    from .checks import check_le

    demands = np.asarray(demands, dtype=float)
    w = np.asarray(weights, dtype=float)
    ins = {"algorithm": algorithm, "b": b}
    return [
        check_le(
            f"{algorithm}: effective ε_i ≤ demanded ε_i",
            eps_eff,
            demands,
            labels=[f"user {i + 1}" for i in range(demands.size)],
            inputs=ins,
        ),
        check_le(
            f"{algorithm}: weights on the simplex (|Σw − 1| ≤ 1e-9, w ≥ 0)",
            max(abs(float(w.sum()) - 1.0), float(-w.min(initial=0.0))),
            1e-9,
            inputs=ins,
        ),
    ]


# ------------------------------------------------------------------ the fast exact solver
class _Family:
    """w(t)_i = min(t ε_i, μ(t)) with prefix sums over the sorted finite demands; ``squares=False``
    leaves out the prefix sums of ε² (P2, and with it Q), which only the bases in :data:`_Q_BASES` read."""

    def __init__(self, demands: np.ndarray, *, squares: bool = True):
        self.n = demands.size
        # the values only: no permutation is needed (weights_at reads demands); arrays are filled in place
        # (each fresh 8 MB array costs a first touch of its memory at 10⁶ users). Validated demands
        # are > 0 or +∞ (no NaN), so the largest one says whether all are finite, in one pass
        self.e = np.sort(demands if demands.max() < np.inf else demands[np.isfinite(demands)])
        self.m = m = self.e.size
        self.p = self.n - m
        # P1_k = Σ_{i≤k} ε_i and P2_k = Σ_{i≤k} ε_i² as the real and imaginary parts of one complex
        # cumulative sum: complex addition adds the two parts separately, so both are exactly the
        # sequential float64 sums, in about one float64 cumulative sum's time (numpy's costs ≈ 3 ns per
        # element, complex or not). Without ``squares`` one float64 cumulative sum gives the same P1 and
        # the array of ε² is not filled
        if squares:
            z = np.empty(m + 1, dtype=np.complex128)
            z[0] = 0.0
            z.real[1:] = self.e
            np.square(self.e, out=z.imag[1:])
            np.cumsum(z[1:], out=z[1:])
            self.P1, self.P2 = z.real, z.imag
        else:
            self.P1, self.P2 = np.empty(m + 1), None
            self.P1[0] = 0.0
            np.cumsum(self.e, out=self.P1[1:])
        # G_k = Σ_{i≤k} ε_i + (n−k) ε_{k+1}, then +∞: built in the array of n − k itself (one 8 MB array
        # instead of two at 10⁶ users)
        self.G = np.arange(self.n, self.n - m - 1, -1, dtype=float)
        self.G[:-1] *= self.e
        self.G[:-1] += self.P1[:-1]
        self.G[-1] = np.inf
        self.t_lo = 0.0 if self.p > 0 else 1.0 / self.P1[-1]
        # uniform weights; never below t_lo (equal demands make both ends one point, and rounding
        # of Σε against n·ε_min must not leave an empty range)
        self.t_hi = max(1.0 / (self.n * self.e[0]), self.t_lo)

    def indices(self, t):
        t = np.asarray(t, float)
        with np.errstate(divide="ignore", over="ignore"):  # t = 0 or subnormal: 1/t = ∞
            inv = np.where(t > 0, 1.0 / t, np.inf)
        # breakpoints and midpoints come sorted (t ascending, 1/t descending): searching the keys in
        # ascending order lets numpy's binary search start from the previous answer (~10× faster
        # than unordered keys at 10⁶ users); same results
        rev = inv.ndim == 1 and inv.size > 1 and bool(inv[0] >= inv[-1]) and bool(np.all(inv[:-1] >= inv[1:]))
        keys = inv[::-1] if rev else inv
        k = np.searchsorted(self.G, keys * (1 - 1e-14), side="left")  # number unsaturated
        r = np.searchsorted(self.e, keys / self.n, side="left")  # ε_i < 1/(n t)
        if rev:
            k, r = k[::-1], r[::-1]
        k = np.minimum(k, self.m if self.p > 0 else self.m - 1)
        return k, np.minimum(r, k)

    def state(self, t, k, r):
        """(T, Q, dT, dQ, μ) for fixed saturation index k and kink index r:
        μ = (1 − tP1_k)/(n − k), T = r/n − tP1_r, Q = t²P2_k − 2tP1_k/n + k/n² + (n−k)(μ − 1/n)²,
        dQ/dt = 2tP2_k − 2P1_k/n − 2(μ − 1/n)P1_k (since (n−k) dμ/dt = −P1_k)."""
        n = self.n
        P1k, P1r = self.P1[k], self.P1[r]
        NS = n - k
        mu = (1.0 - t * P1k) / NS
        T = r / n - t * P1r
        if self.P2 is None:  # a family without the sums of ε²: Q is not asked for
            return T, None, -P1r, None, mu
        P2k = self.P2[k]
        dev = mu - 1.0 / n
        Q = t * (t * P2k - 2.0 * P1k / n) + k / n**2 + NS * dev * dev
        dQ = 2.0 * t * P2k - 2.0 * P1k / n - 2.0 * dev * P1k
        return T, Q, -P1r, dQ, mu

    def weights_at(self, t, demands):
        k, _ = self.indices(np.array([t]))
        mu = float((1.0 - t * self.P1[k[0]]) / (self.n - k[0]))
        if t > 0:  # t·∞ = ∞, so public users get μ from the minimum as well
            w = np.multiply(t, demands)
            np.minimum(w, mu, out=w)
        else:
            w = np.where(np.isfinite(demands), 0.0, mu)
        w /= w.sum()
        return w


def _pieces(fam: _Family, bps: np.ndarray) -> dict:
    """The state at the breakpoints ``bps`` (sorted, unique, consecutive in the family's order) and,
    per piece between two of them, the state at both ends."""
    k, r = fam.indices(bps)
    T, Q, _, _, _ = fam.state(bps, k, r)
    out = {"bps": bps, "T": T, "Q": Q}
    if bps.size > 1:
        lo, hi = bps[:-1], bps[1:]
        kp, rp = fam.indices((lo + hi) / 2)
        out.update(lo=lo, hi=hi, kp=kp, rp=rp, left=fam.state(lo, kp, rp), right=fam.state(hi, kp, rp))
    return out


def _all_breakpoints(fam: _Family) -> np.ndarray:
    """Every breakpoint of the family in [t_lo, t_hi], sorted: the saturation points 1/G_k, the kinks
    1/(n ε_i) and both ends (2m values; the exhaustive search the tests compare with)."""
    n = fam.n
    bps = np.concatenate([[fam.t_lo, fam.t_hi], 1.0 / fam.G[:-1], 1.0 / (n * fam.e)])
    return np.unique(bps[(bps >= fam.t_lo) & (bps <= fam.t_hi)])


_WINDOW = 8  # breakpoints of each kind kept on either side of the located minimiser


def _breakpoints_near(fam: _Family, t: float, width: int = _WINDOW) -> np.ndarray:
    """The breakpoints around t: up to ``width`` saturation points and ``width`` kinks on each side,
    cut to the stretch where both kinds are complete, so consecutive values are consecutive
    breakpoints of the whole family (the same floats :func:`_all_breakpoints` computes)."""
    n, m = fam.n, fam.m
    inv = 1.0 / t if t > 0 else np.inf
    G = fam.G[:-1]  # ascending, so 1/G_j descends with j
    j0 = int(np.searchsorted(G, inv))
    j_lo, j_hi = max(j0 - width, 0), min(j0 + width, m)
    sat = 1.0 / G[j_lo:j_hi]
    i0 = int(np.searchsorted(fam.e, inv / n))  # ε ascending, so 1/(n ε_i) descends with i
    i_lo, i_hi = max(i0 - width, 0), min(i0 + width, m)
    kink = 1.0 / (n * fam.e[i_lo:i_hi])
    # each kind is complete between its extreme window values (or to ±∞ where its window reaches the end)
    low = max(sat[-1] if j_hi < m else -np.inf, kink[-1] if i_hi < m else -np.inf, fam.t_lo)
    high = min(sat[0] if j_lo > 0 else np.inf, kink[0] if i_lo > 0 else np.inf, fam.t_hi)
    bps = np.concatenate([[fam.t_lo, fam.t_hi], sat, kink])
    return np.unique(bps[(bps >= low) & (bps <= high)])


def _locate_minimum(fam: _Family, base: str, c: dict) -> float:
    """Bisection on the sign of the objective's slope along t. Every base objective is convex in t
    on the family: for each t the family's w(t) minimises T and ‖w − 1/n‖₂ over the weights with
    max_i w_i/ε_i ≤ t, a set convex jointly in (w, t), so T(t) and E2(t) are convex value functions
    and each objective is a non-decreasing convex function of (T or E2) plus a convex one of s = t.
    The slope inside the piece holding t therefore grows with t."""
    n = fam.n
    lo, hi = fam.t_lo, fam.t_hi
    for _ in range(1100):  # enough to reach adjacent doubles from any starting interval
        mid = lo + (hi - lo) / 2
        if not lo < mid < hi:
            break
        k, r = fam.indices(np.array([mid]))
        T, Q, dT, dQ, _ = fam.state(mid, k[0], r[0])
        if _base_deriv(base, T, Q, mid, dT, dQ, c, n) < 0:
            lo = mid
        else:
            hi = mid
    return lo + (hi - lo) / 2


def _minimise_base(fam: _Family, pieces: dict, base: str, c: dict, ends: dict | None = None) -> tuple[float, float]:
    """Exact minimiser t of one base objective over the pieces (breakpoints + interior roots); ``ends``
    holds the breakpoints to compare with that lie outside the pieces (the family's two ends)."""
    n = fam.n
    bps, T, Q = pieces["bps"], pieces["T"], pieces["Q"]
    if ends is not None:
        bps, T, Q = ends["bps"], ends["T"], ends["Q"]
    vals = _base_value(base, T, Q, bps, c, n)
    best_i = int(np.argmin(vals))
    best_t, best_v = float(bps[best_i]), float(vals[best_i])
    if pieces["bps"].size > 1:
        lo, hi, kp, rp = pieces["lo"], pieces["hi"], pieces["kp"], pieces["rp"]
        Tl, Ql, dTl, dQl, _ = pieces["left"]
        Th, Qh, dTh, dQh, _ = pieces["right"]
        dl = _base_deriv(base, Tl, Ql, lo, dTl, dQl, c, n)
        dh = _base_deriv(base, Th, Qh, hi, dTh, dQh, c, n)
        inner = np.flatnonzero((dl < 0) & (dh > 0))  # convex piece with an interior minimum
        if inner.size:
            a, b_ = lo[inner].copy(), hi[inner].copy()
            kk, rr = kp[inner], rp[inner]
            for _ in range(80):
                mid = (a + b_) / 2
                T_, Q_, dT_, dQ_, _ = fam.state(mid, kk, rr)
                neg = _base_deriv(base, T_, Q_, mid, dT_, dQ_, c, n) < 0
                a, b_ = np.where(neg, mid, a), np.where(neg, b_, mid)
            tm = (a + b_) / 2
            T_, Q_, _, _, _ = fam.state(tm, kk, rr)
            v = _base_value(base, T_, Q_, tm, c, n)
            j = int(np.argmin(v))
            if v[j] < best_v:
                best_t, best_v = float(tm[j]), float(v[j])
    return best_t, best_v


#: below this many finite demands every breakpoint is searched (a few vectorised passes cost less than
#: the bisection's Python steps); above it, only those around the located minimum
_SEARCH_ALL_BELOW = 4096


def _minimise_near(fam: _Family, base: str, c: dict) -> tuple[float, float]:
    """The exact minimiser of one base objective, searching only the pieces around the located
    minimum (plus both ends of the family): the same candidates, values and tie-breaking as the
    search over every breakpoint, at O(log n) cost after the sort. Small families search every
    breakpoint (:data:`_SEARCH_ALL_BELOW`)."""
    if fam.m < _SEARCH_ALL_BELOW:
        return _minimise_base(fam, _pieces(fam, _all_breakpoints(fam)), base, c)
    near = _breakpoints_near(fam, _locate_minimum(fam, base, c))
    pieces = _pieces(fam, near)
    ends = np.unique(np.concatenate([near, [fam.t_lo, fam.t_hi]]))
    k, r = fam.indices(ends)
    T, Q, _, _, _ = fam.state(ends, k, r)
    return _minimise_base(fam, pieces, base, c, {"bps": ends, "T": T, "Q": Q})


def fast_weights(demands, *, variant: str, problem: str, k: int = 2, beta: float = 0.05) -> Weights:
    """Exact O(n log n) minimiser over the family w(t) (see the module docstring)."""
    demands = check_demands(demands)
    variant = check_choice("variant", variant, VARIANTS)
    c = _consts(problem, k, beta)
    n = demands.size
    kap = c["kappa"]
    if demands.min() == np.inf:  # everyone public (validated demands: > 0 or +∞): uniform, no noise
        w = np.full(n, 1.0 / n)
        return Weights(
            w,
            0.0,
            eps_effective(w, 0.0, kap),
            _objective(variant, w, demands, c),
            variant,
            "fast",
            None,
            "all users public",
        )
    fam = _Family(demands, squares=not _Q_BASES.isdisjoint(_BASES[variant]))
    best = min((_minimise_near(fam, base, c) for base in _BASES[variant]), key=lambda tv: tv[1])
    w = fam.weights_at(best[0], demands)
    # one array serves as w/ε, then as the objective's scratch, then holds ε_eff (a fresh one if b = 0:
    # the minimiser may put all weight on public users)
    buf = np.divide(w, demands)
    s = float(buf.max())  # max_i w_i/ε_i: some demand is finite here (public users give 0)
    b = float(kap * s)  # noise_scale(w, demands, kap), computed once for b and the objective
    obj = _objective(variant, w, demands, c, s, scratch=buf)
    return Weights(w, b, _eps_effective(w, b, kap, out=buf), obj, variant, "fast", best[0])


def cvxpy_weights(demands, *, variant: str, problem: str, k: int = 2, beta: float = 0.05) -> Weights:
    """The weights of a variant solved by cvxpy (falls back to the exact fast solver, saying why)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "may be inaccurate": status is reported
        return _cvxpy_weights(demands, variant=variant, problem=problem, k=k, beta=beta)


def _cvxpy_weights(demands, *, variant: str, problem: str, k: int = 2, beta: float = 0.05) -> Weights:
    """The same objectives solved directly by cvxpy (Clarabel, then SCS). Any solver failure falls
    back to :func:`fast_weights`, reported in ``solver`` and ``note`` (never raised)."""
    import cvxpy as cp

    demands = check_demands(demands)
    variant = check_choice("variant", variant, VARIANTS)
    c = _consts(problem, k, beta)
    n = demands.size

    def fallback(solver: str, note: str) -> Weights:  # the exact fast solver, saying why
        res = fast_weights(demands, variant=variant, problem=problem, k=k, beta=beta)
        return dataclasses.replace(res, solver=solver, note=note)

    if n > 200_000:
        return fallback("fast (cvxpy skipped: n > 200 000)", "cvxpy is not attempted above 200 000 users")
    fin = np.isfinite(demands)
    kap = c["kappa"]
    best = None
    note = ""
    for base in _BASES[variant]:
        w = cp.Variable(n, nonneg=True)
        s = cp.Variable(nonneg=True)
        a = w - 1.0 / n
        T, E = 0.5 * cp.norm1(a), cp.norm2(a)
        cons = [cp.sum(w) == 1]
        if fin.any():
            cons.append(w[fin] <= s * demands[fin])
        if base == "P1":
            obj = T + kap * c["L1"] * s
        elif base == "P1T":
            obj = math.sqrt(n) / 2 * E + kap * c["L1"] * s
        elif base == "E1":
            z = cp.Variable(nonneg=True)
            cons.append(z >= T + kap * c["H"] * s)
            obj = cp.square(z) + kap**2 * c["S"] * cp.square(s)
        elif base == "P2":
            obj = c["L2"] * E + kap * c["L3"] * s
        elif base == "Q2":
            obj = c["L4"] * cp.sum_squares(a) + 2 * kap**2 * (c["H"] ** 2 + c["S"]) * cp.square(s)
        else:
            obj = cp.sum_squares(a) / 4 + 2 * kap**2 * cp.square(s)
        prob = cp.Problem(cp.Minimize(obj), cons)
        ok = False
        for solver, opts in (
            (cp.CLARABEL, {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}),
            (cp.SCS, {"eps": 1e-9}),
        ):
            try:
                prob.solve(solver=solver, **opts)
                ok = w.value is not None and prob.status in ("optimal", "optimal_inaccurate")
            except (cp.error.SolverError, ArithmeticError, ValueError) as exc:
                note = f"{solver} failed: {type(exc).__name__}"
                ok = False
            if ok:
                break
        if not ok:
            return fallback("fast (cvxpy failed)", note or f"cvxpy status {prob.status}")
        wv = np.clip(np.asarray(w.value, float), 0.0, None)
        wv = wv / wv.sum()
        val = objective_value(variant, wv, demands, problem=problem, k=k, beta=beta)
        if best is None or val < best[1]:
            best = (wv, val)
    wv = best[0]
    b = noise_scale(wv, demands, kap)
    return Weights(wv, b, eps_effective(wv, b, kap), best[1], variant, "cvxpy", None, note)


def baseline_weights(demands, *, algorithm: str, problem: str) -> Weights:
    """UNI (w = 1/n) and PROP (w ∝ ε; with public users all weight goes to them — degenerate)."""
    demands = check_demands(demands)
    algorithm = check_choice("algorithm", algorithm, ("UNI", "PROP"))
    kap = kappa_of(problem)
    n = demands.size
    if algorithm == "UNI":
        w = np.full(n, 1.0 / n)
        note = ""
    elif np.isinf(demands).any():
        w = np.where(np.isinf(demands), 1.0, 0.0)
        w = w / w.sum()
        note = "public users take all the weight: everyone else is ignored"
    else:
        w = demands / demands.sum()
        note = ""
    b = noise_scale(w, demands, kap)
    return Weights(w, b, eps_effective(w, b, kap), float("nan"), algorithm, "closed form", None, note)


def weights(demands, *, algorithm: str, problem: str, k: int = 2, beta: float = 0.05, solver: str = "fast") -> Weights:
    """Weights of any weighted algorithm (variants, UNI, PROP)."""
    algorithm = check_choice("algorithm", algorithm, VARIANTS + ("UNI", "PROP"))
    solver = check_choice("solver", solver, ("fast", "cvxpy"))
    if algorithm in ("UNI", "PROP"):
        return baseline_weights(demands, algorithm=algorithm, problem=problem)
    fn = fast_weights if solver == "fast" else cvxpy_weights
    return fn(demands, variant=algorithm, problem=problem, k=k, beta=beta)


# ------------------------------------------------------------------ releases and simulation
def project_simplex(v) -> np.ndarray:
    """Euclidean projection of each row of v onto the probability simplex (sort-based)."""
    v = np.asarray(v, float)
    u = np.sort(v, axis=-1)[..., ::-1]
    css = np.cumsum(u, axis=-1) - 1.0
    idx = np.arange(1, v.shape[-1] + 1)
    cond = u - css / idx > 0
    rho = v.shape[-1] - 1 - np.argmax(cond[..., ::-1], axis=-1)
    theta = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1)
    return np.maximum(v - theta, 0.0)


def _check_data(x, problem: str, k: int) -> np.ndarray:
    if problem == "frequency":
        x = Interval(float, 0, k - 1).check_vector("x", x, max_length=MAX_USERS, what=f" (bins 0..{k - 1})")
        if np.any(x != np.round(x)):
            raise InputError("x must hold whole bin indices for the frequency problem.")
        return x.astype(np.int64)
    return UNIT.check_vector("x", x, max_length=MAX_USERS, what=" (values in [0, 1])")


def _weighted_stat(x, w, problem, k):
    return np.bincount(x, weights=w, minlength=k) if problem == "frequency" else float(w @ x)


def _ldp_weights(v: np.ndarray) -> np.ndarray:
    """LDP combination: minimise T² + Σ w_i² v_i on the simplex (T = ½‖w − u‖₁, v_i the variance of
    user i's unbiased estimate), solved by cvxpy. If the solver fails, the fallback is the
    inverse-variance weighting w ∝ 1/v (users with v = 0, i.e. public users, share all the weight);
    it is not capped."""
    import cvxpy as cp

    n = v.size
    w = cp.Variable(n, nonneg=True)
    obj = cp.square(0.5 * cp.norm1(w - 1.0 / n)) + cp.sum(cp.multiply(v, cp.square(w)))
    prob = cp.Problem(cp.Minimize(obj), [cp.sum(w) == 1])
    try:
        prob.solve(solver=cp.CLARABEL)
        if w.value is not None and prob.status in ("optimal", "optimal_inaccurate"):
            out = np.clip(np.asarray(w.value, float), 0, None)
            return out / out.sum()
    except (cp.error.SolverError, ArithmeticError, ValueError):
        pass
    inv = np.where(v > 0, 1.0 / np.maximum(v, 1e-300), 1e300)
    return inv / inv.sum()


def noisy_histogram(x, weights_, *, b: float, k: int, size: int = 1, rng=None) -> np.ndarray:
    """HPF release before projection: Σ_i w_i e_{x_i} + Lap(b)^k, shape (size, k)."""
    k = _K_2.check("k", k)
    x = _check_data(x, "frequency", k)
    w = NONNEGATIVE.check_vector("weights", weights_, length=x.size)
    b = NONNEGATIVE.check("b", b, what=" (noise scale)")
    size = _SIZE.check("size", size)
    hist = np.bincount(x, weights=w, minlength=k)
    return hist + (as_generator(rng).laplace(0.0, b, (size, k)) if b > 0 else np.zeros((size, k)))


def bias_bound(w) -> float:
    """T = ½‖w − u‖₁: the worst-case bias of the weighted statistic (frequency: in ℓ∞; mean: absolute)."""
    w = np.asarray(w, float)
    return float(0.5 * np.abs(w - 1.0 / w.size).sum())


@dataclass
class _Run:
    """What every simulated release of :func:`simulate` shares, and where it writes its results."""

    problem: str
    k: int
    trials: int
    rng: np.random.Generator
    perm: Callable
    truth: np.ndarray | float
    errs: np.ndarray
    ests: np.ndarray
    info: dict


def _simulate_weighted(x, demands, *, run: _Run, algorithm: str, beta: float, solver: str, w, setting: str) -> None:
    """The weighted estimators (the variants, UNI, PROP): every trial's release into ``run``."""
    problem, k, trials, rng, perm, truth = run.problem, run.k, run.trials, run.rng, run.perm, run.truth
    errs, ests, info = run.errs, run.ests, run.info
    wt = w or weights(demands, algorithm=algorithm, problem=problem, k=max(k, 2), beta=beta, solver=solver)
    info.update(b=wt.b, weights=wt.weights, eps_eff=wt.eps_eff, note=wt.note, solver=wt.solver)
    # vectorised over trials, drawing in the same order as one trial after another (the same
    # numbers): correlated — one statistic, then every trial's noise in one call; uncorrelated —
    # each trial's permutation and noise in turn (the statistic per trial is one bincount)
    shape = (trials, k) if problem == "frequency" else (trials,)
    if setting == "correlated":
        stats = np.broadcast_to(_weighted_stat(x, wt.weights, problem, k), shape)
        noise = rng.laplace(0.0, wt.b, shape) if wt.b > 0 else 0.0
    else:
        stats, noise = np.empty(shape), np.zeros(shape)
        for t_ in range(trials):
            stats[t_] = _weighted_stat(perm(t_), wt.weights, problem, k)
            if wt.b > 0:
                noise[t_] = rng.laplace(0.0, wt.b, k) if problem == "frequency" else rng.laplace(0.0, wt.b)
    if problem == "frequency":
        ests[:] = project_simplex(stats + noise) if wt.b > 0 else stats
        errs[:] = np.max(np.abs(ests - truth), axis=1)
    else:
        ests[:] = np.clip(stats + noise, 0.0, 1.0)
        errs[:] = np.abs(ests - truth)


def _simulate_sm(x, demands, *, run: _Run, sm_threshold: str) -> None:
    """The sample mechanism: every trial's release into ``run``."""
    problem, k, trials, rng, perm, truth = run.problem, run.k, run.trials, run.rng, run.perm, run.truth
    errs, ests, info, n = run.errs, run.ests, run.info, x.size
    fin = np.isfinite(demands)
    thr = (np.max(demands[fin]) if fin.any() else np.inf) if sm_threshold == "max_finite" else np.max(demands)
    with np.errstate(over="ignore", invalid="ignore"):
        keep_p = np.where(
            np.isinf(demands),
            1.0,
            np.where(
                np.isinf(thr),
                0.0,
                np.expm1(np.minimum(demands, 700)) / np.expm1(min(thr, 700)) if np.isfinite(thr) else 0.0,
            ),
        )
    keep_p = np.clip(keep_p, 0.0, 1.0)
    info.update(threshold=float(thr), keep_probability=keep_p)
    for t_ in range(trials):
        xs = perm(t_)[rng.random(n) < keep_p]
        ns = xs.size
        if ns == 0:
            est = np.full(k, 1.0 / k) if problem == "frequency" else 0.5
        elif problem == "frequency":
            noisy = np.bincount(xs, minlength=k) + (rng.laplace(0.0, 2.0 / thr, k) if np.isfinite(thr) else 0.0)
            est = project_simplex(noisy / ns)
        else:
            est = min(max(xs.mean() + (rng.laplace(0.0, 1.0 / (ns * thr)) if np.isfinite(thr) else 0.0), 0.0), 1.0)
        errs[t_] = np.max(np.abs(est - truth)) if problem == "frequency" else abs(est - truth)
        ests[t_] = est


def _simulate_ldp(x, demands, *, run: _Run) -> None:
    """The local-DP baseline: every trial's release into ``run``."""
    problem, k, trials, rng, perm, truth = run.problem, run.k, run.trials, run.rng, run.perm, run.truth
    errs, ests, info, n = run.errs, run.ests, run.info, x.size
    if n > 50_000:
        raise InputError(
            f"the LDP baseline solves a cvxpy problem over all users; n = {n} exceeds 50 000. Use fewer users for LDP."
        )
    fin = np.isfinite(demands)
    if problem == "mean":
        v = np.where(fin, 2.0 / np.where(fin, demands, 1.0) ** 2, 0.0)
    else:
        # k-RAPPOR: each bit is randomized response at ε/2 (:mod:`hetdp_core.rr`), flipped with probability
        # f, so the observed bit is Bernoulli with variance f(1 − f) whatever the true bit, and the unbiased
        # (y − f)/(1 − 2f) has variance f(1 − f)/(1 − 2f)². The user's own value is fixed (the target is
        # the empirical frequency), so no sampling variance is added. (An earlier version added 0.25.)
        half = demands / 2  # a public user (ε = ∞) sends the bits as they are: f = 0, no variance
        f = rr_channel(half)[1]
        v = rr_variance(f, eps=half)
    wl = _ldp_weights(v)
    info.update(weights=wl, ldp_variance=v)
    for t_ in range(trials):
        xs = perm(t_)
        if problem == "mean":
            y = xs + np.where(fin, rng.laplace(0.0, 1.0, n) / np.where(fin, demands, 1.0), 0.0)
            est = min(max(float(wl @ y), 0.0), 1.0)
            errs[t_] = abs(est - truth)
            ests[t_] = est
        else:
            onehot = np.zeros((n, k))
            onehot[np.arange(n), xs] = 1.0
            flip = rng.random((n, k)) < f[:, None]
            y = np.where(flip, 1.0 - onehot, onehot)
            unb = rr_estimate(y, eps=half[:, None])
            est = project_simplex(wl @ unb)
            errs[t_] = np.max(np.abs(est - truth))
            ests[t_] = est


def simulate(
    x,
    demands,
    *,
    algorithm: str,
    problem: str,
    k: int = 2,
    beta: float = 0.05,
    trials: int = 200,
    setting: str = "correlated",
    rng=None,
    solver: str = "fast",
    sm_threshold: str = "max_finite",
    w: Weights | None = None,
) -> dict:
    """Errors of ``trials`` independent releases: ‖p̂ − p‖_∞ (frequency) or |μ̂ − x̄| (mean); also
    the released ``estimates`` (trials × k, or trials) and the ``truth`` they estimate.

    ``setting="uncorrelated"`` re-permutes the values against the demands every trial. SM: keep user
    i with probability (e^{ε_i} − 1)/(e^t − 1) (public: 1), then the homogeneous t-DP estimator on the
    sample (noisy counts / sample mean with Laplace noise; the sample size is treated as public);
    ``sm_threshold`` ``max_finite`` (our default) or ``max`` (the paper: max over all users, so one
    public user makes t = ∞ and the others are never sampled). LDP: ε_i-LDP channel per user
    (Laplace(1/ε_i) for means, k-RAPPOR bit flips with probability 1/(1 + e^{ε_i/2})), unbiased per-user
    estimates combined with weights minimising T² + Σ w_i² v_i (cvxpy)."""
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    problem = check_choice("problem", problem, PROBLEMS)
    k = _K(problem, k) if problem == "frequency" else 1
    demands = check_demands(demands)
    x = _check_data(x, problem, k)
    if x.size != demands.size:
        raise InputError(f"x and demands must have one entry per user; got {x.size} values and {demands.size} demands.")
    trials = _TRIALS.check("trials", trials, what=" (repetitions)")
    setting = check_choice("setting", setting, ("correlated", "uncorrelated"))
    sm_threshold = check_choice("sm_threshold", sm_threshold, ("max_finite", "max"))
    if trials * x.size > 200_000_000:
        raise InputError(f"compute size: trials × n = {trials * x.size:.3g} exceeds 2e8. Reduce trials or n.")
    rng = as_generator(rng)
    n = x.size
    truth = np.bincount(x, minlength=k) / n if problem == "frequency" else float(x.mean())
    info: dict = {}

    def perm(t_):
        return x if setting == "correlated" else x[rng.permutation(n)]

    errs = np.empty(trials)
    ests = np.empty((trials, k)) if problem == "frequency" else np.empty(trials)
    run = _Run(problem, k, trials, rng, perm, truth, errs, ests, info)
    if algorithm in VARIANTS + ("UNI", "PROP"):
        _simulate_weighted(x, demands, run=run, algorithm=algorithm, beta=beta, solver=solver, w=w, setting=setting)
    elif algorithm == "SM":
        _simulate_sm(x, demands, run=run, sm_threshold=sm_threshold)
    else:
        _simulate_ldp(x, demands, run=run)
    return {"errors": errs, "info": info, "estimates": ests, "truth": truth}


def summarize(errors, *, beta: float) -> dict:
    """PAC error = (1 − β)-quantile; MSE = mean squared error."""
    e = np.asarray(errors, float)
    return {"pac": float(np.quantile(e, 1 - beta)), "mse": float(np.mean(e**2)), "median": float(np.median(e))}


# ------------------------------------------------------------------ data and demand profiles
def synthetic_frequency(*, n: int, k: int, profile: str = "peaked", rng=None) -> np.ndarray:
    """n values in bins 0..k−1: ``uniform``, ``peaked`` (binomial-like, central bins common) or ``skewed``."""
    n = _N.check("n", n)
    k = _K_3.check("k", k, what=" (number of bins)")
    profile = check_choice("profile", profile, ("uniform", "peaked", "skewed"))
    j = np.arange(k)
    if profile == "uniform":
        p = np.ones(k)
    elif profile == "peaked":
        p = np.exp(-0.5 * ((j - (k - 1) / 2) / max(k / 5, 0.5)) ** 2)
    else:
        p = 1.0 / (1 + j)
    return as_generator(rng).choice(k, size=n, p=p / p.sum())


def synthetic_mean(*, n: int, rng=None) -> np.ndarray:
    """n values in [0, 1] from Beta(2, 5) (a skewed 'income-like' shape)."""
    return as_generator(rng).beta(2.0, 5.0, _N.check("n", n))


def demand_by_bin(x, *, eps_by_bin) -> np.ndarray:
    """Correlated demands: user i gets eps_by_bin[x_i] (e.g. central bins less private)."""
    e = _EPS_BY_BIN.check_vector("eps_by_bin", eps_by_bin, max_length=1000)
    x = np.asarray(x)
    if x.min() < 0 or x.max() >= e.size:
        raise InputError(
            f"eps_by_bin (ε per bin) needs one demand for each of the {int(x.max()) + 1} bins "
            f"(0..{int(x.max())}); got {e.size}. Add or remove entries in the “ε per bin” list."
        )
    return e[x.astype(int)]


def value_bins(x, *, bins: int) -> np.ndarray:
    """Equal-width bins of values in [0, 1] (for demands that depend on the value in the mean problem)."""
    x = UNIT.check_vector("x", x, max_length=MAX_USERS)
    bins = _BINS.check("bins", bins)
    return np.minimum((x * bins).astype(int), bins - 1)


def demand_by_groups(*, n: int, shares, lows, highs, rng=None) -> np.ndarray:
    """Uncorrelated demands: groups with the given shares of users, each with ε log-uniform in
    [low, high] (high = inf makes the group public)."""
    n = _N.check("n", n)
    shares = POSITIVE.check_vector("shares", shares, max_length=50, what=" (share of users per group)")
    lows = _LOWS.check_vector("lows", lows, length=shares.size)
    highs = _HIGHS.check_vector("highs", highs, length=shares.size)
    if abs(shares.sum() - 1) > 1e-6:
        raise InputError(f"shares must sum to 1; they sum to {shares.sum():.6g}. Adjust the group shares.")
    if np.any(highs < lows):
        raise InputError("each group's ε range must have low <= high.")
    rng = as_generator(rng)
    counts = np.floor(shares * n).astype(int)
    counts[np.argmax(shares)] += n - counts.sum()
    out = []
    for c, lo, hi in zip(counts, lows, highs):
        if np.isinf(lo):  # a public group (low = high = inf)
            out.append(np.full(c, np.inf))
        elif np.isinf(hi):
            raise InputError(f"a group's ε range must be finite, or public with low = high = inf; got [{lo:g}, inf].")
        elif hi == lo:
            out.append(np.full(c, lo))
        else:
            out.append(np.exp(rng.uniform(np.log(lo), np.log(hi), c)))
    return rng.permutation(np.concatenate(out))


def load_randhie(path) -> pd.DataFrame:
    """The bundled RAND HIE person file (see data/README.md)."""
    import pandas as pd

    return pd.read_csv(path)


def parse_data_csv(data: bytes, *, column: str | None = None, max_rows: int = 1_000_000) -> tuple[np.ndarray, str]:
    """An uploaded CSV (untrusted): ≤ 20 MB, header row, the chosen (or first) numeric column,
    no missing values. Returns (values, column name)."""

    import pandas as pd

    from .uploads import PER_USER_LIMITS, check_csv_bytes, read_csv

    check_csv_bytes(data, PER_USER_LIMITS, what="the uploaded CSV")  # before the parser reads the body
    header = [
        h.strip().strip('"')
        for h in bytes(data[: data.find(b"\n") if b"\n" in data else len(data)]).decode("utf-8").split(",")
    ]
    col = column if column is not None else header[0]
    if col not in header:
        raise InputError(f"column {col!r} not found; available: {', '.join(header[:20])}.")
    df = read_csv(data, max_rows=max_rows, usecols=[header.index(col)])
    if len(df) < 2:
        raise InputError("the CSV needs at least 2 rows (users).")
    col = df.columns[0]
    if not pd.api.types.is_numeric_dtype(df[col]):
        raise InputError(f"column {col!r} is not numeric.")
    vals = df[col].to_numpy(dtype=float)
    if not np.all(np.isfinite(vals)):
        raise InputError(
            f"column {col!r} has missing or non-finite values (row {int(np.argmin(np.isfinite(vals))) + 1})."
        )
    return vals, str(col)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core._doc)
