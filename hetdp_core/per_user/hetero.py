r"""Per-user privacy: heterogeneous DP for frequencies (HPF) and means (HPM), central model.

n users, public demands ε ∈ (0, ∞]^n (∞ = public), data x_i ∈ {0..k−1} (frequency) or [0, 1]
(mean). Weights w on the simplex; κ = 2 (frequency) or 1 (mean); the release adds Laplace noise of
scale ``b = κ max_i w_i/ε_i`` to ``Σ w_i e_{x_i}`` (projected onto the simplex) or to ``Σ w_i x_i``
(clipped to [0, 1]). User i actually gets ``ε_i^eff = κ w_i / b ≤ ε_i``.

Weight objectives (u = 1/n, a = w − u, T = ½‖a‖₁, E2 = ‖a‖₂, s = max_i w_i/ε_i, K = k or 1,
H_K = Σ_{j≤K} 1/j, S_K = Σ_{j≤K} 1/j²):

* CP: T + κ s log(K/β);   CE: (T + κ H_K s)² + κ² S_K s²;
* UP: the better of CP and E2 √(log(4K/β)/2) + κ s log(2K/β);
* UE: the better of CE and E2²(1 + log 2K) + 2κ² s² (H_K² + S_K);
* A: ¼ E2² + 2κ² s²;   CT / UT: CP / UP with T replaced by its bound (√n/2) E2.

**Structure.** Every objective is minimised on the family w(t)_i = min(t ε_i, μ(t)), Σw = 1,
from proportional (t = 1/Σε) to uniform (t = 1/(n ε_min)) weights (verified against cvxpy in the
tests). On it s(t) = t and T(t) = Σ_i (1/n − t ε_i)₊ (saturated users have w = μ ≥ 1/n), and
between consecutive breakpoints — saturation points 1/G_k and the kinks 1/(n ε_i) — a(t) is affine,
so each objective is convex on each piece. It is also convex in t as a whole: w(t) minimises both
T and E2 over the weights with max_i w_i/ε_i ≤ t, a set convex jointly in (w, t), so T(t) and E2(t)
are convex, and each objective is a non-decreasing convex function of them plus a convex function
of s. :func:`fast_weights` sorts the demands once (prefix sums), locates the minimum by bisection on
the slope's sign (O(log n) per step), then evaluates the breakpoints around it and bisects the
derivative inside the piece that holds it: an exact search costing about two sorts of the demands.
:func:`cvxpy_weights` solves the same convex programs directly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, check_choice
from ..framework.constraints import NONNEGATIVE, POSITIVE, UNIT, Interval
from ..noise.rr import rr_channel, rr_estimate, rr_variance

if TYPE_CHECKING:
    import pandas as pd

from .objectives import (
    _BINS,
    _EPS_BY_BIN,
    _HIGHS,
    _K_2,
    _K_3,
    _LOWS,
    _N,
    _SIZE,
    _TRIALS,
    ALGORITHMS,
    BASELINES,
    MAX_USERS,
    PROBLEMS,
    VARIANTS,
    WEIGHTED,
    Weights,
    check_bins,
    check_demands,
    eps_effective,
    kappa_of,
    noise_scale,
    objective_value,
    weight_checks,
)
from .solver import baseline_weights, cvxpy_weights, fast_weights, weights

__all__ = [
    "PROBLEMS",
    "VARIANTS",
    "BASELINES",
    "ALGORITHMS",
    "WEIGHTED",
    "check_bins",
    "check_demands",
    "kappa_of",
    "noise_scale",
    "eps_effective",
    "objective_value",
    "Weights",
    "weight_checks",
    "fast_weights",
    "cvxpy_weights",
    "weights",
    "baseline_weights",
    "project_simplex",
    "simulate",
    "summarize",
    "synthetic_frequency",
    "synthetic_mean",
    "demand_by_bin",
    "demand_by_groups",
    "load_randhie",
    "parse_data_csv",
    "noisy_histogram",
    "value_bins",
    "bias_bound",
]


# ------------------------------------------------------------------ releases and simulation
def project_simplex(v) -> np.ndarray:
    """Euclidean projection of each row of v onto the probability simplex (sort-based)."""
    v = np.asarray(v, float)
    u = np.sort(v, axis=-1)[..., ::-1]
    css = np.cumsum(u, axis=-1) - 1.0
    idx = np.arange(1, v.shape[-1] + 1)
    cond = u - css / idx > 0
    rho = v.shape[-1] - 1 - np.argmax(cond[..., ::-1], axis=-1)
    theta = np.take_along_axis(css, rho[..., None], axis=-1) / (rho[..., None] + 1)
    return np.maximum(v - theta, 0.0)


def _check_data(x, problem: str, k: int) -> np.ndarray:
    if problem == "frequency":
        x = Interval(float, 0, k - 1).check_vector("x", x, max_length=MAX_USERS, what=f" (bins 0..{k - 1})")
        if np.any(x != np.round(x)):
            raise InputError("x must hold whole bin indices for the frequency problem.")
        return x.astype(np.int64)
    return UNIT.check_vector("x", x, max_length=MAX_USERS, what=" (values in [0, 1])")


def _weighted_stat(x, w, problem, k):
    return np.bincount(x, weights=w, minlength=k) if problem == "frequency" else float(w @ x)


def _ldp_weights(v: np.ndarray) -> np.ndarray:
    """LDP combination: minimise T² + Σ w_i² v_i on the simplex (T = ½‖w − u‖₁, v_i the variance of
    user i's unbiased estimate), solved by cvxpy. If the solver fails, the fallback is the
    inverse-variance weighting w ∝ 1/v (users with v = 0, i.e. public users, share all the weight);
    it is not capped."""
    import cvxpy as cp

    n = v.size
    w = cp.Variable(n, nonneg=True)
    obj = cp.square(0.5 * cp.norm1(w - 1.0 / n)) + cp.sum(cp.multiply(v, cp.square(w)))
    prob = cp.Problem(cp.Minimize(obj), [cp.sum(w) == 1])
    try:
        prob.solve(solver=cp.CLARABEL)
        if w.value is not None and prob.status in ("optimal", "optimal_inaccurate"):
            out = np.clip(np.asarray(w.value, float), 0, None)
            return out / out.sum()
    except (cp.error.SolverError, ArithmeticError, ValueError):
        pass
    inv = np.where(v > 0, 1.0 / np.maximum(v, 1e-300), 1e300)
    return inv / inv.sum()


def noisy_histogram(x, weights_, *, b: float, k: int, size: int = 1, rng=None) -> np.ndarray:
    """HPF release before projection: Σ_i w_i e_{x_i} + Lap(b)^k, shape (size, k)."""
    k = _K_2.check("k", k)
    x = _check_data(x, "frequency", k)
    w = NONNEGATIVE.check_vector("weights", weights_, length=x.size)
    b = NONNEGATIVE.check("b", b, what=" (noise scale)")
    size = _SIZE.check("size", size)
    hist = np.bincount(x, weights=w, minlength=k)
    return hist + (as_generator(rng).laplace(0.0, b, (size, k)) if b > 0 else np.zeros((size, k)))


def bias_bound(w) -> float:
    """T = ½‖w − u‖₁: the worst-case bias of the weighted statistic (frequency: in ℓ∞; mean: absolute)."""
    w = np.asarray(w, float)
    return float(0.5 * np.abs(w - 1.0 / w.size).sum())


@dataclass
class _Run:
    """What every simulated release of :func:`simulate` shares, and where it writes its results."""

    problem: str
    k: int
    trials: int
    rng: np.random.Generator
    perm: Callable
    truth: np.ndarray | float
    errs: np.ndarray
    ests: np.ndarray
    info: dict
    correlated: bool = False  # ``perm`` returns the data itself (no per-trial permutation)


def _simulate_weighted(x, demands, *, run: _Run, algorithm: str, beta: float, solver: str, w, setting: str) -> None:
    """The weighted estimators (the variants, UNI, PROP): every trial's release into ``run``."""
    problem, k, trials, rng, perm, truth = run.problem, run.k, run.trials, run.rng, run.perm, run.truth
    errs, ests, info = run.errs, run.ests, run.info
    wt = w or weights(demands, algorithm=algorithm, problem=problem, k=max(k, 2), beta=beta, solver=solver)
    info.update(b=wt.b, weights=wt.weights, eps_eff=wt.eps_eff, note=wt.note, solver=wt.solver)
    # vectorised over trials, drawing in the same order as one trial after another (the same
    # numbers): correlated — one statistic, then every trial's noise in one call; uncorrelated —
    # each trial's permutation and noise in turn (the statistic per trial is one bincount)
    shape = (trials, k) if problem == "frequency" else (trials,)
    if setting == "correlated":
        stats = np.broadcast_to(_weighted_stat(x, wt.weights, problem, k), shape)
        noise = rng.laplace(0.0, wt.b, shape) if wt.b > 0 else 0.0
    else:
        stats, noise = np.empty(shape), np.zeros(shape)
        for t_ in range(trials):
            stats[t_] = _weighted_stat(perm(t_), wt.weights, problem, k)
            if wt.b > 0:
                noise[t_] = rng.laplace(0.0, wt.b, k) if problem == "frequency" else rng.laplace(0.0, wt.b)
    if problem == "frequency":
        ests[:] = project_simplex(stats + noise) if wt.b > 0 else stats
        errs[:] = np.max(np.abs(ests - truth), axis=1)
    else:
        ests[:] = np.clip(stats + noise, 0.0, 1.0)
        errs[:] = np.abs(ests - truth)


def _simulate_sm(x, demands, *, run: _Run, sm_threshold: str) -> None:
    """The sample mechanism: every trial's release into ``run``."""
    problem, k, trials, rng, perm, truth = run.problem, run.k, run.trials, run.rng, run.perm, run.truth
    errs, ests, info, n = run.errs, run.ests, run.info, x.size
    fin = np.isfinite(demands)
    thr = (np.max(demands[fin]) if fin.any() else np.inf) if sm_threshold == "max_finite" else np.max(demands)
    with np.errstate(over="ignore", invalid="ignore"):
        keep_p = np.where(
            np.isinf(demands),
            1.0,
            np.where(
                np.isinf(thr),
                0.0,
                np.expm1(np.minimum(demands, 700)) / np.expm1(min(thr, 700)) if np.isfinite(thr) else 0.0,
            ),
        )
    keep_p = np.clip(keep_p, 0.0, 1.0)
    info.update(threshold=float(thr), keep_probability=keep_p)
    done = _sm_frequency_batched(x, keep_p, thr, run) if run.correlated and problem == "frequency" else 0
    for t_ in range(done, trials):
        xs = perm(t_)[rng.random(n) < keep_p]
        ns = xs.size
        if ns == 0:
            est = np.full(k, 1.0 / k) if problem == "frequency" else 0.5
        elif problem == "frequency":
            noisy = np.bincount(xs, minlength=k) + (rng.laplace(0.0, 2.0 / thr, k) if np.isfinite(thr) else 0.0)
            est = project_simplex(noisy / ns)
        else:
            est = min(max(xs.mean() + (rng.laplace(0.0, 1.0 / (ns * thr)) if np.isfinite(thr) else 0.0), 0.0), 1.0)
        errs[t_] = np.max(np.abs(est - truth)) if problem == "frequency" else abs(est - truth)
        ests[t_] = est


#: uniforms one batch of the sample mechanism's trials draws at most (32 MB)
_SM_BATCH_DRAWS = 4_000_000


def _laplace_from_uniforms(u: np.ndarray, scale: float) -> np.ndarray:
    """Laplace(0, ``scale``) values from the uniforms numpy's ``Generator.laplace`` would draw them from, as
    it computes them (one double each: ``−scale·log(2 − 2U)`` for U ≥ ½, ``scale·log(2U)`` below, with the C
    library's log, which ``math.log`` is — numpy's vectorised log differs from it in the last bit of 0.3 %
    of values). A uniform of exactly 0 (which numpy would redraw) must not be passed."""
    import math

    return np.array(
        [(0.0 - scale * math.log(2.0 - v - v)) if v >= 0.5 else (0.0 + scale * math.log(v + v)) for v in u.tolist()]
    )


def _sm_frequency_batched(x, keep_p, thr: float, run: _Run) -> int:
    """The sample mechanism's frequency releases with the data in place (the correlated setting), several
    trials at a time, drawing exactly the random numbers the trial-by-trial loop draws, in its order: a
    trial's n keep-or-drop uniforms, then (a finite threshold) its k Laplace draws, one uniform each. The
    counts of kept users per bin are one product of the keep matrix with the bins' indicator matrix (exact:
    0/1 sums below 2²⁴ in float32), not a boolean index per trial. A batch in which a trial keeps nobody (the
    loop then draws no noise) or a Laplace uniform is exactly 0 (numpy redraws it) is drawn again by the loop
    from the same generator state. Returns how many trials it filled (the loop does the rest)."""
    k, trials, rng, truth = run.k, run.trials, run.rng, run.truth
    n = x.size
    lap = bool(np.isfinite(thr))
    m = k if lap else 0
    per = max(1, min(trials, _SM_BATCH_DRAWS // (n + m)))
    bins = np.zeros((n, k), np.float32)
    bins[np.arange(n), x] = 1.0
    done = 0
    while done < trials:
        c = min(per, trials - done)
        state = rng.bit_generator.state
        u = rng.random((c, n + m))
        kept = u[:, :n] < keep_p
        ns = np.count_nonzero(kept, axis=1)
        if (ns == 0).any() or (lap and (u[:, n:] == 0.0).any()):
            rng.bit_generator.state = state  # the loop draws these trials as it always has
            return done
        counts = (kept.view(np.uint8).astype(np.float32) @ bins).astype(np.float64)
        noise = _laplace_from_uniforms(u[:, n:].ravel(), 2.0 / thr).reshape(c, k) if lap else 0.0
        noisy = counts + noise
        for j in range(c):
            est = project_simplex(noisy[j] / ns[j])
            run.errs[done + j] = np.max(np.abs(est - truth))
            run.ests[done + j] = est
        done += c
    return done


def _simulate_ldp(x, demands, *, run: _Run) -> None:
    """The local-DP baseline: every trial's release into ``run``."""
    problem, k, trials, rng, perm, truth = run.problem, run.k, run.trials, run.rng, run.perm, run.truth
    errs, ests, info, n = run.errs, run.ests, run.info, x.size
    if n > 50_000:
        raise InputError(
            f"the LDP baseline solves a cvxpy problem over all users; n = {n} exceeds 50 000. Use fewer users for LDP."
        )
    fin = np.isfinite(demands)
    if problem == "mean":
        v = np.where(fin, 2.0 / np.where(fin, demands, 1.0) ** 2, 0.0)
    else:
        # k-RAPPOR: each bit is randomized response at ε/2 (:mod:`hetdp_core.noise.rr`), flipped with probability
        # f, so the observed bit is Bernoulli with variance f(1 − f) whatever the true bit, and the unbiased
        # (y − f)/(1 − 2f) has variance f(1 − f)/(1 − 2f)². The user's own value is fixed (the target is
        # the empirical frequency), so no sampling variance is added. (An earlier version added 0.25.)
        half = demands / 2  # a public user (ε = ∞) sends the bits as they are: f = 0, no variance
        f = rr_channel(half)[1]
        v = rr_variance(f, eps=half)
    wl = _ldp_weights(v)
    info.update(weights=wl, ldp_variance=v)
    for t_ in range(trials):
        xs = perm(t_)
        if problem == "mean":
            y = xs + np.where(fin, rng.laplace(0.0, 1.0, n) / np.where(fin, demands, 1.0), 0.0)
            est = min(max(float(wl @ y), 0.0), 1.0)
            errs[t_] = abs(est - truth)
            ests[t_] = est
        else:
            onehot = np.zeros((n, k))
            onehot[np.arange(n), xs] = 1.0
            flip = rng.random((n, k)) < f[:, None]
            y = np.where(flip, 1.0 - onehot, onehot)
            unb = rr_estimate(y, eps=half[:, None])
            est = project_simplex(wl @ unb)
            errs[t_] = np.max(np.abs(est - truth))
            ests[t_] = est


def simulate(
    x,
    demands,
    *,
    algorithm: str,
    problem: str,
    k: int = 2,
    beta: float = 0.05,
    trials: int = 200,
    setting: str = "correlated",
    rng=None,
    solver: str = "fast",
    sm_threshold: str = "max_finite",
    w: Weights | None = None,
) -> dict:
    """Errors of ``trials`` independent releases: ‖p̂ − p‖_∞ (frequency) or |μ̂ − x̄| (mean); also
    the released ``estimates`` (trials × k, or trials) and the ``truth`` they estimate.

    ``setting="uncorrelated"`` re-permutes the values against the demands every trial. SM: keep user
    i with probability (e^{ε_i} − 1)/(e^t − 1) (public: 1), then the homogeneous t-DP estimator on the
    sample (noisy counts / sample mean with Laplace noise; the sample size is treated as public);
    ``sm_threshold`` ``max_finite`` (our default) or ``max`` (the paper: max over all users, so one
    public user makes t = ∞ and the others are never sampled). LDP: ε_i-LDP channel per user
    (Laplace(1/ε_i) for means, k-RAPPOR bit flips with probability 1/(1 + e^{ε_i/2})), unbiased per-user
    estimates combined with weights minimising T² + Σ w_i² v_i (cvxpy)."""
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    problem = check_choice("problem", problem, PROBLEMS)
    k = check_bins(problem, k)
    demands = check_demands(demands)
    x = _check_data(x, problem, k)
    if x.size != demands.size:
        raise InputError(f"x and demands must have one entry per user; got {x.size} values and {demands.size} demands.")
    trials = _TRIALS.check("trials", trials, what=" (repetitions)")
    setting = check_choice("setting", setting, ("correlated", "uncorrelated"))
    sm_threshold = check_choice("sm_threshold", sm_threshold, ("max_finite", "max"))
    if trials * x.size > 200_000_000:
        raise InputError(f"compute size: trials × n = {trials * x.size:.3g} exceeds 2e8. Reduce trials or n.")
    rng = as_generator(rng)
    n = x.size
    truth = np.bincount(x, minlength=k) / n if problem == "frequency" else float(x.mean())
    info: dict = {}

    def perm(t_):
        return x if setting == "correlated" else x[rng.permutation(n)]

    errs = np.empty(trials)
    ests = np.empty((trials, k)) if problem == "frequency" else np.empty(trials)
    run = _Run(problem, k, trials, rng, perm, truth, errs, ests, info, correlated=setting == "correlated")
    if algorithm in WEIGHTED:
        _simulate_weighted(x, demands, run=run, algorithm=algorithm, beta=beta, solver=solver, w=w, setting=setting)
    elif algorithm == "SM":
        _simulate_sm(x, demands, run=run, sm_threshold=sm_threshold)
    else:
        _simulate_ldp(x, demands, run=run)
    return {"errors": errs, "info": info, "estimates": ests, "truth": truth}


def summarize(errors, *, beta: float) -> dict:
    """PAC error = (1 − β)-quantile; MSE = mean squared error."""
    e = np.asarray(errors, float)
    return {"pac": float(np.quantile(e, 1 - beta)), "mse": float(np.mean(e**2)), "median": float(np.median(e))}


# ------------------------------------------------------------------ data and demand profiles
def synthetic_frequency(*, n: int, k: int, profile: str = "peaked", rng=None) -> np.ndarray:
    """n values in bins 0..k−1: ``uniform``, ``peaked`` (binomial-like, central bins common) or ``skewed``."""
    n = _N.check("n", n)
    k = _K_3.check("k", k, what=" (number of bins)")
    profile = check_choice("profile", profile, ("uniform", "peaked", "skewed"))
    j = np.arange(k)
    if profile == "uniform":
        p = np.ones(k)
    elif profile == "peaked":
        p = np.exp(-0.5 * ((j - (k - 1) / 2) / max(k / 5, 0.5)) ** 2)
    else:
        p = 1.0 / (1 + j)
    return as_generator(rng).choice(k, size=n, p=p / p.sum())


def synthetic_mean(*, n: int, rng=None) -> np.ndarray:
    """n values in [0, 1] from Beta(2, 5) (a skewed 'income-like' shape)."""
    return as_generator(rng).beta(2.0, 5.0, _N.check("n", n))


def demand_by_bin(x, *, eps_by_bin) -> np.ndarray:
    """Correlated demands: user i gets eps_by_bin[x_i] (e.g. central bins less private)."""
    e = _EPS_BY_BIN.check_vector("eps_by_bin", eps_by_bin, max_length=1000)
    x = np.asarray(x)
    if x.min() < 0 or x.max() >= e.size:
        raise InputError(
            f"eps_by_bin (ε per bin) needs one demand for each of the {int(x.max()) + 1} bins "
            f"(0..{int(x.max())}); got {e.size}. Add or remove entries in the “ε per bin” list."
        )
    return e[x.astype(int)]


def value_bins(x, *, bins: int) -> np.ndarray:
    """Equal-width bins of values in [0, 1] (for demands that depend on the value in the mean problem)."""
    x = UNIT.check_vector("x", x, max_length=MAX_USERS)
    bins = _BINS.check("bins", bins)
    return np.minimum((x * bins).astype(int), bins - 1)


def demand_by_groups(*, n: int, shares, lows, highs, rng=None) -> np.ndarray:
    """Uncorrelated demands: groups with the given shares of users, each with ε log-uniform in
    [low, high] (high = inf makes the group public)."""
    n = _N.check("n", n)
    shares = POSITIVE.check_vector("shares", shares, max_length=50, what=" (share of users per group)")
    lows = _LOWS.check_vector("lows", lows, length=shares.size)
    highs = _HIGHS.check_vector("highs", highs, length=shares.size)
    if abs(shares.sum() - 1) > 1e-6:
        raise InputError(f"shares must sum to 1; they sum to {shares.sum():.6g}. Adjust the group shares.")
    if np.any(highs < lows):
        raise InputError("each group's ε range must have low <= high.")
    rng = as_generator(rng)
    counts = np.floor(shares * n).astype(int)
    counts[np.argmax(shares)] += n - counts.sum()
    out = []
    for c, lo, hi in zip(counts, lows, highs):
        if np.isinf(lo):  # a public group (low = high = inf)
            out.append(np.full(c, np.inf))
        elif np.isinf(hi):
            raise InputError(f"a group's ε range must be finite, or public with low = high = inf; got [{lo:g}, inf].")
        elif hi == lo:
            out.append(np.full(c, lo))
        else:
            out.append(np.exp(rng.uniform(np.log(lo), np.log(hi), c)))
    return rng.permutation(np.concatenate(out))


def load_randhie(path) -> pd.DataFrame:
    """The bundled RAND HIE person file (see data/README.md)."""
    import pandas as pd

    return pd.read_csv(path)


def parse_data_csv(data: bytes, *, column: str | None = None, max_rows: int = 1_000_000) -> tuple[np.ndarray, str]:
    """An uploaded CSV (untrusted): ≤ 20 MB, header row, the chosen (or first) numeric column,
    no missing values. Returns (values, column name)."""

    import pandas as pd

    from ..materials.uploads import PER_USER_LIMITS, check_csv_bytes, read_csv

    check_csv_bytes(data, PER_USER_LIMITS, what="the uploaded CSV")  # before the parser reads the body
    header = [
        h.strip().strip('"')
        for h in bytes(data[: data.find(b"\n") if b"\n" in data else len(data)]).decode("utf-8").split(",")
    ]
    col = column if column is not None else header[0]
    if col not in header:
        raise InputError(f"column {col!r} not found; available: {', '.join(header[:20])}.")
    df = read_csv(data, max_rows=max_rows, usecols=[header.index(col)])
    if len(df) < 2:
        raise InputError("the CSV needs at least 2 rows (users).")
    col = df.columns[0]
    if not pd.api.types.is_numeric_dtype(df[col]):
        raise InputError(f"column {col!r} is not numeric.")
    vals = df[col].to_numpy(dtype=float)
    if not np.all(np.isfinite(vals)):
        raise InputError(
            f"column {col!r} has missing or non-finite values (row {int(np.argmin(np.isfinite(vals))) + 1})."
        )
    return vals, str(col)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
