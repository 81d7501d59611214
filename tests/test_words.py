"""A sentence is a function of the result: property tests over random views and random results that each
sentence stating a ranking, a verdict or a comparison says what its numbers say (hetdp_core.reading.words and
the pages' summaries) — "most exposed" is the largest level (ties broken by the level the sentence
reads, then by the any-attacker level), a target is "met" only when the estimate is within it, and a
comparison's direction and count match the numbers it cites."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hetdp_core.framework.scenario import in_short
from hetdp_core.reading.meaning import Level, meaning_of, posterior_bounds, same_exposure
from hetdp_core.reading.words import (
    formatted,
    level,
    most_exposed,
    number,
    percent,
    quantile_share,
    share,
    target_check,
)
from hetdp_core.scenarios import get

SLOW = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- most exposed

EPS = st.one_of(st.floats(0.0, 60.0, allow_nan=False), st.just(math.inf), st.sampled_from([0.5, 1.0, 2.0]))


@st.composite
def levels(draw):
    """A view's levels: demanded, optionally delivered (≤ demanded, as every page's are), optionally an
    any-attacker level for all of them (BCDP's c_d) — ties and levels capped at a 100 % posterior included."""
    n = draw(st.integers(1, 8))
    any_attacker = draw(st.one_of(st.none(), EPS))
    out = []
    for i in range(n):
        demanded = draw(EPS)
        delivered = draw(
            st.one_of(st.none(), st.floats(0.0, 1.0).map(lambda f, d=demanded: f * d if math.isfinite(d) else d))
        )
        out.append(Level(f"g{i}", demanded, delivered=delivered, any_attacker=any_attacker))
    return out  # fmt: skip


def _key(v: Level) -> tuple[float, float, float]:
    """The ranking stated in the issue, from the levels alone: the largest level that bounds the person
    (the any-attacker level where there is one), then the level the sentence reads, then the any-attacker
    level."""
    basis = v.demanded if v.delivered is None else v.delivered
    bound = v.any_attacker if v.any_attacker is not None else basis
    return bound, basis, -math.inf if v.any_attacker is None else v.any_attacker


@settings(max_examples=200, deadline=None)
@given(levels(), st.sampled_from([0.001, 0.01, 0.1, 0.5]))
def test_most_exposed_names_the_largest_level(lv, prior):
    said = most_exposed(meaning_of(lv, prior=prior))
    top = max(_key(v) for v in lv)
    named = [v.name for v in lv if same_exposure(_key(v), top)]
    head = said.split(" — ")[0]
    names = head.removeprefix("Most exposed: ").split(", at level ")[0]
    for v in lv:  # exactly the levels with the largest key are named
        assert (re.search(rf"\b{v.name}\b", names) is not None) == (v.name in named) or len(named) > 3, (head, named)
    assert f"at level {level(top[1])}" in head
    # the person it names is at least as exposed as any other (the posterior is monotone in the level)
    worst = posterior_bounds(eps=top[0], prior=prior)[1][0]
    assert all(posterior_bounds(eps=_key(v)[0], prior=prior)[1][0] <= worst for v in lv)


def test_levels_equal_up_to_rounding_are_named_together():
    """Per-user privacy at n = 2 000 with CP: every group's effective level is the strictest demand, 0.05,
    computed as κ w_i / b — 0.05 for one group and 0.05000000000000001 for the two others. All three are
    most exposed, at level 0.05 (the sentence named two and left out the group it printed the same)."""
    from hetdp_core.scenarios import per_user_privacy as pu

    s = pu.SCENARIO.from_query({"algs": "CP,UNI,SM,LDP", "n": "2000"})
    r = pu.quick(s)
    delivered = [v.delivered for v in pu.levels(r)]
    assert len(set(delivered)) > 1 and np.allclose(delivered, 0.05, rtol=1e-12)  # the case: equal up to rounding
    said = most_exposed(r.meaning)
    assert said.startswith("Most exposed: users with ε = 0.05, users with ε = 0.5, users with ε = 2, at level 0.05 —")
    # a level that differs beyond rounding is still told apart
    lv = [Level("a", 0.05), Level("b", 0.05 * (1 + 1e-6)), Level("c", 0.05 * (1 + 1e-13))]
    assert most_exposed(meaning_of(lv, prior=0.01)).startswith("Most exposed: b, at level")
    # an infinite level, or none for any attacker, equals only itself
    assert not same_exposure((math.inf, 1.0, -math.inf), (1e300, 1.0, -math.inf))
    assert not same_exposure((1.0, 1.0, -math.inf), (1.0, 1.0, 2.0))
    assert same_exposure((math.inf, 1.0, -math.inf), (math.inf, 1.0 + 1e-15, -math.inf))


def test_a_tie_at_100_percent_is_broken_by_the_level_not_by_list_order():
    """The issue's DP-SGD view: releases at ε = 251 and 437 and all of them together are all 'at most 100 %';
    the most exposed is the largest level."""
    lv = [Level("release h = 1", 1.0), Level("release h = 1000", 251.0), Level("release h = 2000", 437.0)]
    lv.append(Level("all 2000 releases together", 6000.0))
    assert most_exposed(meaning_of(lv, prior=0.01)).startswith(
        "Most exposed: all 2000 releases together, at level 6000"
    )
    assert most_exposed(meaning_of(lv[:3], prior=0.01)).startswith("Most exposed: release h = 2000, at level 437")


@SLOW
@given(
    steps=st.integers(10, 300),
    kappa=st.floats(0.0, 3.0),
    eps=st.floats(0.05, 5.0),
    priv=st.sampled_from(["constant", "power"]),
)
def test_dp_sgd_in_short_names_its_largest_level(steps, kappa, eps, priv):
    mod = get("DP_SGD_schedules")
    s = mod.SCENARIO.from_query(
        {"steps": str(steps), "trials": "5", "kappa": f"{kappa:.3f}", "eps": f"{eps:.3f}", "priv": priv}
    )
    r = mod.run(s)
    (line,) = [x for x in in_short(r) if x.startswith("Most exposed: ")]
    top = max(v.demanded for v in mod.levels(r))
    assert f"at level {level(top)}" in line and _names_all(line, [v.name for v in mod.levels(r) if v.demanded == top])


# ---------------------------------------------------------------- targets

FIN = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(FIN, FIN, FIN, FIN, st.booleans())
def test_a_target_is_met_only_when_the_estimate_is_within_it(a, b, c, target, at_least):
    low, estimate, high = sorted((a, b, c))
    t = target_check(estimate=estimate, low=low, high=high, target=target, at_least=at_least)
    within = (lambda x: x >= target) if at_least else (lambda x: x <= target)
    assert t.met == within(estimate)
    words = t.words()
    assert words.startswith("meets the target") == t.met
    if not t.met:  # said as what the interval supports: beyond it wholly, or reaching the target
        assert ("misses" in words) == (not within(low) and not within(high))
        assert ("still reaches the target" in words) == (within(low) or within(high))
    assert number(estimate) in words and number(low) in words and number(high) in words


def test_the_issues_solver_verdict_is_not_a_pass():
    """0.5235 with 95 % interval [0.4203, 0.6476] against a target of 0.5 was called 'meets'."""
    t = target_check(estimate=0.5235, low=0.4203, high=0.6476, target=0.5)
    assert not t.met and t.verdict == "not shown"
    assert t.words("its median").startswith("does **not** show the target met: its median 0.5235 is above 0.5")
    with pytest.raises(ValueError, match="low ≤ estimate ≤ high"):
        target_check(estimate=1.0, low=2.0, high=3.0, target=1.0)


@settings(max_examples=100, deadline=None)
@given(FIN.filter(lambda v: v > 0), st.floats(0.5, 2.0), st.floats(0.0, 0.5), st.sampled_from(["median", "mean"]))
def test_the_feature_solvers_text_says_met_only_within_the_target(target, rel, half, statistic):
    from hetdp_core.reading.solve import Solution

    check = target * rel
    sol = Solution(
        target, statistic, "box", 2.0, 1.0, (0.2,), target, target * 1.2, check,
        check * (1 - half), check * (1 + half), 64, check <= target, 1.33, {}, 1.8,
    )  # fmt: skip
    text = sol.text("/x")
    assert ("meets the target" in text) == (check <= target) == sol.verdict.met
    assert sol.as_json("/x")["verdict"] == sol.verdict.verdict


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["pac", "mse"]), st.floats(0.0, 1.0), st.floats(0.0, 0.05), st.floats(0.001, 0.5))
def test_the_per_user_solvers_text_says_met_only_within_the_target(metric, check, se, beta):
    from hetdp_core.scenarios.per_user_privacy.solve import PerUserSolution

    sol = PerUserSolution(
        "A", metric, 0.01, 1.0, 0.01, 0.02, check, se, False, {}, {}, needed_share=1 - beta if metric == "pac" else None
    )
    met = check >= 1 - beta if metric == "pac" else check <= 0.01
    assert ("fresh check meets the target" in sol.text("/x")) == met == sol.verdict.met


# ---------------------------------------------------------------- one format per quantity


@settings(max_examples=200, deadline=None)
@given(st.floats(0.001, 0.5))
def test_the_share_1_minus_beta_has_one_spelling(beta):
    """The PAC level's column, its sentence and the slider's value say the same number (94.5 %, never 94 %)."""
    pu = get("Per_user_privacy")
    b = float(f"{beta:.3g}")
    col = pu.pac_column(b)
    assert col == f"PAC error ({quantile_share(b)} quantile)" and quantile_share(b) == percent(1 - b)
    assert float(quantile_share(b).split()[0]) == pytest.approx(100 * (1 - b), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 1.0))
def test_a_share_is_written_the_same_in_a_sentence_and_a_chart(x):
    assert share(x) == formatted(x, "share") == f"{100 * x:.1f} %"


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 1.0))
def test_a_posterior_bound_is_rounded_up_and_written_one_way(x):
    """The class poll's "at most" share: rounded *up* (never below the bound), as the meaning panel writes it."""
    from hetdp_core.reading._rounding import percent as rounded_percent
    from hetdp_core.reading.words import bound_share

    text = bound_share(x)
    assert text == rounded_percent(x, up=True)
    assert float(text.split()[0]) >= 100 * x * (1 - 1e-12)
    assert bound_share(0.731059) == "73.2 %"


# ---------------------------------------------------------------- the pages' comparisons


@SLOW
@given(
    q=st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0]), min_size=1, max_size=3, unique=True),
    demand=st.sampled_from([0.1, 0.2, 0.5, 1.0]),
    seed=st.integers(0, 50),
)
def test_feature_privacys_comparison_counts_the_points_it_names(q, demand, seed):
    fp = get("Feature_privacy")
    s = fp.SCENARIO.from_query(
        {"n": "200", "trials": "5", "seed": str(seed), "demand": str(demand), "points": ",".join(map(str, q))}
    )
    r = fp.run(s)
    m = r.bcdp_mse_summary.pivot(index="q", columns="method", values="median")
    wins = int((m["M_mean (BCDP)"] < m["min-δ LDP"]).sum())
    ratio = m["min-δ LDP"] / m["M_mean (BCDP)"]
    (line,) = [x for x in fp.summarize(r) if x.startswith("M_mean has the lower median")]
    assert f"at **{wins} of {len(q)}**" in line
    assert f"{ratio.min():.2g}× to {ratio.max():.2g}×" in line
    # the most exposed feature is the one with the largest level (any attacker: c_d; then δ')
    (exposed,) = [x for x in in_short(r) if x.startswith("Most exposed: ")]
    top = max(v.delivered for v in fp.levels(r))
    assert _names_all(exposed, [v.name for v in fp.levels(r) if v.delivered == top])


@SLOW
@given(
    beta=st.floats(0.001, 0.5).map(lambda b: float(f"{b:.3g}")),
    eps=st.lists(st.sampled_from([0.05, 0.1, 0.5, 1.0, 2.0, 5.0]), min_size=5, max_size=5),
    seed=st.integers(0, 20),
)
def test_per_users_ranking_names_the_lowest_error_and_its_ratio(beta, eps, seed):
    pu = get("Per_user_privacy")
    s = pu.SCENARIO.from_query(
        {"n": "1000", "trials": "20", "beta": str(beta), "eps_by_bin": ",".join(map(str, eps)), "seed": str(seed)}
    )
    r = pu.run(s)
    t = r.hetero_summary
    col = pu.pac_column(beta)
    best = t.loc[t[col].idxmin()]
    lines = pu.summarize(r)
    (low,) = [x for x in lines if x.startswith("Lowest ")]
    assert low == f"Lowest {quantile_share(beta)}-quantile error: **{best['algorithm']}** ({best[col]:.3g})."
    assert (t[col] >= best[col]).all()
    uni = [x for x in lines if x.startswith("Uniform weights (UNI)")]
    if best["algorithm"] != "UNI":
        u = float(t.loc[t["algorithm"] == "UNI", col].iloc[0])
        (line,) = uni
        assert f"reach {u:.3g}: {u / best[col]:.2g}× the best" in line and u >= best[col]
    else:
        assert not uni


@SLOW
@given(
    seed=st.integers(0, 30),
    k=st.integers(0, 2),
    demand=st.sampled_from([0.1, 0.5, 1.0, 2.0]),
    axis=st.sampled_from(["n", "eps"]),
    schedule=st.sampled_from(["constant", "poly", "inverse"]),
)
def test_private_regressions_lowest_risk_is_the_lowest(seed, k, demand, axis, schedule):
    """The sentence naming the lowest median excess risk, over random views: its method has the lowest
    median at the sweep's last point, and the value it cites is that median."""
    pr = get("Private_regression")
    q = {**pr.PAGE_SPEC.fast_query, "steps": "50", "seed": str(seed), "k": str(k), "demand": str(demand)}
    r = pr.run(pr.SCENARIO.from_query({**q, "axis": axis, "schedule": schedule}))
    risk = r.regression_excess_risk
    last = risk[risk[r.scenario.axis] == risk[r.scenario.axis].max()].dropna(subset=["median"])
    best = last.loc[last["median"].idxmin()]
    (line,) = [x for x in pr.summarize(r) if "the lowest median excess risk" in x]
    assert f"is {best['median']:.3g} ({best['method']})" in line and (last["median"] >= best["median"]).all()


def test_each_pages_in_short_names_its_largest_level():
    """Every page with levels, at its cheap view: the most exposed is the largest level."""
    from hetdp_core.framework.registry import specs

    for spec in specs():
        mod = get(spec.url)
        if not hasattr(mod, "levels"):
            continue
        r = mod.run(mod.SCENARIO.from_query(dict(spec.fast_query)))
        lv = mod.levels(r)
        said = [x for x in in_short(r) if x.startswith("Most exposed: ")]
        if not lv:
            assert not said
            continue
        top = max(_key(v) for v in lv)
        assert f"at level {level(top[1])}" in said[0], (spec.url, said)
        assert _names_all(said[0], [v.name for v in lv if _key(v) == top]), (spec.url, said)


def _names_all(sentence: str, names: list[str]) -> bool:
    """The sentence names exactly these levels (compactly, "x3, x4, …, x10 (8 levels)", beyond three)."""
    from hetdp_core.reading.meaning import compact_names

    return sentence.startswith(f"Most exposed: {compact_names(names)}, at level ")


def test_level_is_written_whole_from_a_thousand():
    assert level(2000.0) == "2000" and level(436.71) == "437" and level(0.7714) == "0.771" and level(math.inf) == "∞"
    assert share(0.731) == "73.1 %" and percent(0.945) == "94.5 %" and percent(0.95) == "95 %"
    with pytest.raises(ValueError, match="quantity must be one of"):
        formatted(1.0, "furlongs")


def test_the_per_user_page_writes_beta_one_way():
    """AppTest of the issue's view: the slider formats its value as the link holds it (%g, not Streamlit's
    two decimals), and the table's column, its everyday units and In short say 94.5 %."""
    from conftest import page_path
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(page_path("Per_user_privacy")), default_timeout=120)
    at.query_params.update({"trials": "20", "n": "1000", "beta": "0.055"})
    at.run()
    assert not at.exception
    beta = at.sidebar.slider(key="per_user_privacy_beta")
    assert beta.value == 0.055 and beta.proto.format == "%g"
    (table,) = [d.value for d in at.dataframe if "in everyday units" in d.value.columns]
    assert "PAC error (94.5 % quantile)" in table.columns
    assert all(u.endswith("in 94.5 % of releases") for u in table["in everyday units"])
    assert any("Lowest 94.5 %-quantile error" in m.value for m in at.markdown)
    # the sentence under the table names the method of the table's lowest PAC error
    (line,) = [m.value for m in at.markdown if m.value.startswith("Lowest worst-case (PAC) error here:")]
    pac = table["PAC error (94.5 % quantile)"]
    assert pac.nunique() == len(pac)  # no tie in this view: one method is the lowest
    assert f"**{table.loc[pac.idxmin(), 'method']}**" in line, (line, table[["method", pac.name]])


@SLOW
@given(
    demands=st.lists(st.sampled_from(["0.05", "0.2", "0.5", "1", "2", "5", "inf"]), min_size=2, max_size=6),
    eps=st.sampled_from([0.1, 0.5, 1.0, 2.0, 5.0, 20.0]),
    q=st.sampled_from([0.0, 0.1, 0.4, 0.9, 1.0]),
)
def test_the_guarantee_labs_translator_sentence_follows_the_levels_it_cites(demands, eps, q):
    """The translator's comparison (the caption under its table): Proposition 6 is "more conservative" exactly
    when its LDP level, as written, is below Theorem 2's; the numbers it cites are the table's."""
    lab = get("BCDP_guarantee_lab")
    r = lab.run(lab.SCENARIO.from_query({"tr_demands": ",".join(demands), "tr_eps": str(eps), "tr_q": str(q)}))
    thm2, prop6 = r.bcdp_translator_levels["LDP level"].to_numpy(float)
    line = lab.translator_comparison(r)
    # the numbers the sentence cites, read back from its words: each is a table level to four digits
    words = line.replace("Proposition 6", "P").replace("Theorem 2", "T")
    cited = [float(x) for x in re.findall(r"(?<![\w.])(?:\d+\.?\d*(?:e[+-]?\d+)?|inf)(?![\w.])", words)]
    assert cited and all(any(c == float(f"{v:.4g}") for v in (thm2, prop6)) for c in cited), (line, thm2, prop6)
    if "equals" in line:  # alike to four digits, and the one number cited is both
        assert math.isclose(prop6, thm2, rel_tol=1e-3) and cited == [float(f"{prop6:.4g}")] == [float(f"{thm2:.4g}")]
    elif "more conservative" in line:  # its claim: Proposition 6's level is the lower one
        assert prop6 < thm2 and cited == [float(f"{prop6:.4g}"), float(f"{thm2:.4g}")], (line, prop6, thm2)
    else:
        assert "is above" in line and prop6 > thm2, (line, prop6, thm2)
        assert cited == [float(f"{prop6:.4g}"), float(f"{thm2:.4g}")]
