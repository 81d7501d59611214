"""Action buttons whose click no rerun can lose.

Streamlit hands a button's click to one script run only: the button reads True in that run and False
in every later one. Any rerun request that arrives meanwhile — a slider moved at the same moment, a
key pressed, a second click — stops that run at its next Streamlit call and starts a new one in which
the button reads False: whatever the click was to do, if the stopped run had not done it yet, was
never done (``if st.button(...): act()``). A button's ``on_click`` callback, by contrast, runs at the
start of the run, before the page's code, and what it stores in the session stays.

So an action button here (:func:`button`) only records its click, in its ``on_click``, as a pending
:class:`Intent` in the session; the page acts on the pending intent where it draws the button, on
every run that gets there, and clears it (:meth:`Intent.finish`) only once the action's effect is
stored. A run stopped halfway leaves the intent pending and the next run acts again:

- an effect that must happen once (a student joined, an answer counted) goes through
  :meth:`Intent.once`, which keeps its result with the intent the moment it returns;
- a navigation (:func:`navigate`) stays pending until another page runs: leaving the page where it
  was clicked is the effect (:func:`expire`, called by every page's menu, drops the intents of other
  pages — so an intent never acts on a later visit either);
- an action whose effect is only a change of the session (pin plan A, use a solution) needs none of
  this: it is done in the callback itself (``st.button(..., on_click=...)``).

A click while its intent is pending replaces it if nothing was done for it yet (the newer value
counts: a changed answer) and adds nothing otherwise (a double click joins once). A test fails if a
button outside a callback is read as a value (``tests/test_actions.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

#: session key: button key → its pending :class:`Intent` (one dict: changing it in place is not a point
#: at which Streamlit can stop the run, so an effect stored and its intent cleared happen together)
INTENTS = "_hetdp_intents"


@dataclass(eq=False)
class Intent:
    """A click not yet fully acted on: its button's ``key``, the ``page`` it was clicked on (:func:`here`),
    the ``value`` the button carried (what the reader had typed or chosen when clicking), and the
    results of the steps already done (:meth:`once`)."""

    key: str
    page: str
    value: Any = None
    results: dict[str, Any] = field(default_factory=dict)
    #: the session's dict of intents this one is kept in (set by :func:`pending`)
    home: dict = field(default_factory=dict, repr=False)

    def once(self, act: Callable[[], Any], step: str = "act"):
        """``act()`` done once for this click: its result is kept with the intent the moment it returns
        (no Streamlit call lies between), so a rerun that stops what follows reuses it instead of acting
        twice. ``act`` must make its Streamlit calls (session state included) before its lasting effect."""
        if step not in self.results:
            self.results[step] = act()
        return self.results[step]

    def finish(self) -> None:
        """The action's effect is stored: the click is done (a newer click's intent is left alone). No
        Streamlit call: an effect stored in the session just before is never left with its intent."""
        if self.home.get(self.key) is self:
            del self.home[self.key]


def here() -> str:
    """The page this run is for (Streamlit's hash of the page: the same in a click's callback and in the
    run that follows, under ``st.navigation`` or for a page file run on its own)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx is not None else ""


def _record(key: str, value) -> None:
    """``on_click`` of an action button: the click becomes a pending intent (see the module's text)."""
    intents = st.session_state.setdefault(INTENTS, {})
    held = intents.get(key)
    if held is None or not held.results:
        intents[key] = Intent(key, here(), value() if callable(value) else value)


def button(label: str, *, key: str, value=None, where=None, **kwargs) -> Intent | None:
    """An action button (``where``: a column or container; Streamlit's own keyword arguments pass on):
    draws it and returns its pending intent — this run's click or an earlier one whose run was stopped
    — or None. ``value``, or what calling it returns at the click, is kept as the intent's value."""
    (where or st).button(label, key=key, on_click=_record, args=(key, value), **kwargs)
    return pending(key)


def pending(key: str) -> Intent | None:
    """The pending intent of the button ``key`` on this page, or None (also where it is not drawn)."""
    intents = st.session_state.get(INTENTS, {})
    held = intents.get(key)
    if held is None or held.page != here():
        return None
    held.home = intents
    return held


def expire() -> None:
    """Drop the intents clicked on other pages (called first by every page): a navigation has arrived,
    and an action left behind does not act on a later visit."""
    intents = st.session_state.get(INTENTS)
    if intents:
        page = here()
        for key in [k for k, held in intents.items() if held.page != page]:
            del intents[key]


def navigate(intent: Intent, page: str, query_params: dict) -> None:
    """Open the app's page ``page`` (URL path) with ``query_params`` for a pending click: the intent
    stays pending until the page opened runs (:func:`expire`), so a run stopped before the switch
    switches again. Where Streamlit cannot switch (a page file run on its own, as AppTest does) the
    link is shown instead and the click is done."""
    from hetdp_ui.nav import open_page

    open_page(page, query_params)  # returns only where it could not switch
    intent.finish()
