"""Action buttons whose click no rerun can lose.

Streamlit hands a button's click to one script run only: the button reads True in that run and False
in every later one. Any rerun request that arrives meanwhile — a slider moved at the same moment, a
key pressed, a second click — stops that run at its next Streamlit call and starts a new one in which
the button reads False: whatever the click was to do, if the stopped run had not done it yet, was
never done (``if st.button(...): act()``). A button's ``on_click`` callback, by contrast, runs at the
start of the run, before the page's code, and what it stores in the session stays.

So an action button here (:func:`button`) only records its click, in its ``on_click``, as a pending
:class:`Intent` in the session; the page acts on the pending intent where it draws the button, on
every run that gets there, and clears it only once the action's effect is stored. A run stopped
halfway leaves the intent pending and the next run acts again:

- an effect stored in the session or a database is done at once (:meth:`Intent.finish`); one that
  must happen once (a session started, a student joined, an answer counted) goes through
  :meth:`Intent.once`, which keeps its result with the intent the moment it returns;
- an effect that the next run must show is done when a run that shows it gets to the end of the
  page (:meth:`Intent.done_when_shown`, :func:`run_ended`): an answer for the view on screen (a
  solve, a decision package: a slider moved meanwhile stops that run, and the next run answers the
  view it shows); inputs set by a click are set again before the widgets until then, and for
  :data:`ARRIVAL_WINDOW` seconds more in a run that brings their old values back (a browser's
  rerun carries every widget's value as it had it: :func:`hetdp_ui.panels.apply_setting`);
- a navigation — to another page (:func:`navigate`) or to another address of the same page (the next
  lesson step, the class session just started) — is done :data:`ARRIVAL_WINDOW` seconds after its
  target was first shown (:meth:`Intent.arrived`): a request the browser sent from the old place
  before it learned the new one (a slider moved at the same moment; measured: up to half a second
  later) brings it back there, and the pending click navigates again (:meth:`Intent.may_go`);
- an action whose effect is only a change of the session that no widget's old value can undo (pin
  plan A; the ledger's *Use this plan*, whose table is rebuilt under a new key) needs none of this: it
  is done in the callback itself (``st.button(..., on_click=...)``).

Inside Streamlit, a request that reached it after it took a click's request but before it ran the
click's callback dropped the click before any of the app's code ran; :mod:`hetdp_ui.streamlit_fix`,
installed when this module is imported, closes that gap.

Every page calls :func:`expire` first (its menu does); the pages that can show an answer or be a
navigation's target call :func:`run_ended` last. A click left pending on a page is dropped when
another page runs, so it never acts on a later visit. A click while its intent is pending replaces it
if nothing was done for it yet (the newer value counts: a changed answer) or it has arrived, and adds
nothing otherwise (a double click joins once). A test fails if a button is read as a value
(tests/test_architecture.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from hetdp_ui import streamlit_fix
from hetdp_ui.state import RESEND_RUNS

streamlit_fix.install()  # a click no longer lost inside Streamlit itself (see that module)

#: session key: button key → its pending :class:`Intent` (one dict: changing it in place is not a point
#: at which Streamlit can stop the run, so an effect stored and its intent cleared happen together)
INTENTS = "_hetdp_intents"
#: environment variable: a file to which every click recorded, acted on or dropped is appended, one line
#: each (the browser tests' servers set it: a lost click in a CI log then says where it went)
TRACE_ENV = streamlit_fix.TRACE_ENV
#: seconds after a navigation's target was first shown during which a run of the place it left
#: navigates again (a request sent before the browser learned the new address), and after which
#: the click is done
ARRIVAL_WINDOW = 3.0


@dataclass(eq=False)
class Intent:
    """A click not yet fully acted on: its button's ``key``, the ``page`` it was clicked on (:func:`here`),
    the ``value`` the button carried (what the reader had typed or chosen when clicking), and the
    results of the steps already done (:meth:`once`)."""

    key: str
    page: str
    value: Any = None
    results: dict[str, Any] = field(default_factory=dict)
    #: whether this run has shown the action's effect (:meth:`done_when_shown`), and whether it is then
    #: kept for the arrival window (inputs a click set: a request sent before may bring old values back)
    shown: bool = False
    settle: bool = False
    #: the inputs' values before a click that sets them (:func:`hetdp_ui.panels.apply_setting`)
    before: dict | None = None
    #: whether it is a navigation to another page (:func:`navigate`), and where to: (URL path, query)
    leaving: bool = False
    target: tuple[str, dict] | None = None
    #: when a navigation's target was first shown (:meth:`arrived`; ``time.monotonic``)
    arrived_at: float | None = None
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
            trace("finished", self.key, self.page)

    def done_when_shown(self, *, settle: bool = False) -> None:
        """The effect is stored and this run shows it: the click is done if this run gets to the end of
        the page (:func:`run_ended`) — with ``settle``, it has arrived then and is done after the arrival
        window. A rerun that stops it before leaves the click pending, and the next run shows the stored
        effect again or, for another view, redoes it."""
        self.shown, self.settle = True, settle

    def arrived(self) -> None:
        """A navigation's target is shown: the click is done :data:`ARRIVAL_WINDOW` seconds from the
        first time (a run of the target that ends then, :func:`run_ended`, or of the place it left)."""
        if self.arrived_at is None:
            self.arrived_at = time.monotonic()

    def may_go(self) -> bool:
        """At the place a navigation was clicked: whether to navigate (again) — not yet arrived, or a
        request from before the browser learned the new address brought it back within the window.
        Otherwise the reader came back on purpose: the click is done (and False)."""
        if self.arrived_at is None or time.monotonic() - self.arrived_at < ARRIVAL_WINDOW:
            return True
        self.finish()
        return False

    def _settled(self) -> bool:
        return self.arrived_at is not None and time.monotonic() - self.arrived_at >= ARRIVAL_WINDOW


def trace(event: str, key: str, page: str = "") -> None:
    """Append ``event`` for the button ``key`` to the file named by :data:`TRACE_ENV` (if set): the time,
    the session, the page the run is for and the one the click was on. Never fails the run."""
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    session = ctx.session_id[:8] if ctx is not None else "-"
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{time.time():.3f} {session} run-page={here()[:8]} click-page={page[:8]} {event} {key}\n")
    except OSError:
        pass


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
    if held is None or not held.results or held.arrived_at is not None:
        page = here()
        intents[key] = Intent(key, page, value() if callable(value) else value)
        trace("recorded", key, page)
    else:
        trace("joined the pending click", key, held.page)


def button(label: str, *, key: str, value=None, where=None, intent: str | None = None, **kwargs) -> Intent | None:
    """An action button (``where``: a column or container; Streamlit's own keyword arguments pass on):
    draws it and returns its pending intent — this run's click or an earlier one whose run was stopped
    — or None. ``value``, or what calling it returns at the click, is kept as the intent's value.
    Buttons that share ``intent`` (a name; the key by default) keep one intent: the last click's."""
    name = intent or key
    (where or st).button(label, key=key, on_click=_record, args=(name, value), **kwargs)
    return pending(name)


def pending(key: str) -> Intent | None:
    """The pending intent of the button ``key`` on this page, or None (also where it is not drawn)."""
    intents = st.session_state.get(INTENTS, {})
    held = intents.get(key)
    if held is None or held.page != here():
        if held is not None:
            trace("not acted on: clicked on another page", key, held.page)
        return None
    held.home = intents
    return held


def expire() -> None:
    """First in every page's run (its menu calls it): the clicks left pending on another page are
    dropped, but a navigation from there (it has arrived here, :meth:`Intent.arrived`); what a stopped
    run showed is shown again by this one; and a navigation clicked on this page that has not arrived
    (or whose old address came back within the window) goes on to its target at once (:func:`resume`)."""
    intents = st.session_state.get(INTENTS)
    if intents:
        page = here()
        for key, held in list(intents.items()):
            if held.page == page:
                held.shown = False
            elif not held.leaving or held._settled():
                trace("dropped: left pending on another page", key, held.page)
                del intents[key]
            else:
                held.arrived()
        resume(intents, page)


def resume(intents: dict, page: str) -> None:
    """A navigation to another page clicked here and not yet arrived goes on, before anything of this
    page is drawn. ``st.switch_page`` writes the target's query string into the browser's address and
    then asks for the target's run; a rerun request that reaches Streamlit in between (a key pressed, a
    fragment's tick) replaces that run with one of *this* page at the target's query string — a page
    that may then not draw the button at all (the class page at a lesson step's address shows its
    landing page), so the navigation must not wait for the button to be drawn again."""
    for held in list(intents.values()):
        if held.page == page and held.leaving and held.target is not None:
            held.home = intents
            navigate(held, *held.target)


#: session key: a note's key → its :class:`Note` (see :func:`keep_note`)
NOTES = "_hetdp_notes"


@dataclass(eq=False)
class Note:
    """A message the server says once, after the run that set it (a refused send, a list resized, a
    lesson finished): ``text`` (anything the page draws from), said by ``runs`` more runs that reach the
    page's end with it drawn (:func:`run_ended`), ``drawn`` in this run or not."""

    text: Any
    runs: int = RESEND_RUNS  # the same loss as a widget's value sent again (a stopped run's unsent elements)
    drawn: bool = False


def keep_note(key, text) -> None:
    """Keep ``text`` to be said by the page's next runs (:func:`note`). Read once and popped, a message was
    lost whenever the run that drew it was stopped by a rerun before its elements left the server
    (Streamlit drops a stopped run's unsent elements: seen in a full browser run for a lesson's
    *Finished* line); so it is said until :data:`hetdp_ui.state.RESEND_RUNS` runs that drew it have
    reached the page's end."""
    st.session_state.setdefault(NOTES, {})[key] = Note(text)


def note(key):
    """The text of the note ``key`` for this run to draw, or None (it counts as drawn by this run)."""
    held = st.session_state.get(NOTES, {}).get(key)
    if held is None:
        return None
    held.drawn = True
    return held.text


def drop_note(key) -> None:
    """The note ``key`` is not to be said any more (what it said no longer holds)."""
    st.session_state.get(NOTES, {}).pop(key, None)


def run_ended() -> None:
    """Last in a page's run (the scenario pages' shell, the release ledger, the lessons and class pages):
    the clicks whose effect this run showed are done, and the navigations past their window; a note
    drawn by this run has one run fewer to be said (:func:`keep_note`)."""
    notes = st.session_state.get(NOTES)
    if notes:
        for key, held in list(notes.items()):
            if held.drawn:
                held.runs, held.drawn = held.runs - 1, False
                if held.runs <= 0:
                    del notes[key]
    intents = st.session_state.get(INTENTS)
    if intents:
        for key, held in list(intents.items()):
            if held.shown and held.settle:
                held.arrived()
            if (held.shown and not held.settle) or held._settled():
                trace("done", key, held.page)
                del intents[key]


def navigate(intent: Intent, page: str, query_params: dict) -> None:
    """Open the app's page ``page`` (URL path) with ``query_params`` for a pending click, from the page it
    was clicked on: again when a request from before the switch brought the reader back within the
    window (:meth:`Intent.may_go`; not after it). Where Streamlit cannot switch (a page file run on its
    own, as AppTest does) the link is shown instead and the click is done."""
    from hetdp_ui.nav import open_page

    if not intent.may_go():
        return
    intent.leaving, intent.target = True, (page, dict(query_params))
    open_page(page, query_params)  # returns only where it could not switch
    intent.finish()
