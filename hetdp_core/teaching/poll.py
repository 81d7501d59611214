r"""A private class poll: randomized response on one yes/no question.

Each respondent answers a sensitive yes/no question truthfully in their own head; what is sent is
the truth with probability p = e^ε / (1 + e^ε) and the opposite otherwise (Warner's randomized
response, :mod:`hetdp_core.noise.rr`; with this p the report is ε-local-DP, the likelihood ratio of any
report being at most p / (1 − p) = e^ε).

If π is the true share of "yes" and λ the probability of a reported "yes",
λ = p π + (1 − p)(1 − π), so with ȳ the observed share of reported "yes" among n reports

    π̂ = (ȳ − (1 − p)) / (2p − 1)                     (unbiased: E π̂ = π)
    Var π̂ = λ (1 − λ) / (n (2p − 1)²),  estimated by ȳ (1 − ȳ) / (n (2p − 1)²),

and the 95 % interval is π̂ ± 1.96 √Var (normal approximation), clipped to [0, 1] (the estimate
itself is not clipped: clipping would bias it). Source: S. L. Warner, *Randomized response: a
survey technique for eliminating evasive answer bias*, Journal of the American Statistical
Association 60 (309), 1965; the ε-DP form is the standard one (e.g. Dwork and Roth, *The
Algorithmic Foundations of Differential Privacy*, 2014, §3.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, fmt
from ..framework.constraints import Interval
from ..noise.rr import rr_channel, rr_estimate, rr_variance

__all__ = ["MAX_POLL_EPS", "truth_probability", "randomize", "PollEstimate", "estimate"]

#: largest ε a class poll accepts: at ε = 10 a report is a lie with probability 4.5·10⁻⁵
MAX_POLL_EPS = 10.0
#: smallest ε a class poll accepts (below it a class of 200 learns almost nothing)
MIN_POLL_EPS = 0.05


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_EPS = Interval(float, MIN_POLL_EPS, MAX_POLL_EPS)
_N = Interval(int, 0, None)


def truth_probability(*, eps: float) -> float:
    """p = e^ε / (1 + e^ε): the probability that the sent answer is the true one."""
    return rr_channel(_EPS.check("eps", eps, what=" (the poll's privacy level)"))[0]


def randomize(truth, *, eps: float, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """The sent answers: each entry of ``truth`` (booleans) kept with probability p, flipped otherwise."""
    p = truth_probability(eps=eps)
    t = np.asarray(truth)
    if t.dtype != bool:
        if t.dtype.kind not in "iuf" or not np.isin(t, (0, 1)).all():
            raise InputError(f"truth must hold yes/no values (booleans or 0/1); got {fmt(truth)}. Pass booleans.")
        t = t.astype(bool)
    keep = as_generator(rng).random(t.shape) < p
    return np.where(keep, t, ~t)


@dataclass(frozen=True)
class PollEstimate:
    """The poll's state after ``n`` reports of which ``yes`` said yes: the raw share of "yes", the
    unbiased estimate of the true share and its 95 % interval (None before the first report)."""

    n: int
    yes: int
    eps: float
    raw_share: float | None
    estimate: float | None
    low: float | None
    high: float | None


def estimate(*, yes: int, n: int, eps: float, z: float = 1.959963984540054) -> PollEstimate:
    """π̂ = (ȳ − (1 − p)) / (2p − 1) with the interval π̂ ± z √(ȳ(1 − ȳ) / (n (2p − 1)²)) ∩ [0, 1]."""
    n = _N.check("n", n, what=" (number of reports)")
    yes = Interval(int, 0, n).check("yes", yes, what=" (reports that said yes)")
    eps = _EPS.check("eps", eps, what=" (the poll's privacy level)")
    if n == 0:
        return PollEstimate(0, 0, eps, None, None, None, None)
    ybar = yes / n
    est = rr_estimate(ybar, eps=eps)
    # with ȳ ∈ {0, 1} the plug-in variance is 0; use the worst case λ = ½ so the interval is honest
    half = z * math.sqrt(rr_variance(0.5 if ybar in (0.0, 1.0) else ybar, eps=eps, n=n))
    return PollEstimate(n, yes, eps, ybar, est, max(0.0, est - half), min(1.0, est + half))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
