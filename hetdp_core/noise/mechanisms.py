r"""Course lab: the mechanism catalogue of MAT 4376 lectures 17–20.

* Laplace (Theorem 2): ``f(x) + Lap(Δ/ε)``, variance 2(Δ/ε)².
* Gaussian (Theorem 5): σ = cΔ/ε with c² > 2 ln(1.25/δ), valid for ε < 1 (we take c at the boundary
  ``√(2 ln(1.25/δ))`` times 1 + 1e−12 so the inequality is strict).
* Mixed Noise Mechanism (Theorem 10), **corrected**: as printed (Gaussian with σ² = 2(Δ/ε)² when
  Δ ≤ t0 = √π δ ε/2, else Laplace) its Gaussian branch is not (ε, δ)-DP — that Gaussian's privacy
  profile depends only on Δ/σ = ε/√2, so no condition on Δ can make it private (ε = 2: exact
  δ(ε) = 0.115). hetdp's MNM draws Gaussian noise with the smallest σ whose *exact* profile meets
  (ε, δ) (:func:`hetdp_core.noise.profiles.gaussian_sigma_exact`) when that variance is below Laplace's
  2(Δ/ε)², else Laplace(Δ/ε): the mechanism the theorem is after (the lower-variance of two
  (ε, δ)-DP noises), private by construction. The choice depends on (ε, δ) only.
* Composition (Lemmas 6, 7) and Example 8.
* Median: local sensitivity, smooth sensitivity by formula (4), noise calibrated to it.
* Bounded Laplace (Definition 24, Theorem 26).
* Exponential mechanism and report-noisy-max (Example 29, Lemma 28).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, check_choice
from ..framework.constraints import POSITIVE, Interval
from ..reading.meaning import labelled

if TYPE_CHECKING:
    import pandas as pd

from .bounded_laplace import (
    OutsideShare,
    bounded_laplace_b,
    bounded_laplace_C,
    bounded_laplace_density,
    bounded_laplace_sample,
    laplace_outside_share,
)
from .calibration import (
    _CLIP,
    _EPS_LIST,
    _EPS_VALUES,
    _N,
    _N_2,
    _PARETO_INDEX,
    _PARETO_INDEX_2,
    _SIZE,
    _SIZE_2,
    _TRIALS,
    MECHANISMS,
    _delta,
    _eps,
    _sens,
    gaussian_sigma,
    laplace_scale,
    mnm_noise,
    mnm_printed_delta,
    mnm_sigma_printed,
    mnm_threshold,
)
from .median import (
    example12_datasets,
    local_sensitivity_median,
    local_sensitivity_release,
    sample_heavy_tailed,
    smooth_noise,
    smooth_sensitivity_median,
)
from .selection import (
    exponential_probabilities,
    exponential_sample,
    lemma28_bound,
    report_noisy_max_probabilities,
    report_noisy_max_sample,
)

__all__ = [
    "calibration_checks",
    "laplace_scale",
    "gaussian_sigma",
    "mnm_threshold",
    "mnm_sigma_printed",
    "mnm_printed_delta",
    "mnm_noise",
    "NoiseProfile",
    "exact_profiles",
    "noise_variance",
    "release",
    "noise_density",
    "pareto_sample",
    "pareto_mse",
    "sequential",
    "parallel",
    "example8",
    "Example8",
    "OutsideShare",
    "local_sensitivity_median",
    "smooth_sensitivity_median",
    "example12_datasets",
    "smooth_noise",
    "sample_heavy_tailed",
    "bounded_laplace_C",
    "bounded_laplace_b",
    "bounded_laplace_sample",
    "bounded_laplace_density",
    "exponential_probabilities",
    "report_noisy_max_probabilities",
    "report_noisy_max_sample",
    "lemma28_bound",
    "local_sensitivity_release",
    "laplace_outside_share",
    "exponential_sample",
]


@dataclass(frozen=True)
class NoiseProfile:
    """The exact privacy profile of one noise the lab draws: its ``mechanism`` and ``noise``, the stated
    (``stated_eps``, ``stated_delta``), the ``exact_delta`` δ(ε) of the noise actually drawn, ``tail`` =
    P(privacy loss > ε) and its worst-case loss ``max_loss``. :meth:`row` is its row of the lab's table."""

    mechanism: str
    noise: str
    stated_eps: float
    stated_delta: float
    exact_delta: float
    tail: float
    max_loss: float

    def row(self) -> dict:
        """The row of the table ``mech_privacy_profiles`` (display labels: :data:`PROFILE_COLUMNS`)."""
        return labelled(self, PROFILE_COLUMNS)


#: NoiseProfile field → its column in the lab's table ``mech_privacy_profiles``
PROFILE_COLUMNS = {
    "mechanism": "mechanism",
    "noise": "noise",
    "stated_eps": "stated ε",
    "stated_delta": "stated δ",
    "exact_delta": "exact δ(ε)",
    "tail": "P(loss > ε)",
    "max_loss": "max_loss",
}


def exact_profiles(
    *, sensitivity: float, eps: float, delta: float, bounded: tuple[float, float, float] | None = None
) -> list[NoiseProfile]:
    """The exact privacy profile of every noise the lab draws at (ε, δ): per mechanism the stated
    (ε, δ), the exact δ(ε) of the noise actually drawn and P(privacy loss > ε) (the probability that
    the pure-ε posterior bound is exceeded), from :mod:`hetdp_core.noise.profiles`. The Gaussian
    mechanism appears only for ε < 1 (Theorem 5's range); ``bounded`` = (b, l, u) adds the bounded
    Laplace mechanism with its worst-case (pure) loss ``max_loss``."""
    from . import profiles as pr

    sens, e, d = _sens(sensitivity), _eps(eps), _delta(delta)
    b = laplace_scale(sensitivity=sens, eps=e)
    lap = NoiseProfile(
        "Laplace",
        f"Lap({b:.4g})",
        e,
        0.0,
        pr.laplace_delta(eps=e, b=b, sensitivity=sens),
        pr.laplace_tail(eps=e, b=b, sensitivity=sens),
        sens / b,
    )
    rows = [lap]

    def gaussian_row(mechanism: str, sig: float) -> NoiseProfile:  # N(0, σ²) noise: its exact profile at ε
        delta_, tail = (
            pr.gaussian_delta(eps=e, sigma=sig, sensitivity=sens),
            pr.gaussian_tail(eps=e, sigma=sig, sensitivity=sens),
        )
        return NoiseProfile(mechanism, f"N(0, {sig:.4g}²)", e, d, delta_, tail, math.inf)

    if e < 1:
        rows.append(gaussian_row("Gaussian", gaussian_sigma(sensitivity=sens, eps=e, delta=d)))
    kind, sc = mnm_noise(sensitivity=sens, eps=e, delta=d)
    if kind == "gaussian":
        rows.append(gaussian_row("MNM", sc))
    else:
        rows.append(dataclasses.replace(lap, mechanism="MNM", stated_delta=d))
    if bounded is not None:
        bb, lo, hi = bounded
        prof = pr.bounded_laplace_profile(eps=e, b=bb, sensitivity=sens, lower=lo, upper=hi)
        C = bounded_laplace_C
        qs = np.linspace(lo, hi - sens, 2001)
        k = np.abs(np.log(C(qs + sens, b=bb, lower=lo, upper=hi) / C(qs, b=bb, lower=lo, upper=hi)))
        noise = f"Lap({bb:.4g}) on [{lo:g}, {hi:g}]"
        rows.append(NoiseProfile("bounded Laplace", noise, e, d, prof.delta, prof.tail, float(sens / bb + k.max())))
    return rows


def calibration_checks(
    *,
    sensitivity: float,
    eps: float,
    delta: float | None = None,
    bounded: tuple[float, float, float] | None = None,
    profiles: list[NoiseProfile] | None = None,
) -> list:
    """Checks of the noise calibrations the lab shows: Laplace loss Δ/b ≤ ε; and, when δ is given,
    the exact privacy profile of each (ε, δ) noise actually drawn (Gaussian for ε < 1, the
    corrected MNM, and the bounded Laplace when ``bounded`` = (b, l, u)): exact δ(ε) ≤ δ. A failed
    check is a numerical failure reported with its inputs; the claim is then not shown. ``profiles``:
    the rows of :func:`exact_profiles` for these arguments, when the caller has them already."""
    from ..framework.checks import check_le
    from .profiles import profile_check

    sens, e = _sens(sensitivity), _eps(eps)
    ins = {"sensitivity": sens, "eps": e}
    out = [check_le("Laplace: privacy loss Δ/b ≤ ε", sens / laplace_scale(sensitivity=sens, eps=e), e, inputs=ins)]
    if delta is None:
        return out
    if profiles is None:
        profiles = exact_profiles(sensitivity=sens, eps=e, delta=delta, bounded=bounded)
    for row in profiles[1:]:  # every (ε, δ) noise; row 0 is Laplace
        out.append(
            profile_check(
                row.mechanism,
                exact_delta=row.exact_delta,
                stated_delta=row.stated_delta,
                inputs={**ins, "delta": delta, "noise": row.noise},
            )
        )
    return out


def noise_variance(mechanism: str, *, sensitivity: float, eps: float, delta: float = 1e-5) -> float:
    """Variance of the added noise: Laplace 2b², Gaussian σ², MNM that of its branch (≤ 2(Δ/ε)²)."""
    mechanism = check_choice("mechanism", mechanism, MECHANISMS)
    if mechanism == "laplace":
        return 2 * laplace_scale(sensitivity=sensitivity, eps=eps) ** 2
    if mechanism == "gaussian":
        return gaussian_sigma(sensitivity=sensitivity, eps=eps, delta=delta) ** 2
    kind, scale = mnm_noise(sensitivity=sensitivity, eps=eps, delta=delta)
    return scale**2 if kind == "gaussian" else 2 * scale**2


def release(
    value,
    mechanism: str,
    *,
    sensitivity: float,
    eps: float,
    delta: float = 1e-5,
    size: int = 1,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """``size`` independent noisy releases of ``value`` (scalar or array, broadcast)."""
    mechanism = check_choice("mechanism", mechanism, MECHANISMS)
    size = _SIZE.check("size", size, what=" (number of releases)")
    value = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(value)):
        raise InputError("value must be finite.")
    rng = as_generator(rng)
    shape = (size,) + value.shape
    if mechanism == "laplace":
        return value + rng.laplace(0.0, laplace_scale(sensitivity=sensitivity, eps=eps), shape)
    if mechanism == "gaussian":
        return value + rng.normal(0.0, gaussian_sigma(sensitivity=sensitivity, eps=eps, delta=delta), shape)
    kind, scale = mnm_noise(sensitivity=sensitivity, eps=eps, delta=delta)
    return value + (rng.normal(0.0, scale, shape) if kind == "gaussian" else rng.laplace(0.0, scale, shape))


def noise_density(z, mechanism: str, *, sensitivity: float, eps: float, delta: float = 1e-5) -> np.ndarray:
    """Density of the added noise at z."""
    z = np.asarray(z, dtype=float)
    mechanism = check_choice("mechanism", mechanism, MECHANISMS)
    if mechanism == "gaussian":
        kind, s = "gaussian", gaussian_sigma(sensitivity=sensitivity, eps=eps, delta=delta)
    elif mechanism == "mnm":
        kind, s = mnm_noise(sensitivity=sensitivity, eps=eps, delta=delta)
    else:
        kind, s = "laplace", laplace_scale(sensitivity=sensitivity, eps=eps)
    if kind == "gaussian":
        return np.exp(-0.5 * (z / s) ** 2) / (s * math.sqrt(2 * math.pi))
    b = s
    return np.exp(-np.abs(z) / b) / (2 * b)


def pareto_sample(*, n: int, pareto_index: float, size: int = 1, rng=None) -> np.ndarray:
    """Example 11: Pareto data with density α x^{−α−1}, x > 1; shape (size, n)."""
    n = _N.check("n", n, what=" (sample size)")
    pareto_index = _PARETO_INDEX.check("pareto_index", pareto_index, what=" (Pareto tail index)")
    size = _SIZE_2.check("size", size)
    return (1.0 - as_generator(rng).random((size, n))) ** (-1.0 / pareto_index)


def pareto_mse(
    *, n: int, pareto_index: float, clip: float, eps_values, delta: float = 1e-5, trials: int = 500, seed: int = 0
) -> pd.DataFrame:
    """Example 11: MSE of the noisy sample mean of Pareto(α) data clipped to [0, Λ] (so Δ = Λ/n)
    for Laplace, Gaussian (ε < 1 only) and MNM, against the population mean α/(α−1) (α > 1).
    Simulated, with the analytic noise variance alongside."""
    import pandas as pd

    clip = _CLIP.check("clip", clip, what=" (clipping level Λ)")
    pareto_index = _PARETO_INDEX_2.check("pareto_index", pareto_index, what=" (Pareto α > 1: finite mean)")
    eps_values = _EPS_VALUES.check_vector("eps_values", eps_values, max_length=50)
    trials = _TRIALS.check("trials", trials)
    rng = as_generator(seed)
    x = np.minimum(pareto_sample(n=n, pareto_index=pareto_index, size=trials, rng=rng), clip)
    means = x.mean(axis=1)
    target = pareto_index / (pareto_index - 1)
    sens = clip / n
    rows = []
    for e in eps_values:
        for mech in MECHANISMS:
            if mech == "gaussian" and e >= 1:
                continue
            noisy = means + release(0.0, mech, sensitivity=sens, eps=e, delta=delta, size=trials, rng=rng)
            rows.append(
                {
                    "eps": float(e),
                    "mechanism": mech,
                    "mse": float(np.mean((noisy - target) ** 2)),
                    "mse_nonprivate": float(np.mean((means - target) ** 2)),
                    "noise_variance": noise_variance(mech, sensitivity=sens, eps=e, delta=delta),
                }
            )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ composition
def sequential(eps_list) -> float:
    """Lemma 6: queries on the same data compose to Σ ε_i."""
    return float(_EPS_LIST.check_vector("eps_list", eps_list).sum())


def parallel(eps_list) -> float:
    """Lemma 7: queries on disjoint parts compose to max ε_i."""
    return float(_EPS_LIST.check_vector("eps_list", eps_list).max())


@dataclass(frozen=True)
class Example8:
    """Example 8's composition: each query's sensitivity Δ and Laplace scale Δ/ε (by query: mean,
    variance, median), the first part's level ``part1`` = ε1 + ε2 (sequential) and the whole release's
    ``total`` = max(ε1 + ε2, ε3) (parallel with the disjoint second part)."""

    sensitivity: Mapping[str, float]
    scale: Mapping[str, float]
    part1: float
    total: float


def example8(*, n: int, m: int, Lambda: float, eps1: float, eps2: float, eps3: float) -> Example8:
    """Example 8: mean (Δ = Λ/m) and variance (Δ = Λ²/m) on x_1..x_m, median (Δ = Λ) on the rest;
    total level max(ε1 + ε2, ε3)."""
    n = _N_2.check("n", n)
    m = Interval(int, 1, n - 1).check("m", m, what=" (size of the first part, m < n)")
    Lambda = POSITIVE.check("Lambda", Lambda, what=" (data range [0, Λ])")
    e = [_eps(v) for v in (eps1, eps2, eps3)]
    sens = {"mean": Lambda / m, "variance": Lambda**2 / m, "median": Lambda}
    return Example8(
        sensitivity=sens,
        scale={k: s / ei for (k, s), ei in zip(sens.items(), e)},
        part1=sequential(e[:2]),
        total=parallel([sequential(e[:2]), e[2]]),
    )


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
