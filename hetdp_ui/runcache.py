"""A process-wide cache of page runs, keyed by (page, scenario query), bounded in bytes.

Unlike ``st.cache_data`` it returns the cached :class:`~hetdp_core.framework.scenario.Result` itself (no copy
per hit: results are treated as read-only by the pages), lets the computation report progress to
the page that triggered it, and computes each key once even when many sessions ask for it at the
same moment (the others wait for the first). Its memory is bounded by the *bytes* of the results it
holds (:func:`result_bytes`), least recently used first out. Streamlit-free.

With ``disk`` (a :class:`DiskStore`, used by ``make serve WORKERS=k`` through the environment
variable ``HETDP_CACHE_DIR``) the cache is shared between server processes through python-diskcache
(SQLite; process-safe, bounded in bytes, eviction done by the library, no hand-written file store):
a miss in memory looks on disk, and one process computes a key while the others wait on a kernel file
lock (py-filelock's ``flock``), which the kernel releases the moment its holder dies: a worker killed
while computing holds nobody up, and a live holder that takes longer than ``lock_seconds`` is given
up on (the waiter computes itself).
Entries are bytes signed with HMAC-SHA256 under the server's secret (``HETDP_CACHE_SECRET``, made by
``make serve`` for each launch): an entry whose signature does not verify — planted by someone else,
truncated, corrupted — is a miss and is deleted, and is never unpickled; the store refuses to
unpickle anything diskcache itself would (only raw bytes are read back). A failed write (disk full)
is logged and the finished result is still returned.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import logging
import os
import pickle
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hetdp_core.framework.memo import Memo, size_of

__all__ = ["RunCache", "DiskStore", "ENV", "SECRET_ENV", "result_bytes", "install_shared_memo", "MEMO_ENV"]

ENV = "HETDP_CACHE_DIR"
_NONE = object()
SECRET_ENV = "HETDP_CACHE_SECRET"
#: directory and secret of the store the core's reusable sub-results are shared in (set by the server
#: process for its computing children; see :func:`install_shared_memo`)
MEMO_ENV, MEMO_SECRET_ENV = "HETDP_MEMO_DIR", "HETDP_MEMO_SECRET"
#: bytes the shared sub-result store may hold on disk
MEMO_DISK_BYTES = 256 * 2**20
#: the longest a process waits for a *live* process computing the same sub-result before computing
#: it itself (a killed holder's lock is released by the kernel at once), not the result cache's 15 min
MEMO_LOCK_SECONDS = 30.0
#: keys share this many lock files (a stripe per key hash): the directory stays bounded however many
#: keys a server computes; two keys computed at the same moment share a stripe with probability 1/4096
LOCK_STRIPES = 4096
log = logging.getLogger("hetdp.cache")


#: approximate memory of a cached value (the memo's own size function)
result_bytes = size_of


def _safe_disk():
    """A diskcache ``Disk`` that reads back raw bytes only: a row claiming to be a pickle (or a
    pickled key) raises instead of being unpickled."""
    import diskcache
    from diskcache.core import MODE_PICKLE

    class SafeDisk(diskcache.Disk):
        def fetch(self, mode, filename, value, read):
            if mode == MODE_PICKLE:
                raise OSError("refused: a pickled cache entry (this store only holds signed bytes)")
            return super().fetch(mode, filename, value, read)

        def get(self, key, raw):
            if not raw:
                raise OSError("refused: a pickled cache key")
            return super().get(key, raw)

    return SafeDisk


class DiskStore:
    """Results shared between processes in a python-diskcache ``Cache`` at ``directory`` (at most
    ``size_limit`` bytes, least recently stored first out), each entry ``HMAC(secret, body) || body``
    with ``body`` a pickle written by this server. ``secret`` (bytes) defaults to the environment
    variable ``HETDP_CACHE_SECRET``; without one the store refuses to start."""

    def __init__(
        self,
        directory: str | Path,
        size_limit: int = 2 * 2**30,
        secret: bytes | None = None,
        lock_seconds: float = 900.0,
        durable: bool = True,
    ):

        if secret is None:
            env = os.environ.get(SECRET_ENV, "")
            if len(env) < 32:
                raise PermissionError(
                    f"{ENV} is set but {SECRET_ENV} is missing or shorter than 32 characters: "
                    "the shared cache signs its entries with the server's secret "
                    "(`make serve` sets both)."
                )
            secret = env.encode()
        self.secret = bytes(secret)
        self.dir = Path(directory)
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.lock_seconds = float(lock_seconds)
        self.size_limit = int(size_limit)
        self.durable = bool(durable)
        self._repairing = threading.Lock()
        self.cache = self._open()

    def _open(self, attempts: int = 20):
        """Open the store; another process creating or configuring it at the same moment makes SQLite
        answer "database is locked" to the opening PRAGMAs, so opening is retried with a short backoff."""
        import sqlite3
        import time

        for i in range(attempts):
            try:
                return self._open_once()
            except sqlite3.OperationalError:
                if i == attempts - 1:
                    raise
                time.sleep(0.01 * (i + 1))

    def _open_once(self):
        import diskcache

        # no memory-mapped files: SQLite's WAL index and mmap I/O turn a file truncated under a running
        # worker into SIGBUS (the process dies); with a rollback journal and plain reads it is an error
        return diskcache.Cache(
            str(self.dir),
            size_limit=self.size_limit,
            disk=_safe_disk(),
            eviction_policy="least-recently-stored",
            timeout=10,
            sqlite_journal_mode="delete",
            sqlite_mmap_size=0,
            # a store of values any process can recompute need not wait for the disk at every write
            # (SQLite's synchronous=OFF): a write that a crash tears is a damaged store, which _repair
            # moves aside; under a loaded disk its fsyncs took longer than computing the value
            sqlite_synchronous=1 if self.durable else 0,
        )

    def _repair(self, exc: BaseException) -> None:
        """After a database error (the SQLite file itself truncated or overwritten): reopen the store;
        if the file on disk is still unreadable, move the directory aside (kept for inspection) and
        start an empty store. Workers that still hold the old file repair themselves the same way on
        their next error, reopening the fresh one. Entries are lost, never trusted."""
        import sqlite3

        if not isinstance(exc, sqlite3.DatabaseError):
            return
        with self._repairing:
            try:
                self.cache.close()
            except Exception:  # noqa: BLE001
                pass
            try:
                fresh = self._open()
                fresh.get("probe", default=None)
                self.cache = fresh
                return
            except Exception:  # noqa: BLE001 — still corrupt
                pass
            import time

            aside = self.dir.with_name(f"{self.dir.name}.corrupt-{os.getpid()}-{int(time.time())}")
            try:
                os.replace(self.dir, aside)
                log.error("shared cache database unreadable (%s): moved to %s, starting an empty cache", exc, aside)
            except OSError:
                pass  # another worker moved it first
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.cache = self._open()

    def _name(self, key) -> str:
        return hashlib.sha256(repr(key).encode()).hexdigest()

    def _tag(self, body: bytes) -> bytes:
        return hmac.new(self.secret, body, hashlib.sha256).digest()

    def load(self, key):
        """(True, value) for a verified entry, else (False, None); a bad entry is deleted."""
        name = self._name(key)
        try:
            blob = self.cache.get(name, default=None, retry=True)
        except Exception as exc:  # noqa: BLE001 — refused or unreadable row
            log.warning("cache entry %s unreadable (%s): treated as a miss", name[:12], exc)
            self._repair(exc)
            self._drop(name)
            return False, None
        if blob is None:
            return False, None
        if not isinstance(blob, bytes) or len(blob) < 32 or not hmac.compare_digest(blob[:32], self._tag(blob[32:])):
            log.warning("cache entry %s has no valid signature: treated as a miss and deleted", name[:12])
            self._drop(name)
            return False, None
        try:
            return True, pickle.loads(blob[32:])  # signed by this server: its own pickle
        except Exception as exc:  # noqa: BLE001 — e.g. written by another version
            log.warning("cache entry %s does not load (%s): treated as a miss", name[:12], exc)
            self._drop(name)
            return False, None

    def _drop(self, name: str) -> None:
        try:
            self.cache.delete(name, retry=True)
        except Exception:  # noqa: BLE001
            pass

    def save(self, key, value) -> bool:
        """Store ``value``; False (logged) if it could not be written — the caller keeps its result."""
        try:
            body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            self.cache.set(self._name(key), self._tag(body) + body, retry=True)
            return True
        except Exception as exc:  # noqa: BLE001 — disk full, read-only, …
            log.warning("could not store a result in the shared cache (%s); serving it anyway", exc)
            self._repair(exc)
            return False

    def lock(self, key, *, newer: Callable[[], None] | None = None):
        """A lock across processes for computing ``key``: a file lock the kernel releases when its
        holder exits or is killed, so a dead worker never blocks a key; a live one is waited for at
        most ``lock_seconds`` (``newer``: called every 0.1 s meanwhile, see :meth:`RunCache.get_or_compute`)."""
        return _SharedLock(self, int(self._name(key)[:8], 16) % LOCK_STRIPES, newer)


class _SharedLock:
    """py-filelock's ``FileLock`` (``flock(2)`` on the store's ``locks/<stripe>.lock``; the file is
    left in place, as unlinking a locked file would split its waiters). Chosen over diskcache's
    ``Lock``, a row that outlives a killed holder until it expires: a worker killed mid-computation
    held every other worker's view of that key for the 15-minute expiry. If the lock cannot be taken
    (an unwritable directory) or a live holder takes longer than ``lock_seconds``, this process
    computes without it rather than failing or stalling the page."""

    def __init__(self, store: DiskStore, stripe: int, newer: Callable[[], None] | None = None):
        self.store, self.path, self.lock = store, store.dir / "locks" / f"{stripe:03x}.lock", None
        self.newer = newer

    def __enter__(self):
        import time

        from filelock import FileLock, Timeout

        try:
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            lock = FileLock(self.path, mode=0o600, thread_local=False)  # the wait's limit is give_up's
            give_up = time.monotonic() + self.store.lock_seconds
            while True:  # in steps of 0.1 s: a newer request of the reader's leaves the wait
                try:
                    lock.acquire(timeout=min(0.1, max(give_up - time.monotonic(), 0)))
                    break
                except Timeout:
                    if time.monotonic() >= give_up:
                        raise
                    if self.newer is not None:
                        self.newer()
            self.lock = lock
        except Timeout:
            log.warning(
                "waited %.0f s for another process computing the same entry: computing it here", self.store.lock_seconds
            )
        except OSError as exc:
            log.warning("shared cache lock unavailable (%s): computing here without it", exc)
        return self

    def __exit__(self, *exc_info):
        if self.lock is not None:
            try:
                self.lock.release()
            except Exception:  # noqa: BLE001 — a failed release must not fail the page; closing frees it
                pass
        return False


class RunCache:
    """In-memory results, at most ``max_bytes`` (by :func:`result_bytes`)."""

    def __init__(self, disk: DiskStore | None = None, max_bytes: int = 512 * 2**20):
        self.disk = disk
        self.max_bytes = int(max_bytes)
        self._data = Memo(self.max_bytes, name="runs")
        self._waiting: collections.Counter = collections.Counter()  # key → callers waiting for its run
        #: staged results (hetdp_ui.staged), one per view: a quick part and, once read, its run (in memory only)
        self.staged = Memo(max(self.max_bytes // 4, 1), name="staged results")
        self._lock = threading.Lock()
        self._inflight: dict = {}
        self.hits = 0
        self.misses = 0

    def get_or_compute(self, key, compute: Callable[[], Any], *, newer: Callable[[], None] | None = None) -> Any:
        """The result for ``key``: kept, or computed once however many callers ask at once (the others
        wait for it). ``newer`` is called every 0.1 s while this caller waits — for another caller's run or
        for another process's (the shared lock): the app's check for a newer request of the reader's,
        which raises and leaves the wait (the run it waited for goes on for the others)."""
        while True:
            with self._lock:
                hit = self._data.get(key, _NONE)
                if hit is not _NONE:
                    self.hits += 1
                    return hit
                ev = self._inflight.get(key)
                if ev is None:
                    ev = self._inflight[key] = threading.Event()
                    mine = True
                else:
                    mine = False
            if not mine:
                with self._lock:
                    self._waiting[key] += 1
                try:
                    while not ev.wait(0.1):
                        if newer is not None:
                            newer()
                finally:
                    with self._lock:
                        self._waiting[key] -= 1
                        if not self._waiting[key]:
                            del self._waiting[key]
                continue  # computed (or failed: then compute it ourselves)
            try:
                value = self._compute_shared(key, compute, newer) if self.disk is not None else compute()
            except BaseException:
                with self._lock:
                    self._inflight.pop(key).set()
                raise
            with self._lock:
                self.misses += 1
                self._data.put(key, value)  # a result larger than the whole cache is not kept
                self._inflight.pop(key).set()
            return value

    def waiting(self, key) -> int:
        """How many callers in this process wait for ``key``'s run (its caller must not abandon it then)."""
        with self._lock:
            return self._waiting.get(key, 0)

    def _compute_shared(self, key, compute, newer=None):
        found, value = self.disk.load(key)
        if found:
            return value
        with self.disk.lock(key, newer=newer):  # one process computes; the others wait here
            found, value = self.disk.load(key)
            if found:
                return value
            value = compute()
            self.disk.save(key, value)  # a failed write is logged; the result is still served
            return value

    def peek(self, key):
        """The result kept in memory for ``key``, or None (nothing is computed or read from disk)."""
        return self._data.get(key)

    @property
    def bytes(self) -> int:
        return self._data.bytes

    def clear(self) -> None:
        self._data.clear()
        self.staged.clear()


class _OpenedOnUse:
    """A :class:`DiskStore` opened at its first use: a run child installs its server's store before every
    run, and opening it (SQLite's connection and pragmas, and the import of diskcache) cost more than
    most runs, which never read it."""

    def __init__(self, open_store: Callable[[], DiskStore | None]):
        self._open, self._store, self._lock = open_store, None, threading.Lock()

    def _get(self) -> DiskStore | None:
        with self._lock:
            if self._open is not None:
                self._store, self._open = self._open(), None
            return self._store

    def load(self, key):
        store = self._get()
        return (False, None) if store is None else store.load(key)

    def save(self, key, value) -> bool:
        store = self._get()
        return False if store is None else store.save(key, value)

    def lock(self, key):
        import contextlib

        store = self._get()
        return contextlib.nullcontext() if store is None else store.lock(key)


def install_shared_memo(*, create: bool, lazy: bool = False) -> DiskStore | None:
    """Install the store in which the core shares reusable sub-results between processes
    (:func:`hetdp_core.framework.memo.set_shared_store`) — e.g. Algorithm 1's divergences, which every seed of a
    Group-wise zCDP view needs: without it each run, in its own child process, recomputed them
    (0.6 s of a 0.65 s run).

    Where: ``HETDP_MEMO_DIR`` if set (a child finds its server's store there); else next to the shared
    result cache (``HETDP_CACHE_DIR`` + ``-memo``, ``make serve``: all workers share it); else, with
    ``create`` (a server process), a private directory made now and removed at exit. The directory and
    its secret are exported in the environment so the children started later inherit them. Entries
    are signed like the result cache's; a store that cannot be opened is logged and not used. ``lazy``
    (a run child): the store is opened at its first use, and None is returned."""
    import secrets

    from hetdp_core.framework.memo import set_shared_store

    directory, secret = os.environ.get(MEMO_ENV), os.environ.get(MEMO_SECRET_ENV)
    if not directory and os.environ.get(ENV):
        directory, secret = os.environ[ENV].rstrip("/") + "-memo", os.environ.get(SECRET_ENV)
    if not directory:
        if not create:
            return None
        import atexit
        import shutil
        import tempfile

        directory, secret = tempfile.mkdtemp(prefix="hetdp-memo-"), secrets.token_hex(32)
        atexit.register(shutil.rmtree, directory, True)
    if len(secret or "") < 32:
        log.warning("shared sub-result store %s has no secret of 32 characters: not used", directory)
        return None
    os.environ[MEMO_ENV], os.environ[MEMO_SECRET_ENV] = directory, secret

    def open_store() -> DiskStore | None:
        try:
            return DiskStore(
                directory,
                size_limit=MEMO_DISK_BYTES,
                secret=secret.encode(),
                lock_seconds=MEMO_LOCK_SECONDS,
                durable=False,
            )
        except Exception as exc:  # noqa: BLE001 — a missing secret, an unusable directory: compute locally
            log.warning("shared sub-result store unavailable (%s): each process computes its own", exc)
            return None

    if lazy:
        set_shared_store(_OpenedOnUse(open_store))
        return None
    store = open_store()
    if store is not None:
        set_shared_store(store)
    return store
