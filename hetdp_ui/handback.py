"""A student who failed over to another worker goes back to their own once it serves again.

nginx keeps each browser on one worker (``make serve``: the route cookie hashed to an upstream). When a
worker dies, its students reconnect and nginx sends them to the next worker; the dead one is restarted
within seconds, but a websocket stays where it is: the whole class then sat on the survivor — one Python
process, one core — for the rest of the lesson while the restarted worker idled (``make load-rush``
measured the restarted worker at 0 % CPU from its warm-up on, the survivor at 100 %, and answers waiting
5–8 s).

So as a class student's step page starts to open, before it queues, a worker that ``make serve``
started asks its nginx, at most every :data:`CHECK_EVERY` seconds, where this browser's route cookie goes
now (a health request with that cookie; nginx's ``X-Hetdp-Worker`` names the worker that answered).
While the answer is another worker that answered at the first try, this worker hands the student back:
the run stops at once (the page says it is moving and reloads itself: a new request, which nginx sends
to the route's own worker, opens the same step from the link — a class student's identity is in the
link), and once the session is idle — no run running or requested, nothing left to send — the worker
closes the websocket (code 1012, "service restart"), which moves a client that runs no scripts (the
load tool reconnects, as a browser after a restart). Only a run that opens a page is handed back,
never a click's run (its action would be lost with the session). A session whose route comes here is
marked at home and never asks again; the instructor's live view is never handed back (one client, it
comes first); a browser that came through another machine's nginx is never handed back (its nginx
hashes over other workers).

The idle check and the close run on Streamlit's event loop, where the browser's messages are handled: a
click that arrived before the check runs on this worker (the session is then not idle and the close
waits); one sent in the half second between the page's stop and the close is not run (the page reopens
on the student's own worker, where it is made again). Streamlit has no public call that closes a
session's websocket: this module reaches into its runtime (``Runtime.instance()``'s session manager and
event loop, the Starlette websocket of the session's client), tested against the installed Streamlit
(``tests/test_class_load.py``); where a later Streamlit lacks one of them, nobody is handed back (the
students stay where they are, as before).
"""

from __future__ import annotations

import asyncio
import os
import time
import urllib.request

import streamlit as st

#: the nginx in front of this worker (its URL, and the name it gives itself in the ``X-Hetdp-Proxy``
#: header of what it forwards), and this worker's address as nginx lists it (``hetdp_ui.serve``)
PROXY_ENV, PROXY_ID_ENV, SELF_ENV = "HETDP_PROXY_URL", "HETDP_PROXY_ID", "HETDP_WORKER_ADDR"
#: seconds between two looks of one session for its own worker
CHECK_EVERY = 5.0
#: how long the close waits for what the session still has to send (checked every half second)
IDLE_TRIES = 40
#: session keys: "home", or when this session last looked; the page and address its last run opened
_KEY, _OPENED = "_handback", "_handback_opened"
#: what the page says while it is handed back
WORDS = "Moving you back to your own server of this class (it is serving again): the step reopens there."
#: the websocket close code: "service restart" (the browser reconnects)
CLOSE_CODE = 1012


def home_of(route: str, proxy: str, *, timeout: float = 1.0) -> str | None:
    """The worker nginx at ``proxy`` sends route ``route`` to now, when it answered at the first try;
    None when nginx had to try another (the route's own worker is down) or did not say."""
    req = urllib.request.Request(proxy.rstrip("/") + "/_stcore/health", headers={"Cookie": f"hetdp_route={route}"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        addr = (r.headers.get("X-Hetdp-Worker") or "").strip()
    return addr if addr and "," not in addr else None


def hand_back(page_url: str, *, now: float | None = None) -> bool:
    """Called as a class student's step page ``page_url`` starts: hand this session back when its route's
    worker is another one that serves (True when a hand-back was scheduled: the run then stops). Only a
    run that opens a page (another page or address than this session's run before) is handed back: a
    click's run is not stopped (its action would be lost with the session)."""
    if st.session_state.get(_OPENED) == _address(page_url):
        return False
    seen(page_url)
    proxy, me = os.environ.get(PROXY_ENV), os.environ.get(SELF_ENV)
    # only a browser that came through this worker's own nginx (another machine's nginx that lists this
    # worker hashes routes over other workers: asking ours would send the browser round in circles)
    ours = proxy and me and st.context.headers.get("X-Hetdp-Proxy") == os.environ.get(PROXY_ID_ENV)
    route = st.context.cookies.get("hetdp_route") if ours else None
    got = st.session_state.get(_KEY)
    if not route or got == "home":
        return False
    now = time.monotonic() if now is None else now
    if isinstance(got, float) and now - got < CHECK_EVERY:
        return False
    st.session_state[_KEY] = now
    try:
        home = home_of(route, proxy)
    except OSError:
        return False
    if home == me:
        st.session_state[_KEY] = "home"
        return False
    if home is None:
        return False
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx is not None and close_when_idle(ctx.session_id)


def _address(page_url: str) -> tuple:
    return page_url, tuple(sorted(st.query_params.to_dict().items()))


def seen(page_url: str) -> None:
    """Remember the page and address this run leaves the browser at (as it starts, and as it ends: a run
    writes its inputs into the address, and the next run, a click's, starts there)."""
    st.session_state[_OPENED] = _address(page_url)


def reload_page() -> None:
    """A browser reloads the page (a script in a zero-height component frame, which reloads the app's
    window: a new request, which nginx sends to the route's own worker); the websocket's close
    (:func:`close_when_idle`) moves a client that runs no scripts."""
    from streamlit.components.v1 import html

    html("<script>window.parent.location.reload()</script>", height=0)


def close_when_idle(session_id: str) -> bool:
    """Close session ``session_id``'s websocket once it is idle (on Streamlit's event loop)."""
    from streamlit.runtime import Runtime

    try:
        rt = Runtime.instance()
        loop, mgr = rt._get_async_objs().eventloop, rt._session_mgr
        info = mgr.get_active_session_info(session_id)
    except (AttributeError, RuntimeError):  # another Streamlit: nobody is handed back
        return False
    if info is None or not all(
        hasattr(o, a)
        for o, a in ((info.session, "_scriptrunner"), (info.session, "_browser_queue"), (info.client, "_websocket"))
    ):
        return False  # another Streamlit (or another kind of client): the session stays here
    stopping = info.session._scriptrunner  # this run's, which stops now

    def attempt(left: int) -> None:
        info = mgr.get_active_session_info(session_id)
        if info is None:
            return
        session, client = info.session, info.client
        sending = getattr(client, "_send_queue", None)
        unsent = not session._browser_queue.is_empty() or (sending is not None and not sending.empty())
        runner = session._scriptrunner
        if runner is not None and runner is not stopping:  # a run the browser asked for since: it runs
            return  # here (and hands the session back when it is a step page and the check is due)
        if (runner is not None or unsent) and left:
            loop.call_later(0.5, attempt, left - 1)
            return
        # idle, or still stopping / sending the "moving" words after IDLE_TRIES: the reconnect redraws
        asyncio.ensure_future(client._websocket.close(code=CLOSE_CODE))

    loop.call_soon_threadsafe(loop.call_later, 0.5, attempt, IDLE_TRIES)
    return True
