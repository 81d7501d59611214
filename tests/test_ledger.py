"""The release ledger (hetdp_core/ledger.py, `hetdp ledger`): dp-accounting's own PLD and RDP figures
on homogeneous plans; the PLD total below every other accountant on random plans; heterogeneous
plans whose per-group totals equal each group's own homogeneous ledger; every bad plan a one-line
message naming the release and the field."""

from __future__ import annotations

import json
import math

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from hetdp_core.ledger import Plan, Release, ledger, parse_plan, plan_toml
from hetdp_core.scenario import InputError

EXAMPLE = ROOT / "data" / "plans" / "census-and-survey.toml"


def _total(result, group, accountant):
    return next(r["epsilon"] for r in result.totals if r["group"] == group and r["accountant"] == accountant)


@pytest.mark.parametrize("mech,noise,repeat", [("gaussian", 2.0, 10), ("gaussian", 0.8, 1), ("laplace", 3.0, 5)])
def test_pld_and_rdp_equal_dp_accountings_own(mech, noise, repeat):
    import dp_accounting as dpa
    from dp_accounting import rdp
    from dp_accounting.pld import privacy_loss_distribution as pld

    plan = Plan(releases=(Release(name="r", mechanism=mech, noise=noise, repeat=repeat),))
    r = ledger(plan, delta=1e-6)
    one = (
        pld.from_gaussian_mechanism(standard_deviation=noise)
        if mech == "gaussian"
        else pld.from_laplace_mechanism(parameter=noise)
    )
    assert _total(r, "all", "pld") == pytest.approx(one.self_compose(repeat).get_epsilon_for_delta(1e-6), rel=1e-9)
    ev = dpa.GaussianDpEvent(noise) if mech == "gaussian" else dpa.LaplaceDpEvent(noise)
    acc = rdp.RdpAccountant()
    acc.compose(ev, repeat)
    assert _total(r, "all", "rdp") == pytest.approx(acc.get_epsilon(1e-6), rel=1e-9)
    if mech == "laplace":  # pure DP: basic composition is exact, δ = 0
        assert _total(r, "all", "basic") == pytest.approx(repeat / noise)


releases = st.lists(
    st.tuples(st.sampled_from(["gaussian", "laplace"]), st.floats(0.5, 20.0), st.integers(1, 50)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=25, deadline=None)
@given(releases, st.sampled_from([1e-9, 1e-6, 1e-3]))
def test_pld_is_the_tightest_of_the_four(rel, delta):
    """Every accountant is a valid upper bound and the PLD one is the tightest (up to its pessimistic
    discretisation, 10⁻³ in ε)."""
    plan = Plan(
        releases=tuple(Release(name=f"r{i}", mechanism=m, noise=n, repeat=k) for i, (m, n, k) in enumerate(rel))
    )
    r = ledger(plan, delta=delta)
    pld_eps = _total(r, "all", "pld")
    for acc in ("basic", "zcdp", "rdp"):
        assert pld_eps <= _total(r, "all", acc) + 1e-3, (acc, r.totals)


def test_the_zcdp_conversion_is_not_always_below_basic_composition():
    """The issue expected basic ≥ zCDP-derived on every plan; it does not hold: one Gaussian release
    is exactly accounted by its own profile (basic), while the zCDP conversion is looser. Many
    releases reverse the order. We state both and test the ordering that does hold (PLD tightest)."""
    one = ledger(Plan(releases=(Release(name="r", mechanism="gaussian", noise=2.0),)), delta=1e-6)
    assert _total(one, "all", "basic") < _total(one, "all", "zcdp")
    many = ledger(Plan(releases=(Release(name="r", mechanism="gaussian", noise=8.0, repeat=50),)), delta=1e-6)
    assert _total(many, "all", "basic") > _total(many, "all", "zcdp")


def test_per_group_totals_equal_each_groups_own_ledger():
    plan = parse_plan(EXAMPLE.read_text())
    r = ledger(plan, delta=1e-6)
    for g in plan.group_names():
        own = Plan(releases=tuple(x for x in plan.releases if x.touches(g)))
        alone = ledger(own, delta=1e-6)
        for acc in ("basic", "zcdp", "rdp", "pld"):
            assert _total(r, g, acc) == pytest.approx(_total(alone, own.group_names()[0], acc), rel=1e-12)
    # who pays most: the survey participants, touched by every release
    assert _total(r, "survey participants", "pld") > _total(r, "residents", "pld")


def test_budget_gives_reserve_and_warning():
    r = ledger(parse_plan(EXAMPLE.read_text()), delta=1e-6, budget=3.0)
    for row in r.totals:
        assert row["reserve"] == pytest.approx(3.0 - row["epsilon"]) and row["over budget"] == (row["epsilon"] > 3.0)


def test_plan_round_trips_through_toml():
    plan = parse_plan(EXAMPLE.read_text())
    assert parse_plan(plan_toml(plan)) == plan


BAD = [
    ('[[release]]\nname = "a"\nmechanism = "exponential"\nnoise = 1\n', r"release 1 \('a'\): mechanism must be one of"),
    ('[[release]]\nname = "a"\nmechanism = "gaussian"\nnoise = -1\n', r"release 1 \('a'\): noise .* got -1"),
    ('[[release]]\nname = "a"\nmechanism = "laplace"\nnoise = 1\nrepeat = 0\n', r"release 1 \('a'\): repeat must be"),
    ('[[release]]\nname = "a"\nmechanism = "laplace"\nnoise = 1\nrepeat = 1000000\n', r"repeat must be a whole number"),
    (
        "".join(f'[[release]]\nname = "r{i}"\nmechanism = "laplace"\nnoise = 1\n' for i in range(300)),
        r"plan: 300 releases; at most 200",
    ),
    (
        'groups = ["adults"]\n[[release]]\nname = "a"\nmechanism = "laplace"\nnoise = 1\ngroups = ["kids"]\n',
        r"release 1 \('a'\): group 'kids' is named nowhere",
    ),
    ('[[release]\nname = "a"', r"plan: not valid TOML"),
    ("", r"plan: no release"),
    (
        '[[release]]\nname = "a"\nmechanism = "laplace"\nnoise = 1\n[[release]]\nname = "a"\nmechanism = "laplace"\n'
        "noise = 2\n",
        r"release 2 \('a'\): name is used twice",
    ),
    ('[[release]]\nname = "a"\nmechanism = "laplace"\nnoise = 1\nsigma = 3\n', r"release 1 \('a'\): unknown field"),
]


@pytest.mark.parametrize("text,match", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_plans_are_one_line_naming_release_and_field(text, match, tmp_path, capsys):
    from hetdp_ui.cli import main

    with pytest.raises(InputError, match=match):
        parse_plan(text)
    f = tmp_path / "p.toml"
    f.write_text(text)
    assert main(["ledger", "--plan", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_json_contract(tmp_path, capsys):
    from hetdp_ui.cli import main

    assert main(["ledger", "--plan", str(EXAMPLE), "--delta", "1e-5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["ledger"]
    assert {r["accountant"] for r in rows} == {"basic", "zcdp", "rdp", "pld"}
    assert all({"group", "accountant", "epsilon", "delta"} <= set(r) for r in rows)
    assert all(math.isfinite(r["epsilon"]) and r["delta"] in (0.0, 1e-5) for r in rows)
    assert main(["ledger", "--plan", str(EXAMPLE), "--budget", "3", "--csv", str(tmp_path / "o")]) == 1  # over budget
    assert (tmp_path / "o" / "ledger.csv").read_text().startswith("group,accountant,epsilon")
