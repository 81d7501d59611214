"""BCDP guarantee lab: exact computations on small finite examples.

Question: what does a per-feature (Bayesian coordinate) privacy level promise? Example 1 (BCDP
finite, LDP infinite), Example 2 (composition fails), per-coordinate randomized response against
Propositions 3 and 4, the hypothesis-testing view (Theorem 1), and the δ → c translator (Theorem 2
vs Proposition 6).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._deprecated import moved
from ..framework import scenario as sc
from ..framework._doc import document
from ..framework.constraints import DEMAND, EPS
from ..framework.memo import memoised
from ..framework.registry import PageSpec
from ..framework.scenario import Boolean, Cost, InputError, Interval, Numbers, Options, Result, param, table
from ..materials.sources import BCDP_PAPER
from ..per_feature import bcdp_exact as ex
from ..per_feature.bcdp import Allocation, Translation, mse_bound_thm2, privacy_allocation, translate_demands_to_c
from ..per_feature.bcdp_exact import ExactReport
from ..reading.meaning import Level

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="BCDP_guarantee_lab",
    title="BCDP guarantee lab",
    icon=":material/science:",
    order=2,
    summary=(
        "What exactly does a per-feature guarantee promise? Exact answers on small examples: a "
        "mechanism private per feature but not per record, composition that fails, and how loose "
        "the bounds are."
    ),
    solver=None,
    fast_query={},
    example_query=(
        "a=0.3&b=0.9&c=0.6&rr_c=0.4,1,2&test_source=rr&test_coord=2&test_q=0.7&tr_demands=0.5,inf,3&tr_eps=3&tr_q=0.4"
    ),
    key_tables=("bcdp_translator",),
    text_view={},
    sources=(BCDP_PAPER,),
)
RR_QS = tuple(np.round(np.linspace(0, 1, 21), 3))
N_REF = 10_000


@dataclass(frozen=True)
class GuaranteeLab(sc.Scenario):
    ALIASES = {"tr_delta": "tr_demands"}  # renamed: demands, not the (ε, δ)-DP δ
    a: float = param(0.5, Interval(float, 0.0, 1.0), "P(M=1 | x1=0, x2=0)", caption="a = P(M=1 | x1=0, x2=0)")
    b: float = param(0.5, Interval(float, 0.0, 1.0), "P(M=1 | x1=1, x2=0)", caption="b = P(M=1 | x1=1, x2=0)")
    c: float = param(0.5, Interval(float, 0.0, 1.0), "P(M=1 | x1=1, x2=1)", caption="c = P(M=1 | x1=1, x2=1)")
    rr_c: tuple = param(
        (0.2, 0.5, 0.5, 1),
        Numbers(Interval(float, 0.0, 10.0), max_len=10),
        "RR levels c_i",
        caption="RR level c_i per coordinate (d ≤ 10)",
    )
    rr_coord: int = param(1, Interval(int, 1, 10), "coordinate for the RR chart")
    test_source: str = param(
        "example1",
        Options({"example1": "Example 1", "rr": "Randomized response"}),
        "mechanism of the test view",
        caption="mechanism",
    )
    test_coord: int = param(1, Interval(int, 1, 10), "coordinate for the test view")
    test_q: float = param(0.3, Interval(float, 0.0, 1.0), "q for randomized response")
    tr_demands: tuple = param(
        (0.2, 0.2, 2, 2, 2, 2),
        Numbers(DEMAND.narrow(1e-3, closed="both"), max_len=30, allow_inf=True),
        "demands δ",
        caption="demands δ (any order, inf allowed)",
    )
    tr_eps: float = param(2.0, EPS.narrow(0.1, 20.0), "ε (translator)", caption="ε (global LDP)")
    tr_q: float = param(0.1, Interval(float, 0.0, 1.0), "q (translator)")
    all_tests: bool = param(
        True, Boolean(), "show every rejection region", caption="show every rejection region (|Y| ≤ 12)"
    )

    def validate(self) -> None:
        if self.rr_coord > len(self.rr_c):
            raise InputError(
                f"rr_coord (coordinate for the RR chart) must be <= {len(self.rr_c)}, the number of "
                f"RR levels; got {self.rr_coord}."
            )
        top = 2 if self.test_source == "example1" else len(self.rr_c)
        if self.test_coord > top:
            source = self.specs()["test_source"].label_of(self.test_source)
            raise InputError(
                f"test_coord (coordinate for the test view) must be <= {top} for {source}; got {self.test_coord}."
            )

    def estimate(self) -> Cost:
        q = quick_cost(self)  # the enumeration, and the translator's solves
        return Cost(seconds=q.seconds + len(self.tr_demands) * 0.05, bytes=q.bytes, driver=q.driver)


PRESETS = {
    "Example 1 at a = b = c = ½ (paper)": GuaranteeLab(a=0.5, b=0.5, c=0.5, test_source="example1", test_coord=1),
    "Randomized response, d = 10, c = 0.3": GuaranteeLab(rr_c=(0.3,) * 10, rr_coord=1, test_source="rr", test_q=0.3),
    "Figure 3 demands (translator)": GuaranteeLab(tr_demands=(0.2, 0.2, 2, 2, 2, 2, 2, 2, 2, 2), tr_eps=2.0, tr_q=0.1),
}


def format_levels(v) -> list[str]:
    """An exact level as text: a number to 4 significant digits, or ∞."""
    return ["∞" if math.isinf(x) else f"{x:.4g}" for x in np.atleast_1d(v)]


@dataclass(frozen=True, kw_only=True)
class GuaranteeLabResult(Result):
    """What a BCDP-guarantee-lab run computed, beyond its tables (all exact, no randomness).

    Attributes
    ----------
    rep1 : ExactReport
        Example 1's exact BCDP, CDP and LDP levels and total variations.
    test : HypothesisTest
        The hypothesis-test tab: the coordinate's values, its exact level, every test's (α, β).
    alloc : Allocation
        Theorem 2's allocation for the translator's demands.
    translate : Translation
        Proposition 6's allocation (``c``, ``c_sorted``) from
        :func:`hetdp_core.per_feature.bcdp.translate_demands_to_c`.
    names : tuple of str
        The translator's feature names.
    """

    bcdp_example1: pd.DataFrame = table("Example 1: the exact BCDP level of each coordinate against the bounds")
    bcdp_example2: pd.DataFrame = table("Example 2: the same for the second example")
    bcdp_rr_vs_bounds: pd.DataFrame = table(
        "randomized response: exact BCDP level vs Propositions 3 and 4, per coordinate and q"
    )
    bcdp_tradeoff: pd.DataFrame = table("Theorem 1: the optimal tests' trade-off (α, β) for the chosen coordinate")
    bcdp_translator: pd.DataFrame = table(
        "the translator δ → c: demands and both allocations (Theorem 2, Proposition 6)"
    )
    bcdp_translator_levels: pd.DataFrame = table(
        "the translator's two allocations compared: the LDP level each delivers and Theorem 2's bound shape"
    )

    rep1: ExactReport
    test: HypothesisTest
    alloc: Allocation
    translate: Translation
    names: tuple[str, ...]


def _example2_table() -> pd.DataFrame:
    """Example 2: per-feature levels and LDP of one run, two independent runs and a post-processed run."""
    prior2, one = ex.example2(copies=1)
    _, two = ex.example2(copies=2)
    xor = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    rows = []
    for label, mech in (
        ("one run: [x1⊕x2, x3] or [x2, x1⊕x3]", one),
        ("two independent runs", two),
        ("one run, post-processed (XOR of its two bits)", ex.post_process(one, xor)),
    ):
        r = ex.exact_report(prior2, mech)
        rows.append(
            {
                "mechanism": label,
                "δ₁": format_levels(r.bcdp[0])[0],
                "δ₂": format_levels(r.bcdp[1])[0],
                "δ₃": format_levels(r.bcdp[2])[0],
                "LDP ε": format_levels(r.ldp)[0],
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class HypothesisTest:
    """The hypothesis-test tab (Theorem 1): the coordinate's ``values``, its exact BCDP ``level`` (the paper's δ_i),
    whether it is ``testable`` (at least two values), the number of ``outputs``, and ``all`` — every
    deterministic test's (α, β), or ``(None, None)`` when not shown."""

    values: tuple
    level: float
    testable: bool
    outputs: int
    all: tuple = (None, None)


def _hypothesis_test(s: GuaranteeLab, prior_t, mech_t) -> tuple[HypothesisTest, pd.DataFrame]:
    """The test of feature ``test_coord``: its exact level, its outputs and its trade-off curve."""
    i = s.test_coord - 1
    vals, P = ex.conditional_outputs(prior_t, mech_t, i)
    level = float(ex.bcdp_levels(prior_t, mech_t)[i])
    testable = P.shape[0] >= 2
    if testable:
        a_np, b_np = ex.tradeoff_curve(P[0], P[1])
        every = ex.all_tests(P[0], P[1]) if s.all_tests and P.shape[1] <= 12 else (None, None)
    else:
        a_np, b_np, every = np.array([0.0, 1.0]), np.array([1.0, 0.0]), (None, None)
    test = HypothesisTest(tuple(vals), level, testable, int(P.shape[1]), tuple(every))
    return test, pd.DataFrame({"alpha": a_np, "beta": b_np})


#: the lab's exact parts, each kept by its own inputs (the tabs are independent): moving an input of one
#: tab recomputes that tab's part only (Example 2 has none; Proposition 6's cvxpy solve was 80 % of a run)
_example2 = memoised(2**20, name="Example 2")(_example2_table)
_rr_sweep = memoised(16 * 2**20, name="randomized-response sweeps")(ex.rr_sweep)
_translate = memoised(16 * 2**20, name="Proposition 6 translations")(translate_demands_to_c)


def quick_cost(s: GuaranteeLab) -> Cost:
    """The quick part's cost: the randomized-response enumeration (2^d inputs × 2^d outputs per q)."""
    d = len(s.rr_c)
    cells = 4**d * len(RR_QS)
    return Cost(seconds=cells * 3e-8, bytes=4**d * 8 * 6, driver=f"exact enumeration of 2^{d} inputs × 2^{d} outputs")


@sc.page_quick
def quick(s: GuaranteeLab, *, options: sc.RunOptions) -> GuaranteeLabResult:
    """Every tab but the translator's Proposition 6 (a cvxpy solve): Example 1, Example 2, randomized
    response against the bounds (and its checks), the hypothesis tests, Theorem 2's allocation."""
    sc.check_budget(s, options.budget)
    prior1, mech1 = ex.example1(a=s.a, b=s.b, c=s.c)
    rep1 = ex.exact_report(prior1, mech1)
    ex1 = pd.DataFrame({"coordinate": [1, 2], "bcdp": rep1.bcdp, "cdp": rep1.cdp, "ldp": rep1.ldp})

    rr_c = np.asarray(s.rr_c, dtype=float)
    sweep = _rr_sweep(c=rr_c, qs=RR_QS)

    if s.test_source == "example1":
        prior_t, mech_t = prior1, mech1
    else:
        prior_t, mech_t = ex.q_mixture_prior(d=rr_c.size, q=s.test_q), ex.randomized_response(rr_c)
    test, tradeoff = _hypothesis_test(s, prior_t, mech_t)
    tr_demands = np.asarray(s.tr_demands, dtype=float)
    return sc.with_meaning(
        sc.partial_result(
            GuaranteeLabResult,
            s,
            pending=("bcdp_translator", "translate", "bcdp_translator_levels"),
            bcdp_example1=ex1,
            bcdp_example2=_example2(),
            bcdp_rr_vs_bounds=sweep.table,
            bcdp_tradeoff=tradeoff,
            checks=sweep.checks,
            rep1=rep1,
            test=test,
            alloc=privacy_allocation(demands=tr_demands, eps=s.tr_eps, q=s.tr_q),
            names=tuple(f"x{j + 1}" for j in range(tr_demands.size)),
        )
    )


@sc.page_run
def run(s: GuaranteeLab, *, options: sc.RunOptions) -> GuaranteeLabResult:
    """Tables: ``bcdp_example1``, ``bcdp_example2``, ``bcdp_rr_vs_bounds``, ``bcdp_tradeoff`` (:func:`quick`),
    ``bcdp_translator``. Exact (no randomness)."""
    q = quick(s, options=options)
    tr_demands, alloc = np.asarray(s.tr_demands, dtype=float), q.alloc
    tr = _translate(demands=tr_demands, eps=s.tr_eps, q=s.tr_q)
    compare = pd.DataFrame(
        {
            "method": ["Theorem 2", "Proposition 6 (cvxpy)"],
            "LDP level": [alloc.ldp_level, float(np.max(tr.c))],
            f"bound shape (17) at n = {N_REF:,}": [
                mse_bound_thm2(c_sorted=alloc.c_sorted, n=N_REF),
                mse_bound_thm2(c_sorted=tr.c_sorted, n=N_REF),
            ],
        }
    )
    return dataclasses.replace(
        q,
        bcdp_translator=pd.DataFrame(
            {"feature": list(q.names), "demand": tr_demands, "c_theorem2": alloc.c, "c_prop6": tr.c}
        ),
        translate=tr,
        bcdp_translator_levels=compare,
    )


def levels(result: GuaranteeLabResult) -> list[Level]:
    """The translator's features: the demanded δ_i and the guaranteed δ'_i of Mechanism 1 under
    Theorem 2's allocation (Proposition 4, including what correlated features leak; attackers whose
    beliefs follow the model) and the LDP level c_d (any attacker)."""
    from ..per_feature.bcdp import mechanism_guarantee

    alloc = result.alloc
    g = mechanism_guarantee(alloc)
    any_attacker = float(alloc.ldp_level)
    return [
        Level(str(n), float(d), delivered=float(v), any_attacker=any_attacker, model="local", unit="user's record")
        for n, d, v in zip(result.names, alloc.demands, g.guaranteed)
    ]


#: the page's question in plain words (page header and reports)
QUESTION = (
    "What exactly does a per-feature (Bayesian coordinate) privacy level promise? On small examples "
    "everything can be computed exactly, by listing every input and output. Here you can see a "
    "mechanism that protects each feature but not the record as a whole, a guarantee that breaks "
    "when a mechanism is run twice, how loose the general bounds are under correlation, and what "
    "the guarantee means for someone trying to guess a feature."
)

SCENARIO = GuaranteeLab
__all__ = ["GuaranteeLab", "SCENARIO", "PRESETS", "run", "format_levels", "RR_QS"]
__getattr__ = moved(__name__, {"levels_text": f"{__name__}:format_levels"})


def summarize(result: GuaranteeLabResult) -> tuple[str, ...]:
    """The lab's exact findings in a few plain sentences (page header, report, ``hetdp run``)."""
    r1, cmp = result.rep1, result.bcdp_translator_levels
    lv = cmp["LDP level"].to_numpy()
    return (
        f"Example 1 (a, b, c as set): coordinate levels δ₁ = {format_levels(r1.bcdp[0])[0]}, "
        f"δ₂ = {format_levels(r1.bcdp[1])[0]}; the whole record is {format_levels(r1.ldp)[0]}-LDP (exact).",
        f"Coordinate {result.scenario.test_coord}'s exact level is δ = {format_levels(result.test.level)[0]}: "
        "no test of its value does better than that trade-off.",
        f"Translator: Theorem 2 delivers LDP level {lv[0]:.3g}, Proposition 6 {lv[1]:.3g} for the same demands.",
    )


def translator_comparison(result: GuaranteeLabResult) -> str:
    """The translator's two allocations compared in one sentence, from their LDP levels (the table
    ``bcdp_translator_levels``, to four significant digits as the sentence writes them): Proposition 6 is
    called the more conservative exactly when its level, as written, is below Theorem 2's; levels that
    are written alike are said to be equal to those digits."""
    thm2, prop6 = (float(v) for v in result.bcdp_translator_levels["LDP level"].to_numpy(float))
    a, b = f"{prop6:.4g}", f"{thm2:.4g}"
    if a == b:
        return f"Proposition 6's LDP level equals Theorem 2's here ({a}, to four digits)."
    if float(a) < float(b):
        return (
            f"Proposition 6 is more conservative here (LDP level {a} against Theorem 2's {b}): "
            "it ignores the tighter LDP level."
        )
    return f"Here Proposition 6's LDP level ({a}) is above Theorem 2's ({b})."


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
v | float | An exact level (possibly ∞).
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
