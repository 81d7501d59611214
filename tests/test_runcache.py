"""The run cache: bounded in bytes in memory; the shared store (python-diskcache) treats corrupt,
truncated and foreign entries as misses, never executes a planted pickle, keeps serving when a write
fails, and survives many processes evicting at once."""

from __future__ import annotations

import multiprocessing as mp
import pickle
import sqlite3

import numpy as np
import pytest

from hetdp_ui.runcache import DiskStore, RunCache, result_bytes

SECRET = b"s" * 40


def _store(path, **kw):
    return DiskStore(path, secret=SECRET, **kw)


def test_memory_is_bounded_in_bytes_not_entries():
    c = RunCache(max_bytes=10 * 2**20)
    for i in range(40):  # 40 results of 1 MiB each
        c.get_or_compute(("k", i), lambda: np.zeros(2**17))
    assert c.bytes <= 10 * 2**20 and len(c._data) <= 10
    assert c.bytes == sum(result_bytes(v) for v in c._data.values())
    big = c.get_or_compute("huge", lambda: np.zeros(2**22))  # 32 MiB: larger than the cache, not kept
    assert big.size == 2**22 and "huge" not in c._data


def test_round_trip_and_single_flight_across_the_disk(tmp_path):
    calls = []
    c1, c2 = RunCache(disk=_store(tmp_path)), RunCache(disk=_store(tmp_path))
    v = c1.get_or_compute("key", lambda: calls.append(1) or {"a": np.arange(3)})
    w = c2.get_or_compute("key", lambda: calls.append(2) or None)  # read from disk, not recomputed
    assert calls == [1] and np.array_equal(w["a"], v["a"])


def _rows(path):
    with sqlite3.connect(path / "cache.db") as db:
        return db.execute("SELECT key, mode, filename, value FROM Cache").fetchall()


def test_corrupt_and_truncated_entries_are_misses(tmp_path):
    s = _store(tmp_path)
    s.save("k", {"x": 1})
    ((name, mode, filename, value),) = _rows(tmp_path)
    for bad in (value[:-5], b"", b"\x00" * 40, value[:32] + b"garbage"):
        with sqlite3.connect(tmp_path / "cache.db") as db:
            db.execute("UPDATE Cache SET value = ? WHERE key = ?", (sqlite3.Binary(bad), name))
        s2 = _store(tmp_path)
        assert s2.load("k") == (False, None)  # a miss, every time, for every worker
        s2.save("k", {"x": 1})  # and the next computation repairs it
        assert s2.load("k") == (True, {"x": 1})
        ((name, mode, filename, value),) = _rows(tmp_path)


@pytest.mark.parametrize("damage", ["random", "truncate", "empty"])
def test_a_corrupt_database_file_is_repaired_not_an_exception(tmp_path, damage):
    """The SQLite file itself (not one entry) overwritten, truncated or emptied while two workers hold
    it open: loads are misses, the per-key lock and writes do not raise, the store starts afresh
    (the damaged one moved aside) and both workers share results again."""
    import random

    d = tmp_path / "cache"
    c1, c2 = RunCache(disk=_store(d)), RunCache(disk=_store(d))
    c1.get_or_compute("warm", lambda: {"x": 1})
    for f in d.glob("cache.db*"):
        data = f.read_bytes()
        f.write_bytes(
            {
                "random": random.Random(0).randbytes(max(4096, len(data))),
                "truncate": data[: len(data) // 3],
                "empty": b"",
            }[damage]
        )
    calls = []
    v = c2.get_or_compute("cold", lambda: calls.append(2) or {"y": 2})
    w = RunCache(disk=_store(d)).get_or_compute("cold", lambda: calls.append(3) or {"y": 3})
    assert v == {"y": 2} and w["y"] in (2, 3)
    u = c1.get_or_compute("again", lambda: calls.append(1) or {"z": 1})
    assert u == {"z": 1}
    x = c2.get_or_compute("again", lambda: calls.append(4) or {"z": 4})
    assert x == {"z": 1}, calls  # shared again after the repair


class _Boom:
    """Unpickling this object would create a file (stands for arbitrary code)."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_a_planted_entry_is_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    s = _store(tmp_path / "cache")
    name = s._name("k")
    payload = pickle.dumps(_Boom(str(marker)))
    # 1. a raw entry with a forged (wrong) signature
    s.cache.set(name, b"\x00" * 32 + payload)
    assert s.load("k") == (False, None) and not marker.exists()
    # 2. a row diskcache itself would unpickle (mode pickle), planted straight into the database
    from diskcache.core import MODE_PICKLE

    s.cache.set(name, b"placeholder")
    with sqlite3.connect(tmp_path / "cache" / "cache.db") as db:
        db.execute("UPDATE Cache SET mode = ?, value = ? WHERE key = ?", (MODE_PICKLE, sqlite3.Binary(payload), name))
    assert s.load("k") == (False, None) and not marker.exists()
    # 3. signed with another secret
    other = DiskStore(tmp_path / "cache", secret=b"o" * 40)
    other.save("k", {"x": 1})
    assert s.load("k") == (False, None)


def test_a_failed_write_still_returns_the_result(tmp_path, monkeypatch):
    c = RunCache(disk=_store(tmp_path))

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(c.disk.cache, "set", full)
    assert c.get_or_compute("k", lambda: {"answer": 42}) == {"answer": 42}


def _hammer(args):
    path, worker = args
    s = DiskStore(path, secret=SECRET, size_limit=2**20)
    c = RunCache(disk=s, max_bytes=4 * 40_000)  # about four results: the rest come from disk
    for i in range(60):
        key = ("k", (i * 7 + worker) % 90)
        v = c.get_or_compute(key, lambda key=key: np.full(4000, key[1], dtype=float))  # 32 kB each
        assert v[0] == key[1]
    return True


def test_many_processes_evicting_at_once(tmp_path):
    """Past the size limit every store evicts while the others read and write: no error, right values."""
    ctx = mp.get_context("fork")  # forked workers: no re-import of the test runner
    with ctx.Pool(6) as pool:
        assert all(pool.map(_hammer, [(str(tmp_path), w) for w in range(6)]))
    s = DiskStore(tmp_path, secret=SECRET, size_limit=2**20)
    s.cache.cull()
    values = sum(len(v) for v in (s.cache.get(k) for k in s.cache.iterkeys()) if isinstance(v, bytes))
    assert values <= 2**20 + 64_000  # the entries themselves stay within the byte limit
    assert s.cache.volume() < 8 * 2**20  # database pages and value files included


_HOLDER = """
import sys, time
from hetdp_ui.runcache import DiskStore
lock = DiskStore(sys.argv[1], secret=b"s" * 40).lock("k").__enter__()
assert lock.lock is not None
print("held", flush=True)
time.sleep(600)
"""


def test_a_worker_killed_holding_a_lock_holds_nobody_up(tmp_path):
    """A real process takes the key's lock and is killed with SIGKILL while the server waits for it: the
    kernel releases the lock with the process, so the waiter computes at once (the lock used to be a
    diskcache row that blocked the key until it expired, 15 minutes)."""
    import signal
    import subprocess
    import sys
    import threading
    import time
    from pathlib import Path

    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path)],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        got: list = []
        waiter = threading.Thread(
            target=lambda: got.append(RunCache(disk=_store(tmp_path)).get_or_compute("k", lambda: 7))
        )
        waiter.start()
        waiter.join(1.0)
        assert waiter.is_alive() and not got  # single flight: a live holder is waited for
        t0 = time.monotonic()
        holder.send_signal(signal.SIGKILL)
        waiter.join(10)
        assert got == [7] and time.monotonic() - t0 < 3.0  # lock_seconds is 900: only the kernel freed it
    finally:
        holder.kill()
        holder.wait()
    assert (tmp_path / "locks").is_dir() and len(list((tmp_path / "locks").iterdir())) == 1  # one stripe file


def test_a_live_holder_is_waited_for_at_most_lock_seconds(tmp_path, caplog):
    import time

    held = _store(tmp_path, lock_seconds=0.3).lock("k").__enter__()  # another open file: a separate holder
    try:
        t0 = time.monotonic()
        assert RunCache(disk=_store(tmp_path, lock_seconds=0.3)).get_or_compute("k", lambda: 7) == 7
        assert 0.3 <= time.monotonic() - t0 < 5
        assert "computing it here" in caplog.text
    finally:
        held.__exit__(None, None, None)
    lock = _store(tmp_path, lock_seconds=0.3).lock("k").__enter__()  # released: free again at once
    assert lock.lock is not None and lock.lock.is_locked
    lock.__exit__(None, None, None)


class _Newer(BaseException):  # as Streamlit's RerunException
    pass


def _newer_after(n: int):
    calls = []

    def newer():
        calls.append(1)
        if len(calls) >= n:
            raise _Newer

    return newer, calls


def test_a_reader_waiting_for_a_run_leaves_on_a_newer_request_and_the_run_goes_on(tmp_path):
    """One script thread per session (``runner.fastReruns = false``): a session waiting for another's run
    of the same view checks for a newer request of its reader every 0.1 s and leaves; the run it waited
    for goes on and is kept. While it waits, the run's caller sees it waiting (and keeps its child)."""
    import threading
    import time

    cache, release, seen = RunCache(), threading.Event(), []

    def slow():
        release.wait(10)
        return 7

    first = threading.Thread(target=lambda: seen.append(cache.get_or_compute("k", slow)))
    first.start()
    time.sleep(0.1)
    newer, calls = _newer_after(4)

    def second():
        try:
            cache.get_or_compute("k", lambda: 8, newer=newer)
        except _Newer:
            seen.append("left")

    waiter = threading.Thread(target=second)
    waiter.start()
    time.sleep(0.15)
    assert cache.waiting("k") == 1
    waiter.join(5)
    assert seen == ["left"] and len(calls) == 4 and cache.waiting("k") == 0
    release.set()
    first.join(5)
    assert seen == ["left", 7] and cache.peek("k") == 7


def test_a_reader_waiting_for_another_process_leaves_on_a_newer_request(tmp_path):
    held = _store(tmp_path).lock("k").__enter__()  # another process computing the same view
    try:
        newer, calls = _newer_after(3)
        with pytest.raises(_Newer):
            RunCache(disk=_store(tmp_path)).get_or_compute("k", lambda: 7, newer=newer)
        assert len(calls) == 3
    finally:
        held.__exit__(None, None, None)


@pytest.mark.parametrize("bad", ["", "short"])
def test_the_store_needs_a_real_secret(tmp_path, monkeypatch, bad):
    monkeypatch.setenv("HETDP_CACHE_SECRET", bad)
    with pytest.raises(PermissionError):
        DiskStore(tmp_path)


# ------------------------------------------------------------------ the core's shared sub-results
ALPHAS = np.linspace(1.5, 9.0, 7)


@pytest.fixture
def shared(tmp_path, monkeypatch):
    """A shared sub-result store installed in this process (removed afterwards), the zCDP memo empty."""
    from hetdp_core.framework import memo
    from hetdp_core.per_group import algorithm1
    from hetdp_ui import runcache

    monkeypatch.delenv(runcache.ENV, raising=False)
    monkeypatch.setenv(runcache.MEMO_ENV, str(tmp_path / "memo"))
    monkeypatch.setenv(runcache.MEMO_SECRET_ENV, "m" * 40)
    algorithm1._MEMO.clear()
    store = runcache.install_shared_memo(create=False)
    assert memo.shared_store() is store is not None
    yield store
    memo.set_shared_store(None)
    algorithm1._MEMO.clear()


def _no_compute(*a, **k):
    raise AssertionError("recomputed although the shared store holds the value")


def test_algorithm1_divergences_are_computed_once_and_read_back_from_the_shared_store(shared, monkeypatch):
    """The seed-independent divergences every Group-wise zCDP run needs are shared between processes:
    after one computation, a process with an empty memo reads them from the store (bit for bit)."""
    from hetdp_core.per_group import algorithm1, zcdp

    first = zcdp.renyi_algorithm1_detail(x=3, rho=0.5, r=0.2, alpha=ALPHAS)
    algorithm1._MEMO.clear()
    monkeypatch.setattr(algorithm1, "_alg1_compute", _no_compute)
    again = zcdp.renyi_algorithm1_detail(x=3, rho=0.5, r=0.2, alpha=ALPHAS)
    for f in ("up", "down", "up_error", "down_error"):
        np.testing.assert_array_equal(getattr(again, f), getattr(first, f))


def test_another_process_reads_the_shared_divergences(shared, tmp_path):
    """A child process (as the app's computing children are) finds the store through the environment
    and reads what this process computed, without computing."""
    import os
    import subprocess
    import sys

    from hetdp_core.per_group import zcdp

    first = zcdp.renyi_algorithm1_detail(x=4, rho=0.5, r=0.2, alpha=ALPHAS)
    code = (
        "import numpy as np\n"
        "from hetdp_ui.runcache import install_shared_memo\n"
        "from hetdp_core.per_group import algorithm1, zcdp\n"
        "assert install_shared_memo(create=False) is not None\n"
        "def no(*a, **k): raise SystemExit('recomputed')\n"
        "algorithm1._alg1_compute = no\n"
        "d = zcdp.renyi_algorithm1_detail(x=4, rho=0.5, r=0.2, alpha=np.linspace(1.5, 9.0, 7))\n"
        "print(repr(d.up.tolist()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.returncode == 0, out.stderr
    assert eval(out.stdout) == first.up.tolist()  # noqa: S307 — our own child's repr of floats


def test_a_corrupt_shared_entry_is_recomputed_not_trusted(shared):
    from hetdp_core.per_group import algorithm1, zcdp

    first = zcdp.renyi_algorithm1_detail(x=2, rho=0.5, r=0.2, alpha=ALPHAS)
    skey = ("zcdp.alg1", 2.0, 0.5, 0.2, 1.0)
    shared.cache.set(shared._name(skey), b"\x00" * 64)  # not signed by this server
    algorithm1._MEMO.clear()
    again = zcdp.renyi_algorithm1_detail(x=2, rho=0.5, r=0.2, alpha=ALPHAS)
    np.testing.assert_array_equal(again.up, first.up)
    assert shared.load(skey)[0]  # recomputed and stored again


def test_the_shared_store_is_only_made_by_a_server_and_needs_a_secret(tmp_path, monkeypatch, caplog):
    import os

    from hetdp_core.framework import memo
    from hetdp_ui import runcache

    for var in (runcache.ENV, runcache.MEMO_ENV, runcache.MEMO_SECRET_ENV):
        monkeypatch.setenv(var, "")  # recorded, so the test's exports are undone afterwards
        monkeypatch.delenv(var)
    try:
        assert runcache.install_shared_memo(create=False) is None  # a child without a server's store
        made = runcache.install_shared_memo(create=True)  # a server: a private store, exported
        assert made is not None and os.environ[runcache.MEMO_ENV] == str(made.dir)
        assert made.lock_seconds == runcache.MEMO_LOCK_SECONDS  # a stuck live child holds others up briefly
        assert len(os.environ[runcache.MEMO_SECRET_ENV]) >= 32
        monkeypatch.setenv(runcache.MEMO_SECRET_ENV, "short")
        assert runcache.install_shared_memo(create=False) is None
        assert "no secret of 32 characters" in caplog.text
    finally:
        memo.set_shared_store(None)
