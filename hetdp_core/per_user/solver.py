r"""Per-user privacy's optimal weights: the fast exact solver on the family w(t)_i = min(t ε_i, μ(t)), the same
convex programs solved by cvxpy, and the baselines' weights (the argument that the family holds the optimum:
:mod:`hetdp_core.per_user.hetero`).

:func:`fast_weights` sorts the demands once (prefix sums), locates the minimum by bisection on the slope's sign,
then evaluates the breakpoints around it and bisects the derivative inside the piece that holds it.

Reference: Chaudhuri & Courtade, heterogeneous differential privacy for means and frequencies.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..framework._doc import document
from ..framework._validate import check_choice
from .objectives import (
    _BASES,
    _Q_BASES,
    VARIANTS,
    WEIGHTED,
    Weights,
    _base_deriv,
    _base_value,
    _consts,
    _eps_effective,
    _objective,
    check_demands,
    eps_effective,
    kappa_of,
    noise_scale,
    objective_value,
)

__all__ = ["weights", "fast_weights", "cvxpy_weights", "baseline_weights"]

#: this part of hetero's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "hetero"


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
    algorithm = check_choice("algorithm", algorithm, WEIGHTED)
    solver = check_choice("solver", solver, ("fast", "cvxpy"))
    if algorithm in ("UNI", "PROP"):
        return baseline_weights(demands, algorithm=algorithm, problem=problem)
    fn = fast_weights if solver == "fast" else cvxpy_weights
    return fn(demands, variant=algorithm, problem=problem, k=k, beta=beta)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
