"""Risk in attack terms on every page's meaning panel (AppTest): each page that states a level shows,
per level, the most an attack catches at the scenario's false-positive rate (a field of every
scenario, in the URL, like the prior) and the maximal advantage, equal to the run's own
``privacy_meaning`` table (so `hetdp run` gives the same numbers); moving the false-positive rate
changes the words and the link without recomputing the view; "solve from a target risk" gives the
largest ε and the smallest Gaussian noise; the trade-off curves are one checkbox away."""

from __future__ import annotations

import pytest
from conftest import ROOT, strict_json
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import get, specs
from hetdp_core.reading.risk import eps_for_tpr, mu_for_tpr
from hetdp_ui.chart_element import charts


def _open(spec, **extra):
    """The page with its meaning panel open (closed, it draws nothing)."""
    from hetdp_ui.common import MEANING_OPEN

    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=300)
    at.session_state[MEANING_OPEN % spec.slug] = True
    at.query_params.update({**dict(spec.fast_query), **extra})
    return at.run()


def _risk_lines(at):
    """The bullet lines in attack terms (one markdown element lists every level, one line each)."""
    return [line for m in at.markdown for line in m.value.split("\n") if "wrongly flagging" in line]


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.url)
def test_every_page_states_its_risk_in_attack_terms(spec):
    extra = {"algorithm": "1"} if spec.url == "Groupwise_zCDP" else {}  # Algorithm 2 states no level
    at = _open(spec, **extra)
    assert not at.exception
    mod = get(spec.url)
    table = mod.run(mod.SCENARIO.from_query({**dict(spec.fast_query), **extra})).tables()["privacy_meaning"]
    lines = _risk_lines(at)
    sentences = {f"{w}; maximal advantage {a:.3g}" for w, a in zip(table["risk in words"], table["max advantage"])}
    assert len(lines) == len(sentences)  # levels that say the same share one bullet
    for lev, words, adv in zip(table["level"], table["risk in words"], table["max advantage"]):
        assert any(f"{words}; maximal advantage {adv:.3g}" in line for line in lines), lev


def test_the_fpr_moves_the_words_and_the_link_and_solving_from_a_target():
    spec = get("Groupwise_zCDP").PAGE_SPEC
    at = _open(spec, algorithm="1")
    assert "catches at most 9.24 %" in _risk_lines(at)[0]  # ρ = 0.5: Gaussian μ = 1, exact curve at FPR 1 %
    at.select_slider(key="groupwise_zcdp_fpr").set_value(0.1).run()
    assert not at.exception
    assert at.query_params["fpr"] in ("0.1", ["0.1"])
    assert (
        "wrongly flagging 1 in 10 people" in _risk_lines(at)[0] and "catches at most 39 %" in _risk_lines(at)[0]
    )  # 38.91 % rounded up
    at.number_input(key="groupwise_zcdp_target_tpr").set_value(30.0).run()
    solved = next(m.value for m in at.markdown if m.value.startswith("To keep every attack"))
    assert f"ε = {eps_for_tpr(target_tpr=0.3, fpr=0.1):.3g}" in solved
    assert f"σ/Δ ≥ {1 / mu_for_tpr(target_tpr=0.3, fpr=0.1):.3g}" in solved
    n = len(charts(at))
    at.checkbox(key="groupwise_zcdp_show_tradeoff").check().run()
    assert len(charts(at)) == n + 1
    at.number_input(key="groupwise_zcdp_target_tpr").set_value(5.0).run()  # below the FPR: explained, not an error
    assert not at.exception and any(
        "Choose a target above the false-positive rate (10 %)" in c.value for c in at.caption
    )


def test_use_the_pages_setting_solved_from_a_target_risk():
    """Group-wise zCDP, Algorithm 1: ρ-zCDP Gaussian noise has μ = √(2ρ); the panel solves ρ for the target
    and its button sets the page's ρ (and the link), after which the page's own risk meets the target."""
    from hetdp_core.reading.risk import page_setting_for_tpr

    spec = get("Groupwise_zCDP").PAGE_SPEC
    at = _open(spec, algorithm="1")
    at.number_input(key="groupwise_zcdp_target_tpr").set_value(5.0).run()
    sol = page_setting_for_tpr(get("Groupwise_zCDP"), target_tpr=0.05, fpr=0.01)
    assert sol["value"] == 0.232 and sol["exact"] == pytest.approx(mu_for_tpr(target_tpr=0.05, fpr=0.01) ** 2 / 2)
    assert any(m.value.startswith("On this page: **zCDP level ρ = 0.232**") for m in at.markdown)
    at.button(key="groupwise_zcdp_use_risk").click().run()
    assert not at.exception and at.session_state["groupwise_zcdp_rho"] == 0.232
    assert at.query_params["rho"] in ("0.232", ["0.232"])
    shown = float(_risk_lines(at)[0].split("catches at most ")[1].split(" %")[0])
    assert shown <= 5.0  # the page's own risk now meets the 5 % target


@pytest.mark.parametrize(
    "page,target,fpr,value",
    [("Feature_privacy", 0.05, 0.01, 1.6), ("Mechanism_lab", 0.5, 0.01, 3.91), ("Private_regression", 0.9, 0.1, 2.19)],
)
def test_solve_a_pages_setting_from_the_cli(page, target, fpr, value, capsys):

    from hetdp_core.reading.risk import tpr_eps_delta
    from hetdp_ui.cli import main

    assert main(["solve", page, "--target-tpr", str(target), "--fpr", str(fpr), "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert out["field"] == "eps" and out["value"] == value <= out["exact"]
    assert out["tpr"] == float(tpr_eps_delta(eps=value, fpr=fpr)[0]) <= target
    assert f"eps={value}" in out["link"]


def test_solving_a_setting_where_the_page_has_none_or_the_range_decides(capsys):
    from hetdp_core.reading.risk import page_setting_for_tpr
    from hetdp_ui.cli import main

    assert main(["solve", "Per_user_privacy", "--target-tpr", "0.05"]) == 2
    assert "has no single privacy setting" in capsys.readouterr().err
    low = page_setting_for_tpr(get("Mechanism_lab"), target_tpr=0.0101, fpr=0.01)  # needs ε < 0.05
    assert low["value"] == 0.05 and "not met" in low["note"] and low["tpr"] > 0.0101
    high = page_setting_for_tpr(get("Groupwise_zCDP"), target_tpr=0.9999, fpr=0.0001)  # ρ* ≈ 27.7 > 10
    assert high["value"] == 10.0 and "allows more" in high["note"] and high["tpr"] < 0.9999


def test_a_closed_meaning_panel_draws_nothing_and_opens_with_the_links_values():
    """Closed (the default), the panel's table, math and sliders are not drawn — the browser's first
    chart does not wait for them; opened, its prior and FPR are the link's."""
    from hetdp_ui.common import MEANING_OPEN

    spec = get("Groupwise_zCDP").PAGE_SPEC
    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=300)
    at.query_params.update({**dict(spec.fast_query), "fpr": "0.1", "prior": "0.2"})
    at.run()
    assert not at.exception and not _risk_lines(at)
    assert not [s for s in at.select_slider if s.key in ("groupwise_zcdp_fpr", "groupwise_zcdp_prior")]
    at.session_state[MEANING_OPEN % spec.slug] = True
    at.run()
    assert (
        at.select_slider(key="groupwise_zcdp_fpr").value == 0.1
        and at.select_slider(key="groupwise_zcdp_prior").value == 0.2
    )
    assert _risk_lines(at) and not at.exception
