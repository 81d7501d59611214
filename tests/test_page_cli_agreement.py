"""One scenario, one computation: every page opened with a non-default query string (AppTest)
offers download tables byte-identical to `hetdp run PAGE --query <same string> --csv DIR`, and says
the same run "in short" (:func:`hetdp_core.scenario.in_short`) as the CLI's JSON."""

from pathlib import Path

import pytest
import streamlit.testing.v1.app_test as app_test_module
from conftest import page_path, strict_json
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from hetdp_core.registry import specs
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


def page_downloads(page: str, query: str, monkeypatch) -> tuple[dict[str, bytes], str]:
    from urllib.parse import parse_qsl

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Capture)
    _Capture.files = {}
    path = page_path(page)
    at = AppTest.from_file(str(path), default_timeout=180)
    from hetdp_core.registry import get
    from hetdp_ui.common import MEANING_OPEN

    at.session_state[MEANING_OPEN % get(page).PAGE_SPEC.slug] = True  # its table is a download too
    for k, v in parse_qsl(query, keep_blank_values=True):
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    # the page shows the scenario it was given (no URL parameter was rejected)
    assert not [w.value for w in at.warning if "URL parameter" in w.value]
    (short,) = [m.value for m in at.markdown if m.value.startswith("**In short** — ")]
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


def test_every_page_has_an_agreement_query():
    missing = [page for page, query in QUERIES.items() if not query]
    assert QUERIES and not missing, (
        "rule: every page declares a non-default view that the page <-> CLI agreement test opens both ways.\n"
        "fix: add example_query='field=value&…' (small enough for the suite, exercising the page's options) to "
        f"PAGE_SPEC of: {', '.join(missing)}"
    )
