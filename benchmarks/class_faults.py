"""The faults of ``make load``'s class run (``benchmarks/class_load.py``): a worker killed, PostgreSQL
restarted, the disk under the SQLite file filled, and a flood of joins from one client. A fault is a
callable that the class run starts in a thread ``fire.at`` seconds into the crowd."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

# ---------------------------------------------------------------- faults


def kill_fault(stack):
    def fire():
        os.kill(stack.procs[0].pid, signal.SIGKILL)
        fire.done = time.time()

    fire.at = 20.0
    return fire


def pg_restart_fault(pg, down: float = 5.0):
    def fire():
        pg.stop("fast")
        fire.done = time.time()
        time.sleep(down)
        pg.start()

    fire.at = 20.0
    return fire


class Tmpfs:
    """A small tmpfs for the SQLite file, to fill the disk for real (needs root)."""

    def __init__(self, size_mb: int = 64):
        self.dir = Path(tempfile.mkdtemp(prefix="hetdp-full-"))
        cmd = ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(self.dir)]
        r = subprocess.run(cmd, capture_output=True)
        if r.returncode != 0:
            raise SystemExit(f"class_load: cannot mount a tmpfs for the disk-full run: {r.stderr.decode().strip()}")

    def fill(self, seconds: float = 5.0):
        """Fill the filesystem to its last byte (unbuffered writes: nothing left to flush), hold it full
        for ``seconds``, then free it."""
        filler = self.dir / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for block in (1 << 20, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\0" * block)
                except OSError:
                    pass
            self.filled_at = time.time()
            time.sleep(seconds)
        finally:
            os.close(fd)
            filler.unlink()

    def remove(self):
        subprocess.run(["umount", str(self.dir)], capture_output=True)


def disk_full_fault(fs: Tmpfs):
    def fire():
        fire.done = time.time()
        fs.fill()

    fire.at = 20.0
    return fire


# ---------------------------------------------------------------- a flood of joins


def flood(lesson: str, joins: int = 10_000) -> dict:
    """One client joining one session again and again (a script, each join a new name): the session
    fills up to its cap and every further join is refused in one line, nothing stored."""
    from hetdp_core.framework.scenario import InputError
    from hetdp_ui.classroom.store import MAX_STUDENTS, ClassStore

    store = ClassStore(f"sqlite:///{Path(tempfile.mkdtemp(prefix='hetdp-flood-')) / 'class.sqlite'}")
    s = store.start(lesson)
    refused, t0 = 0, time.perf_counter()
    for i in range(joins):
        try:
            store.join(s.code, f"bot {i}")
        except InputError as exc:
            refused += "is full" in str(exc)
    stored = store.counts(s.code)["students"]
    return {
        "joins": joins,
        "stored_students": stored,
        "refused_as_full": refused,
        "seconds": round(time.perf_counter() - t0, 1),
        "promises": {"a flood fills one session at most to its cap": stored == MAX_STUDENTS == joins - refused},
        "db": "sqlite",
        "fault": "flood of joins",
    }
