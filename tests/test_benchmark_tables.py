"""docs/benchmarks.md's tables are written by `make bench` / `make load`, never by hand: every block is the
rendering of its recorded run (benchmarks/recorded/<name>.json), and recording a run rewrites its block."""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import tables  # noqa: E402

DOC = (ROOT / "docs" / "benchmarks.md").read_text()
BLOCKS = re.findall(r"<!-- begin: written by ([\w-]+) -->", DOC)


def test_every_tool_has_its_block_once():
    assert sorted(BLOCKS) == sorted(tables.RENDER), "each recorded tool writes one block of docs/benchmarks.md"
    assert set(tables.BLOCK_OF.values()) == set(tables.RENDER)


@pytest.mark.parametrize("block", sorted(tables.RENDER))
def test_block_is_the_rendering_of_its_recorded_run(block):
    text = tables.RENDER[block]()
    assert text is not None, f"no recorded run feeds block {block!r}: run its tool (benchmarks/tables.py)"
    shown = tables.block_re(block).search(DOC).group(2)
    assert shown == text, (
        f"docs/benchmarks.md's block {block!r} is not what its recorded run renders: a hand edit, or a change of "
        "benchmarks/tables.py or of a page title without `python -m benchmarks.tables`"
    )
    assert "| ---" not in shown and shown.count("|---|") >= 1  # a Markdown table


def test_the_readme_performance_table_is_the_rendering_of_the_live_run():
    """README's performance table is written by `make bench-live` (and `make bench`), never by hand."""
    readme = (ROOT / "README.md").read_text()
    for block, render in tables.README_RENDER.items():
        shown = tables.block_re(block).search(readme)
        assert shown, f"README.md has no block {block!r}"
        assert shown.group(2) == render(), f"README.md's block {block!r} is not what its recorded run renders"


def test_the_live_table_marks_every_target_met_or_not():
    """Each page's slider step and first answer are shown against their targets, met or not, with the load."""
    run = {
        "pages": {
            "Feature_privacy": {"step_s": 0.5, "step_ratio": 2.0, "first_answer_s": 0.5, "first_answer_ratio": 2.0}
        },
        "bare": {"step_s": 0.25, "steps": 10},
        "load_average": {"before": [1.0, 2.0, 3.0], "after": [1.5, 2.0, 3.0]},
        "first_chart": {"Feature_privacy": {"first_ratio": 1.2, "next_ratio": 1.7}},
    }
    text = tables.render_live(run)
    assert "2× (target ≤ 3×: met)" in text and "2× (target ≤ 1.5×: **not met**)" in text
    assert "1.00 / 2.00 / 3.00" in text and "Feature privacy (BCDP)" in text
    short = tables.render_live_readme(run)
    assert "(2×)" in short and "(**2×**)" in short and "1.2× / **1.7×**" in short


def test_record_writes_the_data_and_rewrites_only_its_block(tmp_path, monkeypatch):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "intro\n<!-- begin: written by faults -->\nold\n<!-- end: faults -->\nmiddle\n"
        "<!-- begin: written by class -->\nkeep\n<!-- end: class -->\n"
    )
    monkeypatch.setattr(tables, "RECORDED", tmp_path / "recorded")
    run = {"machine_cpus": 2, "cache": {"corrupted_files": 20, "ok": True}, "heavy": {"peak_gib": 2.07, "ok": False}}
    tables.record("faults", run, doc=doc)
    kept = json.loads((tmp_path / "recorded" / "faults.json").read_text())
    assert kept["cache"] == run["cache"] and "recorded" in kept
    text = doc.read_text()
    assert "old" not in text and "keep" in text and text.startswith("intro\n") and "middle" in text
    assert "all 20 files" in text and "**no**" in text  # the failed promise is shown as failed


def test_a_missing_block_is_an_error_naming_its_markers(tmp_path):
    doc = tmp_path / "b.md"
    doc.write_text("no markers\n")
    with pytest.raises(SystemExit, match="begin: written by bench"):
        tables.write_block("bench", "x", doc)


def test_the_benchmarks_workloads_are_declared_by_the_pages(tmp_path, monkeypatch):
    """make bench / make load / the fault runs take their fixed workloads from each page's bench.toml
    (benchmarks/workloads.py): the real ones, a key nobody knows, and a workload two pages claim."""
    from benchmarks.workloads import workloads

    w = workloads()
    assert w.default_view == w.paper_figures == "Feature_privacy" and w.fault_heavy == (
        "Mechanism_lab",
        "trials=5000&n=10000",
    )
    assert w.solve == (("Feature_privacy", 5.0), ("Feature_privacy", 0.5), ("Per_user_privacy", 0.05))
    assert w.same_link == (("Feature_privacy", ""), ("Groupwise_zCDP", "")) and w.distinct == ("Feature_privacy",)
    for slug in ("feature_privacy", "mechanism_lab"):
        (tmp_path / "bad" / slug).mkdir(parents=True)
    (tmp_path / "bad" / "feature_privacy" / "bench.toml").write_text("default_view = true\nload_sam_link = ''\n")
    with pytest.raises(ValueError, match=r"unknown keys \['load_sam_link'\]"):
        workloads(tmp_path / "bad")
    (tmp_path / "two" / "feature_privacy").mkdir(parents=True)
    (tmp_path / "two" / "mechanism_lab").mkdir(parents=True)
    for slug in ("feature_privacy", "mechanism_lab"):
        (tmp_path / "two" / slug / "bench.toml").write_text("default_view = true\nfault_heavy_query = ''\n")
    with pytest.raises(ValueError, match="exactly one page's bench.toml must set default_view; found 2"):
        workloads(tmp_path / "two")


def test_the_load_tables_list_the_crowds_a_run_recorded():
    """The crowd rows are the pages the run recorded (titles from the registry), not a typed list."""
    keys = tables._crowd_keys({"same_link_Groupwise_zCDP": {}, "distinct_Mechanism_lab": {}, "users": 5}, 5)
    assert keys == [
        ("one cached link, Group-wise zCDP", "same_link_Groupwise_zCDP"),
        ("5 different scenarios, Mechanism lab", "distinct_Mechanism_lab"),
    ]
