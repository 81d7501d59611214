r"""Randomized response: a yes/no answer reported truthfully with probability p = e^ε/(1 + e^ε).

Warner's randomized response sends the true bit with probability p = e^ε/(1 + e^ε) and the opposite
with probability 1 − p = 1/(1 + e^ε): the likelihood ratio of any report is at most p/(1 − p) = e^ε, so
each report is ε-local-DP, and no ε-DP channel on one bit says more (it is the worst case of a pure ε
level). If π is the true share of "yes", a report says "yes" with probability λ = pπ + (1 − p)(1 − π),
and from the share ȳ of "yes" among n reports

    π̂ = (ȳ − (1 − p)) / (2p − 1)          (unbiased: E π̂ = π),
    Var π̂ = λ(1 − λ) / (n (2p − 1)²).

Source: S. L. Warner, *Randomized Response: A Survey Technique for Eliminating Evasive Answer Bias*,
Journal of the American Statistical Association 60 (309), 1965; the ε-DP form is the standard one
(Dwork and Roth, *The Algorithmic Foundations of Differential Privacy*, 2014, §3.2). The class poll,
per-coordinate randomized response (BCDP's exact examples), the per-user page's k-RAPPOR baseline (one
report per bin, each at ε/2) and the privacy-loss accountant's worst case of a pure level all call the
functions here.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..framework._doc import document

__all__ = ["rr_channel", "rr_estimate", "rr_variance"]


def _number_or_array(x) -> np.ndarray | float:
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


def rr_channel(eps) -> tuple[np.ndarray | float, np.ndarray | float]:
    """(p, 1 − p) = (e^ε/(1 + e^ε), 1/(1 + e^ε)): the probabilities that a report is the truth and that it
    is the opposite, each computed without cancellation (1 − p stays exact for a large ε; ε = ∞ gives
    (1, 0)); numbers for a number, arrays for an array."""
    e = np.asarray(eps, dtype=float)
    return _number_or_array(expit(e)), _number_or_array(expit(-e))


def rr_estimate(share, *, eps) -> np.ndarray | float:
    """π̂ = (ȳ − (1 − p))/(2p − 1): the unbiased estimate of the true share of "yes" from the share ȳ of
    reports that said yes (not clipped to [0, 1]: clipping would bias it)."""
    p, q = rr_channel(eps)
    return _number_or_array((np.asarray(share, dtype=float) - q) / (p - q))


def rr_variance(share, *, eps, n: int = 1) -> np.ndarray | float:
    """λ(1 − λ)/(n (2p − 1)²): the variance of :func:`rr_estimate` when a report says yes with probability
    λ = ``share`` (or its plug-in estimate with the observed share)."""
    p, q = rr_channel(eps)
    lam = np.asarray(share, dtype=float)
    return _number_or_array(lam * (1.0 - lam) / (n * (p - q) ** 2))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
