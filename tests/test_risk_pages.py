"""Risk in attack terms on every page's meaning panel (AppTest): each page that states a level shows,
per level, the most an attack catches at the scenario's false-positive rate (a field of every
scenario, in the URL, like the prior) and the maximal advantage, equal to the run's own
``privacy_meaning`` table (so `hetdp run` gives the same numbers); moving the false-positive rate
changes the words and the link without recomputing the view; "solve from a target risk" gives the
largest ε and the smallest Gaussian noise; the trade-off curves are one checkbox away."""

from __future__ import annotations

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from hetdp_core.registry import get, specs
from hetdp_core.risk import eps_for_tpr, mu_for_tpr


def _open(spec, **extra):
    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=300)
    at.query_params.update({**dict(spec.fast_query), **extra})
    return at.run()


def _risk_lines(at):
    return [m.value for m in at.markdown if "wrongly flagging" in m.value]


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.url)
def test_every_page_states_its_risk_in_attack_terms(spec):
    extra = {"algorithm": "1"} if spec.url == "Groupwise_zCDP" else {}  # Algorithm 2 states no level
    at = _open(spec, **extra)
    assert not at.exception
    mod = get(spec.url)
    table = mod.run(mod.SCENARIO.from_query({**dict(spec.fast_query), **extra})).tables()["privacy_meaning"]
    lines = _risk_lines(at)
    assert len(lines) == len(table)
    for line, words, adv in zip(lines, table["risk in words"], table["max advantage"]):
        assert words in line and f"maximal advantage {adv:.3g}" in line


def test_the_fpr_moves_the_words_and_the_link_and_solving_from_a_target():
    spec = get("Groupwise_zCDP").PAGE_SPEC
    at = _open(spec, algorithm="1")
    assert "catches at most 9.24 %" in _risk_lines(at)[0]  # ρ = 0.5: Gaussian μ = 1, exact curve at FPR 1 %
    at.select_slider(key="zc_fpr").set_value(0.1).run()
    assert not at.exception
    assert at.query_params["fpr"] in ("0.1", ["0.1"])
    assert (
        "wrongly flagging 1 in 10 people" in _risk_lines(at)[0] and "catches at most 39 %" in _risk_lines(at)[0]
    )  # 38.91 % rounded up
    at.number_input(key="zc_target_tpr").set_value(0.3).run()
    solved = next(m.value for m in at.markdown if m.value.startswith("To keep every attack"))
    assert f"ε = {eps_for_tpr(target_tpr=0.3, fpr=0.1):.4g}" in solved
    assert f"σ/Δ ≥ {1 / mu_for_tpr(target_tpr=0.3, fpr=0.1):.4g}" in solved
    n = len(at.get("plotly_chart"))
    at.checkbox(key="zc_show_tradeoff").check().run()
    assert len(at.get("plotly_chart")) == n + 1
    at.number_input(key="zc_target_tpr").set_value(0.05).run()  # below the FPR: explained, not an error
    assert not at.exception and any(
        "Choose a target above the false-positive rate (10 %)" in c.value for c in at.caption
    )
