"""Group-wise zCDP lab: privacy that depends on the size of your group.

Question: counts of k groups are released with noise proportional to the count (same relative error
r for everyone). Is a bigger group then better protected? Promised vs actual loss per group, both
directions and both neighbours; and the open question for Algorithm 1 (is its loss non-increasing
in the group size?), answered numerically.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..framework import scenario as sc
from ..framework._doc import document
from ..framework.constraints import RHO, SEED, TRIALS
from ..framework.registry import PageSpec
from ..framework.scenario import Cost, InputError, Interval, Numbers, Options, Result, RunOptions, param, table
from ..materials.sources import GROUPWISE_NOTE
from ..per_group import zcdp
from ..per_group.zcdp import ClaimCheck, Monotonicity, RenyiCurves
from ..reading.meaning import Level

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="Groupwise_zCDP",
    title="Group-wise zCDP",
    icon=":material/groups:",
    order=5,
    summary=(
        "Counts are released with the same relative error for every group. Is a bigger group "
        "really better protected — and does the published privacy claim hold in both directions?"
    ),
    solver=None,
    fast_query={"algorithm": "1", "trials": "50"},
    example_query=("mode=list&counts=0,2,7,40&rho=1&r=0.3&algorithm=1&alpha_max=10&group=3&trials=300&seed=4"),
    key_tables=("zcdp_group_summary",),
    text_view={"mode": "list"},
    sources=(GROUPWISE_NOTE,),
    risk_field="rho",
    risk_kind="zcdp",
)
RHO_GRID = sc.log_grid(0.01, 10.0, extra=(0.5, 1.0))
ALPHA_MAX_GRID = (2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0)
MAX_GROUPS = 200
ZIPF_MAX_K = 50
MAX_ALG1_SUMMARY = 40
MAX_CELLS = 20_000_000
CURVE_POINTS = 50


@dataclass(frozen=True)
class GroupwiseZcdp(sc.Scenario):
    mode: str = param("zipf", Options({"zipf": "Zipf generator", "list": "List"}), "group sizes", caption="Group sizes")
    k: int = param(8, Interval(int, 1, ZIPF_MAX_K), "number of groups", caption="k — number of groups")
    total: int = param(2000, Interval(int, 0, 10_000_000), "total people")
    s: float = param(1.2, Interval(float, 0.0, 3.0), "Zipf exponent", caption="Zipf exponent s")
    counts: tuple = param(
        (0, 3, 10, 50, 400),
        Numbers(Interval(float, 0, 1e9), max_len=MAX_GROUPS),
        "counts per group",
        caption="counts per group (comma-separated)",
    )
    rho: float = param(
        0.5, RHO.narrow(0.01, 10.0, closed="both"), "zCDP level ρ", caption="ρ — zCDP level (σ² = 1/(2ρ))"
    )
    r: float = param(0.2, Interval(float, 0.01, 1.0), "relative error r", caption="r — relative error")
    algorithm: int = param(2, Interval(int, 1, 2), "algorithm", caption="Algorithm")
    alpha_max: float = param(20.0, Interval(float, 2.0, 100.0), "largest Rényi order", caption="largest Rényi order α")
    group: int = param(1, Interval(int, 1, MAX_GROUPS), "group for the D_α plot")
    trials: int = param(2000, TRIALS.narrow(10, 100_000), "simulated releases", caption="trials (simulated releases)")
    seed: int = param(0, SEED, "random seed", caption="seed")

    def group_counts(self) -> np.ndarray:
        if self.mode == "zipf":
            return zcdp.zipf_counts(k=self.k, total=self.total, s=self.s)
        return zcdp.validate_counts(self.counts)

    def validate(self) -> None:
        counts = self.group_counts()
        if counts.size * self.trials > MAX_CELLS:
            raise InputError(
                f"compute size: {counts.size} groups × {self.trials} trials exceeds {MAX_CELLS:.0e}. Reduce trials."
            )
        if self.group > counts.size:
            raise InputError(
                f"group (group for the D_α plot) must be <= {counts.size}, the number of groups; got {self.group}."
            )

    def estimate(self) -> Cost:
        """Algorithm 1's numerical divergences dominate: estimated from the quadrature each would plan
        (:func:`hetdp_core.per_group.zcdp.algorithm1_seconds`; values already computed cost nothing)."""
        counts, algorithm, alphas, scan_alphas, scan_sizes = _plan(self)
        jobs = [(float(x), scan_alphas) for x in scan_sizes]
        if algorithm == 1:
            jobs.append((float(counts[self.group - 1]), alphas))
            if counts.size <= MAX_ALG1_SUMMARY:
                jobs += [(float(x), (2.0,)) for x in np.unique(counts)]
        secs = sum(zcdp.algorithm1_seconds(x=x, rho=self.rho, r=self.r, alpha=a) for x, a in jobs)
        return Cost(
            cells=counts.size * self.trials,
            seconds=secs + counts.size * self.trials * 3e-8,
            bytes=counts.size * self.trials * 8 * 4,
            driver=f"Algorithm 1's numerical divergences at ρ = {self.rho:g}, r = {self.r:g} for "
            f"{len({x for x, _ in jobs})} group sizes (small groups at large ρ are the costly ones)",
        )


def _plan(s: GroupwiseZcdp):
    counts = s.group_counts()
    algorithm = s.algorithm
    alphas = tuple(np.round(np.linspace(1.01, s.alpha_max, CURVE_POINTS), 6))
    scan_alphas = tuple(a for a in (2.0, 5.0, 10.0) if a <= s.alpha_max) or (2.0,)
    scan_sizes = np.unique(np.concatenate([[0.0], np.geomspace(1, max(counts.max(), 10), 11).round()]))
    return counts, algorithm, alphas, scan_alphas, scan_sizes


PRESETS = {
    "Zipf groups (k = 8, 2000 people)": GroupwiseZcdp(
        mode="zipf", k=8, total=2000, s=1.2, rho=0.5, r=0.2, algorithm=2, alpha_max=20.0, group=1
    ),
    "Tiny groups (0–5 people)": GroupwiseZcdp(
        mode="list", counts=(0, 1, 2, 3, 5), rho=1.0, r=0.3, algorithm=1, alpha_max=10.0, group=2
    ),
    "Near the Gaussian mechanism (r = 0.01)": GroupwiseZcdp(
        mode="list", counts=(1, 10, 100, 1000), rho=0.5, r=0.01, algorithm=1, alpha_max=20.0, group=2
    ),
}


#: equally likely releases in the quantile dotplot; simulated releases they are read from
DOT_RELEASES = 100_000


def release_quantiles(s: GroupwiseZcdp, x: float) -> pd.DataFrame:
    """Twenty equally likely published counts of the chosen group (true count ``x``) under both
    algorithms: the (i − ½)/20 quantiles of 100 000 simulated releases (Algorithm 1's law has no
    closed-form quantiles), for the quantile dotplot."""
    from ..reading.meaning import DOT_PROBABILITIES, dot_table

    rows = {
        f"Algorithm {alg}": np.quantile(
            zcdp.release(
                [x],
                rho=s.rho,
                r=s.r,
                algorithm=alg,
                trials=DOT_RELEASES,
                rng=np.random.default_rng([s.seed, 31337, alg]),
            )[:, 0],
            DOT_PROBABILITIES,
        )
        for alg in (1, 2)
    }
    return dot_table(rows, dict.fromkeys(rows, x))


@dataclass(frozen=True, kw_only=True)
class GroupwiseZcdpResult(Result):
    """What a Group-wise zCDP run computed, beyond its tables.

    Attributes
    ----------
    counts : numpy.ndarray
        The group sizes (Zipf-generated or as listed).
    curves : RenyiCurves
        D_α in both directions for the chosen group, with the claimed budget.
    claim : ClaimCheck
        :func:`hetdp_core.per_group.zcdp.check_claim` of those curves (violated orders, unresolved orders, …).
    at2 : float or None
        Algorithm 2's divergence at α = 2 for the chosen group.
    x_sel : float
        The chosen group's size.
    monotonicity : dict of float to Monotonicity
        Order α → whether Algorithm 1's privacy loss decreases with the group size (the open question).
    summary_skipped : bool
        Whether the per-group summary was left out (Algorithm 1 beyond its group limit): the view has no
        ``zcdp_group_summary``.
    """

    zcdp_releases: pd.DataFrame = table("simulated releases per group: mean, spread, relative error vs the bound")
    zcdp_renyi_curve: pd.DataFrame = table("D_α of the chosen group in both directions, the claim, its violations")
    zcdp_claimed_budgets: pd.DataFrame = table("Algorithm 2's claimed budgets v and ξ against the group size")
    zcdp_group_summary: pd.DataFrame | None = table(
        "per group: what it is promised and what it gets (Algorithm 1 only up to its group limit)", optional=True
    )
    zcdp_loss_vs_size: pd.DataFrame = table("the open question: Algorithm 1's loss against the group size")
    zcdp_release_quantiles: pd.DataFrame = table("twenty equally likely published counts of the chosen group")
    counts: np.ndarray
    curves: RenyiCurves
    claim: ClaimCheck
    at2: RenyiCurves | None
    x_sel: float
    monotonicity: dict[float, Monotonicity]

    @property
    def summary_skipped(self) -> bool:
        return self.zcdp_group_summary is None


def quick_cost(s: GroupwiseZcdp) -> Cost:
    """The quick part's cost: the simulated releases (≈ 3e-8 s per group and trial, and the dotplot's
    2 × 100 000 releases) and, for Algorithm 1, the chosen group's numerical divergences (Algorithm 2's
    are closed-form; values already computed cost nothing)."""
    counts, algorithm, alphas, _, _ = _plan(s)
    secs = (counts.size * s.trials + 2 * DOT_RELEASES) * 3e-8
    if algorithm == 1:
        x = float(counts[s.group - 1])
        secs += zcdp.algorithm1_seconds(x=x, rho=s.rho, r=s.r, alpha=alphas)
        secs += zcdp.algorithm1_seconds(x=x, rho=s.rho, r=s.r, alpha=(2.0,))
    return Cost(
        seconds=secs,
        bytes=(counts.size * s.trials + 2 * DOT_RELEASES) * 8 * 4,
        driver=f"the releases of {counts.size} groups and the chosen group's divergences (Algorithm {algorithm})",
    )


@sc.page_quick
def quick(s: GroupwiseZcdp, *, options: RunOptions) -> GroupwiseZcdpResult:
    """The simulated releases, the chosen group's D_α in both directions with the claim checked, the
    claimed budgets and the dotplot's releases, with every input checked: everything but the per-group
    summary and the open question's scan (Algorithm 1's divergences over the group sizes, the costly
    part)."""
    sc.check_budget(s, options.budget)
    counts, algorithm, alphas, _, _ = _plan(s)
    stats = zcdp.release_summary(counts, rho=s.rho, r=s.r, algorithm=algorithm, trials=s.trials, rng=s.seed)
    x_sel = float(counts[s.group - 1])
    curves = zcdp.renyi_curves(algorithm=algorithm, x=x_sel, rho=s.rho, r=s.r, alpha=alphas)
    claim = zcdp.check_claim(curves)
    at2 = zcdp.renyi_curves(algorithm=algorithm, x=x_sel, rho=s.rho, r=s.r, alpha=(2.0,))
    curve = pd.DataFrame(
        {
            "alpha": curves.alpha,
            "up": curves.up,
            "down": curves.down,
            "claimed": curves.claimed,
            "violated": curves.violated,
        }
    )
    sizes = np.unique(np.concatenate([counts, np.geomspace(1, max(counts.max(), 2), 30).round()]))
    v, xi = zcdp.claimed_budget(sizes, r=s.r)
    budgets = pd.DataFrame({"size": sizes, "v": v, "xi": xi})
    return sc.with_meaning(
        sc.partial_result(
            GroupwiseZcdpResult,
            s,
            pending=("zcdp_group_summary", "zcdp_loss_vs_size", "monotonicity"),
            zcdp_releases=stats,
            zcdp_renyi_curve=curve,
            zcdp_claimed_budgets=budgets,
            zcdp_release_quantiles=release_quantiles(s, x_sel),
            checks=tuple(zcdp.curve_checks(curves, rho=s.rho)),
            counts=counts,
            curves=curves,
            claim=claim,
            at2=at2,
            x_sel=x_sel,
        )
    )


@sc.page_run
def run(s: GroupwiseZcdp, *, options: RunOptions) -> GroupwiseZcdpResult:
    """Tables: ``zcdp_releases`` (simulated releases per group), ``zcdp_renyi_curve`` (D_α of the
    chosen group, both directions), ``zcdp_claimed_budgets`` (v, ξ vs size) (these three: :func:`quick`),
    ``zcdp_group_summary`` (promised vs actual; Algorithm 1 only up to 40 groups) and ``zcdp_loss_vs_size``
    (the open question: Algorithm 1's loss vs size for α = 2, 5, 10)."""
    q = quick(s, options=options)
    counts, algorithm, _, scan_alphas, scan_sizes = _plan(s)
    summary = None
    if not (algorithm == 1 and counts.size > MAX_ALG1_SUMMARY):
        summary = zcdp.group_summary(counts, rho=s.rho, r=s.r, algorithm=algorithm, alpha_max=s.alpha_max)
    parts = []
    for i, sz in enumerate(scan_sizes):
        if options.progress is not None:
            options.progress(i / scan_sizes.size, f"x = {sz:g}")
        parts.append(zcdp.divergence_vs_size(sizes=[sz], alphas=scan_alphas, rho=s.rho, r=s.r, algorithm=1))
    scan = pd.concat(parts, ignore_index=True)
    return dataclasses.replace(
        q, zcdp_group_summary=summary, zcdp_loss_vs_size=scan, monotonicity=zcdp.loss_monotonicity(scan, rel_tol=1e-9)
    )


#: δ of the zCDP → (ε, δ) conversion used to state what a level means for a person
MEANING_DELTA = 1e-6


def levels(result: GroupwiseZcdpResult) -> list[Level]:
    """Algorithm 1 releases every group's count as a post-processing of the Gaussian mechanism with
    σ = Δ/√(2ρ), i.e. μ = √(2ρ)-GDP: one level, its exact (ε, δ) at δ = 1e-6 (the Gaussian profile, tighter
    than the zCDP conversion ρ + 2√(ρ log 1/δ)), and μ, whose exact trade-off curve gives the risk in
    attack terms. Algorithm 2's per-group claim does not hold (the page's checks show where), so no
    level is stated for it (an empty table)."""
    from ..noise.gdp import gdp_epsilon, mu_from_rho

    s = result.scenario
    if s.algorithm != 1:
        return []
    mu = mu_from_rho(s.rho)  # Gaussian noise σ = Δ/√(2ρ): its exact curve
    name = f"every group (Algorithm 1, ρ = {s.rho:g}-zCDP)"
    return [Level(name, gdp_epsilon(mu, MEANING_DELTA), delta=MEANING_DELTA, gaussian_mu=mu)]


#: the page's question in plain words (page header and reports)
QUESTION = (
    "Counts of people in k groups (say, patients per rare disease) are released with noise "
    "proportional to the count, so every group gets the same *relative* error r. A bigger group "
    "should then be better protected than a small one. Is that what actually happens? For each "
    "group this page compares the privacy loss it is promised with the loss it really gets — in "
    "both directions and for both neighbours (one person more, one person less), as group-wise zCDP "
    "requires."
)

SCENARIO = GroupwiseZcdp
__all__ = [
    "GroupwiseZcdp",
    "SCENARIO",
    "PRESETS",
    "run",
    "RHO_GRID",
    "ALPHA_MAX_GRID",
    "MAX_GROUPS",
    "MAX_ALG1_SUMMARY",
    "ZIPF_MAX_K",
]


def summarize(result: GroupwiseZcdpResult) -> tuple[str, ...]:
    """The run in a few plain sentences (page header, report, ``hetdp run``)."""
    s, claim = result.scenario, result.claim
    ref = zcdp.claim_reference(s.algorithm)
    head = f"Group {s.group} (x = {result.x_sel:g}), Algorithm {s.algorithm}, ρ = {s.rho:g}, r = {s.r:g}: "
    if s.algorithm == 1:
        verdict = (
            "a resolved value exceeds α·ρ — a **numerical failure**, not a finding"
            if claim.bound_violation
            else f"both directions stay below {ref} on the checked orders"
        )
    elif claim.holds:
        verdict = f"both directions stay below {ref} on the checked orders"
    else:
        first = min(v for v in (claim.first_violation_up, claim.first_violation_down) if v is not None)
        verdict = (
            f"**the paper's claim fails** (a finding about the paper, not a failed check) from α ≈ {first:.3g}"
            + (
                f"; the loss is infinite from α = {claim.alpha_infinite_threshold:.4g}"
                if claim.alpha_infinite_threshold is not None
                else ""
            )
        )
    return (head + verdict + ".", f"{result.counts.size} groups, {int(result.counts.sum()):,} people.")


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
