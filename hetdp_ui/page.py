"""A scenario page's life cycle in one place.

::

    with page_shell(module) as page:      # title, question, state from the URL, lesson panel, presets
        page.state.slider("eps")          # widgets (bounds and labels from the scenario's fields)
        result = page.run()              # URL written back, the scenario built and run, 'In short'
        page.chart("mse")                # its figures, declared in pages/<slug>/figures.py
        page.meaning_and_report()        # where the page wants them (else added on leaving)

:func:`start_page`, :func:`run_page` and :func:`meaning_and_report` are the steps the shell takes;
calling the shell's steps out of order raises (``tests/test_page_shell.py``).
"""

from __future__ import annotations

import contextlib

import streamlit as st

from hetdp_core.framework.scenario import MAX_PIN_LENGTH, InputError, Scenario, in_short
from hetdp_ui.actions import run_ended
from hetdp_ui.execution import run_scenario, runs, staged_run
from hetdp_ui.exports import report_button
from hetdp_ui.figcache import by_identity
from hetdp_ui.folders import figure
from hetdp_ui.panels import apply_pending_settings, meaning_panel, plan_table, question
from hetdp_ui.staged import Staged
from hetdp_ui.state import ScenarioState
from hetdp_ui.timing import part
from hetdp_ui.widgets import chart, show_input_error


def pin_section(key: str, current: str, load, *, what: str, noun: str, help: str):
    """Pin plan A, for any page (the scenario pages' :func:`plan_a`, the release ledger): buttons to pin the
    current ``what`` (its query string ``current``) and unpin it; the pinned string lives in the URL
    (``pin=``) so a shared link opens the same comparison. Returns ``load(pinned string)`` or None. A
    malformed pin (too long, or ``load`` raising InputError) is ignored with a warning naming it; the
    current one (plan B) is never touched."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get("pin", "") or ""
    c1, c2 = st.columns(2)
    # callbacks: the pin is stored before the next run starts, so no rerun can lose the click
    c1.button(f"Pin this {what} as plan A", key=f"{key}_set", help=help, on_click=_pin, args=(key, current))
    if st.session_state[key]:
        c2.button("Unpin plan A", key=f"{key}_clear", on_click=_pin, args=(key, ""))
    raw, loaded = st.session_state[key], None
    if raw:
        try:
            if len(raw) > MAX_PIN_LENGTH:
                raise InputError(f"the pinned {noun} is {len(raw)} characters long; at most {MAX_PIN_LENGTH}.")
            loaded = load(raw)
        except InputError as exc:
            st.warning(f"URL parameter 'pin' (plan A) ignored: {exc} The current {what} (plan B) is unchanged.")
            st.session_state[key] = raw = ""
    if (st.query_params.get("pin") or "") != raw:
        if raw:
            st.query_params["pin"] = raw
        else:
            del st.query_params["pin"]
    return loaded


def _pin(key: str, pinned: str) -> None:
    """``on_click`` of *Pin* (``pinned``: the view shown when it was clicked) and *Unpin* (``""``)."""
    st.session_state[key] = pinned


def plan_a(state: ScenarioState, scenario: Scenario):
    """Plan A vs plan B on a scenario page (:func:`pin_section`): returns (scenario A, result A) or None."""
    from urllib.parse import parse_qsl

    def load(raw: str):
        a = type(scenario).from_query(dict(parse_qsl(raw, keep_blank_values=True)))
        return a, run_scenario(a, progress=False)

    return pin_section(
        state.key("pin"),
        scenario.query_string(),
        load,
        what="view",
        noun="scenario",
        help="then change the sliders: the current view becomes plan B",
    )


def plan_section(state: ScenarioState, page, scenario: Scenario, result):
    """Plan A vs plan B for any registered page: the pin buttons and, with a pinned plan A, the
    table of the page's key numbers (:func:`hetdp_core.reading.compare.key_numbers`). Returns (scenario A,
    result A) or None, for the report and figure overlays."""
    from hetdp_core.reading.compare import key_numbers

    ab = plan_a(state, scenario)
    if ab is not None:
        plan_table(key_numbers(page, ab[1]), key_numbers(page, result), page.PAGE_SPEC.slug)
    return ab


def start_page(page, *, preset_help: str | None = None, switches: dict[str, bool] | None = None) -> ScenarioState:
    """The top of every scenario page, from its declaration (``page`` is its scenario module): the
    browser title and inlined emoji icon (no font server), the title and the menu
    (:func:`hetdp_ui.nav.page_top`), the question, the state read from the URL, the lesson panel and
    the preset selector. Returns the page's state."""
    from hetdp_ui.lesson_panel import lesson_panel
    from hetdp_ui.limits import start_fork_server_soon
    from hetdp_ui.nav import page_top

    runs()  # the run cache and, under a server, the shared store the run children inherit: before the fork server
    start_fork_server_soon()  # a server's first view: the run children's fork server imports meanwhile
    spec = page.PAGE_SPEC
    page_top(spec.title)  # the title first, painted before the menu and the inputs arrive
    state = ScenarioState.of(page, switches=switches)
    question(page.QUESTION)
    state.init()
    lesson_panel(state)
    apply_pending_settings(state)  # a pending "Use this setting" click, before any widget (hetdp_ui.panels)
    st.sidebar.selectbox(
        "Preset", ["Custom", *page.PRESETS], key=state.key("preset"), on_change=state.apply_preset, help=preset_help
    )
    return state


def in_short_box(box, result) -> None:
    """The run's summary in a few sentences (the page module's ``summarize``, the same lines as the
    report and ``hetdp run``), written into ``box``."""
    with box:
        st.markdown("**In short** — " + " ".join(by_identity(result, "in short", lambda: in_short(result))))


def run_page(state: ScenarioState, page, *, upload: bytes | None = None):
    """The bottom of every scenario page's inputs: the scenario built from the widgets (an input error
    is shown and the page stops there — the only place a page catches it), its one run (cached, limited)
    and plan A vs plan B, under the box of the run's summary. A page with a quick part gets a staged
    result (:func:`hetdp_ui.execution.staged_run`): its summary, which reads the whole run, is written
    into the box when the page ends (:meth:`PageShell.finish`). Returns (scenario, result, plan A or None,
    the summary's box)."""
    try:
        scenario = state.scenario()
        result = staged_run(scenario, upload=upload) if upload is not None else staged_run(scenario)
    except InputError as exc:
        show_input_error(exc)
        st.stop()
    box = st.container(border=True, key=f"{page.PAGE_SPEC.slug}_summary")
    if not isinstance(result, Staged):
        in_short_box(box, result)
    return scenario, result, plan_section(state, page, scenario, result), box


def meaning_and_report(result, state: ScenarioState, *, plan_a=None, **meaning) -> None:
    """The end of a page's results: what its levels mean for a person (:func:`meaning_panel`, with
    ``meaning`` passed on) and its report button (:func:`report_button`)."""
    meaning_panel(result, state, **meaning)
    report_button(result.scenario.PAGE, result.scenario, result, plan_a=plan_a)


class PageShell:
    """One scenario page's life cycle, in the only order that works (see :func:`page_shell`)."""

    def __init__(self, module, *, preset_help: str | None = None, switches: dict[str, bool] | None = None):
        self.module = module
        self.state = start_page(module, preset_help=preset_help, switches=switches)
        self.scenario: Scenario | None = None
        self.result = None
        self.plan_a = None
        self._shown: set[str] = set()

    def run(self, *, upload: bytes | None = None):
        """After the widgets: the URL written back, the scenario built and run (an input error is shown
        and the page stops here), *In short* and plan A vs B. Returns the result."""
        if self.result is not None:
            raise RuntimeError(f"{self.module.__name__}: page.run() called twice")
        self.state.sync_url()
        self.scenario, self.result, self.plan_a, self._summary = run_page(self.state, self.module, upload=upload)
        return self.result

    def finish(self) -> None:
        """The end of the page: a staged result's whole run (the page may not have read it all) and the
        summary it feeds, into its box at the top."""
        if isinstance(self.result, Staged):
            self.result.full()
            in_short_box(self._summary, self.result)

    def _once(self, part: str) -> None:
        if self.result is None:
            raise RuntimeError(f"{self.module.__name__}: the {part} needs page.run() first")
        if part in self._shown:
            raise RuntimeError(f"{self.module.__name__}: the {part} is shown once")
        self._shown.add(part)

    def chart(self, name: str, *, result=None, key: str | None = None, **options) -> None:
        """Draw the page's figure ``name``, declared once in its folder's ``figures.py`` (the list its report
        draws too), for this view's result or another (``result``: plan A's), with the page's ``options``
        (what to draw, a plan A to overlay). Its chart key is ``<slug>_<name>`` unless ``key``."""
        if self.result is None:
            raise RuntimeError(f"{self.module.__name__}: a figure needs page.run() first")
        res = self.result if result is None else result
        with part("figures"):
            fig = figure(self.module, name).build(res.scenario, res, **options)
        chart(fig, key=key or f"{self.module.PAGE_SPEC.slug}_{name}")

    def meaning_panel(self, **meaning) -> None:
        """What the page's levels mean for a person (:func:`hetdp_ui.panels.meaning_panel`)."""
        self._once("meaning panel")
        meaning_panel(self.result, self.state, **meaning)

    def report_button(self) -> None:
        """The report, decision-package and notebook buttons (:func:`hetdp_ui.exports.report_button`)."""
        self._once("report button")
        report_button(self.result.scenario.PAGE, self.result.scenario, self.result, plan_a=self.plan_a)

    def meaning_and_report(self, **meaning) -> None:
        """Both, here (a page that does not place them gets them at its end)."""
        self.meaning_panel(**meaning)
        self.report_button()


@contextlib.contextmanager
def page_shell(module, *, preset_help: str | None = None, switches: dict[str, bool] | None = None):
    """The life cycle of a scenario page (``module`` its scenario module)::

        with page_shell(fp) as page:
            page.state.slider("eps")        # widgets
            result = page.run()             # sync_url, scenario, cached run, In short, plan A/B
            ...                             # figures
            page.meaning_and_report()       # where the page wants them; else at the end

    Entering draws the title, question, state from the URL, lesson panel and presets; leaving checks
    that the page ran, adds the meaning panel and report buttons where the page did not place them and
    writes the summary of a staged result (:meth:`PageShell.finish`). A page that stops (``st.stop``, an
    input error) or fails leaves without them."""
    shell = PageShell(module, preset_help=preset_help, switches=switches)
    yield shell
    if shell.result is None:
        raise RuntimeError(f"{module.__name__}: the page never called page.run()")
    if "meaning panel" not in shell._shown:
        shell.meaning_panel()
    if "report button" not in shell._shown:
        shell.report_button()
    shell.finish()
    run_ended()  # the clicks whose answer this run showed are done (hetdp_ui.actions)
