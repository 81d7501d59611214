"""Real deployments' levels (issue 40): the shipped data and its provenance, the ρ → ε conversion against
dp-accounting, placing levels, `hetdp context`, the placement in `hetdp run --json`, and the strip on every
page's meaning panel and on the ledger (AppTest)."""

from __future__ import annotations

import csv
import math

import pytest
from conftest import ROOT, strict_json
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import specs
from hetdp_core.framework.scenario import InputError
from hetdp_core.reading.deployments import (
    CAVEAT,
    RHO_DELTA,
    deployments,
    place,
    place_levels,
    placement_of,
    zcdp_epsilon,
)
from hetdp_ui.chart_element import charts, figure_of
from hetdp_ui.cli import main

ROWS = list(csv.DictReader((ROOT / "data" / "deployments.csv").open(encoding="utf-8")))


def test_every_shipped_row_has_a_source_a_unit_a_period_and_a_level():
    assert len(ROWS) == 22
    for r in ROWS:
        assert r["source"].strip() and r["unit_of_privacy"].strip() and r["period"].strip(), r["deployment"]
        assert r["model"] in ("central", "local"), r["deployment"]
        assert r["epsilon"].strip() or r["rho"].strip(), r["deployment"]
    readme = (ROOT / "data" / "README.md").read_text()
    assert "deployments.csv" in readme and "Deployments Registry" in readme and "2026-11-25" in readme
    assert len(deployments()) == 22  # every row has an ε: stated, or converted from ρ
    assert [d.epsilon for d in deployments()] == sorted(d.epsilon for d in deployments())


@pytest.mark.parametrize("rho", [0.015, 0.07, 0.0728, 2.56, 12.058, 19.776, 1e-4, 100.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5])
def test_the_rho_to_epsilon_conversion_matches_dp_accounting(rho, delta):
    """dp-accounting's Rényi accountant on a Gaussian of RDP curve αρ (σ = 1/√(2ρ)) uses the same
    conversion over a grid of orders: ours, minimised over every order, is never above it, and within 10⁻³
    of it on a dense grid of orders (its default grid is coarse at the extremes: 2 % higher at ρ = 10⁻⁴)."""
    import dp_accounting
    import numpy as np

    acc = dp_accounting.rdp.RdpAccountant(orders=list(1 + np.geomspace(1e-4, 1e5, 4000)))
    acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=1 / math.sqrt(2 * rho)))
    theirs = acc.get_epsilon(delta)
    ours = zcdp_epsilon(rho=rho, delta=delta)
    assert ours <= theirs * (1 + 1e-9)
    assert ours == pytest.approx(theirs, rel=1e-3)
    assert ours < rho + 2 * math.sqrt(rho * math.log(1 / delta))  # tighter than Bun–Steinke


def test_converted_rows_use_the_stated_delta_and_say_so():
    conv = [d for d in deployments() if d.converted]
    assert {d.name for d in conv} >= {"Current pageviews", "County Business Patterns"}
    for d in conv:
        assert d.delta == RHO_DELTA and f"from ρ = {d.rho:g}" in d.label
        assert d.epsilon == pytest.approx(zcdp_epsilon(rho=d.rho, delta=RHO_DELTA))
    stated = next(d for d in deployments() if d.name.endswith("- persons"))
    assert not stated.converted and stated.epsilon == 17.14  # a stated ε is shown as stated


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: zcdp_epsilon(rho=0.0, delta=1e-6), "rho must be in"),
        (lambda: zcdp_epsilon(rho=1.0, delta=1.0), "delta must be in"),
        (lambda: zcdp_epsilon(rho=float("nan"), delta=1e-6), "rho"),
        (lambda: place(-1.0), "epsilon must be in"),
        (lambda: place("two"), "epsilon"),
    ],
)
def test_bad_input_is_named(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_placing_a_level_names_its_neighbours_and_cautions_by_evidence():
    p = place(3.0, who="the sensitive feature")
    assert p.below.epsilon <= 3.0 < p.above.epsilon
    assert p.sentence.startswith("the sensitive feature (ε = 3) lies between") and "per user-day" in p.sentence
    assert not p.caution
    low, high = place(0.01), place(1000.0)
    assert low.below is None and "below every deployment" in low.sentence
    assert high.above is None and "above every deployment" in high.sentence
    top = max(
        d.epsilon for d in deployments() if d.model == "central" and d.unit == "person" and d.period == "one release"
    )
    assert place(top * 1.01).caution.startswith("Above every central deployment here that protects a person")
    assert not place(top).caution
    assert "is at the level of" in place(17.14).sentence


def test_a_views_levels_are_grouped_and_unprotected_ones_left_out():
    placed = place_levels([f"x{i}" for i in range(1, 11)], [0.2, 0.2] + [2.0] * 7 + [math.inf])
    assert [p.level for p in placed] == ["x1, x2 at central ε = 0.2", "x3, x4, …, x9 (7 levels) at central ε = 2"]
    assert placement_of(None) == ()


def test_a_deployments_unit_and_period_are_said_once():
    """ "ε = 1 per bounded contributions per day, per day" and "per user-day, per day" said the period twice."""
    labels = {d.name: d.label for d in deployments()}
    assert labels["Historical pageviews"].endswith("ε = 1 per bounded contributions per day")
    assert labels["Search Trends Symptoms dataset"].endswith("ε = 1.68 per user-day")
    assert labels["Windows telemetry"].endswith("local ε = 1.67 per user, per quarter-day")
    assert labels["Emoji suggestions"].endswith("local ε = 4 per event, per day")
    for d in deployments():
        words = d.per.replace(",", " ").replace("-", " ").split()
        assert all(words.count(w) <= 1 for w in ("day", "month", "quarter")), d.label


def test_levels_are_placed_like_with_like():
    """A local level (Feature privacy's x1 at δ = 0.2) is not placed next to a central release (Microsoft's
    Broadband coverage estimates, ε = 0.2): local levels among local deployments, by the any-attacker
    level where they have one, with the unit; central levels among central deployments."""
    from hetdp_core.reading.meaning import Level

    local = [Level("x1", 0.2, delivered=0.2, any_attacker=0.77, model="local", unit="user's record")]
    (p,) = placement_of(local)
    assert p.level == "x1 at local any-attacker ε = 0.77 per user's record" and p.epsilon == 0.77
    assert p.above.model == "local" and p.below is None and "below every local deployment" in p.sentence
    assert "Broadband" not in p.sentence
    (c,) = placement_of([Level("release", 0.2)])
    assert "Broadband coverage estimates" in c.sentence and c.below.model == "central"
    for eps in (0.01, 0.3, 1.7, 3.0, 4.0, 50.0, math.inf):
        for model in ("central", "local"):
            q = place(eps, model=model)
            assert all(d is None or d.model == model for d in (q.below, q.above)), (eps, model, q.sentence)
    with pytest.raises(InputError, match="model must be one of"):
        place(1.0, model="curator")


def test_cli_context_prints_neighbours_and_strict_json(capsys):
    assert main(["context", "--eps", "0.5,3,100", "--delta", "1e-6", "--all"]) == 0
    out = capsys.readouterr().out
    assert "ε = 3 at δ = 1e-06 lies between" in out and "Above every central deployment" in out
    assert "Caveat: Units and periods differ" in out and "County Business Patterns" in out
    assert main(["context", "--eps", "3", "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    assert data["caveat"] == CAVEAT and len(data["deployments"]) == 22
    assert data["levels"][0]["below"].startswith("Google's COVID-19 Community Mobility Reports")
    assert main(["context", "--eps", "-1"]) == 2
    assert "epsilon must be in" in capsys.readouterr().err


def test_run_json_carries_the_views_placement(capsys):
    from hetdp_core.scenarios import get

    assert main(["run", "Feature_privacy", "--query", "trials=5&n=500", "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    fp = get("Feature_privacy")
    result = fp.run(fp.SCENARIO.from_query({"trials": "5", "n": "500"}))
    want = placement_of(fp.levels(result))
    assert [r["sentence"] for r in data["placement"]] == [p.sentence for p in want] and want
    assert data["placement_caveat"] == CAVEAT


@pytest.mark.parametrize("spec", specs(), ids=[s.url for s in specs()])
def test_every_meaning_panel_shows_the_strip(spec):
    from hetdp_ui.common import MEANING_OPEN

    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=300)
    at.query_params.update(dict(spec.fast_query))
    at.session_state[MEANING_OPEN % spec.slug] = True
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    text = " ".join(m.value for m in at.markdown)
    if "This view states no privacy level" in " ".join(i.value for i in at.info):
        assert "among real deployments" not in text
        return
    titles = [figure_of(c)["layout"].get("title", {}).get("text") for c in charts(at)]
    assert "Your levels among real deployments" in titles, (spec.url, titles)
    assert "Your levels among real deployments." in text
    assert any(w in text for w in ("lies between", "deployment here", "is at the level of"))
    assert any("Units and periods differ" in c.value for c in at.caption)


def test_the_ledger_shows_its_groups_among_deployments():
    at = AppTest.from_file(str(ROOT / "pages" / "release_ledger" / "page.py"), default_timeout=120).run()
    assert not at.exception and not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "Where the groups' headline totals lie" in text
    assert "survey participants at central ε =" in text and "residents at central ε =" in text
    assert any("Units and periods differ" in c.value for c in at.caption)
