"""A report to take away: `hetdp report` and the page's button build the same
standalone HTML; it embeds plotly.js once and fetches nothing (the browser test opens it offline)."""

import html
import re
from urllib.parse import urlencode

import pytest
from conftest import ROOT, page_path
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import pages, specs
from hetdp_core.scenarios import get
from hetdp_ui.cli import main
from hetdp_ui.report import build_report, report_figures

#: each page's cheap query (its spec), at another seed
QUERY = {s.url: urlencode({**s.fast_query, "seed": "4"}) for s in specs()}


@pytest.mark.parametrize("page", list(pages()))
def test_cli_report_is_standalone_and_complete(page, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", page, "--query", QUERY[page], "--out", str(out), "--prior", "0.05"]) == 0
    doc = out.read_text()
    mod = get(page)
    s = mod.SCENARIO.from_query(dict(kv.split("=") for kv in QUERY[page].split("&")))
    result = mod.run(s)
    n_figs = len(report_figures(page, s, result))
    assert len(re.findall(r'<div id="fig\d+"', doc)) == n_figs >= 2
    assert doc.count("Plotly.newPlot") == n_figs
    assert len(re.findall(r"<script[^>]+src=", doc)) == 0  # nothing fetched
    assert not re.search(r"<link[^>]+href=.https?:", doc)  # no external stylesheet
    assert html.escape(mod.QUESTION[:40]) in doc and f"/{page}?" in doc
    assert "seed=4" in doc or "seed" not in mod.SCENARIO.specs()
    assert "an attacker who thought 5 % now thinks at most" in doc
    assert ("holds:" in doc) == bool(result.checks) and "NUMERICAL FAILURE" not in doc


def test_report_and_page_share_the_builder():
    mod = get("Feature_privacy")
    s = mod.SCENARIO.from_query({"trials": "5", "n": "500"})
    a, b = build_report("Feature_privacy", s, mod.run(s)), build_report("Feature_privacy", s, mod.run(s))
    assert a == b  # deterministic given the scenario


@pytest.mark.parametrize(
    "argv,match",
    [
        (["report", "No_such_page", "--out", "x.html"], "page"),
        (["report", "Feature_privacy", "--out", "x.pdf"], "--out must name a .html/.htm file"),
        (["report", "Feature_privacy", "--out", "x.html", "--prior", "1.5"], r"prior must be in \(0, 1\)"),
        (["report", "--out", "x.html"], "give PAGE"),
    ],
)
def test_report_bad_input(argv, match, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert re.search(match, err) and err.count("\n") == 1 and not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("page", list(pages()))
def test_page_offers_the_report_button(page):
    at = AppTest.from_file(str(page_path(page)), default_timeout=120)
    at.query_params.update(dict(kv.split("=") for kv in QUERY[page].split("&")))
    at.run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download a report (HTML, opens offline; print it to PDF)" in labels


def test_static_figures_with_kaleido(tmp_path, capsys):
    """`hetdp report … --static DIR` writes every report figure as PNG (or SVG) through kaleido."""
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                "Per_user_privacy",
                "--query",
                QUERY["Per_user_privacy"],
                "--out",
                str(out),
                "--static",
                str(tmp_path / "png"),
            ]
        )
        == 0
    )
    pngs = sorted((tmp_path / "png").glob("*.png"))
    # the page's four figures, the trade-off curves of its levels and the strip of real deployments
    assert len(pngs) == 6 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert (
        main(
            [
                "report",
                "Mechanism_lab",
                "--query",
                QUERY["Mechanism_lab"],
                "--out",
                str(out),
                "--static",
                str(tmp_path / "svg"),
                "--format",
                "svg",
            ]
        )
        == 0
    )
    svgs = sorted((tmp_path / "svg").glob("*.svg"))
    assert len(svgs) == 8 and all(p.read_text().lstrip().startswith("<svg") for p in svgs)  # 6 + trade-off + strip


def test_the_report_of_a_pinned_view_is_a_decision_record():
    """Plan A vs plan B with both plans' numbers, the page's key results table, parameters by their
    names in words, the link to the server the report came from, and print CSS."""
    from hetdp_core.scenarios import get
    from hetdp_ui.report import build_report

    mod = get("Per_user_privacy")
    a = mod.SCENARIO.from_query({"trials": "20", "algs": "CP,UNI"})
    b = mod.SCENARIO.from_query({"trials": "20", "algs": "CP,UNI", "beta": "0.1"})
    ra, rb = mod.run(a), mod.run(b)
    page = build_report("Per_user_privacy", b, rb, app_url="https://dp.example.edu/hetdp", plan_a=(a, ra))
    assert "Plan A (pinned) vs plan B (this view)" in page and "B − A" in page
    assert "β (PAC level)" in page  # the parameter that differs, in words
    assert "<h3>hetero_summary" in page and "UNI" in page  # the key results table (accuracy per method)
    assert "https://dp.example.edu/hetdp/Per_user_privacy?" in page and "localhost" not in page
    assert "&amp;pin=" in page  # the link reopens the comparison
    assert "@media print" in page and "In short." in page
    assert "eps_by_bin" in page and "ε per bin" in page or "demand" in page  # names in words beside URL names


def test_the_report_reads_as_the_page_does(tmp_path, capsys):
    """A first reader's complaints: the question's Markdown showed literal asterisks (*whole*), the
    parameters showed internal values (two_groups), and charts without an axis title read "x: —"."""
    from hetdp_ui.cli import main

    out = tmp_path / "fp.html"
    assert main(["report", "Feature_privacy", "--query", "trials=5&n=1000&points=0.1,0.5", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "*whole*" not in text and "<i>whole</i>" in text
    assert "<td>Two groups</td>" in text and "<td>two_groups</td>" not in text  # the label, as the widget shows it
    assert "x: —" not in text and "y: —" not in text
    assert "x: categories x1, x2" in text  # the allocation's bars are named by feature


def test_the_ledger_report_names_each_headline_and_its_accountant(tmp_path):
    from hetdp_core.accountants.ledger import ledger, parse_plan
    from hetdp_ui.folders import folder_module

    build_ledger_report = folder_module("release_ledger", "downloads").build_ledger_report

    r = ledger(parse_plan((ROOT / "data" / "plans" / "census-and-survey.toml").read_text()), delta=1e-6, budget=3)
    text = build_ledger_report(r)
    assert "<b>residents</b>: headline ε = 1.925 by privacy-loss distribution (exact" in text
    assert "--budget 3.0" in text and "judged by each group's headline" in text


def test_a_static_export_whose_chromium_stops_answering_is_stopped_within_its_limit(tmp_path, monkeypatch):
    """Kaleido waits for its Chromium without end when the browser stops answering (a test run hung
    there). A fake Chromium that starts a helper and then never answers: the export is stopped at its
    limit with a one-line error, and nothing it started is left running."""
    import subprocess
    import time

    import plotly.graph_objects as go

    from hetdp_ui.static_export import StaticExportError, write_images

    marker = "hetdp-fake-chromium-7331"
    fake = tmp_path / "chromium"
    fake.write_text(f"#!/bin/sh\nsh -c 'exec -a {marker} sleep 600' &\nexec sleep 600\n")
    fake.chmod(0o755)
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
    t0 = time.monotonic()
    with pytest.raises(StaticExportError, match=r"did not finish within 8 s and was stopped"):
        write_images([(fig, tmp_path / "f.png")], fmt="png", width=400, height=300, timeout=8)
    assert time.monotonic() - t0 < 30
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert not left, f"the fake Chromium's helper {left} outlived the stopped export"
    # nor the wrapper kaleido starts the browser through (in a session of its own: one outlived the kill)
    wrapper = subprocess.run(["pgrep", "-f", str(fake)], capture_output=True, text=True).stdout.split()
    assert not wrapper, f"kaleido's browser wrapper {wrapper} outlived the stopped export"
    assert not (tmp_path / "f.png").exists()


def test_a_failed_static_export_says_why_in_one_line(tmp_path, monkeypatch, capsys):
    """A Chromium that is not there: `hetdp report --static` exits 3 with kaleido's reason on one line."""
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-chromium"))
    args = ["report", "Mechanism_lab", "--query", QUERY["Mechanism_lab"], "--out", str(tmp_path / "r.html")]
    assert main([*args, "--static", str(tmp_path / "png")]) == 3
    err = capsys.readouterr().err
    assert err.startswith("hetdp: error: the static export failed (exit 1)") and err.count("\n") == 1
