"""What a privacy level means for a person: posterior bounds, their tightness, the
zCDP conversion, per-page levels, the page panel and the CLI."""

import math

import numpy as np
import pytest
from conftest import page_path, strict_json
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import pages as registered_pages
from hetdp_core.framework.scenario import InputError
from hetdp_core.reading.meaning import Level, meaning_of, meaning_table, posterior_bounds, round_up, zcdp_to_eps
from hetdp_core.scenarios import get
from hetdp_ui.cli import main


def test_the_issue_example_one_percent_to_two_point_seven():
    lo, hi = posterior_bounds(eps=1.0, prior=0.01)
    assert hi[0] == pytest.approx(math.e * 0.01 / (1 + (math.e - 1) * 0.01)) and round(100 * hi[0], 1) == 2.7
    assert lo[0] == pytest.approx(0.01 / (0.01 + 0.99 * math.e))
    row = meaning_of([Level("x", 1.0)], prior=0.01).rows[0]
    assert row.in_words == "an attacker who thought 1 % now thinks at most 2.68 %"


def test_randomized_response_attains_the_bound():
    """Tightness: ε-randomized response (keep with e^ε/(1+e^ε)) moves a prior p exactly to the bound."""
    for eps, p in ((0.3, 0.2), (2.0, 0.01), (5.0, 0.5)):
        keep = math.exp(eps) / (1 + math.exp(eps))
        bayes = p * keep / (p * keep + (1 - p) * (1 - keep))
        assert posterior_bounds(eps=eps, prior=p)[1][0] == pytest.approx(bayes, rel=1e-12)


@given(st.lists(st.one_of(st.floats(0, 1e6), st.just(math.inf)), min_size=1, max_size=20), st.floats(1e-12, 1 - 1e-12))
def test_bounds_are_probabilities_around_the_prior_and_monotone(eps, p):
    e = np.sort(np.asarray(eps))
    lo, hi = posterior_bounds(eps=e, prior=p)
    assert np.all((lo >= 0) & (lo <= p * (1 + 1e-12)) & (hi >= p * (1 - 1e-12)) & (hi <= 1))
    assert np.all(np.diff(hi) >= -1e-15) and np.all(np.diff(lo) <= 1e-15)


def test_zero_and_infinite_levels():
    lo, hi = posterior_bounds(eps=[0.0, math.inf], prior=0.3)
    assert list(hi) == [pytest.approx(0.3), 1.0] and list(lo) == [pytest.approx(0.3), 0.0]
    assert "no protection" in meaning_of([Level("public", math.inf)], prior=0.3).rows[0].in_words


def test_zcdp_conversion():
    assert zcdp_to_eps(rho=[0.5], delta=1e-6)[0] == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(eps=1, prior=0), r"prior must be in \(0, 1\)"),
        (dict(eps=1, prior=1), r"prior must be in \(0, 1\)"),
        (dict(eps=1, prior=float("nan")), "prior must be"),
        (dict(eps=-1, prior=0.1), "eps entries must be >= 0"),
        (dict(eps=[float("nan")], prior=0.1), "eps must not contain NaN"),
    ],
)
def test_bad_input(kw, match):
    with pytest.raises(InputError, match=match):
        posterior_bounds(**kw)


def test_bad_tables_and_labels():
    with pytest.raises(
        InputError, match=r"levels must be Level objects \(hetdp_core.reading.meaning.Level\); got dict"
    ):
        meaning_table([{"level": "a", "demanded level": 1.0}], prior=0.1)
    with pytest.raises(InputError, match=r"delta must be in \(0, 1\)"):
        zcdp_to_eps(rho=[1], delta=0)


def test_page_levels_come_from_the_guarantees():
    fp = get("Feature_privacy")
    r = fp.run(fp.SCENARIO.from_query({"trials": "5", "n": "500"}))
    lv = fp.levels(r)
    g = r.tables()["bcdp_guarantee"]
    assert [v.delivered for v in lv] == list(g["guaranteed δ'"]) and all(v.delivered <= v.demanded + 1e-9 for v in lv)
    pu = get("Per_user_privacy")
    r = pu.run(pu.SCENARIO.from_query({"trials": "20", "n": "1000"}))
    lv = pu.levels(r)
    assert sum(v.users for v in lv) == 1000 and all(v.delivered <= v.demanded * (1 + 1e-9) for v in lv)


def _page(name):
    """A page with its meaning panel open (closed, the panel draws nothing: see MEANING_OPEN)."""
    from hetdp_core.framework.registry import get
    from hetdp_ui.common import MEANING_OPEN

    at = AppTest.from_file(str(page_path(name)), default_timeout=120)
    at.session_state[MEANING_OPEN % get(name).PAGE_SPEC.slug] = True
    return at


@pytest.mark.parametrize(
    "page,key,query",
    [
        ("Feature_privacy", "feature_privacy", {"trials": "5", "n": "500"}),
        ("Per_user_privacy", "per_user_privacy", {"trials": "20"}),
    ],
)
def test_page_panel_states_the_meaning_and_follows_the_prior(page, key, query):
    at = _page(page)
    at.query_params.update(query)
    at.run()
    assert not at.exception and not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "an attacker who thought 1 % now thinks at most" in text
    at.select_slider(key=f"{key}_prior").set_value(0.2).run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "an attacker who thought 20 % now thinks at most" in text


def test_cli_meaning(capsys):
    assert main(["meaning", "--eps", "0.1,1,inf", "--prior", "0.01", "--json"]) == 0
    rows = strict_json(capsys.readouterr().out)["rows"]
    assert [round(r["posterior ≤ (demanded)"], 4) for r in rows] == [0.011, 0.0267, 1.0]
    assert main(["meaning", "--eps", "1", "--prior", "1.5"]) == 2
    assert "prior must be in (0, 1)" in capsys.readouterr().err
    assert main(["run", "Mechanism_lab", "--prior", "0.1", "--json"]) == 0
    tables = strict_json(capsys.readouterr().out)["tables"]
    rows, prof = tables["privacy_meaning"], tables["mech_privacy_profiles"]
    # (ε, δ) rows state the exact probability that the loss exceeds ε, rounded up (not the stated δ)
    tail = next(p["P(loss > ε)"] for p in prof if p["mechanism"] == "Gaussian")
    assert f"(except with probability {round_up(tail, 3):g})" in rows[1]["in words"]
    assert "except" not in rows[0]["in words"]
    assert main(["run", "Groupwise_zCDP", "--query", "algorithm=2&trials=10", "--prior", "0.1", "--json"]) == 0
    assert "privacy_meaning" not in strict_json(capsys.readouterr().out)["tables"]  # no valid level to state


@pytest.mark.parametrize("page", list(registered_pages()))
def test_every_page_states_what_its_levels_mean(page):
    mod = get(page)
    sp = mod.SCENARIO.specs()
    q = {"trials": str(int(sp["trials"].lo))} if "trials" in sp else {}
    if page == "Groupwise_zCDP":
        q["algorithm"] = "1"
    r = mod.run(mod.SCENARIO.from_query(q))
    t = meaning_table(mod.levels(r), prior=0.01)
    assert len(t) >= 1 and t["in words"].str.contains("an attacker who thought 1 %").all()
    at = _page(page)
    at.query_params.update(q)
    at.run()
    assert not at.exception
    assert "an attacker who thought 1 % now thinks at most" in " ".join(m.value for m in at.markdown)


def test_level_definitions():
    zc = get("Groupwise_zCDP")
    r = zc.run(zc.SCENARIO.from_query({"algorithm": "1", "trials": "10", "rho": "0.5"}))
    # Algorithm 1 adds Gaussian noise (μ = √(2ρ) = 1): its exact ε at δ = 1e-6 (dp-accounting's analytic
    # Gaussian agrees), below the zCDP conversion ρ + 2√(ρ log 1/δ) it used to state
    from dp_accounting.pld import privacy_loss_distribution as pld

    eps = zc.levels(r)[0].demanded
    exact = pld.from_gaussian_mechanism(standard_deviation=1.0).get_epsilon_for_delta(1e-6)
    assert eps == pytest.approx(exact, abs=1e-4) and eps < 0.5 + 2 * math.sqrt(0.5 * math.log(1e6))
    r2 = zc.run(zc.SCENARIO.from_query({"algorithm": "2", "trials": "10"}))
    assert zc.levels(r2) == []
    ds = get("DP_SGD_schedules")
    r = ds.run(ds.SCENARIO.from_query({"trials": "5", "steps": "100"}))
    lv = ds.levels(r)
    assert lv[-1].demanded == pytest.approx(r.tables()["dpsgd_schedule"]["eps_release"].sum())


def test_release_quantiles_are_the_mechanisms_quantiles():
    """The dotplot's 20 values are the (i − ½)/20 quantiles of each release distribution: checked
    against 200 000 simulated releases (empirical CDF within 0.005 at every dot)."""
    from hetdp_core.noise import mechanisms as mc

    ml = get("Mechanism_lab")
    s = ml.SCENARIO.from_query(
        {"eps": "0.5", "delta": "1e-5", "sens": "1", "bl_q": "3", "bl_lower": "0", "bl_upper": "10", "trials": "200"}
    )
    r = ml.run(s)
    t = r.tables()["mech_release_quantiles"]
    assert set(t["mechanism"]) == {"Laplace", "Gaussian", "MNM", "bounded Laplace"} and (t["true value"] == 3).all()
    p = (np.arange(20) + 0.5) / 20
    rng = np.random.default_rng(5)
    for mech, name in (("laplace", "Laplace"), ("gaussian", "Gaussian"), ("mnm", "MNM")):
        sims = mc.release(3.0, mech, sensitivity=1, eps=0.5, delta=1e-5, size=200_000, rng=rng)
        v = t.loc[t["mechanism"] == name, "released value"].to_numpy()
        assert np.max(np.abs((sims[:, None] <= v[None, :]).mean(axis=0) - p)) < 0.005
    sims = mc.bounded_laplace_sample(3.0, b=r.b, lower=0, upper=10, size=200_000, rng=rng)
    v = t.loc[t["mechanism"] == "bounded Laplace", "released value"].to_numpy()
    assert np.all((v >= 0) & (v <= 10))
    assert np.max(np.abs((sims[:, None] <= v[None, :]).mean(axis=0) - p)) < 0.005
    big = ml.run(ml.SCENARIO.from_query({"eps": "2", "trials": "200"})).tables()["mech_release_quantiles"]
    assert "Gaussian" not in set(big["mechanism"])  # Theorem 5 needs ε < 1


def test_mechanism_page_shows_the_dotplot():
    at = _page("Mechanism_lab")
    at.query_params["tab"] = "Bounded Laplace"  # the dotplot's tab, opened by its link
    at.run()
    assert not at.exception
    assert any("Twenty equally likely releases" in m.value for m in at.markdown)


def test_zcdp_dotplot_quantiles():
    """The zCDP page's dotplot: 20 quantiles of each algorithm's release of the chosen group, read
    from simulated releases; Algorithm 2's releases are N(x, (r x)²), so they match its quantiles."""
    from scipy import stats

    zc = get("Groupwise_zCDP")
    s = zc.SCENARIO.from_query({"mode": "List", "counts": "5,100", "group": "2", "r": "0.2", "trials": "50"})
    t = zc.run(s).tables()["zcdp_release_quantiles"]
    v2 = t.loc[t["mechanism"] == "Algorithm 2", "released value"].to_numpy()
    exact = 100 + 20 * stats.norm.ppf((np.arange(20) + 0.5) / 20)
    assert np.max(np.abs(v2 - exact)) < 1.0 and (t["true value"] == 100).all()
    at = _page("Groupwise_zCDP")
    at.run()
    assert not at.exception and any("Twenty equally likely published counts" in m.value for m in at.markdown)


@pytest.mark.parametrize("problem", ["frequency", "mean"])
def test_per_user_dotplot_quantiles(problem):
    """Twenty quantiles of the first algorithm's simulated releases, per bin (frequencies) or of the
    mean, next to the true value; monotone in the dot index and centred near the truth."""
    pu = get("Per_user_privacy")
    r = pu.run(pu.SCENARIO.from_query({"trials": "200", "problem": problem}))
    t = r.tables()["hetero_release_quantiles"]
    rows = t.groupby("mechanism", sort=False)
    assert len(rows) == (1 if problem == "mean" else r.k)
    for _, g in rows:
        v = g["released value"].to_numpy()
        assert np.all(np.diff(v) >= 0) and abs(np.median(v) - g["true value"].iloc[0]) < 0.05
    at = _page("Per_user_privacy")
    at.query_params.update({"trials": "40", "problem": problem})
    at.run()
    assert not at.exception and any("Twenty equally likely published values" in m.value for m in at.markdown)


def test_feature_privacy_dotplot_quantiles():
    """Per feature: twenty quantiles of simulated Mechanism 1 releases around the true mean; the
    strictly protected features (small δ) scatter more than the relaxed ones."""
    fp = get("Feature_privacy")
    r = fp.run(fp.SCENARIO.from_query({"trials": "5", "n": "2000"}))
    t = r.tables()["bcdp_release_quantiles"]
    spread = t.groupby("mechanism", sort=False)["released value"].agg(lambda v: v.max() - v.min()).to_numpy()
    assert len(spread) == 10 and spread[:2].min() > spread[2:].max()  # x1, x2 have δ = 0.2, the rest ε
    for _, g in t.groupby("mechanism", sort=False):
        v = g["released value"].to_numpy()
        assert np.all(np.diff(v) >= 0) and v.min() <= g["true value"].iloc[0] <= v.max()
    at = _page("Feature_privacy")
    at.query_params.update({"trials": "5", "n": "500"})
    at.run()
    assert not at.exception and any("Twenty equally likely published means" in m.value for m in at.markdown)


def test_the_meaning_is_typed_and_its_table_only_renders_it():
    """What a level means is read by field (posterior, sentences, attack TPR, advantage); the table the page
    and ``hetdp run`` offer is rendered from those fields, with the same numbers, in one frame per meaning."""
    levels = [
        Level("x1", 0.5, delivered=0.9, any_attacker=2.0),
        Level("x2", 1.0, delivered=1.0, any_attacker=2.0),
        Level("g", 0.3, delivered=0.3, delta=1e-6, gaussian_mu=0.4),
    ]
    m = meaning_of(levels, prior=0.05, fpr=0.02)
    t = m.table()
    assert m.table() is t and list(t["level"]) == ["x1", "x2", "g"]
    for r, (_, row) in zip(m.rows, t.iterrows()):
        assert (
            row["posterior ≤ (delivered)"] == r.posterior_delivered == posterior_bounds(eps=r.basis, prior=0.05)[1][0]
        )
        assert r.level.any_attacker is None or row["posterior ≤ (any attacker)"] == r.posterior_any_attacker
        assert row["attack TPR ≤"] == r.attack_tpr and row["risk in words"] == r.risk_in_words
        assert row["attack FPR"] == 0.02 == r.attack_fpr
    assert "in words" not in m.table(words=False) and "attack TPR ≤" in m.table(words=False)
    # a level without an any-attacker level among levels that have one: its own sentences, no such column value
    assert m.rows[2].posterior_any_attacker is None and "any attacker" not in m.rows[2].in_words
    assert math.isnan(t["posterior ≤ (any attacker)"].iloc[2]) and "any attacker" in m.rows[0].in_words
    # most exposed: the any-attacker posterior first (a tie here), then the model's (delivered) one
    assert m.most_exposed().level.name == "x2"
    assert meaning_of([], prior=0.05).most_exposed() is None and meaning_of([], prior=0.05).table().empty
    with pytest.raises(InputError, match=r"prior must be in \(0, 1\)"):
        meaning_of(levels, prior=1.0)
