"""Limits that hold while a run executes, and admission control for heavy runs (Streamlit-free).

The up-front estimate (:func:`hetdp_core.framework.scenario.check_budget`) refuses what it can see is too big
and words the message; it cannot be complete. So every uncached page run under the page budget whose
estimate is not small (:func:`in_process`: above :data:`IN_PROCESS`, a fifth of the page's seconds or
an eighth of its memory) is executed in a **child process** with

* a **memory limit**: the caller watches the child's resident memory ten times a second and kills
  it when it exceeds the child's own starting size plus the budget's bytes (an address-space limit
  such as ``RLIMIT_DATA`` does not measure this: thread arenas and BLAS buffers reserve gigabytes of
  virtual memory that are never touched — the default Feature-privacy view reserves 1.4 GB and uses
  0.19 GB); a hard ``RLIMIT_DATA`` of the baseline plus eight budgets stays as a backstop;
* a **deadline**: the child is killed when it has run ``DEADLINE_FACTOR`` × the budget's seconds
  (the margin absorbs a busy machine; an estimate that forgets a cost costs at most that, never
  minutes);

and the reason is reported as an input problem naming the limit. Children are started by a
``forkserver`` that has imported the numerical stack once (fast starts, no fork of a threaded
server). Progress reported by the run inside the child is forwarded to the caller.

A run whose estimate is small executes in the server's own process: a child costs a fork, opening the
shared store, imports the fork server did not make (cvxpy) and pickling the result back — more than the
whole run of most slider steps. An estimate off by the factor the child's deadline allows (×10) costs
such a run what a child would have been allowed before it was stopped (20 s).

**Admission control**: at most ``HETDP_HEAVY_RUNS`` runs (default: the number of cores) execute at
once per server process; the others wait in a first-come queue and are told their position; after
``HETDP_QUEUE_SECONDS`` (default 120) of waiting a request gets "busy, try again". Cached views
never reach this code (the run cache answers them first), so they never wait behind heavy runs.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import itertools
import multiprocessing as mp
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hetdp_core.framework.scenario import DEFAULT_OPTIONS, PAGE_BUDGET, Budget, Cost, InputError, RunOptions
from hetdp_ui.allocator import keep_freed_memory

__all__ = [
    "RunLimitError",
    "BusyError",
    "run_limited",
    "Admission",
    "ADMISSION",
    "DEADLINE_FACTOR",
    "keep_freed_memory",
    "start_fork_server_soon",
    "IN_PROCESS",
    "in_process",
]

#: the child is killed after this many times the budget's seconds
DEADLINE_FACTOR = 2.0
#: seconds of the deadline never go below this (process start and result transfer included)
MIN_DEADLINE = 10.0
#: what the fork server imports once for every run child: scipy.stats brings scipy.optimize, scipy.integrate
#: and scipy.special, which the core imports only where it uses them (so a server's menu, importing the
#: page modules, does not pay for them)
_PRELOAD_STACK = ["numpy", "scipy.stats", "pandas"]


def preload() -> list[str]:
    """What the fork server imports: the stack and every page's scenario module — the modules of the
    registry's scenarios package, listed from its folder, and any page registered since. Nothing is
    imported here: this runs in the fork-server start thread while the main thread imports the same
    modules (an import in both at once can see a half-initialised module)."""
    import importlib.util
    import pkgutil

    spec = importlib.util.find_spec("hetdp_core")  # a top-level spec: found, not imported
    folder = Path(spec.submodule_search_locations[0]) / "scenarios"
    names = [  # a page's core module is a module or a package (a package: its solver beside it)
        f"hetdp_core.scenarios.{m.name}"
        for m in sorted(pkgutil.iter_modules([str(folder)]), key=lambda m: m.name)
        if not m.name.startswith("_")
    ]
    registry = sys.modules.get("hetdp_core.framework.registry")
    # pages registered from elsewhere (a plugin), already imported. The main thread may be importing
    # the registry right now: a half-initialised module has no ``_PAGES`` yet (reading it raised in the
    # start thread, which then never started the fork server — CI, one run in many)
    pages = getattr(registry, "_PAGES", None) or {}
    names += [m.__name__ for m in list(pages.values()) if m.__name__ not in names]
    return [*_PRELOAD_STACK, *names]


#: a run estimated within this executes in the server's process, a larger one in a limited child
IN_PROCESS = Budget(seconds=PAGE_BUDGET.seconds / 5, bytes=PAGE_BUDGET.bytes // 8, name="in-process")


def in_process(cost: Cost, budget: Budget | None = PAGE_BUDGET) -> bool:
    """Whether a run of estimated ``cost`` under ``budget`` executes in this process (small, under a
    budget that limits it) rather than in a limited child (:func:`run_limited`)."""
    return budget is not None and cost.seconds <= IN_PROCESS.seconds and cost.bytes <= IN_PROCESS.bytes


_CTX = None
_CTX_LOCK = threading.Lock()


class RunLimitError(InputError):
    """A run stopped by its memory limit or deadline (an input problem: the request was too big)."""


class BusyError(InputError):
    """The server is busy with heavy runs and the queue waited too long."""


def _context(start: str = "forkserver"):
    """``forkserver`` for the app (a server has many threads; the fork server imported the stack once),
    ``fork`` for one-shot commands (the CLI: no threads of its own, no start-up cost)."""
    global _CTX
    if start == "fork":
        return mp.get_context("fork")
    with _CTX_LOCK:
        if _CTX is None:
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(preload())
            _CTX = ctx
        return _CTX


_MAIN_LOCK = threading.Lock()


def _start(proc) -> None:
    """Start ``proc`` without multiprocessing re-importing ``__main__`` in the child (or the fork
    server): under Streamlit, ``__main__`` is the page script being run, whose import would run the
    page again. The child needs only importable modules (its target lives in this module)."""
    import sys
    import types

    with _MAIN_LOCK:
        saved = sys.modules.get("__main__")
        dummy = types.ModuleType("__main__")
        sys.modules["__main__"] = dummy
        try:
            proc.start()
        finally:
            # put back what was there, unless someone (Streamlit ending a script run) replaced it meanwhile
            if saved is not None and sys.modules.get("__main__") is dummy:
                sys.modules["__main__"] = saved


_WARMING = False


def start_fork_server_soon() -> None:
    """Start the fork server of the run children now, in a background thread, once per process: it
    imports the numerical stack and every page's scenario module (≈ 1 s of CPU, in its own process), so
    a server's first view finds it ready instead of waiting for it after the page's own imports. What
    ``ensure_running`` does at a first run anyway, only earlier; later calls, and calls in a
    multiprocessing child, do nothing."""
    global _WARMING
    if mp.current_process().name != "MainProcess":
        # a multiprocessing child (a benchmark's worker importing a page) may still be bootstrapping, and
        # starting a process then raises in this thread ("… before the current process has finished its
        # bootstrapping phase"); its first run starts the fork server when it needs one. The child's name
        # is set first thing in its bootstrapping (parent_process() only after it)
        return
    with _CTX_LOCK:
        if _WARMING:
            return
        _WARMING = True

    def go():
        global _WARMING
        from multiprocessing import forkserver

        try:
            _context()  # sets the preload list (which has no "__main__": the server never imports the page script)
            forkserver.ensure_running()
        except Exception as exc:  # noqa: BLE001 - said, and left to the first run (which starts it anyway)
            with _CTX_LOCK:
                _WARMING = False  # a later call (a page's first view) tries again
            print(f"hetdp: the run children's fork server did not start early: {exc!r}", file=sys.stderr, flush=True)

    threading.Thread(target=go, name="hetdp-forkserver-start", daemon=True).start()


def _status_bytes(field: str, pid: int | str = "self") -> int:
    """A memory field of ``/proc/<pid>/status`` (``VmRSS``, ``VmData``) in bytes; 0 when the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _exit_with_server(conn) -> threading.Event:
    """Watch the pipe to the server from a daemon thread and end this process the moment no one can
    read it (the server process was killed: the kernel closed its end, and ``poll`` reports POLLERR
    on ours). Without this the run children of a killed worker ran on to their end — seconds of CPU
    taken from the workers still serving — and then printed a broken pipe in the log. (The fork
    server is no help: it lives on while any child it forked does.) Returns an event to set once the
    answer is being sent, after which the server closing its end is expected."""
    import select

    done = threading.Event()

    def watch():
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLERR | select.POLLHUP)
        while True:
            events = poller.poll()
            if done.is_set():
                return
            if any(ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, ev in events):
                os._exit(1)

    threading.Thread(target=watch, name="hetdp-server-watch", daemon=True).start()
    return done


def _child(conn, page: str, scenario, options: RunOptions, max_bytes: int | None) -> None:
    """Runs in the child: end with the server, set the memory limit, run, send ('ok', result) or the
    failure (nothing if the server that asked is gone)."""
    import resource

    answering = _exit_with_server(conn)
    keep_freed_memory()
    from hetdp_core.scenarios import get
    from hetdp_ui.runcache import install_shared_memo

    install_shared_memo(create=False, lazy=True)  # the server's store of reusable sub-results, opened if used
    if max_bytes:  # a backstop; the caller enforces resident memory
        limit = _status_bytes("VmData") + 8 * int(max_bytes)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    conn.send(("start", _status_bytes("VmRSS")))

    def progress(frac, text=""):
        try:
            conn.send(("progress", float(frac), str(text)))
        except (OSError, ValueError):
            pass

    try:
        result = get(page).run(scenario, options=dataclasses.replace(options, progress=progress))
        reply = ("ok", result)
    except MemoryError:
        reply = ("memory", None)
    except InputError as exc:
        reply = ("input", str(exc))
    except BaseException as exc:  # noqa: BLE001 — a bug: re-raised in the caller
        import traceback

        reply = ("bug", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    answering.set()
    try:
        try:
            conn.send(reply)
        except MemoryError:  # pickling a result beyond the memory limit
            conn.send(("memory", None))
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server that asked is gone: nobody to answer
    finally:
        conn.close()


def _read(msg, progress, too_big) -> tuple[str, object]:
    """One message of a run child: ("start", the memory it began with), progress (shown here), ("ok",
    the result); its refusals and failures are raised here."""
    kind = msg[0]
    if kind == "progress":
        if progress is not None:
            progress(msg[1], msg[2])
        return kind, None
    if kind in ("start", "ok"):
        return kind, msg[1]
    if kind == "memory":
        raise too_big()
    if kind == "input":
        raise InputError(msg[1])
    raise RuntimeError(f"the run failed in its worker process: {msg[1]}")


def run_limited(
    page: str,
    scenario,
    *,
    options: RunOptions = DEFAULT_OPTIONS,
    start: str = "forkserver",
    newer: Callable[[], None] | None = None,
):
    """``get(page).run(scenario, options=options)`` in a child process limited to ``options.budget``'s
    memory and ``DEADLINE_FACTOR`` × its seconds (see the module docstring); ``options.progress`` is
    called here with what the child reports; the child computes without an executor. Budget None: no
    limits, run here. ``newer`` is called every 0.1 s in which the child sent nothing: the app's check
    for a newer request of the reader's (it raises, and the child is killed; the app passes one only
    while no other session waits for the same run: :func:`hetdp_ui.execution.run_scenario`)."""
    from hetdp_core.scenarios import get

    budget, progress = options.budget, options.progress
    if budget is None or getattr(mp.current_process(), "_inheriting", False):
        # no limits asked; or this process is itself being bootstrapped by multiprocessing (a spawned
        # worker importing a page as its main module), where no process may be started
        return get(page).run(scenario, options=options)
    ctx = _context(start)
    parent, child = ctx.Pipe(duplex=False)
    inner = dataclasses.replace(options, progress=None, executor=None)
    proc = ctx.Process(target=_child, args=(child, page, scenario, inner, budget.bytes), daemon=True)
    _start(proc)
    child.close()
    deadline_s = max(MIN_DEADLINE, DEADLINE_FACTOR * budget.seconds)
    t0 = time.monotonic()
    base = None

    advice = "Reduce the number of users, trials or sweep points" + (
        " (or run it with `hetdp run … --budget large`)." if budget.name == "page" else "."
    )

    def too_big():
        return RunLimitError(
            f"compute budget: this request needed more than {budget.bytes / 2**30:.3g} GiB of "
            f"memory and was stopped. {advice}"
        )

    def died():
        return RunLimitError(
            f"compute budget: the run stopped unexpectedly (exit code {proc.exitcode}); it probably "
            f"needed more than {budget.bytes / 2**30:g} GiB of memory. {advice}"
        )

    try:
        while True:
            if base is not None and _status_bytes("VmRSS", proc.pid) > base + budget.bytes:
                proc.kill()
                raise too_big()
            left = deadline_s - (time.monotonic() - t0)
            if left <= 0:
                raise RunLimitError(
                    f"compute budget: this request was still running after {deadline_s:.0f} s (the page allows about "
                    f"{budget.seconds:g} s) and was stopped. {advice}"
                )
            if parent.poll(min(left, 0.1)):
                try:
                    msg = parent.recv()
                except EOFError:
                    proc.join(2)
                    raise died() from None
                kind, value = _read(msg, progress, too_big)
                if kind == "ok":
                    return value
                if kind == "start":
                    base = int(value)
            elif not proc.is_alive() and not parent.poll(0):
                raise died()
            elif newer is not None:
                newer()  # nothing came in 0.1 s: a newer request of the reader's stops the wait and the child
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()


class Admission:
    """At most ``slots`` runs at once, and at most ``caps[p]`` of priority ``p`` (so the others always
    find a slot: a cap keeps one free for the more urgent); the others wait in a queue, served by
    ``priority`` (lower first) and first come, first served within a priority; ``wait`` seconds at most,
    then :class:`BusyError` in the words of ``busy`` (formatted with ``running`` and ``waiting``). A
    thread that holds a slot and asks again gets it at once (a nested use never waits for itself). Only
    the run at the head of the queue is woken when a slot frees (a hundred waiting runs do not all wake
    for every admission); ``on_wait(position)`` is called about every ``tick`` seconds while a run waits."""

    def __init__(
        self,
        slots: int | None = None,
        wait: float | None = None,
        *,
        busy: str | None = None,
        tick: float = 0.5,
        caps: dict[int, int] | None = None,
    ):
        self.slots = int(slots or os.environ.get("HETDP_HEAVY_RUNS") or (os.cpu_count() or 1))
        self.wait = float(wait if wait is not None else os.environ.get("HETDP_QUEUE_SECONDS", "120"))
        self.busy = busy or (
            "the server is busy: {running} heavy computations are running and {waiting} more are waiting. "
            "Try again in a minute (views someone has already computed open at once)."
        )
        self.tick, self.caps = tick, dict(caps or {})
        self._lock = threading.Lock()
        self._running = 0
        self._running_by: dict[int, int] = {}  # priority → runs of it in progress
        self._queue: list[tuple[int, int]] = []  # (priority, arrival number), in the order of service
        self._wake: dict[tuple[int, int], threading.Condition] = {}
        self._arrivals = itertools.count()
        self._held = threading.local()
        self._ahead = 0  # runs in progress that come before every queued one

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._queue)

    @contextlib.contextmanager
    def ahead(self):
        """A run that comes before the queue: it never waits, and while it runs no waiting run is admitted
        (those already running go on), so it has the process to itself as soon as they finish."""
        with self._lock:
            self._ahead += 1
        self._held.depth = getattr(self._held, "depth", 0) + 1  # a slot asked for inside it never waits
        try:
            yield
        finally:
            self._held.depth -= 1
            with self._lock:
                self._ahead -= 1
                self._wake_head()

    def __call__(self, on_wait: Callable[[int], None] | None = None, *, priority: int = 0):
        return _Slot(self, on_wait, priority)

    def _free_for(self, priority: int) -> bool:
        """(lock held) Whether a run of ``priority`` may start now (a slot, its cap, nothing ahead)."""
        cap = self.caps.get(priority, self.slots)
        return self._running < self.slots and self._running_by.get(priority, 0) < cap and not self._ahead

    def _wake_head(self) -> None:
        """(lock held) Wake the run at the head of the queue, if a slot is free for it."""
        if self._queue and self._free_for(self._queue[0][0]):
            self._wake[self._queue[0]].notify()


class _Slot:
    def __init__(self, adm: Admission, on_wait, priority: int):
        self.adm, self.on_wait, self.priority = adm, on_wait, priority
        self.nested = False

    def __enter__(self):
        adm = self.adm
        if getattr(adm._held, "depth", 0):  # this thread already holds a slot
            adm._held.depth += 1
            self.nested = True
            return self
        t0 = time.monotonic()
        with adm._lock:
            ticket = (self.priority, next(adm._arrivals))
            bisect.insort(adm._queue, ticket)
            wake = adm._wake[ticket] = threading.Condition(adm._lock)
            try:
                while not (adm._queue[0] == ticket and adm._free_for(self.priority)):
                    left = adm.wait - (time.monotonic() - t0)
                    if left <= 0:
                        raise BusyError(adm.busy.format(running=adm._running, waiting=len(adm._queue) - 1))
                    if self.on_wait is not None:
                        pos = adm._queue.index(ticket) + 1
                        adm._lock.release()
                        try:
                            self.on_wait(pos)
                        finally:
                            adm._lock.acquire()
                    wake.wait(min(left, adm.tick))
                adm._running += 1
                adm._running_by[self.priority] = adm._running_by.get(self.priority, 0) + 1
            finally:
                adm._queue.remove(ticket)
                del adm._wake[ticket]
                adm._wake_head()  # the next one may start too (or become the head after a refusal)
        adm._held.depth = 1
        return self

    def __exit__(self, *exc):
        adm = self.adm
        adm._held.depth -= 1
        if self.nested:
            return False
        with adm._lock:
            adm._running -= 1
            adm._running_by[self.priority] -= 1
            adm._wake_head()
        return False


#: the server process's admission control for uncached runs
ADMISSION = Admission()
