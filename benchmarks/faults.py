"""Fault runs for ``make load``: the server's promises tried by breaking things, at a scale the test
suite does not afford (the suite runs one small version of each).

    python benchmarks/faults.py               # all three; writes benchmarks/results/faults.json
    python benchmarks/faults.py --only kill   # one of: kill, heavy, cache

* **kill** — two supervised workers behind nginx; three rounds, each a crowd of ``--users`` users on
  every page while one worker is killed with SIGKILL a second into the round. Promise: the users on
  the other worker finish without a stall (none waits a minute for a key the dead worker was
  computing), a crowd started right after the kill finishes completely (nginx routes around the dead
  worker), and the worker is back (healthy) within seconds.
* **heavy** — ``--heavy`` users open different uncached heavy views at once on one server (the view a
  page's ``bench.toml`` names as ``fault_heavy_query``: Mechanism lab's). Promise: the server's resident
  memory, children included, stays under ``--cap-gib``; every user gets a result or a "busy" message,
  never an exception.
* **cache** — two workers share the result cache; after a warm-up every cache file is truncated or
  overwritten with random bytes, then a crowd opens the same views again. Promise: no exception, every
  view finishes (a corrupt entry is a miss and is recomputed).

Exit status 1 when a promise fails; the measured numbers are printed and written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import load  # noqa: E402

from hetdp_core.framework.registry import specs  # noqa: E402
from hetdp_ui.serve import Stack, _healthy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: every page with its cheap query (declared in the page's spec)
LIGHT = {s.url: urlencode(dict(s.fast_query)) for s in specs()}
#: a view of the kill rounds that has not finished after this long is stalled (a failed promise): the
#: views are light, so a stall means a user waits on something the killed worker held
STALL_S = 60.0


def _spread(users: int, salt: int) -> list[tuple[str, str]]:
    """``users`` (page, query) pairs over every page, distinct seeds so most are cold runs."""
    pages = list(LIGHT)
    return [
        (pages[i % len(pages)], "&".join(x for x in (LIGHT[pages[i % len(pages)]], f"seed={salt + i}") if x))
        for i in range(users)
    ]


async def _mixed(url: str, views: list[tuple[str, str]]):
    import asyncio

    return list(await asyncio.gather(*(load.open_view(url, p, q, timeout=STALL_S) for p, q in views)))


def kill_rounds(users: int, rounds: int = 3) -> dict:
    st = Stack(workers=2, port=load.free_port()).start()
    stop = threading.Event()
    sup = threading.Thread(target=st.supervise, args=(stop,), kwargs={"interval": 0.2}, daemon=True)
    sup.start()
    out: list[dict] = []
    try:
        for r in range(rounds):
            i = r % 2
            victim = st.procs[i]
            back: list[float] = []

            def kill_and_time(i=i, victim=victim, back=back):
                time.sleep(1.0)
                os.kill(victim.pid, signal.SIGKILL)
                t0 = time.time()
                while time.time() - t0 < 60:
                    if (
                        st.procs[i] is not victim
                        and st.procs[i].poll() is None
                        and _healthy(f"http://127.0.0.1:{st.worker_ports[i]}")
                    ):
                        back.append(round(time.time() - t0, 2))
                        return
                    time.sleep(0.1)

            killer = threading.Thread(target=kill_and_time, daemon=True)
            killer.start()
            during = load.summary(load.arun(_mixed(st.url, _spread(users, 1000 * r))))
            after = load.summary(load.arun(_mixed(st.url, _spread(users, 1000 * r + 500))))
            killer.join(60)
            back = back[0] if back else None
            ok = (
                during["finished"] + during["failures"] == users
                and during["finished"] >= users // 4
                and during["exceptions"] == 0
                and during["max_s"] < STALL_S  # nobody left waiting for the dead worker
                and after["finished"] == users
                and after["failures"] == 0
                and after["exceptions"] == 0
                and back is not None
            )
            out.append(
                {
                    "round": r,
                    "killed_worker": st.worker_ports[i],
                    "during_kill": during,
                    "right_after": after,
                    "worker_back_after_s": back,
                    "ok": ok,
                }
            )
            print(
                f"kill round {r}: during {during['finished']}/{users} finished, {during['failures']} dropped "
                f"with the killed worker; after {after['finished']}/{users}; worker back after {back} s "
                f"{'ok' if ok else 'FAILED'}",
                flush=True,
            )
    finally:
        stop.set()
        sup.join(5)
        st.stop()
    return {"users": users, "rounds": out, "ok": all(r["ok"] for r in out)}


def heavy_users(users: int, cap_gib: float) -> dict:
    from workloads import workloads

    page, query = workloads().fault_heavy  # the page's own heavy view (pages/<slug>/bench.toml)
    port = load.free_port()
    proc = load.start_server(port)
    url = f"http://127.0.0.1:{port}"
    try:
        with load.PeakRSS(proc.pid) as mem:
            views = load.arun(load.crowd(url, page, [f"{query}&seed={i}" for i in range(users)]))
    finally:
        proc.terminate()
        proc.wait(10)
    s = load.summary(views)
    busy = sum(bool(v.errors) and all("busy" in e for e in v.errors) for v in views)
    ok = (
        s["failures"] == 0
        and s["exceptions"] == 0
        and mem.peak < cap_gib * 2**30
        and all(v.finished and (not v.errors or all("busy" in e for e in v.errors)) for v in views)
    )
    print(
        f"{users} heavy users: peak resident {mem.peak / 2**30:.2f} GiB (cap {cap_gib} GiB), "
        f"{users - busy} results, {busy} 'busy', p95 {s['p95_s']} s {'ok' if ok else 'FAILED'}",
        flush=True,
    )
    return {"users": users, "peak_gib": round(mem.peak / 2**30, 3), "cap_gib": cap_gib, "busy": busy, **s, "ok": ok}


def corrupt_cache(users: int) -> dict:
    st = Stack(workers=2, port=load.free_port()).start()
    try:
        views = _spread(14, 7000)
        warm = load.summary(load.arun(_mixed(st.url, views)))
        rng = random.Random(0)
        files = [p for p in Path(st.cache_dir).rglob("*") if p.is_file()]
        for p in files:
            data = p.read_bytes()
            p.write_bytes(data[: len(data) // 2] if rng.random() < 0.5 else rng.randbytes(max(16, len(data))))
        again = load.summary(load.arun(_mixed(st.url, (views * (users // len(views) + 1))[:users])))
    finally:
        st.stop()
    ok = warm["exceptions"] == 0 and again["exceptions"] == 0 and again["failures"] == 0 and again["finished"] == users
    print(
        f"cache: {len(files)} files corrupted; then {again['finished']}/{users} views finished, "
        f"{again['exceptions']} exceptions {'ok' if ok else 'FAILED'}",
        flush=True,
    )
    return {"corrupted_files": len(files), "warm": warm, "after_corruption": again, "ok": ok}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=("kill", "heavy", "cache"))
    ap.add_argument("--users", type=int, default=30, help="crowd size of the kill and cache runs")
    ap.add_argument("--heavy", type=int, default=40, help="concurrent heavy users")
    ap.add_argument("--cap-gib", type=float, default=4.0, help="resident memory the heavy run must stay under")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "faults.json"))
    a = ap.parse_args(argv)
    if min(a.users, a.heavy) < 1:
        ap.error("--users and --heavy must be at least 1")
    result: dict = {"machine_cpus": os.cpu_count()}
    if a.only in (None, "kill"):
        result["kill"] = kill_rounds(a.users)
    if a.only in (None, "heavy"):
        result["heavy"] = heavy_users(a.heavy, a.cap_gib)
    if a.only in (None, "cache"):
        result["cache"] = corrupt_cache(a.users)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(result, indent=2))
    print(f"wrote {a.out}")
    if a.only is None:  # all three runs: docs/benchmarks.md's table (benchmarks/tables.py)
        from benchmarks.tables import record

        record("faults", result)
    return 0 if all(v["ok"] for k, v in result.items() if isinstance(v, dict)) else 1


if __name__ == "__main__":
    sys.exit(main())
