r"""Risk in attack terms: what an attacker who tests a hypothesis about one person can achieve.

An attacker sees a release and must decide between two neighbouring worlds (the person's record is
in the data / is not; the person's value is x / is x'). Any test has a false-positive rate α (it
says "in" when the person is out) and a true-positive rate 1 − β (it says "in" when the person is
in). The *trade-off curve* f(α) is the smallest possible β at each α (Dong, Roth and Su, *Gaussian
Differential Privacy*, J. R. Stat. Soc. B 2022, arXiv:1905.02383, Definition 2.1). Here:

* **(ε, δ)-DP** (δ = 0: ε-DP) gives the piecewise-linear curve (their Proposition 2.5, after
  Kairouz, Oh and Viswanath 2015)

      f_{ε,δ}(α) = max(0, 1 − δ − e^{ε} α, e^{−ε} (1 − δ − α)),

  so an attack's true-positive rate at false-positive rate α is at most

      TPR(α) = 1 − f(α) = min(1, δ + e^{ε} α, 1 − e^{−ε} (1 − δ − α)).

* **Gaussian noise** of standard deviation σ on a statistic of sensitivity Δ is μ-GDP with
  μ = Δ/σ; its exact curve is G_μ(α) = Φ(Φ^{-1}(1 − α) − μ), i.e. TPR(α) = Φ(μ − Φ^{-1}(1 − α))
  (their Definition 2.7). A ρ-zCDP release of the Gaussian mechanism has μ = √(2ρ).
* **Any privacy profile** δ(ε) (the hockey-stick divergences of the worst pair, in both directions,
  e.g. from a privacy-loss distribution) gives the curve f(α) = sup_ε f_{ε, δ(ε)}(α) (their
  Proposition 2.12). On a finite grid of ε the sup is over fewer lines, so f is smaller and the TPR
  larger: a grid never understates the risk.

The **maximal advantage** sup_α (TPR(α) − α) is the total-variation distance of the two worlds,
δ(0) of the profile: (e^{ε} − 1 + 2δ)/(e^{ε} + 1) for (ε, δ)-DP and 2Φ(μ/2) − 1 for μ-GDP.

"Solve from a target risk" inverts these: the largest ε (the most accurate setting) or the smallest
σ/Δ whose TPR at a chosen FPR stays at or below a target.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import UNIT, Interval
from ..noise.gdp import mu_from_rho, rho_from_mu
from ._rounding import percent

__all__ = [
    "FPR_RANGE",
    "TPR_RANGE",
    "tradeoff_eps_delta",
    "tradeoff_gaussian",
    "tradeoff_from_profile",
    "tpr_eps_delta",
    "tpr_gaussian",
    "tpr_from_profile",
    "advantage_eps_delta",
    "advantage_gaussian",
    "eps_for_tpr",
    "mu_for_tpr",
    "risk_in_words",
    "RISK_KINDS",
    "setting_for_tpr",
    "page_setting_for_tpr",
]

#: the false-positive rates an attack may be read at
FPR_RANGE = (1e-4, 0.5)
#: the targets "solve from a target risk" accepts (an attack TPR)
TPR_RANGE = (1e-4, 0.9999)


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_EPS = Interval(float, 0.0, None, allow_inf=True)
_MU = Interval(float, 0.0, None, allow_inf=True)
_FPR = Interval(float, FPR_RANGE[0], FPR_RANGE[1])
_TARGET_TPR = Interval(float, 0.0, 1.0, closed="left")
_DELTA = Interval(float, 0.0, 0.1)


def _fpr(alpha, name: str = "fpr") -> np.ndarray:
    return UNIT.check_vector(
        name,
        np.atleast_1d(np.asarray(alpha, dtype=float)),
        max_length=1_000_000,
        what=" (an attack's false-positive rate, in [0, 1])",
    )


def _eps_delta(eps, delta) -> tuple[np.ndarray, np.ndarray]:
    e = _EPS.check_vector("eps", np.atleast_1d(eps), max_length=100_000, what=" (privacy levels)")
    d = UNIT.check_vector("delta", np.atleast_1d(delta), max_length=100_000, what=" (failure probability)")
    try:
        e, d = np.broadcast_arrays(e, d)
    except ValueError:
        raise InputError(f"eps has {e.size} entries and delta {d.size}; give one δ or one per ε.") from None
    return e.astype(float), d.astype(float)


def tradeoff_eps_delta(alpha, *, eps, delta=0.0) -> np.ndarray:
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)); ``alpha`` a vector, one (ε, δ)."""
    a = _fpr(alpha, "alpha")
    e, d = _eps_delta(eps, delta)
    if e.size != 1:
        raise InputError(f"tradeoff_eps_delta takes one level; got {e.size}. Call it once per level.")
    e, d = float(e[0]), float(d[0])
    with np.errstate(over="ignore", invalid="ignore"):
        one = 1.0 - d - np.where(a > 0, math.exp(min(e, 700.0)) * a, 0.0)
        two = math.exp(-e) * (1.0 - d - a)
    return np.maximum(0.0, np.maximum(one, two))


def tradeoff_gaussian(alpha, *, mu: float) -> np.ndarray:
    """G_μ(α) = Φ(Φ^{-1}(1 − α) − μ): the exact curve of Gaussian noise with μ = Δ/σ."""
    from scipy.special import ndtr, ndtri

    a = _fpr(alpha, "alpha")
    m = _MU.check("mu", mu, what=" (Gaussian level Δ/σ)")
    if math.isinf(m):
        return np.zeros_like(a)
    return ndtr(-ndtri(a) - m)  # Φ^{-1}(1 − α) = −Φ^{-1}(α), exact for tiny α


def tradeoff_from_profile(alpha, *, eps_grid, delta_grid) -> np.ndarray:
    """sup over the grid of f_{ε, δ(ε)}(α): the curve of a privacy profile (a lower bound on the exact
    curve when the grid is finite, so the risk it implies is never understated)."""
    a = _fpr(alpha, "alpha")
    e, d = _eps_delta(eps_grid, delta_grid)
    if not np.all(np.isfinite(e)):
        raise InputError("eps_grid must be finite.")
    ee = np.exp(np.minimum(e, 700.0))[:, None]
    one = 1.0 - d[:, None] - ee * a[None, :]
    two = (1.0 - d[:, None] - a[None, :]) / ee
    return np.maximum(0.0, np.maximum(one, two).max(axis=0))


def tpr_eps_delta(*, eps, delta=0.0, fpr) -> np.ndarray:
    """The most an attack can catch at false-positive rate ``fpr`` under (ε, δ)-DP, one per level."""
    e, d = _eps_delta(eps, delta)
    if np.ndim(fpr) != 0:
        raise InputError("fpr must be one number here.")
    a = float(_fpr(fpr)[0])
    with np.errstate(over="ignore", invalid="ignore"):
        first = d + np.exp(np.minimum(e, 700.0)) * a if a > 0 else d.copy()
        second = 1.0 - np.exp(-e) * (1.0 - d - a)
    return np.clip(np.minimum(np.minimum(first, second), 1.0), 0.0, 1.0)


def tpr_gaussian(*, mu, fpr) -> np.ndarray:
    """Φ(μ − Φ^{-1}(1 − α)): the most an attack can catch at false-positive rate α under μ-GDP."""
    from scipy.special import ndtr, ndtri

    m = _MU.check_vector("mu", np.atleast_1d(mu), max_length=100_000, what=" (Gaussian level Δ/σ)")
    a = float(_fpr(fpr)[0])
    with np.errstate(invalid="ignore"):
        out = ndtr(m + ndtri(a))
    return np.where(np.isinf(m), 1.0, out)


def tpr_from_profile(*, eps_grid, delta_grid, fpr) -> float:
    """1 − sup_ε f_{ε, δ(ε)}(α) for one privacy profile on a grid."""
    return float(1.0 - tradeoff_from_profile([fpr], eps_grid=eps_grid, delta_grid=delta_grid)[0])


def advantage_eps_delta(*, eps, delta=0.0) -> np.ndarray:
    """sup_α (TPR − α) = (e^ε − 1 + 2δ)/(e^ε + 1) for (ε, δ)-DP (1 for ε = ∞)."""
    e, d = _eps_delta(eps, delta)
    with np.errstate(over="ignore", invalid="ignore"):
        t = np.exp(-e)  # written with e^{−ε}: no overflow
        out = (1.0 - t + 2.0 * d * t) / (1.0 + t)
    return np.minimum(out, 1.0)


def advantage_gaussian(*, mu) -> np.ndarray:
    """sup_α (TPR − α) = 2Φ(μ/2) − 1 for μ-GDP."""
    from scipy.special import ndtr

    m = _MU.check_vector("mu", np.atleast_1d(mu), max_length=100_000, what=" (Gaussian level Δ/σ)")
    return np.where(np.isinf(m), 1.0, 2.0 * ndtr(m / 2.0) - 1.0)


def _target(target_tpr: float, fpr: float, floor: float) -> tuple[float, float]:
    a = _FPR.check("fpr", fpr, what=" (the attack's false-positive rate)")
    t = _TARGET_TPR.check("target_tpr", target_tpr, what=" (the highest acceptable TPR)")
    if t <= a + floor:
        raise InputError(
            f"target_tpr must exceed the false-positive rate{' plus δ' if floor else ''} "
            f"({a + floor:.4g}): even a release that says nothing lets a guess catch that many; got {t:g}. "
            "Raise the target or lower the false-positive rate."
        )
    return t, a


def eps_for_tpr(*, target_tpr: float, fpr: float, delta: float = 0.0) -> float:
    """The largest ε (the most accurate level) with TPR(fpr) ≤ target under (ε, δ)-DP:
    TPR is the smaller of two increasing terms, so it stays at or below t up to the larger root:
    ε* = max(log((t − δ)/α), log((1 − δ − α)/(1 − t)))."""
    d = _DELTA.check("delta", delta, what=" (failure probability)")
    t, a = _target(target_tpr, fpr, d)
    return float(max(math.log((t - d) / a), math.log((1.0 - d - a) / (1.0 - t))))


def mu_for_tpr(*, target_tpr: float, fpr: float) -> float:
    """The largest Gaussian level μ = Δ/σ with TPR(fpr) ≤ target: μ* = Φ^{-1}(t) + Φ^{-1}(1 − α);
    the smallest noise is then σ/Δ = 1/μ*."""
    from scipy.special import ndtri

    t, a = _target(target_tpr, fpr, 0.0)
    return float(ndtri(t) - ndtri(a))


def risk_in_words(tpr: float, fpr: float) -> str:
    """One plain sentence: "an attacker who accepts wrongly flagging 1 in 100 people it is not after
    catches at most 2.72 % of those it is after" (rounded up, never understating the risk)."""
    one_in = 1.0 / float(fpr)
    who = f"1 in {one_in:.0f}" if abs(one_in - round(one_in)) < 1e-9 else f"{percent(fpr, up=True)} of"
    return (
        f"an attacker who accepts wrongly flagging {who} people it is not after catches at most "
        f"{percent(tpr, up=True)} of those it is after"
    )


#: what a page's privacy setting is: an ε-DP level, or the ρ of ρ-zCDP Gaussian noise (μ = √(2ρ))
RISK_KINDS = ("eps", "zcdp")


def setting_for_tpr(*, kind: str, target_tpr: float, fpr: float) -> float:
    """The largest setting of ``kind`` whose attack TPR at ``fpr`` is at most ``target_tpr``: ε for an
    ε-DP level (:func:`eps_for_tpr`), ρ = μ*²/2 for ρ-zCDP Gaussian noise (:func:`mu_for_tpr`)."""
    from ..framework._validate import check_choice

    kind = check_choice("kind", kind, RISK_KINDS)
    if kind == "eps":
        return eps_for_tpr(target_tpr=target_tpr, fpr=fpr)
    return rho_from_mu(mu_for_tpr(target_tpr=target_tpr, fpr=fpr))


def _floor3(x: float) -> float:
    """``x`` rounded *down* to 3 significant digits (a setting shown rounded stays on the safe side)."""
    if x <= 0 or not math.isfinite(x):
        return x
    e = math.floor(math.log10(x)) - 2
    return float(f"{math.floor(x / 10.0**e * (1 + 1e-12)) * 10.0**e:.3g}")


def page_setting_for_tpr(page, *, target_tpr: float, fpr: float) -> dict:
    """Solve from a target risk on a page: the page's privacy setting (its spec's ``risk_field``) at
    its most accurate value whose attack TPR at ``fpr`` stays at or below ``target_tpr``, rounded
    down to 3 significant digits and kept within the field's range. Returns ``field``, ``label``,
    ``value``, ``exact`` (before rounding and range), ``tpr`` (at ``value``) and ``note`` (when the
    range decides)."""
    spec = page.PAGE_SPEC
    if spec.risk_field is None:
        raise InputError(
            f"PAGE: {spec.url} has no single privacy setting to solve for (its levels are per user or per "
            "release); use hetdp meaning --target-tpr for a level."
        )
    field = page.SCENARIO.specs()[spec.risk_field]
    exact = setting_for_tpr(kind=spec.risk_kind, target_tpr=target_tpr, fpr=fpr)
    value, note = _floor3(exact), ""
    if value > field.hi:
        value, note = field.hi, f"the target allows more than the page's largest {field.label} ({field.hi:g})"
    elif value < field.lo:
        value = field.lo
        note = f"the target needs less than the page's smallest {field.label} ({field.lo:g}); it is not met here"
    tpr = (
        float(tpr_eps_delta(eps=value, fpr=fpr)[0])
        if spec.risk_kind == "eps"
        else float(tpr_gaussian(mu=mu_from_rho(value), fpr=fpr)[0])
    )
    return {"field": spec.risk_field, "label": field.label, "value": value, "exact": exact, "tpr": tpr, "note": note}


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
