r"""An empirical privacy-loss test on neighbouring inputs (histogram ratio with exact binomial CIs).

No established DP-testing package (StatDP, DP-Sniper, …) is available from the package registry
this project may use, so this is our own, deliberately simple test. Given samples of a mechanism on
two neighbouring inputs, for every bin B of a common histogram it bounds P_x(B) below and P_y(B)
above with Clopper–Pearson intervals (Bonferroni over bins and both directions, family level
``alpha``) and reports a violation of (ε, δ)-DP when, for some bin,

.. math:: \underline{P_x(B)} > e^{\varepsilon}\,\overline{P_y(B)} + \delta

(or the same with x and y swapped). With this construction a correct mechanism is flagged with
probability at most ``alpha``; a broken one is flagged once the samples resolve the excess.
The returned ``loss_lower_bound`` is the largest certified log-ratio over bins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import NONNEGATIVE, UNIT, Interval

__all__ = ["HistogramTest", "histogram_privacy_test"]


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_ALPHA = Interval(float, 0.0, 0.5, closed="right")
_BINS = Interval(int, 2, 10_000)


@dataclass(frozen=True)
class HistogramTest:
    """What :func:`histogram_privacy_test` found: ``violation`` (the claim is refuted at the family-wise
    level), ``loss_lower_bound`` (the largest certified log P_x(B)/P_y(B) over both directions; 0 when
    none is certified), the bin ``edges`` and the two samples' ``counts_x`` and ``counts_y``."""

    violation: bool
    loss_lower_bound: float
    edges: np.ndarray
    counts_x: np.ndarray
    counts_y: np.ndarray


def _cp(k: np.ndarray, n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    # scipy.stats is imported here, not with the module: 0.2 s that every page pays at a server's
    # first view (the registry imports each page's scenario module, and this one with it)
    from scipy.stats import beta as beta_dist

    lo = np.where(k > 0, beta_dist.ppf(a, k, n - k + 1), 0.0)
    hi = np.where(k < n, beta_dist.ppf(1 - a, k + 1, n - k), 1.0)
    return lo, hi


def histogram_privacy_test(
    sample_x, sample_y, *, eps: float, delta: float = 0.0, bins: int = 30, alpha: float = 1e-3, edges=None
) -> HistogramTest:
    """Test (ε, δ)-DP on one pair of neighbouring inputs from output samples (1-D outputs; discrete
    outputs can be passed with ``edges`` between the values): whether a bin certifies a violation, the
    largest certified privacy loss and the bins used (:class:`HistogramTest`)."""
    x = np.asarray(sample_x, dtype=float).ravel()
    y = np.asarray(sample_y, dtype=float).ravel()
    if x.size < 100 or y.size < 100:
        raise InputError(f"need at least 100 samples per input; got {x.size} and {y.size}.")
    eps = NONNEGATIVE.check("eps", eps, what=" (claimed ε)")
    delta = UNIT.check("delta", delta, what=" (claimed δ)")
    alpha = _ALPHA.check("alpha", alpha, what=" (family-wise error level)")
    if edges is None:
        bins = _BINS.check("bins", bins)
        both = np.concatenate([x, y])
        edges = np.quantile(both, np.linspace(0, 1, bins + 1))
        edges = np.unique(edges)
        edges[0], edges[-1] = -np.inf, np.inf
    else:
        edges = np.asarray(edges, dtype=float)
    kx = np.histogram(x, edges)[0]
    ky = np.histogram(y, edges)[0]
    a = alpha / (4 * kx.size)  # Bonferroni: bins × 2 directions × 2 sides
    px_lo, px_hi = _cp(kx, x.size, a)
    py_lo, py_hi = _cp(ky, y.size, a)
    e = math.exp(eps)
    viol = np.any(px_lo > e * py_hi + delta) or np.any(py_lo > e * px_hi + delta)
    with np.errstate(divide="ignore"):
        l1 = np.log(np.where(px_lo > 0, px_lo, np.nan) / py_hi)
        l2 = np.log(np.where(py_lo > 0, py_lo, np.nan) / px_hi)
    loss = float(np.nanmax(np.r_[l1, l2, 0.0]))
    return HistogramTest(violation=bool(viol), loss_lower_bound=loss, edges=edges, counts_x=kx, counts_y=ky)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
