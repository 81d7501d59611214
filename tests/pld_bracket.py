r"""An independent bracket of the exact ε(δ) of a composition of Gaussian, Laplace and (ε, δ) events.

Test oracle only: written from the privacy-loss laws, with its own discretisation and its own FFT
composition, so it shares no code (and no discretisation scheme) with dp-accounting's
connect-the-dots PLD that the ledger uses.

The privacy loss L of one release under the first of its two neighbouring worlds (sensitivity 1):

* Gaussian noise σ: L ~ N(μ²/2, μ²), μ = 1/σ; k of them compose exactly to one with μ² = Σ k/σ².
* Laplace noise b, ε₀ = 1/b: L = ε₀ with probability ½, −ε₀ with probability e^{−ε₀}/2, and on
  (−ε₀, ε₀) the density e^{−ε₀/2} e^{ℓ/2}/4 (from y ~ Lap(0, b), L = (|y − 1| − |y|)/b).
* the worst case of (ε, δ)-DP: L = +∞ with probability δ, ε with probability (1−δ)e^ε/(1+e^ε), −ε
  with probability (1−δ)/(1+e^ε).

All three are symmetric (the other direction has the same law). For a sum of independent losses,
δ(ε) = E[(1 − e^{ε−L})₊] + P(L = ∞) is increasing in L, so rounding every loss *down* to a grid of
step h gives a lower bound δ_lo ≤ δ and rounding *up* an upper bound δ_hi ≥ δ; mass cut off at the
top counts as +∞ in δ_hi and is dropped in δ_lo. The ε brackets follow: ε_lo ≤ ε(δ) ≤ ε_hi. The
Laplace atoms sit on the grid (h divides ε₀ when ``laplace_steps`` is set), so only the continuous
part is rounded.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.fft import next_fast_len
from scipy.signal import lfilter
from scipy.special import ndtr


def _gaussian(mu: float, h: float, lo: int, hi: int):
    """Probabilities of L ~ N(μ²/2, μ²) in the cells [jh, (j+1)h) for j in [lo, hi), plus the masses
    below and above."""
    edges = np.arange(lo, hi + 1) * h
    cdf = ndtr((edges - mu * mu / 2) / mu)
    return np.diff(cdf), float(cdf[0]), float(1.0 - cdf[-1])


def _laplace_cells(eps0: float, h: float):
    """(index of −ε₀, cell masses of the continuous part between the atoms, atom masses)."""
    m = int(round(eps0 / h))
    edges = (np.arange(-m, m + 1)) * h
    c = math.exp(-eps0 / 2) / 2
    cdf = c * (np.exp(edges / 2) - math.exp(-eps0 / 2))
    return m, np.diff(cdf), 0.5 * math.exp(-eps0), 0.5


def _event_pmf(kind: str, a: float, b: float, h: float, up: bool, window: tuple[int, int]):
    """One event's loss on the grid: (pmf over indices window[0]..window[1], mass at +∞)."""
    lo, hi = window
    p = np.zeros(hi - lo + 1)
    inf = 0.0

    def put(idx: int, mass: float):
        nonlocal inf
        if idx > hi:
            inf += mass if up else 0.0
        else:
            p[max(idx, lo) - lo] += mass

    if kind == "gaussian":
        cells, below, above = _gaussian(a, h, lo, hi)
        # cell [jh, (j+1)h): rounded down to j, up to j+1
        if up:  # below the window: rounded up to its first point; above: +∞
            p[1:] += cells
            p[0] += below
            inf += above
        else:  # below and above the window: dropped
            p[:-1] += cells
    elif kind == "laplace":
        m, cells, atom_lo, atom_hi = _laplace_cells(1.0 / a, h)
        put(-m, atom_lo)
        put(m, atom_hi)
        for j, mass in enumerate(cells):  # cell [(-m+j)h, (-m+j+1)h)
            put(-m + j + (1 if up else 0), mass)
    else:  # the worst case of (a, b)-DP, a on the grid
        m = int(round(a / h))
        inf += b
        put(m, (1 - b) * math.exp(a) / (1 + math.exp(a)))
        put(-m, (1 - b) / (1 + math.exp(a)))
    return p, inf


def _moments(rest):
    mean = var = 0.0
    for kind, a, _, k in rest:
        if kind == "gaussian":
            mean, var = mean + a * a / 2, var + a * a
        elif kind == "laplace":
            e0 = 1 / a
            mean, var = mean + k * (e0 - 1 + math.exp(-e0)), var + k * e0 * e0
        else:
            mean, var = mean + k * a * math.tanh(a / 2), var + k * a * a
    return mean, var


def _window(kind, a, h, sigmas):
    if kind == "gaussian":  # a = μ
        return (int(math.floor((a * a / 2 - sigmas * a) / h)) - 2, int(math.ceil((a * a / 2 + sigmas * a) / h)) + 2)
    m = int(round((1 / a if kind == "laplace" else a) / h))
    return (-m - 1, m + 1)


def _composed(rest, *, h: float, up: bool, theta: float, centre: float, reach: float, sigmas: float):
    """The composed loss law on the grid near ``centre`` (± ``reach``): (losses, masses, mass at +∞).

    Computed under the exponential tilt e^{θℓ} (each event's masses times e^{θℓ}, normalised; the sum
    of tilted losses is the tilt of the sum), so the FFT's round-off is relative to the tilted law,
    which is concentrated where δ(ε) is decided; the round-off (measured by the most negative entry)
    is removed from (lower bound) or added to (upper bound) every cell before untilting."""
    n = next_fast_len(int(math.ceil(2 * reach / h)) + 16, real=True)  # an FFT-friendly length, even
    n = n if n % 2 == 0 else next_fast_len(n + 1, real=True)
    omega = 2 * np.pi * np.arange(n // 2 + 1) / n
    c0 = int(round(centre / h))
    log_spec = np.zeros(n // 2 + 1, dtype=complex)
    log_scale = 0.0  # Σ k log(normaliser of the tilted event)
    log_keep = 0.0  # log P(no event's loss is +∞)
    for kind, a, b, k in rest:
        win = _window(kind, a, h, sigmas)
        p, inf = _event_pmf(kind, a, b, h, up, win)
        if p.size > n:
            raise ValueError("one event's loss range exceeds the composed window; raise reach")
        ell = (np.arange(p.size) + win[0]) * h
        with np.errstate(divide="ignore"):
            logq = np.log(p) + theta * ell
        top = float(logq.max())
        q = np.exp(logq - top)
        norm = float(q.sum())
        q /= norm
        log_scale += k * (top + math.log(norm))
        f = np.fft.rfft(q, n) * np.exp(-1j * omega * win[0])  # index i contributes e^{-iωi}
        with np.errstate(divide="ignore"):
            log_spec += k * np.log(f)
        log_keep += k * math.log1p(-inf) if inf < 1 else -math.inf
    spec = np.exp(log_spec - 1j * omega * (n // 2 - c0))  # index S at S − c0 + n/2
    raw = np.fft.irfft(spec, n)
    noise = 4.0 * max(-float(raw.min()), 0.0) + 1e-15 * float(raw.max())
    tilted = np.clip(raw + (noise if up else -noise), 0.0, None)
    losses = (np.arange(n) - n // 2 + c0) * h
    # no loss beyond the composed support (Laplace and levels are bounded): round-off there is not mass
    top = sum(k * (1 / a if kind == "laplace" else a) for kind, a, _, k in rest if kind != "gaussian")
    if not any(kind == "gaussian" for kind, *_ in rest):
        tilted[losses > top + 2 * len(rest) * h] = 0.0
    with np.errstate(over="ignore"):
        masses = tilted * np.exp(np.minimum(log_scale - theta * losses, 700.0))
    return losses, masses, -math.expm1(log_keep)


def _epsilon(losses, masses, inf_mass: float, delta: float) -> float:
    """The smallest ε ≥ 0 with δ(ε) ≤ ``delta`` for the law (``losses``, ``masses``, ``inf_mass``):
    δ(ε) = Σ_{ℓ>ε} m_ℓ (1 − e^{ε−ℓ}) + P(L = ∞) is continuous and decreasing, and between two
    neighbouring grid losses the same losses count, so there δ(ε) = A − e^ε B (A, B sums over the
    losses above) and δ(ε) = ``delta`` is solved in closed form, in the gap where δ crosses ``delta``
    (found with suffix sums, then confirmed by direct sums at both ends of the gap)."""
    if inf_mass > delta:
        return math.inf  # no finite ε: the releases' own δ exceeds it

    def d(e: float) -> float:  # directly, from every loss above e
        i = int(np.searchsorted(losses, e, side="right"))
        return float(np.sum(masses[i:] * -np.expm1(e - losses[i:]))) + inf_mass

    if d(0.0) <= delta:
        return 0.0
    keep = losses > 0  # only positive losses count for ε ≥ 0
    ell, m = losses[keep], masses[keep]
    # δ at each grid loss ℓ_k by running sums (used only to find the gap): Σ_{j>k} m_j − S_k with
    # S_k = Σ_{j>k} m_j e^{ℓ_k − ℓ_j} = e^{−h}(m_{k+1} + S_{k+1}) on the grid of step h, summed from the top
    step = math.exp(-(float(ell[1] - ell[0]) if ell.size > 1 else 0.0))
    s = lfilter([step], [1.0, -step], m[::-1])[::-1]  # s[k] = S_{k−1}
    above = np.cumsum(m[::-1])[::-1]  # Σ_{j≥k} m_j
    at = np.append(above[1:] - s[1:], 0.0) + inf_mass
    k = int(np.argmax(at <= delta))  # the last entry, P(∞), is ≤ delta
    while k + 1 < ell.size and d(float(ell[k])) > delta:  # the gap (ℓ_{k−1}, ℓ_k] holds the crossing
        k += 1
    while k > 0 and d(float(ell[k - 1])) <= delta:
        k -= 1
    lo = float(ell[k - 1]) if k else 0.0
    # on [lo, ℓ_k): δ(ε) = A − e^{ε − ℓ_k} B with A = Σ_{j≥k} m_j + P(∞), B = Σ_{j≥k} m_j e^{ℓ_k − ℓ_j}
    big_a = float(np.sum(m[k:])) + inf_mass
    big_b = float(np.sum(m[k:] * np.exp(ell[k] - ell[k:])))
    e = float(ell[k]) + math.log((big_a - delta) / big_b) if big_a > delta else float(ell[k])
    return min(max(e, lo), float(ell[k]))


def bracket(events, *, delta, h: float, guess: float, sigmas: float = 14.0):
    """(ε_lo, ε_hi) bracketing the exact ε at ``delta`` (one δ, or a list: a list of brackets) of the
    composition of ``events`` (tuples (kind, a, b, repeat) with kind "gaussian" (a = σ), "laplace"
    (a = b) or "approx" (a = ε, b = δ)), on a loss grid of step ``h``; ``guess`` is roughly the answer
    (the tilt aims there). Gaussians are merged exactly into one (μ² = Σ k/σ²)."""
    deltas = list(delta) if isinstance(delta, (list, tuple)) else [delta]
    mu2 = sum(k / a**2 for kind, a, _, k in events if kind == "gaussian")
    rest = [(kind, a, b, k) for kind, a, b, k in events if kind != "gaussian"]
    if mu2:
        rest.append(("gaussian", math.sqrt(mu2), 0.0, 1))  # here a = μ
    mean, var = _moments(rest)
    theta = min(max((guess - mean) / var, 0.0), 50.0) if var > 0 else 0.0
    centre = mean + theta * var  # where the tilted law sits (its mean, to first order)
    reach = sigmas * math.sqrt(var) + 4 * h
    sides = []
    for up in (False, True):
        losses, masses, inf_mass = _composed(rest, h=h, up=up, theta=theta, centre=centre, reach=reach, sigmas=sigmas)

        sides.append([_epsilon(losses, masses, inf_mass, dl) for dl in deltas])
    pairs = list(zip(sides[0], sides[1]))
    return pairs if isinstance(delta, (list, tuple)) else pairs[0]
