r"""Algorithm 1 of the group-wise zCDP lab, numerically: ``X ~ N(x, σ²)``, then ``Y ~ N(X, (r X)²)``.

The density of Y is a Gaussian mixture with no closed form, so its Rényi divergence D_α(M(x)‖M(x±1)) is
computed by quadrature at two resolutions (reported only when they agree, :data:`ALG1_REL_TOL`), memoised
per (x, ρ, r, resolution, α), and checked by Monte Carlo. The lab's overview: :mod:`hetdp_core.per_group.zcdp`.

Reference: A. Azize, *Open problem: better privacy guarantees for larger groups* (2023).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.memo import Memo, shared_store
from .gaussian import _FINE, _R, _SAMPLES, _alphas, _counts, _neighbours, release, sigma_from_rho

__all__ = [
    "ALG1_REL_TOL",
    "algorithm1_seconds",
    "renyi_algorithm1_detail",
    "renyi_algorithm1",
    "Algorithm1Divergence",
    "log_density_algorithm1",
    "renyi_monte_carlo_algorithm1",
]

#: this part of zcdp's numerics shares its rows of the core's glossary
GLOSSARY_KEY = "zcdp"

# ---------------------------------------------------------------- Algorithm 1 (numerical)
#: A numerical D_α of Algorithm 1 is reported only when two resolutions (``fine`` and ``1.5·fine``)
#: agree within this relative tolerance (plus ``ALG1_ABS_TOL`` nats); otherwise it is "unresolved".
ALG1_REL_TOL = 1e-2
ALG1_ABS_TOL = 1e-9
_K_SIGMA = 14.0  # the Gaussian step is discretised on x ± 14σ (mass outside: e^{-98})
_Z_MAX = 12.0  # the multiplicative noise U = 1 + rZ is discretised on Z ∈ [−12, 12]
_END_GAP = 40.0  # the y-range grows until the integrand at both ends is e^{-40} below its peak
_MAX_Y_NODES = 400_000
_MAX_MIX_NODES = 40_000


def _trapezoid_weights(t: np.ndarray) -> np.ndarray:
    w = np.empty_like(t)
    d = np.diff(t)
    w[0], w[-1] = d[0] / 2, d[-1] / 2
    w[1:-1] = (d[:-1] + d[1:]) / 2
    return w


@dataclass(frozen=True)
class _Mixture:
    """The discretised mechanism: for every x, ``Y = Σ_j w_j(x) N(mean_j(x), sd_j(x)²)``.

    ``kind = "t"``: the Gaussian step X is discretised on a grid shared by all x (weights
    ∝ φ((t_j − x)/σ), components N(t_j, r²t_j²)); ``kind = "z"``: U = 1 + rZ is discretised on nodes
    shared by all x (weights ∝ φ(z_j), components N(x u_j, σ²u_j²)). Either way the approximation is
    itself a post-processing of a (discretised) Gaussian step, so its D_α obeys the αρ bound."""

    kind: str
    logw: dict
    mean: dict
    sd: dict
    y_step: float  # linear y-spacing that resolves every component
    y_near: float  # "z": geometric y-nodes accumulate at 0 below this (the singular point)
    y_far: float  # "z": beyond |y| = y_far the spacing grows geometrically


def _alg1_mixture(xs, sigma: float, r: float, fine: float) -> _Mixture | None:
    xs = sorted(set(float(v) for v in xs))
    lo, hi = xs[0] - _K_SIGMA * sigma, xs[-1] + _K_SIGMA * sigma
    if lo > 0 and r * lo >= sigma / 2:
        # condition on X: components N(t, r²t²) are ≥ σ/2 wide, so a t-step of σ/8 resolves them
        h = sigma / (8.0 * fine)
        n = int(np.ceil((hi - lo) / h)) + 1
        if n > _MAX_MIX_NODES:
            return None
        t = lo + h * np.arange(n)
        logw, mean, sd = {}, {}, {}
        for x in xs:
            lw = -0.5 * ((t - x) / sigma) ** 2
            logw[x], mean[x], sd[x] = lw - logsumexp(lw), t, r * t
        return _Mixture("t", logw, mean, sd, y_step=r * lo / (6.0 * fine), y_near=0.0, y_far=np.inf)
    # condition on U: component means x·u_j are spaced x r Δz apart and must overlap (width σ|u|)
    top = xs[-1] + sigma
    n_lin = int(max(400, 96.0 * top * r / sigma) * fine)
    z = np.linspace(-_Z_MAX, _Z_MAX, n_lin)
    zstar = -1.0 / r  # U = 0: the conditional law of Y collapses to the point 0
    if zstar > -_Z_MAX:
        ratio = 1.0 + sigma / (2.0 * top * fine)
        m = int(np.log(4.0 * r * (z[1] - z[0]) / 1e-13) / np.log(ratio)) + 1
        off = 1e-13 * ratio ** np.arange(m) / r
        z = np.concatenate([z, zstar + off, zstar - off])
    z = np.unique(z)
    z = z[(np.abs(z) <= _Z_MAX) & (1.0 + r * z != 0.0)]
    if z.size > _MAX_MIX_NODES:
        return None
    u = 1.0 + r * z
    lw = np.log(_trapezoid_weights(z)) - 0.5 * z**2
    lw -= logsumexp(lw)
    return _Mixture(
        "z",
        {x: lw for x in xs},
        {x: x * u for x in xs},
        {x: sigma * np.abs(u) for x in xs},
        y_step=sigma / (6.0 * fine),
        y_near=top if zstar > -_Z_MAX else 0.0,
        y_far=top + 100.0,
    )


def _y_nodes(mix: _Mixture, center: float, half: float, fine: float, sigma: float) -> np.ndarray:
    """The nodes of a fixed, nested node set that lie in [center − half, center + half]: widening
    the range only adds nodes, so a result does not depend on how far the range had to grow."""
    h = mix.y_step
    if mix.kind == "t":
        k = np.arange(-np.ceil(half / h), np.ceil(half / h) + 1)
        return center + h * k
    lin_top = min(half, mix.y_far)
    lin = h * np.arange(-np.ceil(lin_top / h), np.ceil(lin_top / h) + 1)
    parts = [lin]
    if mix.y_near > 0:
        # U reaches 0: f_Y is log-singular at y = 0. Near 0 the components are σ|u| wide at |y| ≈ x|u|,
        # so the spacing is σ|y|/(6x) (geometric); it equals the linear step h at |y| = y_near.
        q = 1.0 + sigma / (6.0 * mix.y_near * fine)
        tiny = 1e-12 * mix.y_near
        near = tiny * q ** np.arange(int(np.log(mix.y_near / tiny) / np.log(q)) + 1)
        parts = [lin[np.abs(lin) > near[-1]], near, -near]
    if half > mix.y_far:  # far out: spacing grows ∝ |y|
        g = 1.0 + h / mix.y_far
        far = mix.y_far * g ** np.arange(1, int(np.log(half / mix.y_far) / np.log(g)) + 2)
        parts += [far, -far]
    y = np.unique(np.concatenate(parts))
    return y[(y != 0.0) & (np.abs(y) <= max(half, mix.y_near))]


#: a mixture term more than this many nats below the largest term at the same y is left out of the
#: log-sum-exp: it changes the sum by less than K·e^{-40} ≈ 4·10⁻¹⁸·K relative (K terms)
_PRUNE_NATS = 40.0
#: y nodes per pruning block (each block keeps the terms that can matter anywhere in it)
_PRUNE_BLOCK = 64


def _mixture_logpdf(y: np.ndarray, mix: _Mixture, x: float) -> np.ndarray:
    r"""log Σ_j w_j N(y; mean_j, sd_j²) for every y (blocked, pruned log-sum-exp).

    The y are taken in sorted blocks [lo, hi]. Term j is at most
    ub_j = log w_j − log sd_j − ½log 2π − ½(dist(mean_j, [lo, hi])/sd_j)² on the block, and every y of
    the block has a term at least lb = max_j (same with the farther end); terms with
    ub_j < lb − 40 are more than 40 nats below the largest term at every y of the block and are left
    out (most of them are, far from their mean), so the cost follows the terms that matter."""
    lw, mean, sd = mix.logw[x], mix.mean[x], mix.sd[x]
    base = lw - np.log(sd) - 0.5 * np.log(2 * np.pi)
    inv = 1.0 / sd
    flat = np.asarray(y, dtype=float).reshape(-1)
    order = None if flat.size < 2 or np.all(flat[1:] >= flat[:-1]) else np.argsort(flat, kind="stable")
    ys = flat if order is None else flat[order]
    res = np.empty(ys.shape)
    # one work array for every block (the same arithmetic as a fresh (y − mean)·(1/sd) per block, without
    # allocating and first touching megabytes of new memory each time: a fifth of the cost)
    work = np.empty(0)
    for b0 in range(0, ys.size, _PRUNE_BLOCK):
        blk = ys[b0 : b0 + _PRUNE_BLOCK]
        lo, hi = blk[0], blk[-1]
        near = np.maximum(np.maximum(lo - mean, mean - hi), 0.0) * inv
        far = np.maximum(np.abs(lo - mean), np.abs(hi - mean)) * inv
        keep = base - 0.5 * near * near >= np.max(base - 0.5 * far * far) - _PRUNE_NATS
        bk, mk, ik = base[keep], mean[keep], inv[keep]
        step = max(1, 2_000_000 // bk.size)
        for s0 in range(0, blk.size, step):
            rows = blk[s0 : s0 + step, None]
            if work.size < rows.size * bk.size:
                work = np.empty(max(rows.size * bk.size, min(blk.size, step) * mean.size))
            t = work[: rows.size * bk.size].reshape(rows.size, bk.size)
            np.subtract(rows, mk, out=t)
            t *= ik
            np.square(t, out=t)
            t *= -0.5
            t += bk
            m = t.max(axis=1)
            t -= m[:, None]
            np.exp(t, out=t)
            res[b0 + s0 : b0 + s0 + t.shape[0]] = np.log(t.sum(axis=1)) + m
    if order is not None:
        out = np.empty_like(res)
        out[order] = res
        res = out
    return res.reshape(np.shape(y))


def _alg1_once(x: float, xs: list, sigma: float, r: float, a: np.ndarray, fine: float):
    """(up, down) at one resolution, or None when the node budget is exceeded."""
    mix = _alg1_mixture(xs, sigma, r, fine)
    if mix is None:
        return None
    center = float(np.mean(xs)) if mix.kind == "t" else 0.0
    sd = np.sqrt(sigma**2 * (1 + r**2) + r**2 * (x + 1) ** 2)
    half = 12.0 * sd + 2.0 + abs(x - center)
    y = _y_nodes(mix, center, half, fine, sigma)
    if y.size > _MAX_Y_NODES:
        return None
    pairs = [(p, q) for v in xs[1:] for p, q in ((x, v), (v, x))]
    # the integrand's peak, from every 4th node (a lower estimate: the end test below is conservative)
    sub = y[::4]
    lsub = {v: _mixture_logpdf(sub, mix, v) for v in xs}
    lwsub = np.log(_trapezoid_weights(sub)) - np.log(4.0)
    peak = np.stack([(a[:, None] * lsub[p] + (1 - a[:, None]) * lsub[q] + lwsub).max(axis=1) for p, q in pairs])
    for _ in range(40):  # widen: test only the two end nodes
        ends = _y_nodes(mix, center, half, fine, sigma)[[0, -1]]
        le = {v: _mixture_logpdf(ends, mix, v) for v in xs}
        gap = np.stack([(a[:, None] * le[p] + (1 - a[:, None]) * le[q]).max(axis=1) for p, q in pairs])
        if np.all(gap + np.log(mix.y_step * (1 + abs(ends).max() / mix.y_far)) <= peak - _END_GAP):
            break
        half *= 1.5
    else:
        return None
    y = _y_nodes(mix, center, half, fine, sigma)
    if y.size > _MAX_Y_NODES:
        return None
    logs = {v: _mixture_logpdf(y, mix, v) for v in xs}
    lwy = np.log(_trapezoid_weights(y))
    # normalise each density on the grid: the quadrature's mass error would otherwise be amplified
    # by 1/(α − 1) for α near 1
    logs = {v: lv - logsumexp(lv + lwy) for v, lv in logs.items()}
    up = np.full(a.shape, -np.inf)
    down = np.full(a.shape, -np.inf)
    for p, q in pairs:
        d = logsumexp(a[:, None] * logs[p] + (1 - a[:, None]) * logs[q] + lwy, axis=1) / (a - 1.0)
        if p == x:
            up = np.maximum(up, d)
        else:
            down = np.maximum(down, d)
    return np.maximum(up, 0.0), np.maximum(down, 0.0)  # D_α ≥ 0; clip round-off below 0


def algorithm1_seconds(*, x: float, rho: float, r: float, alpha) -> float:
    """Estimated seconds for :func:`renyi_algorithm1_detail` at these orders (0 for memoised ones),
    from the quadrature it will plan — mixture nodes × y nodes × densities at both resolutions —
    at ≈ 0.9 ns per node pair (terms 40 nats below the largest are skipped), times a widening factor
    that grows with the largest order (calibrated on the 2-core reference machine: 1.2–2.1× the
    measured CPU for ρ ∈ [0.05, 5], r ∈ [0.2, 0.5], α up to 50)."""
    x, rho, r = float(x), float(rho), float(r)
    a = [float(v) for v in np.atleast_1d(alpha)]
    todo = [v for v in a if (x, rho, r, 1.0, v) not in _MEMO]
    if not todo:
        return 0.0
    sigma = sigma_from_rho(rho)
    xs = [x] + _neighbours(x)
    units = 0.0
    for fine in (1.0, 1.5):
        mix = _alg1_mixture(xs, sigma, r, fine)
        if mix is None:  # over the node budget: reported unresolved, cheaply
            continue
        center = float(np.mean(xs)) if mix.kind == "t" else 0.0
        sd = np.sqrt(sigma**2 * (1 + r**2) + r**2 * (x + 1) ** 2)
        ny = _y_nodes(mix, center, 12.0 * sd + 2.0 + abs(x - center), fine, sigma).size
        units += len(mix.mean[x]) * ny * len(xs) * 1.3
    widen = 2.0 + np.log2(max(todo))
    return units * widen * 0.9e-9


@dataclass(frozen=True)
class Algorithm1Divergence:
    """Numerical D_α of Algorithm 1 for one group, with its error estimate.

    ``up``/``down`` are NaN where the value could not be resolved to the tolerance
    (``ALG1_REL_TOL`` relative + ``ALG1_ABS_TOL``) or where it exceeds the provable bound αρ by more
    than its error estimate (a numerical failure, reported as such); a value above αρ within its
    error estimate is shown as αρ. ``up_error``/``down_error`` are the differences between
    two resolutions; ``bound`` = αρ."""

    alpha: np.ndarray
    up: np.ndarray
    down: np.ndarray
    up_error: np.ndarray
    down_error: np.ndarray
    bound: np.ndarray
    x: float

    @property
    def resolved(self) -> np.ndarray:
        return np.isfinite(self.up) & np.isfinite(self.down)


def renyi_algorithm1_detail(*, x: float, rho: float, r: float, alpha, fine: float = 1.0) -> Algorithm1Divergence:
    r"""Algorithm 1, both directions, maximised over neighbours x ± 1 — computed numerically:

    .. math:: D_\alpha(f\|g) = \frac1{\alpha-1}\log\int f(y)^\alpha g(y)^{1-\alpha}\,dy,\qquad
              Y = X\cdot U,\ X\sim N(x,\sigma^2),\ U = 1+rZ \sim N(1, r^2).

    **Discretisation that keeps the guarantee.** The densities are replaced by finite mixtures that
    are themselves post-processings of a Gaussian step: for groups far from 0 (x − 14σ > 0 and
    r(x − 14σ) ≥ σ/2) the step X is discretised on a uniform grid shared by x and its neighbours,
    followed by the kernel N(t, r²t²); otherwise U is discretised on nodes shared by all three
    densities (geometric refinement at U = 0, the singular point), followed by the Gaussian step. By
    the data-processing inequality the exact D_α of either approximation is ≤ αρ; an earlier
    version used different nodes per density and truncated them asymmetrically, which broke this
    and gave values up to 1000× above the bound.

    **The y-integral** uses a fixed, nested node set (linear in the bulk, geometric at 0 and far
    out), widened until the integrand at both ends is e^{-40} below its peak; so the value for one α
    does not depend on which other orders are requested. Each density is normalised on the grid.

    **Error estimate**: the whole computation is repeated at 1.5× the resolution (``1.5·fine``); the
    finer value is reported with ``|difference|`` as its error, and set to NaN ("unresolved") when
    the error exceeds ``ALG1_REL_TOL``·|D| + ``ALG1_ABS_TOL`` or the node budget is exceeded."""
    x = float(_counts(x, "x")[0])
    sigma_from_rho(rho)
    r = _R.check("r", r, what=" (relative error)")
    a = _alphas(alpha)
    fine = _FINE.check("fine", fine, what=" (resolution multiplier)")
    # memoised per order: pages ask for the same (x, ρ, r, α) again and again as other inputs change.
    # Orders not yet known are computed in one vectorised batch; on the fixed nested grid a batch
    # and a single order agree to round-off (tested), so a value does not depend on its batch.
    key = (x, float(rho), r, fine)
    known = _memo_hits(key, a)
    if len(known) < len({float(al) for al in a}):
        # single flight: concurrent sessions asking for the same group wait for one computation
        # instead of each computing the same curves (50 users on a fresh server did it 50 times)
        with _flight(key):
            known = _memo_hits(key, a)
            todo = sorted({float(al) for al in a} - set(known))
            store = shared_store()
            if todo and store is None:
                known.update(_alg1_batch(key, todo))
            elif todo:
                # shared between processes (the app's children and workers): one process computes a
                # group's orders, the others wait on the store's lock and read them
                skey = ("zcdp.alg1",) + key
                with store.lock(skey):
                    found, table = store.load(skey)
                    table = dict(table) if found and isinstance(table, dict) else {}
                    for al in todo:
                        if al in table:
                            known[al] = tuple(table[al])
                            _MEMO.put(key + (al,), known[al])
                    rest = [al for al in todo if al not in known]
                    if rest:
                        new = _alg1_batch(key, rest)
                        known.update(new)
                        table.update(new)
                        store.save(skey, table)
    cols = [np.array([known[float(al)][i] for al in a]) for i in range(4)]
    return Algorithm1Divergence(a, cols[0], cols[1], cols[2], cols[3], a * rho, x)


#: Algorithm 1's divergences per (x, ρ, r, resolution, α): four floats each, bounded in bytes
_MEMO = Memo(16 * 2**20, size=lambda v: 4 * 32 + 64, name="Algorithm 1 divergences")


def _alg1_batch(key: tuple, todo: list[float]) -> dict:
    """Compute the orders ``todo`` of one group (``key`` = (x, ρ, r, resolution)) in one vectorised
    batch and keep them in the memo: α → (up, down, up_error, down_error)."""
    x, rho, r, fine = key
    d = _alg1_compute(x, rho, r, np.array(todo), fine)
    out = {}
    for i, al in enumerate(todo):
        out[al] = (float(d.up[i]), float(d.down[i]), float(d.up_error[i]), float(d.down_error[i]))
        _MEMO.put(key + (al,), out[al])
    return out


def _memo_hits(key: tuple, a) -> dict:
    known = {}
    for al in a:
        hit = _MEMO.get(key + (float(al),))
        if hit is not None:
            known[float(al)] = hit
    return known


class _KeyLock:
    """A lock for one memo key (a class so the registry below can hold it weakly)."""

    def __init__(self):
        self.lock = threading.Lock()

    def __enter__(self):
        self.lock.acquire()
        return self

    def __exit__(self, *exc):
        self.lock.release()
        return False


_FLIGHTS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_FLIGHTS_LOCK = threading.Lock()


def _flight(key: tuple) -> _KeyLock:
    """The lock of ``key``, shared by every thread that asks while one holds it; forgotten when unused."""
    with _FLIGHTS_LOCK:
        lk = _FLIGHTS.get(key)
        if lk is None:
            lk = _FLIGHTS[key] = _KeyLock()
        return lk


def _alg1_compute(x: float, rho: float, r: float, a: np.ndarray, fine: float) -> Algorithm1Divergence:
    sigma = sigma_from_rho(rho)
    xs = [x] + _neighbours(x)
    bound = a * rho
    coarse = _alg1_once(x, xs, sigma, r, a, fine)
    finer = _alg1_once(x, xs, sigma, r, a, 1.5 * fine) if coarse is not None else None
    nan = np.full(a.shape, np.nan)
    if finer is None:
        return Algorithm1Divergence(a, nan, nan.copy(), nan.copy(), nan.copy(), bound, x)
    out = []
    for c, f in zip(coarse, finer):
        err = np.abs(f - c)
        good = err <= ALG1_REL_TOL * np.abs(f) + ALG1_ABS_TOL
        # the exact D_α of the discretisation is ≤ αρ; a value above it by no more than its own error
        # estimate is quadrature error and is clipped to αρ; anything beyond is a numerical failure
        good &= f <= bound + err + ALG1_ABS_TOL
        out.append((np.where(good, np.minimum(f, bound), np.nan), err))
    (up, eu), (down, ed) = out
    return Algorithm1Divergence(a, up, down, eu, ed, bound, x)


def renyi_algorithm1(*, x: float, rho: float, r: float, alpha, fine: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(up, down) of :func:`renyi_algorithm1_detail`; NaN where unresolved."""
    d = renyi_algorithm1_detail(x=x, rho=rho, r=r, alpha=alpha, fine=fine)
    return d.up, d.down


def log_density_algorithm1(y, *, x: float, sigma: float, r: float, neighbours=(), fine: float = 1.0) -> np.ndarray:
    r"""log f_Y(y) for Algorithm 1 (Y = X·U) from the discretised mixture of
    :func:`renyi_algorithm1_detail`; pass the other group sizes the density will be compared with as
    ``neighbours`` so that all share one discretisation."""
    mix = _alg1_mixture([x, *neighbours], sigma, r, fine)
    if mix is None:
        raise InputError(
            f"x = {x:g} with σ = {sigma:g}, r = {r:g} needs more quadrature nodes than the "
            "budget allows; use a smaller x or a larger r."
        )
    y = np.asarray(y, dtype=float)
    return _mixture_logpdf(y, mix, float(x))


def renyi_monte_carlo_algorithm1(
    *,
    x: float,
    xn: float,
    rho: float,
    r: float,
    alpha,
    samples: int = 200_000,
    rng: np.random.Generator | int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo estimate of D_α(M(x)‖M(xn)) for Algorithm 1: draws Y' from the mechanism at
    ``xn`` and averages (f/f')^α; returns (estimate, standard error of the inner mean's log)."""
    x = float(_counts(x, "x")[0])
    xn = float(_counts(xn, "xn")[0])
    sigma = sigma_from_rho(rho)
    a = _alphas(alpha)
    samples = _SAMPLES.check("samples", samples)
    Y = release([xn], rho=rho, r=r, algorithm=1, trials=samples, rng=rng)[:, 0]
    lr = log_density_algorithm1(Y, x=x, sigma=sigma, r=r, neighbours=(xn,)) - log_density_algorithm1(
        Y, x=xn, sigma=sigma, r=r, neighbours=(x,)
    )
    t = a[:, None] * lr[None, :]
    m = logsumexp(t, axis=1) - np.log(samples)
    w = np.exp(t - m[:, None])  # ratio / mean, mean 1
    se_log = w.std(axis=1) / np.sqrt(samples)  # delta method: SE of log-mean
    return m / (a - 1.0), se_log / (a - 1.0)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
