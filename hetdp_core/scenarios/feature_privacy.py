r"""Feature privacy (BCDP): per-feature demands δ, global LDP level ε, correlation q.

Question: how much more accurate is the mean under Mechanism 1 (M_mean) than under min-δ LDP,
and how does correlation q erode that gain? The run computes Theorem 2's allocation c, the
guarantee table (Proposition 4), Mechanism 1's stages, and a Monte Carlo sweep of the squared error
along one axis (q, d, f or n), with one random stream per sweep point.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..framework import scenario as sc
from ..framework._doc import document
from ..framework.constraints import DEMAND, EPS, SEED, TRIALS, USERS
from ..framework.registry import PageSpec
from ..framework.scenario import PAGE_BUDGET, Boolean, Cost, InputError, Interval, Numbers, Options, param
from ..materials.sources import BCDP_PAPER
from ..per_feature.bcdp import Allocation, privacy_allocation
from ..per_feature.bcdp_sim import (
    MAX_CELLS_CLI,
    check_sweep_size,
    guarantee_report,
    point_rng,
    q_mixture_data,
    sweep_points,
    sweep_tables,
    two_group_demands,
)
from ..per_feature.bcdp_sim import PRESETS as PAPER_PRESETS
from ..per_feature.mmean import Stage, mmean_stages
from ..reading.meaning import Level
from ._common import map_points

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="Feature_privacy",
    title="Feature privacy (BCDP)",
    icon=":material/tune:",
    order=1,
    summary=(
        "Some features of my record are more sensitive than others. If I protect them more and "
        "the rest less, how much accuracy do I gain over protecting everything at the strictest "
        "level — and how does correlation between features eat into that gain?"
    ),
    solver="hetdp_core.reading.solve:solve_feature_privacy",
    fast_query={"trials": "5", "n": "500"},
    example_query="q=0.35&n=1300&trials=6&seed=3&points=0.05,0.6,1&eps=4.19&k=3",
    key_tables=("bcdp_guarantee", "bcdp_mse_summary"),
    text_view={"mode": "table"},
    sources=(BCDP_PAPER,),
    risk_field="eps",
)
#: The ε / δ slider grid (log-spaced, 12 per decade, plus the papers' values).
EPS_GRID = sc.log_grid(0.05, 20.0, extra=(0.2, 0.8, 2.0, 8.0))
AXES = {"q": "correlation q", "d": "dimension d", "f": "fraction f of sensitive features", "n": "users n"}
GRIDS = {
    "q": "0.01,0.05,0.1,0.2,0.3,0.5,0.7,0.9,1",
    "d": "5,10,20,30,40,50",
    "f": "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1",
    "n": "500,1000,2000,5000,10000,20000",
}
N_OPTIONS = (100, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000)
#: presets in the page cap trials for interactivity; `hetdp reproduce` runs the full configuration
PAGE_PRESET_TRIALS = 40


#: the demand of the sensitive features in the two-group mode (finite: a sensitive feature has a demand)
_DEMAND = DEMAND.narrow(0.05, 20.0, closed="both", finite=True)


@dataclass(frozen=True)
class FeaturePrivacy(sc.Scenario):
    ALIASES = {"delta": "demand"}  # renamed: δ is the (ε, δ)-DP failure probability elsewhere
    mode: str = param(
        "two_groups",
        Options({"two_groups": "Two groups", "table": "Per-feature table"}),
        "how demands are given",
        caption="Demands",
    )
    d: int = param(10, Interval(int, 1, 60), "number of features", caption="d — number of features")
    k: int = param(2, Interval(int, 0, 60), "number of sensitive features", caption="k — sensitive features")
    demand: float = param(
        0.2, _DEMAND, "demand of the sensitive features", caption="δ — demand of the sensitive features"
    )
    eps: float = param(2.0, EPS.narrow(0.05, 20.0), "global LDP level ε", caption="ε — global LDP level")
    table: tuple = param(
        (0.2, 0.2, 2, 2, 2, 2, 2, 2, 2, 2),
        Numbers(DEMAND.narrow(1e-3, closed="both"), max_len=60, allow_inf=True),
        "δ per feature",
        caption="δ per feature (any order; inf = no extra demand)",
    )
    q: float = param(0.1, Interval(float, 0.0, 1.0), "correlation q", caption="q — correlation between features")
    zeta_auto: bool = param(
        True, Boolean(), "ζ = (1+q)/2", caption="split the strictest budget automatically (ζ = (1+q)/2)"
    )
    zeta: float = param(0.55, Interval(float, 0.01, 1.0), "ζ", caption="share set aside for correlation (ζ)")
    n: int = param(10_000, USERS.narrow(100, 200_000), "number of users", caption="n — users")
    trials: int = param(20, TRIALS.narrow(5, 2000), "Monte Carlo trials", caption="trials")
    seed: int = param(0, SEED, "random seed", caption="seed")
    axis: str = param("q", Options(AXES), "x-axis of the MSE plot")
    points: tuple = param(
        (0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1), Numbers(Interval(float, 0.0, 1e7), max_len=30), "sweep points"
    )
    projection: str = param("box", Options(("box", "ball", "none")), "projection")
    published: bool = param(
        False,
        Boolean(),
        "as published",
        caption="As published (paper's Duchi constant, ball projection, unprojected baseline)",
    )

    #: Figure 3 as published or corrected, with any projection, is still Figure 3
    VARIANTS = ("published", "projection")

    def validate(self) -> None:
        if self.mode == "two_groups" and self.k > self.d:
            raise InputError(
                f"k (number of sensitive features) must be <= d = {self.d}; got {self.k}. Lower k or raise d."
            )
        if self.mode == "table" and self.axis in ("d", "f"):
            raise InputError(f"axis {self.axis!r} needs two-group demands; with a per-feature table use axis q or n.")
        if len(set(self.points)) != len(self.points):
            dup = next(v for v in self.points if self.points.count(v) > 1)
            raise InputError(
                f"points (sweep points) must be distinct; {dup:g} appears more than once. Remove the repeated value."
            )
        rules = {
            "q": (0.0, 1.0, False, "a correlation"),
            "f": (0.0, 1.0, False, "a fraction"),
            "d": (1, 60, True, "a number of features"),
            "n": (100, 200_000, True, "a number of users"),
        }
        lo, hi, whole, what = rules[self.axis]
        for v in self.points:
            if not lo <= v <= hi or (whole and v != round(v)):
                raise InputError(
                    f"points (sweep points) on axis {self.axis} must be {'whole numbers' if whole else 'values'} "
                    f"in [{lo:g}, {hi:g}] ({what}); got {v:g}."
                )

    def estimate(self) -> Cost:
        """≈ 5 ns per random number of the Monte Carlo sweep (measured: page default 1.8e8 in 0.9 s)."""
        d = len(self.table) if self.mode == "table" else self.d
        sweep_cells = check_sweep_size(
            axis=self.axis, values=self.points, d=d, n=self.n, trials=self.trials, limit=10**15
        )
        big_d = max([d] + ([int(v) for v in self.points] if self.axis == "d" else []))
        big_n = max([self.n] + ([int(v) for v in self.points] if self.axis == "n" else []))
        # the dotplot's releases: Mechanism 1 draws up to d(d+1)/2 normals per user and release (stage k
        # privatises d − k + 1 coordinates), not d (the audit's 60-feature table at n = 200 000 ran 97 s)
        cells = sweep_cells + dot_trials(self.n, d) * self.n * (d * (d + 1) // 2)
        return Cost(
            cells=sweep_cells,
            seconds=cells * 5e-9,
            bytes=big_n * big_d * 8 * 8 + self.trials * 8 * 4,
            driver=f"{len(self.points)} sweep points × {self.trials} trials × n = {big_n:,} users × d = {big_d}",
        )

    # ---- derived settings (one place for the 'as published' switch)
    @property
    def duchi_scale(self) -> str:
        return "paper" if self.published else "unbiased"

    @property
    def used_projection(self) -> str:
        return "ball" if self.published else self.projection

    @property
    def baseline_projection(self) -> str:
        return "none" if self.published else self.projection

    def demands(self) -> np.ndarray:
        if self.mode == "two_groups":
            return two_group_demands(d=self.d, k=self.k, demand=self.demand, eps=self.eps)
        return np.asarray(self.table, dtype=float)


def paper_preset(
    key: str,
    *,
    variant: str = "corrected",
    trials: int | None = None,
    n: int | None = None,
    q: float | None = None,
    seed: int = 0,
) -> FeaturePrivacy:
    """The scenario of a paper figure (``fig3``, ``fig4a``, ``fig4b``); ``variant`` ``published``
    uses the printed Duchi constant, ball projection and unprojected baseline."""
    if key not in PAPER_PRESETS:
        raise InputError(f"preset must be one of {', '.join(sorted(PAPER_PRESETS))}; got {key!r}.")
    p = PAPER_PRESETS[key]
    vals = dict(
        mode="two_groups",
        eps=p.eps,
        demand=p.demand,
        q=p.q if q is None else q,
        n=p.n if n is None else n,
        zeta_auto=True,
        axis=p.axis,
        points=p.values,
        trials=p.trials if trials is None else trials,
        seed=seed,
        published=variant == "published",
    )
    if p.axis == "q":
        vals.update(d=p.d, k=p.k)
    elif p.axis == "d":
        vals.update(d=10, k=round(10 * p.k_fraction))
    else:
        vals.update(d=p.d, k=round(p.d * 0.2))
    return FeaturePrivacy(**vals)


#: Page presets (names shown in the selector) → scenarios; trials capped for interactivity.
PRESET_KEYS = {"Figure 3": "fig3", "Figure 4a": "fig4a", "Figure 4b": "fig4b"}


def _point(value, *, s: FeaturePrivacy, demands, d, k, max_cells):
    return sweep_points(
        axis=s.axis,
        values=(value,),
        demands=tuple(demands) if s.axis in ("q", "n") else None,
        d=d,
        f=(k / d) if d else 0.0,
        demand_sensitive=_dsens(s, demands),
        eps=s.eps,
        q=s.q,
        zeta=None if s.zeta_auto else s.zeta,
        n=s.n,
        trials=s.trials,
        seed=s.seed,
        projection=s.used_projection,
        baseline_projection=s.baseline_projection,
        scale=s.duchi_scale,
        max_cells=max_cells,
    )


def _dsens(s: FeaturePrivacy, demands) -> float:
    return s.demand if s.mode == "two_groups" else float(np.min(demands))


#: the summary's column of the median squared error in everyday units (page table, CSV, ``hetdp run``)
PER_FEATURE = "median, about ± per feature"


def per_feature_error(squared, d):
    """A squared error T of the published mean over d features in everyday units: about ± √(T/d) on each
    feature's mean (means in [−1, 1]); ``d`` per row where the sweep varies it."""
    return np.sqrt(np.asarray(squared, float) / np.asarray(d, float))


#: equally likely releases in the quantile dotplot; at most DOT_TRIALS simulated releases are read,
#: fewer for large n·d so the dotplot costs at most DOT_CELLS random numbers (43 releases at the default
#: n = 10 000, d = 10)
DOT_TRIALS, DOT_CELLS = 200, 24_000_000


def dot_trials(n: int, d: int) -> int:
    """Releases simulated for the dotplot: as many as fit in DOT_CELLS random numbers (Mechanism 1
    draws up to d(d+1)/2 per user and release), at least DOTS, at most DOT_TRIALS."""
    from ..reading.meaning import DOTS

    return int(np.clip(DOT_CELLS // max(n * (d * (d + 1) // 2), 1), DOTS, DOT_TRIALS))


def release_quantiles(s: FeaturePrivacy, alloc, names) -> pd.DataFrame:
    """Twenty equally likely published values of each feature's mean under Mechanism 1 at the
    scenario's q (n users from the q-mixture prior, the sweep point's data seed): the (i − ½)/20
    quantiles of up to 200 simulated releases (:func:`dot_trials`), next to the true mean, for the
    quantile dotplot."""
    from ..per_feature.bcdp_sim import mmean_releases
    from ..reading.meaning import DOT_PROBABILITIES, dot_table

    d = alloc.c.size
    x = q_mixture_data(n=s.n, d=d, q=s.q, rng=point_rng(s.seed, float(s.q)))
    xs = x[:, alloc.order]
    drawn = ("q-mixture", s.n, d, float(s.q), ("point_rng", s.seed))  # what draws x: its key, not its hash
    est_sorted = mmean_releases(  # its generator serves this draw only: a kept one is the same draw
        xs,
        data=(drawn, tuple(int(i) for i in alloc.order)),
        c_sorted=alloc.c_sorted,
        trials=dot_trials(s.n, d),
        rng=np.random.default_rng([s.seed, 4242]),
        projection=s.used_projection,
        scale=s.duchi_scale,
    )
    est = np.empty_like(est_sorted)
    est[:, alloc.order] = est_sorted  # back to the user's feature order
    q = np.quantile(est, DOT_PROBABILITIES, axis=0)
    truth = x.mean(axis=0)
    labels = [f"{names[j]} (δ = {alloc.demands[j]:g})" for j in range(d)]
    return dot_table({lab: q[:, j] for j, lab in enumerate(labels)}, dict(zip(labels, truth)))


@dataclass(frozen=True, kw_only=True)
class FeaturePrivacyResult(sc.Result):
    """What a Feature-privacy run computed, beyond its tables.

    Attributes
    ----------
    alloc : Allocation
        Theorem 2's privacy allocation c (in the user's feature order, with ``order`` and ``c_sorted``).
    names : tuple of str
        The features' names ``x1 … xd`` in the user's order.
    sorted_names : tuple of str
        The same names in Mechanism 1's order (ascending budget).
    stages : tuple of Stage
        Mechanism 1's stages (first feature, dimension, level Δ_k, weight w_k).
    k : int
        The number of sensitive features (demand below ε).
    guaranteed : numpy.ndarray
        The guaranteed level δ'_i of each feature (Proposition 4, user order), checked against its demand.
    """

    bcdp_guarantee: pd.DataFrame = sc.table("per feature: demand, budget c_i and the guaranteed level, checked")
    bcdp_stages: pd.DataFrame = sc.table("the stages of Mechanism 1: features covered and budget increments")
    bcdp_mse_summary: pd.DataFrame = sc.table(
        "the sweep: median and quartiles of the squared error, exact MSE, per point and method"
    )
    bcdp_mse_errors: pd.DataFrame = sc.table("every simulated squared error of the sweep")
    bcdp_release_quantiles: pd.DataFrame = sc.table("twenty equally likely published means per feature")

    alloc: Allocation
    names: tuple[str, ...]
    sorted_names: tuple[str, ...]
    stages: tuple[Stage, ...]
    k: int
    guaranteed: np.ndarray


@sc.page_quick
def quick(s: FeaturePrivacy, *, options: sc.RunOptions) -> FeaturePrivacyResult:
    """Theorem 2's allocation, the guarantee table (Proposition 4) and its checks, Mechanism 1's stages:
    everything of the run but its simulations (the squared-error sweep and the dotplot's releases)."""
    sc.check_budget(s, options.budget)
    demands = s.demands()
    d = demands.size
    k = s.k if s.mode == "two_groups" else int(np.sum(demands < s.eps))
    alloc = privacy_allocation(demands=demands, eps=s.eps, q=s.q, zeta=None if s.zeta_auto else s.zeta)
    report = guarantee_report(alloc)
    names = [f"x{i + 1}" for i in range(d)]
    sorted_names = [names[i] for i in alloc.order]
    stages = mmean_stages(alloc.c_sorted)
    stage_table = pd.DataFrame(
        [
            {
                "stage": st_.k,
                "first feature": sorted_names[st_.start],
                "dimension": st_.dims,
                "level Δ_k": st_.level,
                "weight w_k": st_.weight,
            }
            for st_ in stages
        ]
    )
    return sc.with_meaning(
        sc.partial_result(
            FeaturePrivacyResult,
            s,
            pending=("bcdp_mse_summary", "bcdp_mse_errors", "bcdp_release_quantiles"),
            bcdp_guarantee=report.table,
            bcdp_stages=stage_table,
            checks=report.checks,
            alloc=alloc,
            names=tuple(names),
            sorted_names=tuple(sorted_names),
            stages=tuple(stages),
            k=int(k),
            guaranteed=report.guaranteed,
        )
    )


@sc.page_run
def run(s: FeaturePrivacy, *, options: sc.RunOptions) -> FeaturePrivacyResult:
    """Allocation, guarantee table, stages (:func:`quick`) and the MSE sweep of one scenario.

    Tables: ``bcdp_guarantee`` (Proposition 4 per feature), ``bcdp_stages`` (Mechanism 1),
    ``bcdp_mse_summary`` (median, quartiles, exact pre-projection MSE, bound shapes per point and
    method) and ``bcdp_mse_errors`` (one squared ℓ2 error per trial). Each sweep point draws from
    ``SeedSequence([seed, value])``, so a point's numbers do not depend on the other points."""
    q = quick(s, options=options)
    demands = s.demands()
    parts = map_points(
        partial(_point, s=s, demands=demands, d=demands.size, k=q.k, max_cells=options.max_cells),
        s.points,
        options=options,
        label=lambda v: f"{s.axis} = {v:g}",
    )
    summary, errors = sweep_tables(s.axis, [point for part in parts for point in part])  # built once
    summary = summary.drop(columns="seconds", errors="ignore")  # timing is not reproducible
    summary[PER_FEATURE] = per_feature_error(summary["median"], summary[s.axis] if s.axis == "d" else demands.size)
    return dataclasses.replace(
        q,
        bcdp_mse_summary=summary,
        bcdp_mse_errors=errors,
        bcdp_release_quantiles=release_quantiles(s, q.alloc, list(q.names)),
    )


__all__ = [
    "FeaturePrivacy",
    "run",
    "paper_preset",
    "PRESETS",
    "PRESET_KEYS",
    "AXES",
    "GRIDS",
    "EPS_GRID",
    "N_OPTIONS",
    "MAX_CELLS_CLI",
]


def levels(result: FeaturePrivacyResult) -> list[Level]:
    """The page's privacy levels per feature: the demanded δ_i and the guaranteed δ'_i of
    Mechanism 1 (Proposition 4, including what the correlated features leak), which bounds attackers
    whose beliefs follow the model (correlation ≤ q), and the LDP level delivered c_d, which bounds
    any attacker — the input of :func:`hetdp_core.reading.meaning.meaning_of`."""
    any_attacker = float(result.alloc.ldp_level)
    return [
        Level(f, float(d), delivered=float(v), any_attacker=any_attacker, model="local", unit="user's record")
        for f, d, v in zip(result.names, result.alloc.demands, result.guaranteed)
    ]


def key_numbers(result: FeaturePrivacyResult) -> dict:
    """Guarantees and accuracy of one scenario, for plan A vs plan B (:mod:`hetdp_core.reading.compare`)."""
    s = result.scenario
    out = {f"guaranteed δ' of {f}": float(v) for f, v in zip(result.names, result.guaranteed)}
    out["LDP level delivered c_d"] = float(result.alloc.ldp_level)
    m = result.bcdp_mse_summary
    for method in m["method"].unique():
        for v, med in m.loc[m["method"] == method, [s.axis, "median"]].itertuples(index=False):
            out[f"median squared error, {method}, {s.axis} = {v:g}"] = float(med)
            # in everyday units: a squared error T over d features is about ± √(T/d) on each feature's mean
            d = v if s.axis == "d" else len(result.names)
            out[f"typical error of one feature's mean (± √(T/d)), {method}, {s.axis} = {v:g}"] = float(
                per_feature_error(med, d)
            )
    return out


#: the page's question in plain words (page header and reports)
QUESTION = (
    "Some features of a record are more sensitive than others (say, a diagnosis versus a postcode). "
    "Each user randomises their own record (local DP at level ε), and additionally asks for a "
    "stricter level δ_i on the sensitive features. How much more accurate is the average we can "
    "publish, compared with protecting the *whole* record at the strictest level min δ — and how "
    "does correlation q between features eat into that gain?"
)

SCENARIO = FeaturePrivacy


def _page_preset(key: str):
    """A paper setup for the page: at most PAGE_PRESET_TRIALS trials, and fewer where the page's
    budget needs it (Figure 4b's 50 features at 40 trials were estimated at 15 s and refused — a
    preset the page itself could not open)."""
    trials = PAGE_PRESET_TRIALS
    while trials > 5 and paper_preset(key, trials=trials).estimate().seconds > 0.8 * PAGE_BUDGET.seconds:
        trials -= 5
    return paper_preset(key, trials=trials)


PRESETS = {
    name: _page_preset(key) for name, key in (("Figure 3", "fig3"), ("Figure 4a", "fig4a"), ("Figure 4b", "fig4b"))
}


def summarize(result: FeaturePrivacyResult) -> tuple[str, ...]:
    """The run in a few plain sentences (page header, report, ``hetdp run``): the protection each
    group of features gets, and how M_mean's median error compares with min-δ LDP's along the sweep."""
    s, g = result.scenario, result.bcdp_guarantee
    met = int((g["pass"] == "pass").sum())
    m = result.bcdp_mse_summary
    med = m.pivot(index=s.axis, columns="method", values="median")
    ratio = (med["min-δ LDP"] / med["M_mean (BCDP)"]).to_numpy()
    return (
        f"Every feature's demand is met ({met} of {len(g)} features: guaranteed δ' ≤ δ)."
        if met == len(g)
        else f"**{len(g) - met} of {len(g)} features' demands are not met** (guaranteed δ' > δ).",
        f"The whole record is {result.alloc.ldp_level:.3g}-LDP (c_d), the level that bounds any attacker; "
        f"the global level asked was ε = {s.eps:g}.",
        f"M_mean has the lower median squared error at **{int((ratio > 1).sum())} of {ratio.size}** sweep points "
        f"({AXES[s.axis]}); min-δ LDP's median error is {np.nanmin(ratio):.2g}× to {np.nanmax(ratio):.2g}× "
        "M_mean's.",
    )


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
key | {'fig3', 'fig4a', 'fig4b'} | The paper figure.
variant | {'corrected', 'published'} | The corrected mechanism, or as published (printed
    constant, ball projection, unprojected baseline).
trials | int or None | Monte Carlo trials (default: the paper's).
n | int or None | Number of users (default: the paper's).
q | float or None | Correlation q (default: the paper's).
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
