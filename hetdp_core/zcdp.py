r"""Group-wise zCDP lab (SPEC §5; paper: ``shared/papers/groupwise-zcdp-open-problem.md``).

Counts ``x_i`` for k groups are released with relative error r; σ² = 1/(2ρ).

* **Algorithm 1**: ``X_i ~ N(x_i, σ²)``, then ``Y_i ~ N(X_i, (r X_i)²)``. Accuracy bound
  ``E|Y_i − x_i| ≤ r x_i + σ√(1+r²)``. Y is a post-processing of the Gaussian mechanism X, so it is
  ρ-zCDP for every group (D_α ≤ αρ); the open question is whether the loss *decreases* with x_i.
  The divergence has no closed form: we compute it numerically (see :func:`renyi_algorithm1`).
* **Algorithm 2**: ``X_i ~ N(x_i, (r x_i)²)``. Accuracy ``E|X_i − x_i| ≤ r x_i``. The paper claims
  group-wise zCDP with ``v_i = 1/(2 r² x_i²)``, ``ξ_i = 2 log(1 + 1/x_i)``; group-wise zCDP needs
  **both** directions ``D_α(M(D)‖M(D'))`` and ``D_α(M(D')‖M(D))`` ≤ α v_i + ξ_i for neighbours
  x_i ± 1 and all α > 1. The reverse direction is +∞ once ``s_α² ≤ 0``, i.e. for
  ``α ≥ (x+1)²/(2x+1)`` (neighbour x+1): the claim fails there.

Rényi divergence of Gaussians (s_α² = α s2² + (1−α) s1²):

.. math:: D_\alpha(N(\mu_1,s_1^2)\|N(\mu_2,s_2^2)) = \log\frac{s_2}{s_1} + \frac{\log(s_2^2/s_\alpha^2)}{2(\alpha-1)}
          + \frac{\alpha(\mu_1-\mu_2)^2}{2 s_\alpha^2},\qquad +\infty \text{ if } s_\alpha^2 \le 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp

from ._validate import as_generator, check_int, check_real, check_vector

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "sigma_from_rho",
    "renyi_gaussian",
    "release",
    "accuracy_bound",
    "claimed_budget",
    "renyi_algorithm2",
    "renyi_algorithm1",
    "log_density_algorithm1",
    "renyi_monte_carlo_algorithm1",
    "RenyiCurves",
    "renyi_curves",
    "check_claim",
    "zipf_counts",
    "divergence_vs_size",
    "group_summary",
    "release_summary",
    "loss_monotonicity",
    "validate_counts",
]

ALGORITHMS = (1, 2)
MAX_ALPHA = 1000.0


def sigma_from_rho(rho: float) -> float:
    """σ = √(1/(2ρ)) (Gaussian mechanism with sensitivity 1 is ρ-zCDP)."""
    rho = check_real("rho", rho, lo=0.0, lo_open=True, what=" (zCDP level)")
    return float(np.sqrt(1.0 / (2.0 * rho)))


def _alphas(alpha) -> np.ndarray:
    return check_vector("alpha", np.atleast_1d(alpha), lo=1.0, lo_open=True, hi=MAX_ALPHA,
                        max_length=10_000, what=" (Rényi orders, each > 1)")


def renyi_gaussian(*, alpha, mu1, s1, mu2, s2) -> np.ndarray:
    """D_α(N(μ1, s1²) ‖ N(μ2, s2²)), broadcast over all arguments; +inf when s_α² ≤ 0.

    Degenerate scales: two point masses give 0 if equal and +inf otherwise; a point mass against
    a Gaussian (either way) is +inf (mutually singular).
    """
    a = _alphas(alpha) if np.ndim(alpha) else np.asarray(_alphas(alpha)[0])
    mu1, s1, mu2, s2 = (np.asarray(v, dtype=float) for v in (mu1, s1, mu2, s2))
    for name, v in (("mu1", mu1), ("mu2", mu2), ("s1", s1), ("s2", s2)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite; got {v}.")
    if np.any(s1 < 0) or np.any(s2 < 0):
        raise ValueError("s1 and s2 must be >= 0 (standard deviations).")
    a, mu1, s1, mu2, s2 = np.broadcast_arrays(a, mu1, s1, mu2, s2)
    out = np.full(a.shape, np.inf)
    both0 = (s1 == 0) & (s2 == 0)
    out[both0 & (mu1 == mu2)] = 0.0
    ok = (s1 > 0) & (s2 > 0)
    sa2 = a * s2**2 + (1.0 - a) * s1**2
    good = ok & (sa2 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = (np.log(s2 / s1) + np.log(s2**2 / sa2) / (2.0 * (a - 1.0))
               + a * (mu1 - mu2) ** 2 / (2.0 * sa2))
    out[good] = val[good]
    return out


def validate_counts(counts) -> np.ndarray:
    """Group counts as a float array: non-negative whole numbers (at most 100 000 groups)."""
    return _counts(counts)


def _counts(x, name="counts") -> np.ndarray:
    arr = check_vector(name, np.atleast_1d(x), lo=0.0, max_length=100_000, what=" (group counts)")
    if np.any(arr != np.round(arr)):
        i = int(np.flatnonzero(arr != np.round(arr))[0])
        raise ValueError(f"{name} must be whole numbers (counts of people); entry {i} is {arr[i]:g}. "
                         "Round the counts.")
    return arr


def release(counts, *, rho: float, r: float, algorithm: int, trials: int = 1,
            rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Released counts, shape (trials, k). Algorithm 1: X ~ N(x, σ²), Y ~ N(X, (rX)²);
    Algorithm 2: X ~ N(x, (r x)²)."""
    x = _counts(counts)
    sigma = sigma_from_rho(rho)
    r = check_real("r", r, lo=0.0, lo_open=True, hi=10.0, what=" (relative error)")
    algorithm = check_int("algorithm", algorithm, lo=1, hi=2, what=" (1 or 2)")
    trials = check_int("trials", trials, lo=1, hi=10_000_000, what=" (repetitions)")
    rng = as_generator(rng)
    if algorithm == 1:
        X = x + sigma * rng.standard_normal((trials, x.size))
        return X + r * np.abs(X) * rng.standard_normal((trials, x.size))
    return x + r * x * rng.standard_normal((trials, x.size))


def accuracy_bound(counts, *, rho: float, r: float, algorithm: int) -> np.ndarray:
    """Bound on E|release − x|: ``r x + σ√(1+r²)`` (Algorithm 1) or ``r x`` (Algorithm 2)."""
    x = _counts(counts)
    sigma = sigma_from_rho(rho)
    r = check_real("r", r, lo=0.0, lo_open=True, hi=10.0, what=" (relative error)")
    algorithm = check_int("algorithm", algorithm, lo=1, hi=2)
    return r * x + (sigma * np.sqrt(1 + r**2) if algorithm == 1 else 0.0)


def claimed_budget(counts, *, r: float) -> tuple[np.ndarray, np.ndarray]:
    """The paper's claim for Algorithm 2: ``v = 1/(2 r² x²)``, ``ξ = 2 log(1 + 1/x)`` (inf at x = 0)."""
    x = _counts(counts)
    r = check_real("r", r, lo=0.0, lo_open=True, hi=10.0, what=" (relative error)")
    with np.errstate(divide="ignore"):
        v = np.where(x > 0, 1.0 / (2.0 * r**2 * np.maximum(x, 1e-300) ** 2), np.inf)
        xi = np.where(x > 0, 2.0 * np.log1p(1.0 / np.maximum(x, 1e-300)), np.inf)
    return v, xi


def _neighbours(x: float) -> list[float]:
    return [x + 1.0] + ([x - 1.0] if x >= 1 else [])


def renyi_algorithm2(*, x: float, r: float, alpha) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2, both directions, maximised over the neighbours x ± 1 (x − 1 only if x ≥ 1):
    ``up = max D_α(M(x)‖M(x±1))``, ``down = max D_α(M(x±1)‖M(x))``."""
    x = float(_counts(x, "x")[0])
    r = check_real("r", r, lo=0.0, lo_open=True, hi=10.0, what=" (relative error)")
    a = _alphas(alpha)
    up = np.full(a.shape, -np.inf)
    down = np.full(a.shape, -np.inf)
    for xn in _neighbours(x):
        up = np.maximum(up, renyi_gaussian(alpha=a, mu1=x, s1=r * x, mu2=xn, s2=r * xn))
        down = np.maximum(down, renyi_gaussian(alpha=a, mu1=xn, s1=r * xn, mu2=x, s2=r * x))
    return up, down


# ---------------------------------------------------------------- Algorithm 1 (numerical)
@dataclass(frozen=True)
class _Grid:
    """Resolution of the numerical Rényi divergence (doubling both is the convergence test)."""

    nw: int = 600      # linear nodes of the w-integral around x (plus nw // 3 geometric per sign)
    ny: int = 800      # linear nodes of the y-integral (plus ny // 4 geometric per sign near 0)


def _trapezoid_weights(t: np.ndarray) -> np.ndarray:
    w = np.empty_like(t)
    d = np.diff(t)
    w[0], w[-1] = d[0] / 2, d[-1] / 2
    w[1:-1] = (d[:-1] + d[1:]) / 2
    return w


def _hybrid_grid(lo: float, hi: float, n_lin: int, n_geo: int, tiny: float, near: float) -> np.ndarray:
    """Sorted nodes: a linear grid on [lo, hi] plus geometric nodes ±[tiny, near] accumulating at 0
    (where the integrands of Algorithm 1 are singular); 0 itself is excluded."""
    lin = np.linspace(lo, hi, n_lin)
    geo = np.geomspace(tiny, near, n_geo)
    pts = np.concatenate([lin, geo, -geo])
    pts = pts[(pts >= lo) & (pts <= hi) & (pts != 0.0)]
    return np.unique(pts)


def _z_nodes(r: float, nz: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and log trapezoid weights × φ(z) for Z ~ N(0,1) on [−12, 12]: linear, plus geometric
    nodes around z* = −1/r (where U = 1 + rZ = 0 and the conditional law of Y collapses to 0), so
    that the density near its singular point y = 0 is resolved. z* itself is excluded."""
    lin = np.linspace(-12.0, 12.0, nz)
    nodes = [lin]
    zstar = -1.0 / r
    if zstar > -12.0:
        du = r * (lin[1] - lin[0]) * 4                      # a few linear steps, in u units
        off = np.geomspace(1e-13, du, max(nz // 4, 20)) / r
        nodes += [zstar + off, zstar - off]
    z = np.unique(np.concatenate(nodes))
    z = z[(z >= -12.0) & (z <= 12.0) & (1.0 + r * z != 0.0)]
    return z, np.log(_trapezoid_weights(z)) - 0.5 * z**2 - 0.5 * np.log(2 * np.pi)


def _lse_rows(y: np.ndarray, base: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """log Σ_j exp(base_j − ((y − mean_j)/scale_j)²/2) for every y (chunked)."""
    out = np.empty(y.shape)
    flat, res = y.reshape(-1), out.reshape(-1)
    step = max(1, 3_000_000 // base.size)
    for s0 in range(0, flat.size, step):
        res[s0:s0 + step] = logsumexp(base - 0.5 * ((flat[s0:s0 + step, None] - mean) / scale) ** 2, axis=1)
    return out


_MIN_NODES_PER_BUMP = 8
_MAX_NODES = 20_000


def _density_plan(xs, sigma: float, r: float, nw: int) -> tuple[str, int]:
    """Pick the quadrature representation ('z' or 'x') and node count for a set of group sizes.

    Bump width / node spacing with ``nw`` nodes: conditioning on Z resolves σ/(x r) in z over
    [−12, 12]; conditioning on X resolves r(x − 14σ) in t over x ± 14σ. The same plan is used for
    every density of one divergence, so quadrature errors are alike in f and g (mixing the two
    representations for x and x + 1 gave spurious divergences)."""
    xs = np.abs(np.asarray(xs, dtype=float))
    big = max(float(xs.max()), sigma)
    ratio_z = (sigma / (big * r)) / (24.0 / nw)
    lo_t = float(xs.min()) - 14.0 * sigma
    ratio_x = (r * lo_t) / (28.0 * sigma / nw) if lo_t > 0 else 0.0
    rep, ratio = ("x", ratio_x) if ratio_x > ratio_z else ("z", ratio_z)
    n = int(min(_MAX_NODES, max(nw, nw * _MIN_NODES_PER_BUMP / max(ratio, 1e-300))))
    return rep, n


def log_density_algorithm1(y, *, x: float, sigma: float, r: float, nw: int = 600,
                           plan: tuple[str, int] | None = None) -> np.ndarray:
    r"""log f_Y(y) for Algorithm 1 (Y = X·U, X ~ N(x, σ²), U = 1 + rZ ~ N(1, r²)), by one of two
    exact representations:

    * condition on Z (:math:`u = 1 + rz`): :math:`f_Y(y) = \int\varphi(z)\,N(y;\,xu,\,\sigma^2u^2)\,dz`.
      At fixed y the integrand is a bump of width ≈ σ/(x r) in z — fine for small x or small r.
      Nodes are refined geometrically around z* = −1/r, where f_Y has its (integrable)
      log-singularity at y = 0;
    * condition on X: :math:`f_Y(y) = \int f_X(t)\,N(y;\,t,\,r^2t^2)\,dt` over x ± 14σ — the bump
      is f_X itself (width σ) and N(y; t, r²t²) is smooth in t when x ≫ σ.

    ``plan`` = (representation, nodes) from :func:`_density_plan` (default: chosen for this x alone,
    with at least 8 nodes across the narrowest bump). Trapezoid rule in log-space (log-sum-exp)."""
    y = np.asarray(y, dtype=float)
    rep, n = plan if plan is not None else _density_plan([x], sigma, r, nw)
    if rep == "x":
        t = np.linspace(x - 14.0 * sigma, x + 14.0 * sigma, n)
        t = t[t != 0.0]
        base = (np.log(_trapezoid_weights(t)) - 0.5 * ((t - x) / sigma) ** 2 - np.log(sigma * np.sqrt(2 * np.pi))
                - np.log(r * np.abs(t)) - 0.5 * np.log(2 * np.pi))
        return _lse_rows(y, base, t, r * np.abs(t))
    z, logw = _z_nodes(r, n)
    u = 1.0 + r * z
    scale = sigma * np.abs(u)
    return _lse_rows(y, logw - np.log(scale) - 0.5 * np.log(2 * np.pi), x * u, scale)


def _divergences_on_grid(logs: dict, a: np.ndarray, logwy: np.ndarray, x: float):
    """(up, down) maxima over the neighbours from log-densities on a common y-grid."""
    up = np.full(a.shape, -np.inf)
    down = np.full(a.shape, -np.inf)
    # normalise each density to mass 1 on the grid: the quadrature's mass error would otherwise be
    # amplified by 1/(α − 1) for α near 1
    logs = {v: lv - logsumexp(lv + logwy) for v, lv in logs.items()}
    lf = logs[x]
    for xn, lg in logs.items():
        if xn == x:
            continue
        u = logsumexp(a[:, None] * lf + (1 - a[:, None]) * lg + logwy, axis=1) / (a - 1.0)
        d = logsumexp(a[:, None] * lg + (1 - a[:, None]) * lf + logwy, axis=1) / (a - 1.0)
        up, down = np.maximum(up, u), np.maximum(down, d)
    return up, down


def renyi_algorithm1(*, x: float, rho: float, r: float, alpha, nw: int = 600,
                     ny: int = 800) -> tuple[np.ndarray, np.ndarray]:
    r"""Algorithm 1, both directions, maximised over neighbours x ± 1 — computed numerically:

    .. math:: D_\alpha(f\|g) = \frac1{\alpha-1}\log\int f(y)^\alpha g(y)^{1-\alpha}\,dy

    with the densities of :func:`log_density_algorithm1` on a y-grid (linear over the bulk,
    geometric towards the singular point 0), trapezoid weights and log-sum-exp. The y-range widens
    until the integrand at both ends is e^{-35} below its peak for every α. ``nw``/``ny`` set the
    resolution; doubling them changes the result by < 1 % (tested)."""
    x = float(_counts(x, "x")[0])
    sigma = sigma_from_rho(rho)
    r = check_real("r", r, lo=0.0, lo_open=True, hi=10.0, what=" (relative error)")
    a = _alphas(alpha)
    nw = check_int("nw", nw, lo=50, hi=50_000)
    ny = check_int("ny", ny, lo=50, hi=50_000)
    xs = [x] + _neighbours(x)
    sd = np.sqrt(sigma**2 * (1 + r**2) + r**2 * (x + 1) ** 2)
    half = 30.0 * sd + 1.0          # Y = X·U has heavier-than-Gaussian tails
    for _ in range(8):
        lo, hi = x - half, x + half
        h = (hi - lo) / ny
        y = _hybrid_grid(lo, hi, ny, ny // 4, 1e-12 * max(1.0, abs(x)), h)
        logwy = np.log(_trapezoid_weights(y))
        plan = _density_plan(xs, sigma, r, nw)
        logs = {v: log_density_algorithm1(y, x=v, sigma=sigma, r=r, plan=plan) for v in xs}
        ends_ok = True
        for v in xs[1:]:
            for p, q in ((logs[x], logs[v]), (logs[v], logs[x])):
                t = a[:, None] * p + (1 - a[:, None]) * q
                if np.any(np.maximum(t[:, 0], t[:, -1]) > t.max(axis=1) - 35.0):
                    ends_ok = False
        if ends_ok:
            break
        half *= 1.6
    return _divergences_on_grid(logs, a, logwy, x)


def renyi_monte_carlo_algorithm1(*, x: float, xn: float, rho: float, r: float, alpha,
                                 samples: int = 200_000,
                                 rng: np.random.Generator | int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo estimate of D_α(M(x)‖M(xn)) for Algorithm 1: draws Y' from the mechanism at
    ``xn`` and averages (f/f')^α; returns (estimate, standard error of the inner mean's log)."""
    x = float(_counts(x, "x")[0])
    xn = float(_counts(xn, "xn")[0])
    sigma = sigma_from_rho(rho)
    a = _alphas(alpha)
    samples = check_int("samples", samples, lo=100, hi=10_000_000)
    Y = release([xn], rho=rho, r=r, algorithm=1, trials=samples, rng=rng)[:, 0]
    plan = _density_plan([x, xn], sigma, r, 600)
    lr = (log_density_algorithm1(Y, x=x, sigma=sigma, r=r, plan=plan)
          - log_density_algorithm1(Y, x=xn, sigma=sigma, r=r, plan=plan))
    t = a[:, None] * lr[None, :]
    m = logsumexp(t, axis=1) - np.log(samples)
    w = np.exp(t - m[:, None])                              # ratio / mean, mean 1
    se_log = w.std(axis=1) / np.sqrt(samples)                # delta method: SE of log-mean
    return m / (a - 1.0), se_log / (a - 1.0)


# ---------------------------------------------------------------- curves and claim check
@dataclass(frozen=True)
class RenyiCurves:
    """D_α in both directions against the reference line for one group."""

    alpha: np.ndarray
    up: np.ndarray        # max over ± of D_α(M(x) ‖ M(x±1))
    down: np.ndarray      # max over ± of D_α(M(x±1) ‖ M(x))
    claimed: np.ndarray   # α v + ξ (Algorithm 2's claim) or α ρ (Algorithm 1, post-processing)
    algorithm: int
    x: float

    @property
    def violated(self) -> np.ndarray:
        """True where either direction exceeds the claim (tolerance 1e-9 relative)."""
        tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(self.claimed), self.claimed, 0)))
        return (self.up > self.claimed + tol) | (self.down > self.claimed + tol)


def renyi_curves(*, algorithm: int, x: float, rho: float, r: float, alpha) -> RenyiCurves:
    """Both directions and the reference line: Algorithm 2 vs the paper's ``α v + ξ``;
    Algorithm 1 vs ``α ρ`` (valid by post-processing of the Gaussian mechanism)."""
    algorithm = check_int("algorithm", algorithm, lo=1, hi=2, what=" (1 or 2)")
    a = _alphas(alpha)
    xv = float(_counts(x, "x")[0])
    if algorithm == 2:
        check_real("rho", rho, lo=0.0, lo_open=True, what=" (zCDP level)")
        up, down = renyi_algorithm2(x=xv, r=r, alpha=a)
        v, xi = claimed_budget([xv], r=r)
        with np.errstate(invalid="ignore"):
            claimed = a * v[0] + xi[0]
    else:
        up, down = renyi_algorithm1(x=xv, rho=rho, r=r, alpha=a)
        claimed = a * check_real("rho", rho, lo=0.0, lo_open=True)
    return RenyiCurves(alpha=a, up=up, down=down, claimed=claimed, algorithm=algorithm, x=xv)


def check_claim(curves: RenyiCurves) -> dict:
    """Where the claim fails: the smallest violating α per direction (None if it holds on the
    grid), and whether any direction is infinite. For Algorithm 2 the exact threshold of the
    infinite reverse direction (neighbour x+1) is ``α* = (x+1)²/(2x+1)``."""
    tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(curves.claimed), curves.claimed, 0)))
    res = {}
    for name, vals in (("up", curves.up), ("down", curves.down)):
        bad = vals > curves.claimed + tol
        res[f"first_violation_{name}"] = float(curves.alpha[bad][0]) if bad.any() else None
        res[f"infinite_{name}"] = bool(np.isinf(vals).any())
    res["holds"] = res["first_violation_up"] is None and res["first_violation_down"] is None
    if curves.algorithm == 2 and curves.x > 0:
        res["alpha_infinite_threshold"] = (curves.x + 1) ** 2 / (2 * curves.x + 1)
    return res


def zipf_counts(*, k: int, total: int, s: float = 1.0) -> np.ndarray:
    """k group counts with Zipf shares ∝ 1/rank^s, rounded to integers summing to ``total``."""
    k = check_int("k", k, lo=1, hi=10_000, what=" (number of groups)")
    total = check_int("total", total, lo=0, hi=10**12, what=" (total people)")
    s = check_real("s", s, lo=0.0, hi=10.0, what=" (Zipf exponent)")
    w = 1.0 / np.arange(1, k + 1) ** s
    raw = total * w / w.sum()
    base = np.floor(raw)
    rest = int(total - base.sum())
    base[np.argsort(-(raw - base))[:rest]] += 1                # largest remainders
    return base


def divergence_vs_size(*, sizes, alphas, rho: float, r: float, algorithm: int = 1,
                       nw: int = 600, ny: int = 800) -> "pd.DataFrame":
    """Worst-direction loss ``max(up, down)`` at each group size and order α (tidy DataFrame with
    columns size, alpha, up, down, loss, reference), plus ``attrs["non_increasing"]``: for each α,
    whether the loss is non-increasing in the size over the given sizes (tolerance 1e-9 relative
    plus the numerical accuracy 1e-3 relative for Algorithm 1) — the open question, answered
    numerically for these parameters."""
    import pandas as pd

    sizes = np.unique(_counts(sizes, "sizes"))
    a = _alphas(alphas)
    algorithm = check_int("algorithm", algorithm, lo=1, hi=2, what=" (1 or 2)")
    rows = []
    for x in sizes:
        if algorithm == 1:
            up, down = renyi_algorithm1(x=x, rho=rho, r=r, alpha=a, nw=nw, ny=ny)
            ref = a * rho
        else:
            up, down = renyi_algorithm2(x=x, r=r, alpha=a)
            v, xi = claimed_budget([x], r=r)
            ref = a * v[0] + xi[0]
        for j, al in enumerate(a):
            rows.append({"size": float(x), "alpha": float(al), "up": up[j], "down": down[j],
                         "loss": max(up[j], down[j]), "reference": ref[j]})
    df = pd.DataFrame(rows)
    mono = loss_monotonicity(df, rel_tol=1e-3 if algorithm == 1 else 1e-9)
    df.attrs["non_increasing"] = {a_: m["non_increasing"] for a_, m in mono.items()}
    df.attrs["non_increasing_from"] = {a_: m["from"] for a_, m in mono.items()}
    return df


def loss_monotonicity(df: "pd.DataFrame", *, rel_tol: float = 1e-3) -> dict:
    """For each α in a (size, alpha, loss) table: whether the loss is non-increasing in the size
    (a rise counts only above ``rel_tol`` relative, the numerical accuracy), the first rise
    (size before, size after) and the smallest size from which it never rises again
    (None if it rises at the last step)."""
    rel_tol = check_real("rel_tol", rel_tol, lo=0.0, hi=1.0)
    out = {}
    for al, g in df.groupby("alpha"):
        g = g.sort_values("size")
        vals, xs = g["loss"].to_numpy(dtype=float), g["size"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            rises = np.diff(vals) > rel_tol * np.abs(vals[:-1]) + 1e-12
        rises |= ~np.isfinite(vals[1:]) & np.isfinite(vals[:-1])
        idx = np.flatnonzero(rises)
        out[float(al)] = {
            "non_increasing": idx.size == 0,
            "first_rise": None if idx.size == 0 else (float(xs[idx[0]]), float(xs[idx[0] + 1])),
            "from": float(xs[0]) if idx.size == 0 else (
                float(xs[idx[-1] + 1]) if idx[-1] + 1 < xs.size - 1 else None),
        }
    return out


def group_summary(counts, *, rho: float, r: float, algorithm: int, alpha_max: float = 20.0) -> "pd.DataFrame":
    """Per group, in plain terms: the accuracy bound, the promise and what the group actually gets.

    Algorithm 2: promise ``α v + ξ`` (paper); actual = worst direction over neighbours x ± 1;
    "holds up to α" = the largest grid α ≤ ``alpha_max`` before the first violation.
    Algorithm 1: promise ``α ρ`` (post-processing); actual computed numerically at α = 2.
    """
    import pandas as pd

    x = _counts(counts)
    alpha_max = check_real("alpha_max", alpha_max, lo=1.0, lo_open=True, hi=MAX_ALPHA)
    grid = np.linspace(1.0 + 1e-3, alpha_max, 200)
    acc = accuracy_bound(x, rho=rho, r=r, algorithm=algorithm)
    rows = []
    for i, xi_ in enumerate(x):
        if algorithm == 2:
            c = renyi_curves(algorithm=2, x=xi_, rho=rho, r=r, alpha=grid)
            bad = c.violated
            holds_to = float(grid[np.argmax(bad)] if bad.any() else grid[-1])
            rows.append({"group": i + 1, "count": xi_, "accuracy bound E|err|": acc[i],
                         "promised at α=2": float(np.interp(2.0, grid, c.claimed)),
                         "actual at α=2": float(np.interp(2.0, grid, np.maximum(c.up, c.down))),
                         "claim holds for α <": f"{holds_to:.4g}" if bad.any() else f"all α ≤ {alpha_max:g}",
                         "infinite loss from α =": float(grid[np.isinf(np.maximum(c.up, c.down))][0])
                         if np.isinf(np.maximum(c.up, c.down)).any() else np.nan})
        else:
            up, down = renyi_algorithm1(x=xi_, rho=rho, r=r, alpha=np.array([2.0]))
            rows.append({"group": i + 1, "count": xi_, "accuracy bound E|err|": acc[i],
                         "promised at α=2": 2 * rho, "actual at α=2": float(max(up[0], down[0])),
                         "claim holds for α <": "all α (post-processing)", "infinite loss from α =": np.nan})
    return pd.DataFrame(rows)


def release_summary(counts, *, rho: float, r: float, algorithm: int, trials: int,
                    rng: np.random.Generator | int | None = None) -> "pd.DataFrame":
    """Simulated releases per group: mean, 2.5/97.5 % quantiles, E|error| and the accuracy bound."""
    import pandas as pd

    x = _counts(counts)
    Y = release(x, rho=rho, r=r, algorithm=algorithm, trials=trials, rng=rng)
    q025, q975 = np.quantile(Y, [0.025, 0.975], axis=0)
    return pd.DataFrame({"group": np.arange(1, x.size + 1), "count": x, "mean": Y.mean(axis=0),
                         "q025": q025, "q975": q975, "mean_abs_error": np.abs(Y - x).mean(axis=0),
                         "bound": accuracy_bound(x, rho=rho, r=r, algorithm=algorithm)})
