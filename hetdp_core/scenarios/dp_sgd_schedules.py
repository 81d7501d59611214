"""DP-SGD schedules: learning-rate and privacy schedules.

Question: how should the learning rate γ_h and the per-release privacy a_h change over the
iterations so that DP-SGD stays private and still converges? θ_h of Theorem 36 (calibrated with
the example's own gradient sensitivity, :func:`hetdp_core.per_iteration.dpsgd.gradient_sensitivity`), the bound
terms A1–A3 of (11), the (ρ, κ) region 2κ + ρ > 2, and simulated trajectories on Example 33 (mean)
or 34 (ridge). Seeds: data from ``[seed, 0]``, method j from ``[seed, 1 + j]``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..framework import scenario as sc
from ..framework._doc import document
from ..framework.constraints import EPS, SEED, TRIALS, USERS
from ..framework.memo import memoised
from ..framework.registry import PageSpec
from ..framework.scenario import Boolean, Cost, InputError, Interval, Numbers, Options, Result, param, table
from ..materials.sources import MAT4376_NOTES
from ..per_iteration import dpsgd as sg
from ..reading.meaning import Level

__all__ = ["DpSgdSchedules", "SCENARIO", "PRESETS", "run", "METHODS", "STEP_OPTIONS", "schedules", "data"]

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="DP_SGD_schedules",
    title="DP-SGD schedules",
    icon=":material/timeline:",
    summary=(
        "How must learning-rate and privacy schedules change over the iterations for private SGD "
        "to stay private and still converge?"
    ),
    order=7,
    solver=None,
    fast_query={"runs": "5", "steps": "200"},
    example_query=(
        "lr=poly&rho=0.7&priv=power&kappa=1.1&eps=2&problem=ridge&lam=0.3&steps=300&runs=20&compare=1&seed=2"
    ),
    key_tables=("dpsgd_schedule",),
    text_view={"lr": "custom"},
    sources=(MAT4376_NOTES,),
)
METHODS = ("DP-SGD", "DP-SGD, a_h = 1", "SGD (no noise)", "GD (full gradient)")
STEP_OPTIONS = (100, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000)
#: runs × N × (methods) above this is refused (about 10 s on two cores)
MAX_RUN_STEPS = 8_000_000


#: the learning-rate schedules in words and formulas (the page's widget shows these)
_SCHEDULE_LABELS = {"constant": "constant γ0", "poly": "γ0 (1+h)^−ρ", "step": "step decay", "custom": "custom list"}


@dataclass(frozen=True)
class DpSgdSchedules(sc.Scenario):
    ALIASES = {"runs": "trials"}  # renamed: repetitions are "trials" on every page

    lr: str = param("poly", Options({s: _SCHEDULE_LABELS[s] for s in sg.LR_SCHEDULES}), "learning-rate schedule")
    gamma0: float = param(0.1, Interval(float, 0.001, 2.0), "γ0")
    rho: float = param(0.5, Interval(float, 0.05, 1.0), "learning-rate decay ρ", caption="ρ")
    step_every: int = param(200, Interval(int, 1, 100_000), "decay every (steps)")
    factor: float = param(0.5, Interval(float, 0.05, 1.0), "decay factor")
    custom: tuple = param(
        (0.1, 0.05, 0.02, 0.01),
        Numbers(Interval(float, 1e-6, 10.0), max_len=1000),
        "custom learning rates",
        caption="learning rates (repeats the last)",
    )
    priv: str = param("power", Options({"constant": "constant 1", "power": "h^κ"}), "privacy schedule a_h")
    kappa: float = param(0.8, Interval(float, 0.0, 3.0), "privacy decay κ", caption="κ")
    eps: float = param(1.0, EPS.narrow(0.05, 20.0), "ε (per-release level ε·a_h)")
    problem: str = param("mean", Options({"mean": "Example 33: mean", "ridge": "Example 34: ridge"}), "problem")
    Lambda: float = param(3.0, Interval(float, 0.5, 50.0), "clip Λ", caption="clip Λ (Exp data in [0, Λ])")
    lam: float = param(0.1, Interval(float, 0.0, 10.0), "ridge penalty λ", caption="ridge λ")
    steps: int = param(2000, Interval(int, 10, 50_000), "iterations N")
    trials: int = param(100, TRIALS.narrow(5, 1000), "independent runs", caption="trials (independent runs)")
    compare: bool = param(True, Boolean(), "compare with plain SGD and GD")
    n: int = param(1000, USERS.narrow(2, 1_000_000), "data points")
    seed: int = param(0, SEED, "random seed", caption="seed")
    sensitivity: float = param(
        0.0, Interval(float, 0.0, 1e6), "gradient sensitivity Δ (0: the example's own, 2Λ or 4(1 + 2R))"
    )

    @property
    def used_kappa(self) -> float:
        return self.kappa if self.priv == "power" else 0.0

    def methods(self) -> list[str]:
        return (
            ["DP-SGD"]
            + (["DP-SGD, a_h = 1"] if self.priv == "power" and self.used_kappa > 0 else [])
            + (["SGD (no noise)", "GD (full gradient)"] if self.compare else [])
        )

    @property
    def used_sensitivity(self) -> float:
        """The Δ θ_h is calibrated with: the example's own, or a larger explicit one (a smaller one is refused)."""
        return sg.checked_sensitivity(problem=self.problem, Lambda=self.Lambda, override=self.sensitivity or None)

    def validate(self) -> None:
        self.used_sensitivity  # noqa: B018 — refuses a sensitivity below the example's own
        cost = self.trials * self.steps * (4 if self.compare else 2)
        if cost > MAX_RUN_STEPS:
            raise InputError(
                f"compute size: trials × N = {self.trials * self.steps:,} is too large (limit "
                f"{MAX_RUN_STEPS // (4 if self.compare else 2):,}{' with comparisons' if self.compare else ''}). "
                "Reduce trials or N."
            )

    def estimate(self) -> Cost:
        """Measured: 8e6 (run × step) updates in 0.8 s; trajectories are kept in memory
        (runs × (N + 1) × 2 floats per method)."""
        cells = self.trials * self.steps * len(self.methods())
        seconds = cells * 1e-7 + self.steps * 2e-6
        driver = f"{len(self.methods())} methods × {self.trials} runs × N = {self.steps:,} iterations"
        if self.compare:
            # GD computes the full gradient over all n data points at every iteration (≈ 2e-9 s per point
            # and step for the mean, 1e-8 for ridge's 2-feature products; the audit's n = 10⁶, N = 50 000
            # ran 517 s while the old estimate said ≤ 1.2 s)
            full = self.steps * self.n * (1e-8 if self.problem == "ridge" else 2e-9)
            if full > seconds:
                driver = f"full-gradient GD over n = {self.n:,} data points × N = {self.steps:,} iterations"
            seconds += full
        return Cost(seconds=seconds, bytes=cells * 2 * 8 * 3 + self.n * 8 * 8, driver=driver, cells=cells)


PRESETS = {
    "Lecture: γ = (1+h)^−½, constant privacy (κ = 0): diverges": DpSgdSchedules(
        lr="poly", rho=0.5, priv="constant", kappa=0.0
    ),
    "Lecture: γ = (1+h)^−½, a_h = h^0.8: converges": DpSgdSchedules(lr="poly", rho=0.5, priv="power", kappa=0.8),
    "Constant learning rate (SGD does not converge)": DpSgdSchedules(lr="constant", priv="power", kappa=1.0),
}


def schedules(s: DpSgdSchedules, *, priv: str | None = None, kappa: float | None = None):
    """(γ, a, θ, Δ): learning rates, privacy schedule, noise scales (Theorem 36) and the sensitivity."""
    same_names = {name: getattr(s, name) for name in ("steps", "gamma0", "rho", "step_every", "factor")}
    g = sg.learning_rates(schedule=s.lr, custom=list(s.custom) if s.lr == "custom" else None, **same_names)
    a = sg.privacy_schedule(kind=priv or s.priv, steps=s.steps, kappa=s.used_kappa if kappa is None else kappa)
    sens = s.used_sensitivity
    return g, a, sg.theta(gammas=g, a=a, sensitivity=sens, eps=s.eps), sens


def data(s: DpSgdSchedules) -> tuple[np.ndarray, np.ndarray]:
    """The example's data and its minimiser β*, from the scenario's seed."""
    rng = np.random.default_rng([s.seed, 0])
    x = sg.example33_data(n=s.n, Lambda=s.Lambda, rng=rng) if s.problem == "mean" else sg.example34_data(n=s.n, rng=rng)
    return x, sg.reference_optimum(problem=s.problem, data=x, lam=s.lam)


@dataclass(frozen=True, kw_only=True)
class DpSgdResult(Result):
    """What a DP-SGD-schedules run computed, beyond its tables.

    Attributes
    ----------
    gammas, a, theta : numpy.ndarray
        Per step h: the learning rate γ_h, the privacy schedule a_h and the noise scale θ_h.
    sensitivity : float
        The example's gradient sensitivity Δ (2Λ for the clipped mean, 4(1 + 2R) for ridge).
    target : numpy.ndarray
        The minimiser β* the runs approach.
    bands : dict
        Method → (steps, 10 %, median, 90 % of the distance to β*).
    final_errors : dict
        Method → the final distances |β_N − β*| of every run.
    slopes : dict
        The fitted log-log slopes of the bound terms.
    """

    dpsgd_schedule: pd.DataFrame = table(
        "per release h: learning rate, privacy schedule a_h, noise scale θ_h, its level"
    )
    dpsgd_region: pd.DataFrame = table("the (ρ, κ) plane and this view's point")
    dpsgd_bound_terms: pd.DataFrame = table("the bound terms A1, A2, A3 against N")
    dpsgd_trajectories: pd.DataFrame = table("the simulated distance to β* per step and method (10 %, median, 90 %)")

    gammas: np.ndarray
    a: np.ndarray
    theta: np.ndarray
    sensitivity: float
    target: np.ndarray
    bands: dict[str, pd.DataFrame]
    final_errors: dict[str, np.ndarray]
    slopes: dict[str, float]


#: each method's simulated runs, kept by what they depend on (the data, the schedules, the method's own
#: generator): a change that leaves a method's inputs as they were does not simulate it again
_simulate = memoised(64 * 2**20, name="DP-SGD runs", key=lambda *, rng, **kw: (rng.bit_generator.state, kw))(
    sg.simulate
)


def _simulate_together(calls: list[dict], *, progress=None) -> list[np.ndarray]:
    """The methods not kept yet, simulated in one step loop (:func:`hetdp_core.per_iteration.dpsgd.simulate_methods`:
    the same numbers as one :func:`~hetdp_core.per_iteration.dpsgd.simulate` call each); they share the
    data, the learning rates and the problem."""
    c0 = calls[0]
    methods = [sg.MethodRuns(method=c["method"], thetas=c["thetas"], trials=c["trials"], rng=c["rng"]) for c in calls]
    return sg.simulate_methods(
        problem=c0["problem"], data=c0["data"], gammas=c0["gammas"], methods=methods, lam=c0["lam"], progress=progress
    )


@sc.page_quick
def quick(s: DpSgdSchedules, *, options: sc.RunOptions) -> DpSgdResult:
    """The schedules, the convergence region, the bound terms and their slopes, the noise checks:
    everything but the simulated runs."""
    sc.check_budget(s, options.budget)
    g, a, th, sens = schedules(s)
    _, target = data(s)
    h = np.arange(1, g.size + 1)
    schedule = pd.DataFrame({"h": h, "gamma": g, "a": a, "theta": th, "eps_release": s.eps * a})
    rr = np.linspace(0, 1, 101)
    region = pd.DataFrame(
        {
            "rho": rr,
            "kappa_boundary (2κ+ρ=2)": 1 - rr / 2,
            "your_rho": s.rho,
            "your_kappa": s.used_kappa,
            "2κ + ρ": 2 * s.used_kappa + s.rho,
            "your_point_converges": bool(sg.region(s.rho, s.used_kappa)),
        }
    )
    bt = sg.bound_terms(gammas=g, thetas=th, dist0=float(np.sum(target**2)))
    slopes = {}
    for col in ("A1", "A2", "A3"):
        try:
            slopes[col] = sg.fitted_slope(bt["N"], bt[col])
        except InputError:
            slopes[col] = float("nan")
    return sc.with_meaning(
        sc.partial_result(
            DpSgdResult,
            s,
            pending=("dpsgd_trajectories", "notes", "bands", "final_errors"),
            dpsgd_schedule=schedule,
            dpsgd_region=region,
            dpsgd_bound_terms=bt,
            checks=tuple(sg.theta_checks(thetas=th, a=a, sensitivity=sens, eps=s.eps)),
            gammas=g,
            a=a,
            theta=th,
            sensitivity=float(sens),
            target=target,
            slopes=slopes,
        )
    )


@sc.page_run
def run(s: DpSgdSchedules, *, options: sc.RunOptions) -> DpSgdResult:
    """Tables: ``dpsgd_schedule`` (γ_h, a_h, θ_h, ε·a_h), ``dpsgd_region`` (the boundary 2κ + ρ = 2 and
    your point), ``dpsgd_bound_terms`` (A1, A2, A3 vs N) — :func:`quick` — and ``dpsgd_trajectories``
    (median and 10/90 % of ‖β^(h) − β*‖ per method)."""
    q = quick(s, options=options)
    g, th = q.gammas, q.theta
    x, target = data(s)
    bands, finals, diverged = {}, {}, []
    methods = s.methods()
    calls = []
    for m in methods:
        thm = th if m != "DP-SGD, a_h = 1" else schedules(s, priv="constant", kappa=0.0)[2]
        kind = {"SGD (no noise)": "sgd", "GD (full gradient)": "gd"}.get(m, "dpsgd")
        calls.append(
            dict(
                problem=s.problem,
                data=x,
                gammas=g,
                thetas=thm,
                trials=1 if kind == "gd" else s.trials,
                method=kind,
                lam=s.lam,
                rng=np.random.default_rng([s.seed, 1 + METHODS.index(m)]),
            )
        )
    trajs = _simulate.many(calls, partial(_simulate_together, progress=options.progress))
    for m, traj in zip(methods, trajs, strict=True):
        err = sg.distances(traj, target)
        bad = np.any(err > sg.DIVERGED * max(1.0, float(err[0, 0])), axis=0)
        if bad.any():
            diverged.append(f"{m} from step {int(np.argmax(bad))}")
        bands[m] = sg.trajectory_bands(traj, target)
        finals[m] = err[:, -1]
    notes = (
        [
            f"Diverged (some runs more than {sg.DIVERGED:g} times their starting distance from β*): "
            f"{'; '.join(diverged)}. The learning rate reaches γ = {float(g.max()):g}; the iteration is stable "
            "only for small steps (for the mean, γ < 1). Distances that overflow are shown as infinite."
        ]
        if diverged
        else []
    )
    return dataclasses.replace(
        q,
        dpsgd_trajectories=pd.concat([b.assign(method=k) for k, b in bands.items()]),
        notes=tuple(notes),
        bands=bands,
        final_errors=finals,
    )


def levels(result: DpSgdResult) -> list[Level]:
    """Per release h the level ε·a_h (first, middle, last) and all N releases together by basic
    composition Σ_h ε·a_h (what an attacker who sees every iterate can learn at most)."""
    sch = result.dpsgd_schedule
    e = sch["eps_release"].to_numpy(float)
    n = e.size
    out = [Level(f"release h = {h}", float(e[h - 1])) for h in sorted({1, (n + 1) // 2, n})]
    return [*out, Level(f"all {n} releases together (Σ ε·a_h)", float(e.sum()))]


#: the page's question in plain words (page header and reports)
QUESTION = (
    "Private stochastic gradient descent adds noise at every step. How should the learning rate and "
    "the per-step privacy level change over the iterations so that the algorithm stays private *and* "
    "still converges? The lecture's answer: with γ_h = (1+h)^−ρ and a_h = h^κ, the privacy term of the "
    "error bound vanishes exactly when 2κ + ρ > 2 — at the price of a per-release guarantee ε·h^κ that "
    "weakens over time."
)

SCENARIO = DpSgdSchedules


def summarize(result: DpSgdResult) -> tuple[str, ...]:
    """The run in a few plain sentences (page header, report, ``hetdp run``)."""
    s = result.scenario
    out = [
        f"Release h is (ε · a_h)-DP with ε = {s.eps:g}; the noise scale grows from θ₁ = {result.theta[0]:.3g} "
        f"to θ_N = {result.theta[-1]:.3g} over N = {s.steps} steps (gradient sensitivity Δ = {result.sensitivity:g})."
    ]
    for name, err in result.final_errors.items():
        runs = f"{len(err)} run" + ("s" if len(err) != 1 else "")
        out.append(f"{name}: final distance to β* median {float(np.median(err)):.3g} over {runs}.")
    return tuple(out)


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
kappa | float or None | Privacy decay κ (default: the scenario's).
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
