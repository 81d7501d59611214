"""A fix for a lost click inside Streamlit (found for issue 51; Streamlit 1.67, present since at least 1.50).

When a run starts, Streamlit's script thread takes the browser's request (a button's click among its
widget states) and then calls ``SafeSessionState.on_script_will_rerun`` to apply those states and run
the changed widgets' callbacks. That method first asks "is another request pending?" — a yield point —
*before* it applies the states; and inside a callback, every read of ``st.session_state`` is a yield
point too. A request that arrived meanwhile (a slider's new value, the rerun key, a second click:
within milliseconds of the click, more on a loaded machine) stopped the run right there: the click's
states were dropped, its ``on_click`` never ran or stopped before it stored anything, and the next
request carried the button as not clicked. Measured in Chromium on a bare Streamlit page (a click, then
the rerun key at once, 80 times, the cores kept busy: ``benchmarks/lost_clicks.py``): 1–11 clicks lost
without this fix, none with it. One lost *Pin this plan as plan A* failed a CI run this way.

The fix applies the states and runs the callbacks with no yield point in between (the runner's
``_execing`` flag, which its yield points read, is off meanwhile); Streamlit's runner checks for a
pending request right after ``on_script_will_rerun`` anyway, so that request still stops the run at
once — with the click acted on. A runner already told to stop (a second script thread took its place
under ``runner.fastReruns``, or the session ends) applies nothing, as before: two runners must not
apply states to one session at once. hetdp serves with ``runner.fastReruns = false``, so a click's
runner is never told to stop that way (``.streamlit/config.toml``). :func:`install` runs when ``hetdp_ui.actions``
or ``hetdp_ui.nav`` is imported; if a later Streamlit changes the method, it leaves it alone and
``tests/test_actions.py`` fails, naming this module.

Where the click trace is on (``HETDP_TRACE_CLICKS``, :mod:`hetdp_ui.actions`: the browser tests' servers),
:func:`install` also notes every click *when its request reaches the server* and *when its run applies
it* — a form's submit and a plain ``st.button`` included, which :mod:`hetdp_ui.actions` does not see. A
lost click then says where it went: never sent by the browser, folded away between two requests, or
applied and its callback's effect missing.
"""

from __future__ import annotations

import os
import time

from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
from streamlit.runtime.state.safe_session_state import SafeSessionState

_ORIGINAL = SafeSessionState.on_script_will_rerun


def _apply_then_yield(self, fresh_widget_states, *args, **kwargs):
    """``SafeSessionState.on_script_will_rerun`` with no yield point until the states are applied and the
    callbacks have run: not its own, and none inside a callback (a callback's every read of the session
    state, and any message it sends, is one; the runner skips them while its ``_execing`` is False)."""
    runner = getattr(object.__getattribute__(self, "_yield_callback"), "__self__", None)
    if _stopping(runner):  # a runner told to stop (another took its place, the session ends) applies nothing
        raise StopException()
    _trace_triggers("applied by its run", fresh_widget_states, runner)
    pause = getattr(runner, "_execing", None) is True
    if pause:
        runner._execing = False
    try:
        with self._lock:
            self._state.on_script_will_rerun(fresh_widget_states, *args, **kwargs)
    finally:
        if pause:
            runner._execing = True


def _stopping(runner) -> bool:
    """Whether the runner has a pending request to stop (peeked: a pending rerun is left for its own check)."""
    requests = getattr(runner, "_requests", None)
    return getattr(requests, "_state", None) is ScriptRequestType.STOP


def patchable() -> bool:
    """Whether Streamlit's method is the one this fix is for (it yields, then applies under its lock)."""
    import inspect

    try:
        src = inspect.getsource(_ORIGINAL)
    except (OSError, TypeError):
        return False
    y, apply = src.find("self._yield_callback()"), src.find("self._state.on_script_will_rerun(")
    try:  # and the runner's yield points are skipped while its _execing is off (what the fix turns off)
        gate = inspect.getsource(ScriptRunner._maybe_handle_execution_control_request)
    except (OSError, TypeError, AttributeError):
        return False
    return -1 < y < apply and "if not self._execing:" in gate


#: the environment variable naming the click trace's file (:data:`hetdp_ui.actions.TRACE_ENV`)
TRACE_ENV = "HETDP_TRACE_CLICKS"


def _triggers(widget_states) -> list[str]:
    """The keys (or ids, for a widget without a key) of the clicks set in ``widget_states``."""
    from streamlit.runtime.state.common import user_key_from_element_id

    out = []
    for w in getattr(widget_states, "widgets", ()) or ():
        if w.WhichOneof("value") == "trigger_value" and w.trigger_value:
            out.append(user_key_from_element_id(w.id) or w.id)
    return out


def _trace_triggers(event: str, widget_states, where) -> None:
    """Append a line per click in ``widget_states`` to the click trace (if on): the time, the session
    (``where``: an AppSession, or a runner whose session id it holds) and ``event``. Never fails."""
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    try:
        keys = _triggers(widget_states)
        if not keys:
            return
        session = str(getattr(where, "id", None) or getattr(where, "_session_id", None) or "-")[:8]
        with open(path, "a", encoding="utf-8") as f:
            for k in keys:
                f.write(f"{time.time():.3f} {session} run-page=- click-page=- {event} {k}\n")
    except Exception:  # noqa: BLE001 — a trace never fails a run
        pass


def _traced_request_rerun(original):
    def request_rerun(self, client_state):
        if client_state is not None:
            fragment = getattr(client_state, "fragment_id", "") or ""
            _trace_triggers(
                "reached the server" + (f" (fragment {fragment[:8]})" if fragment else ""),
                client_state.widget_states,
                self,
            )
        return original(self, client_state)

    request_rerun.__wrapped__ = original
    return request_rerun


def install() -> bool:
    """Install the fix once (and, where the click trace is on, the trace of a click's arrival); returns
    whether Streamlit runs with the fix."""
    if SafeSessionState.on_script_will_rerun is _apply_then_yield:
        return True
    if not patchable():
        return False
    SafeSessionState.on_script_will_rerun = _apply_then_yield
    if os.environ.get(TRACE_ENV):
        from streamlit.runtime.app_session import AppSession

        AppSession.request_rerun = _traced_request_rerun(AppSession.request_rerun)
    return True
