"""The numerics' own commands (hetdp_core.framework.commands): their command lines are generated from their
declarations — a flag per input with its old names, its range and default in the help, the
constraint's message for a bad value — and a new declaration is a new command with nothing else to
write."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hetdp_core.framework import commands as cm
from hetdp_core.framework.constraints import EPS, Interval, param
from hetdp_core.framework.scenario import Question
from hetdp_ui.cli import build_parser, main


def _help(capsys, *words) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*words, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("t", cm.COMMANDS, ids=lambda t: f"{t.verb}-{t.name}")
def test_every_input_is_a_flag_with_its_old_names_range_and_default(t, capsys):
    text = " ".join(_help(capsys, t.verb, t.name).split())
    flat = "".join(text.split())  # argparse wraps lines, also at hyphens
    for name, spec in t.question.specs().items():
        assert f"--{name.replace('_', '-')} {name.upper()}" in text
        assert "".join(spec.accepts().split()) in flat, (name, spec.accepts())
    for old in t.question.ALIASES:
        assert f"--{old.replace('_', '-')} " in text
    assert t.question.__doc__.split()[0] in text  # the question in words is the command's description


@pytest.mark.parametrize("t", cm.COMMANDS, ids=lambda t: f"{t.verb}-{t.name}")
def test_every_questions_defaults_are_valid(t):
    q = t.question()
    assert t.question.from_query(q.to_query()) == q


def test_old_flag_names_and_new_ones_give_the_same_answer(capsys):
    assert main(["bcdp", "c-vector", "--delta", "0.3,inf", "--eps", "2", "--q", "0.2", "--json"]) == 0
    old = json.loads(capsys.readouterr().out)
    assert main(["bcdp", "c-vector", "--demands", "0.3,inf", "--eps", "2", "--q", "0.2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == old
    assert main(["hetero", "weights", "--problem", "mean", "--variant", "A", "--eps", "0.5,1", "--json"]) == 0
    old = json.loads(capsys.readouterr().out)
    assert main(["hetero", "weights", "--problem", "mean", "--variant", "A", "--demands", "0.5,1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == old


def test_a_list_can_come_from_a_file(tmp_path, capsys):
    f = tmp_path / "demands.txt"
    f.write_text("0.3\ninf\n2\n")
    assert main(["bcdp", "c-vector", "--demands", f"@{f}", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [g["demand"] for g in out["guarantee"]] == [0.3, None, 2.0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(eps=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["", "abc", "1e", "--1", "0x1"])))
def test_any_eps_either_answers_or_says_why_in_one_line(eps, capsys):
    capsys.readouterr()
    code = main(["bcdp", "c-vector", "--demands", "0.2,2", "--q", "0.3", f"--eps={eps}", "--json"])
    out, err = capsys.readouterr()
    ok = isinstance(eps, float) and math.isfinite(eps) and EPS.lo <= eps <= EPS.hi
    if ok:
        assert code in (0, 1) and json.loads(out)["ldp_level"] <= eps * (1 + 1e-9)
    else:
        assert code == 2 and out == "" and err.startswith("hetdp: error: eps") and err.count("\n") == 1


@dataclasses.dataclass(frozen=True)
class _Double(Question):
    """Twice a number."""

    x: float = param(1.0, Interval(float, 0.0, 10.0), "the number")

    ALIASES = {"y": "x"}


def test_a_new_declaration_is_a_new_command(monkeypatch, capsys):
    new = cm.Command("mech", "double", "twice a number", _Double, lambda q: {"twice": 2 * q.x})
    monkeypatch.setattr(cm, "COMMANDS", (*cm.COMMANDS, new))
    monkeypatch.setattr("hetdp_ui.cli.commands.COMMANDS", (*cm.COMMANDS,))
    build_parser()
    assert main(["mech", "double", "--y", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"twice": 6.0}
    assert main(["mech", "double", "--x", "11"]) == 2
    assert "x (the number) must be in [0, 10]; got 11" in capsys.readouterr().err


def test_a_long_list_from_a_file_is_read_whole_and_checked_entry_by_entry(tmp_path, capsys):
    """A file is not held to a text field's 20 000 characters (50 000 demands here, ≈ 250 000 characters);
    a bad entry is named by its position, with the constraint's message."""
    f = tmp_path / "demands.txt"
    f.write_text("\n".join(["0.5", "1.25", "inf", "3"] * 12_500))
    assert main(["hetero", "weights", "--problem", "mean", "--variant", "A", "--demands", f"@{f}", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["weights"]) == 50_000
    f.write_text("0.5 1.25\n-2 3")
    assert main(["hetero", "weights", "--problem", "mean", "--variant", "A", "--demands", f"@{f}"]) == 2
    assert "demands (per-user demands ε_i) entry 3 must be in [1e-06, inf]; got -2" in capsys.readouterr().err
    f.write_text("0.5, x, 3")
    assert main(["hetero", "weights", "--problem", "mean", "--variant", "A", "--demands", f"@{f}"]) == 2
    assert "--demands entry 2 must be a number; got 'x'" in capsys.readouterr().err
