"""Every `--json` output of the CLI is strict JSON (RFC 8259): no NaN or Infinity, which jq and
JavaScript's JSON.parse reject. A non-finite number is written as null and the document's
"non_finite" says, per JSON Pointer, what it was. The list below must name every verb that has a
`--json` flag: a new one fails the first test until it is added here."""

from __future__ import annotations

import argparse

import pytest
from conftest import ROOT, strict_json

from hetdp_core.framework.registry import specs
from hetdp_ui.cli import build_parser, main

PLANS = ROOT / "data" / "plans"

#: (verb, sub-verb or None) → argument lists that exercise it, including non-finite values
COMMANDS = {
    ("bcdp", "c-vector"): [["--delta", "0.2,inf,2", "--eps", "2", "--q", "0.3"]],
    ("bcdp", "mse"): [["--n", "200", "--eps", "2", "--delta", "0.2,2", "--q", "0.5", "--trials", "3"]],
    ("bcdp", "exact"): [["--example", "1"], ["--example", "2"], ["--example", "rr", "--rr-c", "0.3,0.3", "--q", "0,1"]],
    ("zcdp", "renyi"): [
        ["--algorithm", "2", "--x", "10", "--r", "0.1", "--rho", "1", "--alpha", "1.5,2,6"],
        ["--algorithm", "1", "--x", "3", "--r", "0.2", "--rho", "0.5", "--alpha", "2,5"],
    ],
    ("zcdp", "release"): [["--counts", "0,3,50", "--algorithm", "1", "--r", "0.2", "--rho", "0.5", "--trials", "3"]],
    ("sgd", "theta"): [["--rho", "0.5", "--kappa", "0.8", "--eps", "1", "--steps", "20"]],
    ("sgd", "run"): [["--problem", "mean", "--steps", "50", "--runs", "5"]],
    ("mech", "release"): [["--mechanism", "gaussian", "--eps", "0.5"]],
    ("mech", "bounded-laplace"): [["--eps", "1", "--delta", "0.01", "--sensitivity", "0.5"]],
    ("mech", "exponential"): [[]],
    ("mech", "smooth-median"): [[]],
    ("hetero", "weights"): [["--problem", "frequency", "--variant", "CP", "--eps", "0.1,0.5,inf,2"]],
    ("hetero", "run"): [["--n", "300", "--k", "3", "--trials", "20"]],
    ("regression", None): [["--n", "1000", "--trials", "2", "--steps", "20"]],
    ("meaning", None): [["--eps", "0.1,1,inf"], ["--eps", "0.5", "--zcdp", "--target-tpr", "0.05"]],
    ("context", None): [["--eps", "0.01,3,inf", "--delta", "1e-6", "--all"]],
    ("class", "start"): [["1-bcdp-feature-privacy"]],  # the suite's own data directory (tests/conftest.py)
    ("class", "list"): [[]],
    ("ledger", None): [
        ["--plan", str(PLANS / "census-and-survey.toml"), "--budget", "3", "--target-tpr", "0.2"],
        ["--plan", str(PLANS / "census-and-survey.toml"), "--pin", str(PLANS / "census-and-survey.toml")],
        ["--plan", "{approx}", "--delta", "1e-9"],  # an (ε, δ) level whose δ alone exceeds: no finite bound
    ],
    ("run", None): [[spec.url, "--query", spec.example_query] for spec in specs()],
    ("solve", None): [["Mechanism_lab", "--target", "10"], ["Groupwise_zCDP", "--target-tpr", "0.05"]],
    ("reproduce", None): [["fig4a", "--out", "{tmp}", "--trials", "5", "--n", "300"]],
}


def _json_verbs(parser: argparse.ArgumentParser, prefix: tuple = ()) -> set[tuple]:
    out = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out |= _json_verbs(sub, (*prefix, name))
        elif "--json" in action.option_strings:
            out.add(prefix if len(prefix) == 2 else (prefix[0], None))
    return out


def test_every_verb_with_a_json_flag_is_checked_here():
    assert _json_verbs(build_parser()) == set(COMMANDS)


def _cases():
    for (verb, sub), arglists in COMMANDS.items():
        for i, args in enumerate(arglists):
            yield pytest.param(verb, sub, args, id=f"{verb}-{sub or ''}-{i}")


def _pointer(doc, pointer: str):
    for part in pointer.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


@pytest.mark.parametrize("verb,sub,args", list(_cases()))
def test_json_output_is_strict(verb, sub, args, tmp_path, capsys):
    approx = tmp_path / "approx.toml"
    approx.write_text('[[release]]\nname = "v"\nlink = "Mechanism_lab?delta=0.001"\nrepeat = 3\n')
    args = [a.replace("{tmp}", str(tmp_path / "out")).replace("{approx}", str(approx)) for a in args]
    code = main([verb, *([sub] if sub else []), *args, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    doc = strict_json(out)  # raises on NaN / Infinity
    for pointer, what in doc.get("non_finite", {}).items():
        assert _pointer(doc, pointer) is None and what in ("+Infinity", "-Infinity") or what.startswith("NaN")


def test_the_non_finite_notes_name_what_each_null_was(tmp_path, capsys):
    """A ledger whose level's δ alone uses up the δ asked for: every accountant's ε is null, noted +Infinity."""
    plan = tmp_path / "p.toml"
    plan.write_text('[[release]]\nname = "v"\nlink = "Mechanism_lab?delta=0.001"\nrepeat = 3\n')
    assert main(["ledger", "--plan", str(plan), "--delta", "1e-9", "--json"]) == 0
    doc = strict_json(capsys.readouterr().out)
    assert all(row["epsilon"] is None for row in doc["ledger"]) and doc["headline"][0]["epsilon"] is None
    assert doc["non_finite"]["/headline/0/epsilon"] == "+Infinity"
    assert all(row["note"] for row in doc["ledger"])  # and each row says why
