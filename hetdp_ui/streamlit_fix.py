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
"""

from __future__ import annotations

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


def install() -> bool:
    """Install the fix once; returns whether Streamlit runs with it."""
    if SafeSessionState.on_script_will_rerun is _apply_then_yield:
        return True
    if not patchable():
        return False
    SafeSessionState.on_script_will_rerun = _apply_then_yield
    return True
