"""Serving a class (issue 11): production settings, the figure memo, a light CLI start, and the load
tool speaking Streamlit's websocket protocol against a real server. Latency targets are measured
with `make load` (README), not asserted here."""

import subprocess
import sys
import tomllib

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from hetdp_ui import figcache

sys.path.insert(0, str(ROOT / "benchmarks"))
import load  # noqa: E402


def test_production_settings_are_the_default_and_make_dev_turns_the_watcher_on():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["server"]["fileWatcherType"] == "none" and cfg["server"]["runOnSave"] is False
    assert cfg["runner"]["postScriptGC"] is False
    assert cfg["server"]["maxUploadSize"] == 20
    make = (ROOT / "Makefile").read_text()
    dev = make.split("\ndev:")[1].split("\n\n")[0]
    assert "--server.fileWatcherType auto" in dev and "--server.runOnSave true" in dev
    run = make.split("\nrun:")[1].split("\n\n")[0]
    assert "fileWatcherType" not in run                        # run uses config.toml's production values


def test_figure_memo_returns_the_same_figure_for_equal_inputs_only():
    calls = []

    @figcache.memo_figure
    def build(x, df, *, label):
        calls.append(1)
        return object()

    a, df = np.arange(5.0), pd.DataFrame({"v": [1.0, 2.0]})
    f1 = build(a, df, label="x")
    assert build(a.copy(), df.copy(), label="x") is f1 and len(calls) == 1       # equal content: a hit
    assert build(a + 1, df, label="x") is not f1                                 # changed array
    assert build(a, df.assign(v=[1.0, 3.0]), label="x") is not f1                # changed table
    assert build(a, df, label="y") is not f1                                     # changed option
    assert len(calls) == 4


def test_figure_memo_skips_unknown_argument_types_and_is_bounded():
    calls = []

    @figcache.memo_figure
    def build(x):
        calls.append(1)
        return object()

    class Opaque:
        pass

    o = Opaque()
    build(o), build(o)
    assert len(calls) == 2                                                       # never cached
    for i in range(figcache.MAX_FIGURES + 10):
        build(float(i))
    assert len(figcache._CACHE) <= figcache.MAX_FIGURES


def test_csv_bytes_equal_pandas_and_are_memoised_per_table():
    df = pd.DataFrame({"a": [1.5, np.nan], "b": ["x", "y"]})
    data = figcache.csv_bytes(df)
    assert data == df.to_csv(index=False).encode() and figcache.csv_bytes(df) is data


def test_cli_start_imports_neither_pandas_nor_scipy_nor_cvxpy():
    """`hetdp --help` and `hetdp bcdp c-vector` need numpy only (lazy imports; start-up ≈ 0.1 s)."""
    code = ("import sys; from hetdp_ui.cli import build_parser, cmd_c_vector; build_parser(); "
            "import argparse; cmd_c_vector(argparse.Namespace(delta='0.2,2', eps=2.0, q=0.3, zeta=None, json=True)); "
            "print(sorted(m for m in ('pandas', 'scipy', 'cvxpy', 'plotly', 'streamlit') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


@pytest.fixture(scope="module")
def server():
    port = load.free_port()
    proc = load.start_server(port)
    yield f"http://127.0.0.1:{port}", proc.pid
    proc.terminate()
    proc.wait(10)


@pytest.mark.parametrize("page", load.PAGES)
def test_load_tool_opens_every_page_over_the_websocket_protocol(server, page):
    url, _ = server
    query = "trials=5&n=500" if page == "Feature_privacy" else ""
    view = load.arun(load.open_view(url, page, query))
    assert view.finished and view.status == "FINISHED_SUCCESSFULLY", view
    assert not view.failure and not view.exceptions and not view.errors
    assert view.charts >= 1


def test_load_tool_reports_exceptions_and_unknown_pages(server):
    url, _ = server
    bad = load.arun(load.open_view(url, "Feature_privacy", "trials=5&n=500&q=abc"))
    assert bad.finished and not bad.exceptions                   # a bad URL value is a warning, not an error
    missing = load.arun(load.open_view(url, "No_such_page", "", timeout=30))
    assert not missing.finished


def test_load_tool_crowd_on_one_cached_link(server):
    url, pid = server
    q = "trials=5&n=500"
    load.arun(load.open_view(url, "Feature_privacy", q))
    s = load.summary(load.arun(load.crowd(url, "Feature_privacy", [q] * 8)))
    assert s["finished"] == 8 and s["failures"] == 0 and s["exceptions"] == 0
    warm = load.warm_view_cpu(url, pid, "Feature_privacy", q, repeats=3)
    assert "warm_cpu_s" in warm and warm["charts"] >= 1


# ------------------------------------------------------------------ k workers behind nginx
@pytest.fixture(scope="module")
def stack():
    from hetdp_ui.serve import Stack

    st = Stack(workers=2, port=load.free_port()).start()
    yield st
    st.stop()


def _get(url, cookie=None):
    import urllib.request

    req = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers


def test_proxy_sessions_are_sticky_by_cookie(stack):
    h = _get(stack.url + "/")
    cookie = h["Set-Cookie"].split(";")[0]
    assert cookie.startswith("hetdp_route=")
    first = h["X-Hetdp-Worker"]
    assert all(_get(stack.url + "/_stcore/health", cookie)["X-Hetdp-Worker"] == first for _ in range(10))
    seen = {_get(stack.url + "/")["X-Hetdp-Worker"] for _ in range(30)}      # new browsers: spread
    assert seen == {f"127.0.0.1:{p}" for p in stack.worker_ports}


def test_every_page_through_the_proxy_without_errors(stack):
    for page in load.PAGES:
        query = "trials=5&n=500" if page == "Feature_privacy" else ""
        v = load.arun(load.open_view(stack.url, page, query))
        assert v.finished and not v.failure and not v.exceptions and not v.errors, (page, v)
    s = load.summary(load.arun(load.crowd(stack.url, "Groupwise_zCDP", [""] * 10)))
    assert s["finished"] == 10 and s["failures"] == 0 and s["exceptions"] == 0


def test_a_sweep_computed_in_one_worker_is_read_by_the_other(stack):
    """Worker A computes and writes the result to the shared cache; worker B, asked for the same
    scenario, reads it (the file is not rewritten, i.e. B did not recompute)."""
    from pathlib import Path

    q = "trials=7&n=700&q=0.45"
    a, b = (f"http://127.0.0.1:{p}" for p in stack.worker_ports)
    before = set(Path(stack.cache_dir).glob("*.pkl"))
    assert load.arun(load.open_view(a, "Feature_privacy", q)).finished
    new = set(Path(stack.cache_dir).glob("*.pkl")) - before
    assert len(new) == 1
    f = new.pop()
    stamp = f.stat().st_mtime_ns
    assert load.arun(load.open_view(b, "Feature_privacy", q)).finished
    assert f.stat().st_mtime_ns == stamp and set(Path(stack.cache_dir).glob("*.pkl")) - before == {f}


def test_disk_store_refuses_a_directory_others_can_write(tmp_path):
    from hetdp_ui.runcache import DiskStore

    d = tmp_path / "open"
    d.mkdir()
    d.chmod(0o777)
    with pytest.raises(PermissionError, match="not writable by others"):
        DiskStore(d)
