"""Hostile command lines and file system trouble: one line on stderr and exit 2, never a traceback;
outputs are written to a temporary file and renamed, so a failed write keeps the previous file."""

from __future__ import annotations

import errno
import os

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from hetdp_ui import cli
from hetdp_ui.cli import main

FAST = "trials=5&points=0.1"


def _one_line_error(capsys, argv, match):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and match in err, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n")
    (tmp_path / "latin1.txt").write_bytes(b"0.5,\xe9")
    return tmp_path


def test_report_out_to_a_directory_under_a_file_or_unwritable(capsys, files):
    _one_line_error(capsys, ["report", "Feature_privacy", "--query", FAST, "--out", str(files)], "--out must name")
    (files / "d.html").mkdir()
    _one_line_error(
        capsys, ["report", "Feature_privacy", "--query", FAST, "--out", str(files / "d.html")], "is a directory"
    )
    _one_line_error(
        capsys, ["report", "Feature_privacy", "--query", FAST, "--out", str(files / "x.csv" / "r.html")], "is a file"
    )
    _one_line_error(
        capsys,
        ["report", "Feature_privacy", "--query", FAST, "--out", "/proc/hetdp-report.html"],
        "cannot write in /proc",
    )


def test_run_csv_onto_a_file_and_options_a_page_does_not_take(capsys, files):
    _one_line_error(capsys, ["run", "Feature_privacy", "--query", FAST, "--csv", str(files / "x.csv")], "is a file")
    # --max-cells is the budget's limit on random numbers, checked against any page's estimate
    _one_line_error(capsys, ["run", "Mechanism_lab", "--max-cells", "1000"], "random numbers (limit 1e+03)")
    _one_line_error(capsys, ["run", "Groupwise_zCDP", "--data", str(files / "x.csv")], "takes no data file")


def test_list_file_in_another_encoding(capsys, files):
    _one_line_error(
        capsys,
        ["hetero", "weights", "--problem", "mean", "--variant", "CP", "--eps", "@" + str(files / "latin1.txt")],
        "not UTF-8",
    )


def test_lesson_files_that_break_the_parser(capsys, tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text('title = "x"\nfollows = ' + "[" * 4000 + "]" * 4000 + "\n")
    assert main(["lesson", "check", str(deep)]) == 2
    assert "nests arrays or tables too deeply" in capsys.readouterr().out
    big = tmp_path / "big.toml"
    big.write_text(
        'title = "x"\nfollows = "y"\n[[steps]]\npage = "Feature_privacy"\ntext = "t"\n'
        '[steps.question]\nkind = "number"\nprompt = "p"\nkey = "k"\ntolerance = 1\nanswer = ' + "1" * 5000 + "\n"
    )
    assert main(["lesson", "check", str(big)]) == 2
    assert "cannot be read" in capsys.readouterr().out


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_partial_file(monkeypatch, tmp_path):
    target = tmp_path / "report.html"
    target.write_text("the previous report")
    real_fsync = os.fsync

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(cli.CliError, match="No space left on device"):
        cli.write_atomic(target, "x" * 10_000, what="--out")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert target.read_text() == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary file left
    cli.write_atomic(target, "the new report", what="--out")
    assert target.read_text() == "the new report"


def test_run_csv_and_reproduce_write_complete_files(tmp_path):
    out = tmp_path / "csv"
    assert main(["run", "Feature_privacy", "--query", FAST, "--csv", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "bcdp_guarantee.csv" in names and not any(n.endswith(".tmp") for n in names)


def test_a_superscript_step_number_is_refused_with_a_warning():
    """'²'.isdigit() is true but int('²') fails: the step must be ASCII digits."""
    at = AppTest.from_file(str(ROOT / "pages" / "feature_privacy" / "page.py"), default_timeout=120)
    at.query_params.update({"lesson": "1-bcdp-feature-privacy", "step": "²", "trials": "5", "points": "0.1"})
    at.run()
    assert not at.exception
    assert any("step must be a whole number" in w.value for w in at.warning)


def test_identifiers_are_accepted_in_queries(capsys):
    assert main(["run", "Per_user_privacy", "--query", "dataset=randhie&problem=mean&trials=20&algs=CP", "--json"]) == 0
    assert '"dataset": "randhie"' in capsys.readouterr().out


def test_a_pinned_link_gives_plan_a_vs_b_and_a_lesson_link_says_so(capsys):
    from urllib.parse import quote

    url = f"http://h/Feature_privacy?{FAST}&pin={quote(FAST + '&q=0.5')}&lesson=1-bcdp-feature-privacy&step=2"
    assert main(["run", "--url", url, "--json"]) == 0
    cap = capsys.readouterr()
    assert '"plan_a_vs_b"' in cap.out and '"plan_a_bcdp_guarantee"' in cap.out
    assert "lesson '1-bcdp-feature-privacy', step 2" in cap.err


def test_one_limit_per_input_a_long_list_reopens_and_pins():
    """A 60-entry per-feature table typed with full precision is longer than the old 2 000-character URL
    limit; the page's own link (and a pinned plan A holding it) must reopen without a warning."""
    from urllib.parse import urlencode

    table = ",".join(f"{0.0012345678901234567 + i * 1e-19:.19f}" for i in range(60))
    points = ",".join(f"{0.0123456789012345678 + i * 0.01:.19f}" for i in range(30))
    q = {"mode": "Per-feature table", "table": table, "eps": "20", "trials": "5", "points": points, "n": "500"}
    assert len(urlencode(q)) > 2000
    at = AppTest.from_file(str(ROOT / "pages" / "feature_privacy" / "page.py"), default_timeout=180)
    at.query_params.update({**q, "pin": urlencode(q)})
    at.run()
    assert not at.exception and not at.error
    assert not [w.value for w in at.warning if "ignored" in w.value]


def test_a_preset_label_never_stands_over_other_values():
    at = AppTest.from_file(str(ROOT / "pages" / "feature_privacy" / "page.py"), default_timeout=180)
    at.query_params.update({"preset": "Figure 3", "n": "500", "eps": "0.05", "trials": "5", "points": "0.1"})
    at.run()
    assert not at.exception
    assert at.sidebar.selectbox[0].value == "Custom"
    at2 = AppTest.from_file(str(ROOT / "pages" / "feature_privacy" / "page.py"), default_timeout=180)
    from hetdp_core.scenarios import get

    q = get("Feature_privacy").PRESETS["Figure 3"].to_query()
    at2.query_params.update({**q, "preset": "Figure 3", "trials": q["trials"]})
    at2.run(timeout=300)
    assert not at2.exception and at2.sidebar.selectbox[0].value == "Figure 3"


def test_small_per_user_upload_with_ldp_is_not_refused_as_a_million_users():
    from hetdp_core.framework.scenario import RunOptions
    from hetdp_core.scenarios import get

    mod = get("Per_user_privacy")
    rng = __import__("numpy").random.default_rng(0)
    csv = ("value\n" + "\n".join(str(v) for v in rng.integers(0, 4, 500))).encode()
    s = mod.SCENARIO.from_query(
        {"dataset": "upload", "problem": "frequency", "algs": "CP,LDP", "trials": "20", "eps_by_bin": "1,1,1,1"}
    )
    r = mod.run(s, options=RunOptions(upload=csv))
    assert set(r.tables()["hetero_summary"]["algorithm"]) == {"CP", "LDP"}


def test_a_cr_only_csv_counts_its_rows_not_one_giant_header():
    from hetdp_core.materials.uploads import PER_USER_LIMITS, check_csv_bytes

    data = b"value\r" + b"\r".join(b"1,2" for _ in range(300))
    assert check_csv_bytes(data, PER_USER_LIMITS) == (300, 1)


def test_finite_cells_near_the_float_limit_are_read_as_numbers():
    import numpy as np

    from hetdp_core.per_feature.regression import load_regression_csv

    rows = ["a,b,label"] + [
        f"{v},{w},{u}"
        for v, w, u in zip(["1e308", "-1e308"] + ["0"] * 10, ["1"] * 12, [str(i / 12) for i in range(12)])
    ]
    x = load_regression_csv("\n".join(rows).encode())
    assert np.isfinite(x).all() and x[0, 0] == 1.0 and x[1, 0] == -1.0 and abs(x[2, 0]) < 1e-12
