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

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import Interval
from ..per_feature.bcdp import privacy_allocation
from ..per_feature.bcdp_sim import point_rng, q_mixture_data
from .intervals import statistic_interval

__all__ = [
    "Solution",
    "solve_feature_privacy",
    "STATISTICS",
    "SCALE_RANGE",
    "TARGET_MIN",
    "TARGET_MAX",
    "METRICS",
    "LinkedAnswer",
    "MechanismSolution",
    "MechanismSolutions",
    "solve_mechanisms",
    "solve_mechanism_lab",
]

#: accepted targets (expected squared error of the published mean)
TARGET_MIN, TARGET_MAX = 1e-6, 1e6

#: scalings s tried: from 1000× stricter to 1000× more relaxed (capped by the largest accepted level)
SCALE_RANGE = (1e-3, 1e3)


class LinkedAnswer:
    """A solver's answer that a link opens: ``hetdp solve --json`` prints its fields and the link."""

    def as_json(self, link: str) -> dict:
        """The answer as ``hetdp solve --json`` prints it, with the link that opens it (and, for an answer
        checked by a fresh simulation, its verdict: ``met``, ``met by the estimate``, ``not shown`` or
        ``missed``, and the sentence)."""
        verdict = getattr(self, "verdict", None)
        said = (
            {} if verdict is None else {"verdict": verdict.verdict, "verdict_words": verdict.words().replace("**", "")}
        )
        return {**dataclasses.asdict(self), **said, "link": link}

    def link_query(self, scenario) -> dict:
        """The query of the view that shows the answer: the scenario at the answer's levels."""
        return self.scenario_query


@dataclass(frozen=True)
class Solution(LinkedAnswer):
    """The most private scaling that meets the target, its simulated error and the fresh check.

    ``scale`` is the answer (its levels ``eps`` and ``demands`` rounded to 3 significant digits, as the
    link opens them); ``scale_low`` … ``scale`` brackets the true most private scaling (``scale_low``
    fails, ``scale`` meets; equal resolution of the scan or where the simulation cannot tell them
    apart). ``error`` is the statistic (median or mean of ‖x̂ − x̄‖² with the scenario's projection) at
    the answer with the solver's releases (common random numbers); ``error_10pct_more_private`` the same
    at 0.9× the answer; ``check`` / ``check_low`` / ``check_high`` a fresh simulation's statistic and
    its 95 % confidence interval (order statistics for the median, ± 1.96 standard errors for the
    mean); ``releases`` how many releases the whole solve simulated."""

    target: float
    statistic: str
    projection: str
    scale: float
    eps: float
    demands: tuple
    error: float
    error_10pct_more_private: float
    check: float
    check_low: float
    check_high: float
    check_trials: int
    meets_target: bool
    grid_ratio: float
    scenario_query: dict
    scale_low: float = float("nan")
    releases: int = 0
    view_trials: int = 0  # the page's own curve simulates this many releases per point …
    view_low: float = float("nan")  # … so at the answer it reads between these (95 %)
    view_high: float = float("nan")

    def rows(self) -> list[dict]:
        return [dataclasses.asdict(self)]

    @property
    def verdict(self):
        """The fresh simulation against the target (:class:`hetdp_core.reading.words.TargetCheck`): met only when
        its estimate is within it."""
        from .words import target_check

        return target_check(estimate=self.check, low=self.check_low, high=self.check_high, target=self.target)

    def text(self, link: str) -> str:
        """The answer in words, as ``hetdp solve`` prints it."""
        return (
            f"most private scaling whose {self.statistic} ‖x̂ − x̄‖² (projection {self.projection}) is ≤ "
            f"{self.target:g}: {self.scale:.4g}× the levels (ε = {self.eps:.4g}, δ = "
            f"{', '.join(f'{v:.4g}' for v in self.demands)}; between {self.scale_low:.4g}× (above the target) "
            f"and {self.scale:.4g}× (within it) by the solver's releases; {self.releases} releases simulated)"
            f"\nsimulated {self.statistic} "
            f"{self.error:.4g} (10 % more private: {self.error_10pct_more_private:.4g}); fresh simulation "
            f"({self.check_trials} releases) {self.verdict.words('its ' + self.statistic).replace('**', '')}"
            f"\nlink: {link}"
        )


def _view_range(errors: np.ndarray, statistic: str, m: int) -> tuple[float, float]:
    """Where the page's curve — the statistic of m releases — falls at the answer, 95 % of the time,
    estimated from the solver's fresh releases: the median of m draws lies between the error quantiles
    ½ ∓ 1.96·√(¼/m) (normal approximation of the binomial); the mean within ± 1.96 sd/√m."""
    if statistic == "mean":
        half = 1.96 * float(errors.std(ddof=1)) / np.sqrt(m)
        return float(errors.mean() - half), float(errors.mean() + half)
    half = 1.96 * np.sqrt(0.25 / m)
    lo, hi = np.quantile(errors, [max(0.5 - half, 0.0), min(0.5 + half, 1.0)])
    return float(lo), float(hi)


#: statistics the Feature-privacy solver can target: the plotted median, or the mean
STATISTICS = ("median", "mean")
#: scan resolution of the Feature-privacy solver (grid points per decade of the scaling)
GRID_PER_DECADE = 8
#: the sequential decision at one scaling: batches of these sizes (each with its own seed, the same at
#: every scaling), stopping as soon as the statistic's interval lies on one side of the target
BATCHES = (8, 8, 16, 32, 64)
#: the refinement reads the first REFINE − 1 batches (64 releases) at each scaling for at most MAX_REFINE
#: steps, then REFINE (128) to polish; it stops when its bracket is RESOLUTION narrow (relative)
REFINE, RESOLUTION, MAX_REFINE = 5, 0.04, 3
#: fresh checks of the answer at most (each moving it up when the previous one rejects it: its whole interval
#: above the target), each in batches of these sizes until its interval lies on one side of the target
CHECKS, CHECK_BATCHES = 4, (32, 32, 64)


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


def _round3(x: float) -> float:
    return float(f"{x:.3g}")


def _setting(s, scale: float):
    """The levels at ``scale`` × the scenario's, rounded to 3 significant digits (the answer's link shows
    them so, and the solver simulates exactly what the link opens)."""
    return _round3(s.eps * scale), tuple(_round3(v * scale) if np.isfinite(v) else v for v in s.demands())


def _scale_range(s) -> tuple[float, float]:
    """Scalings whose levels stay inside the page's own ranges (so the answer's link opens)."""
    sp = s.specs()
    dv = s.demands()
    fin = dv[np.isfinite(dv)]
    lo = max(SCALE_RANGE[0], sp["eps"].lo / s.eps, sp["table"].lo / float(fin.min()) if fin.size else 0.0)
    hi = min(SCALE_RANGE[1], sp["eps"].hi / s.eps, sp["table"].hi / float(fin.max()) if fin.size else np.inf)
    return lo * 1.01, hi / 1.01  # room for the rounding to 3 digits


def _errors(s, x, scale: float, *, trials: int, seed) -> np.ndarray:
    """‖x̂ − x̄‖² of ``trials`` releases of Mechanism 1 at ``scale`` × the levels (rounded as the answer's
    link shows them), with the scenario's projection and Duchi constant (what the page's sweep
    simulates)."""
    from ..per_feature.mmean import mmean_estimate

    eps, demands = _setting(s, scale)
    alloc = privacy_allocation(demands=demands, eps=eps, q=s.q, zeta=None if s.zeta_auto else s.zeta)
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


class _Sampler:
    """Releases at any scaling in batches with common random numbers (batch b has the same seed at
    every scaling, so the error is a smooth-ish function of the scaling up to the discreteness of the
    allocation), kept per scaling; ``decide`` draws batches until the statistic's 95 % interval lies on
    one side of the target."""

    def __init__(self, s, x, statistic: str, target: float, seed):
        self.s, self.x, self.statistic, self.target, self.seed = s, x, statistic, target, seed
        self.samples: dict[float, list[np.ndarray]] = {}
        self.releases = 0

    def errors(self, scale: float, batches: int) -> np.ndarray:
        got = self.samples.setdefault(scale, [])
        while len(got) < batches:
            size = BATCHES[len(got)]
            got.append(_errors(self.s, self.x, scale, trials=size, seed=[*self.seed, len(got)]))
            self.releases += size
        return np.concatenate(got[:batches])

    def decide(self, scale: float) -> str:
        """'meets', 'fails', or 'close' (undecided after every batch: the point estimate then decides,
        and the answer's bracket says how far the simulation could tell)."""
        for b in range(1, len(BATCHES) + 1):
            e = self.errors(scale, b)
            lo, hi = statistic_interval(e, quantile=0.5 if self.statistic == "median" else None)
            if hi <= self.target:
                return "meets"
            if lo > self.target:
                return "fails"
        return "close"

    def stat(self, scale: float) -> float:
        return _stat(self.errors(scale, max(1, len(self.samples.get(scale, [])))), self.statistic)


def _refine(sampler, statistic, target, a, b, *, batches: int, steps: int, lo: float, hi: float, ratio: float):
    """Regula falsi (Illinois) on log s for statistic(s) = target, the statistic read from the first
    ``batches`` batches at each scaling (common random numbers), from the bracket [a, b] (re-bracketed
    along the grid first when these releases disagree with the ones that found it), for at most
    ``steps`` steps or to RESOLUTION. Returns the final bracket (a fails, b meets)."""

    def g(scale: float) -> float:
        return _stat(sampler.errors(scale, batches), statistic) - target

    ga, gb = g(a), g(b)
    while gb > 0 and b < hi:
        a, ga, b = b, gb, min(hi, b * ratio)
        gb = g(b)
    while ga <= 0 and a > lo:
        b, gb, a = a, ga, max(lo, a / ratio)
        ga = g(a)
    if gb > 0 or ga <= 0:
        raise InputError(
            f"target {target:g} sits where the simulated error cannot be told from the target at any scaling "
            f"between {lo:.3g}× and {hi:.3g}×; change the target by a few per cent."
        )
    side = 0
    for _ in range(steps):
        if b / a <= 1 + RESOLUTION:
            break
        la, lb = np.log(a), np.log(b)
        lm = lb - gb * (lb - la) / (gb - ga)
        lm = min(max(lm, la + 0.05 * (lb - la)), lb - 0.05 * (lb - la))  # stay inside the bracket
        mid = float(np.exp(lm))
        gm = g(mid)
        if gm <= 0:
            b, gb = mid, gm
            if side == -1:
                ga /= 2  # Illinois: the end that stays gets half its weight
            side = -1
        else:
            a, ga = mid, gm
            if side == 1:
                gb /= 2
            side = 1
    return a, b


def _first_meeting(sampler, grid: np.ndarray, target: float, say) -> int | None:
    """Index of the first scaling of ``grid`` (strictest first) whose statistic meets ``target``."""
    for i, sc in enumerate(grid):
        say(0.6 * i / grid.size, f"scanning the scalings from the strictest up: {i + 1} of {grid.size}")
        verdict = sampler.decide(float(sc))
        if verdict == "meets" or (verdict == "close" and sampler.stat(float(sc)) <= target):
            return i
    return None


def _checked(s, x, scale: float, a: float, *, target: float, statistic: str, hi: float, say):
    """The fresh check: releases with a new seed, in batches until their interval lies on one side of the
    target; where they reject the answer (their whole interval above the target), the answer moves up by
    3 × RESOLUTION and is checked again (at most CHECKS times). Returns (scale, bracket's lower end, fresh
    errors, their interval, their statistic, releases drawn)."""
    checked = 0
    for attempt in range(CHECKS):
        say(0.92, f"checking {scale:.4g}× the levels with fresh releases")
        fresh = np.empty(0)
        for size in CHECK_BATCHES:  # sequential: stop as soon as the interval lies on one side of the target
            more = _errors(s, x, scale, trials=size, seed=[s.seed, 7919, attempt, fresh.size])
            fresh = np.concatenate([fresh, more])
            c_lo, c_hi = statistic_interval(fresh, quantile=0.5 if statistic == "median" else None)
            if c_hi <= target or c_lo > target:
                break
        checked += fresh.size
        chk = _stat(fresh, statistic)
        if c_lo <= target or scale * (1 + 3 * RESOLUTION) > hi:
            break
        a, scale = scale, scale * (1 + 3 * RESOLUTION)
    return scale, a, fresh, (c_lo, c_hi), chk, checked


def solve_feature_privacy(s, *, target: float, statistic: str = "median", progress=None) -> Solution:
    """The most private scaling s of (δ, ε) whose simulated ``statistic`` of ‖x̂ − x̄‖² (with the
    scenario's projection) is ≤ ``target``.

    The error is not monotone in s (c_i jumps when c_d crosses a demand), so the whole allowed range
    is scanned from the strictest scaling up on a log grid (GRID_PER_DECADE points per decade); at
    each point a sequential decision draws releases in growing batches (BATCHES; common random
    numbers) only until the statistic's 95 % interval lies on one side of the target — far from it
    one batch of 8 decides. The bracket around the first point that meets is refined by regula falsi
    on log s (Illinois) on the statistic of the first 64 releases at each scaling (common random
    numbers: smooth in s between the allocation's jumps), down to RESOLUTION or MAX_REFINE steps,
    then polished on 128 releases a point; ``scale_low`` … ``scale`` is the final bracket. The answer
    is checked by fresh releases (a new seed) in batches until their interval decides
    (CHECK_BATCHES); where it rejects the answer, the answer moves up and is checked again; it meets the
    target only by a fresh statistic within it (:attr:`Solution.verdict`). ``progress(fraction, text)``
    hears of each step. The data are the page's own at the scenario's q (its seed)."""
    target = Interval(float, TARGET_MIN, TARGET_MAX).check("target", target, what=" (squared error ‖x̂ − x̄‖²)")
    if statistic not in STATISTICS:
        raise InputError(f"statistic must be one of {', '.join(STATISTICS)}; got {statistic!r}.")
    say = progress or (lambda frac, text: None)
    x = q_mixture_data(n=s.n, d=s.demands().size, q=s.q, rng=point_rng(s.seed, float(s.q)))
    lo, hi = _scale_range(s)
    if not lo < hi:
        raise InputError(
            "the scenario's levels leave no room to scale them within the page's ranges; "
            "move ε or the demands away from the ends of their sliders."
        )
    sampler = _Sampler(s, x, statistic, target, [s.seed, 7877])
    k = int(np.ceil(GRID_PER_DECADE * np.log10(hi / lo))) + 1
    grid = np.geomspace(lo, hi, max(k, 2))
    first = _first_meeting(sampler, grid, target, say)
    if first is None:
        raise InputError(
            f"target {target:g} is below the smallest error reachable here ({sampler.stat(float(hi)):.4g} at "
            f"{hi:.4g}× the levels, the largest the page accepts; the local randomizer keeps noise "
            "at any level). Raise the target or add users (n)."
        )
    if first == 0:
        raise InputError(
            f"target {target:g} is met even at {lo:.3g}× the levels (the strictest the page accepts; "
            f"{statistic} error {sampler.stat(float(lo)):.4g}); any practical level meets it. Lower the target "
            "to see a trade-off."
        )
    a, b = float(grid[first - 1]), float(grid[first])

    ratio = float(grid[1] / grid[0])
    # 64 releases a point; then 128 to polish, re-bracketing in small steps where they disagree
    for batches, steps, step_ratio in ((REFINE - 1, MAX_REFINE, ratio), (REFINE, 1, 1 + 2 * RESOLUTION)):
        a, b = _refine(sampler, statistic, target, a, b, batches=batches, steps=steps, lo=lo, hi=hi, ratio=step_ratio)
        say(0.6 + 0.15 * batches / REFINE, f"refined to between {a:.4g}× and {b:.4g}× the levels")
    scale = b
    scale, a, fresh, (c_lo, c_hi), chk, checked = _checked(
        s, x, scale, a, target=target, statistic=statistic, hi=hi, say=say
    )
    eps, demands = _setting(s, scale)
    err_stricter = _stat(sampler.errors(scale * 0.9, REFINE), statistic) if scale * 0.9 >= lo else float("nan")
    query = _solution_query(s, scale)
    type(s).from_query(query)  # the link reopens a valid scenario
    say(1.0, "done")
    return Solution(
        target,
        statistic,
        s.used_projection,
        scale,
        eps,
        demands,
        _stat(sampler.errors(scale, REFINE), statistic),
        err_stricter,
        chk,
        c_lo,
        c_hi,
        int(fresh.size),
        bool(chk <= target),
        float(grid[1] / grid[0]),
        query,
        a,
        sampler.releases + checked,
        int(s.trials),
        *_view_range(fresh, statistic, int(s.trials)),
    )


def _solution_query(s, scale: float) -> dict:
    """The link of the answer: the same form of demands as the scenario (two groups keep two groups,
    with δ and ε scaled) where the page's sliders reach it, else the per-feature table."""
    eps, demands = _setting(s, scale)
    if s.mode == "two_groups":
        sp = s.specs()["demand"]
        d_s = _round3(s.demand * scale)
        if sp.lo <= d_s <= sp.hi:
            return {**s.to_query(), "demand": f"{d_s:g}", "eps": f"{eps:g}"}
    return {**s.to_query(), "mode": "table", "table": ",".join(f"{v:g}" for v in demands), "eps": f"{eps:g}"}


# ------------------------------------------------------------------ mechanism lab
#: accuracy measures of one noisy release: expected squared error, or the 95 % quantile of |error|
METRICS = ("mse", "q95")
_Z95 = 1.959963984540054  # standard normal 97.5 % quantile: P(|N| ≤ z) = 0.95


def _mech_error(mechanism: str, metric: str, *, sensitivity: float, eps: float, delta: float) -> float:
    from ..noise import mechanisms as mc

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
    from ..noise import mechanisms as mc

    name = {"laplace": "Laplace", "gaussian": "Gaussian", "mnm": "MNM"}[mechanism]
    row = next(r for r in mc.exact_profiles(sensitivity=sensitivity, eps=eps, delta=delta) if r.mechanism == name)
    return row.exact_delta, row.stated_delta


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


@dataclass(frozen=True)
class MechanismSolutions:
    """:func:`solve_mechanisms`' answers for the mechanism lab's solver: one row per mechanism (each says
    its ε or why it has none). ``meets_target`` is true: each row answers for itself."""

    metric: str
    target: float
    rows: tuple[MechanismSolution, ...]
    meets_target: bool = True

    def link_query(self, scenario) -> dict:
        """The query of the view that shows the answers: the question's own (each row names its ε)."""
        return scenario.to_query()

    def as_json(self, link: str) -> dict:
        """The rows as ``hetdp solve --json`` prints them."""
        return {"metric": self.metric, "target": self.target, "rows": [dataclasses.asdict(r) for r in self.rows]}

    def text(self, link: str) -> str:
        """One line per mechanism, as ``hetdp solve`` prints them."""
        return "\n".join(
            f"{r.mechanism:9s} "
            + (
                f"ε = {r.eps:.4g}: {self.metric} {r.error:.4g} (simulated {r.simulated:.4g}) {r.reason}"
                if r.eps is not None
                else f"no ε in range: {r.reason}"
            )
            for r in self.rows
        )


def solve_mechanism_lab(s, *, target: float, metric: str = "mse") -> MechanismSolutions:
    """The mechanism lab's accuracy solver (its spec names it): :func:`solve_mechanisms` for every
    mechanism, as one answer."""
    return MechanismSolutions(metric, target, tuple(solve_mechanisms(s, target=target, metric=metric)))


def solve_mechanisms(s, *, target: float, metric: str = "mse", releases: int = 200_000) -> list[MechanismSolution]:
    """For the mechanism lab's sensitivity Δ and δ: the smallest ε (most private) within the page's
    ε range at which each of Laplace, Gaussian (Theorem 5 calibration, valid for ε < 1) and MNM
    meets ``target`` for ``metric`` (``mse``: noise variance; ``q95``: 95 % quantile of |error|).
    Closed forms are decreasing in ε, so ε is found by bisection; each answer is checked by
    ``releases`` fresh simulated releases (mean squared error ± standard error, or the empirical
    95 % quantile). A mechanism that cannot meet the target in range says why. Before an answer is
    given, the exact privacy profile of the noise drawn at it is checked (exact δ(ε) ≤ δ, or 0 for
    Laplace); a mechanism that fails is not recommended and says so."""
    from ..noise import mechanisms as mc

    target = Interval(float, TARGET_MIN, TARGET_MAX).check("target", target, what=" (error of one release)")
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


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
