"""The privacy-loss distribution (PLD) accountant: the exact composition of a group's releases — closed
form when every release is Gaussian (μ-GDP), otherwise each release discretised on a grid set for accuracy
(dp-accounting's connect-the-dots) and composed by FFT with exponential tilting; never below the exact ε and
at most 3·10⁻⁴ (relative) above it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework.memo import Memo
from ..noise.gdp import gdp_delta, gdp_epsilon
from ..noise.profiles import laplace_loss_cdf
from ..noise.rr import rr_channel

__all__ = ["Event", "MAX_POINTS", "gaussian_mu", "Composition", "compose"]

#: the most grid points of a composed privacy-loss distribution (8 bytes each, a few copies)
MAX_POINTS = 1 << 22
#: the accuracy target of the grid: the step is at most this fraction of the smallest loss scale
STEP_FRACTION = 0.01
#: the probability mass a composition's window may leave out (counted as infinite loss)
TAIL_MASS = 1e-18


@dataclass(frozen=True)
class Event:
    """What one release spends on one group, ``repeat`` times: ``kind`` "gaussian" (``a`` = σ/Δ),
    "laplace" (``a`` = b/Δ), "pure" (``a`` = ε) or "approx" (``a`` = ε, ``b`` = δ); ``row`` the
    linked view's level row it was read from. Every accountant (:mod:`hetdp_core.accountants.accounting`) reads it."""

    kind: str
    a: float
    b: float = 0.0
    repeat: int = 1
    row: str = ""

    @property
    def scale(self) -> float:
        """The release's loss scale: μ = Δ/σ for Gaussian noise, ε₀ = Δ/b for Laplace, ε for a level."""
        return 1.0 / self.a if self.kind in ("gaussian", "laplace") else self.a


def gaussian_mu(events) -> float:
    """μ = √(Σ kᵢ/σᵢ²) of the Gaussian events (0 if none): their composition is exactly μ-GDP."""
    return math.sqrt(sum(e.repeat / e.a**2 for e in events if e.kind == "gaussian"))


def _single_range(e: Event) -> float:
    """Width of one release's discretised loss support: [−ε₀, ε₀] for Laplace and levels; for Gaussian
    noise dp-accounting's grid covers the losses of both worlds within about ±10 standard
    deviations, [−μ²/2 − 10μ, μ²/2 + 10μ]."""
    s = e.scale
    if e.kind == "gaussian":
        return s * s + 21.0 * s if s <= CTD_MAX_MU else 24.0 * s  # _rounded_gaussian: μ²/2 ± 12μ
    return 2.0 * s


def _merged(events) -> tuple[tuple[Event, ...], float]:
    """The events with every Gaussian merged into one exact Gaussian (σ = 1/μ) and equal events'
    repeats added; returns (events, μ of the Gaussians)."""
    mu = gaussian_mu(events)
    counts: dict[tuple, int] = {}
    for e in events:
        if e.kind != "gaussian":
            key = (e.kind, e.a, e.b)
            counts[key] = counts.get(key, 0) + e.repeat
    out = [Event(k, a, b, n) for (k, a, b), n in sorted(counts.items())]
    if mu > 0:
        out.append(Event("gaussian", 1.0 / mu, 0.0, 1))
    return tuple(out), mu


#: dp-accounting's connect-the-dots grids are used up to these sizes (beyond, its constructors overflow
#: e^{step} or allocate a grid over ±μ²/2); there a pessimistic rounding-up of the exact law is used
CTD_MAX_MU = 20.0


CTD_MAX_STEP = 50.0


#: dp-accounting's Laplace construction needs e^{−ε₀} > 0 in floating point: beyond ε₀ ≈ 745 its masses sum
#: to 39 instead of 1 (seen at b/Δ = 0.001, ε₀ = 1000, step 0.0129), so there the rounded-up law is used
CTD_MAX_EPS0 = 700.0


def _pmf_on(e: Event, step: float) -> tuple[int, np.ndarray, float]:
    """:func:`_pmf` on the common grid ``step``, discretised at the coarsest multiple of it that meets this
    release's own accuracy target (:func:`_target_step` of the release alone). A law on the coarser grid is
    a law on the finer one (its points are grid points), as pessimistic as before; discretising far finer
    than a release's own scale gains nothing and costs precision — the connect-the-dots masses are second
    differences of δ(ε) divided by ~step², so at step/μ = 10⁻⁵ (a Gaussian of μ = 0.1 beside a Laplace of
    ε₀ = 10⁻⁴) rounding adds 4·10⁻⁶ of spurious mass."""
    m = max(1, int(math.floor(_target_step((e,)) / step * (1 + 1e-9))))
    if m == 1:
        return _pmf(e, step)
    lo, p, inf = _pmf(e, m * step)
    fine = np.zeros((p.size - 1) * m + 1)
    fine[::m] = p
    return lo * m, fine, inf


def _pmf(e: Event, step: float) -> tuple[int, np.ndarray, float]:
    """One release's pessimistic discretised loss distribution: (index of the first grid point, masses,
    mass at +∞). dp-accounting's connect-the-dots construction for Gaussian and Laplace noise
    (:data:`CTD_MAX_MU`, :data:`CTD_MAX_STEP`); otherwise the exact law with every loss rounded *up*
    to the grid (a valid pessimistic distribution: δ(ε) = E[(1 − e^{ε−L})₊] grows with L). Symmetric
    mechanisms: one direction is the whole law."""
    if e.kind == "gaussian" and 1.0 / e.a <= CTD_MAX_MU:
        return _ctd_gaussian(1.0 / e.a, step)
    if e.kind == "laplace" and step <= CTD_MAX_STEP and 1.0 / e.a <= CTD_MAX_EPS0:
        from dp_accounting.pld import privacy_loss_distribution as pld

        one = pld.from_laplace_mechanism(parameter=e.a, value_discretization_interval=step)
        try:
            dense = one._pmf_remove.to_dense_pmf()  # noqa: SLF001 — the library's only view of its masses
            lower, probs, inf = int(dense._lower_loss), np.array(dense._probs, dtype=float), float(dense._infinity_mass)
        except AttributeError as exc:  # pragma: no cover — a dp-accounting whose layout changed
            raise RuntimeError(f"dp-accounting's privacy-loss distribution has an unknown layout: {exc}") from exc
        if e.kind == "laplace" and inf < 1e-12:
            # Laplace's loss is at most ε₀: the "infinite" mass is the rounding of 1 − Σ masses (2⁻⁵⁴),
            # which 10⁵ repeats would turn into 10⁻¹² of spurious δ; it goes to the largest loss instead
            probs[-1] += inf
            inf = 0.0
        return lower, probs, inf
    if e.kind == "gaussian":
        return _rounded_gaussian(1.0 / e.a, step)
    if e.kind == "laplace":
        return _rounded_laplace(1.0 / e.a, step)
    return _rounded_level(e.a, e.b, step)


def _ctd_gaussian(mu: float, step: float) -> tuple[int, np.ndarray, float]:
    """dp-accounting's connect-the-dots discretisation of Gaussian noise (μ = 1/σ), built from its own
    parts — the grid bounds of its ``GaussianPrivacyLoss`` (log mass truncation −50) and its
    ``create_pmf_pessimistic_connect_dots_fixed_gap`` — with the hockey-stick divergence at the grid
    points computed in one vectorised pass (:func:`gdp_delta`'s formula) instead of the library's loop
    over points (0.16 s per distribution at 10⁵ points)."""
    from dp_accounting.pld import pld_pmf, privacy_loss_mechanism

    bounds = privacy_loss_mechanism.GaussianPrivacyLoss(standard_deviation=1.0 / mu).connect_dots_bounds()
    lo = math.floor(bounds.epsilon_lower / step)
    hi = math.ceil(bounds.epsilon_upper / step)
    deltas = np.clip(np.minimum.accumulate(gdp_delta(np.arange(lo, hi + 1) * step, mu=mu)), 0.0, 1.0)  # non-increasing
    dense = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(step, lo, hi, deltas).to_dense_pmf()
    return int(dense._lower_loss), np.asarray(dense._probs, dtype=float), float(dense._infinity_mass)


def _rounded_gaussian(mu: float, step: float) -> tuple[int, np.ndarray, float]:
    """L ~ N(μ²/2, μ²): the mass of each cell (jh, (j+1)h] at (j+1)h; below μ²/2 − 12μ at the first
    point, above μ²/2 + 12μ at +∞."""
    from scipy.special import ndtr

    lo = int(math.floor((mu * mu / 2 - 12 * mu) / step))
    hi = int(math.ceil((mu * mu / 2 + 12 * mu) / step))
    cdf = ndtr((np.arange(lo, hi + 1) * step - mu * mu / 2) / mu)
    probs = np.concatenate([[cdf[0]], np.diff(cdf)])
    return lo, probs, float(ndtr(-((hi * step - mu * mu / 2) / mu)))


def _rounded_laplace(eps0: float, step: float) -> tuple[int, np.ndarray, float]:
    """Laplace noise b = 1/ε₀, its loss law (:func:`~hetdp_core.noise.profiles.laplace_loss_cdf`) with every loss
    rounded up to the grid: the mass of each cell ((j − 1)h, jh] at jh, the last point taking all up to ε₀."""
    lo, hi = int(math.floor(-eps0 / step)), int(math.ceil(eps0 / step))
    cdf = laplace_loss_cdf(np.arange(lo, hi + 1) * step, eps0=eps0)
    cdf[-1] = 1.0  # hi·h ≥ ε₀ up to rounding: the atom ½ at ε₀ is counted there
    return lo, np.concatenate([cdf[:1], np.diff(cdf)]), 0.0


def _rounded_level(eps: float, delta: float, step: float) -> tuple[int, np.ndarray, float]:
    """The worst case of (ε, δ)-DP: L = ε with probability (1 − δ)/(1 + e^{−ε}), −ε with probability
    (1 − δ)/(1 + e^{ε}), +∞ with probability δ; rounded up."""
    lo, hi = int(math.ceil(-eps / step)), int(math.ceil(eps / step))
    truth, lie = rr_channel(eps)  # randomized response at ε, which no ε-DP channel exceeds
    probs = np.zeros(hi - lo + 1)
    probs[0] += (1 - delta) * lie
    probs[-1] += (1 - delta) * truth
    return lo, probs, float(delta)


def _log_mgf(lower: int, probs: np.ndarray, step: float, thetas: np.ndarray) -> np.ndarray:
    """log Σ p_i e^{θ ℓ_i} of the finite part, for each θ (log-sum-exp, in blocks of grid points)."""
    keep = np.nonzero(probs > 0)[0]
    losses = (keep + lower) * step
    logp = np.log(probs[keep])
    out = np.full(thetas.size, -np.inf)
    for start in range(0, losses.size, 1 << 16):
        x = logp[None, start : start + (1 << 16)] + thetas[:, None] * losses[None, start : start + (1 << 16)]
        top = x.max(axis=1)
        block = top + np.log(np.exp(x - top[:, None]).sum(axis=1))
        out = np.logaddexp(out, block)
    return out


def _mean(events) -> float:
    """The mean privacy loss of the composition: μ²/2 (Gaussian), ε₀ − 1 + e^{−ε₀} (Laplace),
    ε tanh(ε/2) (the worst case of an ε level)."""
    out = 0.0
    for e in events:
        s = e.scale
        out += e.repeat * (
            s * s / 2 if e.kind == "gaussian" else s + math.expm1(-s) if e.kind == "laplace" else s * math.tanh(s / 2)
        )
    return out


def _choose_step(events) -> float:
    """The grid step: at most STEP_FRACTION of the smallest loss scale and 10⁻⁴, and coarse enough that
    the composed loss (its mean ± 25 standard deviations) and every single release fit MAX_POINTS."""
    sd = math.sqrt(sum(e.repeat * e.scale**2 for e in events))
    span = 50.0 * sd + 2.0 * max(_single_range(e) for e in events) + 1e-3 * _mean(events)
    return max(_target_step(events), span / MAX_POINTS, max(map(_single_range, events)) / MAX_POINTS)


def _target_step(events) -> float:
    """The step the accuracy target asks for: STEP_FRACTION of the smallest loss scale, at most 10⁻⁴."""
    return min(1e-4, STEP_FRACTION * min(e.scale for e in events))


def _window(pmfs, events, step: float) -> tuple[int, int, float]:
    """(lowest, highest) grid index of the composed loss that hold all but TAIL_MASS of its mass on
    each side (Chernoff: P(S ≥ u) ≤ exp(Σ kᵢ Λᵢ(θ) − θu) for every θ > 0, and alike below), and the
    mass a window may leave out in all."""
    sd = math.sqrt(sum(e.repeat * e.scale**2 for e in events))
    thetas = np.geomspace(0.05, 200.0, 40) / sd
    up = sum(e.repeat * _log_mgf(lo, p, step, thetas) for e, (lo, p, _) in zip(events, pmfs))
    down = sum(e.repeat * _log_mgf(lo, p, step, -thetas) for e, (lo, p, _) in zip(events, pmfs))
    log_tail = math.log(TAIL_MASS)
    hi = float(np.min((up - log_tail) / thetas))
    lo = float(np.max((down - log_tail) / -thetas))
    # the composed support itself bounds the window too
    lo = max(lo, sum(e.repeat * plo for e, (plo, _, _) in zip(events, pmfs)) * step)
    hi = min(hi, sum(e.repeat * (plo + p.size - 1) for e, (plo, p, _) in zip(events, pmfs)) * step)
    return int(math.floor(lo / step)) - 1, int(math.ceil(hi / step)) + 1, 2 * TAIL_MASS


def _tilted(p: np.ndarray, lo: int, step: float, theta: float) -> tuple[np.ndarray, float]:
    """The masses times e^{θℓ}, normalised, and the log of the normaliser (θ = 0: unchanged)."""
    if not theta:
        return p, 0.0
    with np.errstate(divide="ignore"):
        lp = np.log(p) + theta * (np.arange(p.size) + lo) * step
    top = float(lp.max())
    q = np.exp(lp - top)
    z = float(q.sum())
    return q / z, top + math.log(z)


def _convolve_all(arrays: list[np.ndarray]) -> np.ndarray:
    """The convolution of non-negative arrays (pairwise, smallest first, each by FFT), negatives of
    round-off clipped."""
    import heapq

    heap = [(a.size, i, a) for i, a in enumerate(arrays)]
    heapq.heapify(heap)
    count = len(heap)
    while len(heap) > 1:
        _, _, a = heapq.heappop(heap)
        _, _, b = heapq.heappop(heap)
        if min(a.size, b.size) <= 64:
            c = np.convolve(a, b)
        else:
            m = a.size + b.size - 1
            c = np.fft.irfft(np.fft.rfft(a, m) * np.fft.rfft(b, m), m)
            np.clip(c, 0.0, None, out=c)
        heapq.heappush(heap, (c.size, count, c))
        count += 1
    return heap[0][2]


def _fft_compose(events, pmfs, step: float, i_lo: int, n: int, theta: float):
    """The composed masses on grid indices i_lo … i_lo + n − 1 and the log of the scale that undoes the
    exponential tilt e^{θℓ} (θ = 0: none). One FFT per distinct release; releases with the same repeat
    count k are multiplied first and raised to the power k once
    (Π_j F_j^k = (Π_j F_j)^k), through exp(k log ·)."""
    import scipy.fft as sfft

    log_scale = 0.0
    shift = 0  # Σ k × (first index of each release)
    by_repeat: dict[int, list[int]] = {}
    for i, e in enumerate(events):
        by_repeat.setdefault(e.repeat, []).append(i)
    groups = []
    for k, members in by_repeat.items():
        parts = []
        for i in members:
            lo, p, _ = pmfs[i]
            q, log_z = _tilted(p, lo, step, theta)
            log_scale += k * log_z
            shift += k * lo
            parts.append(q)
        # one copy of every release with this repeat count, composed on its own short support; then one
        # long FFT of it raised to the power k: (Π_j F_j)^k
        groups.append((k, _convolve_all(parts)))
    size = sfft.next_fast_len(max(n, *(g.size for _, g in groups)), real=True)  # never crop a group's law
    log_spec = np.zeros(size // 2 + 1, dtype=complex)
    zero = np.zeros(size // 2 + 1, dtype=bool)
    for k, g in groups:
        prod = np.fft.rfft(g, size)  # numpy's pocketfft: faster here than scipy.fft's
        mag = np.abs(prod)
        zero |= mag == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            log_spec += k * np.log(np.where(mag == 0, 1.0, prod))
    # index S of the sum sits at position S − i_lo: a phase e^{−2πi f (shift − i_lo)/size}, reduced mod size
    d = (shift - i_lo) % size
    freq = np.arange(size // 2 + 1, dtype=np.int64)
    log_spec += -2j * np.pi * ((freq * d) % size) / size
    spec = np.where(zero, 0.0, np.exp(log_spec))
    raw = np.fft.irfft(spec, size)[:n]
    return raw, log_scale


@dataclass(frozen=True)
class _Grid:
    step: float
    i_lo: int
    masses: np.ndarray
    infinity: float
    noise: float  # the FFT's round-off per grid point, measured by its most negative output
    fine: bool  # the step met the accuracy target (STEP_FRACTION of the smallest loss scale, and 10⁻⁴)


def _discretise(events: tuple, theta: float = 0.0) -> _Grid:
    step = _choose_step(events)
    for _ in range(4):
        pmfs = [_pmf_on(e, step) for e in events]
        i_lo, i_hi, cut = _window(pmfs, events, step)
        n = i_hi - i_lo + 1
        if n <= MAX_POINTS:
            break
        step *= n / MAX_POINTS * 1.05
    else:  # pragma: no cover — the window estimate is safe after one refinement
        raise RuntimeError("the composed privacy-loss distribution does not fit its grid")
    raw, log_scale = _fft_compose(events, pmfs, step, i_lo, n, theta)
    # the FFT's round-off: its most negative output, and never less than a few ulps of the largest mass
    noise = max(-float(raw.min()), 4e-16 * float(raw.max()))
    masses = np.clip(raw, 0.0, None)
    if theta:
        losses = (np.arange(n) + i_lo) * step
        masses = masses * np.exp(np.minimum(log_scale - theta * losses, 700.0))
        noise = noise * math.exp(min(log_scale - theta * i_hi * step, 700.0))
    keep = math.fsum(e.repeat * math.log1p(-inf) for e, (_, _, inf) in zip(events, pmfs) if inf < 1)
    infinity = 1.0 if any(inf >= 1 for _, _, inf in pmfs) else -math.expm1(keep)
    fine = step <= _target_step(events) * (1 + 1e-9)
    return _Grid(step, i_lo, masses, min(1.0, infinity + cut), noise, fine)


def _grid_delta(g: _Grid, eps: float) -> float:
    """δ(ε) = P(L = ∞) + Σ_{ℓ > ε} p(ℓ)(1 − e^{ε − ℓ}) on the grid."""
    first = max(0, int(math.floor(eps / g.step)) - g.i_lo + 1)
    losses = (np.arange(first, g.masses.size) + g.i_lo) * g.step
    tail = g.masses[first:]
    return g.infinity + float(np.sum(tail * -np.expm1(np.minimum(eps - losses, 0.0))))


def _grid_epsilon(g: _Grid, delta: float) -> float:
    """The smallest ε with δ(ε) ≤ delta on the grid: bisection over grid points, then exact within the
    cell (ℓ_j, ℓ_{j+1}], where δ(ε) = P∞ + S₁ − e^{ε − ℓ_{j+1}} A with S₁ = Σ_{i>j} p_i and
    A = Σ_{i>j} p_i e^{ℓ_{j+1} − ℓ_i} (written from the upper end, so nothing underflows)."""
    if g.infinity > delta:
        return math.inf
    if _grid_delta(g, 0.0) <= delta:
        return 0.0
    point = lambda i: (i + g.i_lo) * g.step  # noqa: E731
    lo = max(0, -g.i_lo)  # the first grid point at or above ε = 0
    hi = g.masses.size - 1  # δ there is P∞ ≤ delta
    if _grid_delta(g, point(lo)) <= delta:
        lo, floor = lo - 1, 0.0  # the answer lies in (0, that point]
    else:
        while hi - lo > 1:  # δ(ℓ_lo) > delta ≥ δ(ℓ_hi)
            mid = (lo + hi) // 2
            if _grid_delta(g, point(mid)) > delta:
                lo = mid
            else:
                hi = mid
        floor = point(lo)
    top = point(lo + 1)
    above = g.masses[lo + 1 :]
    losses = (np.arange(lo + 1, g.masses.size) + g.i_lo) * g.step
    s1 = float(np.sum(above))
    a = float(np.sum(above * np.exp(top - losses)))
    gap = g.infinity + s1 - delta
    if a <= 0 or gap <= 0:
        return top
    return min(max(top + math.log(gap / a), floor), top)


@dataclass(frozen=True)
class Composition:
    """The composed privacy-loss distribution of a group's events: exactly Gaussian (``mu`` set, every
    event Gaussian) or discretised on a grid (``mu`` None)."""

    events: tuple
    mu: float | None

    @functools.cached_property
    def _grid(self) -> _Grid:
        merged, _ = _merged(self.events)
        return _discretise(merged)

    @property
    def exact(self) -> bool:
        return self.mu is not None

    @property
    def method(self) -> str:
        if self.exact:
            return f"exact: every release Gaussian, μ-GDP with μ = {self.mu:.6g}"
        g = self._grid
        if g.fine:
            return f"discretised on a grid of step {g.step:.2g}: within 3·10⁻⁴ (relative) of the exact ε, measured"
        return (
            f"discretised on a grid of step {g.step:.2g}, coarser than the accuracy target (the grid's size "
            "limit): a valid upper bound that may read further above the exact ε"
        )

    def epsilon(self, delta: float) -> float:
        if self.exact:
            return gdp_epsilon(self.mu, delta)
        g = self._grid
        eps = _grid_epsilon(g, delta)
        if math.isfinite(eps):
            cells = g.masses.size - max(0, int(math.floor(eps / g.step)) - g.i_lo)
            if g.noise * cells > 1e-6 * delta:  # round-off is not negligible this far out: tilt there
                eps = _tilted_epsilon(self.events, delta, eps)
        return eps

    def delta(self, eps) -> np.ndarray:
        """δ(ε) of the composition for each ε ≥ 0 (its privacy profile)."""
        e = np.atleast_1d(np.asarray(eps, dtype=float))
        if self.exact:
            return gdp_delta(e, mu=self.mu)
        return np.array([min(1.0, _grid_delta(self._grid, float(x))) for x in e])

    def tpr(self, fpr) -> np.ndarray:
        """The most an attack can catch at each false-positive rate: exactly Φ(Φ⁻¹(α) + μ) for a Gaussian
        composition; otherwise the Neyman–Pearson test of the discretised pair (reject from the largest
        loss down), which dominates the true pair, so the rate is never understated."""
        a = np.atleast_1d(np.asarray(fpr, dtype=float))
        if self.exact:
            from ..reading.risk import tpr_gaussian

            return np.array([float(tpr_gaussian(mu=self.mu, fpr=x)[0]) if x > 0 else 0.0 for x in a])
        g = self._grid
        losses = (np.arange(g.masses.size) + g.i_lo) * g.step
        p = g.masses[::-1]
        with np.errstate(divide="ignore"):
            q = np.exp(np.minimum(np.log(p) - losses[::-1], 700.0))
        tp = np.concatenate([[g.infinity], g.infinity + np.cumsum(p)])
        fp = np.concatenate([[0.0], np.cumsum(q)])
        return np.minimum(np.interp(a, fp, tp), 1.0)

    def advantage(self) -> float:
        """sup_α (TPR − α) = δ(0), the total-variation distance of the two worlds."""
        if self.exact:
            from ..reading.risk import advantage_gaussian

            return float(advantage_gaussian(mu=self.mu)[0])
        return float(min(1.0, _grid_delta(self._grid, 0.0)))


def _tilted_epsilon(events: tuple, delta: float, guess: float) -> float:
    """ε at a tiny δ, from the composition under the exponential tilt that centres it near ``guess``
    (the FFT's round-off is then relative to the masses that decide δ there)."""
    merged, _ = _merged(events)
    sd2 = sum(e.repeat * e.scale**2 for e in merged)
    theta = min(max((guess - _mean(merged)) / sd2, 0.0), 60.0 / math.sqrt(sd2))
    return _grid_epsilon(_discretise(merged, theta), delta)


def _comp_bytes(c: Composition) -> int:
    g = c.__dict__.get("_grid")
    return 1024 + (g.masses.nbytes if g is not None else 0)


_COMPOSITIONS = Memo(96 * 2**20, size=_comp_bytes, name="ledger compositions")


def compose(events: tuple) -> Composition:
    """The composed privacy-loss distribution of ``events`` (kept in a byte-bounded memo: a page rerun
    with another δ, FPR or budget, and the solver's repeated steps, reuse it)."""
    events = tuple(events)

    def build():
        exact = all(e.kind == "gaussian" for e in events)
        c = Composition(events, gaussian_mu(events) if exact else None)
        if not exact:
            c._grid  # noqa: B018 — computed now, so the memo weighs it
        return c

    return _COMPOSITIONS.get_or_compute(events, build)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
