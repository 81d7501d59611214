r"""What privacy do I need for this accuracy? (issue 12 §2) — Feature privacy.

Given a Feature-privacy scenario and a target expected squared error τ of the published mean
(E‖x̂ − x̄‖², for the scenario's data: n users drawn from the q-mixture prior with the scenario's
seed at its correlation q), find the **most private** setting that meets it among the scalings of
the scenario's levels: every demand δ_i and the global level ε multiplied by one factor s (the
relative strictness of the features is kept). The error used is the exact pre-projection MSE of
Mechanism 1 (analytic, closed form), which decreases as s grows, so the smallest s is found by
bisection on log s. Projection onto the box can only shrink the error, so the simulated error of
the released (projected) estimate is at most this value in expectation; the answer is then checked
by a fresh simulation with a new seed, reported with its standard error.

Infeasible targets say why: below the error floor (even at the largest accepted levels the Duchi
channel keeps noise), or met already at the strictest scaling tried.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ._validate import InputError, check_int, check_real
from .bcdp import privacy_allocation
from .bcdp_sim import point_rng, q_mixture_data, run_point
from .mmean import exact_mse_mmean

__all__ = ["Solution", "solve_feature_privacy", "SCALE_RANGE", "TARGET_MIN", "TARGET_MAX", "METRICS",
           "MechanismSolution", "solve_mechanisms", "PerUserSolution", "solve_per_user"]

#: accepted targets (expected squared error of the published mean)
TARGET_MIN, TARGET_MAX = 1e-6, 1e6

#: scalings s tried: from 1000× stricter to 1000× more relaxed (capped by the largest accepted level)
SCALE_RANGE = (1e-3, 1e3)


@dataclass(frozen=True)
class Solution:
    """The most private scaling that meets the target, its exact error, and the check."""

    target: float
    scale: float
    eps: float
    delta: tuple
    exact_mse: float
    exact_mse_10pct_more_private: float
    simulated_mean: float
    simulated_se: float
    simulated_trials: int
    meets_target: bool
    scenario_query: dict

    def rows(self) -> list[dict]:
        return [dataclasses.asdict(self)]


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


def _exact(s, x, scale: float) -> float:
    eps, delta = _setting(s, scale)
    alloc = privacy_allocation(delta=delta, eps=eps, q=s.q, zeta=None if s.zeta_auto else s.zeta)
    return exact_mse_mmean(x[:, alloc.order], c_sorted=alloc.c_sorted, scale=s.duchi_scale)


def solve_feature_privacy(s, *, target: float, check_trials: int = 200, tol: float = 1e-3) -> Solution:
    """Smallest scaling s of (δ, ε) whose exact pre-projection MSE is ≤ ``target`` (see the module
    docstring), checked by ``check_trials`` fresh simulated releases."""
    target = check_real("target", target, lo=TARGET_MIN, hi=TARGET_MAX, what=" (expected squared error E‖x̂ − x̄‖²)")
    check_trials = check_int("check_trials", check_trials, lo=10, hi=10_000, what=" (simulated releases)")
    x = q_mixture_data(n=s.n, d=s.delta_vector().size, q=s.q, rng=point_rng(s.seed, float(s.q)))
    lo, hi = _scale_range(s)
    if not lo < hi:
        raise InputError("the scenario's levels leave no room to scale them within the page's ranges; "
                         "move ε or the demands away from the ends of their sliders.")
    f_lo, f_hi = _exact(s, x, lo), _exact(s, x, hi)
    if f_hi > target:
        raise InputError(f"target {target:g} is below the smallest error reachable here ({f_hi:.4g} at "
                         f"{hi:.4g}× the levels, the largest the page accepts; the local randomizer keeps noise "
                         "at any level). Raise the target or add users (n).")
    if f_lo <= target:
        raise InputError(f"target {target:g} is met even at {lo:g}× the levels (error {f_lo:.4g}); any "
                         "practical level meets it. Lower the target to see a trade-off.")
    scale = _smallest_meeting(lambda v: _exact(s, x, v), target, lo, hi, tol)
    eps, delta = _setting(s, scale)
    exact = _exact(s, x, scale)
    stricter = _exact(s, x, scale * 0.9)
    res = run_point(x=x, delta=delta, eps=eps, q=s.q, zeta=None if s.zeta_auto else s.zeta, trials=check_trials,
                    rng=np.random.default_rng([s.seed, 7919]), projection=s.used_projection,
                    baseline_projection=s.baseline_projection, scale=s.duchi_scale)
    errs = res.errors_mmean
    mean, se = float(errs.mean()), float(errs.std(ddof=1) / np.sqrt(errs.size))
    query = {**s.to_query(), "mode": "Per-feature table", "table": ",".join(f"{v:.6g}" for v in delta),
             "eps": f"{eps:.6g}"}
    type(s).from_query(query)                   # the link reopens a valid scenario
    return Solution(target, scale, eps, delta, exact, stricter, mean, se, errs.size,
                    bool(mean <= target + 3 * se), query)


# ------------------------------------------------------------------ mechanism lab
#: accuracy measures of one noisy release: expected squared error, or the 95 % quantile of |error|
METRICS = ("mse", "q95")
_Z95 = 1.959963984540054                     # standard normal 97.5 % quantile: P(|N| ≤ z) = 0.95


def _mech_error(mechanism: str, metric: str, *, sensitivity: float, eps: float, delta: float) -> float:
    from . import mechanisms as mc

    if metric == "mse":
        return mc.noise_variance(mechanism, sensitivity=sensitivity, eps=eps, delta=delta)
    if mechanism == "gaussian":
        return _Z95 * mc.gaussian_sigma(sensitivity=sensitivity, eps=eps, delta=delta)
    if mechanism == "mnm" and sensitivity <= mc.mnm_threshold(eps=eps, delta=delta):
        return _Z95 * mc.mnm_sigma(sensitivity=sensitivity, eps=eps)
    return np.log(20.0) * mc.laplace_scale(sensitivity=sensitivity, eps=eps)    # P(|Lap(b)| ≤ b ln 20) = 0.95


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
    95 % quantile). A mechanism that cannot meet the target in range says why."""
    from . import mechanisms as mc

    target = check_real("target", target, lo=TARGET_MIN, hi=TARGET_MAX, what=" (error of one release)")
    if metric not in METRICS:
        raise InputError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}.")
    sp = s.specs()["eps"]
    out = []
    for k, m in enumerate(mc.MECHANISMS):
        lo, hi = float(sp.lo), float(sp.hi)
        if m == "gaussian":
            hi = min(hi, 1.0 - 1e-9)                 # Theorem 5's calibration needs ε < 1

        def err(e, m=m):
            return _mech_error(m, metric, sensitivity=s.sens, eps=e, delta=s.delta)

        e_hi = err(hi)
        if e_hi > target:
            why = (f"even ε = {hi:g} gives {e_hi:.4g} > {target:g}"
                   + (" (the Gaussian calibration of Theorem 5 needs ε < 1)" if m == "gaussian" else
                      f" (the page's ε range ends at {hi:g})"))
            out.append(MechanismSolution(m, metric, target, None, None, None, None, None, why))
            continue
        e = lo if err(lo) <= target else _smallest_meeting(err, target, lo, hi, 1e-6)
        noise = mc.release(0.0, m, sensitivity=s.sens, eps=e, delta=s.delta, size=releases,
                           rng=np.random.default_rng([s.seed, 104729, k]))
        if metric == "mse":
            sq = noise**2
            sim, se = float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(sq.size))
        else:
            sim, se = float(np.quantile(np.abs(noise), 0.95)), None
        out.append(MechanismSolution(m, metric, target, e, err(e), err(e * 0.9) if e * 0.9 >= lo else None, sim, se,
                                     "met at the most private ε of the page's range" if e == lo else ""))
    return out


# ------------------------------------------------------------------ per-user privacy
#: simulated trials per evaluation of the per-user solver (at least; more if the scenario asks)
SOLVE_TRIALS = 500

@dataclass(frozen=True)
class PerUserSolution:
    algorithm: str
    metric: str
    target: float
    scale: float
    error: float
    error_10pct_more_private: float
    check_error: float          # mse: fresh mean squared error; pac: fresh share of errors ≤ target
    check_se: float | None
    meets_target: bool
    demands: dict
    scenario_query: dict


def solve_per_user(s, *, target: float, metric: str = "pac", algorithm: str | None = None,
                   upload: bytes | None = None, tol: float = 0.01) -> PerUserSolution:
    """Smallest common scaling of every finite demand ε_i (public users stay public) at which
    ``algorithm`` (default: the scenario's first) meets ``target`` for ``metric`` (``pac``: the
    (1 − β)-quantile of the error; ``mse``). The error is simulated with the scenario's seed at
    every scaling (common random numbers: the same noise draws rescaled, so the error is a
    decreasing function of the scaling up to the discreteness of the weights), found by bisection
    on log s with at least ``SOLVE_TRIALS`` trials, then checked with a fresh seed: MSE as mean ±
    standard error; PAC as the share of fresh errors ≤ target, which must reach 1 − β within three
    binomial standard errors."""
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
    lo = max(1e-3, float(sp.lo) / float(pv.min()))                 # scaled parameters stay in the page's range
    hi = min(1e3, float(sp.hi) / float(pv.max()))

    trials = max(int(s.trials), SOLVE_TRIALS)

    def errors_at(scale: float, seed=None) -> np.ndarray:
        """Errors of the simulated releases at demands × ``scale`` (common random numbers per seed)."""
        e = np.where(np.isfinite(eps0), eps0 * scale, np.inf)
        r = ht.simulate(x, e, algorithm=algorithm, problem=s.problem, k=k, beta=s.beta, trials=trials,
                        setting=s.setting, rng=np.random.default_rng([s.seed if seed is None else seed,
                                                                     pu.ALL_ALGS.index(algorithm)]),
                        solver=s.solver, sm_threshold=s.sm_threshold)
        return np.asarray(r["errors"], float)

    def err(scale: float) -> float:
        return ht.summarize(errors_at(scale), beta=s.beta)[metric]

    e_hi = err(hi)
    if e_hi > target:
        raise InputError(f"target {target:g} is below the error {algorithm} reaches even with every demand "
                         f"{hi:.3g}× larger (the largest the page accepts): {e_hi:.4g}. Raise the target or "
                         "add users (n).")
    if err(lo) <= target:
        raise InputError(f"target {target:g} is met even with every demand {lo:.3g}× smaller; lower the target "
                         "to see a trade-off.")
    scale = _smallest_meeting(err, target, lo, hi, tol)
    e_found = err(scale)
    e_stricter = err(scale * 0.9)
    fresh = errors_at(scale, seed=s.seed + 7919)
    if metric == "mse":
        sq = fresh**2
        check, se = float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(sq.size))
        meets = check <= target + 3 * se
    else:                                       # P(error ≤ target) ≥ 1 − β, within 3 binomial standard errors
        check = float(np.mean(fresh <= target))
        se = float(np.sqrt(s.beta * (1 - s.beta) / fresh.size))
        meets = check >= 1 - s.beta - 3 * se
    bins = {f"{v:g}": float(v * scale) for v in np.unique(fin)}
    q = {**s.to_query(), **{f: ",".join(f"{v * scale:.6g}" if np.isfinite(v) else "inf" for v in getattr(s, f))
                            for f in fields}}
    type(s).from_query(q)                       # the link reopens a valid scenario
    return PerUserSolution(algorithm, metric, target, scale, e_found, e_stricter, check, se, bool(meets), bins, q)
