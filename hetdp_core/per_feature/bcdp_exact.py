r"""Exact BCDP computations on finite examples (BCDP paper §2–3, Examples 1–2, Theorem 1).

A finite data space ``X = X_1 × … × X_d`` is represented by array shapes: the prior ``prior`` has
shape ``(k_1, …, k_d)`` (non-negative, sums to 1) and the mechanism ``mech`` has shape
``(k_1, …, k_d, |Y|)`` with ``mech[x, y] = P(M(x) = y)`` (each row sums to 1).

* BCDP level of coordinate i (Definition 4): sets reduce to singletons (mediant inequality) and
  events to single outputs, so
  :math:`\delta_i = \max_{y,a,a'} \log\frac{P(y\mid x_i=a)}{P(y\mid x_i=a')}` over a, a' with positive
  prior mass, :math:`P(y\mid x_i=a) = \sum_{x_{-i}} \pi(x_{-i}\mid x_i=a)\,P(y\mid x)`; +∞ when a
  positive numerator meets a zero denominator. Zeros are *structural* only (an exact 0 in the
  mechanism's table or the prior): everything is computed in log space (log-sum-exp), so a tiny
  positive probability such as (1 + e^{3.5})^{-10} ≈ 4e−16 stays positive and its level finite. An
  earlier version treated probabilities ≤ 1e−15 as zeros and reported ∞ where the truth is 35.
* LDP level (Definition 1): :math:`\varepsilon = \max_{y,x,x'} \log P(y|x)/P(y|x')` over all x, x'.
* CDP level of coordinate i (Definition 3): the same maximum over x, x' differing only in x_i.
* Correlation q_i (Proposition 4): :math:`\max_{a,a'} TV(\pi(x_{-i}|x_i=a), \pi(x_{-i}|x_i=a'))`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._deprecated import moved
from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import UNIT, Interval
from ..noise.rr import rr_channel

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_CELLS",
    "check_prior",
    "check_mechanism",
    "conditional_outputs",
    "bcdp_levels",
    "ldp_level",
    "cdp_levels",
    "tv_correlation",
    "independent_runs",
    "post_process",
    "example1",
    "example2",
    "q_mixture_prior",
    "randomized_response",
    "rr_bounds",
    "rr_sweep",
    "RRSweep",
    "tradeoff_curve",
    "all_tests",
    "ExactReport",
    "exact_report",
]
__getattr__ = moved(__name__, {"compose": "hetdp_core.per_feature.bcdp_exact:independent_runs"})

#: Largest |X|·|Y| handled by enumeration (d = 10 binary features with |Y| = 2^10 is 2^20).
MAX_CELLS = 4_200_000


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_COPIES = Interval(int, 1, 3)
_D = Interval(int, 1, 12)
_C = Interval(float, 0.0, 50.0)


def _log(a: np.ndarray) -> np.ndarray:
    """Elementwise log with log 0 = −∞ (a structural zero)."""
    with np.errstate(divide="ignore"):
        return np.log(a)


def _lse(a: np.ndarray, axis) -> np.ndarray:
    """log Σ exp along ``axis``; all −∞ gives −∞ (no warnings)."""
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def check_prior(prior) -> np.ndarray:
    """A finite prior: non-negative, finite, sums to 1 (±1e-9), at most 20 coordinates."""
    try:
        p = np.asarray(prior, dtype=float)
    except (TypeError, ValueError):
        raise InputError("prior must be an array of probabilities (one axis per coordinate).") from None
    if p.ndim < 1 or p.ndim > 20 or p.size == 0:
        raise InputError(f"prior must have 1 to 20 axes (one per coordinate); got shape {p.shape}.")
    if not np.all(np.isfinite(p)):
        raise InputError("prior must contain finite probabilities; found NaN or inf.")
    if np.any(p < 0):
        raise InputError(f"prior probabilities must be >= 0; the smallest is {p.min():g}. Fix the prior.")
    if abs(p.sum() - 1.0) > 1e-9:
        raise InputError(f"prior must sum to 1; it sums to {p.sum():.12g}. Normalise the prior.")
    return p


def check_mechanism(mech, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A finite mechanism: shape (k_1,…,k_d,|Y|), entries in [0,1], each row summing to 1 (±1e-9)."""
    try:
        m = np.asarray(mech, dtype=float)
    except (TypeError, ValueError):
        raise InputError("mech must be an array of probabilities with the outputs on the last axis.") from None
    if m.ndim < 2:
        raise InputError(f"mech must have the input axes plus an output axis; got shape {m.shape}.")
    if shape is not None and m.shape[:-1] != tuple(shape):
        raise InputError(f"mech input axes must match the prior {tuple(shape)}; got {m.shape[:-1]}.")
    if m.size > MAX_CELLS:
        raise InputError(
            f"mech has {m.size} cells, more than the {MAX_CELLS} that exact enumeration "
            "handles; reduce d or the number of outputs."
        )
    if not np.all(np.isfinite(m)):
        raise InputError("mech must contain finite probabilities; found NaN or inf.")
    if np.any(m < 0) or np.any(m > 1):
        raise InputError(f"mech probabilities must be in [0, 1]; found values in [{m.min():g}, {m.max():g}].")
    rows = m.sum(axis=-1)
    if np.any(np.abs(rows - 1.0) > 1e-9):
        bad = np.unravel_index(np.argmax(np.abs(rows - 1.0)), rows.shape)
        raise InputError(
            f"mech rows must sum to 1 (a distribution over outputs for every input); the row "
            f"for input {tuple(int(b) for b in bad)} sums to {rows[bad]:.12g}."
        )
    return m


def _log_ratio_max(logP: np.ndarray) -> float:
    """max over y and pairs of rows (a, a') of log P[a, y] − log P[a', y] from log-probabilities;
    +inf where a positive probability faces a structural zero (−∞)."""
    hi = logP.max(axis=0)
    lo = logP.min(axis=0)
    keep = hi > -np.inf
    if np.any(keep & (lo == -np.inf)):
        return float("inf")
    if not keep.any():
        return 0.0
    return float(max(0.0, np.max(hi[keep] - lo[keep])))


def _log_conditional(p: np.ndarray, logm: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(values a with positive prior mass, log P(y | x_i = a) of shape (A, |Y|)), in log space."""
    joint = np.moveaxis(_log(p)[..., None] + logm, i, 0)  # (k_i, …, |Y|)
    joint = joint.reshape(joint.shape[0], -1, logm.shape[-1])
    lj = _lse(joint, axis=1)
    marg = np.moveaxis(p, i, 0).reshape(p.shape[i], -1).sum(axis=1)
    pos = np.flatnonzero(marg > 0)
    return pos, lj[pos] - np.log(marg[pos])[:, None]


def conditional_outputs(prior, mech, i: int) -> tuple[np.ndarray, np.ndarray]:
    """P(y | x_i = a) for every value a with positive prior mass: returns (values a, array (A, |Y|))."""
    p = check_prior(prior)
    m = check_mechanism(mech, p.shape)
    i = Interval(int, 0, p.ndim - 1).check("i", i, what=" (coordinate index, 0-based)")
    pos, lc = _log_conditional(p, _log(m), i)
    return pos, np.exp(lc)


def bcdp_levels(prior, mech) -> np.ndarray:
    """Exact BCDP level δ_i of every coordinate (Definition 4), computed in log space."""
    p = check_prior(prior)
    logm = _log(check_mechanism(mech, p.shape))
    return np.array([_log_ratio_max(_log_conditional(p, logm, i)[1]) for i in range(p.ndim)])


def ldp_level(mech) -> float:
    """Exact LDP level over all inputs (Definition 1); +inf if some output is impossible for some x
    and possible for another."""
    m = check_mechanism(mech)
    return _log_ratio_max(_log(m).reshape(-1, m.shape[-1]))


def cdp_levels(mech) -> np.ndarray:
    """Exact CDP level c_i (Definition 3): worst log-ratio between inputs differing only in x_i."""
    logm = _log(check_mechanism(mech))
    d = logm.ndim - 1
    out = np.zeros(d)
    for i in range(d):
        mi = np.moveaxis(logm, i, 0)  # (k_i, rest…, |Y|)
        out[i] = _log_ratio_max(mi.reshape(mi.shape[0], -1))
    return out


def tv_correlation(prior) -> np.ndarray:
    """q_i = max over a, a' (positive mass) of TV(π(x_{−i} | x_i = a), π(x_{−i} | x_i = a'))."""
    p = check_prior(prior)
    q = np.zeros(p.ndim)
    for i in range(p.ndim):
        pi = np.moveaxis(p, i, 0).reshape(p.shape[i], -1)
        marg = pi.sum(axis=1)
        cond = pi[marg > 0] / marg[marg > 0, None]
        if cond.shape[0] > 1:
            q[i] = 0.5 * np.abs(cond[:, None, :] - cond[None, :, :]).sum(axis=2).max()
    return np.clip(q, 0.0, 1.0)  # a TV distance; round-off can give 1 + 2e-16


def independent_runs(mech1, mech2) -> np.ndarray:
    """The mechanism that runs both on the same input, independently, and outputs both answers:
    P((y1, y2) | x) = P1(y1|x) P2(y2|x) (the privacy-loss accountant's composition is
    :func:`hetdp_core.accountants.pld.compose`)."""
    a, b = check_mechanism(mech1), check_mechanism(mech2)
    if a.shape[:-1] != b.shape[:-1]:
        raise InputError(f"mech1 and mech2 must share input axes; got {a.shape[:-1]} and {b.shape[:-1]}.")
    out = a[..., :, None] * b[..., None, :]
    return out.reshape(*a.shape[:-1], -1)


def post_process(mech, kernel) -> np.ndarray:
    """K ∘ M for a stochastic matrix K of shape (|Y|, |Z|) (a function is a 0/1 matrix)."""
    m = check_mechanism(mech)
    K = np.asarray(kernel, dtype=float)
    if K.ndim != 2 or K.shape[0] != m.shape[-1]:
        raise InputError(f"kernel must have shape (|Y|, |Z|) = ({m.shape[-1]}, …); got {K.shape}.")
    if np.any(K < 0) or np.any(np.abs(K.sum(axis=1) - 1) > 1e-9):
        raise InputError("kernel rows must be probability distributions (non-negative, summing to 1).")
    return m @ K


def example1(*, a: float, b: float, c: float) -> tuple[np.ndarray, np.ndarray]:
    """Example 1: x1, x2 i.i.d. Bern(1/2), Y = {0, 1} with P(M=1|x) = a (0,0), b (1,0), 0 (0,1), c (1,1).
    Returns (prior (2,2), mech (2,2,2)) indexed [x1, x2, y]."""
    a = UNIT.check("a", a, what=" (P(M=1 | x1=0, x2=0))")
    b = UNIT.check("b", b, what=" (P(M=1 | x1=1, x2=0))")
    c = UNIT.check("c", c, what=" (P(M=1 | x1=1, x2=1))")
    p1 = np.array([[a, 0.0], [b, c]])  # [x1, x2]
    return np.full((2, 2), 0.25), np.stack([1 - p1, p1], axis=-1)


def example2(*, copies: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Example 2: x ∈ {0,1}³ uniform; M(x) = [x1⊕x2, x3] or [x2, x1⊕x3] with probability 1/2 each
    (outputs y = 2·y_a + y_b). ``copies`` independent runs are composed."""
    copies = _COPIES.check("copies", copies, what=" (independent runs)")
    m = np.zeros((2, 2, 2, 4))
    for x1, x2, x3 in itertools.product((0, 1), repeat=3):
        m[x1, x2, x3, 2 * (x1 ^ x2) + x3] += 0.5
        m[x1, x2, x3, 2 * x2 + (x1 ^ x3)] += 0.5
    out = m
    for _ in range(copies - 1):
        out = independent_runs(out, m)
    return np.full((2, 2, 2), 1 / 8), out


def q_mixture_prior(*, d: int, q: float) -> np.ndarray:
    """Eq. (58) on {0,1}^d: with probability q all coordinates equal one fair bit, else i.i.d. fair
    bits. TV correlation q_i = q for every i."""
    d = _D.check("d", d, what=" (number of binary features)")
    q = UNIT.check("q", q, what=" (mixture weight)")
    p = np.full((2,) * d, (1 - q) / 2**d)
    p[(0,) * d] += q / 2
    p[(1,) * d] += q / 2
    return p


def randomized_response(c) -> np.ndarray:
    """Per-coordinate randomized response on {0,1}^d: coordinate i is reported truthfully with
    probability e^{c_i}/(1 + e^{c_i}), independently. Output y ∈ {0,1}^d flattened (row-major).
    It is c-CDP and (Σ c_i)-LDP."""
    c = _C.check_vector("c", c, max_length=10, what=" (per-coordinate RR levels)")
    d = c.size
    keep, flip = rr_channel(c)
    m = np.ones((2,) * d + (2,) * d)
    for i in range(d):
        same = np.array([[keep[i], flip[i]], [flip[i], keep[i]]])  # [x_i, y_i]
        shape = [1] * (2 * d)
        shape[i], shape[d + i] = 2, 2
        m = m * same.reshape(shape)
    return m.reshape((2,) * d + (2**d,))


def rr_bounds(c, q: float) -> dict:
    """Bounds on the BCDP level of per-coordinate RR under a prior with correlation q:
    Prop 3 (LDP level Σc for every coordinate), Prop 4(1), and Prop 4(2) with ε = Σc."""
    from .bcdp import prop4_composition_guarantee, prop4_ldp_guarantee

    c = _C.check_vector("c", c, max_length=10)
    p41, ldp = prop4_composition_guarantee(c=c, q=q)
    return {
        "prop3": np.full(c.size, ldp),
        "prop4_1": p41,
        "prop4_2": prop4_ldp_guarantee(c=c, q=q, ldp=ldp),
        "ldp": ldp,
    }


@dataclass(frozen=True)
class RRSweep:
    """:func:`rr_sweep`'s answer: the tidy ``table`` and the ``checks`` of every exact level against the
    proven bounds."""

    table: pd.DataFrame
    checks: tuple


def rr_sweep(*, c, qs) -> RRSweep:
    """Exact BCDP level of per-coordinate RR under the q-mixture prior, against the bounds, for each
    q in ``qs``: tidy table (q, coordinate, exact, prop4, prop3, tv, within_bound). ``within_bound``
    and the checks compare the exact level with the proven bounds (Props 3 and 4, relative 1e-9):
    a failure would be a numerical failure of this computation, never a finding."""
    import pandas as pd

    c = _C.check_vector("c", c, max_length=10, what=" (per-coordinate RR levels)")
    qs = UNIT.check_vector("qs", qs, max_length=200, what=" (correlations)")
    mech = randomized_response(c)
    rows = []
    for q in qs:
        prior = q_mixture_prior(d=c.size, q=float(q))
        exact = bcdp_levels(prior, mech)
        b = rr_bounds(c, float(q))
        tv = tv_correlation(prior)
        for i in range(c.size):
            bound = min(b["prop4_1"][i], b["prop4_2"][i], b["prop3"][i])
            rows.append(
                {
                    "q": float(q),
                    "coordinate": i + 1,
                    "c": c[i],
                    "exact": exact[i],
                    "prop4": min(b["prop4_1"][i], b["prop4_2"][i]),
                    "prop3": b["prop3"][i],
                    "tv": tv[i],
                    "within_bound": bool(exact[i] <= bound * (1 + 1e-9) + 1e-12),
                }
            )
    df = pd.DataFrame(rows)
    from ..framework.checks import check_le

    check = check_le(
        "exact δ_i ≤ Propositions 3 and 4",
        df["exact"],
        np.minimum(df["prop4"], df["prop3"]),
        labels=[f"q = {q:g}, coordinate {i}" for q, i in zip(df["q"], df["coordinate"])],
        inputs={"c": ",".join(f"{v:g}" for v in c)},
    )
    return RRSweep(df, (check,))


def tradeoff_curve(p0, p1) -> tuple[np.ndarray, np.ndarray]:
    """Neyman–Pearson lower boundary of (type I, type II) pairs for H0: Y ~ p0 vs H1: Y ~ p1 over
    all (randomised) tests: reject on outputs in decreasing order of p1/p0. Returns (alpha, beta)
    vertices from (0, 1) to (1, 0); the region of achievable pairs lies on or above it."""
    p0 = UNIT.check_vector("p0", p0, max_length=MAX_CELLS)
    p1 = UNIT.check_vector("p1", p1, length=p0.size)
    with np.errstate(divide="ignore", invalid="ignore"):  # log ratio: p1/p0 overflows for tiny p0
        log_lr = np.where(p0 > 0, np.log(p1) - np.log(np.where(p0 > 0, p0, 1)), np.inf)
    order = np.argsort(-log_lr, kind="stable")
    alpha = np.concatenate([[0.0], np.cumsum(p0[order])])
    beta = 1.0 - np.concatenate([[0.0], np.cumsum(p1[order])])
    return np.clip(alpha, 0, 1), np.clip(beta, 0, 1)


def all_tests(p0, p1, max_outputs: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """(type I, type II) of every deterministic rejection region R ⊆ Y (|Y| ≤ ``max_outputs``)."""
    p0 = UNIT.check_vector(
        "p0", p0, max_length=max_outputs, what=f" (at most {max_outputs} outputs for full enumeration)"
    )
    p1 = UNIT.check_vector("p1", p1, length=p0.size)
    masks = np.array(list(itertools.product((0, 1), repeat=p0.size)), dtype=float)
    return masks @ p0, 1.0 - masks @ p1


@dataclass(frozen=True)
class ExactReport:
    """Everything the lab shows for one (prior, mechanism) pair."""

    bcdp: np.ndarray
    cdp: np.ndarray
    ldp: float
    tv: np.ndarray


def exact_report(prior, mech) -> ExactReport:
    """Exact BCDP, CDP and LDP levels and the total-variation correlation of a finite prior and mechanism."""
    p = check_prior(prior)
    m = check_mechanism(mech, p.shape)
    return ExactReport(bcdp=bcdp_levels(p, m), cdp=cdp_levels(m), ldp=ldp_level(m), tv=tv_correlation(p))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
