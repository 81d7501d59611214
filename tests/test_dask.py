"""Sweeps on Dask: identical results with and without a cluster (seeds are per point),
a worker killed mid-sweep, an unreachable scheduler, and the app's HETDP_DASK."""

import os
import threading
import time

import pandas as pd
import pytest
from conftest import page_path, strict_json
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.scenario import RunOptions
from hetdp_core.scenarios import get
from hetdp_ui.cli import main
from hetdp_ui.dask_exec import ClusterError, DaskExecutor, dask_executor

distributed = pytest.importorskip("distributed", reason="the [dask] extra is part of the test extras")


@pytest.fixture(scope="module")
def cluster():
    from hetdp_ui.dask_exec import local_cluster

    with local_cluster(distributed, n_workers=2) as lc:
        with distributed.Client(lc) as client:
            yield lc, client


def tables_equal(a, b):
    """Bit-identical: the same random numbers (seeds per point) and, in local_cluster's workers,
    the same BLAS threading as this process (Dask's default single-threaded BLAS would change
    the last float32 bits of the Feature-privacy server's sums)."""
    assert a.keys() == b.keys()
    for name in a:
        pd.testing.assert_frame_equal(
            a[name].drop(columns=["seconds"], errors="ignore"),
            b[name].drop(columns=["seconds"], errors="ignore"),
            check_exact=True,
        )


@pytest.mark.parametrize(
    "page,query",
    [
        ("Feature_privacy", {"trials": "10", "n": "1000", "points": "0.1,0.5,1"}),
        ("Per_user_privacy", {"trials": "20", "n": "1000"}),
        ("Private_regression", {"trials": "2", "n": "1000", "steps": "50"}),
    ],
)
def test_results_are_identical_with_and_without_dask(cluster, page, query):
    _, client = cluster
    mod = get(page)
    s = mod.SCENARIO.from_query(query)
    tables_equal(mod.run(s).tables(), mod.run(s, options=RunOptions(executor=DaskExecutor(client, "test"))).tables())


def test_a_worker_killed_mid_sweep_loses_nothing(cluster):
    """Kill one worker process while the points run: the scheduler re-runs its points elsewhere
    (the nanny restarts the worker) and the tables equal the threaded run."""
    lc, client = cluster
    mod = get("Feature_privacy")
    s = mod.SCENARIO.from_query({"trials": "60", "n": "10000", "points": "0.05,0.1,0.2,0.3,0.5,0.7,0.9,1"})
    expected = mod.run(s).tables()
    out = {}
    t = threading.Thread(
        target=lambda: out.update(r=mod.run(s, options=RunOptions(executor=DaskExecutor(client, "test"))))
    )
    t.start()
    deadline = time.time() + 60
    while not any(client.processing().values()) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # points are running on the workers
    victim = next(iter(lc.workers.values()))
    assert t.is_alive(), "the sweep finished before the kill: make it longer"
    os.kill(victim.process.process.pid, 9)
    t.join(300)
    assert not t.is_alive() and "r" in out
    tables_equal(expected, out["r"].tables())


def test_unreachable_scheduler_is_a_one_line_error_not_a_hang(capsys):
    t0 = time.perf_counter()
    code = main(["run", "Feature_privacy", "--query", "trials=5&n=500", "--dask", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1 and "--dask" in err and "tcp://127.0.0.1:1" in err
    assert time.perf_counter() - t0 < 30
    with pytest.raises(ClusterError, match="not a scheduler address"):
        with dask_executor("localhost"):
            pass


def test_cli_dask_local_equals_threads(capsys):
    q = "trials=5&n=500&points=0.1,1"
    assert main(["run", "Feature_privacy", "--query", q, "--json"]) == 0
    threads = capsys.readouterr().out
    assert main(["run", "Feature_privacy", "--query", q, "--json", "--dask", "local"]) == 0
    a, b = strict_json(threads), strict_json(capsys.readouterr().out)
    assert a["link"] == b["link"]
    tables_equal(
        {k: pd.DataFrame(v) for k, v in a["tables"].items()}, {k: pd.DataFrame(v) for k, v in b["tables"].items()}
    )


def _page(page):
    return AppTest.from_file(str(page_path(page)), default_timeout=180)


def test_app_uses_hetdp_dask_and_falls_back_with_a_message(monkeypatch, cluster):
    lc, _ = cluster
    monkeypatch.setenv("HETDP_DASK", lc.scheduler_address)
    at = _page("Feature_privacy")
    at.query_params.update({"trials": "5", "n": "500"})
    at.run()
    assert not at.exception and not at.warning and not at.error
    monkeypatch.setenv("HETDP_DASK", "tcp://127.0.0.1:1")
    at = _page("Feature_privacy")
    at.query_params.update({"trials": "5", "n": "600"})
    at.run()
    assert not at.exception
    assert any("HETDP_DASK" in w.value and "own threads" in w.value for w in at.warning)
    from hetdp_ui.dask_exec import close_app_executor

    close_app_executor()


def test_a_scheduler_without_workers_is_reported_not_waited_for(capsys):
    """`--dask tcp://…` on a scheduler that has no worker: exit 3 with one line, within seconds."""
    with distributed.LocalCluster(
        n_workers=0, processes=False, dashboard_address=None, protocol="tcp://", host="127.0.0.1"
    ) as lc:
        t0 = time.time()
        code = main(["run", "Feature_privacy", "--query", "trials=5&points=0.1", "--dask", lc.scheduler_address])
        assert code == 3 and time.time() - t0 < 30
        assert "has no worker" in capsys.readouterr().err


def test_the_app_reconnects_after_a_scheduler_restart(monkeypatch):
    """The app's connection closes when its scheduler stops; the next request connects to the new one
    on the same address instead of failing until the app restarts."""
    from hetdp_ui.dask_exec import ENV, app_executor, close_app_executor

    lc = distributed.LocalCluster(
        n_workers=1, processes=False, dashboard_address=None, protocol="tcp://", host="127.0.0.1", scheduler_port=0
    )
    addr = lc.scheduler_address
    monkeypatch.setenv(ENV, addr)
    try:
        ex1 = app_executor()
        assert ex1.map(abs, [-1, -2]) == [1, 2]
        lc.close()
        deadline = time.time() + 20
        while time.time() < deadline and ex1.alive:
            time.sleep(0.2)
        assert not ex1.alive
        host_port = int(addr.rsplit(":", 1)[1])
        lc = distributed.LocalCluster(
            n_workers=1,
            processes=False,
            dashboard_address=None,
            protocol="tcp://",
            host="127.0.0.1",
            scheduler_port=host_port,
        )
        ex2 = app_executor()
        assert ex2 is not ex1 and ex2.map(abs, [-3]) == [3]
    finally:
        close_app_executor()
        lc.close()


def test_a_sweep_that_loses_its_scheduler_is_a_cluster_error():
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as lc:
        client = distributed.Client(lc)
        ex = DaskExecutor(client, "--dask")
        client.close()
        with pytest.raises(ClusterError):
            ex.map(abs, [-1])
