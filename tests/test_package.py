"""A decision in one download (issue 40): `hetdp package` for a page and for the ledger, the zip's
contents, its script and notebook giving the numbers of `hetdp run` / `hetdp ledger`, and the page's and
the ledger's "Download the decision" buttons (AppTest). The fresh-environment run is in test_wheel.py."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import zipfile

import nbformat
import pytest
from conftest import ROOT, strict_json
from streamlit.testing.v1 import AppTest
from test_wheel import _same

from hetdp_core.accountants.ledger import parse_plan
from hetdp_core.scenarios import get
from hetdp_ui.cli import main

PLAN = ROOT / "data" / "plans" / "census-and-survey.toml"


def _unzip(path, to):
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        z.extractall(to)
    return names


def test_a_pages_package_holds_the_decision_and_reruns_to_the_same_numbers(tmp_path, capsys):
    query = "trials=5&n=500&q=0.3"
    assert main(["package", "Feature_privacy", "--query", query, "--out", str(tmp_path / "d.zip")]) == 0
    capsys.readouterr()
    names = _unzip(tmp_path / "d.zip", tmp_path / "d")
    assert {"README.md", "report.html", "notebook.ipynb", "recompute.py", "scenario.toml"} <= names
    assert "tables/bcdp_guarantee.csv" in names and "tables/privacy_meaning.csv" in names
    readme = (tmp_path / "d" / "README.md").read_text()
    assert "## What was decided" in readme and "/Feature_privacy?" in readme and "hetdp run Feature_privacy" in readme
    assert "## Among real deployments" in readme and "Units and periods differ" in readme
    assert "executed when the package was made" in readme
    fp = get("Feature_privacy")
    toml = tomllib.loads((tmp_path / "d" / "scenario.toml").read_text())
    assert toml["page"] == "Feature_privacy"
    assert fp.SCENARIO.from_query({k: [v] for k, v in toml["scenario"].items()}).q == 0.3
    assert main(["run", "Feature_privacy", "--query", query, "--json"]) == 0
    want = strict_json(capsys.readouterr().out)["tables"]
    out = subprocess.run(
        [sys.executable, "recompute.py"], cwd=tmp_path / "d", check=True, capture_output=True, text=True
    ).stdout
    got = strict_json(out)
    assert "bcdp_guarantee" in got and all(_same(got[k], want[k]) for k in got)
    for table in (tmp_path / "d" / "tables").glob("*.csv"):  # the script writes with the app's CSV writer
        assert (tmp_path / "d" / "recomputed" / table.name).read_bytes() == table.read_bytes(), table.name
    nb = nbformat.read(tmp_path / "d" / "notebook.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("outputs") is not None for c in code) and not [
        o for c in code for o in c.outputs if o.get("output_type") == "error"
    ]
    printed = json.loads("".join(o.get("text", "") for o in code[-1].outputs if o.get("name") == "stdout"))
    assert all(_same(printed[k], want[k]) for k in got)


def test_a_ledger_package_reruns_to_the_same_headline(tmp_path, capsys):
    out = tmp_path / "l.zip"
    assert main(["package", "Release_ledger", "--plan", str(PLAN), "--budget", "5", "--out", str(out)]) == 0
    capsys.readouterr()
    names = _unzip(out, tmp_path / "l")
    assert {"README.md", "report.html", "notebook.ipynb", "recompute.py", "plan.toml"} <= names
    assert "tables/ledger_headline.csv" in names
    assert parse_plan((tmp_path / "l" / "plan.toml").read_bytes()) == parse_plan(PLAN.read_bytes())
    assert main(["ledger", "--plan", str(PLAN), "--budget", "5", "--json"]) == 0
    want = strict_json(capsys.readouterr().out)
    got = json.loads(
        subprocess.run(
            [sys.executable, "recompute.py"], cwd=tmp_path / "l", check=True, capture_output=True, text=True
        ).stdout
    )
    assert _same(got["headline"], want["headline"]) and _same(got["risk"], want["risk"])
    readme = (tmp_path / "l" / "README.md").read_text()
    assert "headline ε" in readme and "hetdp ledger --plan plan.toml" in readme and "--budget 5.0" in readme


def test_bad_package_requests_are_named(tmp_path, capsys):
    assert main(["package", "Release_ledger", "--out", str(tmp_path / "x.zip")]) == 2
    assert "--plan: give the plan" in capsys.readouterr().err
    # the ledger's package flags come from its folder (pages/release_ledger/cli.py); "ledger" is its short name
    assert main(["package", "ledger", "--plan", str(tmp_path / "none.toml"), "--out", str(tmp_path / "x.zip")]) == 2
    assert "--plan: file" in capsys.readouterr().err and not (tmp_path / "x.zip").exists()
    assert main(["package", "Feature_privacy", "--query", "trials=5", "--out", str(tmp_path / "x.txt")]) == 2
    assert ".zip" in capsys.readouterr().err
    assert main(["package", "Feature_privacy", "--query", "q=7", "--out", str(tmp_path / "x.zip")]) == 2
    assert "q" in capsys.readouterr().err and not (tmp_path / "x.zip").exists()


def test_the_decision_buttons_build_the_zip_on_request():
    at = AppTest.from_file(str(ROOT / "pages" / "groupwise_zcdp" / "page.py"), default_timeout=300)
    at.query_params.update(dict(get("Groupwise_zCDP").PAGE_SPEC.fast_query))
    at.run()
    assert not at.get("download_button") or all("decision" not in d.proto.label for d in at.get("download_button"))
    at.button(key="Groupwise_zCDP_decision_prepare").click().run()
    assert not at.exception and not at.error
    # the status box says the package is ready once it is (it kept saying "Building …")
    (status,) = [e.label for e in at.main if type(e).__name__ == "Status" and "decision package" in e.label]
    assert status.startswith("The decision package is ready (") and "Building" not in status
    labels = [d.proto.label for d in at.get("download_button")]
    assert "Download the decision (zip)" in labels
    ledger = AppTest.from_file(str(ROOT / "pages" / "release_ledger" / "page.py"), default_timeout=300).run()
    ledger.button(key="ledger_decision_prepare").click().run()
    assert not ledger.exception and "Download the decision (zip)" in [
        d.proto.label for d in ledger.get("download_button")
    ]


def test_a_page_adds_its_packager_only_after_hetdp_package_exists():
    """add_packager is for a folder's cli.py, called after the verbs: before, it is a programming error
    (RuntimeError), not an input error with exit code 2."""
    import argparse

    from hetdp_ui.cli.package import add_packager, register

    sub = argparse.ArgumentParser().add_subparsers()
    with pytest.raises(RuntimeError, match="hetdp package is not registered yet"):
        add_packager(sub, ["x"], lambda a: b"")
    register(sub)
    assert add_packager(sub, ["My-Page"], len).get_default("packagers") == {"my_page": len}


def _my_kernels() -> list[int]:
    """This process's children that are Jupyter kernels."""
    import os
    from pathlib import Path

    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (proc / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        if ppid == os.getpid() and b"ipykernel" in cmd:
            found.append(int(proc.name))
    return found


def test_a_notebook_run_leaves_no_kernel_behind():
    """nbclient keeps a kernel it was handed alive after the run: a server kept one idle kernel process per
    decision package it built (four in one CI run). Each run now shuts its kernel down."""
    from hetdp_ui.package import execute_notebook

    before = _my_kernels()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 6 * 7\nx")])
    for _ in range(2):
        done, how = execute_notebook(nb)
        assert how.startswith("executed") and done.cells[0].outputs[0]["data"]["text/plain"] == "42"
    assert _my_kernels() == before
