r"""Course lab: the mechanism catalogue of MAT 4376 lectures 17–20.

* Laplace (Theorem 2): ``f(x) + Lap(Δ/ε)``, variance 2(Δ/ε)².
* Gaussian (Theorem 5): σ = cΔ/ε with c² > 2 ln(1.25/δ), valid for ε < 1 (we take c at the boundary
  ``√(2 ln(1.25/δ))`` times 1 + 1e−12 so the inequality is strict).
* Mixed Noise Mechanism (Theorem 10), **corrected**: as printed (Gaussian with σ² = 2(Δ/ε)² when
  Δ ≤ t0 = √π δ ε/2, else Laplace) its Gaussian branch is not (ε, δ)-DP — that Gaussian's privacy
  profile depends only on Δ/σ = ε/√2, so no condition on Δ can make it private (ε = 2: exact
  δ(ε) = 0.115). hetdp's MNM draws Gaussian noise with the smallest σ whose *exact* profile meets
  (ε, δ) (:func:`hetdp_core.profiles.gaussian_sigma_exact`) when that variance is below Laplace's
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

from ._doc import document
from ._validate import MIN_EPS, InputError, as_generator, check_choice, check_real, check_vector
from .constraints import DELTA, EPS, NONNEGATIVE, POSITIVE, Interval
from .meaning import labelled

if TYPE_CHECKING:
    import pandas as pd

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

MECHANISMS = ("laplace", "gaussian", "mnm")


#: the privacy levels the mechanism functions accept (the shared ε, up to 100)
_MECHANISM_EPS = EPS.narrow(hi=100.0)


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.constraints)
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
    the pure-ε posterior bound is exceeded), from :mod:`hetdp_core.profiles`. The Gaussian
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
    from .checks import check_le
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


# ------------------------------------------------------------------ smooth sensitivity of the median
def _sorted_odd(x, name="x") -> np.ndarray:
    x = np.sort(check_vector(name, x, max_length=1_000_000, what=" (data values)"))
    if x.size % 2 == 0:
        raise InputError(f"{name} must have an odd number of entries (median rank m = (n+1)/2); got {x.size}.")
    return x


def local_sensitivity_median(x) -> float:
    """Δ_local = max(x_{m+1} − x_m, x_m − x_{m−1}) for odd n (Example 12)."""
    x = _sorted_odd(x)
    m = x.size // 2  # 0-based index of the median
    lo = x[m - 1] if m >= 1 else x[m]
    hi = x[m + 1] if m + 1 < x.size else x[m]
    return float(max(hi - x[m], x[m] - lo))


def smooth_sensitivity_median(x, *, beta: float, lower: float, upper: float) -> float:
    r"""β-smooth sensitivity of the median by formula (4),
    :math:`\max_{k}\ e^{-k\beta}\max_{t=0..k+1}(x_{m+t} - x_{m+t-k-1})` with x_i = lower for i < 1
    and x_i = upper for i > n (the data range [lower, upper])."""
    x = _sorted_odd(x)
    beta = POSITIVE.check("beta", beta, what=" (smoothness β)")
    lower = check_real("lower", lower)
    upper = check_real("upper", upper)
    if not lower < upper or x[0] < lower or x[-1] > upper:
        raise InputError(
            f"need lower < upper and data inside [lower, upper]; got [{lower:g}, {upper:g}] for "
            f"data in [{x[0]:g}, {x[-1]:g}]."
        )
    n = x.size
    m = (n + 1) // 2  # 1-based median rank
    padded = np.concatenate([[lower] * (n + 2), x, [upper] * (n + 2)])  # padded[i + n + 1] = x_i

    def val(i):
        return padded[np.clip(i + n + 1, 0, padded.size - 1)]

    best = 0.0
    for k in range(n + 1):
        t = np.arange(k + 2)
        gap = np.max(val(m + t) - val(m + t - k - 1))
        best = max(best, math.exp(-k * beta) * gap)
        if math.exp(-k * beta) * (upper - lower) <= best:
            break  # later terms cannot exceed it
    return float(best)


def example12_datasets(*, n: int, Lambda: float) -> tuple[np.ndarray, np.ndarray]:
    """Example 12: dataset 1 has m zeros and the rest Λ; dataset 2 has m+1 zeros (neighbours)."""
    n = _N_3.check("n", n)
    if n % 2 == 0:
        raise InputError(f"n must be odd (Example 12); got {n}.")
    Lambda = POSITIVE.check("Lambda", Lambda)
    m = (n + 1) // 2
    d1 = np.r_[np.zeros(m), np.full(n - m, Lambda)]
    d2 = np.r_[np.zeros(m + 1), np.full(n - m - 1, Lambda)]
    return d1, d2


def sample_heavy_tailed(*, gamma: float, size: int, rng=None) -> np.ndarray:
    """Draws from h(z) ∝ 1/(1 + |z|^γ), γ ≥ 2, by rejection from a Cauchy envelope
    (1/(1+|z|^γ) ≤ 2/(1+z²) for γ ≥ 2; acceptance ≥ ∫h/(2π))."""
    gamma = _GAMMA.check("gamma", gamma, what=" (tail exponent γ ≥ 2)")
    size = _SIZE.check("size", size)
    rng = as_generator(rng)
    out = np.empty(0)
    while out.size < size:
        z = rng.standard_cauchy(2 * (size - out.size) + 16)
        u = rng.random(z.size)
        keep = u * 2.0 / (1.0 + z**2) <= 1.0 / (1.0 + np.abs(z) ** gamma)
        out = np.concatenate([out, z[keep]])
    return out[:size]


def smooth_noise(
    x,
    *,
    kind: str,
    eps: float,
    delta: float = 1e-3,
    gamma: float = 4.0,
    lower: float = 0.0,
    upper: float = 1.0,
    size: int = 1,
    rng=None,
) -> dict:
    """Median + noise calibrated to the smooth sensitivity (lecture, after Corollary 17):

    * ``laplace``: β = ε/(2 ln(2/δ')), Lap(2S/ε), (ε, δ)-DP with δ = δ'(e^{ε/2} + 1)/2 (we solve δ'
      from the requested δ);
    * ``heavy``: β = ε/(2(γ+1)), c = 2(γ+1)S/ε times Z ~ h(z) ∝ 1/(1+|z|^γ): ε-DP;
    * ``gaussian``: β = ε/(2 ln(2/δ)), 5√(2 ln(2/δ)) S/ε times N(0,1): (ε, δ)-DP.
    Returns the releases, S, β, the noise scale and the guarantee."""
    kind = check_choice("kind", kind, ("laplace", "heavy", "gaussian"))
    eps = _eps(eps)
    delta = _delta(delta)
    rng = as_generator(rng)
    x = _sorted_odd(x)
    med = float(x[x.size // 2])
    if kind == "laplace":
        dprime = 2 * delta / (math.exp(eps / 2) + 1)
        beta = eps / (2 * math.log(2 / dprime))
        S = smooth_sensitivity_median(x, beta=beta, lower=lower, upper=upper)
        scale = 2 * S / eps
        noise = rng.laplace(0.0, scale, size) if scale > 0 else np.zeros(size)
        guarantee = f"({eps:g}, {delta:g})-DP"
    elif kind == "heavy":
        beta = eps / (2 * (gamma + 1))
        S = smooth_sensitivity_median(x, beta=beta, lower=lower, upper=upper)
        scale = 2 * (gamma + 1) * S / eps
        noise = scale * sample_heavy_tailed(gamma=gamma, size=size, rng=rng)
        guarantee = f"{eps:g}-DP"
    else:
        beta = eps / (2 * math.log(2 / delta))
        S = smooth_sensitivity_median(x, beta=beta, lower=lower, upper=upper)
        scale = 5 * math.sqrt(2 * math.log(2 / delta)) * S / eps
        noise = scale * rng.standard_normal(size)
        guarantee = f"({eps:g}, {delta:g})-DP"
    return {"releases": med + noise, "median": med, "S": S, "beta": beta, "scale": scale, "guarantee": guarantee}


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

    def g(b):
        dC = bounded_laplace_C(lower + sens, b=b, lower=lower, upper=upper) / bounded_laplace_C(
            lower, b=b, lower=lower, upper=upper
        )
        return b * (eps - math.log(dC) - math.log1p(-delta)) - sens

    b_lo = 0.5 * sens / (eps - math.log1p(-delta))
    grid = np.geomspace(b_lo, sens / eps * 1e3 + 10 * (upper - lower), 4000)
    vals = np.array([g(b) for b in grid])
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


# ------------------------------------------------------------------ exponential mechanism / RNM
def _scores(scores) -> np.ndarray:
    return check_vector(
        "scores", scores, min_length=1, max_length=10_000, what=" (one score per candidate; at least one candidate)"
    )


def exponential_probabilities(scores, *, eps: float, sensitivity: float = 1.0) -> np.ndarray:
    """P(Q = q) ∝ exp(ε f(q) / (2Δ)) (exact, overflow-free)."""
    s = _scores(scores)
    w = _eps(eps) * s / (2 * _sens(sensitivity))
    w = np.exp(w - w.max())
    return w / w.sum()


def report_noisy_max_probabilities(scores, *, eps: float, sensitivity: float = 1.0) -> np.ndarray:
    """Exact win probabilities of argmax_i (f_i + Z_i), Z_i ~ Exp(rate λ = ε/(2Δ)), by quadrature:
    P(i wins) = ∫ λe^{−λz} Π_{j≠i} F(s_i + z − s_j) dz with F(t) = (1 − e^{−λt})⁺."""
    from scipy import integrate  # here, not with the module: 0.1 s of every server's first view

    s = _scores(scores)
    lam = _eps(eps) / (2 * _sens(sensitivity))
    out = np.zeros(s.size)
    for i in range(s.size):
        others = np.delete(s, i)

        def integrand(z, i=i, others=others):
            t = s[i] + z - others
            return lam * math.exp(-lam * z) * float(np.prod(np.where(t > 0, -np.expm1(-lam * np.maximum(t, 0)), 0.0)))

        start = max(0.0, float((others - s[i]).max()) if others.size else 0.0)
        out[i], _ = integrate.quad(integrand, start, np.inf, limit=200)
    return out / out.sum()


def report_noisy_max_sample(scores, *, eps: float, sensitivity: float = 1.0, size: int = 1, rng=None) -> np.ndarray:
    """Winners of ``size`` runs of report-noisy-max with Exp(ε/(2Δ)) noise."""
    s = _scores(scores)
    lam = _eps(eps) / (2 * _sens(sensitivity))
    size = _SIZE_3.check("size", size)
    z = as_generator(rng).exponential(1.0 / lam, (size, s.size))
    return np.argmax(s + z, axis=1)


def lemma28_bound(scores, *, eps: float, t, sensitivity: float = 1.0) -> pd.DataFrame:
    """Lemma 28: P(f(Q) < f* − 2Δ(ln d + t)/ε) ≤ e^{−t}; exact left side for the exponential mechanism."""
    import pandas as pd

    s = _scores(scores)
    t = NONNEGATIVE.check_vector("t", np.atleast_1d(t), max_length=1000)
    p = exponential_probabilities(s, eps=eps, sensitivity=sensitivity)
    psi = 2 * _sens(sensitivity) * (math.log(s.size) + t) / _eps(eps)
    exact = np.array([p[s < s.max() - ps].sum() for ps in psi])
    return pd.DataFrame({"t": t, "threshold": s.max() - psi, "exact": exact, "bound": np.exp(-t)})


def local_sensitivity_release(x, *, eps: float, size: int, rng=None) -> np.ndarray:
    """The flawed mechanism of Example 12: median + Lap(Δ_local(x)/ε) (no noise when Δ_local = 0)."""
    loc = local_sensitivity_median(x)
    med = float(np.sort(np.asarray(x, dtype=float))[len(x) // 2])
    size = _SIZE.check("size", size)
    rng = as_generator(rng)
    return med + (rng.laplace(0.0, loc / _eps(eps), size) if loc > 0 else np.zeros(size))


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


def exponential_sample(scores, *, eps: float, sensitivity: float = 1.0, size: int = 1, rng=None) -> np.ndarray:
    """Indices selected by ``size`` runs of the exponential mechanism."""
    p = exponential_probabilities(scores, eps=eps, sensitivity=sensitivity)
    size = _SIZE.check("size", size)
    return as_generator(rng).choice(p.size, size=size, p=p)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core._doc)
