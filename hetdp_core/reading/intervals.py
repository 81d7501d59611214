"""Confidence intervals of a simulated statistic (the solvers' decisions and their fresh checks)."""

from __future__ import annotations

import numpy as np

__all__ = ["binomial_quantile", "statistic_interval"]


def statistic_interval(values: np.ndarray, *, quantile: float | None = None) -> tuple[float, float]:
    """95 % confidence interval of the ``quantile`` of ``values`` (binomial order statistics), or,
    with ``quantile`` None, of their mean (± 1.96 standard errors).

    Parameters
    ----------
    values : numpy.ndarray
        Simulated values of one statistic (errors of independent releases), at least two.
    quantile : float or None
        The quantile in (0, 1) whose interval is wanted (0.5: the median); None: the mean's.

    Returns
    -------
    tuple of float
        The interval's lower and upper ends.
    """
    e = np.sort(values)
    if quantile is None:
        se = float(e.std(ddof=1) / np.sqrt(e.size))
        return float(e.mean() - 1.96 * se), float(e.mean() + 1.96 * se)
    lo_k = binomial_quantile(0.025, n=e.size, p=quantile)
    hi_k = binomial_quantile(0.975, n=e.size, p=quantile)
    return float(e[max(lo_k - 1, 0)]), float(e[min(hi_k, e.size - 1)])


def binomial_quantile(level: float, *, n: int, p: float) -> int:
    """The ``level``-quantile of the Binomial(n, p) law for 0 < level < 1 and 0 < p < 1: the smallest k
    with P(K ≤ k) ≥ level, from scipy.special's binomial CDF (``bdtr``) and its inverse in k (``bdtrik``:
    a continuous estimate, corrected to that smallest k). scipy.special comes with the core already;
    scipy.stats, whose ``binom.ppf`` gives the same values (tested), would cost a solve about 0.5 s of
    imports.

    Parameters
    ----------
    level : float
        The probability in (0, 1) of the quantile.
    n : int
        The number of trials of the binomial law.
    p : float
        The success probability in (0, 1).

    Returns
    -------
    int
        The smallest k in 0..n with P(K ≤ k) ≥ ``level`` (a CDF equal to the level in exact arithmetic
        counts as reaching it).
    """
    from scipy.special import bdtr, bdtrik

    est = float(bdtrik(level, n, p))
    k = min(max(int(np.ceil(est)), 0), n) if np.isfinite(est) else n // 2
    # a CDF equal to the level in exact arithmetic (a tie, as P(K ≤ 3) = ½ for n = 7, p = ½) may be
    # computed a rounding error below it: it counts as reaching the level
    floor = level * (1 - 1e-12)
    while k > 0 and bdtr(k - 1, n, p) >= floor:
        k -= 1
    while k < n and bdtr(k, n, p) < floor:
        k += 1
    return k
