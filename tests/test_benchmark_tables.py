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

#: the pages the tools write blocks of (docs/benchmarks.md, and the operations guide's capacity)
DOCS = {page: page.read_text() for page in {tables.DOC, *tables.DOC_OF.values()}}
BLOCKS = [b for text in DOCS.values() for b in re.findall(r"<!-- begin: written by ([\w-]+) -->", text)]


def test_every_tool_has_its_block_once():
    assert sorted(BLOCKS) == sorted(tables.RENDER), "each recorded tool writes its blocks once"
    assert {b for blocks in tables.BLOCKS_OF.values() for b in blocks} == set(tables.RENDER)
    for page, text in DOCS.items():  # each block on the page it is written to
        assert all(tables.DOC_OF.get(b, tables.DOC) == page for b in re.findall(r"written by ([\w-]+) -->", text))


@pytest.mark.parametrize("block", sorted(tables.RENDER))
def test_block_is_the_rendering_of_its_recorded_run(block):
    text = tables.RENDER[block]()
    assert text is not None, f"no recorded run feeds block {block!r}: run its tool (benchmarks/tables.py)"
    page = tables.DOC_OF.get(block, tables.DOC)
    shown = tables.block_re(block).search(DOCS[page]).group(2)
    assert shown == text, (
        f"{page.name}'s block {block!r} is not what its recorded run renders: a hand edit, or a change of "
        "benchmarks/tables.py or of a page title without `python -m benchmarks.tables`"
    )
    if block != "capacity":  # the capacity block is a sentence per database; every other block a table
        assert "| ---" not in shown and shown.count("|---|") >= 1  # a Markdown table


def test_the_readme_performance_table_is_the_rendering_of_the_live_run():
    """README's performance table is written by `make bench-live` (and `make bench`), never by hand."""
    readme = (ROOT / "README.md").read_text()
    for block, render in tables.README_RENDER.items():
        shown = tables.block_re(block).search(readme)
        assert shown, f"README.md has no block {block!r}"
        assert shown.group(2) == render(), f"README.md's block {block!r} is not what its recorded run renders"


def test_the_readme_s_class_sentence_is_said_from_the_recorded_runs():
    """The class sentence names the recorded crowd, workers, arrival and stored answers, says a failed
    promise, and is left out (with its `make load` pointer) when no class run is recorded."""
    from benchmarks.tables_live import render_class_readme, render_live_readme

    def run(db, fault, *, answers, expected, workers=2, arrive=None, held=True, locked=0):
        r = {
            "db": db,
            "fault": fault,
            "workers": workers,
            "promises": {"every answer stored exactly once": held},
            "class": {"students": 300, "expected_answers": expected, "refresh_p95_s": 1.25, "locked_out": locked},
        }
        r["class"]["stored"] = {"answers": answers}
        return r if arrive is None else {**r, "arrive_s": arrive}

    killed = [run("sqlite", "kill", answers=999, expected=1000, workers=3, held=False)]
    rush = [run("postgresql", "kill", answers=1500, expected=1500, arrive=7.5, locked=2)]
    said = render_class_readme(killed + [run("sqlite", "none", answers=1, expected=1)], rush)
    assert "through three workers, one killed: sqlite: 999 of 1000 answers stored once" in said
    assert "(**a promise failed**)" in said and "A rush of 300 arriving in 7.5 s" in said and "2 locked out" in said
    assert "live view refresh p95 1.25 s" in said
    assert render_class_readme([run("sqlite", "none", answers=1, expected=1)], None) == ""
    live = {"pages": {}, "bare": {}, "load_average": {}}
    assert "make load" not in render_live_readme(live, [run("sqlite", "none", answers=1, expected=1)], None)
    assert render_live_readme(live, killed, None).endswith("(`make load`.)")


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


def test_the_rush_writes_its_table_and_the_operations_guide_s_capacity(tmp_path, monkeypatch):
    """One recorded rush rewrites two blocks on two pages: its table in benchmarks.md and the capacity
    sentence of operations.md, whose figure is the one the run computed."""
    bench, ops = tmp_path / "benchmarks.md", tmp_path / "operations.md"
    bench.write_text("<!-- begin: written by rush -->\nold\n<!-- end: rush -->\n")
    ops.write_text("a\n<!-- begin: written by capacity -->\nold\n<!-- end: capacity -->\nb\n")
    monkeypatch.setattr(tables, "RECORDED", tmp_path / "recorded")
    monkeypatch.setattr(tables, "DOC", bench)
    monkeypatch.setattr(tables, "DOC_OF", {"capacity": ops})
    c = {"students": 300, "expected_answers": 1500, "stored": {"answers": 1500, "second_attempts": 0}}
    c |= {"answer_p50_s": 0.3, "answer_p95_s": 1.2, "refresh_p95_s": 2.5, "locked_out": 0, "seconds": 150.0}
    c |= {"load_average": {"mean": 3.0, "max": 4.5}, "server_cpu_s": 120.0}
    run = {"db": "sqlite", "scenario": "rush", "machine_cpus": 2, "class": c, "promises": {"a": True, "b": False}}
    run["capacity"] = {"server_cpu_s_per_student": 0.4, "thinking_s_per_student": 27.5, "students_per_core": 68}
    tables.record("rush", [run])
    text, guide = bench.read_text(), ops.read_text()
    assert "old" not in text and "old" not in guide and guide.startswith("a\n") and guide.endswith("b\n")
    assert "sqlite, 300 students, 2 workers, one killed" in text and "**a promise failed**" in text
    assert "2.50 s (target ≤ 2 s: **not met**)" in text and "3.0 (at most 4.5)" in text
    assert "one core serves about 68 students" in guide and "0.4 CPU-seconds" in guide


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


def test_the_benchmarks_look_for_labels_the_app_draws():
    """`make bench-live` drives the app by its labels (a student's Join): a label renamed in the app, and
    not in the benchmark, once stopped the recording after twelve minutes; here it fails at once."""
    text = (ROOT / "benchmarks" / "open_times.py").read_text()
    found = re.findall(r'get_by_role\("(?:textbox|button)", name=(?:re\.compile\()?"([^"]+)"', text)
    assert found, "benchmarks/open_times.py names no label (this test reads its get_by_role calls)"
    app = "\n".join(p.read_text() for p in [*(ROOT / "pages").rglob("*.py"), *(ROOT / "hetdp_ui").rglob("*.py")])
    missing = [label for label in found if label not in app]
    assert not missing, f"labels the benchmark clicks or types into that no page draws: {missing}"


def test_an_opening_is_reported_whole_not_as_medians_of_columns():
    """benchmarks/open_times.py: the median opening's first paint, title and settled time come from one
    opening (a median per column once showed a title painted after the page had settled)."""
    import runpy

    medians = runpy.run_path(str(ROOT / "benchmarks" / "open_times.py"))["_medians"]
    rows = [
        {"first_paint_s": 0.5, "useful_s": 1.9, "settled_s": 2.0, "chart_s": None},
        {"first_paint_s": 1.8, "useful_s": 0.6, "settled_s": 3.0, "chart_s": 2.5},
        {"first_paint_s": 0.9, "useful_s": 1.0, "settled_s": 1.2, "chart_s": 1.5},
    ]
    got = medians(rows)
    assert got == {"first_paint_s": 0.5, "useful_s": 1.9, "settled_s": 2.0, "chart_s": 2.0}
    assert got["useful_s"] <= got["settled_s"]
