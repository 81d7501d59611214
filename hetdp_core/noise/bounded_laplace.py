r"""The bounded Laplace mechanism (MAT 4376, Definition 24, Theorem 26): Laplace noise conditioned on the domain
[l, u], its normaliser C_q(b), the scale b that makes it (ε, δ)-DP, and the share of plain Laplace releases that
fall outside the domain (the overview: :mod:`hetdp_core.noise.mechanisms`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, check_real
from ..framework.constraints import POSITIVE
from .calibration import _DELTA, _SIZE, _eps, _sens

__all__ = [
    "bounded_laplace_C",
    "bounded_laplace_b",
    "bounded_laplace_density",
    "bounded_laplace_sample",
    "OutsideShare",
    "laplace_outside_share",
]

#: this part of mechanisms's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "mechanisms"


# ------------------------------------------------------------------ bounded Laplace
def bounded_laplace_C(q, *, b: float, lower: float, upper: float):
    """C_q = 1 − ½(exp(−(q − l)/b) + exp(−(u − q)/b)): the mass of Lap(q, b) inside [l, u]."""
    q = np.asarray(q, dtype=float)
    return 1.0 - 0.5 * (np.exp(-(q - lower) / b) + np.exp(-(upper - q) / b))


def _domain(lower, upper):
    lower = check_real("lower", lower, what=" (lower end l of the output domain)")
    upper = check_real("upper", upper, what=" (upper end u of the output domain)")
    if not lower < upper:
        raise InputError(f"need lower < upper for the output domain [l, u]; got [{lower:g}, {upper:g}].")
    return lower, upper


def bounded_laplace_b(*, sensitivity: float, eps: float, delta: float, lower: float, upper: float) -> float:
    """Smallest b with b ≥ Δ/(ε − log ΔC(b) − log(1 − δ)), ΔC(b) = C_{l+Δ}/C_l (Theorem 26).

    g(b) = b(ε − log ΔC(b) − log(1−δ)) − Δ is scanned on a log grid for its first sign change
    and refined by Brent's method. The grid starts where g < 0 provably: l + Δ is nearer the
    centre of [l, u] than l (0 < Δ < u − l), so C_{l+Δ} ≥ C_l, ΔC ≥ 1 and g(b) ≤ b(ε − log(1−δ)) − Δ,
    which is negative for b < Δ/(ε − log(1−δ)). (An earlier grid started at 10⁻³Δ/ε, above the
    answer when δ is close to 1, and returned its first point instead of the smallest b.)"""
    sens, eps = _sens(sensitivity), _eps(eps)
    delta = _DELTA.check("delta", delta, what=" (δ in [0, 1))")
    lower, upper = _domain(lower, upper)
    if sens >= upper - lower:
        raise InputError(f"sensitivity must be smaller than the domain width u − l = {upper - lower:g}; got {sens:g}.")

    def dC(b):
        return bounded_laplace_C(lower + sens, b=b, lower=lower, upper=upper) / bounded_laplace_C(
            lower, b=b, lower=lower, upper=upper
        )

    def g(b, log=math.log):
        return b * (eps - log(dC(b)) - math.log1p(-delta)) - sens

    b_lo = 0.5 * sens / (eps - math.log1p(-delta))
    grid = np.geomspace(b_lo, sens / eps * 1e3 + 10 * (upper - lower), 4000)
    # the scan's signs at once with numpy's log (a loop over the 4 000 points cost a slider step 30-90 ms);
    # Brent's method below refines with the C library's log, as before
    vals = g(grid, np.log)
    if vals[0] >= 0:  # cannot happen (see above); never return it silently
        raise ArithmeticError(f"bounded_laplace_b: g({grid[0]:g}) = {vals[0]:g} >= 0 at the start of the bracket.")
    idx = np.flatnonzero(vals >= 0)
    if idx.size == 0:
        raise InputError("no b satisfies Theorem 26 on the search range; increase ε or δ.")
    i = idx[0]
    # scipy.optimize (0.4 s) is imported where it is used: importing the page modules stays cheap (a menu does)
    from scipy.optimize import brentq

    return float(brentq(g, grid[i - 1], grid[i], xtol=1e-14, rtol=1e-13))


def bounded_laplace_density(v, *, q: float, b: float, lower: float, upper: float) -> np.ndarray:
    """Density of the bounded Laplace mechanism centred at q (Definition 24)."""
    v = np.asarray(v, dtype=float)
    C = bounded_laplace_C(q, b=b, lower=lower, upper=upper)
    inside = (v >= lower) & (v <= upper)
    return np.where(inside, np.exp(-np.abs(v - q) / b) / (2 * b * C), 0.0)


def bounded_laplace_sample(q: float, *, b: float, lower: float, upper: float, size: int, rng=None) -> np.ndarray:
    """Inverse-CDF sampling of Lap(q, b) restricted to [l, u]."""
    lower, upper = _domain(lower, upper)
    b = POSITIVE.check("b", b)
    q = check_real("q", q)
    size = _SIZE.check("size", size)
    rng = as_generator(rng)

    def cdf(v):
        v = np.asarray(v, dtype=float)
        return np.where(v < q, 0.5 * np.exp((v - q) / b), 1 - 0.5 * np.exp(-(v - q) / b))

    def icdf(p):
        return np.where(p < 0.5, q + b * np.log(2 * p), q - b * np.log(2 * (1 - p)))

    lo_p, hi_p = cdf(lower), cdf(upper)
    u = lo_p + (hi_p - lo_p) * rng.random(size)
    return np.clip(icdf(np.clip(u, 1e-300, 1 - 1e-16)), lower, upper)


@dataclass(frozen=True)
class OutsideShare:
    """The share of plain-Laplace releases outside the domain: ``exact``, and ``simulated`` (None when
    nothing was drawn)."""

    exact: float
    simulated: float | None = None


def laplace_outside_share(q: float, *, b: float, lower: float, upper: float, size: int = 0, rng=None) -> OutsideShare:
    """Share of plain Lap(q, b) outputs outside [l, u]: exact, and simulated when ``size`` > 0."""
    lower, upper = _domain(lower, upper)
    b = POSITIVE.check("b", b)
    q = check_real("q", q)
    exact = 1.0 - float(bounded_laplace_C(q, b=b, lower=lower, upper=upper))
    if not size:
        return OutsideShare(exact)
    z = q + as_generator(rng).laplace(0.0, b, _SIZE.check("size", size))
    return OutsideShare(exact, float(np.mean((z < lower) | (z > upper))))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
