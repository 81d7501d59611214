"""A class in a rush: the order in which one server process serves a live class when it is saturated.

A worker runs every browser session's script in a thread of one Python process; with a hundred students
opening pages at once, every run — the instructor's live view among them — gets a hundredth of the
interpreter and waits many seconds (``make load``'s rush measured the live view's refresh at p95 13.9 s
before this queue). So each worker admits at most :data:`SLOTS` runs of a class's students at a time
(:class:`~hetdp_ui.limits.Admission`, the same first-come queue as heavy computations), in this order:

1. **the instructor** — the live view's refresh and the live-class page opened with its key (checked against
   the session, so a made-up key is queued like any student): never waits, and while it runs no student
   run starts (those running finish), so the live view has the process nearly to itself;
2. **writes** — *Check my answer* and *Join* (a student on the live-class page, and the first step the
   join opens): first come, first served, so answers are stored in the order they arrived;
3. **page opens** — a student's step pages: first come, first served, after every waiting write, and
   at most ``SLOTS - 1`` at once, so an answer waits only for other answers, never behind a page.

A run that waits longer than :data:`NOTICE_AFTER` seconds shows that it is queued and how many runs are
ahead of it (an answer: "queued … will be stored in order"), so a student sees a queue, not a frozen
button. Runs of anyone not in a class session never enter the queue. One queue per process: a second
worker, or a second machine, has its own (docs/operations.md says how many students a core serves).
"""

from __future__ import annotations

import contextlib
import functools
import os
import time

import streamlit as st

from hetdp_ui import handback
from hetdp_ui.limits import Admission, BusyError

#: runs of a class's students executing at once per worker (the others wait their turn)
SLOTS = int(os.environ.get("HETDP_CLASS_SLOTS") or 2)
#: a run waits at most this long, then says the class is over the server's capacity
WAIT = float(os.environ.get("HETDP_CLASS_QUEUE_SECONDS") or 300)
#: seconds of waiting after which the run shows that it is queued, and between two updates of its place
NOTICE_AFTER = 2.0

#: priorities (lower first): the instructor (never queued), a student's answer or join, a student's page
FIRST, WRITE, PAGE = -1, 0, 1

QUEUE = Admission(
    slots=SLOTS,
    caps={PAGE: max(1, SLOTS - 1)},  # pages leave a slot free: an answer never waits behind a page
    wait=WAIT,
    busy="the class is over this server's capacity: {running} runs are in progress and {waiting} more are "
    "waiting, and this one waited longer than " + f"{WAIT:g} s. Try again in a minute.",
    tick=1.0,
)

#: session key: the (code, key) whose instructor key was checked in this browser session
_INSTRUCTOR = "_class_queue_instructor"
#: session key: set by a join; the step page it opens is still the join (a write), not a page open
JOINED = "_class_queue_joined"

ANSWER_WORDS = "Your answer is queued ({place} on this server): it will be stored in order — keep this page open."
#: what a queued answer's notice says once its turn has come (it stays for the rest of the run: Streamlit
#: sends a run's elements in batches, and under a rush a batch can leave the server seconds late; a notice
#: removed at its turn was then replaced before it was ever sent, and the student never saw it)
ANSWER_TURN_WORDS = "Your answer was queued for {seconds:.0f} s on this server; it is stored in its turn."
PAGE_WORDS = "The class is busy: this page opens in turn ({place} on this server)."


def place(position: int) -> str:
    """Where a waiting run stands, in words: "next in line", "2 ahead of it"."""
    return "next in line" if position <= 1 else f"{position - 1} ahead of it"


def _instructor(code: str, key: str) -> bool:
    """Whether ``key`` is the instructor key of session ``code`` (checked once per browser session)."""
    if st.session_state.get(_INSTRUCTOR) == (code, key):
        return True
    from hetdp_core.framework.scenario import InputError
    from hetdp_ui import class_panel

    try:
        class_panel.store().authorize(code, key)
    except (InputError, *class_panel.unavailable_types()):
        return False
    st.session_state[_INSTRUCTOR] = (code, key)
    return True


def priority_of(page_url: str) -> int | None:
    """The queue priority of this run of page ``page_url`` (from its URL): :data:`FIRST` for the session's
    instructor, :data:`WRITE` for a student on the live-class page (joining) and for the step a join opens,
    :data:`PAGE` for a student's other steps, None for anyone else (not queued)."""
    from hetdp_ui.folders import LIVE_CLASS, page_for

    qp = st.query_params
    if page_url == page_for(LIVE_CLASS).url:
        code, key = qp.get("code"), qp.get("key")
        if not code:
            return None
        return FIRST if key and _instructor(code, key) else WRITE
    if not (qp.get("class") and qp.get("me")):
        return None
    return WRITE if st.session_state.pop(JOINED, False) else PAGE


def comes_first(fn):
    """Decorate the instructor's live view (under its ``st.fragment``): each refresh runs ahead of the
    queue (:meth:`~hetdp_ui.limits.Admission.ahead`)."""

    @functools.wraps(fn)
    def first(*args, **kwargs):
        with QUEUE.ahead():
            return fn(*args, **kwargs)

    return first


@contextlib.contextmanager
def queued(priority: int | None, words: str, *, note=None, turn_words: str | None = None):
    """Run the block in its turn of :data:`QUEUE` (at once when ``priority`` is None); after
    :data:`NOTICE_AFTER` seconds of waiting ``words`` (with ``{place}``) are shown in ``note`` (an
    ``st.empty()``; made where the block draws when it first waits, if not given) and, when its turn comes,
    removed — or replaced by ``turn_words`` (with ``{seconds}`` waited), which stay. A run that waits past
    :data:`WAIT` raises BusyError (an InputError)."""
    if priority is None:
        yield
        return
    if priority == FIRST:
        with QUEUE.ahead():
            yield
        return
    t0, shown, at = time.monotonic(), None, 0.0

    def on_wait(position: int) -> None:
        nonlocal note, shown, at
        now = time.monotonic()
        if now - t0 < NOTICE_AFTER or position == shown or now - at < NOTICE_AFTER:
            return  # a message per run and NOTICE_AFTER seconds at most: a hundred waiting runs stay cheap
        if note is None:
            note = st.empty()
        note.info(words.format(place=place(position)), icon=":material/hourglass_top:")
        shown, at = position, now

    with QUEUE(on_wait=on_wait, priority=priority):
        if shown is not None and turn_words:
            note.info(turn_words.format(seconds=time.monotonic() - t0), icon=":material/hourglass_bottom:")
        elif shown is not None:
            note.empty()
        yield


@contextlib.contextmanager
def in_turn(page_url: str):
    """``app.py`` runs every page inside this: a class's student waits their turn (the notice at the top of
    the page); anyone else runs at once. A wait past :data:`WAIT` is one line, not the page."""
    priority = priority_of(page_url)
    # a queued page's notice has its place whether the run waits or not: Streamlit matches a rerun's
    # elements by position, and an element drawn only by a run that waited moved everything below it, so
    # the page was drawn anew when the class was busy (its open panels closed, what was typed and not yet
    # sent was lost)
    note = st.empty() if priority is not None and priority != FIRST else None
    step_page = priority in (WRITE, PAGE) and bool(st.query_params.get("me"))  # a class student's step
    if step_page and handback.hand_back(page_url):  # failed over to this worker: back to their own one
        note.info(handback.WORDS, icon=":material/swap_horiz:")
        handback.reload_page()
        st.stop()
    try:
        with queued(priority, PAGE_WORDS, note=note):
            yield
    except BusyError as exc:
        st.error(str(exc), icon=":material/hourglass_disabled:")
        return
    if step_page:
        handback.seen(page_url)  # the address the run leaves: a click's run starts there, and stays here
