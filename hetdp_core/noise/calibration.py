r"""The course's noise calibrations (MAT 4376 lectures 17–20): Laplace (Theorem 2, scale Δ/ε), Gaussian (Theorem 5,
σ = cΔ/ε with c² > 2 ln(1.25/δ)) and the Mixed Noise Mechanism (Theorem 10, corrected: see
:mod:`hetdp_core.noise.mechanisms`), and the ranges the mechanism lab's functions accept.
"""

from __future__ import annotations

import math

from ..framework._doc import document
from ..framework._validate import MIN_EPS, InputError
from ..framework.constraints import DELTA, EPS, POSITIVE, Interval

__all__ = ["laplace_scale", "gaussian_sigma", "mnm_threshold", "mnm_sigma_printed", "mnm_printed_delta", "mnm_noise"]

#: this part of mechanisms's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "mechanisms"

MECHANISMS = ("laplace", "gaussian", "mnm")


#: the privacy levels the mechanism functions accept (the shared ε, up to 100)
_MECHANISM_EPS = EPS.narrow(hi=100.0)


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_SIZE = Interval(int, 1, 50_000_000)
_N = Interval(int, 1, 10_000_000)
_PARETO_INDEX = Interval(float, 0.0, 100.0, closed="right")
_SIZE_2 = Interval(int, 1, 1_000_000)
_CLIP = Interval(float, 1.0, 1e9, closed="right")
_PARETO_INDEX_2 = Interval(float, 1.0, 100.0, closed="right")
_EPS_VALUES = Interval(float, MIN_EPS, 100.0)
_TRIALS = Interval(int, 2, 100_000)
_N_2 = Interval(int, 2, 10**9)
_N_3 = Interval(int, 3, 100_001)
_GAMMA = Interval(float, 2.0, 50.0)
_DELTA = Interval(float, 0.0, 1.0, closed="left")
_SIZE_3 = Interval(int, 1, 10_000_000)
_EPS_LIST = Interval(float, 0.0, None, closed="right", allow_inf=True)


def _eps(eps) -> float:
    return _MECHANISM_EPS.check("eps", eps, what=" (privacy level ε)")


def _delta(delta) -> float:
    return DELTA.check("delta", delta, what=" (δ of (ε, δ)-DP)")


def _sens(sensitivity) -> float:
    return POSITIVE.check("sensitivity", sensitivity, what=" (global sensitivity Δ)")


def laplace_scale(*, sensitivity: float, eps: float) -> float:
    """b = Δ/ε (Theorem 2)."""
    return _sens(sensitivity) / _eps(eps)


def gaussian_sigma(*, sensitivity: float, eps: float, delta: float) -> float:
    """σ = cΔ/ε with c = √(2 ln(1.25/δ)) (1 + 1e−12); Theorem 5 requires ε < 1."""
    eps = _eps(eps)
    if eps >= 1:
        raise InputError(
            f"eps must be < 1 for the Gaussian mechanism (Theorem 5); got {eps:g}. "
            "Use a smaller ε or the Laplace mechanism."
        )
    return math.sqrt(2 * math.log(1.25 / _delta(delta))) * (1 + 1e-12) * _sens(sensitivity) / eps


def mnm_threshold(*, eps: float, delta: float) -> float:
    """t0 = √π δ ε / 2 of Theorem 10 *as printed* (shown only in the erratum: it cannot make the
    printed Gaussian branch private)."""
    return math.sqrt(math.pi) * _delta(delta) * _eps(eps) / 2


def mnm_sigma_printed(*, sensitivity: float, eps: float) -> float:
    """σ = √2 Δ/ε of Theorem 10 as printed (not (ε, δ)-DP; see the module docstring)."""
    return math.sqrt(2) * _sens(sensitivity) / _eps(eps)


def mnm_printed_delta(*, sensitivity: float, eps: float, delta: float) -> float:
    """Exact δ(ε) of Theorem 10's printed Gaussian branch (σ = √2 Δ/ε); the erratum's number."""
    from .profiles import gaussian_delta

    _delta(delta)
    return gaussian_delta(
        eps=_eps(eps), sigma=mnm_sigma_printed(sensitivity=sensitivity, eps=eps), sensitivity=_sens(sensitivity)
    )


def mnm_noise(*, sensitivity: float, eps: float, delta: float) -> tuple[str, float]:
    """The corrected MNM's branch and scale: ``("gaussian", σ)`` with σ the exact (ε, δ) calibration
    when σ² < 2(Δ/ε)², else ``("laplace", Δ/ε)``."""
    from .profiles import gaussian_sigma_exact

    sens, e, d = _sens(sensitivity), _eps(eps), _delta(delta)
    sig = gaussian_sigma_exact(eps=e, delta=d, sensitivity=sens)
    b = sens / e
    return ("gaussian", sig) if sig**2 < 2 * b**2 else ("laplace", b)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
