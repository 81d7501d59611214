"""Nothing a user types runs in a spreadsheet (issue 55). Every CSV file the app and the CLI write comes
from one function, :func:`hetdp_ui.csvfile.csv_text`: a text cell or column name a spreadsheet would read
as a formula (it begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written quoted with
a leading apostrophe, and numbers stay numbers. Property tests (hypothesis) over every writer — the
function itself, the pages' downloads, ``hetdp run --csv``, a view's decision package and the tables its
``recompute.py`` writes (through a probe page registered like any page), ``hetdp ledger --csv`` and the
ledger's decision package, ``hetdp class export`` and the store's export behind the Class page's button —
with generated text starting with each of
those characters and with negative numbers: no text cell begins with one of them, every number parses
back equal, every other text comes back byte for byte; ``hetdp reproduce`` (no user text) through the same
writer. The issue's own names through the ledger page's
downloads and the Class page's button; the pages and the JSON keep the names as typed; no other module
writes CSV."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
import tempfile
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT, strict_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hetdp_ui.csvfile import FORMULA_START, csv_text

#: the issue's names: a student, a release and a group
HYPERLINK = '=HYPERLINK("http://x","a")'
ISSUE_NAMES = (HYPERLINK, "+1+1", "@SUM(A1)")
#: examples for the writers that run a whole view, ledger or class session per example
EXAMPLES = max(4, settings.default.max_examples // 15)
SLOW = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------- the oracle


def _is_number(cell: str) -> bool:
    """The cell is one number as written (a finite or infinite float, or nan): ASCII, no spaces."""
    if not cell.isascii() or cell != cell.strip() or "_" in cell:
        return False
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _rows(raw: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(raw, newline="")))


def _check_cell(cell: str, value, where: str) -> None:
    """One CSV cell against the value it was written from."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        assert cell == "", where
    elif isinstance(value, bool):
        assert cell == str(value), where
    elif isinstance(value, (int, float)):  # a number (numpy's included) parses back equal
        assert _is_number(cell), (where, cell)
        assert (int(cell) if isinstance(value, int) else float(cell)) == value, (where, cell, value)
    else:
        assert isinstance(value, str), (where, value)
        if value.startswith(FORMULA_START) and not _is_number(value):
            assert cell == "'" + value, (where, cell, value)
        else:
            assert cell == value, (where, cell, value)  # byte for byte


def _check_defended(raw: str, columns: list, rows: list[list]) -> None:
    """``raw`` is the CSV of ``rows`` under ``columns``: the shape holds (no carriage return split a row),
    every cell reads back as :func:`_check_cell` says, no text cell begins with a character a spreadsheet
    would run, and every defended cell is quoted with its apostrophe inside the quotes."""
    got = _rows(raw)
    assert len(got) == len(rows) + 1 and all(len(r) == len(columns) for r in got), (raw, columns, rows)
    for j, name in enumerate(columns):
        _check_cell(got[0][j], name, f"column name {j}")
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            _check_cell(got[i + 1][j], value, f"row {i}, column {columns[j]!r}")
    for cell in itertools.chain.from_iterable(got):
        assert not cell.startswith(FORMULA_START) or _is_number(cell), cell
    for value in itertools.chain(columns, *rows):
        if isinstance(value, str) and value.startswith(FORMULA_START) and not _is_number(value):
            assert '"' + ("'" + value).replace('"', '""') + '"' in raw, value


def _check_table(raw: str, df: pd.DataFrame) -> None:
    rows = [[None if v is pd.NA else v for v in r] for r in df.astype(object).itertuples(index=False, name=None)]
    _check_defended(raw, list(df.columns), rows)


# ---------------------------------------------------------------- generated text and numbers

#: a text that begins with a character a spreadsheet would run (any of them, then anything)
FORMULA_LIKE = st.builds(lambda c, rest: c + rest, st.sampled_from(FORMULA_START), st.text(max_size=12))
#: a negative number written as text (repr: -2.5, -1e-05, -inf)
NEGATIVE_TEXT = st.floats(max_value=-0.0).map(repr)
#: text with the characters that matter to a CSV: separators, quotes, line ends, a private-use character
AWKWARD = st.text(alphabet="a ,\"'\r\n\t=+-@.0123456789e\ue000\ue001", max_size=12)
TEXT = st.one_of(FORMULA_LIKE, NEGATIVE_TEXT, AWKWARD, st.text(max_size=12))
NUMBER = st.one_of(st.floats(max_value=0.0), st.floats(), st.integers(-(10**15), 10**15))


@st.composite
def tables(draw) -> pd.DataFrame:
    """A table with a text column, a float column, an integer column and a column of mixed values, under
    generated column names (some that a spreadsheet would run)."""
    n = draw(st.integers(0, 5))
    names = draw(st.lists(st.one_of(FORMULA_LIKE, NEGATIVE_TEXT, AWKWARD), min_size=4, max_size=4, unique=True))

    def column(values, dtype):
        return pd.Series(draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype)

    return pd.DataFrame(
        {
            names[0]: column(st.one_of(TEXT, st.none()), object),
            names[1]: column(st.floats(), float),
            names[2]: column(st.integers(-(10**15), 10**15), "int64"),
            names[3]: column(st.one_of(TEXT, NUMBER, st.none()), object),
        }
    )


# ---------------------------------------------------------------- the one function and the pages' downloads


@given(tables())
def test_csv_text_and_the_pages_downloads_defend_every_text_cell_and_keep_numbers(df):
    from hetdp_ui.figcache import csv_bytes

    raw = csv_text(df)
    _check_table(raw, df)
    assert csv_bytes(df) == raw.encode()  # every page's download button (hetdp_ui.widgets.csv_download)
    texts = [v for v in itertools.chain(df.columns, *df.astype(object).to_numpy().tolist()) if isinstance(v, str)]
    if not any(t.startswith(FORMULA_START) or "\r" in t for t in texts):
        assert raw == df.to_csv(index=False)  # nothing to defend: pandas' own bytes


def test_the_defended_cells_are_quoted_with_an_apostrophe_and_every_other_byte_is_pandas():
    df = pd.DataFrame(
        {
            "name": [HYPERLINK, "+1+1", "@SUM(A1)", "-2.5", "-", "\tx", "plain, with a comma", None],
            "value": [-2.5, -1e-05, float("-inf"), 0.0, 1.0, float("nan"), 2.0, -3.0],
            "answer": [-2.5, "-3", "=1", 4, None, "-inf", "nan", "line\rbreak"],
        }
    )
    assert csv_text(df) == (
        "name,value,answer\n"
        '"\'=HYPERLINK(""http://x"",""a"")",-2.5,-2.5\n'
        '"\'+1+1",-1e-05,-3\n'
        '"\'@SUM(A1)",-inf,"\'=1"\n'
        "-2.5,0.0,4\n"
        '"\'-",1.0,\n'
        '"\'\tx",,-inf\n'
        '"plain, with a comma",2.0,nan\n'
        ',-3.0,"line\rbreak"\n'
    )
    assert csv_text(df.rename(columns={"name": "=name", "value": "-1"})).startswith('"\'=name",-1,answer\n')
    with pytest.raises(TypeError, match="one row of column names"):
        csv_text(pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("a", "b"), ("a", "c")])))


# ---------------------------------------------------------------- hetdp run --csv and a view's decision package


@pytest.fixture(scope="module")
def probe():
    """The probe page (tests/csv_probe_page.py), registered like any page for this module's tests."""
    import csv_probe_page

    from hetdp_core.framework import registry

    registry.register(csv_probe_page)
    yield csv_probe_page
    registry.unregister(csv_probe_page.PAGE_SPEC.url)


_CASES = itertools.count(1)


@SLOW
@given(df=tables())
def test_hetdp_run_csv_and_a_views_decision_package_defend_every_text_cell(probe, df, capsys):
    from hetdp_ui.cli import main

    case = next(_CASES)
    probe.TABLES[case] = df
    with tempfile.TemporaryDirectory() as out:
        assert main(["run", "csv_probe", "--query", f"case={case}", "--csv", out, "--budget", "large"]) == 0
        written = (Path(out) / "probe.csv").read_bytes()
    capsys.readouterr()
    _check_table(written.decode(), df)
    package = _package_tables(["csv_probe", "--query", f"case={case}"], capsys, recompute=True)
    assert package["probe.csv"] == written
    assert package["recomputed/probe.csv"] == written  # what the package's recompute.py writes, the same bytes


# ---------------------------------------------------------------- the ledger: hetdp ledger --csv and its package

#: a release or group name a plan accepts (one line of plain text, trimmed) that a spreadsheet would run,
#: or a negative number written as text
PLAN_NAME = st.one_of(
    st.builds(
        lambda c, rest: c + rest,
        st.sampled_from([c for c in FORMULA_START if c not in "\t\r"]),  # a plan refuses control characters
        st.text(st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp", "Cs")), max_size=20),
    ),
    NEGATIVE_TEXT,
).filter(lambda s: s == s.strip() and len(s) <= 80)


def _plan(releases: list[str], groups: list[str]) -> str:
    """A plan with one release per group (Gaussian and Laplace in turn), the groups declared."""
    q = lambda s: json.dumps(s, ensure_ascii=False)  # noqa: E731 — a TOML basic string
    lines = [f"groups = [{', '.join(map(q, groups))}]"]
    for k, (release, group) in enumerate(zip(releases, groups)):
        mechanism, noise = ("gaussian", 2.0) if k % 2 == 0 else ("laplace", 4.0)
        lines += ["[[release]]", f"name = {q(release)}", f'mechanism = "{mechanism}"', f"noise = {noise}"]
        lines += [f"repeat = {k + 1}", f"groups = [{q(group)}]"]
    return "\n".join(lines) + "\n"


def _check_against_json(raw: str, rows: list[dict]) -> None:
    """A CSV of the ledger against the same table in ``--json`` (which keeps the original text)."""
    columns = list(rows[0])
    got = _rows(raw)
    assert got[0] == columns
    for r, values in zip(got[1:], rows):
        for cell, (k, v) in zip(r, values.items()):
            if v is None:  # a non-finite number is null in strict JSON
                assert cell in ("", "inf", "-inf", "nan"), (k, cell)
            else:
                _check_cell(cell, v, k)
    _check_defended(raw, columns, [list(r.values()) for r in rows])


#: the ledger's δ and a budget every group is over (so every reserve is negative)
LEDGER_FLAGS = ["--delta", "1e-05", "--budget", "0.5"]


def _ledger_files(plan: str, out: Path, capsys) -> tuple[dict[str, bytes], dict]:
    """``hetdp ledger --csv out --json`` with :data:`LEDGER_FLAGS`."""
    from hetdp_ui.cli import main

    (out / "plan.toml").write_text(plan)
    code = main(["ledger", "--plan", str(out / "plan.toml"), *LEDGER_FLAGS, "--csv", str(out), "--json"])
    assert code == 1, capsys.readouterr().err  # over budget
    files = {p.name: p.read_bytes() for p in out.glob("*.csv")}
    assert set(files) == {"ledger.csv", "ledger_headline.csv", "ledger_spend.csv"}
    return files, strict_json(capsys.readouterr().out)


def _check_ledger(files: dict[str, bytes], js: dict, names: list[str]) -> None:
    for name, key in (("ledger_headline.csv", "headline"), ("ledger.csv", "ledger"), ("ledger_spend.csv", "spend")):
        _check_against_json(files[name].decode(), js[key])
    spend = {(r["group"], r["release"]) for r in js["spend"]}  # the JSON keeps the names as typed
    assert {n for pair in spend for n in pair} == set(names)
    assert any(r["reserve"] < 0 for r in js["headline"])  # negative numbers, parsed back equal above


def _package_tables(args: list[str], capsys, *, recompute: bool = False) -> dict[str, bytes]:
    """The CSV tables of ``hetdp package … --no-execute`` (the decision package the page's button gives);
    with ``recompute``, also the tables its ``recompute.py`` writes (``recomputed/<name>.csv``, run here:
    it recomputes the view with the installed hetdp, which knows the probe page in this process)."""
    import runpy

    from hetdp_ui.cli import main

    with tempfile.TemporaryDirectory() as out:
        assert main(["package", *args, "--no-execute", "--out", f"{out}/d.zip"]) == 0, capsys.readouterr().err
        with zipfile.ZipFile(f"{out}/d.zip") as z:
            tables = {n.removeprefix("tables/"): z.read(n) for n in z.namelist() if n.startswith("tables/")}
            if recompute and "recompute.py" in z.namelist():
                z.extractall(f"{out}/d")
                runpy.run_path(f"{out}/d/recompute.py", run_name="__main__")
                tables |= {f"recomputed/{p.name}": p.read_bytes() for p in Path(f"{out}/d/recomputed").glob("*.csv")}
    capsys.readouterr()
    return tables


def _ledger_package_tables(plan: str, capsys) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as out:
        (Path(out) / "plan.toml").write_text(plan)
        return _package_tables(["release_ledger", "--plan", f"{out}/plan.toml", *LEDGER_FLAGS], capsys)


@SLOW
@given(names=st.lists(PLAN_NAME, min_size=6, max_size=6, unique=True))
def test_hetdp_ledger_csv_and_the_ledgers_package_defend_every_name(names, capsys):
    plan = _plan(names[:3], names[3:])
    with tempfile.TemporaryDirectory() as out:
        files, js = _ledger_files(plan, Path(out), capsys)
    _check_ledger(files, js, names)
    assert _ledger_package_tables(plan, capsys) == files  # the decision package's tables: the same bytes


def test_the_issues_plan_through_the_cli_the_package_and_the_ledger_page(tmp_path, monkeypatch, capsys):
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.testing.v1 import AppTest
    from test_page_cli_agreement import _Capture

    names = [HYPERLINK, "+1+1", "@SUM(A1)", "-2.5"]  # releases, then groups
    plan = _plan(names[:2], names[2:])
    files, js = _ledger_files(plan, tmp_path, capsys)
    _check_ledger(files, js, names)
    assert '"\'=HYPERLINK(""http://x"",""a"")"' in files["ledger_spend.csv"].decode()
    assert '"\'@SUM(A1)"' in files["ledger.csv"].decode() and '"\'@SUM(A1)"' in files["ledger_headline.csv"].decode()
    assert _ledger_package_tables(plan, capsys) == files
    # the page: its three CSV downloads are the CLI's files; its tables show the names as typed
    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Capture)
    _Capture.files = {}
    at = AppTest.from_file(str(ROOT / "pages" / "release_ledger" / "page.py"), default_timeout=120)
    at.query_params.update({"plan": plan, "delta": "1e-05", "budget": "0.5"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert {k: _Capture.files[k] for k in files} == files
    shown = {str(v) for d in at.dataframe for v in d.value.astype(object).to_numpy().ravel().tolist()}
    shown |= {str(c) for d in at.dataframe for c in d.value.columns}
    assert "@SUM(A1)" in shown and "'@SUM(A1)" not in shown


# ---------------------------------------------------------------- the class export: CLI, store and page

LESSON = "1-bcdp-feature-privacy"  # step 1 asks for a number


#: a display name the class accepts (no control characters, single spaces, at most 40 characters)
STUDENT_NAME = st.one_of(
    st.builds(
        lambda c, rest: c + rest,
        st.sampled_from([c for c in FORMULA_START if c not in "\t\r"]),
        st.text(st.characters(blacklist_categories=("C", "Zl", "Zp")), max_size=20),
    ),
    NEGATIVE_TEXT,
).filter(lambda s: s == " ".join(s.split()) and len(s) <= 40)


def _check_export(raw: str, rows: list[dict]) -> None:
    from hetdp_ui.classroom.store import EXPORT_COLUMNS

    _check_defended(raw, list(EXPORT_COLUMNS), [[r[k] for k in EXPORT_COLUMNS] for r in rows])


@pytest.fixture
def class_url(tmp_path, monkeypatch):
    from hetdp_ui.classroom import db

    url = f"sqlite:///{tmp_path / 'class.sqlite'}"
    monkeypatch.setenv(db.URL_ENV, url)
    return url


@SLOW
@given(
    names=st.lists(STUDENT_NAME, min_size=1, max_size=3, unique=True),
    answers=st.lists(st.floats(max_value=0.0, allow_infinity=False), min_size=3, max_size=3),
)
def test_the_class_export_defends_every_name_and_keeps_every_answer_a_number(class_url, names, answers, tmp_path):
    from hetdp_ui.classroom.store import ClassStore, export_csv
    from hetdp_ui.cli import main

    store = ClassStore(class_url)
    code = store.start(LESSON).code
    for i, (name, answer) in enumerate(zip(names, answers)):
        store.record(code, store.join(code, name), step=1, given=answer, nonce=f"answer-{i:04d}")
    rows = store.export_rows(code)
    assert {r["student"] for r in rows} == set(names)
    assert sorted(r["last_answer"] for r in rows if r["step"] == 1) == sorted(answers[: len(names)])
    raw = export_csv(rows)  # the Class page's button
    _check_export(raw, rows)
    out = tmp_path / f"{code}.csv"
    assert main(["class", "export", code, "--out", str(out)]) == 0  # hetdp class export
    assert out.read_text() == raw
    store.delete(code)


def test_the_issues_student_names_through_the_class_page_and_hetdp_class_export(class_url, monkeypatch, capsys):
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.media_file_manager import MediaFileManager
    from test_class_page import class_page

    from hetdp_ui.classroom.store import ClassStore
    from hetdp_ui.cli import main

    class Deferred(MediaFileManager):
        """Keeps the callable a download button calls when clicked (the Class page's CSV)."""

        made: dict = {}

        def add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kw):
            Deferred.made[file_name] = data_callable
            return super().add_deferred(data_callable, mimetype, coordinates, file_name, **kw)

    store = ClassStore(class_url)
    started = store.start(LESSON)
    tokens = {name: store.join(started.code, name) for name in ISSUE_NAMES}
    for i, token in enumerate(tokens.values()):
        store.record(started.code, token, step=1, given=-2.5, nonce=f"issue-{i:04d}")
    home = class_page(code=started.code, me=tokens[HYPERLINK])
    assert f"You are **{HYPERLINK}**" in " ".join(m.value for m in home.markdown)  # the page: as typed
    monkeypatch.setattr(app_test_module, "MediaFileManager", Deferred)
    inst = class_page(code=started.code, key=started.key)
    assert not inst.exception, [e.value for e in inst.exception]
    page_csv = Deferred.made[f"class-{started.code}.csv"]()  # what "Export answers (CSV)" gives
    rows = store.export_rows(started.code)
    assert {r["student"] for r in rows} == set(ISSUE_NAMES)
    _check_export(page_csv, rows)
    capsys.readouterr()
    assert main(["class", "export", started.code]) == 0  # hetdp class export
    assert capsys.readouterr().out == page_csv
    for name in ISSUE_NAMES:
        assert '"' + ("'" + name).replace('"', '""') + '"' in page_csv
    assert f'{started.code},{LESSON},"\'+1+1",1,number,False,1,-2.5,' in page_csv  # the answer: a number


# ---------------------------------------------------------------- one writer


def test_no_module_writes_csv_but_the_one_writer():
    """Every CSV the app and the CLI write goes through hetdp_ui.csvfile.csv_text: no other module of the
    core, the UI or a page calls ``to_csv`` or the csv module's writers. (The regression module turns the
    bundled RAND HIE table into the bytes its upload parser reads: input, never a file given to anyone.)"""
    pattern = re.compile(r"\.to_csv\(|csv\.writer\(|csv\.DictWriter\(")
    allowed = {"hetdp_ui/csvfile.py", "hetdp_core/per_feature/regression.py"}
    found = {
        str(p.relative_to(ROOT))
        for folder in ("hetdp_core", "hetdp_ui", "pages")
        for p in (ROOT / folder).rglob("*.py")
        if pattern.search(p.read_text())
    }
    assert found <= allowed, found - allowed
    assert pattern.search((ROOT / "app.py").read_text()) is None
    regression = (ROOT / "hetdp_core" / "per_feature" / "regression.py").read_text()
    assert regression.count(".to_csv(") == 1 and "def randhie_regression_bytes" in regression


def test_hetdp_reproduce_writes_its_tables_through_the_one_writer(tmp_path, capsys):
    """``hetdp reproduce`` (a paper figure's CSVs, the one writer that takes no user text: its cells are the
    method names and numbers of a sweep) writes every table through :func:`csv_text`: each file is the
    writer's text of the table it stands for, and no text cell of it begins with a formula character."""
    from hetdp_ui.cli import main

    assert main(["reproduce", "fig3", "--out", str(tmp_path), "--n", "200", "--trials", "5", "--json"]) == 0
    capsys.readouterr()
    files = sorted(tmp_path.glob("*.csv"))
    assert len(files) == 2, files
    for path in files:
        raw = path.read_text(encoding="utf-8")
        table = pd.read_csv(io.StringIO(raw), keep_default_na=False, dtype=str)
        assert csv_text(pd.read_csv(path)) == raw  # the one writer's bytes
        for col in table.columns:
            for cell in [col, *table[col]]:
                assert _is_number(cell) or not cell.startswith(FORMULA_START), (path.name, cell)
