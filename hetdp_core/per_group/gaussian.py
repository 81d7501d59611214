r"""The Gaussian noise of the group-wise zCDP lab: σ from ρ, the lab's release, Rényi divergences of Gaussians and
the ranges its functions accept. The lab's overview: :mod:`hetdp_core.per_group.zcdp`.

σ = 1/√(2ρ) is the Gaussian noise on sensitivity 1 that is ρ-zCDP; the Rényi divergence of two Gaussians
(s_α² = α s2² + (1−α) s1²) is

.. math:: D_\alpha(N(\mu_1,s_1^2)\|N(\mu_2,s_2^2)) = \log\frac{s_2}{s_1} + \frac{\log(s_2^2/s_\alpha^2)}{2(\alpha-1)}
          + \frac{\alpha(\mu_1-\mu_2)^2}{2 s_\alpha^2},\qquad +\infty \text{ if } s_\alpha^2 \le 0.

Reference: A. Azize, *Open problem: better privacy guarantees for larger groups* (2023).
"""

from __future__ import annotations

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator
from ..framework.constraints import Interval
from ..noise.gdp import mu_from_rho

__all__ = ["release", "sigma_from_rho", "renyi_gaussian", "validate_counts"]

#: this part of zcdp's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "zcdp"

ALGORITHMS = (1, 2)
MAX_ALPHA = 1000.0
#: Accepted zCDP levels (σ = √(1/(2ρ)) between 7e-4 and 707: below MIN_RHO the release is noise
#: at any group size we accept, and σ overflows for denormal ρ) and largest group count.
MIN_RHO = 1e-6
MAX_RHO = 1e6
MAX_COUNT = 1e12


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
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
    """σ = 1/√(2ρ): the Gaussian noise on sensitivity 1 that is ρ-zCDP (σ = Δ/μ,
    :func:`hetdp_core.noise.gdp.mu_from_rho`)."""
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


def _neighbours(x: float) -> list[float]:
    return [x + 1.0] + ([x - 1.0] if x >= 1 else [])


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
