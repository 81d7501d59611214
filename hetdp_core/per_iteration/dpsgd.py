r"""DP-SGD with learning-rate and privacy schedules (MAT 4376, Theorems 36–37).

Offline SGD with batch size 1 and Laplace noise: release h (h = 1, 2, …) is

.. math:: \beta^{(h)} = \beta^{(h-1)} - \gamma_{h-1}\big(\nabla L_{\Omega_h}(\beta^{(h-1)}) + \theta_h Z_h\big),

with Z_h i.i.d. standard Laplace vectors and (Theorem 36, exact sums — not the asymptotic form)

.. math:: \theta_1 = \frac{\Delta}{\varepsilon},\qquad
          \theta_h = \frac1{a_h}\Big(\frac{\sum_{j=0}^{h-2}\gamma_j}{\gamma_{h-1}} + 1\Big)\frac{\Delta}{\varepsilon},

so that release h is ε a_h-DP. Theorem 37 bounds the excess risk by A1 + A2 + A3 (11):
A1 = ‖β0 − β*‖²/Σγ_j, A2 = C Σγ_j²/Σγ_j, A3 = C Σγ_j²θ_j²/Σγ_j (we pair γ_{h−1} with θ_h and set
C = 1: shapes). With γ_h = (1+h)^{−ρ} and a_h = h^κ, A3 ≈ N^{2−ρ−2κ}: it vanishes iff 2κ + ρ > 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..framework._doc import document
from ..framework._validate import MIN_EPS, InputError, as_generator, check_choice
from ..framework.constraints import COUNT, NONNEGATIVE, POSITIVE, Interval

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "trajectory_bands",
    "reference_optimum",
    "LR_SCHEDULES",
    "learning_rates",
    "privacy_schedule",
    "theta",
    "bound_terms",
    "fitted_slope",
    "RIDGE_RADIUS",
    "gradient_sensitivity",
    "theta_checks",
    "checked_sensitivity",
    "example33_data",
    "example34_data",
    "simulate",
    "simulate_methods",
    "MethodRuns",
    "region",
]

LR_SCHEDULES = ("constant", "poly", "step", "custom")
#: Every schedule :func:`learning_rates` knows (``inverse`` is used by the private regression page).
ALL_SCHEDULES = LR_SCHEDULES + ("inverse",)


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_STEPS = Interval(int, 1, 10_000_000)
_GAMMA0 = Interval(float, 0.0, 1e6, closed="right")
_FACTOR = Interval(float, 0.0, 1.0, closed="right")
_KAPPA = Interval(float, 0.0, 10.0)
_EPS = Interval(float, MIN_EPS, 1e3)
_RADIUS = Interval(float, 0.0, 1e6, closed="right")
_N = Interval(int, 1, 10_000_000)
_N_2 = Interval(int, 2, 10_000_000)
_TRIALS = Interval(int, 1, 10_000)
_RHO = Interval(float, 0.0, 1.0, closed="right")
_DECAY = Interval(float, 0.0, 1e6, closed="right")
_LAMBDA = Interval(float, 0.0, 1e6, closed="right")


def learning_rates(
    *,
    schedule: str,
    steps: int,
    gamma0: float = 1.0,
    rho: float = 0.5,
    step_every: int = 100,
    factor: float = 0.5,
    custom=None,
    decay: float = 0.1,
) -> np.ndarray:
    """γ_h, h = 0..steps−1: constant γ0; ``poly`` γ0 (1+h)^{−ρ} (ρ ∈ (0, 1]); ``step``
    γ0 factor^{⌊h/step_every⌋}; ``custom`` a list (repeated from its last value if shorter than
    ``steps``); ``inverse`` γ0/(1 + λh) with λ = ``decay``.

    Names: ``decay`` is a learning-rate decay rate; ``lam`` elsewhere in this module is the ridge
    penalty of Example 34."""
    schedule = check_choice("schedule", schedule, ALL_SCHEDULES)
    steps = _STEPS.check("steps", steps, what=" (number of iterations N)")
    h = np.arange(steps, dtype=float)
    if schedule == "custom":
        vals = POSITIVE.check_vector("custom", custom, max_length=100_000, what=" (learning rates)")
        return np.concatenate([vals, np.full(max(0, steps - vals.size), vals[-1])])[:steps]
    gamma0 = _GAMMA0.check("gamma0", gamma0, what=" (initial learning rate)")
    if schedule == "constant":
        return np.full(steps, gamma0)
    if schedule == "poly":
        rho = _RHO.check("rho", rho, what=" (decay exponent ρ in (0, 1])")
        return gamma0 * (1.0 + h) ** (-rho)
    if schedule == "inverse":
        decay = _DECAY.check("decay", decay, what=" (decay rate λ)")
        return gamma0 / (1.0 + decay * h)
    step_every = COUNT.check("step_every", step_every, what=" (steps between decays)")
    factor = _FACTOR.check("factor", factor, what=" (decay factor)")
    return gamma0 * factor ** np.floor(h / step_every)


def privacy_schedule(*, kind: str, steps: int, kappa: float = 0.0) -> np.ndarray:
    """a_h for h = 1..steps: ``constant`` 1, ``power`` h^κ (κ ≥ 0)."""
    kind = check_choice("kind", kind, ("constant", "power"))
    steps = _STEPS.check("steps", steps)
    if kind == "constant":
        return np.ones(steps)
    kappa = _KAPPA.check("kappa", kappa, what=" (privacy-schedule exponent κ ≥ 0)")
    return np.arange(1, steps + 1, dtype=float) ** kappa


def theta(*, gammas, a, sensitivity: float, eps: float) -> np.ndarray:
    """θ_h for h = 1..N from Theorem 36 with exact partial sums (gammas = γ_0..γ_{N−1}, a = a_1..a_N)."""
    g = POSITIVE.check_vector(
        "learning rates γ_h",
        gammas,
        max_length=10_000_000,
        what=" (they must stay positive: raise the decay factor or shorten N)",
    )
    a = POSITIVE.check_vector("a", a, length=g.size, what=" (privacy schedule a_h > 0)")
    sens = POSITIVE.check("sensitivity", sensitivity, what=" (gradient sensitivity Δ)")
    eps = _EPS.check("eps", eps, what=" (privacy level ε)")
    prefix = np.concatenate([[0.0], np.cumsum(g)])  # prefix[k] = Σ_{j<k} γ_j
    out = np.empty(g.size)
    out[0] = sens / eps  # θ_1 = Δ/ε
    h = np.arange(2, g.size + 1)
    out[1:] = (prefix[h - 1] / g[h - 1] + 1.0) * sens / eps / a[1:]
    return out


def theta_checks(*, thetas, a, sensitivity: float, eps: float) -> list:
    """θ_1 = Δ/ε exactly, and every θ_h ≥ Δ/(ε a_h): no release is less noisy than a single
    (ε a_h)-DP Laplace step (Theorem 36's θ_h adds the accumulated learning-rate ratio on top)."""
    from ..framework.checks import check_le

    th = np.asarray(thetas, dtype=float)
    av = np.asarray(a, dtype=float)
    ins = {"sensitivity": sensitivity, "eps": eps}
    single = sensitivity / (eps * av)
    return [
        check_le("θ_h ≥ Δ/(ε a_h) for every release h", single, th, labels=lambda h: f"h = {h + 1}", inputs=ins),
        check_le("θ_1 ≤ Δ/ε (first release is exactly ε a_1-DP)", th[:1], single[:1], inputs=ins),
    ]


def bound_terms(*, gammas, thetas, dist0: float = 1.0, C: float = 1.0) -> pd.DataFrame:
    """A1, A2, A3 of (11) for every N = 1..len(gammas) (C = 1 unless given: shapes)."""
    import pandas as pd

    g = POSITIVE.check_vector("learning rates γ_h", gammas, max_length=10_000_000)
    th = NONNEGATIVE.check_vector("noise scales θ_h", thetas, length=g.size)
    dist0 = NONNEGATIVE.check("dist0", dist0, what=" (‖β0 − β*‖²)")
    C = NONNEGATIVE.check("C", C)
    S1 = np.cumsum(g)
    return pd.DataFrame(
        {
            "N": np.arange(1, g.size + 1),
            "A1": dist0 / S1,
            "A2": C * np.cumsum(g**2) / S1,
            "A3": C * np.cumsum(g**2 * th**2) / S1,
        }
    )


def fitted_slope(N, values, *, start_fraction: float = 0.5) -> float:
    """Least-squares slope of log(values) against log(N) for N ≥ N_min^{1−f} N_max^{f}
    (f = ``start_fraction``: 0.5 fits the upper half of the log range, where asymptotics apply)."""
    N = np.asarray(N, dtype=float)
    v = np.asarray(values, dtype=float)
    keep = (N >= N.max() ** start_fraction * N.min() ** (1 - start_fraction)) & (v > 0) & np.isfinite(v)
    if keep.sum() < 3:
        raise InputError("fitted_slope needs at least 3 positive values in the fitting range.")
    return float(np.polyfit(np.log(N[keep]), np.log(v[keep]), 1)[0])


#: Example 34: β is kept in [−R, R]² (projection after every step) so that gradients are bounded.
RIDGE_RADIUS = 5.0


def gradient_sensitivity(*, problem: str, Lambda: float | None = None, radius: float = RIDGE_RADIUS) -> float:
    r"""ℓ1 sensitivity Δ of one per-example gradient — what θ_h must be calibrated with.

    * ``mean`` (Example 33, L(β, x) = (x − β)², x ∈ [0, Λ]): ∇L = −2(x − β), so for two data
      points |∇L(β, x) − ∇L(β, x')| = 2|x − x'| ≤ **2Λ**, whatever β.
    * ``ridge`` (Example 34, L = ½(u − β0 − β1 v)² + λβ1²/2, (u, v) ∈ [−1, 1]², β ∈ [−R, R]²):
      with residual e = u − β0 − β1 v, |e| ≤ 1 + R + R, ∇L = (−e, −v e + λβ1); the λβ1 term is the
      same for both points and cancels, so the ℓ1 difference is ≤ |e − e'| + |v e − v' e'|
      ≤ 2(1 + 2R) + 2(1 + 2R) = **4(1 + 2R)** (= 44 for R = 5). This is a proven upper bound, not
      the tightest one (the worst pair found numerically differs by 22 for R = 5): the release is
      private, with some extra noise.

    Laplace noise with scale θ_h = (...)Δ/ε on each coordinate (Theorem 36) is private only with
    this Δ; the lecture's examples leave it implicit."""
    problem = check_choice("problem", problem, ("mean", "ridge"))
    if problem == "mean":
        Lambda = _LAMBDA.check("Lambda", Lambda, what=" (clipping level Λ)")
        return 2.0 * Lambda
    radius = _RADIUS.check("radius", radius, what=" (β is kept in [−R, R]²)")
    return 4.0 * (1.0 + 2.0 * radius)


def checked_sensitivity(*, problem: str, Lambda: float | None = None, override: float | None = None) -> float:
    """The sensitivity to calibrate with: the example's own (:func:`gradient_sensitivity`), or an
    explicit ``override`` that is at least as large (a larger Δ only adds noise). A smaller
    override would not be private and is refused."""
    own = gradient_sensitivity(problem=problem, Lambda=Lambda)
    if override is None:
        return own
    override = POSITIVE.check("sensitivity", override, what=" (gradient sensitivity Δ)")
    if override < own * (1 - 1e-12):
        raise InputError(
            f"sensitivity {override:g} is below the gradient sensitivity {own:g} of the {problem} "
            f"example; the release would not be private. Leave it at 0 (uses {own:g}) "
            "or give a value >= it."
        )
    return override


def example33_data(*, n: int, Lambda: float, rng=None) -> np.ndarray:
    """Example 33: Exp(1) data clipped to [0, Λ] (so the gradient −2(x − β) has sensitivity 2Λ)."""
    n = _N.check("n", n)
    Lambda = POSITIVE.check("Lambda", Lambda, what=" (clipping level Λ)")
    return np.minimum(as_generator(rng).exponential(1.0, n), Lambda)


def example34_data(*, n: int, slope: float = 0.5, intercept: float = 0.2, noise: float = 0.2, rng=None) -> np.ndarray:
    """Example 34: pairs (u, v) in [-1, 1]², u = β0 + β1 v + noise (clipped), v uniform."""
    n = _N_2.check("n", n)
    rng = as_generator(rng)
    v = rng.uniform(-1, 1, n)
    u = np.clip(intercept + slope * v + noise * rng.standard_normal(n), -1, 1)
    return np.column_stack([u, v])


def _grad(problem, beta, x, lam):
    """Per-run gradients: beta (R, p), x (R, …) one data point per run."""
    if problem == "mean":
        return -2.0 * (x - beta[:, 0])[:, None]
    u, v = x[:, 0], x[:, 1]
    r = u - beta[:, 0] - beta[:, 1] * v
    return np.column_stack([-r, -v * r + lam * beta[:, 1]])


def simulate(
    *,
    problem: str,
    data,
    gammas,
    thetas,
    trials: int = 50,
    method: str = "dpsgd",
    lam: float = 0.1,
    radius: float = RIDGE_RADIUS,
    rng=None,
) -> np.ndarray:
    """Trajectories β^(0..N) of ``trials`` independent runs, shape (trials, N + 1, p).

    ``method``: ``dpsgd`` (Laplace noise θ_h Z_h), ``sgd`` (no noise), ``gd`` (full gradient).
    ``problem``: ``mean`` (Example 33, L_i = (x_i − β)²) or ``ridge`` (Example 34,
    L_i = ½(u_i − β0 − β1 v_i)² + λβ1²/2; β kept in [−R, R]² so the gradient sensitivity is bounded).
    """
    return simulate_methods(
        problem=problem,
        data=data,
        gammas=gammas,
        methods=[MethodRuns(method=method, thetas=thetas, trials=trials, rng=rng)],
        lam=lam,
        radius=radius,
    )[0]


@dataclass(frozen=True)
class MethodRuns:
    """One method's share of :func:`simulate_methods`: its kind (``dpsgd``, ``sgd``, ``gd``), noise
    scales θ_h, number of independent runs and its own generator."""

    method: str
    thetas: np.ndarray | list[float]
    trials: int
    rng: np.random.Generator | int | None


def simulate_methods(
    *, problem: str, data, gammas, methods, lam: float = 0.1, radius: float = RIDGE_RADIUS, progress=None
) -> list[np.ndarray]:
    """:func:`simulate` for several methods on the same data and learning rates at once: one
    trajectory array (trials, N + 1, p) per :class:`MethodRuns`, each the same numbers as its own
    :func:`simulate` call (each method draws from its own generator, in the same order; every
    operation is elementwise, so stacking the methods' runs changes no sum). One Python loop over the
    N steps serves every method: the loop, not the arithmetic, is most of a step's cost.
    ``progress(fraction, label)``, when given, is called at every twentieth of the steps."""
    problem = check_choice("problem", problem, ("mean", "ridge"))
    x = np.asarray(data, dtype=float)
    g = POSITIVE.check_vector("learning rates γ_h", gammas, max_length=1_000_000)
    methods = list(methods)
    if not methods:
        raise InputError("methods must name at least one method to simulate: pass one MethodRuns per method.")
    plans = []
    for r in methods:
        method = check_choice("method", r.method, ("dpsgd", "sgd", "gd"))
        th = NONNEGATIVE.check_vector("noise scales θ_h", r.thetas, length=g.size)
        k = _TRIALS.check("trials", r.trials, what=" (independent runs)")
        if k * g.size > 20_000_000:
            raise InputError(f"compute size: trials × steps = {k * g.size:.3g} exceeds 2e7. Reduce trials or steps.")
        plans.append((method, th, k, as_generator(r.rng)))
    radius = POSITIVE.check("radius", radius)
    p = 1 if problem == "mean" else 2
    total = sum(k for _, _, k, _ in plans)
    traj = np.empty((total, g.size + 1, p))
    traj[:, 0] = 0.0
    # a step size above the stability limit (mean: γ ≥ 1) makes the iterates grow geometrically; they
    # overflow to ±inf/NaN, which the caller reports as divergence (no warnings on the way)
    with np.errstate(over="ignore", invalid="ignore"):
        _run_steps(problem, x, g, plans, lam, radius, traj, progress)
    if len(plans) == 1:
        return [traj]
    edges = np.cumsum([0] + [k for _, _, k, _ in plans])
    return [traj[edges[i] : edges[i + 1]].copy() for i in range(len(plans))]


def _run_steps(problem, x, g, plans, lam, radius, traj, progress=None) -> None:
    """The N steps of every method's runs, stacked (rows of ``traj``): the sampled methods' gradients
    at one data point per run, the full gradient for ``gd``, Laplace noise θ_h Z_h added to the
    ``dpsgd`` rows, then the step and (ridge) the clip to [−R, R]²."""
    n = x.shape[0]
    p = traj.shape[2]
    rows, start = [], 0  # (method, θ, its rows of traj, its generator)
    for method, th, k, rng in plans:
        rows.append((method, th, slice(start, start + k), rng))
        start += k
    # each sampled method's data points, one row of indices per step: a noiseless method's come in blocks
    # of steps (a generator fills a block with the numbers its step-by-step draws give: nothing else
    # draws from it in between); a noisy one's step by step, each before that step's noise
    sampled = [
        (sl, _index_rows(rng, n, sl.stop - sl.start, g.size, blocked=method == "sgd"))
        for method, _, sl, rng in rows
        if method != "gd"
    ]
    full = [sl for method, _, sl, _ in rows if method == "gd"]
    noisy = [(th, sl, rng) for method, th, sl, rng in rows if method == "dpsgd"]
    pick = np.zeros((start,) + x.shape[1:])
    if problem == "mean":
        for sl in full:
            pick[sl] = x.mean()  # GD's gradient −2(x̄ − β) is the sampled one at the point x̄
    else:
        u_all, v_all = x[:, 0][None, :], x[:, 1][None, :]
    beta = traj[:, 0]
    every = max(1, g.size // 20) if progress is not None else g.size + 1
    for h in range(1, g.size + 1):
        if h % every == 0:
            progress(h / g.size, f"step {h:,} of {g.size:,}")
        for sl, idx in sampled:
            pick[sl] = x[next(idx)]
        grad = _grad(problem, beta, pick, lam)
        if problem == "ridge":
            for sl in full:
                b = beta[sl]
                r = u_all - b[:, :1] - b[:, 1:] * v_all
                grad[sl] = np.column_stack([-r.mean(1), -(v_all * r).mean(1) + lam * b[:, 1]])
        for th, sl, rng in noisy:
            grad[sl] = grad[sl] + th[h - 1] * rng.laplace(0.0, 1.0, (sl.stop - sl.start, p))
        beta = beta - g[h - 1] * grad
        if problem == "ridge":
            beta = np.clip(beta, -radius, radius)
        traj[:, h] = beta


def _index_rows(rng, n: int, k: int, steps: int, *, blocked: bool):
    """The data points of ``k`` runs, one array of indices in [0, n) per step, drawn from ``rng`` at
    each step (``blocked=False``) or ahead in blocks of about 2¹⁸ indices (the same numbers)."""
    if not blocked:
        for _ in range(steps):
            yield rng.integers(0, n, k)
        return
    per = max(1, 2**18 // k)
    for s in range(0, steps, per):
        yield from rng.integers(0, n, (min(per, steps - s), k))


def region(rho, kappa) -> np.ndarray:
    """True where the privacy term A3 vanishes: 2κ + ρ > 2."""
    return 2 * np.asarray(kappa, dtype=float) + np.asarray(rho, dtype=float) > 2


def reference_optimum(*, problem: str, data, lam: float = 0.1) -> np.ndarray:
    """β*: the sample mean (Example 33) or the ridge estimator of eq. (8) (Example 34)."""
    problem = check_choice("problem", problem, ("mean", "ridge"))
    x = np.asarray(data, dtype=float)
    if problem == "mean":
        return np.array([x.mean()])
    u, v = x[:, 0], x[:, 1]
    b1 = np.mean((v - v.mean()) * (u - u.mean())) / (np.var(v) + NONNEGATIVE.check("lam", lam))
    return np.array([u.mean() - b1 * v.mean(), b1])


def distances(traj, target) -> np.ndarray:
    """‖β^(h) − β*‖ per run and step, shape (runs, N+1), scaled so that diverging iterates
    (|β| up to 1e308) do not overflow in the squares; overflowed iterates (±inf/NaN) give inf."""
    d = np.abs(np.asarray(traj, dtype=float) - np.asarray(target, dtype=float))
    d = np.where(np.isnan(d), np.inf, d)
    m = d.max(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = m * np.sqrt(np.sum((d / np.where(m > 0, m, 1.0)[..., None]) ** 2, axis=2))
    return np.where(np.isinf(m), np.inf, out)


#: An iterate this far from β* (relative to the start) counts as diverged in the notes.
DIVERGED = 1e6


def trajectory_bands(traj: np.ndarray, target, *, points: int = 200) -> pd.DataFrame:
    """Median and 10/90 % quantiles over runs of ‖β^(h) − β*‖ at ≤ ``points`` log-spaced steps h."""
    import pandas as pd

    traj = np.asarray(traj, dtype=float)
    err = distances(traj, target)  # (runs, N+1)
    N = err.shape[1] - 1
    hs = np.unique(np.r_[0, np.geomspace(1, max(N, 1), points).round().astype(int)])
    with np.errstate(invalid="ignore"):  # inf − inf between diverged runs
        q10, q50, q90 = np.quantile(err[:, hs], [0.1, 0.5, 0.9], axis=0)
    q10, q50, q90 = (np.where(np.isnan(v), np.inf, v) for v in (q10, q50, q90))
    return pd.DataFrame({"h": hs, "median": q50, "q10": q10, "q90": q90})


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
