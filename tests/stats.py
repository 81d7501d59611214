"""Confidence-interval helpers for the statistical tests.

Every statistical test uses a fixed seed and a stated tolerance in standard errors. With z = 4.5
the two-sided false-alarm probability of one comparison is about 7e-6, so a Bonferroni bound over
the few dozen comparisons of a test keeps the false-alarm rate below 1e-3 — while a broken
mechanism (biased by a factor 2, or with a wrong variance) lands tens of standard errors away.
"""

import numpy as np

Z_TOL = 4.5


def mean_within_ci(samples: np.ndarray, target, *, axis=0, z: float = Z_TOL) -> tuple[bool, np.ndarray]:
    """|sample mean − target| ≤ z · SE, elementwise; returns (all ok, |deviation| / SE)."""
    samples = np.asarray(samples, dtype=float)
    m = samples.mean(axis=axis)
    se = samples.std(axis=axis, ddof=1) / np.sqrt(samples.shape[axis])
    # a quantity with zero sample variance (e.g. Z² = B² when m = 1) is compared to rounding level
    floor = 1e-9 * np.maximum(np.abs(np.asarray(target, dtype=float)), 1e-300)
    dev = np.abs(m - np.asarray(target)) / np.maximum(se, floor)
    return bool(np.all(dev <= z)), dev


def mean_within_known_se(samples: np.ndarray, target, se, *, axis=0, z: float = Z_TOL):
    """Same as :func:`mean_within_ci` with a known (closed-form) standard error."""
    m = np.asarray(samples, dtype=float).mean(axis=axis)
    dev = np.abs(m - np.asarray(target)) / np.asarray(se)
    return bool(np.all(dev <= z)), dev
