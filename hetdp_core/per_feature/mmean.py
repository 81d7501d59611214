r"""Mechanism 1 (M_mean) of the BCDP paper, its server, the min-δ LDP baseline and exact MSEs.

Coordinates are in *sorted* order here (c non-decreasing); :mod:`hetdp_core.per_feature.bcdp_sim` handles
the user's order.

Mechanism 1, for ``x ∈ [-1,1]^d`` and non-decreasing ``c`` (c_0 = 0):
stage k = 1..d privatises ``x_{k:d}`` (dimension ``m_k = d − k + 1``, radius ``√m_k``) with the
Duchi channel at level ``Δ_k = c_k − c_{k−1}`` (stages with Δ_k = 0 are skipped), and

.. math:: \hat\nu_i = \frac{\sum_{k\le i} w_k Y^k_{(i)}}{\sum_{k\le i} w_k},\qquad w_k = \frac{\Delta_k^2}{m_k}.

A coordinate with no stage (``Σ_{k≤i} w_k = 0``, possible when c_1 = 0) gets the estimate 0.

**Server.** The weights are the same for every user, so the average of the users' ν̂ equals the
same weighted combination of the per-stage user averages ``Ȳ^k``; the server therefore only needs
the per-stage sums (computed without materialising per-user outputs). Projection modes:

* ``box`` — clip the final estimate to ``[-1, 1]^d`` (the paper's Π, default);
* ``ball`` — what the authors' code does: each stage mean onto the ℓ2 ball of radius √m_k, the
  final estimate onto the ball of radius √d;
* ``none`` — unprojected (unbiased with the unbiased channel; exact MSE is closed form).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import MAX_EPS, InputError, as_generator, check_choice
from ..framework.constraints import LEVEL, POSITIVE, SIGNED_UNIT, TRIALS, Interval
from .duchi import SCALES, duchi_B, duchi_channel_sum, duchi_directions, spawn

__all__ = [
    "PROJECTIONS",
    "Stage",
    "mmean_stages",
    "project",
    "mmean_release",
    "mmean_estimate",
    "ldp_baseline_estimate",
    "exact_mse_mmean",
    "exact_mse_baseline",
    "scale_bias_factor",
]

PROJECTIONS = ("box", "ball", "none")


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_C_SORTED = Interval(float, 0.0, MAX_EPS)


@dataclass(frozen=True)
class Stage:
    """One stage of Mechanism 1: covers sorted coordinates ``start..d-1`` at level ``level``."""

    k: int  # 1-based stage index
    start: int  # 0-based first coordinate covered (= k − 1)
    dims: int  # m_k = d − k + 1
    level: float  # Δ_k = c_k − c_{k−1}
    weight: float  # w_k = Δ_k² / m_k


def _check_c(c_sorted) -> np.ndarray:
    c = _C_SORTED.check_vector("c_sorted", c_sorted, what=" (CDP levels, sorted)")
    if np.any(np.diff(c) < 0):
        i = int(np.flatnonzero(np.diff(c) < 0)[0])
        raise InputError(
            f"c_sorted must be non-decreasing (coordinates sorted by demand); "
            f"c[{i}]={c[i]:g} > c[{i + 1}]={c[i + 1]:g}. Sort coordinates by δ first."
        )
    if c[-1] <= 0:
        raise InputError(
            f"c_sorted must have a positive largest entry (some privacy budget); got {c}. Raise the demands or ε."
        )
    return c


def mmean_stages(c_sorted) -> list[Stage]:
    """Stages of Mechanism 1 with Δ_k > 0."""
    c = _check_c(c_sorted)
    d = c.size
    inc = np.diff(np.concatenate([[0.0], c]))
    return [
        Stage(k=k + 1, start=k, dims=d - k, level=float(inc[k]), weight=float(inc[k] ** 2 / (d - k)))
        for k in range(d)
        if inc[k] > 0
    ]


def scale_bias_factor(scale: str) -> float:
    """E[Z] = γ v for the Duchi channel: γ = 1 (unbiased scale) or 2 (printed constant)."""
    return {"unbiased": 1.0, "paper": 2.0}[check_choice("scale", scale, SCALES)]


def project(est: np.ndarray, *, mode: str, radius: float | None = None) -> np.ndarray:
    """Project each row of ``est`` (…, d): ``box`` clips to [-1,1], ``ball`` onto the ℓ2 ball of
    ``radius`` (default √d), ``none`` returns a copy."""
    mode = check_choice("mode", mode, PROJECTIONS)
    if radius is not None:
        radius = POSITIVE.check("radius", radius, what=" (ball radius)")
    try:
        est = np.asarray(est, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"est must be an array of numbers; got {type(est).__name__}.") from None
    if est.ndim == 0 or est.shape[-1] == 0:
        raise InputError(f"est must have a last axis of length d >= 1; got shape {est.shape}.")
    if mode == "box":
        return np.clip(est, -1.0, 1.0)
    if mode == "ball":
        rad = np.sqrt(est.shape[-1]) if radius is None else radius
        norms = np.linalg.norm(est, axis=-1, keepdims=True)
        return est * np.minimum(1.0, rad / np.maximum(norms, 1e-300))
    return est.copy()


def _check_x(x, d: int | None = None) -> np.ndarray:
    return SIGNED_UNIT.check_matrix("x", x, shape=(None, d), what=" (user data in [-1,1]^d, one row per user)")


def _weights_matrix(stages: list[Stage], d: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-coordinate normalised stage weights ω[k, i] = w_k / Σ_{k'≤i} w_k' (0 when uncovered)."""
    W = np.zeros((len(stages), d))
    for j, st in enumerate(stages):
        W[j, st.start :] = st.weight
    tot = W.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        omega = np.where(tot > 0, W / tot, 0.0)
    return omega, tot


def mmean_release(
    x, *, c_sorted, trials: int = 1, rng: np.random.Generator | int | None = None, scale: str = "unbiased"
) -> np.ndarray:
    """Every user's local estimate ν̂ (Mechanism 1), shape (trials, n, d). Memory ∝ trials·n·d²."""
    c = _check_c(c_sorted)
    X = _check_x(x, c.size)
    trials = TRIALS.check("trials", trials)
    if trials * X.shape[0] * c.size**2 > 50_000_000:
        raise InputError(
            "trials × n × d² must be <= 5e7 for per-user releases; "
            f"got {trials * X.shape[0] * c.size**2:.3g}. Use mmean_estimate for large runs."
        )
    rng = as_generator(rng)
    stages = mmean_stages(c)
    omega, _ = _weights_matrix(stages, c.size)
    out = None
    for j, (st, g) in enumerate(zip(stages, spawn(rng, len(stages)))):
        # duchi_channel's B·direction, times the stage weights, in one array (no zeros to add to, no
        # temporary per product): the same numbers as Σ_j ω_j ⊙ duchi_channel(...)
        B, unit = duchi_directions(
            X[:, st.start :], level=st.level, r=np.sqrt(st.dims), trials=trials, rng=g, scale=scale
        )
        Y = np.multiply(B, np.transpose(unit, (0, 2, 1)), out=np.empty((trials, X.shape[0], st.dims)))  # C order
        Y *= omega[j, st.start :]
        if out is None and st.start == 0:
            out = Y  # the first stage covers every coordinate
        else:
            if out is None:
                out = np.zeros((trials, X.shape[0], c.size))
            out[:, :, st.start :] += Y
    return out  # never None: _check_c asks for a positive largest level, so some stage exists


def mmean_estimate(
    x,
    *,
    c_sorted,
    trials: int = 1,
    rng: np.random.Generator | int | None = None,
    projection: str = "box",
    scale: str = "unbiased",
) -> np.ndarray:
    """Server estimate of x̄ from Mechanism 1, shape (trials, d), for ``trials`` independent runs."""
    c = _check_c(c_sorted)
    X = _check_x(x, c.size)
    trials = TRIALS.check("trials", trials)
    projection = check_choice("projection", projection, PROJECTIONS)
    rng = as_generator(rng)
    n, d = X.shape
    stages = mmean_stages(c)
    omega, _ = _weights_matrix(stages, d)
    est = np.zeros((trials, d))
    for j, (st, g) in enumerate(zip(stages, spawn(rng, len(stages)))):
        mean_k = (
            duchi_channel_sum(X[:, st.start :], level=st.level, r=np.sqrt(st.dims), trials=trials, rng=g, scale=scale)
            / n
        )  # Ȳ^k
        if projection == "ball":
            mean_k = project(mean_k, mode="ball", radius=np.sqrt(st.dims))
        est[:, st.start :] += omega[j, st.start :] * mean_k
    return project(est, mode=projection)


def ldp_baseline_estimate(
    x,
    *,
    level: float,
    trials: int = 1,
    rng: np.random.Generator | int | None = None,
    projection: str = "box",
    scale: str = "unbiased",
) -> np.ndarray:
    """min-δ LDP baseline: the Duchi channel on the whole vector (radius √d) at ``level``,
    averaged over users, then projected. Shape (trials, d)."""
    X = _check_x(x)
    level = LEVEL.check("level", level, what=" (LDP level of the baseline)")
    trials = TRIALS.check("trials", trials)
    projection = check_choice("projection", projection, PROJECTIONS)
    n, d = X.shape
    mean = duchi_channel_sum(X, level=level, r=np.sqrt(d), trials=trials, rng=rng, scale=scale) / n
    return project(mean, mode=projection)


def exact_mse_mmean(x, *, c_sorted, scale: str = "unbiased", per_coordinate: bool = False):
    r"""Exact pre-projection MSE ``E‖x̂ − x̄‖²`` of the Mechanism 1 server estimate.

    With E[Z] = γv and Var(Z_j) = B²/m − γ²v_j² (γ = 1 unbiased, 2 printed scale), per coordinate

    .. math:: \mathrm{MSE}_i = \sum_{k\le i}\omega_{ki}^2\,\frac{B_k^2/m_k - \gamma^2\,\overline{x_i^2}}{n}
              + (\gamma - 1)^2\,\bar x_i^2,

    where ω are the normalised stage weights and :math:`\overline{x_i^2} = \frac1n\sum_j x_{ji}^2`;
    an uncovered coordinate contributes :math:`\bar x_i^2`. Returns the sum over coordinates, or
    the per-coordinate vector (variance + bias²) with ``per_coordinate=True``.
    """
    c = _check_c(c_sorted)
    X = _check_x(x, c.size)
    gamma = scale_bias_factor(scale)
    n, d = X.shape
    stages = mmean_stages(c)
    omega, tot = _weights_matrix(stages, d)
    xbar, x2 = X.mean(axis=0), (X**2).mean(axis=0)
    var = np.zeros(d)
    for j, st in enumerate(stages):
        B = duchi_B(level=st.level, m=st.dims, r=np.sqrt(st.dims), scale=scale)
        var += omega[j] ** 2 * (B**2 / st.dims - gamma**2 * x2) / n
    bias2 = np.where(tot > 0, (gamma - 1.0) ** 2, 1.0) * xbar**2
    return var + bias2 if per_coordinate else float((var + bias2).sum())


def exact_mse_baseline(x, *, level: float, scale: str = "unbiased", per_coordinate: bool = False):
    """Exact pre-projection MSE of the min-δ LDP baseline (one stage of dimension d); the
    per-coordinate vector with ``per_coordinate=True``."""
    X = _check_x(x)
    level = LEVEL.check("level", level)
    gamma = scale_bias_factor(scale)
    n, d = X.shape
    B = duchi_B(level=level, m=d, r=np.sqrt(d), scale=scale)
    xbar, x2 = X.mean(axis=0), (X**2).mean(axis=0)
    per = (B**2 / d - gamma**2 * x2) / n + (gamma - 1.0) ** 2 * xbar**2
    return per if per_coordinate else float(per.sum())


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
