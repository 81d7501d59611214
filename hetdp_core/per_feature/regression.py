r"""Private least squares with BCDP — Algorithm 2 of the BCDP paper.

User data ``x = [z; l] ∈ [-1,1]^d`` with the label last. Each user sends two independent copies
``M_mean(x, c/2)`` (Mechanism 1, unprojected so that each copy is unbiased); the server minimises

.. math:: \hat f(\theta) = \frac1{2n}\sum_i \big(\theta^\top \hat z^{1}_i \hat z^{2\top}_i\theta
          - 2\theta^\top \hat l^{1}_i \hat z^{2}_i\big) = \tfrac12\theta^\top \hat A\theta - \hat b^\top\theta

over the ℓ2 ball Θ of radius R by projected gradient descent. Because the two copies are
independent, ``E[Â] = (1/n) Σ z zᵀ`` and ``E[b̂] = (1/n) Σ l z``: the gradient ``Âθ − b̂`` is
unbiased. The naive single-copy plug-in uses ``ẑ ẑᵀ`` instead, whose mean carries the channel's
noise covariance on the diagonal — a bias that does not vanish with n. ``Â`` (symmetrised) need
not be positive semi-definite for small n: f̂ is then non-convex, and the run stops with a message.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..framework._validate import InputError, as_generator, check_choice
from ..per_iteration import dpsgd
from .bcdp import privacy_allocation
from .duchi import spawn
from .mmean import mmean_release

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SCHEDULES",
    "pgd_rates",
    "regression_data",
    "risk",
    "ball_lstsq",
    "private_quadratic",
    "pgd",
    "RegressionRun",
    "fit",
    "excess_risk_sweep",
    "load_regression_csv",
    "randhie_regression",
    "randhie_regression_bytes",
]

from .._deprecated import moved
from ..framework._doc import document
from ..framework.constraints import POSITIVE, SIGNED_UNIT, UNIT, Interval
from ..materials.uploads import REGRESSION_LIMITS as _LIMITS  # noqa: E402  (one definition of the upload limits)

__getattr__ = moved(__name__, {"learning_rates": "hetdp_core.per_feature.regression:pgd_rates"})

MAX_CSV_ROWS = _LIMITS.max_rows
MAX_CSV_COLS = _LIMITS.max_cols

SCHEDULES = ("constant", "poly", "inverse")
METHODS = ("Algorithm 2 (two copies)", "naive single copy", "min-δ LDP (two copies)")


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_STEPS = Interval(int, 1, 1_000_000)
_N = Interval(int, 2, 2_000_000)
_THETA = Interval(float, -10, 10)
_NOISE = Interval(float, 0.0, 10.0)
_DEMANDS = Interval(float, 0.0, None, closed="right", allow_inf=True)
_RADIUS = Interval(float, 0.0, 1e3, closed="right")
_TRIALS = Interval(int, 1, 10_000)
_N_VALUES = Interval(int, 2, 2_000_000)


def pgd_rates(*, schedule: str, gamma0: float, steps: int, rho: float = 0.5, decay: float = 0.1) -> np.ndarray:
    """The step sizes :func:`pgd` takes (its ``rates``, in units of 1/L: it divides them by the smoothness
    L): γ_h for h = 0..steps−1, constant γ0, ``poly`` γ0 (1+h)^{−ρ} or ``inverse`` γ0/(1 + λh) — the
    learning-rate schedules of :func:`hetdp_core.per_iteration.dpsgd.learning_rates` that the regression page offers,
    at most 1 000 000 steps."""
    schedule = check_choice("schedule", schedule, SCHEDULES)
    steps = _STEPS.check("steps", steps, what=" (gradient steps)")
    return dpsgd.learning_rates(schedule=schedule, steps=steps, gamma0=gamma0, rho=rho, decay=decay)


def regression_data(
    *, n: int, theta, noise: float = 0.1, q: float = 0.0, rng: np.random.Generator | int | None = None
) -> np.ndarray:
    """n users ``[z; l]`` in [-1,1]^d with d = len(theta) + 1: features uniform on [-1,1], with
    probability q all features of a user equal one common draw (correlation between features);
    label ``l = clip(θᵀz + noise·N(0,1), −1, 1)``."""
    n = _N.check("n", n, what=" (number of users)")
    theta = _THETA.check_vector("theta", theta, max_length=30, what=" (true coefficients)")
    noise = _NOISE.check("noise", noise, what=" (label noise sd)")
    q = UNIT.check("q", q, what=" (feature correlation)")
    rng = as_generator(rng)
    k = theta.size
    z = rng.uniform(-1, 1, size=(n, k))
    common = rng.uniform(-1, 1, size=(n, 1))
    z = np.where(rng.random((n, 1)) < q, common, z)
    label = np.clip(z @ theta + noise * rng.standard_normal(n), -1.0, 1.0)
    return np.column_stack([z, label])


def feature_correlation(*, theta, noise: float, q: float, grid: int = 4001) -> np.ndarray:
    r"""The correlation of Assumption 1 that :func:`regression_data` actually has, per feature i:
    q_i = sup_{a, a'} TV(π(x_{−i} | z_i = a), π(x_{−i} | z_i = a')), where x_{−i} is the other features
    *and the label*.

    Given z_i = a, with probability q every other feature equals a (a point mass on a line,
    disjoint for a ≠ a'), else they are independent uniforms and the label is clip(θ_i a + S + σN),
    S = Σ_{j≠i} θ_j z_j. Hence, for at least two features, q_i = q + (1 − q) E_S[TV_i(S)], and for one
    feature q_1 = TV_1(0). For two clipped normals with means m₁ < m₂ and sd σ, the set where the
    first is likelier is [−1, c) with c = clip((m₁ + m₂)/2, −1, 1), so TV = Φ((c − m₁)/σ) − Φ((c − m₂)/σ)
    exactly (σ = 0: 1 if the clipped means differ). E_S is an integral against the density of S,
    a convolution of uniform densities computed on a grid of ``grid`` points (error ≈ 1e−6).

    The supremum over (a, a') is attained at a = −1, a' = 1: for each S the laws of x_{−i} given
    z_i = a are stochastically ordered in θ_i a (clipping is monotone) and the set where one of two
    of them is likelier is an interval [c, 1] or [−1, c), so for nested pairs a ≤ b ≤ b' ≤ a'
    TV(a, a') ≥ P_{a'}(A) − P_a(A) ≥ P_{b'}(A) − P_b(A) = TV(b, b') with A the optimal set of
    (b, b'); the mixture over S keeps the order. (The code once took the maximum over all 210
    pairs of a 21-point grid; it was always this pair, bit for bit, in 188 checked settings.)"""
    theta = _THETA.check_vector("theta", theta, max_length=30, what=" (true coefficients)")
    noise = _NOISE.check("noise", noise, what=" (label noise sd)")
    q = UNIT.check("q", q, what=" (feature correlation)")
    k = theta.size
    out = np.empty(k)
    for i in range(k):
        s_grid, w = _others_density(theta, i, grid)
        best = _pair_tv(theta[i], -1.0, 1.0, s_grid, w, noise)  # the widest pair a = −1, a' = 1
        out[i] = q + (1 - q) * best if k >= 2 else best
    return np.clip(out, 0.0, 1.0)


def _others_density(theta: np.ndarray, i: int, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """The law of S = Σ_{j≠i} θ_j U_j (U_j uniform on [−1, 1]) on ``grid`` points: (points, weights),
    a convolution of uniform densities; one point at 0 when no other coefficient is above 1e-150
    (a smaller one is 0 here: its box density 1/(2θ) overflows)."""
    others = np.abs(np.delete(theta, i))
    others = others[others > 1e-150]
    half = float(others.sum())
    if half <= 0:
        return np.zeros(1), np.ones(1)
    s_grid = np.linspace(-half, half, grid)
    h = s_grid[1] - s_grid[0]
    dens = None
    for t in others:  # density of Σ θ_j U_j by convolution
        if 2 * t < h:  # narrower than a grid step (it held no grid point, and the weights became 0/0): a point mass
            near = (np.abs(s_grid) <= h / 2).astype(float)
            box = near / (near.sum() * h)
        else:
            box = (np.abs(s_grid) <= t).astype(float) / (2 * t)
        dens = box if dens is None else np.convolve(dens, box, mode="same") * h
    w = dens * h
    w /= w.sum()
    return s_grid, w


def _pair_tv(theta_i: float, a: float, b: float, s_grid, w, noise: float) -> float:
    """E_S[TV] between the labels' laws given z_i = a and z_i = b: clipped normals with means
    θ_i a + S and θ_i b + S and sd σ (σ = 0: 1 where the clipped means differ); at least 0."""
    from scipy.special import ndtr

    m1, m2 = theta_i * a + s_grid, theta_i * b + s_grid
    lo_m, hi_m = np.minimum(m1, m2), np.maximum(m1, m2)
    if noise > 0:
        c = np.clip((lo_m + hi_m) / 2, -1.0, 1.0)
        with np.errstate(over="ignore"):  # a subnormal σ: the ratios are ±∞ and Φ of them 0 or 1, as they should
            tv = ndtr((c - lo_m) / noise) - ndtr((c - hi_m) / noise)
    else:
        tv = (np.clip(lo_m, -1, 1) != np.clip(hi_m, -1, 1)).astype(float)
    return max(0.0, float(np.sum(w * tv)))


def risk(theta, x) -> float:
    """Empirical risk f(θ) = (1/2n) Σ (θᵀz − l)² on non-private data x = [z; l]."""
    x = np.asarray(x, dtype=float)
    z, label = x[:, :-1], x[:, -1]
    return float(0.5 * np.mean((z @ np.asarray(theta) - label) ** 2))


def ball_lstsq(A, b, *, radius: float) -> np.ndarray:
    r"""Exact minimiser of ½θᵀAθ − bᵀθ over ‖θ‖ ≤ R for a symmetric positive semi-definite A
    (eigen-decomposition; on the boundary, the multiplier λ solves ‖(A + λI)^{-1} b‖ = R)."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    radius = POSITIVE.check("radius", radius, what=" (radius of Θ)")
    w, V = np.linalg.eigh((A + A.T) / 2)
    if w.min() < -1e-10 * max(1.0, abs(w).max()):
        raise InputError(f"ball_lstsq needs a positive semi-definite matrix; got a negative eigenvalue {w.min():.3g}.")
    w = np.clip(w, 0.0, None)
    beta = V.T @ b

    def norm_at(lam):
        return np.linalg.norm(beta / (w + lam))

    with np.errstate(divide="ignore", invalid="ignore"):
        inside = w.min() > 1e-12 and norm_at(0.0) <= radius
    if inside:
        return V @ (beta / w)
    lo = 1e-15
    if norm_at(lo) <= radius:
        # singular A with b in its range (e.g. perfectly correlated features, q = 1): the minimisers
        # form an affine set whose least-norm point, the λ → 0 limit, lies inside the ball
        keep = w > 1e-12 * max(1.0, w.max())  # pseudo-inverse: drop the null space
        return V @ np.where(keep, beta / np.where(keep, w, 1.0), 0.0)
    hi = 1.0
    while norm_at(hi) > radius:
        hi *= 2.0
    # scipy.optimize (0.4 s) is imported where it is used: importing the page modules stays cheap (a menu does)
    from scipy.optimize import brentq

    lam = brentq(lambda t: norm_at(t) - radius, 1e-15, hi, xtol=1e-14)
    return V @ (beta / (w + lam))


def private_quadratic(copy1: np.ndarray, copy2: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(Â, b̂) of f̂ from per-user releases (n, d): two copies → (1/n)Σ ẑ¹ẑ²ᵀ (symmetrised),
    (1/n)Σ l̂¹ẑ²; ``copy2=None`` → the naive single-copy plug-in (1/n)Σ ẑẑᵀ, (1/n)Σ l̂ẑ."""
    c2 = copy1 if copy2 is None else copy2
    z1, l1, z2 = copy1[..., :-1], copy1[..., -1], c2[..., :-1]
    n = copy1.shape[-2]
    A = np.einsum("...ni,...nj->...ij", z1, z2) / n
    A = (A + np.swapaxes(A, -1, -2)) / 2
    b = np.einsum("...n,...ni->...i", l1, z2) / n
    return A, b


def pgd(A, b, *, radius: float, rates: np.ndarray, theta0=None) -> np.ndarray:
    """Projected gradient descent on ½θᵀAθ − bᵀθ over the ball, with steps relative to the
    smoothness L = λ_max(A): θ ← Π(θ − (γ_h / L)(Aθ − b)). (L is computed from the released data,
    so this is post-processing; γ_h < 2 keeps a constant schedule stable.) Returns the trajectory,
    shape (steps + 1, p)."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    L = max(float(np.linalg.eigvalsh((A + A.T) / 2).max()), 1e-12)
    theta = np.zeros(b.size) if theta0 is None else np.asarray(theta0, dtype=float)
    traj = np.empty((rates.size + 1, b.size))
    traj[0] = theta
    radius = POSITIVE.check("radius", radius, what=" (radius of Θ)")
    for h, g in enumerate(rates):
        theta = theta - (g / L) * (A @ theta - b)
        # mmean.project's ball projection inlined (same arithmetic, without its validation at every step)
        norm = math.sqrt(float(np.add.reduce(theta * theta)))
        if norm > radius:
            theta = theta * (radius / norm)
        traj[h + 1] = theta
    return traj


@dataclass(frozen=True)
class RegressionRun:
    """One private fit: trajectory, final θ̂, excess risk and the convexity diagnosis."""

    method: str
    theta: np.ndarray | None
    trajectory: np.ndarray | None
    excess_risk: float
    min_eig: float
    convex: bool
    message: str


def _releases(x, c_half, trials, rng, copies):
    """``copies`` independent per-user M_mean releases at c/2 (sorted order handled here)."""
    alloc_order, c_sorted = c_half
    xs = x[:, alloc_order]
    out = []
    for g in spawn(rng, copies):
        rel = mmean_release(xs, c_sorted=c_sorted, trials=trials, rng=g)
        back = np.empty_like(rel)
        back[..., alloc_order] = rel  # back to the user's order
        out.append(back)
    return out


def _one_run(method: str, A: np.ndarray, b: np.ndarray, x: np.ndarray, *, radius, rates, f_star) -> RegressionRun:
    """Projected gradient descent on one privatised quadratic, or a stop when f̂ is not convex."""
    w_min = float(np.linalg.eigvalsh(A).min())
    if w_min < 0:
        return RegressionRun(
            method,
            None,
            None,
            float("nan"),
            w_min,
            False,
            f"f̂ is not convex for n = {x.shape[0]} (smallest eigenvalue of Â is {w_min:.3g} < 0): stopped. "
            "More users make Â concentrate on the positive semi-definite (1/n) Σ z zᵀ.",
        )
    traj = pgd(A, b, radius=radius, rates=rates)
    return RegressionRun(method, traj[-1], traj, risk(traj[-1], x) - f_star, w_min, True, "ok")


def fit(
    *,
    x,
    demands,
    eps: float,
    q: float,
    radius: float = 1.0,
    schedule: str = "constant",
    gamma0: float = 0.5,
    steps: int = 200,
    rho: float = 0.5,
    decay: float = 0.1,
    trials: int = 1,
    rng: np.random.Generator | int | None = None,
) -> dict:
    """Algorithm 2, the naive single-copy plug-in and min-δ LDP (two copies of the whole vector at
    min δ / 2), ``trials`` independent privatisations each, on data x (n × d, label last).

    The label is the last coordinate and should carry the largest demand (it is exempt from
    Assumption 1 in the theory). Excess risk is ``f(θ̂) − f*`` on the non-private data. Returns
    ``{method: [RegressionRun per trial]}`` plus ``"_reference"`` (θ*, f*) and ``"_allocation"``.
    """
    x = SIGNED_UNIT.check_matrix("x", x, what=" (users × [features, label] in [-1,1])")
    n, d = x.shape
    if d < 2:
        raise InputError(f"x must have at least one feature and a label (d >= 2); got d = {d}.")
    demands = _DEMANDS.check_vector("demands", demands, length=d, what=" (per-coordinate demands, label last)")
    radius = _RADIUS.check("radius", radius, what=" (radius R of Θ)")
    trials = _TRIALS.check("trials", trials, what=" (repetitions)")
    if trials * n * d * d > 50_000_000:
        raise InputError(
            f"compute size: trials × n × d² = {trials * n * d * d:.3g} exceeds 5e7. Reduce trials, n or d."
        )
    rates = pgd_rates(schedule=schedule, gamma0=gamma0, steps=steps, rho=rho, decay=decay)
    rng = as_generator(rng)
    alloc = privacy_allocation(demands=demands, eps=eps, q=q)
    z, label = x[:, :-1], x[:, -1]
    A_true, b_true = z.T @ z / n, z.T @ label / n
    theta_star = ball_lstsq(A_true, b_true, radius=radius)
    f_star = risk(theta_star, x)
    g_main, g_naive, g_ldp = spawn(rng, 3)
    low = float(alloc.capped_demands.min())
    plans = {
        METHODS[0]: _releases(x, (alloc.order, alloc.c_sorted / 2), trials, g_main, 2),
        METHODS[1]: _releases(x, (alloc.order, alloc.c_sorted), trials, g_naive, 1),
        METHODS[2]: _releases(x, (np.arange(d), np.full(d, low / 2)), trials, g_ldp, 2),
    }
    out: dict[str, list[RegressionRun]] = {}
    for method, rel in plans.items():
        A, b = private_quadratic(rel[0], rel[1] if len(rel) == 2 else None)
        out[method] = [
            _one_run(method, A[t], b[t], x, radius=radius, rates=rates, f_star=f_star) for t in range(trials)
        ]
    out["_reference"] = [
        RegressionRun(
            "reference", theta_star, None, 0.0, float(np.linalg.eigvalsh(A_true).min()), True, f"f* = {f_star:.6g}"
        )
    ]
    out["_allocation"] = alloc
    return out


def load_regression_csv(data: bytes) -> np.ndarray:
    """Parse an uploaded CSV (untrusted): header row, numeric columns only, label in the last
    column; at most 20 MB, 1 000 000 rows, 21 columns (20 features + label); rows with missing
    values are refused (not silently dropped). Every column is rescaled to [-1, 1] by its min and
    max (a constant column becomes 0). Returns the (n, d) array."""

    import pandas as pd

    from ..materials.uploads import REGRESSION_LIMITS, check_csv_bytes, read_csv

    check_csv_bytes(data, REGRESSION_LIMITS, what="the uploaded CSV")  # before the parser reads the body
    df = read_csv(data, max_rows=MAX_CSV_ROWS, too_many="Use a sample.")
    if df.shape[1] < 2 or df.shape[1] > MAX_CSV_COLS:
        raise InputError(
            f"the CSV needs 2 to {MAX_CSV_COLS} columns (features, then the label last); got {df.shape[1]}."
        )
    if len(df) < 10:
        raise InputError(f"the CSV needs at least 10 rows (users); got {len(df)}.")
    bad = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise InputError(f"column {bad[0]!r} is not numeric. Every column must hold numbers.")
    arr = df.to_numpy(dtype=float)
    if not np.all(np.isfinite(arr)):
        r, c = np.argwhere(~np.isfinite(arr))[0]
        raise InputError(f"row {r + 1}, column {df.columns[c]!r} is missing or not finite. Fill or remove it.")
    lo, hi = arr.min(axis=0), arr.max(axis=0)
    # halves first: hi − lo overflows for finite values near ±1.8e308 (they were then reported as NaN)
    span = np.where(hi > lo, hi / 2 - lo / 2, 1.0)
    return np.where(hi > lo, np.clip((arr / 2 - lo / 2) / span, 0.0, 1.0) * 2 - 1, 0.0)


def randhie_regression_bytes(path) -> bytes:
    """The bundled RAND HIE regression table as CSV bytes (age, chronic_diseases, income) — the
    same parser as uploads then rescales it."""
    import pandas as pd

    return pd.read_csv(path)[["age", "chronic_diseases", "income"]].to_csv(index=False).encode()


def randhie_regression(path) -> np.ndarray:
    """Bundled RAND HIE persons as a regression problem: features (age, chronic-disease index),
    label income last; every column rescaled to [-1, 1] by its min and max (data/README.md)."""
    return load_regression_csv(randhie_regression_bytes(path))


def excess_risk_sweep(
    *,
    axis: str,
    values,
    n: int,
    theta,
    noise: float,
    q: float,
    k_sensitive: int,
    demand: float,
    eps: float,
    trials: int = 10,
    seed: int = 0,
    progress=None,
    x=None,
    **descent,
) -> pd.DataFrame:
    """Excess risk vs n or vs ε (``axis``) for the three methods: tidy table with median, q25, q75,
    the number of non-convex (stopped) runs, per point; ``reason`` says why a point has no value
    (NaN quantiles, null in JSON) and is None otherwise. Demands: the first ``k_sensitive`` features
    at ``demand``, the other features and the label at ε. Data are drawn once per point from
    :func:`regression_data` with a seed derived from (seed, value) — or, when ``x`` (users ×
    [features, label] in [-1,1]) is given, taken from it (axis n: a random subsample of n users).
    ``descent``: the projected gradient descent's settings (``radius``, ``schedule``, ``gamma0``,
    ``steps``, ``rho``, ``decay``), passed on to :func:`fit` (its defaults when left out)."""
    import pandas as pd

    from .bcdp_sim import point_rng

    axis = check_choice("axis", axis, ("n", "eps"))
    values = POSITIVE.check_vector("values", values, min_length=1, max_length=30)
    if x is not None:
        x = SIGNED_UNIT.check_matrix("x", x, what=" (users × [features, label])")
        theta = np.zeros(x.shape[1] - 1)
    theta = _THETA.check_vector("theta", theta, max_length=30)
    k_sensitive = Interval(int, 0, theta.size).check("k_sensitive", k_sensitive)
    rows = []
    for j, v in enumerate(values):
        if progress:
            progress(j / values.size, f"{axis} = {v:g}")
        nn = _N_VALUES.check("n values", v) if axis == "n" else n
        ee = float(v) if axis == "eps" else eps
        rng = point_rng(seed, float(v))
        g_data, g_fit = spawn(rng, 2)
        if x is None:
            xx = regression_data(n=nn, theta=theta, noise=noise, q=q, rng=g_data)
        else:
            xx = x if nn >= x.shape[0] else x[g_data.choice(x.shape[0], size=nn, replace=False)]
        dem = [demand] * k_sensitive + [ee] * (theta.size - k_sensitive) + [ee]
        res = fit(x=xx, demands=dem, eps=ee, q=q, trials=trials, rng=g_fit, **descent)
        for method in METHODS:
            ex = np.array([r.excess_risk for r in res[method]])
            ok = ex[np.isfinite(ex)]
            q25, med, q75 = np.quantile(ok, [0.25, 0.5, 0.75]) if ok.size else (np.nan,) * 3
            reason = (
                None
                if ok.size
                else (
                    f"no value: all {ex.size} runs stopped because the server's objective f̂ was not convex "
                    "(Â indefinite); use more users n or larger privacy levels"
                )
            )
            rows.append(
                {
                    axis: float(v),
                    "method": method,
                    "median": med,
                    "q25": q25,
                    "q75": q75,
                    "nonconvex": int((~np.isfinite(ex)).sum()),
                    "runs": ex.size,
                    "n": xx.shape[0],
                    "reason": reason,
                }
            )
    if progress:
        progress(1.0, "done")
    return pd.DataFrame(rows)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
