"""The Per-user privacy page's accuracy solver: the most private scaling of every finite demand at which
the chosen algorithm meets an accuracy target, with a 95 % interval and a fresh check.
It lives in the page's core package, next to the scenario (``PAGE_SPEC.solver`` names it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...framework._doc import document
from ...framework._validate import InputError
from ...framework.constraints import Interval
from ...reading.intervals import statistic_interval
from ...reading.solve import TARGET_MAX, TARGET_MIN, LinkedAnswer, _smallest_meeting

__all__ = ["SOLVE_TRIALS", "REFINE_TRIALS", "PRECISION", "PerUserSolution", "solve_per_user"]


#: simulated trials per evaluation of the per-user solver's first bisection (at least; more if the
#: scenario asks); the answer is then refined with REFINE_TRIALS until PRECISION is reached
SOLVE_TRIALS = 500


REFINE_TRIALS = (4000, 16000)


#: stated precision of the per-user solver: the 95 % interval of the smallest scaling within ± 5 %
PRECISION = 0.05


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_TARGET = Interval(float, TARGET_MIN, TARGET_MAX)


@dataclass(frozen=True)
class PerUserSolution(LinkedAnswer):
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

    #: the share of releases whose error is at most the target, for the PAC metric (1 − β)
    needed_share: float | None = None

    @property
    def verdict(self):
        """The fresh check against the target (:class:`hetdp_core.reading.words.TargetCheck`), met only when its
        estimate is within it: the fresh MSE (± 1.96 standard errors) at most the target, or the share of
        fresh errors at most the target (± 1.96 binomial standard errors) at least 1 − β."""
        from ...reading.words import target_check

        half = 1.96 * float(self.check_se or 0.0)
        if self.metric == "pac":
            lo, hi = max(0.0, self.check_error - half), min(1.0, self.check_error + half)
            return target_check(estimate=self.check_error, low=lo, high=hi, target=self.needed_share, at_least=True)
        return target_check(
            estimate=self.check_error, low=self.check_error - half, high=self.check_error + half, target=self.target
        )

    def text(self, link: str) -> str:
        """The answer in words, as ``hetdp solve`` prints it."""
        what = "the share of fresh errors at most the target" if self.metric == "pac" else "the fresh MSE"
        return (
            f"{self.algorithm}: every finite demand × {self.scale:.4g} gives {self.metric} {self.error:.4g} ≤ "
            f"{self.target:g} by the solver's releases (10 % more private: {self.error_10pct_more_private:.4g}); "
            f"95 % interval of the smallest scaling [{self.scale_low:.4g}, {self.scale_high:.4g}] "
            f"(± {100 * self.precision:.1f} %, {self.trials_used} trials); fresh check "
            f"{self.verdict.words(what).replace('**', '')}\nlink: {link}"
        )


def _simulator(s, x, k, eps0, *, algorithm: str, trials: int):
    """errors_at(scale, seed=None, trials_=None): the simulated releases' errors at demands × scale,
    with common random numbers per seed (the same draws rescaled)."""
    from ...per_user import hetero as ht
    from .. import per_user_privacy as pu

    def errors_at(scale: float, seed=None, trials_: int | None = None) -> np.ndarray:
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

    return errors_at


def _interval_at(errors_at, *, metric: str, beta: float):
    """ci_at(scale, trials): the error statistic at a scaling and its 95 % confidence interval (binomial
    order statistics of the (1 − β)-quantile, or mean ± 1.96 SE of the squared error), memoised."""
    memo: dict = {}

    def ci_at(sc: float, n_tr: int) -> tuple[float, float, float]:
        if (sc, n_tr) not in memo:
            e = np.sort(errors_at(sc, trials_=n_tr))
            if metric == "pac":
                memo[sc, n_tr] = (float(np.quantile(e, 1 - beta)), *statistic_interval(e, quantile=1 - beta))
            else:
                memo[sc, n_tr] = (float(np.mean(e**2)), *statistic_interval(e**2))
        return memo[sc, n_tr]

    return ci_at


def _refine(ci_at, scale: float, *, target: float, lo: float, hi: float, trials: int, say):
    """(scale, low, high, trials used): common random numbers with more trials until the 95 % interval
    of the smallest scaling (where the interval's ends meet the target) is within ± PRECISION."""
    s_low = s_high = scale
    used = trials
    for i_tr, n_tr in enumerate(REFINE_TRIALS):
        say(0.55 + 0.2 * i_tr, f"refining with {n_tr:,} releases per scaling")
        used = max(n_tr, trials)
        a_, b_ = max(lo, scale / 1.6), min(hi, scale * 1.6)
        while a_ > lo and ci_at(a_, used)[1] <= target:  # the lower end must fail
            a_ = max(lo, a_ / 1.6)
        while b_ < hi and ci_at(b_, used)[2] > target:  # the upper end must meet
            b_ = min(hi, b_ * 1.6)
        ends = []
        for idx in (0, 1, 2):
            f = lambda v, idx=idx, used=used: ci_at(v, used)[idx]  # noqa: E731
            if f(a_) <= target:
                ends.append(a_)
            elif f(b_) > target:
                ends.append(b_)
            else:
                ends.append(_smallest_meeting(f, target, a_, b_, 2e-3))
        scale, s_low, s_high = ends  # point; lower CI meets first; upper last
        if (s_high - s_low) / (2 * scale) <= PRECISION:
            break
    return scale, s_low, s_high, used


def _fresh_check(fresh: np.ndarray, metric: str, target: float, beta: float) -> tuple[float, float, bool]:
    """(check, standard error, meets): MSE as mean ± SE, met when the mean is at most the target; PAC as
    the share of fresh errors ≤ target (binomial SE at 1 − β), met when it reaches 1 − β."""
    if metric == "mse":
        sq = fresh**2
        check, se = float(sq.mean()), float(sq.std(ddof=1) / np.sqrt(sq.size))
        return check, se, bool(check <= target)
    check = float(np.mean(fresh <= target))
    se = float(np.sqrt(beta * (1 - beta) / fresh.size))
    return check, se, bool(check >= 1 - beta)


def _problem(s, *, metric: str, algorithm: str | None, upload: bytes | None):
    """(algorithm, values, k, demands, demand fields, lowest and highest scaling): the solver's inputs,
    checked; a scaling keeps the scaled demand fields within the page's range."""
    from .. import per_user_privacy as pu

    if metric not in ("pac", "mse"):
        raise InputError(f"metric must be 'pac' (or 'q95', the same (1 − β)-quantile) or 'mse'; got {metric!r}.")
    algorithm = algorithm or s.algs[0]
    if algorithm not in s.algs:
        raise InputError(f"algorithm must be one of the scenario's algorithms {', '.join(s.algs)}; got {algorithm!r}.")
    x, k, _ = pu.load_data(s, upload)
    eps0 = s.demands(x)
    if not np.isfinite(eps0).any():
        raise InputError("every user is public (ε = ∞): there is no privacy level to choose.")
    sp = s.specs()["eps_by_bin"]
    fields = ("lows", "highs") if s.demand == "groups" else ("eps_by_bin",)
    pv = np.array([v for f in fields for v in getattr(s, f)], float)
    pv = pv[np.isfinite(pv)]
    lo = max(1e-3, float(sp.lo) / float(pv.min()))  # scaled parameters stay in the page's range
    hi = min(1e3, float(sp.hi) / float(pv.max()))
    return algorithm, x, k, eps0, fields, lo, hi


def solve_per_user(
    s,
    *,
    target: float,
    metric: str = "pac",
    algorithm: str | None = None,
    upload: bytes | None = None,
    tol: float = 0.01,
    progress=None,
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
    fresh errors ≤ target, which must reach 1 − β within three binomial standard errors.
    ``progress(fraction, text)`` hears of each stage."""
    from ...per_user import hetero as ht

    target = _TARGET.check("target", target, what=" (error of the published statistic)")
    metric = "pac" if metric == "q95" else metric  # the solve command's name for the (1 − β)-quantile
    algorithm, x, k, eps0, fields, lo, hi = _problem(s, metric=metric, algorithm=algorithm, upload=upload)
    fin = eps0[np.isfinite(eps0)]
    trials = max(int(s.trials), SOLVE_TRIALS)
    errors_at = _simulator(s, x, k, eps0, algorithm=algorithm, trials=trials)
    say = progress or (lambda fraction, text: None)
    calls = [0]

    def err(scale: float) -> float:
        calls[0] += 1
        say(min(0.5, 0.04 * calls[0]), f"searching the scaling: {scale:.4g}× the demands ({trials} releases)")
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
    ci_at = _interval_at(errors_at, metric=metric, beta=s.beta)
    scale, s_low, s_high, used = _refine(ci_at, scale, target=target, lo=lo, hi=hi, trials=trials, say=say)
    precision = (s_high - s_low) / (2 * scale)
    e_found, e_stricter = ci_at(scale, used)[0], ci_at(scale * 0.9, used)[0]
    say(0.95, f"checking {scale:.4g}× with {used:,} fresh releases")
    check, se, meets = _fresh_check(errors_at(scale, seed=s.seed + 7919, trials_=used), metric, target, s.beta)
    return PerUserSolution(
        algorithm=algorithm,
        metric=metric,
        target=target,
        scale=scale,
        error=e_found,
        error_10pct_more_private=e_stricter,
        check_error=check,
        check_se=se,
        meets_target=meets,
        needed_share=1.0 - float(s.beta) if metric == "pac" else None,
        demands={f"{v:g}": float(v * scale) for v in np.unique(fin)},
        scenario_query=_scaled_query(s, fields, scale),
        scale_low=float(s_low),
        scale_high=float(s_high),
        precision=float(precision),
        trials_used=int(used),
    )


def _scaled_query(s, fields: tuple[str, ...], scale: float) -> dict:
    """The query string of the scenario with the demand fields scaled (checked to reopen a valid view)."""
    q = {
        **s.to_query(),
        **{f: ",".join(f"{v * scale:.6g}" if np.isfinite(v) else "inf" for v in getattr(s, f)) for f in fields},
    }
    type(s).from_query(q)  # the link reopens a valid scenario
    return q


GLOSSARY = """
s | Scenario | The page's scenario.
metric | str | Accuracy measure: ``pac`` (the (1 − β)-quantile of the error) or ``mse``.
algorithm | str or None | The per-user algorithm solved for (default: the scenario's first).
upload | bytes or None | An uploaded CSV (untrusted), for ``dataset = upload``.
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
