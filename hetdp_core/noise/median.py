r"""The median's sensitivity (MAT 4376 lectures 17–20): local sensitivity, smooth sensitivity by formula (4), noise
calibrated to it, and the flawed local-sensitivity release of Example 12 (the overview:
:mod:`hetdp_core.noise.mechanisms`).
"""

from __future__ import annotations

import math

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, check_choice, check_real, check_vector
from ..framework.constraints import POSITIVE
from .calibration import _GAMMA, _N_3, _SIZE, _delta, _eps

__all__ = [
    "local_sensitivity_median",
    "smooth_sensitivity_median",
    "example12_datasets",
    "sample_heavy_tailed",
    "smooth_noise",
    "local_sensitivity_release",
]

#: this part of mechanisms's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "mechanisms"


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


def local_sensitivity_release(x, *, eps: float, size: int, rng=None) -> np.ndarray:
    """The flawed mechanism of Example 12: median + Lap(Δ_local(x)/ε) (no noise when Δ_local = 0)."""
    loc = local_sensitivity_median(x)
    med = float(np.sort(np.asarray(x, dtype=float))[len(x) // 2])
    size = _SIZE.check("size", size)
    rng = as_generator(rng)
    return med + (rng.laplace(0.0, loc / _eps(eps), size) if loc > 0 else np.zeros(size))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
