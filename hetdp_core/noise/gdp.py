r"""Gaussian noise in closed form: μ-Gaussian differential privacy, its privacy profile and its conversions.

Gaussian noise of standard deviation σ on a statistic of sensitivity Δ is **μ-GDP with μ = Δ/σ**, and
k releases of noise σᵢ compose to exactly μ = √(Σ kᵢ Δ²/σᵢ²) (Dong, Roth and Su, *Gaussian Differential
Privacy*, JRSS-B 2022, arXiv:1905.02383, Corollary 3.3). Its privacy profile, the smallest δ for
each ε (their Corollary 2.13; Balle and Wang, *Improving the Gaussian Mechanism for Differential
Privacy: Analytical Calibration and Optimal Denoising*, ICML 2018, arXiv:1805.06530, Theorem 8), is

    δ_μ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),

and the probability that the privacy loss L ~ N(μ²/2, μ²) exceeds ε is its first term, Φ(μ/2 − ε/μ).
Inverting it gives the exact ε of a noise at δ (:func:`gdp_epsilon`) and the largest μ — the smallest
noise σ = Δ/μ — that meets (ε, δ) (:func:`gdp_mu`, the analytic Gaussian mechanism). As ρ-zCDP,
Gaussian noise has ρ = Δ²/(2σ²) = μ²/2 (Bun and Steinke, *Concentrated Differential Privacy*, TCC 2016,
arXiv:1605.02065, Proposition 1.6), and ρ-zCDP implies (ρ + 2√(ρ log(1/δ)), δ)-DP (their
Proposition 1.3).

Every part of the app that needs one of these — the exact profiles of the noise a page draws
(:mod:`hetdp_core.noise.profiles`), the ledger's accountants (:mod:`hetdp_core.accountants.accounting`,
:mod:`hetdp_core.accountants.pld`), the zCDP pages and the risk in attack terms — calls the functions here.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework._doc import document

__all__ = ["gdp_delta", "gdp_tail", "gdp_epsilon", "gdp_mu", "mu_from_rho", "rho_from_mu", "zcdp_epsilon"]


def _terms(eps, mu: float) -> tuple[np.ndarray, np.ndarray]:
    """log Φ(μ/2 − ε/μ) and ε + log Φ(−μ/2 − ε/μ): the two terms of δ_μ(ε) in log space."""
    from scipy.special import log_ndtr

    return log_ndtr(mu / 2 - eps / mu), eps + log_ndtr(-mu / 2 - eps / mu)


def _log_delta(eps: float, mu: float) -> float:
    """log δ_μ(ε) (−∞ where δ underflows): what the inverses solve, without overflow for ε ~ 10¹⁰."""
    first, second = _terms(eps, mu)
    gap = min(float(second - first), 0.0)
    return -math.inf if gap == 0.0 else float(first) + math.log(-math.expm1(gap))


def gdp_delta(eps, *, mu: float) -> np.ndarray:
    """δ_μ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) of μ-GDP for each ε (any sign; 0 for μ = 0), computed
    from log Φ so that neither a large ε nor a tiny tail overflows or cancels."""
    e = np.atleast_1d(np.asarray(eps, dtype=float))
    if mu == 0:
        return np.zeros_like(e)
    first, second = _terms(e, mu)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.exp(first) * -np.expm1(np.minimum(second - first, 0.0))


def gdp_tail(eps, *, mu: float) -> np.ndarray:
    """P(L > ε) = Φ(μ/2 − ε/μ): the probability that the privacy loss of μ-GDP Gaussian noise exceeds ε."""
    from scipy.special import ndtr

    return ndtr(mu / 2 - np.atleast_1d(np.asarray(eps, dtype=float)) / mu)


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest ε with δ_μ(ε) ≤ δ (0 for μ = 0; +∞ for μ = +∞), solved on log δ by Brent's method."""
    if mu == 0:
        return 0.0
    if math.isinf(mu):
        return math.inf
    target = math.log(delta)
    if _log_delta(0.0, mu) <= target:
        return 0.0
    from scipy.optimize import brentq

    # δ_μ(ε) ≤ Φ(μ/2 − ε/μ) ≤ δ once ε ≥ μ²/2 + μ·√(2 log(1/δ)) + μ
    hi = mu * mu / 2 + mu * (math.sqrt(2 * math.log(1 / delta)) + 1.0)
    while _log_delta(hi, mu) > target:
        hi *= 2
    return float(brentq(lambda e: _log_delta(e, mu) - target, 0.0, hi, xtol=1e-13 * max(1.0, hi), rtol=1e-14))


#: the μ the analytic Gaussian mechanism searches (σ/Δ from 10⁻⁶ to 10⁶)
MU_RANGE = (1e-6, 1e6)


def gdp_mu(*, eps: float, delta: float) -> float:
    """The largest μ whose profile gives δ_μ(ε) ≤ δ — the smallest Gaussian noise σ = Δ/μ that is
    (ε, δ)-DP, the analytic Gaussian mechanism of Balle and Wang — found by Brent's method on log μ
    (δ_μ(ε) increases with μ), within :data:`MU_RANGE`, and nudged down by 10⁻¹² relative so that the
    inequality holds after rounding."""
    target = math.log(delta)

    def excess(log_mu: float) -> float:
        return _log_delta(eps, math.exp(log_mu)) - target

    lo, hi = math.log(MU_RANGE[0]), math.log(MU_RANGE[1])
    if excess(hi) <= 0:
        return MU_RANGE[1]
    # scipy.optimize (0.4 s) is imported where it is used: importing the page modules stays cheap (a menu does)
    from scipy.optimize import brentq

    mu = math.exp(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14)) * (1 - 1e-12)
    while _log_delta(eps, mu) > target:  # guard the last ulps
        mu *= 1 - 1e-10
    return mu


def _same_shape(x: np.ndarray) -> np.ndarray | float:
    return float(x) if x.ndim == 0 else x


def mu_from_rho(rho) -> np.ndarray | float:
    """μ = √(2ρ): the Gaussian level of noise that is ρ-zCDP (σ = Δ/√(2ρ)); a number for a number."""
    return _same_shape(np.sqrt(2.0 * np.asarray(rho, dtype=float)))


def rho_from_mu(mu) -> np.ndarray | float:
    """ρ = μ²/2: the zCDP level of μ-GDP Gaussian noise (μ = Δ/σ, ρ = Δ²/(2σ²)); a number for a number."""
    return _same_shape(np.asarray(mu, dtype=float) ** 2 / 2.0)


def zcdp_epsilon(rho, delta: float) -> np.ndarray | float:
    """ε = ρ + 2√(ρ log(1/δ)): ρ-zCDP implies (ε, δ)-DP (Bun and Steinke, Proposition 1.3); a number for
    a number."""
    r = np.asarray(rho, dtype=float)
    return _same_shape(r + 2.0 * np.sqrt(r * np.log(1.0 / delta)))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
