"""One scenario, one computation: every page opened with a non-default query string (AppTest)
offers download tables byte-identical to `hetdp run PAGE --query <same string> --csv DIR`."""

from pathlib import Path

import pytest
import streamlit.testing.v1.app_test as app_test_module
from conftest import ROOT
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from hetdp_core.scenarios import PAGES
from hetdp_ui.cli import main

#: a non-default scenario per page (small enough for the suite)
QUERIES = {
    "Feature_privacy": "q=0.35&n=1300&trials=6&seed=3&points=0.05,0.6,1&eps=4.19&k=3",
    "BCDP_guarantee_lab": "a=0.3&b=0.9&c=0.6&rr_c=0.4,1,2&test_source=Randomized+response&test_coord=2&test_q=0.7"
                          "&tr_delta=0.5,inf,3&tr_eps=3&tr_q=0.4",
    "Private_regression": "features=3&k=2&delta=3&eps=6&q=0.2&steps=60&trials=2&seed=5&axis=eps&n=3000"
                          "&schedule=poly&rho=0.6&gamma0=1.2",
    "Per_user_privacy": "problem=mean&n=2000&demand=groups&shares=0.4,0.6&lows=0.05,1&highs=0.5,5&trials=40"
                        "&seed=9&algs=CP,UE,A,UNI,SM,LDP&setting=uncorrelated&beta=0.1",
    "Groupwise_zCDP": "mode=List&counts=0,2,7,40&rho=1&r=0.3&algorithm=1&alpha_max=10&group=3&trials=300&seed=4",
    "Mechanism_lab": "eps=0.8&delta=0.001&sens=2&n=500&alpha=2.5&Lambda=20&m=100&med_n=21&scores=3,1,4,1,5"
                     "&bl_q=2&bl_lower=0&bl_upper=20&trials=700&seed=6",
    "DP_SGD_schedules": "lr=poly&rho=0.7&priv=power&kappa=1.1&eps=2&problem=ridge&lam=0.3&steps=300&runs=20"
                        "&compare=1&seed=2",
}


class _Capture(MemoryMediaFileStorage):
    files: dict = {}

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
        fid = super().load_and_get_id(path_or_data, mimetype, kind, filename)
        if filename and isinstance(path_or_data, bytes):
            _Capture.files[filename] = path_or_data
        return fid


def page_downloads(page: str, query: str, monkeypatch) -> dict[str, bytes]:
    from urllib.parse import parse_qsl

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Capture)
    _Capture.files = {}
    path = next((ROOT / "pages").glob(f"*_{page}.py"))
    at = AppTest.from_file(str(path), default_timeout=180)
    for k, v in parse_qsl(query, keep_blank_values=True):
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    # the page shows the scenario it was given (no URL parameter was rejected)
    assert not [w.value for w in at.warning if "URL parameter" in w.value]
    return dict(_Capture.files)


@pytest.mark.parametrize("page", sorted(QUERIES))
def test_page_and_cli_give_identical_tables(page, monkeypatch, tmp_path, capsys):
    query = QUERIES[page]
    downloads = page_downloads(page, query, monkeypatch)
    assert downloads, "the page offers downloads"
    from hetdp_core.scenarios import get

    prior = ["--prior", "0.01"] if hasattr(get(page), "levels") else []     # the page's default prior
    code = main(["run", page.lower(), "--query", query, "--csv", str(tmp_path), *prior])
    assert code == 0, capsys.readouterr().err
    cli = {p.name: p.read_bytes() for p in Path(tmp_path).glob("*.csv")}
    assert set(downloads) == set(cli), (sorted(downloads), sorted(cli))
    for name in downloads:
        assert downloads[name] == cli[name], f"{name} differs between the page and the CLI"


def test_every_page_has_an_agreement_query():
    assert set(QUERIES) == set(PAGES)
