r"""Exact privacy profiles of the noise the app draws, and the checks every shown claim passes.

A mechanism M is (ε, δ)-DP iff its *privacy profile* (hockey-stick divergence)

    δ_M(ε) = sup_{x ≃ x'} ∫ (p_x(y) − e^ε p_{x'}(y))₊ dy

is at most δ. Besides δ_M(ε) we compute the probability that the privacy loss
L(y) = log p_x(y)/p_{x'}(y) exceeds ε, ``P(L > ε)``: the probability (over the output, for the worst
pair of neighbours) that an attacker's posterior goes beyond the pure-ε bound. It is at least
δ_M(ε) and is what "the bound holds except with probability …" must say.

* Gaussian N(0, σ²) on sensitivity Δ (Balle and Wang, *Improving the Gaussian Mechanism for
  Differential Privacy: Analytical Calibration and Optimal Denoising*, ICML 2018, arXiv:1805.06530,
  Theorem 8) is μ-GDP with μ = Δ/σ: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) and P(L > ε) = Φ(μ/2 − ε/μ),
  the closed forms of :mod:`hetdp_core.noise.gdp`.
* Laplace Lap(b) on Δ, ε₀ = Δ/b: the loss L = (|y − Δ| − |y|)/b of y ~ Lap(0, b) takes values in
  [−ε₀, ε₀], with P(L ≤ ℓ) = ½ e^{(ℓ − ε₀)/2} on [−ε₀, ε₀) (an atom e^{−ε₀}/2 at −ε₀, ½ at ε₀;
  :func:`laplace_loss_cdf`), so δ(ε) = 1 − e^{(ε − ε₀)/2} and P(L > ε) = 1 − ½ e^{−(ε₀ − ε)/2} for
  ε < ε₀, both 0 for ε ≥ ε₀.
* Bounded Laplace (Laplace restricted to [l, u], density e^{−|y − q|/b}/(2b C_q)): for true values
  q < q' = q + t (t ≤ Δ, both in [l, u]) the loss is K + (|y − q'| − |y − q|)/b with
  K = log(C_{q'}/C_q), monotone in y, so {L > ε} is an interval whose end y* is explicit and
  δ = F_q(y*) − e^ε F_{q'}(y*) exactly (F the truncated CDF). The supremum over (q, t) is taken on a
  grid of 401 × 16 pairs and refined by a bounded scalar search around the worst grid pair.

Every (ε, δ) claim the app shows is compared with these profiles (:func:`profile_check`); a
violation is reported as a numerical failure with its inputs, never shown as a guarantee.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, check_real
from ..framework.constraints import DELTA, NONNEGATIVE, POSITIVE, Interval
from .gdp import gdp_delta, gdp_mu, gdp_tail

__all__ = [
    "gaussian_delta",
    "gaussian_tail",
    "gaussian_sigma_exact",
    "laplace_delta",
    "laplace_tail",
    "laplace_loss_cdf",
    "bounded_laplace_profile",
    "BoundedLaplaceProfile",
    "profile_check",
]


#: the Laplace loss bound ε₀ = Δ/b: positive, +∞ for noise too small to represent (no protection)
_EPS0 = Interval(float, 0.0, None, closed="right", allow_inf=True)


def _sig(sigma: float, sens: float) -> tuple[float, float]:
    s = POSITIVE.check("sigma", sigma, what=" (Gaussian noise standard deviation)")
    d = POSITIVE.check("sensitivity", sens, what=" (global sensitivity Δ)")
    return s, d


def gaussian_delta(*, eps: float, sigma: float, sensitivity: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism N(0, σ²) on sensitivity Δ: δ_μ(ε) of μ = Δ/σ
    (:func:`hetdp_core.noise.gdp.gdp_delta`)."""
    s, d = _sig(sigma, sensitivity)
    e = NONNEGATIVE.check("eps", eps, what=" (privacy level ε)")
    return float(gdp_delta(e, mu=d / s)[0])


def gaussian_tail(*, eps: float, sigma: float, sensitivity: float) -> float:
    """P(L > ε) for the Gaussian mechanism: Φ(μ/2 − ε/μ) with μ = Δ/σ (:func:`hetdp_core.noise.gdp.gdp_tail`)."""
    s, d = _sig(sigma, sensitivity)
    e = NONNEGATIVE.check("eps", eps, what=" (privacy level ε)")
    return float(gdp_tail(e, mu=d / s)[0])


def gaussian_sigma_exact(*, eps: float, delta: float, sensitivity: float) -> float:
    """The smallest σ whose exact profile gives δ(ε) ≤ δ (the analytic Gaussian mechanism of Balle and
    Wang 2018): Δ/μ for the largest such μ (:func:`hetdp_core.noise.gdp.gdp_mu`), σ/Δ at least 10⁻⁶."""
    e = POSITIVE.check("eps", eps, what=" (privacy level ε)")
    dl = DELTA.check("delta", delta, what=" (δ of (ε, δ)-DP)")
    sens = POSITIVE.check("sensitivity", sensitivity, what=" (global sensitivity Δ)")
    return sens / gdp_mu(eps=e, delta=dl)


def laplace_delta(*, eps: float, b: float, sensitivity: float) -> float:
    """Exact δ(ε) of the Laplace mechanism Lap(b) on sensitivity Δ: 1 − e^{(ε − Δ/b)/2} for ε < Δ/b."""
    e = NONNEGATIVE.check("eps", eps, what=" (privacy level ε)")
    b = POSITIVE.check("b", b, what=" (Laplace scale)")
    e0 = POSITIVE.check("sensitivity", sensitivity, what=" (global sensitivity Δ)") / b
    return float(-math.expm1((e - e0) / 2)) if e < e0 else 0.0


def laplace_tail(*, eps: float, b: float, sensitivity: float) -> float:
    """P(L > ε) for the Laplace mechanism: 1 − ½ e^{−(Δ/b − ε)/2} for ε < Δ/b, else 0 (:func:`laplace_loss_cdf`)."""
    e = NONNEGATIVE.check("eps", eps, what=" (privacy level ε)")
    b = POSITIVE.check("b", b, what=" (Laplace scale)")
    e0 = POSITIVE.check("sensitivity", sensitivity, what=" (global sensitivity Δ)") / b
    return float(1.0 - laplace_loss_cdf(e, eps0=e0)[0])


def laplace_loss_cdf(loss, *, eps0: float) -> np.ndarray:
    """P(L ≤ ℓ) of the privacy loss of Laplace noise with ε₀ = Δ/b (y ~ Lap(0, b) against a neighbour Δ
    away, L = (|y − Δ| − |y|)/b), for each ℓ: 0 below −ε₀, ½ e^{(ℓ − ε₀)/2} on [−ε₀, ε₀) (an atom e^{−ε₀}/2
    at −ε₀, then a density e^{(ℓ − ε₀)/2}/4) and 1 from ε₀ (an atom ½ there)."""
    e0 = _EPS0.check("eps0", eps0, what=" (the loss bound Δ/b)")
    x = np.atleast_1d(np.asarray(loss, dtype=float))
    mid = 0.5 * np.exp((np.minimum(x, e0) - e0) / 2)
    return np.where(x < -e0, 0.0, np.where(x >= e0, 1.0, mid))


# ------------------------------------------------------------------ bounded Laplace
def _lap_cdf(y, q, b):
    z = (y - q) / b
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))


def _bl_pair(eps: float, q, t, b: float, lower: float, upper: float):
    """(δ, P(L > ε)) for the pair (true value q, neighbour q' = q + t) in both orientations; arrays."""
    q = np.asarray(q, float)
    qp = q + t
    C = _lap_cdf(upper, q, b) - _lap_cdf(lower, q, b)
    Cp = _lap_cdf(upper, qp, b) - _lap_cdf(lower, qp, b)

    def F(y, centre, mass):  # truncated CDF on [l, u]
        return (_lap_cdf(np.clip(y, lower, upper), centre, b) - _lap_cdf(lower, centre, b)) / mass

    out_d, out_t = [], []
    # orientation 1: p = density at q, p' = at q' > q; L(y) = K + (|y − q'| − |y − q|)/b decreasing in y
    K = np.log(Cp / C)
    ystar = np.clip((q + qp + b * (K - eps)) / 2, np.minimum(q, qp), np.maximum(q, qp))
    ystar = np.where(K + t / b <= eps, lower, np.where(K - t / b > eps, upper, ystar))
    Pq, Pqp = F(ystar, q, C), F(ystar, qp, Cp)
    out_d.append(Pq - math.exp(eps) * Pqp)
    out_t.append(Pq)
    # orientation 2: p = density at q', p' = at q; L(y) = −K + (|y − q| − |y − q'|)/b increasing in y
    K2 = -K
    ystar2 = np.clip((q + qp - b * (K2 - eps)) / 2, np.minimum(q, qp), np.maximum(q, qp))
    ystar2 = np.where(K2 + t / b <= eps, upper, np.where(K2 - t / b > eps, lower, ystar2))
    Sqp, Sq = 1 - F(ystar2, qp, Cp), 1 - F(ystar2, q, C)
    out_d.append(Sqp - math.exp(eps) * Sq)
    out_t.append(Sqp)
    return np.maximum(np.maximum(out_d[0], out_d[1]), 0.0), np.maximum(out_t[0], out_t[1])


@dataclass(frozen=True)
class BoundedLaplaceProfile:
    """The exact profile of the bounded Laplace mechanism at ε: ``delta`` = δ(ε), ``tail`` = P(L > ε), and
    the worst pair of true values found, ``q`` and ``q + t`` (0 < t ≤ Δ)."""

    delta: float
    tail: float
    q: float
    t: float


def bounded_laplace_profile(
    *, eps: float, b: float, sensitivity: float, lower: float, upper: float
) -> BoundedLaplaceProfile:
    """Exact ``delta`` = δ(ε) and ``tail`` = P(L > ε) of the bounded Laplace mechanism with scale b on
    [l, u] for true values at most Δ apart (see the module docstring), with the worst pair (q, q + t)."""
    e = NONNEGATIVE.check("eps", eps, what=" (privacy level ε)")
    b = POSITIVE.check("b", b, what=" (bounded Laplace scale)")
    sens = POSITIVE.check("sensitivity", sensitivity, what=" (global sensitivity Δ)")
    lower, upper = check_real("lower", lower), check_real("upper", upper)
    if not upper - lower > sens:
        raise InputError(f"the domain [l, u] = [{lower:g}, {upper:g}] must be wider than the sensitivity Δ = {sens:g}.")
    ts = sens * np.linspace(1 / 16, 1.0, 16)
    # every (t, q) pair of the grid in one call (row j: t_j's 401 values of q), then the rows in order
    qs = np.linspace(lower, upper - ts, 401, axis=1)
    dd, tails = _bl_pair(e, qs, ts[:, None], b, lower, upper)
    best = {"delta": 0.0, "tail": 0.0, "q": lower, "t": sens}  # the search's running state
    for j, t in enumerate(ts):
        d, tail = dd[j], tails[j]
        i = int(np.argmax(d))
        if d[i] >= best["delta"]:
            best.update(delta=float(d[i]), q=float(qs[j, i]), t=float(t))
        best["tail"] = max(best["tail"], float(tail.max()))
    # refine the worst pair's q (the grid step is (u − l)/400)
    step = (upper - lower) / 400
    t = best["t"]
    lo_q, hi_q = max(lower, best["q"] - step), min(upper - t, best["q"] + step)
    if hi_q > lo_q:
        from scipy.optimize import minimize_scalar  # where it is used, as brentq above

        r = minimize_scalar(
            lambda q: -float(_bl_pair(e, [q], t, b, lower, upper)[0][0]),
            bounds=(lo_q, hi_q),
            method="bounded",
            options={"xatol": 1e-12 * (upper - lower)},
        )
        if -float(r.fun) > best["delta"]:
            best.update(delta=-float(r.fun), q=float(r.x))
    return BoundedLaplaceProfile(**best)


def profile_check(name: str, *, exact_delta: float, stated_delta: float, inputs: dict | None = None):
    """A :class:`~hetdp_core.framework.checks.Check` that the exact δ(ε) of the noise drawn is ≤ the stated δ."""
    from ..framework.checks import check_le

    return check_le(f"{name}: exact δ(ε) ≤ stated δ", exact_delta, stated_delta, inputs=inputs, rel=1e-9, abs_tol=1e-15)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
