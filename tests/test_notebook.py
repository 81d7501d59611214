"""A notebook for every view (hetdp_ui/notebook.py, `hetdp notebook`, `hetdp ledger --notebook`): each
registered page's notebook, written by the CLI, runs top to bottom in a fresh kernel (nbclient, the
Jupyter project's own executor — the way a reader's Jupyter would run it) and prints the same key
tables as `hetdp run` for the same query; the ledger's notebook prints the same totals as
`hetdp ledger --json`."""

from __future__ import annotations

import json
import math

import nbformat
import pytest
from conftest import ROOT, strict_json

from hetdp_core.framework.registry import specs
from hetdp_core.framework.scenario import InputError
from hetdp_ui.cli import main


def _execute(path):
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # the kernel talks over Unix sockets in the test's own folder: TCP ports found free and bound by the
    # kernel a moment later were taken in between by another process of `make test` (the kernel died)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(path.parent / "kernel"))
    NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    return nb


def _printed_json(nb) -> dict:
    last = nb.cells[-1]
    text = "".join(o.get("text", "") for o in last.outputs if o.get("name") == "stdout")
    return json.loads(text)


def _same(a, b):
    if isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        # NaN and null are the same missing value; the CLI's strict JSON writes ±Infinity as null too
        # (listed in its "non_finite"), the notebook prints Python's repr
        nan = (a is None or not math.isfinite(a), b is None or not math.isfinite(b))
        assert nan[0] == nan[1] and (nan[0] or a == pytest.approx(b, rel=1e-12, abs=1e-300)), (a, b)
    else:
        assert a == b


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.url)
def test_every_pages_notebook_runs_in_a_fresh_kernel_and_gives_the_cli_numbers(spec, tmp_path, capsys):
    from urllib.parse import urlencode

    query = urlencode(dict(spec.fast_query))
    out = tmp_path / f"{spec.url}.ipynb"
    assert main(["notebook", spec.url, "--query", query, "--out", str(out)]) == 0
    capsys.readouterr()
    nb = _execute(out)
    numbers = _printed_json(nb)
    assert main(["run", spec.url, "--query", query, "--json"]) in (0, 1)
    cli = strict_json(capsys.readouterr().out)["tables"]
    assert numbers, "the notebook printed no table"
    for name, rows in numbers.items():
        _same(rows, cli[name])
    assert any(o.get("data", {}).get("application/vnd.plotly.v1+json") for c in nb.cells for o in c.get("outputs", []))


def test_the_ledger_notebook_gives_the_cli_totals(tmp_path, capsys):
    plan = ROOT / "data" / "plans" / "census-and-survey.toml"
    nb_path = tmp_path / "ledger.ipynb"
    assert (
        main(["ledger", "--plan", str(plan), "--fpr", "0.05", "--budget", "4", "--notebook", str(nb_path), "--json"])
        == 0
    )
    cli = strict_json(capsys.readouterr().out)
    numbers = _printed_json(_execute(nb_path))
    _same(numbers["headline"], cli["headline"])
    _same(numbers["ledger"], cli["ledger"])
    _same(numbers["risk"], cli["risk"])


def test_bad_notebook_requests_are_one_line(tmp_path, capsys):
    assert main(["notebook", "Nowhere", "--out", str(tmp_path / "x.ipynb")]) == 2
    assert main(["notebook", "Groupwise_zCDP", "--query", "rho=-1", "--out", str(tmp_path / "x.ipynb")]) == 2
    assert main(["notebook", "Groupwise_zCDP", "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "PAGE must be one of" in err[0] and "rho" in err[1] and ".ipynb" in err[2]
    from hetdp_ui.notebook import page_notebook

    with pytest.raises(InputError, match="rho"):
        page_notebook("Groupwise_zCDP", "rho=-1")


def test_a_view_of_an_uploaded_csv_reads_it_beside_the_notebook(tmp_path):
    """The per-user page's dataset=upload (and the regression page's source=upload): the notebook reads the
    reader's CSV from the file named by the page's button, never embeds the data, and runs with it."""
    from hetdp_ui.notebook import notebook_bytes, page_notebook

    nb = page_notebook("Per_user_privacy", "dataset=upload&problem=mean&trials=20&n=1000", upload_file="data.csv")
    src = "".join(c.source for c in nb.cells)
    assert "open('data.csv', 'rb')" in src and "upload=UPLOAD" in src
    (tmp_path / "data.csv").write_text("value\n" + "\n".join(str(i / 100) for i in range(300)))
    path = tmp_path / "up.ipynb"
    path.write_bytes(notebook_bytes(nb))
    numbers = _printed_json(_execute(path))
    assert numbers


def test_a_pinned_view_s_notebook_and_report_compare_plan_a(tmp_path, capsys):
    """The page's buttons and the CLI (a link with pin=…) give a notebook that recomputes plan A and the
    A/B table the page shows, and a report with plan A vs plan B; every notebook says how to install
    hetdp and stops with that message when the kernel lacks it."""
    from urllib.parse import quote

    a, b = "trials=5&n=1000&q=0.1&points=0.1,0.5", "trials=5&n=1000&q=0.3&points=0.1,0.5"
    url = f"http://localhost:8501/Feature_privacy?{b}&pin={quote(a)}"
    nb_path, rep = tmp_path / "ab.ipynb", tmp_path / "ab.html"
    assert main(["notebook", "--url", url, "--out", str(nb_path)]) == 0
    assert main(["report", "--url", url, "--out", str(rep)]) in (0, 1)
    capsys.readouterr()
    nb = _execute(nb_path)
    assert "make run" in nb.cells[0].source and "hetdp is not installed" in nb.cells[1].source
    ab = next(c for c in nb.cells if "PLAN_A" in c.source)
    shown = "".join(o.get("data", {}).get("text/plain", "") for o in ab.outputs)
    assert "plan A" in shown and "B − A" in shown
    assert "Plan A (pinned) vs plan B (this view)" in rep.read_text(encoding="utf-8")
