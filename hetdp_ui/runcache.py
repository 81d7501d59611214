"""A process-wide cache of page runs, keyed by (page, scenario query).

Unlike ``st.cache_data`` it returns the cached :class:`~hetdp_core.scenario.Result` itself (no copy
per hit: results are treated as read-only by the pages), lets the computation report progress to
the page that triggered it, and computes each key once even when many sessions ask for it at the
same moment (the others wait for the first). Streamlit-free.

With ``disk`` (a :class:`DiskStore`, used by ``make serve WORKERS=k`` through the environment
variable ``HETDP_CACHE_DIR``) the cache is shared between server processes: a miss in memory looks
on disk, and one process computes a key while the others wait on a file lock, then read its result.
The files are pickles written by the server itself into a private directory (mode 0700, owned by
the server's user; anything else is refused) — never data supplied by a user.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import stat
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["RunCache", "DiskStore", "ENV"]

ENV = "HETDP_CACHE_DIR"


class DiskStore:
    """Results shared between processes: ``<dir>/<sha256(key)>.pkl``, written atomically, at most
    ``max_files`` (oldest removed first)."""

    def __init__(self, directory: str | Path, max_files: int = 2000):
        self.dir = Path(directory)
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        st_ = self.dir.stat()
        if st_.st_uid != os.getuid() or st_.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise PermissionError(f"{ENV}={self.dir}: the cache directory must be owned by this user and not "
                                  "writable by others (results are read back with pickle).")
        self.max_files = max_files

    def _name(self, key) -> str:
        return hashlib.sha256(repr(key).encode()).hexdigest()

    def load(self, key):
        path = self.dir / f"{self._name(key)}.pkl"
        try:
            with open(path, "rb") as f:
                return True, pickle.load(f)
        except FileNotFoundError:
            return False, None

    def save(self, key, value) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, self.dir / f"{self._name(key)}.pkl")
        files = sorted(self.dir.glob("*.pkl"), key=lambda p: p.stat().st_mtime)
        for old in files[: max(0, len(files) - self.max_files)]:
            old.unlink(missing_ok=True)

    def lock(self, key):
        """An exclusive lock file for computing ``key`` (released when the returned file is closed)."""
        f = open(self.dir / f"{self._name(key)}.lock", "wb")
        fcntl.flock(f, fcntl.LOCK_EX)
        return f


class RunCache:
    def __init__(self, max_entries: int = 128, disk: DiskStore | None = None):
        self.disk = disk
        self.max_entries = max_entries
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._inflight: dict = {}
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key, compute: Callable[[], Any]) -> Any:
        while True:
            with self._lock:
                if key in self._data:
                    self._data.move_to_end(key)
                    self.hits += 1
                    return self._data[key]
                ev = self._inflight.get(key)
                if ev is None:
                    ev = self._inflight[key] = threading.Event()
                    mine = True
                else:
                    mine = False
            if not mine:
                ev.wait()
                continue              # computed (or failed: then compute it ourselves)
            try:
                value = self._compute_shared(key, compute) if self.disk is not None else compute()
            except BaseException:
                with self._lock:
                    self._inflight.pop(key).set()
                raise
            with self._lock:
                self.misses += 1
                self._data[key] = value
                while len(self._data) > self.max_entries:
                    self._data.popitem(last=False)
                self._inflight.pop(key).set()
            return value

    def _compute_shared(self, key, compute):
        found, value = self.disk.load(key)
        if found:
            return value
        with self.disk.lock(key):                 # one process computes; the others wait here
            found, value = self.disk.load(key)
            if found:
                return value
            value = compute()
            self.disk.save(key, value)
            return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
