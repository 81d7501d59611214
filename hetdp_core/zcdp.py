r"""Group-wise zCDP lab (A. Azize, *Open problem: better privacy guarantees for larger groups*, 2023).

Counts ``x_i`` for k groups are released with relative error r; σ² = 1/(2ρ).

* **Algorithm 1**: ``X_i ~ N(x_i, σ²)``, then ``Y_i ~ N(X_i, (r X_i)²)``. Accuracy bound
  ``E|Y_i − x_i| ≤ r x_i + σ√(1+r²)``. Y is a post-processing of the Gaussian mechanism X, so it is
  ρ-zCDP for every group (D_α ≤ αρ); the open question is whether the loss *decreases* with x_i.
  The divergence has no closed form: we compute it numerically (see :func:`renyi_algorithm1`).
* **Algorithm 2**: ``X_i ~ N(x_i, (r x_i)²)``. Accuracy ``E|X_i − x_i| ≤ r x_i``. The paper claims
  group-wise zCDP with ``v_i = 1/(2 r² x_i²)``, ``ξ_i = 2 log(1 + 1/x_i)``; group-wise zCDP needs
  **both** directions ``D_α(M(D)‖M(D'))`` and ``D_α(M(D')‖M(D))`` ≤ α v_i + ξ_i for neighbours
  x_i ± 1 and all α > 1. The reverse direction is +∞ once ``s_α² ≤ 0``, i.e. for
  ``α ≥ (x+1)²/(2x+1)`` (neighbour x+1): the claim fails there.

Rényi divergence of Gaussians (s_α² = α s2² + (1−α) s1²):

.. math:: D_\alpha(N(\mu_1,s_1^2)\|N(\mu_2,s_2^2)) = \log\frac{s_2}{s_1} + \frac{\log(s_2^2/s_\alpha^2)}{2(\alpha-1)}
          + \frac{\alpha(\mu_1-\mu_2)^2}{2 s_\alpha^2},\qquad +\infty \text{ if } s_\alpha^2 \le 0.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp

from ._doc import document
from ._validate import InputError, as_generator
from .constraints import UNIT, Interval
from .gdp import mu_from_rho
from .memo import Memo, shared_store

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "sigma_from_rho",
    "renyi_gaussian",
    "release",
    "accuracy_bound",
    "claimed_budget",
    "renyi_algorithm2",
    "renyi_algorithm1",
    "log_density_algorithm1",
    "renyi_monte_carlo_algorithm1",
    "RenyiCurves",
    "renyi_curves",
    "ClaimCheck",
    "claim_reference",
    "check_claim",
    "curve_checks",
    "NeighbourOrders",
    "algorithm2_infinite_from",
    "algorithm2_violation_orders",
    "renyi_algorithm1_detail",
    "algorithm1_seconds",
    "Algorithm1Divergence",
    "ALG1_REL_TOL",
    "zipf_counts",
    "divergence_vs_size",
    "group_summary",
    "release_summary",
    "Monotonicity",
    "loss_monotonicity",
    "validate_counts",
]

ALGORITHMS = (1, 2)
MAX_ALPHA = 1000.0
#: Accepted zCDP levels (σ = √(1/(2ρ)) between 7e-4 and 707: below MIN_RHO the release is noise
#: at any group size we accept, and σ overflows for denormal ρ) and largest group count.
MIN_RHO = 1e-6
MAX_RHO = 1e6
MAX_COUNT = 1e12


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.constraints)
_RHO = Interval(float, MIN_RHO, MAX_RHO)
_ALPHA = Interval(float, 1.0, MAX_ALPHA, closed="right")
_COUNTS = Interval(float, 0.0, MAX_COUNT)
_R = Interval(float, 0.0, 10.0, closed="right")
_ALGORITHM = Interval(int, 1, 2)
_TRIALS = Interval(int, 1, 10_000_000)
_FINE = Interval(float, 0.25, 8.0)
_SAMPLES = Interval(int, 100, 10_000_000)
_ALPHA_MAX = Interval(float, 1.0, MAX_ALPHA, closed="right")
_K = Interval(int, 1, 10_000)
_TOTAL = Interval(int, 0, 10**12)
_S = Interval(float, 0.0, 10.0)


def sigma_from_rho(rho: float) -> float:
    """σ = 1/√(2ρ): the Gaussian noise on sensitivity 1 that is ρ-zCDP (σ = Δ/μ, :func:`hetdp_core.gdp.mu_from_rho`)."""
    return 1.0 / mu_from_rho(_RHO.check("rho", rho, what=" (zCDP level)"))


def _alphas(alpha) -> np.ndarray:
    return _ALPHA.check_vector("alpha", np.atleast_1d(alpha), max_length=10_000, what=" (Rényi orders, each > 1)")


def renyi_gaussian(*, alpha, mu1, s1, mu2, s2) -> np.ndarray:
    """D_α(N(μ1, s1²) ‖ N(μ2, s2²)), broadcast over all arguments; +inf when s_α² ≤ 0.

    Degenerate scales: two point masses give 0 if equal and +inf otherwise; a point mass against
    a Gaussian (either way) is +inf (mutually singular).
    """
    a = _alphas(alpha) if np.ndim(alpha) else np.asarray(_alphas(alpha)[0])
    mu1, s1, mu2, s2 = (np.asarray(v, dtype=float) for v in (mu1, s1, mu2, s2))
    for name, v in (("mu1", mu1), ("mu2", mu2), ("s1", s1), ("s2", s2)):
        if not np.all(np.isfinite(v)):
            raise InputError(f"{name} must be finite; got {v}.")
    if np.any(s1 < 0) or np.any(s2 < 0):
        raise InputError("s1 and s2 must be >= 0 (standard deviations).")
    a, mu1, s1, mu2, s2 = np.broadcast_arrays(a, mu1, s1, mu2, s2)
    out = np.full(a.shape, np.inf)
    both0 = (s1 == 0) & (s2 == 0)
    out[both0 & (mu1 == mu2)] = 0.0
    ok = (s1 > 0) & (s2 > 0)
    sa2 = a * s2**2 + (1.0 - a) * s1**2
    good = ok & (sa2 > 0)
    # With d = 1 − (s1/s2)² = (s2 − s1)(s2 + s1)/s2², s_α²/s2² = 1 + (α−1)d and
    #   D_α = −log1p((s1 − s2)/s2) − log1p((α−1)d) / (2(α−1)) + α(μ1 − μ2)² / (2 s_α²).
    # The log1p form keeps relative accuracy when s1 ≈ s2 (large groups, α near 1), where
    # log(s2/s1) + log(s2²/s_α²)/(2(α−1)) cancels to round-off (about 1e-11 at x = 1e12).
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        d = (s2 - s1) * (s2 + s1) / s2**2
        val = (
            -np.log1p((s1 - s2) / s2) - np.log1p((a - 1.0) * d) / (2.0 * (a - 1.0)) + a * (mu1 - mu2) ** 2 / (2.0 * sa2)
        )
    out[good] = val[good]
    return out


def validate_counts(counts) -> np.ndarray:
    """Group counts as a float array: non-negative whole numbers (at most 100 000 groups)."""
    return _counts(counts)


def _counts(x, name="counts") -> np.ndarray:
    arr = _COUNTS.check_vector(name, np.atleast_1d(x), max_length=100_000, what=" (group counts)")
    if np.any(arr != np.round(arr)):
        i = int(np.flatnonzero(arr != np.round(arr))[0])
        raise InputError(f"{name} must be whole numbers (counts of people); entry {i} is {arr[i]:g}. Round the counts.")
    return arr


def release(
    counts, *, rho: float, r: float, algorithm: int, trials: int = 1, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """Released counts, shape (trials, k). Algorithm 1: X ~ N(x, σ²), Y ~ N(X, (rX)²);
    Algorithm 2: X ~ N(x, (r x)²)."""
    x = _counts(counts)
    sigma = sigma_from_rho(rho)
    r = _R.check("r", r, what=" (relative error)")
    algorithm = _ALGORITHM.check("algorithm", algorithm, what=" (1 or 2)")
    trials = _TRIALS.check("trials", trials, what=" (repetitions)")
    rng = as_generator(rng)
    if algorithm == 1:
        X = x + sigma * rng.standard_normal((trials, x.size))
        return X + r * np.abs(X) * rng.standard_normal((trials, x.size))
    return x + r * x * rng.standard_normal((trials, x.size))


def accuracy_bound(counts, *, rho: float, r: float, algorithm: int) -> np.ndarray:
    """Bound on E|release − x|: ``r x + σ√(1+r²)`` (Algorithm 1) or ``r x`` (Algorithm 2)."""
    x = _counts(counts)
    sigma = sigma_from_rho(rho)
    r = _R.check("r", r, what=" (relative error)")
    algorithm = _ALGORITHM.check("algorithm", algorithm)
    return r * x + (sigma * np.sqrt(1 + r**2) if algorithm == 1 else 0.0)


def claimed_budget(counts, *, r: float) -> tuple[np.ndarray, np.ndarray]:
    """The paper's claim for Algorithm 2: ``v = 1/(2 r² x²)``, ``ξ = 2 log(1 + 1/x)`` (inf at x = 0)."""
    x = _counts(counts)
    r = _R.check("r", r, what=" (relative error)")
    with np.errstate(divide="ignore"):
        v = np.where(x > 0, 1.0 / (2.0 * r**2 * np.maximum(x, 1e-300) ** 2), np.inf)
        xi = np.where(x > 0, 2.0 * np.log1p(1.0 / np.maximum(x, 1e-300)), np.inf)
    return v, xi


def _neighbours(x: float) -> list[float]:
    return [x + 1.0] + ([x - 1.0] if x >= 1 else [])


def renyi_algorithm2(*, x: float, r: float, alpha) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2, both directions, maximised over the neighbours x ± 1 (x − 1 only if x ≥ 1):
    ``up = max D_α(M(x)‖M(x±1))``, ``down = max D_α(M(x±1)‖M(x))``."""
    x = float(_counts(x, "x")[0])
    r = _R.check("r", r, what=" (relative error)")
    a = _alphas(alpha)
    up = np.full(a.shape, -np.inf)
    down = np.full(a.shape, -np.inf)
    for xn in _neighbours(x):
        up = np.maximum(up, renyi_gaussian(alpha=a, mu1=x, s1=r * x, mu2=xn, s2=r * xn))
        down = np.maximum(down, renyi_gaussian(alpha=a, mu1=xn, s1=r * xn, mu2=x, s2=r * x))
    return up, down


# ---------------------------------------------------------------- Algorithm 1 (numerical)
#: A numerical D_α of Algorithm 1 is reported only when two resolutions (``fine`` and ``1.5·fine``)
#: agree within this relative tolerance (plus ``ALG1_ABS_TOL`` nats); otherwise it is "unresolved".
ALG1_REL_TOL = 1e-2
ALG1_ABS_TOL = 1e-9
_K_SIGMA = 14.0  # the Gaussian step is discretised on x ± 14σ (mass outside: e^{-98})
_Z_MAX = 12.0  # the multiplicative noise U = 1 + rZ is discretised on Z ∈ [−12, 12]
_END_GAP = 40.0  # the y-range grows until the integrand at both ends is e^{-40} below its peak
_MAX_Y_NODES = 400_000
_MAX_MIX_NODES = 40_000


def _trapezoid_weights(t: np.ndarray) -> np.ndarray:
    w = np.empty_like(t)
    d = np.diff(t)
    w[0], w[-1] = d[0] / 2, d[-1] / 2
    w[1:-1] = (d[:-1] + d[1:]) / 2
    return w


@dataclass(frozen=True)
class _Mixture:
    """The discretised mechanism: for every x, ``Y = Σ_j w_j(x) N(mean_j(x), sd_j(x)²)``.

    ``kind = "t"``: the Gaussian step X is discretised on a grid shared by all x (weights
    ∝ φ((t_j − x)/σ), components N(t_j, r²t_j²)); ``kind = "z"``: U = 1 + rZ is discretised on nodes
    shared by all x (weights ∝ φ(z_j), components N(x u_j, σ²u_j²)). Either way the approximation is
    itself a post-processing of a (discretised) Gaussian step, so its D_α obeys the αρ bound."""

    kind: str
    logw: dict
    mean: dict
    sd: dict
    y_step: float  # linear y-spacing that resolves every component
    y_near: float  # "z": geometric y-nodes accumulate at 0 below this (the singular point)
    y_far: float  # "z": beyond |y| = y_far the spacing grows geometrically


def _alg1_mixture(xs, sigma: float, r: float, fine: float) -> _Mixture | None:
    xs = sorted(set(float(v) for v in xs))
    lo, hi = xs[0] - _K_SIGMA * sigma, xs[-1] + _K_SIGMA * sigma
    if lo > 0 and r * lo >= sigma / 2:
        # condition on X: components N(t, r²t²) are ≥ σ/2 wide, so a t-step of σ/8 resolves them
        h = sigma / (8.0 * fine)
        n = int(np.ceil((hi - lo) / h)) + 1
        if n > _MAX_MIX_NODES:
            return None
        t = lo + h * np.arange(n)
        logw, mean, sd = {}, {}, {}
        for x in xs:
            lw = -0.5 * ((t - x) / sigma) ** 2
            logw[x], mean[x], sd[x] = lw - logsumexp(lw), t, r * t
        return _Mixture("t", logw, mean, sd, y_step=r * lo / (6.0 * fine), y_near=0.0, y_far=np.inf)
    # condition on U: component means x·u_j are spaced x r Δz apart and must overlap (width σ|u|)
    top = xs[-1] + sigma
    n_lin = int(max(400, 96.0 * top * r / sigma) * fine)
    z = np.linspace(-_Z_MAX, _Z_MAX, n_lin)
    zstar = -1.0 / r  # U = 0: the conditional law of Y collapses to the point 0
    if zstar > -_Z_MAX:
        ratio = 1.0 + sigma / (2.0 * top * fine)
        m = int(np.log(4.0 * r * (z[1] - z[0]) / 1e-13) / np.log(ratio)) + 1
        off = 1e-13 * ratio ** np.arange(m) / r
        z = np.concatenate([z, zstar + off, zstar - off])
    z = np.unique(z)
    z = z[(np.abs(z) <= _Z_MAX) & (1.0 + r * z != 0.0)]
    if z.size > _MAX_MIX_NODES:
        return None
    u = 1.0 + r * z
    lw = np.log(_trapezoid_weights(z)) - 0.5 * z**2
    lw -= logsumexp(lw)
    return _Mixture(
        "z",
        {x: lw for x in xs},
        {x: x * u for x in xs},
        {x: sigma * np.abs(u) for x in xs},
        y_step=sigma / (6.0 * fine),
        y_near=top if zstar > -_Z_MAX else 0.0,
        y_far=top + 100.0,
    )


def _y_nodes(mix: _Mixture, center: float, half: float, fine: float, sigma: float) -> np.ndarray:
    """The nodes of a fixed, nested node set that lie in [center − half, center + half]: widening
    the range only adds nodes, so a result does not depend on how far the range had to grow."""
    h = mix.y_step
    if mix.kind == "t":
        k = np.arange(-np.ceil(half / h), np.ceil(half / h) + 1)
        return center + h * k
    lin_top = min(half, mix.y_far)
    lin = h * np.arange(-np.ceil(lin_top / h), np.ceil(lin_top / h) + 1)
    parts = [lin]
    if mix.y_near > 0:
        # U reaches 0: f_Y is log-singular at y = 0. Near 0 the components are σ|u| wide at |y| ≈ x|u|,
        # so the spacing is σ|y|/(6x) (geometric); it equals the linear step h at |y| = y_near.
        q = 1.0 + sigma / (6.0 * mix.y_near * fine)
        tiny = 1e-12 * mix.y_near
        near = tiny * q ** np.arange(int(np.log(mix.y_near / tiny) / np.log(q)) + 1)
        parts = [lin[np.abs(lin) > near[-1]], near, -near]
    if half > mix.y_far:  # far out: spacing grows ∝ |y|
        g = 1.0 + h / mix.y_far
        far = mix.y_far * g ** np.arange(1, int(np.log(half / mix.y_far) / np.log(g)) + 2)
        parts += [far, -far]
    y = np.unique(np.concatenate(parts))
    return y[(y != 0.0) & (np.abs(y) <= max(half, mix.y_near))]


#: a mixture term more than this many nats below the largest term at the same y is left out of the
#: log-sum-exp: it changes the sum by less than K·e^{-40} ≈ 4·10⁻¹⁸·K relative (K terms)
_PRUNE_NATS = 40.0
#: y nodes per pruning block (each block keeps the terms that can matter anywhere in it)
_PRUNE_BLOCK = 64


def _mixture_logpdf(y: np.ndarray, mix: _Mixture, x: float) -> np.ndarray:
    r"""log Σ_j w_j N(y; mean_j, sd_j²) for every y (blocked, pruned log-sum-exp).

    The y are taken in sorted blocks [lo, hi]. Term j is at most
    ub_j = log w_j − log sd_j − ½log 2π − ½(dist(mean_j, [lo, hi])/sd_j)² on the block, and every y of
    the block has a term at least lb = max_j (same with the farther end); terms with
    ub_j < lb − 40 are more than 40 nats below the largest term at every y of the block and are left
    out (most of them are, far from their mean), so the cost follows the terms that matter."""
    lw, mean, sd = mix.logw[x], mix.mean[x], mix.sd[x]
    base = lw - np.log(sd) - 0.5 * np.log(2 * np.pi)
    inv = 1.0 / sd
    flat = np.asarray(y, dtype=float).reshape(-1)
    order = None if flat.size < 2 or np.all(flat[1:] >= flat[:-1]) else np.argsort(flat, kind="stable")
    ys = flat if order is None else flat[order]
    res = np.empty(ys.shape)
    for b0 in range(0, ys.size, _PRUNE_BLOCK):
        blk = ys[b0 : b0 + _PRUNE_BLOCK]
        lo, hi = blk[0], blk[-1]
        near = np.maximum(np.maximum(lo - mean, mean - hi), 0.0) * inv
        far = np.maximum(np.abs(lo - mean), np.abs(hi - mean)) * inv
        keep = base - 0.5 * near * near >= np.max(base - 0.5 * far * far) - _PRUNE_NATS
        bk, mk, ik = base[keep], mean[keep], inv[keep]
        step = max(1, 2_000_000 // bk.size)
        for s0 in range(0, blk.size, step):
            t = (blk[s0 : s0 + step, None] - mk) * ik
            np.square(t, out=t)
            t *= -0.5
            t += bk
            m = t.max(axis=1)
            t -= m[:, None]
            np.exp(t, out=t)
            res[b0 + s0 : b0 + s0 + t.shape[0]] = np.log(t.sum(axis=1)) + m
    if order is not None:
        out = np.empty_like(res)
        out[order] = res
        res = out
    return res.reshape(np.shape(y))


def _alg1_once(x: float, xs: list, sigma: float, r: float, a: np.ndarray, fine: float):
    """(up, down) at one resolution, or None when the node budget is exceeded."""
    mix = _alg1_mixture(xs, sigma, r, fine)
    if mix is None:
        return None
    center = float(np.mean(xs)) if mix.kind == "t" else 0.0
    sd = np.sqrt(sigma**2 * (1 + r**2) + r**2 * (x + 1) ** 2)
    half = 12.0 * sd + 2.0 + abs(x - center)
    y = _y_nodes(mix, center, half, fine, sigma)
    if y.size > _MAX_Y_NODES:
        return None
    pairs = [(p, q) for v in xs[1:] for p, q in ((x, v), (v, x))]
    # the integrand's peak, from every 4th node (a lower estimate: the end test below is conservative)
    sub = y[::4]
    lsub = {v: _mixture_logpdf(sub, mix, v) for v in xs}
    lwsub = np.log(_trapezoid_weights(sub)) - np.log(4.0)
    peak = np.stack([(a[:, None] * lsub[p] + (1 - a[:, None]) * lsub[q] + lwsub).max(axis=1) for p, q in pairs])
    for _ in range(40):  # widen: test only the two end nodes
        ends = _y_nodes(mix, center, half, fine, sigma)[[0, -1]]
        le = {v: _mixture_logpdf(ends, mix, v) for v in xs}
        gap = np.stack([(a[:, None] * le[p] + (1 - a[:, None]) * le[q]).max(axis=1) for p, q in pairs])
        if np.all(gap + np.log(mix.y_step * (1 + abs(ends).max() / mix.y_far)) <= peak - _END_GAP):
            break
        half *= 1.5
    else:
        return None
    y = _y_nodes(mix, center, half, fine, sigma)
    if y.size > _MAX_Y_NODES:
        return None
    logs = {v: _mixture_logpdf(y, mix, v) for v in xs}
    lwy = np.log(_trapezoid_weights(y))
    # normalise each density on the grid: the quadrature's mass error would otherwise be amplified
    # by 1/(α − 1) for α near 1
    logs = {v: lv - logsumexp(lv + lwy) for v, lv in logs.items()}
    up = np.full(a.shape, -np.inf)
    down = np.full(a.shape, -np.inf)
    for p, q in pairs:
        d = logsumexp(a[:, None] * logs[p] + (1 - a[:, None]) * logs[q] + lwy, axis=1) / (a - 1.0)
        if p == x:
            up = np.maximum(up, d)
        else:
            down = np.maximum(down, d)
    return np.maximum(up, 0.0), np.maximum(down, 0.0)  # D_α ≥ 0; clip round-off below 0


def algorithm1_seconds(*, x: float, rho: float, r: float, alpha) -> float:
    """Estimated seconds for :func:`renyi_algorithm1_detail` at these orders (0 for memoised ones),
    from the quadrature it will plan — mixture nodes × y nodes × densities at both resolutions —
    at ≈ 0.9 ns per node pair (terms 40 nats below the largest are skipped), times a widening factor
    that grows with the largest order (calibrated on the 2-core reference machine: 1.2–2.1× the
    measured CPU for ρ ∈ [0.05, 5], r ∈ [0.2, 0.5], α up to 50)."""
    x, rho, r = float(x), float(rho), float(r)
    a = [float(v) for v in np.atleast_1d(alpha)]
    todo = [v for v in a if (x, rho, r, 1.0, v) not in _MEMO]
    if not todo:
        return 0.0
    sigma = sigma_from_rho(rho)
    xs = [x] + _neighbours(x)
    units = 0.0
    for fine in (1.0, 1.5):
        mix = _alg1_mixture(xs, sigma, r, fine)
        if mix is None:  # over the node budget: reported unresolved, cheaply
            continue
        center = float(np.mean(xs)) if mix.kind == "t" else 0.0
        sd = np.sqrt(sigma**2 * (1 + r**2) + r**2 * (x + 1) ** 2)
        ny = _y_nodes(mix, center, 12.0 * sd + 2.0 + abs(x - center), fine, sigma).size
        units += len(mix.mean[x]) * ny * len(xs) * 1.3
    widen = 2.0 + np.log2(max(todo))
    return units * widen * 0.9e-9


@dataclass(frozen=True)
class Algorithm1Divergence:
    """Numerical D_α of Algorithm 1 for one group, with its error estimate.

    ``up``/``down`` are NaN where the value could not be resolved to the tolerance
    (``ALG1_REL_TOL`` relative + ``ALG1_ABS_TOL``) or where it exceeds the provable bound αρ by more
    than its error estimate (a numerical failure, reported as such); a value above αρ within its
    error estimate is shown as αρ. ``up_error``/``down_error`` are the differences between
    two resolutions; ``bound`` = αρ."""

    alpha: np.ndarray
    up: np.ndarray
    down: np.ndarray
    up_error: np.ndarray
    down_error: np.ndarray
    bound: np.ndarray
    x: float

    @property
    def resolved(self) -> np.ndarray:
        return np.isfinite(self.up) & np.isfinite(self.down)


def renyi_algorithm1_detail(*, x: float, rho: float, r: float, alpha, fine: float = 1.0) -> Algorithm1Divergence:
    r"""Algorithm 1, both directions, maximised over neighbours x ± 1 — computed numerically:

    .. math:: D_\alpha(f\|g) = \frac1{\alpha-1}\log\int f(y)^\alpha g(y)^{1-\alpha}\,dy,\qquad
              Y = X\cdot U,\ X\sim N(x,\sigma^2),\ U = 1+rZ \sim N(1, r^2).

    **Discretisation that keeps the guarantee.** The densities are replaced by finite mixtures that
    are themselves post-processings of a Gaussian step: for groups far from 0 (x − 14σ > 0 and
    r(x − 14σ) ≥ σ/2) the step X is discretised on a uniform grid shared by x and its neighbours,
    followed by the kernel N(t, r²t²); otherwise U is discretised on nodes shared by all three
    densities (geometric refinement at U = 0, the singular point), followed by the Gaussian step. By
    the data-processing inequality the exact D_α of either approximation is ≤ αρ; an earlier
    version used different nodes per density and truncated them asymmetrically, which broke this
    and gave values up to 1000× above the bound.

    **The y-integral** uses a fixed, nested node set (linear in the bulk, geometric at 0 and far
    out), widened until the integrand at both ends is e^{-40} below its peak; so the value for one α
    does not depend on which other orders are requested. Each density is normalised on the grid.

    **Error estimate**: the whole computation is repeated at 1.5× the resolution (``1.5·fine``); the
    finer value is reported with ``|difference|`` as its error, and set to NaN ("unresolved") when
    the error exceeds ``ALG1_REL_TOL``·|D| + ``ALG1_ABS_TOL`` or the node budget is exceeded."""
    x = float(_counts(x, "x")[0])
    sigma_from_rho(rho)
    r = _R.check("r", r, what=" (relative error)")
    a = _alphas(alpha)
    fine = _FINE.check("fine", fine, what=" (resolution multiplier)")
    # memoised per order: pages ask for the same (x, ρ, r, α) again and again as other inputs change.
    # Orders not yet known are computed in one vectorised batch; on the fixed nested grid a batch
    # and a single order agree to round-off (tested), so a value does not depend on its batch.
    key = (x, float(rho), r, fine)
    known = _memo_hits(key, a)
    if len(known) < len({float(al) for al in a}):
        # single flight: concurrent sessions asking for the same group wait for one computation
        # instead of each computing the same curves (50 users on a fresh server did it 50 times)
        with _flight(key):
            known = _memo_hits(key, a)
            todo = sorted({float(al) for al in a} - set(known))
            store = shared_store()
            if todo and store is None:
                known.update(_alg1_batch(key, todo))
            elif todo:
                # shared between processes (the app's children and workers): one process computes a
                # group's orders, the others wait on the store's lock and read them
                skey = ("zcdp.alg1",) + key
                with store.lock(skey):
                    found, table = store.load(skey)
                    table = dict(table) if found and isinstance(table, dict) else {}
                    for al in todo:
                        if al in table:
                            known[al] = tuple(table[al])
                            _MEMO.put(key + (al,), known[al])
                    rest = [al for al in todo if al not in known]
                    if rest:
                        new = _alg1_batch(key, rest)
                        known.update(new)
                        table.update(new)
                        store.save(skey, table)
    cols = [np.array([known[float(al)][i] for al in a]) for i in range(4)]
    return Algorithm1Divergence(a, cols[0], cols[1], cols[2], cols[3], a * rho, x)


#: Algorithm 1's divergences per (x, ρ, r, resolution, α): four floats each, bounded in bytes
_MEMO = Memo(16 * 2**20, size=lambda v: 4 * 32 + 64, name="Algorithm 1 divergences")


def _alg1_batch(key: tuple, todo: list[float]) -> dict:
    """Compute the orders ``todo`` of one group (``key`` = (x, ρ, r, resolution)) in one vectorised
    batch and keep them in the memo: α → (up, down, up_error, down_error)."""
    x, rho, r, fine = key
    d = _alg1_compute(x, rho, r, np.array(todo), fine)
    out = {}
    for i, al in enumerate(todo):
        out[al] = (float(d.up[i]), float(d.down[i]), float(d.up_error[i]), float(d.down_error[i]))
        _MEMO.put(key + (al,), out[al])
    return out


def _memo_hits(key: tuple, a) -> dict:
    known = {}
    for al in a:
        hit = _MEMO.get(key + (float(al),))
        if hit is not None:
            known[float(al)] = hit
    return known


class _KeyLock:
    """A lock for one memo key (a class so the registry below can hold it weakly)."""

    def __init__(self):
        self.lock = threading.Lock()

    def __enter__(self):
        self.lock.acquire()
        return self

    def __exit__(self, *exc):
        self.lock.release()
        return False


_FLIGHTS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_FLIGHTS_LOCK = threading.Lock()


def _flight(key: tuple) -> _KeyLock:
    """The lock of ``key``, shared by every thread that asks while one holds it; forgotten when unused."""
    with _FLIGHTS_LOCK:
        lk = _FLIGHTS.get(key)
        if lk is None:
            lk = _FLIGHTS[key] = _KeyLock()
        return lk


def _alg1_compute(x: float, rho: float, r: float, a: np.ndarray, fine: float) -> Algorithm1Divergence:
    sigma = sigma_from_rho(rho)
    xs = [x] + _neighbours(x)
    bound = a * rho
    coarse = _alg1_once(x, xs, sigma, r, a, fine)
    finer = _alg1_once(x, xs, sigma, r, a, 1.5 * fine) if coarse is not None else None
    nan = np.full(a.shape, np.nan)
    if finer is None:
        return Algorithm1Divergence(a, nan, nan.copy(), nan.copy(), nan.copy(), bound, x)
    out = []
    for c, f in zip(coarse, finer):
        err = np.abs(f - c)
        good = err <= ALG1_REL_TOL * np.abs(f) + ALG1_ABS_TOL
        # the exact D_α of the discretisation is ≤ αρ; a value above it by no more than its own error
        # estimate is quadrature error and is clipped to αρ; anything beyond is a numerical failure
        good &= f <= bound + err + ALG1_ABS_TOL
        out.append((np.where(good, np.minimum(f, bound), np.nan), err))
    (up, eu), (down, ed) = out
    return Algorithm1Divergence(a, up, down, eu, ed, bound, x)


def renyi_algorithm1(*, x: float, rho: float, r: float, alpha, fine: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) of :func:`renyi_algorithm1_detail`; NaN where unresolved."""
    d = renyi_algorithm1_detail(x=x, rho=rho, r=r, alpha=alpha, fine=fine)
    return d.up, d.down


def log_density_algorithm1(y, *, x: float, sigma: float, r: float, neighbours=(), fine: float = 1.0) -> np.ndarray:
    r"""log f_Y(y) for Algorithm 1 (Y = X·U) from the discretised mixture of
    :func:`renyi_algorithm1_detail`; pass the other group sizes the density will be compared with as
    ``neighbours`` so that all share one discretisation."""
    mix = _alg1_mixture([x, *neighbours], sigma, r, fine)
    if mix is None:
        raise InputError(
            f"x = {x:g} with σ = {sigma:g}, r = {r:g} needs more quadrature nodes than the "
            "budget allows; use a smaller x or a larger r."
        )
    y = np.asarray(y, dtype=float)
    return _mixture_logpdf(y, mix, float(x))


def renyi_monte_carlo_algorithm1(
    *,
    x: float,
    xn: float,
    rho: float,
    r: float,
    alpha,
    samples: int = 200_000,
    rng: np.random.Generator | int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo estimate of D_α(M(x)‖M(xn)) for Algorithm 1: draws Y' from the mechanism at
    ``xn`` and averages (f/f')^α; returns (estimate, standard error of the inner mean's log)."""
    x = float(_counts(x, "x")[0])
    xn = float(_counts(xn, "xn")[0])
    sigma = sigma_from_rho(rho)
    a = _alphas(alpha)
    samples = _SAMPLES.check("samples", samples)
    Y = release([xn], rho=rho, r=r, algorithm=1, trials=samples, rng=rng)[:, 0]
    lr = log_density_algorithm1(Y, x=x, sigma=sigma, r=r, neighbours=(xn,)) - log_density_algorithm1(
        Y, x=xn, sigma=sigma, r=r, neighbours=(x,)
    )
    t = a[:, None] * lr[None, :]
    m = logsumexp(t, axis=1) - np.log(samples)
    w = np.exp(t - m[:, None])  # ratio / mean, mean 1
    se_log = w.std(axis=1) / np.sqrt(samples)  # delta method: SE of log-mean
    return m / (a - 1.0), se_log / (a - 1.0)


# ---------------------------------------------------------------- curves and claim check
@dataclass(frozen=True)
class RenyiCurves:
    """D_α in both directions against the reference line for one group.

    For Algorithm 1 the values are numerical: NaN marks an order whose integral could not be
    resolved to the tolerance (``unresolved``); it is never counted as a violation or a finding."""

    alpha: np.ndarray
    up: np.ndarray  # max over ± of D_α(M(x) ‖ M(x±1))
    down: np.ndarray  # max over ± of D_α(M(x±1) ‖ M(x))
    claimed: np.ndarray  # α v + ξ (Algorithm 2's claim) or α ρ (Algorithm 1, post-processing)
    algorithm: int
    x: float

    @property
    def unresolved(self) -> np.ndarray:
        return np.isnan(self.up) | np.isnan(self.down)

    @property
    def violated(self) -> np.ndarray:
        """True where either direction exceeds the claim (tolerance 1e-9 relative)."""
        tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(self.claimed), self.claimed, 0)))
        with np.errstate(invalid="ignore"):
            return (self.up > self.claimed + tol) | (self.down > self.claimed + tol)


def renyi_curves(*, algorithm: int, x: float, rho: float, r: float, alpha) -> RenyiCurves:
    """Both directions and the reference line: Algorithm 2 vs the paper's ``α v + ξ``;
    Algorithm 1 vs ``α ρ`` (valid by post-processing of the Gaussian mechanism)."""
    algorithm = _ALGORITHM.check("algorithm", algorithm, what=" (1 or 2)")
    a = _alphas(alpha)
    xv = float(_counts(x, "x")[0])
    if algorithm == 2:
        _RHO.check("rho", rho, what=" (zCDP level)")
        up, down = renyi_algorithm2(x=xv, r=r, alpha=a)
        v, xi = claimed_budget([xv], r=r)
        with np.errstate(invalid="ignore"):
            claimed = a * v[0] + xi[0]
    else:
        up, down = renyi_algorithm1(x=xv, rho=rho, r=r, alpha=a)
        claimed = a * _RHO.check("rho", rho)
    return RenyiCurves(alpha=a, up=up, down=down, claimed=claimed, algorithm=algorithm, x=xv)


def curve_checks(curves: RenyiCurves, *, rho: float) -> list:
    """Algorithm 1 is a post-processing of the ρ-zCDP Gaussian step: every shown D_α ≤ αρ
    (unresolved orders are not shown and not checked). Algorithm 2 has no provable bound to check:
    its comparison with the paper's claim is a finding, not a check."""
    from .checks import check_le

    if curves.algorithm != 1:
        return []
    ins = {"x": curves.x, "rho": rho}
    return [
        check_le(
            f"Algorithm 1: {name} ≤ αρ (post-processing)",
            vals,
            curves.alpha * rho,
            labels=[f"α = {a:g}" for a in curves.alpha],
            inputs=ins,
        )
        for name, vals in (("D_α(M(x)‖M(x±1))", curves.up), ("D_α(M(x±1)‖M(x))", curves.down))
    ]


@dataclass(frozen=True)
class NeighbourOrders:
    """One order α per direction and neighbour of Algorithm 2's divergences — ``up_plus`` =
    D_α(M(x)‖M(x+1)), ``up_minus`` = D_α(M(x)‖M(x−1)), ``down_plus`` = D_α(M(x+1)‖M(x)), ``down_minus`` =
    D_α(M(x−1)‖M(x)) — None where there is none, and ``first``, the smallest of them."""

    up_plus: float | None
    up_minus: float | None
    down_plus: float | None
    down_minus: float | None
    first: float | None

    def as_dict(self) -> dict:
        """The orders as ``hetdp zcdp renyi --json`` prints them."""
        return dataclasses.asdict(self)


def algorithm2_infinite_from(x: float) -> NeighbourOrders:
    r"""Orders from which Algorithm 2's divergences are +∞, per direction and neighbour.

    With s = r·x the scales of M(x) = N(x, r²x²) and M(x') = N(x', r²x'²), D_α(P‖Q) is infinite
    iff s_α² = α s_Q² + (1 − α) s_P² ≤ 0, i.e. for α ≥ s_P²/(s_P² − s_Q²) when s_P > s_Q:

    * ``down_plus``  D_α(M(x+1)‖M(x)): α ≥ (x+1)²/(2x+1);
    * ``up_minus``   D_α(M(x)‖M(x−1)): α ≥ x²/(2x−1) (x ≥ 1; at x = 1, M(0) is a point mass and
      the divergence is infinite for every α);
    * ``up_plus`` and ``down_minus`` (towards the larger scale) stay finite for every α.

    ``first`` is the smallest of these: the order from which the claim fails by being infinite.
    (r cancels.)"""
    x = float(_counts(x, "x")[0])
    if x == 0:
        return NeighbourOrders(up_plus=1.0, up_minus=None, down_plus=1.0, down_minus=None, first=1.0)
    down_plus, up_minus = (x + 1) ** 2 / (2 * x + 1), (1.0 if x == 1 else x**2 / (2 * x - 1))
    return NeighbourOrders(
        up_plus=None, up_minus=up_minus, down_plus=down_plus, down_minus=None, first=min(down_plus, up_minus)
    )


def algorithm2_violation_orders(*, x: float, r: float, alpha_max: float = 100.0) -> NeighbourOrders:
    """The smallest order α ∈ (1, ``alpha_max``] at which each of Algorithm 2's four divergences
    (``up_plus`` = D_α(M(x)‖M(x+1)), ``up_minus`` = D_α(M(x)‖M(x−1)), ``down_plus``, ``down_minus``)
    exceeds the claim α v + ξ — found on a fine grid and refined by bisection to 1e-10 — or None
    if it never does there. ``first`` is the smallest of them."""
    from scipy.optimize import brentq

    x = float(_counts(x, "x")[0])
    r = _R.check("r", r, what=" (relative error)")
    alpha_max = _ALPHA_MAX.check("alpha_max", alpha_max)
    v, xi = claimed_budget([x], r=r)
    grid = 1.0 + np.geomspace(1e-6, alpha_max - 1.0, 4000)
    out = {}
    for name, (mu1, mu2) in {
        "up_plus": (x, x + 1),
        "up_minus": (x, x - 1),
        "down_plus": (x + 1, x),
        "down_minus": (x - 1, x),
    }.items():
        if min(mu1, mu2) < 0:
            out[name] = None
            continue

        def excess(a, mu1=mu1, mu2=mu2):
            with np.errstate(invalid="ignore", over="ignore"):
                d = renyi_gaussian(alpha=a, mu1=mu1, s1=r * mu1, mu2=mu2, s2=r * mu2)
                return d - (a * v[0] + xi[0])

        e = excess(grid)
        bad = np.flatnonzero(e > 0)
        if bad.size == 0:
            out[name] = None
        elif bad[0] == 0:
            out[name] = 1.0  # violated from the smallest order tried: for no α > 1
        else:
            lo, hi = grid[bad[0] - 1], grid[bad[0]]
            f = lambda a: float(np.minimum(excess(np.array([a]))[0], 1e300))  # noqa: E731
            out[name] = float(brentq(f, lo, hi, xtol=1e-10)) if np.isfinite(e[bad[0]]) or f(hi) > 0 else float(hi)
    found = [val for val in out.values() if val is not None]
    return NeighbourOrders(**out, first=min(found) if found else None)


@dataclass(frozen=True)
class ClaimCheck:
    """What :func:`check_claim` found for one group's curves.

    ``holds`` whether the claimed budget bounds both directions on the grid (Algorithm 1: always, it is
    ρ-zCDP by post-processing); ``first_violation_up`` / ``first_violation_down`` the smallest order α
    where a direction exceeds the claim (None: nowhere on the grid); ``infinite_up`` / ``infinite_down``
    whether a direction is infinite somewhere on the grid; ``unresolved`` the orders whose integral
    could not be resolved (Algorithm 1). Algorithm 1 only: ``bound_violation``, a resolved value above
    αρ — a numerical failure, never a finding. Algorithm 2 only: ``alpha_infinite`` the exact orders
    from which each direction and neighbour is infinite (:func:`algorithm2_infinite_from`) and
    ``alpha_infinite_threshold`` the first of them."""

    holds: bool
    first_violation_up: float | None
    first_violation_down: float | None
    infinite_up: bool
    infinite_down: bool
    unresolved: tuple[float, ...]
    bound_violation: bool | None = None
    alpha_infinite_threshold: float | None = None
    alpha_infinite: NeighbourOrders | None = None

    def first_violation(self, direction: str) -> float | None:
        """The smallest violating order of ``direction`` ("up" or "down")."""
        return {"up": self.first_violation_up, "down": self.first_violation_down}[direction]

    def infinite(self, direction: str) -> bool:
        """Whether ``direction`` ("up" or "down") is infinite somewhere on the grid."""
        return {"up": self.infinite_up, "down": self.infinite_down}[direction]

    def as_dict(self) -> dict:
        """The check as ``hetdp zcdp renyi --json`` prints it (an algorithm's own entries only)."""
        out = {
            "first_violation_up": self.first_violation_up,
            "infinite_up": self.infinite_up,
            "first_violation_down": self.first_violation_down,
            "infinite_down": self.infinite_down,
            "unresolved": list(self.unresolved),
        }
        if self.bound_violation is not None:
            out["bound_violation"] = self.bound_violation
        out["holds"] = self.holds
        if self.alpha_infinite is not None:
            out["alpha_infinite_threshold"] = self.alpha_infinite_threshold
            out["alpha_infinite"] = self.alpha_infinite.as_dict()
        return out


def claim_reference(algorithm: int) -> str:
    """What an algorithm's Rényi divergences are compared with: the paper's claimed α·v + ξ
    (Algorithm 2) or α·ρ, which Algorithm 1 meets as a post-processing of its Gaussian step."""
    return "claimed α·v + ξ (paper)" if algorithm == 2 else "α·ρ (post-processing of the Gaussian step)"


def check_claim(curves: RenyiCurves) -> ClaimCheck:
    """Where the claim fails: the smallest violating α per direction (None if it holds on the
    grid), and whether any direction is infinite. For Algorithm 2 the exact orders from which a
    direction is infinite are given per direction and neighbour (:func:`algorithm2_infinite_from`).
    For Algorithm 1, ``unresolved`` lists the orders whose integral could not be resolved and
    ``bound_violation`` is True if a resolved value exceeds αρ — a numerical failure, never a
    finding (Algorithm 1 is ρ-zCDP by post-processing)."""
    tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(curves.claimed), curves.claimed, 0)))
    first, infinite = {}, {}
    for name, vals in (("up", curves.up), ("down", curves.down)):
        with np.errstate(invalid="ignore"):
            bad = vals > curves.claimed + tol
        first[name] = float(curves.alpha[bad][0]) if bad.any() else None
        infinite[name] = bool(np.isinf(vals).any())
    found = {
        "first_violation_up": first["up"],
        "first_violation_down": first["down"],
        "infinite_up": infinite["up"],
        "infinite_down": infinite["down"],
        "unresolved": tuple(float(v) for v in curves.alpha[curves.unresolved]),
    }
    clean = first["up"] is None and first["down"] is None
    if curves.algorithm == 1:
        return ClaimCheck(holds=True, bound_violation=not clean, **found)
    inf = algorithm2_infinite_from(curves.x)
    return ClaimCheck(holds=clean, alpha_infinite_threshold=inf.first, alpha_infinite=inf, **found)


def zipf_counts(*, k: int, total: int, s: float = 1.0) -> np.ndarray:
    """k group counts with Zipf shares ∝ 1/rank^s, rounded to integers summing to ``total``."""
    k = _K.check("k", k, what=" (number of groups)")
    total = _TOTAL.check("total", total, what=" (total people)")
    s = _S.check("s", s, what=" (Zipf exponent)")
    w = 1.0 / np.arange(1, k + 1) ** s
    raw = total * w / w.sum()
    base = np.floor(raw)
    rest = int(total - base.sum())
    base[np.argsort(-(raw - base))[:rest]] += 1  # largest remainders
    return base


def divergence_vs_size(*, sizes, alphas, rho: float, r: float, algorithm: int = 1) -> pd.DataFrame:
    """Worst-direction loss ``max(up, down)`` at each group size and order α (tidy DataFrame with
    columns size, alpha, up, down, loss, error, reference); :func:`loss_monotonicity` reads from it, for
    each α, whether the loss is non-increasing in the size over the given sizes — the open question,
    answered numerically for these parameters. For Algorithm 1, ``error`` is the numerical error
    estimate and ``loss`` is NaN where the integral could not be resolved (such sizes are skipped
    by the monotonicity check)."""
    import pandas as pd

    sizes = np.unique(_counts(sizes, "sizes"))
    a = _alphas(alphas)
    algorithm = _ALGORITHM.check("algorithm", algorithm, what=" (1 or 2)")
    rows = []
    for x in sizes:
        if algorithm == 1:
            d = renyi_algorithm1_detail(x=x, rho=rho, r=r, alpha=a)
            up, down, err = d.up, d.down, np.maximum(d.up_error, d.down_error)
            ref = a * rho
        else:
            up, down = renyi_algorithm2(x=x, r=r, alpha=a)
            err = np.zeros(a.shape)
            v, xi = claimed_budget([x], r=r)
            ref = a * v[0] + xi[0]
        for j, al in enumerate(a):
            rows.append(
                {
                    "size": float(x),
                    "alpha": float(al),
                    "up": up[j],
                    "down": down[j],
                    "loss": np.nan if np.isnan(up[j]) or np.isnan(down[j]) else max(up[j], down[j]),
                    "error": float(err[j]),
                    "reference": ref[j],
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Monotonicity:
    """Whether a loss is non-increasing in the group size (:func:`loss_monotonicity`, one order α):
    ``non_increasing``, its ``first_rise`` (size before, size after; None when it never rises) and
    ``from_size``, the smallest size from which it never rises again (None if it rises at the last step)."""

    non_increasing: bool
    first_rise: tuple[float, float] | None
    from_size: float | None


def loss_monotonicity(df: pd.DataFrame, *, rel_tol: float = 1e-9) -> dict[float, Monotonicity]:
    """For each α in a (size, alpha, loss[, error]) table: whether the loss is non-increasing in
    the size, the first rise (size before, size after) and the smallest size from which it never
    rises again (None if it rises at the last step), as a :class:`Monotonicity` per α. A rise counts
    only when it exceeds the two points' numerical error estimates plus ``rel_tol`` relative and
    ``ALG1_ABS_TOL``; unresolved (NaN) points are skipped."""
    rel_tol = UNIT.check("rel_tol", rel_tol)
    out = {}
    for al, g in df.groupby("alpha"):
        g = g.sort_values("size")
        g = g[~g["loss"].isna()]
        vals, xs = g["loss"].to_numpy(dtype=float), g["size"].to_numpy(dtype=float)
        err = g["error"].to_numpy(dtype=float) if "error" in g else np.zeros(vals.size)
        with np.errstate(invalid="ignore"):
            slack = err[:-1] + err[1:] + rel_tol * np.abs(vals[:-1]) + ALG1_ABS_TOL
            rises = np.diff(vals) > slack
        rises |= np.isinf(vals[1:]) & np.isfinite(vals[:-1])
        idx = np.flatnonzero(rises)
        out[float(al)] = Monotonicity(
            non_increasing=idx.size == 0,
            first_rise=None if idx.size == 0 else (float(xs[idx[0]]), float(xs[idx[0] + 1])),
            from_size=(float(xs[0]) if xs.size else None)
            if idx.size == 0
            else (float(xs[idx[-1] + 1]) if idx[-1] + 1 < xs.size - 1 else None),
        )
    return out


def group_summary(counts, *, rho: float, r: float, algorithm: int, alpha_max: float = 20.0) -> pd.DataFrame:
    """Per group, in plain terms: the accuracy bound, the promise and what the group actually gets.

    Algorithm 2: promise ``α v + ξ`` (paper); actual = worst direction over neighbours x ± 1;
    "claim holds for α <" = the exact order at which the first of the four divergences crosses the
    claim (:func:`algorithm2_violation_orders`, bisection to 1e−10; a number, ``inf`` when the claim
    holds on all of (1, ``alpha_max``]).
    Algorithm 1: promise ``α ρ`` (post-processing); actual computed numerically at α = 2; the claim
    holds for every α (``inf``).
    """
    import pandas as pd

    x = _counts(counts)
    alpha_max = _ALPHA_MAX.check("alpha_max", alpha_max)
    acc = accuracy_bound(x, rho=rho, r=r, algorithm=algorithm)
    rows = []
    for i, xi_ in enumerate(x):
        if algorithm == 2:
            first = algorithm2_violation_orders(x=xi_, r=r, alpha_max=alpha_max).first
            up2, down2 = renyi_algorithm2(x=xi_, r=r, alpha=[2.0])
            v, xi = claimed_budget([xi_], r=r)
            inf_from = algorithm2_infinite_from(xi_).first
            rows.append(
                {
                    "group": i + 1,
                    "count": xi_,
                    "accuracy bound E|err|": acc[i],
                    "promised at α=2": float(2.0 * v[0] + xi[0]),
                    "actual at α=2": float(max(up2[0], down2[0])),
                    "claim holds for α <": float(first) if first is not None else np.inf,
                    "checked up to α": alpha_max,
                    "infinite loss from α =": inf_from if inf_from <= alpha_max else np.nan,
                }
            )
        else:
            up, down = renyi_algorithm1(x=xi_, rho=rho, r=r, alpha=np.array([2.0]))
            rows.append(
                {
                    "group": i + 1,
                    "count": xi_,
                    "accuracy bound E|err|": acc[i],
                    "promised at α=2": 2 * rho,
                    "actual at α=2": np.nan if np.isnan(up[0] + down[0]) else float(max(up[0], down[0])),
                    "claim holds for α <": np.inf,
                    "checked up to α": np.inf,
                    "infinite loss from α =": np.nan,
                }
            )
    return pd.DataFrame(rows)


def release_summary(
    counts, *, rho: float, r: float, algorithm: int, trials: int, rng: np.random.Generator | int | None = None
) -> pd.DataFrame:
    """Simulated releases per group: mean, 2.5/97.5 % quantiles, E|error| and the accuracy bound."""
    import pandas as pd

    x = _counts(counts)
    Y = release(x, rho=rho, r=r, algorithm=algorithm, trials=trials, rng=rng)
    q025, q975 = np.quantile(Y, [0.025, 0.975], axis=0)
    return pd.DataFrame(
        {
            "group": np.arange(1, x.size + 1),
            "count": x,
            "mean": Y.mean(axis=0),
            "q025": q025,
            "q975": q975,
            "mean_abs_error": np.abs(Y - x).mean(axis=0),
            "bound": accuracy_bound(x, rho=rho, r=r, algorithm=algorithm),
        }
    )


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core._doc)
