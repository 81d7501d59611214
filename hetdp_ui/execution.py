"""A page's one computation: the process-wide run cache, admission and limits, progress.

Nothing happens at import: the cache and the shared memo are made by the first run (:func:`runs`).
"""

from __future__ import annotations

import functools
import os
import threading

import streamlit as st

from hetdp_core.framework.scenario import READING, InputError, RunOptions, Scenario
from hetdp_ui.runcache import ENV as CACHE_ENV
from hetdp_ui.runcache import DiskStore, RunCache, install_shared_memo
from hetdp_ui.timing import note as timing_note
from hetdp_ui.timing import part


def cached(max_entries: int = 64):
    """Decorator for a page's compute wrapper: ``st.cache_data`` with a bounded size and no spinner
    (pages show their own progress bar). Wrap functions of hashable primitives (incl. an int seed)."""
    return st.cache_data(max_entries=max_entries, show_spinner=False)


@functools.cache
def runs() -> RunCache:
    """The process's run cache, made at its first use: bounded in bytes in memory (HETDP_CACHE_MEMORY_MB,
    default 512) and, with HETDP_CACHE_DIR (``make serve``), shared between workers on disk
    (HETDP_CACHE_DISK_MB, default 2048). Under a server it first installs the store of shared
    sub-results (:func:`hetdp_ui.runcache.install_shared_memo`), whose place the run children inherit
    from the environment: :func:`hetdp_ui.page.start_page` calls this before it starts the fork server."""
    if st.runtime.exists() or os.environ.get(CACHE_ENV):  # a server (not AppTest or a script importing pages)
        install_shared_memo(create=True)
    disk = os.environ.get(CACHE_ENV)
    return RunCache(
        max_bytes=int(os.environ.get("HETDP_CACHE_MEMORY_MB", "512")) * 2**20,
        disk=DiskStore(disk, size_limit=int(os.environ.get("HETDP_CACHE_DISK_MB", "2048")) * 2**20) if disk else None,
    )


def _run_key(scenario: Scenario, upload: bytes | None):
    """(the scenario as computed: the attacker's prior and the attack FPR at their defaults, the run
    cache's key): the reading fields only change the meaning table, never what the run computes."""
    import dataclasses
    import hashlib

    digest = None if upload is None else hashlib.sha256(upload).hexdigest()
    defaults = type(scenario).defaults()
    computed = dataclasses.replace(scenario, **{k: defaults[k] for k in READING})
    return computed, (computed.PAGE, tuple(sorted(computed.to_query().items())), digest)


def progress_slot():
    """Where a run shows its queue note and progress bar: an ``st.empty()`` made whether the run is
    computed or cached. Streamlit matches a rerun's elements to the last run's by their position: an
    element drawn only when a run computed moved every element after it, so a slider step drew them
    anew — the expanders a reader had opened closed, the charts below were drawn again, not updated."""
    return st.empty()


#: the progress slot of the script run going on in this thread (:func:`staged_run`)
_PROGRESS = threading.local()


def staged_run(scenario: Scenario, *, upload: bytes | None = None):
    """The page's result for its shell. A page whose core has a quick part (the ``quick`` hook) gets a
    :class:`~hetdp_ui.staged.Staged` result: the quick part computed now, here (the checks, the analytic
    curves, every input check — and Group-wise zCDP's few simulated releases, whose costly part is
    analytic), and the whole run (:func:`run_scenario`, cached, with its progress bar) the first time the
    page reads what only the run computes — so what the page draws before that appears first. A view whose
    run is cached already, or a page without a quick part, gets its run at once. Raises InputError for bad
    input (the quick part checks every input the run does); a run stopped later (its limits, a busy server)
    is shown where the page read it, and the page stops there."""
    from hetdp_core.framework.registry import hook
    from hetdp_core.framework.scenario import PENDING, with_meaning
    from hetdp_core.scenarios import get

    quick = hook(get(scenario.PAGE), "quick")
    computed, key = _run_key(scenario, upload)
    # the run's progress shows here, at the top of the results, whether the run is computed now, later
    # (where the page first reads a simulated field) or not at all (cached): the same elements either way.
    # A staged result is shared by sessions (the run cache), so the slot is not kept in it: its run finds
    # the slot of the script run that reads it (this thread's, set here first)
    _PROGRESS.slot = slot = progress_slot()
    if quick is None or not quick_first(computed) or runs().peek(key) is not None:
        return run_scenario(scenario, upload=upload, slot=slot)
    from hetdp_ui.staged import Staged

    def finish(asked: Scenario):
        def go():
            try:
                return run_scenario(asked, upload=upload, slot=getattr(_PROGRESS, "slot", None))
            except InputError as exc:
                from hetdp_ui.widgets import show_input_error

                show_input_error(exc)
                st.stop()

        return go

    def recount(staged: Staged) -> None:  # its whole run is here: the memo counts it again
        if not upload:
            runs().staged.put(key, staged)

    def make() -> Staged:
        return Staged(quick(computed, options=RunOptions(upload=upload)), finish(computed), on_full=recount)

    with part("run"):  # a view of an uploaded file is not kept (its bytes would be, uncounted)
        staged = make() if upload else runs().staged.get_or_compute(key, make)
    if scenario == computed:
        return staged
    import dataclasses

    q = dataclasses.replace(staged.quick, scenario=scenario)
    return Staged(q if q.meaning is PENDING else with_meaning(q), finish(scenario))


def newer_request():
    """Streamlit's check for a newer request in this script run (it raises to stop the run; None outside
    one). The server runs one script thread per session (``runner.fastReruns = false``: a second one
    could lose a click), so a new slider value waits for the running script's next Streamlit call; a
    wait for a run child makes this check every 0.1 s (:func:`hetdp_ui.limits.run_limited`)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_run_yield_check
    except ImportError:  # an older Streamlit: the run stops at its next Streamlit call
        return None
    return get_run_yield_check()


def quick_first(scenario: Scenario) -> bool:
    """Whether the app computes the view's quick part first, here in the script's thread: when the page
    declares it negligible (no ``quick_cost`` hook) or its cost is small enough to run in this process
    (:func:`hetdp_ui.limits.in_process`). A costly quick part would otherwise run outside the admission
    queue and the child's limits, and then again in the child: such a view runs whole through them."""
    from hetdp_core.framework.registry import hook
    from hetdp_core.scenarios import get
    from hetdp_ui.limits import in_process

    cost = hook(get(scenario.PAGE), "quick_cost")
    return cost is None or in_process(cost(scenario))


def run_scenario(scenario: Scenario, *, progress: bool = True, upload: bytes | None = None, slot=None):
    """The page's one computation: ``run(scenario)`` of its core module, cached process-wide by the
    scenario's query string (and the SHA-256 of an uploaded file), so the same link costs one
    computation however many sessions open it. A miss waits for a computing slot (admission control)
    and runs here when its estimate is small, else in a child process limited in memory and time
    (:mod:`hetdp_ui.limits`); the attacker's
    prior and the attack FPR are not part of the key (only the meaning table depends on them). Shows a
    progress bar while it computes, in ``slot`` (:func:`progress_slot`). Raises InputError for bad input."""
    import dataclasses

    slot = progress_slot() if slot is None else slot

    from hetdp_core.framework.scenario import with_meaning
    from hetdp_core.scenarios import get

    asked = scenario
    scenario, key = _run_key(scenario, upload)  # the prior and the attack's FPR only change the reading
    newer = newer_request()

    def abandon_if_alone():  # a newer request stops this run's child only if no other session waits for it
        if newer is not None and not runs().waiting(key):
            newer()

    def compute():
        from hetdp_ui.dask_exec import ClusterError, app_executor

        try:
            executor = app_executor()  # Dask when HETDP_DASK names a scheduler, else threads
        except ClusterError as exc:
            st.warning(f"{exc} Computing on this server's own threads instead.")
            executor = None
        bar = Progress(slot) if progress and executor is None else None
        try:
            try:
                if executor is None:  # limits enforced while the run executes, and a queue
                    from hetdp_ui.limits import ADMISSION, in_process, run_limited

                    try:
                        with ADMISSION(
                            on_wait=lambda pos: slot.info(
                                f"Waiting for a free computing slot: you are number {pos} in the queue "
                                "(views someone has already computed open at once)."
                            )
                        ):
                            if bar is not None:
                                bar(0.0)  # the bar again where a queue note stood
                            else:
                                slot.empty()
                            options = RunOptions(progress=bar, upload=upload)
                            if in_process(scenario.estimate()):  # small: a child would cost more than the run
                                timing_note("run_where", "here")
                                return get(scenario.PAGE).run(scenario, options=options)
                            timing_note("run_where", "child")
                            return run_limited(scenario.PAGE, scenario, options=options, newer=abandon_if_alone)
                    finally:
                        slot.empty()
                return get(scenario.PAGE).run(
                    scenario, options=RunOptions(progress=bar, executor=executor, upload=upload)
                )
            except ClusterError as exc:  # the scheduler went away mid-sweep: recompute here
                from hetdp_ui.dask_exec import close_app_executor

                close_app_executor()
                st.warning(f"{exc} Computing on this server's own threads instead.")
                return get(scenario.PAGE).run(scenario, options=RunOptions(upload=upload))
        finally:
            if bar is not None:
                bar.done()

    timing_note("run_where", "cache")  # compute() says otherwise
    with part("run"):
        result = runs().get_or_compute(key, compute, newer=newer)
    if all(getattr(asked, k) == getattr(scenario, k) for k in READING):
        return result
    return with_meaning(dataclasses.replace(result, scenario=asked))


class Progress:
    """A progress bar callable as ``progress(fraction, text)`` from inside the core, drawn in ``slot`` (an
    ``st.empty()``; here, where none is given)."""

    def __init__(self, slot=None):
        self.bar = (st if slot is None else slot).progress(0.0, text="computing…")

    def __call__(self, frac: float, text: str = "") -> None:
        self.bar.progress(min(max(float(frac), 0.0), 1.0), text=f"computing… {text}")

    def done(self) -> None:
        self.bar.empty()
