r"""What a group's releases cost together: four accountants, and the composed privacy-loss distribution.

A release spends, on one group, an :class:`~hetdp_core.accountants.pld.Event` repeated ``repeat`` times:
Gaussian noise of
standard deviation σ (``a`` = σ/Δ), Laplace noise of scale b (``a`` = b/Δ), a pure ε level, or an
approximate (ε, δ) level. The accountants bound the group's total (ε, δ):

* **basic** — sums; the δ left after the approximate levels is split evenly over the Gaussian
  releases, each spending its exact ε at its share (:func:`hetdp_core.noise.gdp.gdp_epsilon`).
* **zcdp** — ρ adds up (Gaussian 1/(2σ²), Laplace and pure ε: ε²/2; Bun and Steinke,
  *Concentrated Differential Privacy*, TCC 2016, arXiv:1605.02065, Propositions 1.3, 1.4, 1.6),
  converted once with ε = ρ + 2√(ρ log 1/δ) (the conversions of :mod:`hetdp_core.noise.gdp`).
* **rdp** — Rényi DP over orders, Google's ``dp-accounting`` (``RdpAccountant``).
* **pld** — the privacy-loss distribution of the whole group (:func:`hetdp_core.accountants.pld.compose`, the module
  this one builds on):

  - every release Gaussian: the composition is **exactly** Gaussian, μ-GDP with
    μ = √(Σ kᵢ/σᵢ²) (Dong, Roth and Su, *Gaussian Differential Privacy*, JRSS-B 2022,
    arXiv:1905.02383, Corollary 3.3); its ε at δ, its privacy profile
    δ_μ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (:mod:`hetdp_core.noise.gdp`) and its trade-off curve
    Φ(Φ⁻¹(α) + μ) (:mod:`hetdp_core.reading.risk`) are closed forms;
  - otherwise the Gaussian releases are still merged into that one exact Gaussian, every other
    release is discretised by ``dp-accounting``'s pessimistic connect-the-dots construction
    (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi, *Connect the Dots: Tighter Discrete
    Approximations of Privacy Loss Distributions*, PETS 2022, arXiv:2207.04380) on a loss grid whose
    step is set for accuracy — at most 1/100 of the smallest release's loss scale and 10⁻⁴ — and the
    repeats and releases are composed in one FFT pass over a window that a Chernoff bound shows
    holds all but 10⁻¹⁸ of the mass (that mass is counted as infinite loss: pessimistic).
    dp-accounting's own ``self_compose`` is not used: its Chernoff orders are tied to the grid and
    at 10⁵ repeats make the support 10–15× wider than the distribution.

Each is a valid upper bound; the **headline** of a group is the smallest
(:class:`hetdp_core.accountants.ledger.Headline`).
"""

from __future__ import annotations

import math

from .._deprecated import moved
from ..framework._doc import document
from ..framework._validate import InputError
from ..noise import gdp
from .pld import compose

__all__ = ["ACCOUNTANTS", "ACCOUNTANT_NAMES", "account"]

ACCOUNTANTS = ("basic", "zcdp", "rdp", "pld")
ACCOUNTANT_NAMES = {"basic": "basic composition", "zcdp": "zCDP", "rdp": "Rényi DP", "pld": "privacy-loss distribution"}

#: what a release spends (:class:`~hetdp_core.accountants.pld.Event`), the closed forms of Gaussian noise
#: (:mod:`hetdp_core.noise.gdp`) and the grid's size limit live beside what computes them
__getattr__ = moved(
    __name__,
    {
        "Event": "hetdp_core.accountants.pld:Event",
        "MAX_POINTS": "hetdp_core.accountants.pld:MAX_POINTS",
        "gaussian_mu": "hetdp_core.accountants.pld:gaussian_mu",
        "gdp_delta": "hetdp_core.noise.gdp:gdp_delta",
        "gdp_epsilon": "hetdp_core.noise.gdp:gdp_epsilon",
    },
)


# ------------------------------------------------------------------ basic, zCDP, Rényi DP
def _basic(events, delta: float) -> float:
    used = sum(e.repeat * e.b for e in events if e.kind == "approx")
    eps = sum(e.repeat * e.scale for e in events if e.kind in ("laplace", "pure", "approx"))
    k = sum(e.repeat for e in events if e.kind == "gaussian")
    if not k:
        return eps if used <= delta * (1 + 1e-12) else math.inf
    if used >= delta:
        return math.inf
    share = (delta - used) / k
    return eps + sum(e.repeat * gdp.gdp_epsilon(1.0 / e.a, share) for e in events if e.kind == "gaussian")


def _side(events, delta: float):
    """Approximate (ε, δ) releases have no zCDP or Rényi curve: they are added by basic composition
    beside the others, which are read at what is left of ``delta``. Returns (others, ε_side, δ_left)."""
    side = [e for e in events if e.kind == "approx"]
    return (
        [e for e in events if e.kind != "approx"],
        sum(e.repeat * e.a for e in side),
        delta - sum(e.repeat * e.b for e in side),
    )


def _zcdp(events, delta: float) -> float:
    rest, eps_side, left = _side(events, delta)
    # Gaussian noise μ = Δ/σ is μ²/2-zCDP; Laplace ε₀ = Δ/b and a pure level ε, being ε-DP, are ε²/2-zCDP
    rho = sum(e.repeat * gdp.rho_from_mu(e.scale) for e in rest)
    if rho == 0:
        return eps_side if left >= -1e-12 * delta else math.inf
    if left <= 0:
        return math.inf
    return eps_side + gdp.zcdp_epsilon(rho, left)


def _dp_event(e):
    import dp_accounting as dpa

    if e.kind == "gaussian":
        return dpa.GaussianDpEvent(noise_multiplier=e.a)
    if e.kind == "laplace":
        return dpa.LaplaceDpEvent(noise_multiplier=e.a)
    # pure ε-DP ⇒ ε²/2-zCDP: the Rényi curve of a Gaussian of noise 1/ε (a valid bound, not tight)
    return dpa.GaussianDpEvent(noise_multiplier=1.0 / e.a) if e.a > 0 else dpa.NoOpDpEvent()


def _rdp(events, delta: float) -> float:
    import dp_accounting as dpa
    from dp_accounting import rdp

    rest, eps_side, left = _side(events, delta)
    if not rest:
        return eps_side if left >= -1e-12 * delta else math.inf
    if left <= 0:
        return math.inf
    acc = rdp.RdpAccountant()
    acc.compose(
        dpa.ComposedDpEvent(
            [dpa.SelfComposedDpEvent(_dp_event(e), e.repeat) if e.repeat > 1 else _dp_event(e) for e in rest]
        )
    )
    return eps_side + float(acc.get_epsilon(left))


def account(accountant: str, events, delta: float) -> tuple[float, str]:
    """(ε, note) of ``events`` at ``delta`` by one accountant. A numerical failure inside an
    accountant is reported in the note with ε = +∞ (no bound), never as a number."""
    events = [e for e in events if not (e.kind in ("pure", "approx") and e.a == 0 and e.b == 0)]
    if not events:
        return 0.0, "no release"
    try:
        if accountant == "pld":
            comp = compose(tuple(events))
            return comp.epsilon(delta), comp.method
        eps = {"basic": _basic, "zcdp": _zcdp, "rdp": _rdp}[accountant](events, delta)
    except (ArithmeticError, ValueError, FloatingPointError) as exc:
        if isinstance(exc, InputError):
            raise
        return math.inf, f"numerical failure in this accountant ({type(exc).__name__}); no bound"
    if not math.isfinite(eps):
        return math.inf, "no finite bound at this δ (the approximate levels use it up)"
    return float(eps), ""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
