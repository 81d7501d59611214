"""One scenario, one computation: every page opened with a non-default query string (AppTest)
offers download tables byte-identical to `hetdp run PAGE --query <same string> --csv DIR`, says
the same run "in short" (:func:`hetdp_core.framework.scenario.in_short`) as the CLI's JSON, and every number of
every table it shows is in a column of those tables (shown as computed, or rounded): nothing on screen
that neither the CSV nor `hetdp run` carries."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import streamlit.testing.v1.app_test as app_test_module
from conftest import each_tab, open_panels, page_path, strict_json
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import specs
from hetdp_ui.cli import main

#: a non-default scenario per page (small enough for the suite), declared in each page's spec
QUERIES = {s.url: s.example_query for s in specs()}


class _Capture(MemoryMediaFileStorage):
    files: dict = {}

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
        fid = super().load_and_get_id(path_or_data, mimetype, kind, filename)
        if filename and isinstance(path_or_data, bytes):
            _Capture.files[filename] = path_or_data
        return fid


def _numbers(column: pd.Series) -> np.ndarray | None:
    """A column's numbers (None for a column of text or yes/no)."""
    if pd.api.types.is_bool_dtype(column):
        return None
    values = pd.to_numeric(column, errors="coerce")
    if values.isna().sum() > column.isna().sum():  # some cell is text
        return None
    return values.to_numpy(float)


def _carries(shown: np.ndarray, column: np.ndarray) -> bool:
    """Whether every number shown is one of ``column``'s, as computed or rounded to some decimals."""
    have = column[np.isfinite(column)]
    rounded = [np.round(have, k) for k in range(13)]
    for v in shown:
        if not np.isfinite(v):
            if not np.any(column == v) and not (np.isnan(v) and np.isnan(column).any()):
                return False
            continue
        if not (np.any(np.isclose(have, v, rtol=1e-9, atol=0)) or any(np.any(r == v) for r in rounded)):
            return False
    return True


def numbers_not_downloadable(shown_tables: list[pd.DataFrame], tables: dict[str, pd.DataFrame]) -> list[str]:
    """The shown tables' numeric columns that no column of ``tables`` (the CSV downloads) carries."""
    columns = [c for t in tables.values() for c in (_numbers(t[name]) for name in t.columns) if c is not None]
    missing = []
    for i, df in enumerate(shown_tables):
        for name in df.columns:
            shown = _numbers(df[name])
            if shown is not None and len(shown) and not any(_carries(shown, c) for c in columns):
                missing.append(f"table {i}, column {name!r}: {shown[:4].tolist()}")
    return missing


def page_downloads(page: str, query: str, monkeypatch) -> tuple[dict[str, bytes], str]:
    from urllib.parse import parse_qsl

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Capture)
    _Capture.files = {}
    path = page_path(page)
    at = AppTest.from_file(str(path), default_timeout=180)
    from hetdp_core.framework.registry import get
    from hetdp_ui.common import MEANING_OPEN

    at.session_state[MEANING_OPEN % get(page).PAGE_SPEC.slug] = True  # its table is a download too
    for k, v in parse_qsl(query, keep_blank_values=True):
        at.query_params[k] = v
    at.run()
    page_downloads.shown = []
    for _tab in each_tab(at):  # what a reader opens is drawn only while open: every tab, each with its panels
        open_panels(at)
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        # the page shows the scenario it was given (no URL parameter was rejected)
        assert not [w.value for w in at.warning if "URL parameter" in w.value]
        (short,) = [m.value for m in at.markdown if m.value.startswith("**In short** — ")]
        page_downloads.shown += [d.value for d in at.dataframe] + [t.value for t in at.table]
    return dict(_Capture.files), short


@pytest.mark.parametrize("page", sorted(QUERIES))
def test_page_and_cli_give_identical_tables(page, monkeypatch, tmp_path, capsys):
    query = QUERIES[page]
    downloads, short = page_downloads(page, query, monkeypatch)
    assert downloads, "the page offers downloads"
    from hetdp_core.scenarios import get

    prior = ["--prior", "0.01"] if hasattr(get(page), "levels") else []  # the page's default prior
    capsys.readouterr()
    code = main(["run", page.lower(), "--query", query, "--csv", str(tmp_path), "--json", *prior])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = strict_json(out.out)["summary"]
    assert len(summary) >= 3 and short.replace("**", "") == "In short — " + " ".join(summary)
    cli = {p.name: p.read_bytes() for p in Path(tmp_path).glob("*.csv")}
    assert set(downloads) == set(cli), (sorted(downloads), sorted(cli))
    for name in downloads:
        assert downloads[name] == cli[name], f"{name} differs between the page and the CLI"
    # every number of every table the page shows is one of the CSVs' (and so of `hetdp run`'s)
    shown = page_downloads.shown
    assert shown, "the page shows tables"
    csvs = {p.stem: pd.read_csv(p) for p in Path(tmp_path).glob("*.csv")}
    assert not numbers_not_downloadable(shown, csvs), numbers_not_downloadable(shown, csvs)


def test_the_check_of_shown_numbers_finds_a_column_only_on_screen():
    """The check itself: a derived column ("about ± per feature", √(median/d)) that no CSV carries is
    found; the same numbers rounded, or a subset of a column's rows, are not."""
    csv = {"s": pd.DataFrame({"median": [4.0, 9.0, 2.5], "q": [0.1, 0.5, 0.9], "m": ["a", "b", "c"]})}
    derived = pd.DataFrame({"median": [4.0, 9.0], "about ± per feature": np.sqrt([4.0, 9.0]) / 3.1})
    (missing,) = numbers_not_downloadable([derived], csv)
    assert missing.startswith("table 0, column 'about ± per feature'")
    assert not numbers_not_downloadable([csv["s"].round(0), csv["s"].iloc[1:]], csv)


def test_every_page_has_an_agreement_query():
    missing = [page for page, query in QUERIES.items() if not query]
    assert QUERIES and not missing, (
        "rule: every page declares a non-default view that the page <-> CLI agreement test opens both ways.\n"
        "fix: add example_query='field=value&…' (small enough for the suite, exercising the page's options) to "
        f"PAGE_SPEC of: {', '.join(missing)}"
    )
