"""What privacy do I need for this accuracy? — the Feature-privacy solver."""

from urllib.parse import parse_qsl

import numpy as np
import pytest
from conftest import ROOT, strict_json
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.scenario import InputError
from hetdp_core.per_feature.bcdp_sim import point_rng, q_mixture_data
from hetdp_core.reading.solve import solve_feature_privacy
from hetdp_core.scenarios import get
from hetdp_ui.cli import main

FP = get("Feature_privacy")


@pytest.mark.parametrize(
    "query,target",
    [
        ({"n": "10000"}, 0.5),
        ({"n": "5000", "q": "0.6"}, 2.0),
        ({"n": "20000", "d": "6", "k": "3", "delta": "0.5"}, 0.1),
    ],
)
def test_answer_meets_the_target_and_ten_percent_more_private_does_not(query, target):
    """The solver's statistic is the page's plotted one (median ‖x̂ − x̄‖², the page's projection)."""
    from hetdp_core.reading.solve import _errors, _stat

    s = FP.SCENARIO.from_query(query)
    sol = solve_feature_privacy(s, target=target)
    assert sol.error <= target < sol.error_10pct_more_private
    # the fresh check does not reject the answer (its interval reaches the target); it is called met only
    # when its estimate is within the target, and its sentence says which
    assert sol.check_low <= target and sol.verdict.verdict != "missed"
    assert sol.meets_target == (sol.check <= target) == sol.verdict.met
    assert ("meets the target" in sol.text("/")) == sol.meets_target
    # an independent simulation (another seed) of 10 % more private misses the target
    x = q_mixture_data(n=s.n, d=s.demands().size, q=s.q, rng=point_rng(s.seed, float(s.q)))
    e = _errors(s, x, sol.scale * 0.9, trials=800, seed=[123])
    assert _stat(e, "median") > target
    # the link reopens a scenario with exactly these levels
    s2 = FP.SCENARIO.from_query(sol.scenario_query)
    assert np.allclose(s2.demands(), sol.demands, rtol=1e-5) and s2.eps == pytest.approx(sol.eps, rel=1e-5)


@pytest.mark.parametrize(
    "target,match",
    [
        (1e-5, "below the smallest error reachable"),
        (1e5, "met even at"),
        (0, r"target must be in \[1e-06"),
        (float("nan"), "target must be"),
    ],
)
def test_infeasible_or_bad_targets_say_why(target, match):
    with pytest.raises(InputError, match=match):
        solve_feature_privacy(FP.SCENARIO.from_query({"n": "10000"}), target=target)


def test_cli_solve(capsys):
    code = main(["solve", "Feature_privacy", "--query", "n=10000", "--target", "0.5", "--json"])
    doc = strict_json(capsys.readouterr().out)
    assert doc["error"] <= 0.5 < doc["error_10pct_more_private"]
    # exit 0 exactly when the fresh estimate is within the target (met), 1 otherwise
    assert doc["meets_target"] == (doc["check"] <= 0.5) and code == (0 if doc["meets_target"] else 1)
    assert doc["verdict"] in ("met", "met by the estimate", "not shown") and "95 % interval" in doc["verdict_words"]
    assert doc["statistic"] == "median" and doc["projection"] == "box"
    assert FP.SCENARIO.from_query(dict(parse_qsl(doc["link"].split("?", 1)[1])))
    assert main(["solve", "Feature_privacy", "--target", "1e-5"]) == 2
    assert "below the smallest error" in capsys.readouterr().err
    assert main(["solve", "Per_user_privacy", "--target", "1"]) == 2


def test_page_solver_panel():
    at = AppTest.from_file(str(ROOT / "pages" / "feature_privacy" / "page.py"), default_timeout=120)
    at.query_params.update({"trials": "5", "n": "10000"})
    at.run()
    at.number_input(key="feature_privacy_target").set_value(0.5)
    at.button(key="feature_privacy_solve").click().run()
    assert not at.exception
    assert any("× the levels" in s.value for s in at.success)
    (fresh,) = [m.value for m in at.markdown if m.value.startswith("Fresh simulation")]
    assert "the target" in fresh and "95 % interval" in fresh
    at.button(key="feature_privacy_use_solution").click().run()
    # two groups stay two groups (δ and ε scaled, 3 significant digits): the page did not switch to the
    # per-feature table and an ε of 3.20833
    assert not at.exception and at.query_params.get("mode") == "two_groups"
    eps = float(at.query_params.get("eps"))
    assert eps == float(f"{eps:.3g}")
    at.number_input(key="feature_privacy_target").set_value(1e-5)
    at.button(key="feature_privacy_solve").click().run()
    assert not at.exception and any("below the smallest error" in e.value for e in at.error)


def test_mechanism_solver_meets_the_target_and_ten_percent_more_private_does_not():
    from hetdp_core.noise import mechanisms as mc
    from hetdp_core.reading.solve import solve_mechanisms

    ml = get("Mechanism_lab")
    s = ml.SCENARIO.from_query({"sens": "1", "delta": "1e-5"})
    for metric, target in (("mse", 10.0), ("q95", 5.0), ("mse", 50.0)):
        for r in solve_mechanisms(s, target=target, metric=metric):
            if r.eps is None:
                assert r.mechanism == "gaussian" and "ε < 1" in r.reason
                continue
            assert r.error <= target * (1 + 1e-6) and r.error_10pct_more_private > target
            if metric == "mse":  # simulation agrees within 4 standard errors
                assert abs(r.simulated - r.error) < 4 * r.simulated_se
            else:
                assert abs(r.simulated - r.error) / r.error < 0.02
    laplace = next(r for r in solve_mechanisms(s, target=10.0) if r.mechanism == "laplace")
    assert laplace.eps == pytest.approx(np.sqrt(2 / 10.0), rel=1e-5)  # 2(Δ/ε)² = τ
    assert mc.noise_variance("laplace", sensitivity=1, eps=laplace.eps) <= 10.0 * (1 + 1e-6)
    with pytest.raises(InputError, match="metric must be one of"):
        solve_mechanisms(s, target=1.0, metric="max")


def test_mechanism_solver_cli_and_page(capsys):
    assert main(["solve", "Mechanism_lab", "--target", "10", "--json"]) == 0
    rows = strict_json(capsys.readouterr().out)["rows"]
    assert {r["mechanism"] for r in rows} == {"laplace", "gaussian", "mnm"}
    at = AppTest.from_file(str(ROOT / "pages" / "mechanism_lab" / "page.py"), default_timeout=120)
    at.run()
    at.number_input(key="mechanism_lab_target").set_value(10.0)
    at.button(key="mechanism_lab_solve").click().run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "**laplace**: ε = 0.4472" in text and "**gaussian**: no ε in range" in text


@pytest.mark.parametrize(
    "query,target,metric",
    [
        ({"trials": "100"}, 0.01, "pac"),
        ({"trials": "100", "problem": "mean"}, 0.01, "mse"),
        ({"trials": "100", "demand": "groups"}, 0.02, "pac"),
    ],
)
def test_per_user_solver_meets_the_target_and_ten_percent_more_private_does_not(query, target, metric):
    from hetdp_core.scenarios.per_user_privacy.solve import solve_per_user

    pu = get("Per_user_privacy")
    s = pu.SCENARIO.from_query(query)
    sol = solve_per_user(s, target=target, metric=metric)
    assert sol.error <= target < sol.error_10pct_more_private  # same draws, rescaled
    # a fresh seed: met only by an estimate within the target, and never rejected by its interval
    v = sol.verdict
    assert sol.meets_target == v.met and v.verdict != "missed"
    assert v.met == (sol.check_error >= 1 - s.beta if metric == "pac" else sol.check_error <= target)
    s2 = pu.SCENARIO.from_query(sol.scenario_query)  # the link opens the scaled demands
    e0, e2 = s.demands(pu.load_data(s, None)[0]), s2.demands(pu.load_data(s2, None)[0])
    fin = np.isfinite(e0)
    assert np.allclose(e2[fin], e0[fin] * sol.scale, rtol=1e-5)


def test_per_user_solver_bad_input_and_page(capsys):
    from hetdp_core.scenarios.per_user_privacy.solve import solve_per_user

    pu = get("Per_user_privacy")
    s = pu.SCENARIO.from_query({"trials": "50"})
    with pytest.raises(InputError, match="below the error"):
        solve_per_user(s, target=1e-6)
    with pytest.raises(InputError, match="algorithm must be one of"):
        solve_per_user(s, target=0.01, algorithm="LDP")
    with pytest.raises(InputError, match="metric must be"):
        solve_per_user(s, target=0.01, metric="max")
    code = main(["solve", "Per_user_privacy", "--query", "trials=50", "--target", "0.01", "--metric", "q95", "--json"])
    doc = strict_json(capsys.readouterr().out)
    assert code == (0 if doc["meets_target"] else 1) and doc["meets_target"] == (doc["check_error"] >= 0.95)
    at = AppTest.from_file(str(ROOT / "pages" / "per_user_privacy" / "page.py"), default_timeout=120)
    at.query_params.update({"trials": "50"})
    at.run()
    at.number_input(key="per_user_privacy_target").set_value(0.01)
    at.button(key="per_user_privacy_solve").click().run()
    assert not at.exception and any("every finite demand ×" in x.value for x in at.success)
    at.button(key="per_user_privacy_use_solution").click().run()
    assert not at.exception and at.query_params.get("eps_by_bin") != "0.05,0.5,2,0.5,0.05"


@pytest.mark.parametrize(
    "slug,query", [("feature_privacy", {"trials": "5", "n": "2000"}), ("per_user_privacy", {"trials": "50"})]
)
def test_the_solvers_answer_survives_pinning_and_unpinning_plan_a(slug, query):
    """Pinning plan A reran the page and threw the solver's answer away; it is kept for the same question
    (the scenario and the solver's inputs) and goes when the question changes."""
    at = AppTest.from_file(str(ROOT / "pages" / slug / "page.py"), default_timeout=300)
    at.query_params.update(query)
    at.run()
    at.button(key=f"{slug}_solve").click().run()
    assert not at.exception

    def shown():
        return [s.value for s in at.success if "most private" in s.value or "×" in s.value]

    answer = shown()
    assert answer
    at.button(key=f"{slug}_pin_set").click().run()
    assert not at.exception and shown() == answer
    at.button(key=f"{slug}_pin_clear").click().run()
    assert not at.exception and shown() == answer
    at.number_input(key=f"{slug}_target").set_value(0.3 if slug == "feature_privacy" else 0.02).run()
    assert shown() == []  # another question: the answer to the old one is not shown


def test_the_binomial_quantile_is_scipys_binom_ppf():
    """The solvers' confidence intervals take order statistics at binomial quantiles, computed from
    scipy.special (a solve does not import scipy.stats); scipy.stats' ``binom.ppf`` is the oracle, over
    the sizes a solve draws (to 10⁵ releases), the quantiles it asks for (the median, a PAC level 1 − β)
    and levels from 10⁻⁹ to 0.999, both tails."""
    from scipy import stats

    from hetdp_core.reading.intervals import binomial_quantile

    sizes = [*range(1, 300), 512, 1000, 1168, 4096, 12_345, 100_000]
    ps = (1e-6, 0.01, 0.05, 0.25, 0.5, 0.9, 0.945, 0.95, 0.99, 1 - 1e-6)
    levels = (1e-9, 0.001, 0.025, 0.3, 0.7, 0.975, 0.999)
    ties = 0
    for n in sizes:
        for p in ps:
            want = stats.binom.ppf(levels, n, p).astype(int)
            for lev, w in zip(levels, want):
                got = binomial_quantile(lev, n=n, p=p)
                if got != w:  # only where P(K ≤ k) equals the level in exact arithmetic: the smaller k is right
                    k = min(got, w)
                    assert got == k and abs(stats.binom.cdf(k, n, p) - lev) <= 1e-12 * lev, (n, p, lev, got, w)
                    ties += 1
    assert ties <= 3  # (n = 3, p = 0.9: P(K = 0) = 0.001 exactly)
    # a tie in exact arithmetic (P(K ≤ 3) = ½ for n = 7, p = ½) is the smallest k, not the next one
    assert binomial_quantile(0.5, n=7, p=0.5) == 3
    assert binomial_quantile(0.001, n=3, p=0.9) == 0
