"""The one constraint vocabulary: open and closed intervals, shared named constraints narrowed per page,
core functions checked by the same objects, and rules between fields declared once (validate raises,
the page's widgets repair)."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hetdp_core.framework import constraints as c
from hetdp_core.framework.registry import pages
from hetdp_core.framework.scenario import InputError, Interval, check_value, param


@pytest.mark.parametrize(
    ("closed", "text", "inside", "outside"),
    [
        ("both", "[0, 1]", (0.0, 0.5, 1.0), (-0.1, 1.1)),
        ("left", "[0, 1)", (0.0, 0.5), (1.0, -0.1)),
        ("right", "(0, 1]", (1.0, 0.5), (0.0, 1.1)),
        ("neither", "(0, 1)", (0.5,), (0.0, 1.0)),
    ],
)
def test_interval_ends_hold_for_fields_and_core_arguments_alike(closed, text, inside, outside):
    iv = Interval(float, 0.0, 1.0, closed=closed)
    assert iv.text() == text
    spec = param(0.5, iv, "a probability").metadata["spec"]
    for v in inside:
        assert check_value("p", spec, v) == v == iv.check("p", v)
    for v in outside:
        with pytest.raises(
            InputError,
            match=r"p \(a probability\) must be in " + text.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)"),
        ):
            check_value("p", spec, v)
        with pytest.raises(InputError, match=r"^p must be"):
            iv.check("p", v)


def test_an_interval_with_infinity_is_not_inside_one_without():
    finite = Interval(float, 0.0, 10.0)
    assert finite.contains_interval(Interval(float, 1.0, 2.0))
    assert not finite.contains_interval(Interval(float, 1.0, 2.0, allow_inf=True))
    assert c.DEMAND.contains_interval(Interval(float, 1.0, 2.0, allow_inf=True))


def test_an_open_end_of_a_whole_number_interval_excludes_the_end():
    iv = Interval(int, 0, 10, closed="neither")
    assert iv.check("k", 1) == 1 and iv.check("k", 9) == 9
    for bad in (0, 10):
        with pytest.raises(InputError, match=r"^k must be"):
            iv.check("k", bad)


def test_interval_refuses_an_unknown_closed_and_an_empty_range():
    with pytest.raises(AssertionError, match="closed"):
        Interval(float, 0, 1, closed="open")
    with pytest.raises(AssertionError, match="lo 2 > hi 1"):
        Interval(float, 2, 1)


def test_narrow_keeps_inside_the_shared_constraint():
    assert c.EPS.narrow(0.05, 20.0).text() == "[0.05, 20]"
    assert c.DELTA.narrow(1e-6, 0.1, closed="both").text() == "[1e-06, 0.1]"
    with pytest.raises(AssertionError, match="not inside the shared"):
        c.EPS.narrow(0.0, 20.0)  # below MIN_EPS
    with pytest.raises(AssertionError, match="not inside the shared"):
        c.DELTA.narrow(0.0, 0.5, closed="both")  # δ = 0 is outside (0, 1)
    assert c.DEMAND.allow_inf and not c.DEMAND.narrow(1, 5, closed="both", finite=True).allow_inf


SHARED = {
    "eps": c.EPS,
    "eps1": c.EPS,
    "eps2": c.EPS,
    "eps3": c.EPS,
    "tr_eps": c.EPS,
    "seed": c.SEED,
    "trials": c.TRIALS,
    "n": c.USERS,
}


def _interval(spec) -> Interval:
    closed = {(False, False): "both", (False, True): "left", (True, False): "right", (True, True): "neither"}
    return Interval(float, spec.lo, spec.hi, closed=closed[(spec.lo_open, spec.hi_open)])


@pytest.mark.parametrize("page", list(pages()))
def test_every_page_field_of_a_shared_quantity_is_inside_the_shared_constraint(page):
    cls = pages()[page].SCENARIO
    checked = 0
    for f in dataclasses.fields(cls):
        shared = SHARED.get(f.name) or (c.DELTA if (page, f.name) == ("Mechanism_lab", "delta") else None)
        if shared is None:
            continue
        spec = f.metadata["spec"]
        assert Interval(float, shared.lo, shared.hi, closed=shared.closed).contains_interval(_interval(spec)), (
            f"{page}.{f.name} accepts {_interval(spec).text()}, outside the shared {shared.text()}"
        )
        checked += 1
    assert checked >= 1  # every page has at least a seed or a privacy level


def test_core_functions_use_the_shared_constraints():
    from hetdp_core.noise.mechanisms import gaussian_sigma
    from hetdp_core.per_feature.bcdp import privacy_allocation

    with pytest.raises(InputError, match=r"eps must be in \[1e-06, 700\]"):
        privacy_allocation(demands=[1.0, 2.0], eps=0.0, q=0.1)
    with pytest.raises(InputError, match=r"delta must be in \(0, 1\)"):
        gaussian_sigma(sensitivity=1.0, eps=0.5, delta=1.0)


# ------------------------------------------------------------------ rules between fields
from hetdp_core.scenarios.mechanism_lab import MechanismLab  # noqa: E402

LAB = {f.name: f.metadata["spec"] for f in dataclasses.fields(MechanismLab)}


def _field(name):
    sp = LAB[name]
    if sp.kind == "int":
        return st.integers(int(sp.lo), int(sp.hi))
    return st.floats(sp.lo, sp.hi, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({n: _field(n) for n in ("bl_lower", "bl_upper", "bl_q", "sens", "n", "m", "med_n")}))
def test_the_page_repair_always_gives_a_valid_scenario(values):
    """Over the whole accepted range of each field: what the mechanism lab's widgets repair (adapt over
    the scenario's RULES) is a scenario its validate() accepts, and a repair only happens to a broken rule."""
    fixed, notes = c.adapt(MechanismLab.RULES, values)
    repairable = [r for r in MechanismLab.RULES if r.repair is not None]
    assert all(r.holds(fixed) for r in repairable)
    if fixed["med_n"] % 2:  # the one rule without a repair (an even n from a link stays an error)
        MechanismLab(**fixed)  # no InputError
    else:
        with pytest.raises(InputError, match="must be odd"):
            MechanismLab(**fixed)
    broken = [r.name for r in repairable if not r.holds(values)]
    assert (not broken) == (not notes)


def test_validate_names_the_broken_rule():
    with pytest.raises(InputError, match=r"m \(first part, Example 8\) must be < n = 100; got 5000"):
        MechanismLab(m=5000, n=100)
    with pytest.raises(InputError, match="must be odd"):
        MechanismLab(med_n=10)


# ------------------------------------------------------------------ one name per concept: demands
RENAMED = [  # (page, old link, new link): a per-feature demand is a demand, not δ
    ("Feature_privacy", "delta=0.5&eps=3", "demand=0.5&eps=3"),
    ("Private_regression", "delta=3&eps=6", "demand=3&eps=6"),
    ("BCDP_guarantee_lab", "tr_delta=0.5,inf,3", "tr_demands=0.5,inf,3"),
]


@pytest.mark.parametrize(("page", "old", "new"), RENAMED)
def test_old_links_with_delta_open_the_same_demands(page, old, new):
    from urllib.parse import parse_qsl

    cls = pages()[page].SCENARIO
    before, after = cls.from_query(dict(parse_qsl(old))), cls.from_query(dict(parse_qsl(new)))
    assert before == after != cls()
    assert "delta" not in before.to_query() and new.split("=")[0] in before.to_query()


def test_old_delta_on_the_command_line_is_the_new_demand(capsys):
    import json

    from hetdp_ui.cli import main

    outs = []
    for q in ("delta=3&eps=6", "demand=3&eps=6"):
        assert main(["run", "Private_regression", "--query", q + "&trials=2&n=1000&steps=20", "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and "&demand=3&" in outs[0]["link"] and "delta" not in outs[0]["link"]


def test_an_interval_checks_a_vector_with_its_open_ends():
    """Interval.check_vector: the same ends as Interval.check, entry by entry, with the low-level messages."""
    from hetdp_core.framework.constraints import DEMAND, Interval

    unit_open = Interval(float, 0.0, 1.0, closed="neither")
    assert unit_open.check_vector("x", [0.5, 0.25]).tolist() == [0.5, 0.25]
    with pytest.raises(ValueError, match=r"x entries must be < 1; entry 1 is 1"):
        unit_open.check_vector("x", [0.5, 1.0])
    with pytest.raises(ValueError, match=r"x entries must be > 0; entry 0 is 0"):
        unit_open.check_vector("x", [0.0])
    assert DEMAND.check_vector("demands", [0.5, float("inf")]).tolist() == [0.5, float("inf")]
    with pytest.raises(ValueError, match=r"demands must have at most 1 entries"):
        DEMAND.check_vector("demands", [0.5, 1.0], max_length=1)


@pytest.mark.parametrize(
    "constraint, inside, outside",
    [
        (Interval(float, 0.0, 1.0, closed="right"), [1e-12, 0.5, 1.0], [0.0, 1.5, float("nan"), float("inf")]),
        (Interval(float, 0.0, None, allow_inf=True), [0.0, 1e9, float("inf")], [-1e-9, float("nan")]),
        (c.Options({"a": "the a", "b": "the b"}), ["a", "b"], ["the a", "c"]),
        (Interval(int, 1, 10), [1, 10, 3.0], [0, 11, 2.5]),
    ],
)
def test_a_spec_admits_exactly_its_values(constraint, inside, outside):
    """``Spec.admits`` — what a widget's grid point or option is checked against — agrees with the ends,
    ∞ and choices of the declaration."""
    sp = c.Spec(**constraint.spec_fields())
    assert all(sp.admits(v) for v in inside) and not any(sp.admits(v) for v in outside)


def _literal_labels(path, fields) -> list[str]:
    """Widget calls of a page file that pass their own label for a scenario field (a string first
    argument to a call keyed ``state.key("<field>")``)."""
    import ast

    found = []
    for n in ast.walk(ast.parse(path.read_text())):
        if not isinstance(n, ast.Call) or not n.args or not isinstance(n.args[0], ast.Constant):
            continue
        keys = [kw.value for kw in n.keywords if kw.arg == "key"] + [
            a for a in n.args if isinstance(a, ast.Call) and getattr(a.func, "attr", "") == "key"
        ]
        for k in keys:
            if (
                isinstance(k, ast.Call)
                and getattr(k.func, "attr", "") == "key"
                and k.args
                and isinstance(k.args[0], ast.Constant)
                and k.args[0].value in fields
                and isinstance(n.args[0].value, str)
            ):
                found.append(f"{path}:{n.lineno} {k.args[0].value}: {n.args[0].value!r}")
    return found


@pytest.mark.parametrize("page", list(pages()))
def test_every_widget_of_a_field_takes_its_label_from_the_declaration(page):
    """A page draws each scenario field's widget through its state (``state.slider``, ``number``, ``grid``,
    ``choice``, ``check``, ``text``), which read the label (``param``'s caption, else its label), the range
    and the choices from the field's declaration; no page passes a label of its own for a field."""
    from pathlib import Path

    mod = pages()[page]
    root = Path(__file__).resolve().parents[1]
    assert _literal_labels(root / mod.PAGE_SPEC.file, set(mod.SCENARIO.specs())) == []


def test_the_label_guard_sees_a_literal_label(tmp_path):
    f = tmp_path / "page.py"
    f.write_text('sb.text_input("my own label", key=state.key("eps"))\nstate.text("eps")\n')
    assert _literal_labels(f, {"eps"}) == [f"{f}:1 eps: 'my own label'"]
