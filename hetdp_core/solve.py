r"""What privacy do I need for this accuracy? Solvers for three pages.

Feature privacy: given a scenario and a target for the squared error ‖x̂ − x̄‖² of the published
mean *as the page plots it* (with the scenario's projection; the median over simulated releases by
default, or their mean), find the **most private** setting that meets it among the scalings of the
scenario's levels (every demand δ_i and ε multiplied by one factor s; the relative strictness of
the features is kept). No formula gives the projected error, so it is simulated, with common random
numbers (the same seed at every scaling) for the scenario's own data (n users from the q-mixture
prior at q, the scenario's data seed). The error is *not* monotone in s (c_i jumps when c_d crosses
a demand), so the whole allowed range is scanned on a log grid (``GRID_PER_DECADE`` points per
decade, from the strictest scaling up) and the first grid point that meets the target is refined by
bisection against the grid point before it, with more releases per evaluation; the answer is then
checked by a fresh simulation with a new seed, reported with its uncertainty. Dips narrower than
one grid step (a factor 10^{1/8} ≈ 1.33)
can be missed; that is the stated resolution.

Infeasible targets say why: below the error floor (even at the largest accepted levels the Duchi
channel keeps noise), or met already at the strictest scaling tried.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ._doc import document
from ._validate import InputError, check_int, check_real
from .bcdp import privacy_allocation
from .bcdp_sim import point_rng, q_mixture_data

__all__ = [
    "Solution",
    "solve_feature_privacy",
    "STATISTICS",
    "SCALE_RANGE",
    "TARGET_MIN",
    "TARGET_MAX",
    "METRICS",
    "MechanismSolution",
    "solve_mechanisms",
    "PerUserSolution",
    "solve_per_user",
]

#: accepted targets (expected squared error of the published mean)
TARGET_MIN, TARGET_MAX = 1e-6, 1e6

#: scalings s tried: from 1000× stricter to 1000× more relaxed (capped by the largest accepted level)
SCALE_RANGE = (1e-3, 1e3)


@dataclass(frozen=True)
class Solution:
    """The most private scaling that meets the target, its simulated error and the fresh check.

    ``error`` is the statistic (median or mean of ‖x̂ − x̄‖² with the scenario's projection) at the
    answer with the solver's common random numbers; ``error_10pct_more_private`` the same at 0.9×
    the answer; ``check`` / ``check_low`` / ``check_high`` the fresh simulation's statistic and its
    95 % confidence interval (order statistics for the median, ± 1.96 standard errors for the mean)."""

    target: float
    statistic: str
    projection: str
    scale: float
    eps: float
    delta: tuple
    error: float
    error_10pct_more_private: float
    check: float
    check_low: float
    check_high: float
    check_trials: int
    meets_target: bool
    grid_ratio: float
    scenario_query: dict

    def rows(self) -> list[dict]:
        return [dataclasses.asdict(self)]


#: statistics the Feature-privacy solver can target: the plotted median, or the mean
STATISTICS = ("median", "mean")
#: scan resolution of the Feature-privacy solver (grid points per decade of the scaling)
GRID_PER_DECADE = 8
#: simulated releases per evaluation during the scan (common random numbers)
SCAN_TRIALS = 64


def _smallest_meeting(err, target: float, lo: float, hi: float, tol: float) -> float:
    """Smallest s in [lo, hi] with err(s) ≤ target for an error decreasing in s, by bisection on
    log s to ``tol`` (invariant: err(e^a) > target ≥ err(e^b); the caller checks both ends)."""
    a, b = np.log(lo), np.log(hi)
    while b - a > tol:
        m = 0.5 * (a + b)
        if err(float(np.exp(m))) <= target:
            b = m
        else:
            a = m
    return float(np.exp(b))


def _setting(s, scale: float):
    return s.eps * scale, tuple(float(v * scale) for v in s.delta_vector())


def _scale_range(s) -> tuple[float, float]:
    """Scalings whose levels stay inside the page's own ranges (so the answer's link opens)."""
    sp = s.specs()
    dv = s.delta_vector()
    fin = dv[np.isfinite(dv)]
    lo = max(SCALE_RANGE[0], sp["eps"].lo / s.eps, sp["table"].lo / float(fin.min()) if fin.size else 0.0)
    hi = min(SCALE_RANGE[1], sp["eps"].hi / s.eps, sp["table"].hi / float(fin.max()) if fin.size else np.inf)
    return lo, hi


def _errors(s, x, scale: float, *, trials: int, seed) -> np.ndarray:
    """‖x̂ − x̄‖² of ``trials`` releases of Mechanism 1 at ``scale`` × the levels, with the scenario's
    projection and Duchi constant (what the page's sweep simulates)."""
    from .mmean import mmean_estimate

    eps, delta = _setting(s, scale)
    alloc = privacy_allocation(delta=delta, eps=eps, q=s.q, zeta=None if s.zeta_auto else s.zeta)
    xs = x[:, alloc.order]
    est = mmean_estimate(
        xs,
        c_sorted=alloc.c_sorted,
        trials=trials,
        rng=np.random.default_rng(seed),
        projection=s.used_projection,
        scale=s.duchi_scale,
    )
    return np.sum((est - xs.mean(axis=0)) ** 2, axis=1)


def _stat(errors: np.ndarray, statistic: str) -> float:
    return float(np.median(errors) if statistic == "median" else np.mean(errors))


def _interval(values: np.ndarray, quantile: float | None = None) -> tuple[float, float]:
    """95 % confidence interval of the ``quantile`` of ``values`` (binomial order statistics), or,
    with ``quantile`` None, of their mean (± 1.96 standard errors)."""
    from scipy import stats

    e = np.sort(values)
    if quantile is None:
        se = float(e.std(ddof=1) / np.sqrt(e.size))
        return float(e.mean() - 1.96 * se), float(e.mean() + 1.96 * se)
    lo_k = int(stats.binom.ppf(0.025, e.size, quantile))
    hi_k = int(stats.binom.ppf(0.975, e.size, quantile))
    return float(e[max(lo_k - 1, 0)]), float(e[min(hi_k, e.size - 1)])


def solve_feature_privacy(
    s, *, target: float, statistic: str = "median", check_trials: int = 400, trials: int = SCAN_TRIALS
) -> Solution:
    """The most private scaling s of (δ, ε) whose simulated ``statistic`` of ‖x̂ − x̄‖² (with the
    scenario's projection) is ≤ ``target`` — see the module docstring for the scan, the refinement
    and the fresh check with ``check_trials`` releases."""
    target = check_real("target", target, lo=TARGET_MIN, hi=TARGET_MAX, what=" (squared error ‖x̂ − x̄‖²)")
    if statistic not in STATISTICS:
        raise InputError(f"statistic must be one of {', '.join(STATISTICS)}; got {statistic!r}.")
    check_trials = check_int("check_trials", check_trials, lo=10, hi=10_000, what=" (simulated releases)")
    trials = check_int("trials", trials, lo=8, hi=10_000, what=" (simulated releases per scan point)")
    x = q_mixture_data(n=s.n, d=s.delta_vector().size, q=s.q, rng=point_rng(s.seed, float(s.q)))
    lo, hi = _scale_range(s)
    if not lo < hi:
        raise InputError(
            "the scenario's levels leave no room to scale them within the page's ranges; "
            "move ε or the demands away from the ends of their sliders."
        )
    crn = [s.seed, 7877]

    def err(scale: float) -> float:
        return _stat(_errors(s, x, scale, trials=trials, seed=crn), statistic)

    k = int(np.ceil(GRID_PER_DECADE * np.log10(hi / lo))) + 1
    grid = np.geomspace(lo, hi, max(k, 2))
    first = None
    for i, sc in enumerate(grid):
        if err(float(sc)) <= target:
            first = i
            break
    if first is None:
        raise InputError(
            f"target {target:g} is below the smallest error reachable here ({err(hi):.4g} at "
            f"{hi:.4g}× the levels, the largest the page accepts; the local randomizer keeps noise "
            "at any level). Raise the target or add users (n)."
        )
    if first == 0:
        raise InputError(
            f"target {target:g} is met even at {lo:g}× the levels (the strictest the page accepts; "
            f"{statistic} error {err(lo):.4g}); any practical level meets it. Lower the target to see a "
            "trade-off."
        )

    # refine with check_trials releases (same common random numbers): move the bracket's ends along
    # the grid until the lower end fails and the upper end meets at this precision, then bisect
    def fine(scale: float) -> float:
        return _stat(_errors(s, x, scale, trials=check_trials, seed=crn), statistic)

    a, b = first - 1, first
    while b < grid.size - 1 and fine(float(grid[b])) > target:
        b += 1
    while a > 0 and fine(float(grid[a])) <= target:
        a -= 1
    if a == 0 and fine(float(grid[0])) <= target:
        scale = float(grid[0])
    elif fine(float(grid[b])) > target:
        raise InputError(
            f"target {target:g} is below the smallest error reachable here ({fine(hi):.4g} at {hi:.4g}× "
            "the levels, the largest the page accepts). Raise the target or add users (n)."
        )
    else:
        scale = _smallest_meeting(fine, target, float(grid[a]), float(grid[b]), 2e-3)
    err = fine
    eps, delta = _setting(s, scale)
    fresh = _errors(s, x, scale, trials=check_trials, seed=[s.seed, 7919])
    chk = _stat(fresh, statistic)
    c_lo, c_hi = _interval(fresh, 0.5 if statistic == "median" else None)
    query = {**s.to_query(), "mode": "table", "table": ",".join(f"{v:.6g}" for v in delta), "eps": f"{eps:.6g}"}
    type(s).from_query(query)  # the link reopens a valid scenario
    return Solution(
        target,
        statistic,
        s.used_projection,
        scale,
        eps,
        delta,
        err(scale),
        err(scale * 0.9) if scale * 0.9 >= lo else float("nan"),
        chk,
        c_lo,
        c_hi,
        int(fresh.size),
        bool(c_lo <= target),
        float(grid[1] / grid[0]),
        query,
    )


# ------------------------------------------------------------------ mechanism lab
#: accuracy measures of one noisy release: expected squared error, or the 95 % quantile of |error|
METRICS = ("mse", "q95")
_Z95 = 1.959963984540054  # standard normal 97.5 % quantile: P(|N| ≤ z) = 0.95


def _mech_error(mechanism: str, metric: str, *, sensitivity: float, eps: float, delta: float) -> float:
    from . import mechanisms as mc

    if metric == "mse":
        return mc.noise_variance(mechanism, sensitivity=sensitivity, eps=eps, delta=delta)
    if mechanism == "gaussian":
        return _Z95 * mc.gaussian_sigma(sensitivity=sensitivity, eps=eps, delta=delta)
    if mechanism == "mnm":
        kind, scale = mc.mnm_noise(sensitivity=sensitivity, eps=eps, delta=delta)
        return (_Z95 if kind == "gaussian" else np.log(20.0)) * scale
    return np.log(20.0) * mc.laplace_scale(sensitivity=sensitivity, eps=eps)  # P(|Lap(b)| ≤ b ln 20) = 0.95


def _exact_delta(mechanism: str, *, sensitivity: float, eps: float, delta: float) -> tuple[float, float]:
    """(exact δ(ε) of the noise ``mechanism`` draws at (ε, δ), the δ it must meet)."""
    from . import mechanisms as mc

    name = {"laplace": "Laplace", "gaussian": "Gaussian", "mnm": "MNM"}[mechanism]
    row = next(r for r in mc.exact_profiles(sensitivity=sensitivity, eps=eps, delta=delta) if r["mechanism"] == name)
    return row["exact δ(ε)"], row["stated δ"]


@dataclass(frozen=True)
class MechanismSolution:
    mechanism: str
    metric: str
    target: float
    eps: float | None
    error: float | None
    error_10pct_more_private: float | None
    simulated: float | None
    simulated_se: float | None
    reason: str


def solve_mechanisms(s, *, target: float, metric: str = "mse", releases: int = 200_000) -> list[MechanismSolution]:
    """For the mechanism lab's sensitivity Δ and δ: the smallest ε (most private) within the page's
    ε range at which each of Laplace, Gaussian (Theorem 5 calibration, valid for ε < 1) and MNM
    meets ``target`` for ``metric`` (``mse``: noise variance; ``q95``: 95 % quantile of |error|).
    Closed forms are decreasing in ε, so ε is found by bisection; each answer is checked by
    ``releases`` fresh simulated releases (mean squared error ± standard error, or the empirical
    95 % quantile). A mechanism that cannot meet the target in range says why. Before an answer is
    given, the exact privacy profile of the noise drawn at it is checked (exact δ(ε) ≤ δ, or 0 for
    Laplace); a mechanism that fails is not recommended and says so."""
    from . import mechanisms as mc

    target = check_real("target", target, lo=TARGET_MIN, hi=TARGET_MAX, what=" (error of one release)")
    if metric not in METRICS:
        raise InputError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}.")
    sp = s.specs()["eps"]
    out = []
    for k, m in enumerate(mc.MECHANISMS):
        lo, hi = float(sp.lo), float(sp.hi)
        if m == "gaussian":
            hi = min(hi, 1.0 - 1e-9)  # Theorem 5's calibration needs ε < 1

        def err(e, m=m):
            return _mech_error(m, metric, sensitivity=s.sens, eps=e, delta=s.delta)

        e_hi = err(hi)
        if e_hi > target:
            why = f"even ε = {hi:g} gives {e_hi:.4g} > {target:g}" + (
                " (the Gaussian calibration of Theorem 5 needs ε < 1)"
                if m == "gaussian"
                else f" (the page's ε range ends at {hi:g})"
            )
            out.append(MechanismSolution(m, metric, target, None, None, None, None, None, why))
            continue
        e = lo if err(lo) <= target else _smallest_meeting(err, target, lo, hi, 1e-6)
        exact, stated = _exact_delta(m, sensitivity=s.sens, eps=e, delta=s.delta)
        if not exact <= stated * (1 + 1e-9) + 1e-15:
            out.append(
                MechanismSolution(
                    m,
                    metric,
                    target,
                    None,
                    None,
                    None,
                    None,
                    None,
                    f"not recommended: at ε = {e:.4g} its exact δ(ε) = {exact:.3g} exceeds "
                    f"the stated δ = {stated:g} (numerical failure of the calibration)",
                )
            )
            continue
        noise = mc.release(
            0.0,
            m,
            sensitivity=s.sens,
            eps=e,
            delta=s.delta,
            size=releases,
            rng=np.random.default_rng([s.seed, 104729, k]),
        )
        if metric == "mse":
            sq = noise**2
            sim, se = float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(sq.size))
        else:
            sim, se = float(np.quantile(np.abs(noise), 0.95)), None
        out.append(
            MechanismSolution(
                m,
                metric,
                target,
                e,
                err(e),
                err(e * 0.9) if e * 0.9 >= lo else None,
                sim,
                se,
                "met at the most private ε of the page's range" if e == lo else "",
            )
        )
    return out


# ------------------------------------------------------------------ per-user privacy
#: simulated trials per evaluation of the per-user solver's first bisection (at least; more if the
#: scenario asks); the answer is then refined with REFINE_TRIALS until PRECISION is reached
SOLVE_TRIALS = 500
REFINE_TRIALS = (4000, 16000)
#: stated precision of the per-user solver: the 95 % interval of the smallest scaling within ± 5 %
PRECISION = 0.05


@dataclass(frozen=True)
class PerUserSolution:
    algorithm: str
    metric: str
    target: float
    scale: float
    error: float
    error_10pct_more_private: float
    check_error: float  # mse: fresh mean squared error; pac: fresh share of errors ≤ target
    check_se: float | None
    meets_target: bool
    demands: dict
    scenario_query: dict
    scale_low: float = float("nan")  # 95 % confidence interval of the true smallest scaling
    scale_high: float = float("nan")
    precision: float = float("nan")  # half-width of that interval relative to ``scale``
    trials_used: int = 0


def solve_per_user(
    s,
    *,
    target: float,
    metric: str = "pac",
    algorithm: str | None = None,
    upload: bytes | None = None,
    tol: float = 0.01,
) -> PerUserSolution:
    """Smallest common scaling of every finite demand ε_i (public users stay public) at which
    ``algorithm`` (default: the scenario's first) meets ``target`` for ``metric`` (``pac``: the
    (1 − β)-quantile of the error; ``mse``). The error is simulated with the scenario's seed at
    every scaling (common random numbers: the same noise draws rescaled, so the error is a
    decreasing function of the scaling up to the discreteness of the weights), found by bisection
    on log s with at least ``SOLVE_TRIALS`` trials, then refined with ``REFINE_TRIALS`` trials until
    the 95 % confidence interval of the smallest scaling (from the statistic's own interval:
    binomial order statistics for the PAC quantile, mean ± 1.96 SE for the MSE) is within
    ± ``PRECISION`` of the answer (``scale_low``, ``scale_high``, ``precision`` say what was
    reached), then checked with a fresh seed: MSE as mean ± standard error; PAC as the share of
    fresh errors ≤ target, which must reach 1 − β within three binomial standard errors."""
    from . import hetero as ht
    from .scenarios import per_user_privacy as pu

    target = check_real("target", target, lo=TARGET_MIN, hi=TARGET_MAX, what=" (error of the published statistic)")
    if metric not in ("pac", "mse"):
        raise InputError(f"metric must be 'pac' or 'mse'; got {metric!r}.")
    algorithm = algorithm or s.algs[0]
    if algorithm not in s.algs:
        raise InputError(f"algorithm must be one of the scenario's algorithms {', '.join(s.algs)}; got {algorithm!r}.")
    x, k, _ = pu.load_data(s, upload)
    eps0 = pu.demands(s, x)
    fin = eps0[np.isfinite(eps0)]
    if fin.size == 0:
        raise InputError("every user is public (ε = ∞): there is no privacy level to choose.")
    sp = s.specs()["eps_by_bin"]
    fields = ("lows", "highs") if s.demand == "groups" else ("eps_by_bin",)
    pv = np.array([v for f in fields for v in getattr(s, f)], float)
    pv = pv[np.isfinite(pv)]
    lo = max(1e-3, float(sp.lo) / float(pv.min()))  # scaled parameters stay in the page's range
    hi = min(1e3, float(sp.hi) / float(pv.max()))

    trials = max(int(s.trials), SOLVE_TRIALS)

    def errors_at(scale: float, seed=None, trials_: int | None = None) -> np.ndarray:
        """Errors of the simulated releases at demands × ``scale`` (common random numbers per seed)."""
        e = np.where(np.isfinite(eps0), eps0 * scale, np.inf)
        r = ht.simulate(
            x,
            e,
            algorithm=algorithm,
            problem=s.problem,
            k=k,
            beta=s.beta,
            trials=trials_ or trials,
            setting=s.setting,
            rng=np.random.default_rng([s.seed if seed is None else seed, pu.ALL_ALGS.index(algorithm)]),
            solver=s.solver,
            sm_threshold=s.sm_threshold,
        )
        return np.asarray(r["errors"], float)

    def err(scale: float) -> float:
        return ht.summarize(errors_at(scale), beta=s.beta)[metric]

    e_hi = err(hi)
    if e_hi > target:
        raise InputError(
            f"target {target:g} is below the error {algorithm} reaches even with every demand "
            f"{hi:.3g}× larger (the largest the page accepts): {e_hi:.4g}. Raise the target or "
            "add users (n)."
        )
    if err(lo) <= target:
        raise InputError(
            f"target {target:g} is met even with every demand {lo:.3g}× smaller; lower the target to see a trade-off."
        )
    scale = _smallest_meeting(err, target, lo, hi, tol)
    # refine: common random numbers with more trials; the error statistic's 95 % confidence interval
    # (binomial order statistics of the quantile, or mean ± 1.96 SE) gives an interval for the smallest
    # scaling; trials grow until that interval is within ± PRECISION of the answer
    memo: dict = {}

    def ci_at(sc: float, n_tr: int) -> tuple[float, float, float]:
        key = (sc, n_tr)
        if key not in memo:
            e = np.sort(errors_at(sc, trials_=n_tr))
            if metric == "pac":
                memo[key] = (float(np.quantile(e, 1 - s.beta)), *_interval(e, 1 - s.beta))
            else:
                memo[key] = (float(np.mean(e**2)), *_interval(e**2))
        return memo[key]

    s_low = s_high = scale
    used = trials
    for n_tr in REFINE_TRIALS:
        used = max(n_tr, trials)
        a_, b_ = max(lo, scale / 1.6), min(hi, scale * 1.6)
        while a_ > lo and ci_at(a_, used)[1] <= target:  # the lower end must fail
            a_ = max(lo, a_ / 1.6)
        while b_ < hi and ci_at(b_, used)[2] > target:  # the upper end must meet
            b_ = min(hi, b_ * 1.6)
        ends = []
        for idx in (0, 1, 2):
            f = lambda v, idx=idx, used=used: ci_at(v, used)[idx]
            if f(a_) <= target:
                ends.append(a_)
            elif f(b_) > target:
                ends.append(b_)
            else:
                ends.append(_smallest_meeting(f, target, a_, b_, 2e-3))
        scale, s_low, s_high = ends  # point; lower CI meets first; upper last
        if (s_high - s_low) / (2 * scale) <= PRECISION:
            break
    precision = (s_high - s_low) / (2 * scale)

    def err(v: float) -> float:
        return ci_at(v, used)[0]

    e_found = err(scale)
    e_stricter = err(scale * 0.9)
    fresh = errors_at(scale, seed=s.seed + 7919, trials_=used)
    if metric == "mse":
        sq = fresh**2
        check, se = float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(sq.size))
        meets = check <= target + 3 * se
    else:  # P(error ≤ target) ≥ 1 − β, within 3 binomial standard errors
        check = float(np.mean(fresh <= target))
        se = float(np.sqrt(s.beta * (1 - s.beta) / fresh.size))
        meets = check >= 1 - s.beta - 3 * se
    bins = {f"{v:g}": float(v * scale) for v in np.unique(fin)}
    q = {
        **s.to_query(),
        **{f: ",".join(f"{v * scale:.6g}" if np.isfinite(v) else "inf" for v in getattr(s, f)) for f in fields},
    }
    type(s).from_query(q)  # the link reopens a valid scenario
    return PerUserSolution(
        algorithm,
        metric,
        target,
        scale,
        e_found,
        e_stricter,
        check,
        se,
        bool(meets),
        bins,
        q,
        float(s_low),
        float(s_high),
        float(precision),
        int(used),
    )


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core._doc)
