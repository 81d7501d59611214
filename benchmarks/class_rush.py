"""A class in a rush (``make load``; ``python benchmarks/class_load.py --scenario rush|two-machines``).

**rush** — the moment an instructor says "go": 300 students arriving over 10 s and thinking 1–4 s, through
``make serve WORKERS=2``, one worker killed (SIGKILL) 20 s into the crowd, on SQLite and on PostgreSQL.
**two-machines** — the same crowd across two ``make serve`` instances on loopback ports standing for two
machines: the first one's nginx joins the second one's worker by address (``--upstream``), both on one
PostgreSQL, one worker each; 20 s in the second machine is killed whole (every process of it, SIGKILL).

Promises (exit 1 if one fails), as in the class run: every answer stored exactly once, no student locked
out of their own name, each student's answers stored in order, the live view's refresh p95 ≤ 2 s, every
answer slower than 5 s said it was queued, no exception or error element; for two machines also: the class
was spread across both. The rush also measures what a student costs the server, and from it the
capacity in students per core (:func:`capacity`), which ``docs/operations.md`` quotes.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import class_load
import load

ROOT = Path(__file__).resolve().parents[1]

#: the rush's crowd: students, seconds over which they arrive, seconds they think between actions
RUSH = (300, 10.0, (1.0, 4.0))


def capacity(result: dict, think: tuple[float, float]) -> dict:
    """Students one core serves at this pace without a queue: the seconds a student spends thinking through
    the lesson (one think after joining and two per step, at the mean think time) over the server CPU
    seconds a student cost in the run (joins, pages, answers, the live view, the killed worker's restart,
    PostgreSQL's own processes: all of the run's server CPU, divided by its students)."""
    from hetdp_core.teaching.lessons import bundled_lesson

    c = result["class"]
    per_student = c["server_cpu_s"] / c["students"]
    steps = len(bundled_lesson(class_load.LESSON).steps)
    walk = (1 + 2 * steps) * (think[0] + think[1]) / 2
    return {
        "server_cpu_s_per_student": round(per_student, 3),
        "thinking_s_per_student": round(walk, 1),
        "students_per_core": int(walk / per_student),
    }


def rush(dbs, students: int, arrive: float) -> list[dict]:
    """The rush on each database: two workers, one killed 20 s in."""
    runs = []
    for db in dbs:
        r = class_load.one(db, "kill", students, arrive, False)
        r.update({"scenario": "rush", "think_s": list(class_load.THINK), "cpu_counts_database": db == "postgresql"})
        r["capacity"] = capacity(r, class_load.THINK)
        runs.append(r)
    return runs


class Machine:
    """A second machine: its own ``make serve`` (``python -m hetdp_ui.serve``) with its workers on loopback
    ports, in a process group of its own, so that :meth:`kill` takes all of it down at once, as a machine
    that fails (its supervisor, nginx and workers: nothing restarts them)."""

    def __init__(self, workers: int, folder: Path, timeout: float = 240.0):
        self.port = load.free_port()
        self.workers = [f"127.0.0.1:{self.port + 1 + i}" for i in range(workers)]
        self.cpu_at_kill = None
        cmd = [sys.executable, "-m", "hetdp_ui.serve", "--workers", str(workers), "--port", str(self.port)]
        cmd += ["--host", "127.0.0.1", "--log-dir", str(folder / "logs")]
        env = {**os.environ, "TMPDIR": str(folder)}  # its run folder goes where this run cleans up
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.time() + timeout
        while not all(_healthy(w) for w in self.workers):
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                raise SystemExit(f"class_rush: the second machine did not serve (see {folder / 'logs'})")
            time.sleep(0.5)

    def cpu(self) -> float:
        """CPU seconds of every process of this machine (until it was killed)."""
        return self.cpu_at_kill if self.cpu_at_kill is not None else load.tree_cpu_seconds(self.proc.pid)

    def kill(self) -> None:
        self.cpu_at_kill = load.tree_cpu_seconds(self.proc.pid)
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def _healthy(address: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def two_machines(students: int, arrive: float, at: float = 20.0) -> dict:
    """The class through this machine's nginx, its worker and the second machine's worker, on one
    PostgreSQL; the second machine killed whole ``at`` seconds in."""
    from pgserver import PostgresServer

    from hetdp_ui.serve import Stack

    env_before, folder = dict(os.environ), Path(tempfile.mkdtemp(prefix="hetdp-two-machines-"))
    pg = PostgresServer()
    other = stack = None
    try:
        db_url = pg.new_database()
        os.environ.update(
            HETDP_DATA_DIR=str(folder),
            HETDP_DATABASE_URL=db_url,
            STREAMLIT_SERVER_COOKIE_SECRET=secrets.token_hex(32),  # the same on both machines
        )
        other = Machine(1, folder)
        stack = Stack(workers=1, port=load.free_port(), upstreams=other.workers).start(timeout=240)
        stop = threading.Event()
        sup = threading.Thread(target=stack.supervise, args=(stop,), kwargs={"interval": 0.3}, daemon=True)
        sup.start()
        cpu = lambda: class_load._cpu(lambda: stack.pids + pg.pids()) + other.cpu()  # noqa: E731
        c0 = cpu()
        try:
            result = class_load.run_class(
                stack.url, db_url, students=students, arrive=arrive, fault=_fault(other, at), baseline=False
            )
        finally:
            stop.set()
            sup.join(5)
        c = result["class"]
        c["server_cpu_s"] = round(cpu() - c0, 1)
        here = {f"127.0.0.1:{p}" for p in stack.worker_ports}
        arrived = c["students_arrived_on"]
        result["promises"]["the class was spread across both machines"] = bool(
            any(w in here for w in arrived) and any(w in other.workers for w in arrived)
        )
        result.update(
            {
                "db": "postgresql",
                "fault": "second machine killed",
                "scenario": "two-machines",
                "cpu_counts_database": True,
                "think_s": list(class_load.THINK),
                "machines": {"this": sorted(here), "second": other.workers},
                "workers": 2,
                "machine_cpus": os.cpu_count(),
            }
        )
        return result
    finally:
        if stack is not None:
            stack.stop()
        if other is not None:
            other.stop()
        os.environ.clear()
        os.environ.update(env_before)
        pg.remove()
        shutil.rmtree(folder, ignore_errors=True)


def _fault(machine: Machine, at: float):
    def fire():
        machine.kill()
        fire.done = time.time()

    fire.at = at
    return fire
