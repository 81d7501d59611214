"""Panels a page shows around its results: input errors, guarantee checks, the question, what a level
means for a person (posterior, attack, deployments), solver answers, the formulas expander, plan A vs B.
"""

from __future__ import annotations

import contextlib

import streamlit as st

from hetdp_core.framework.scenario import InputError
from hetdp_ui.state import ScenarioState
from hetdp_ui.widgets import chart, csv_download, shared_arrow, show_input_error, target_tpr_input


def show_checks(checks, *, quiet: bool = False) -> bool:
    """Report the guarantee checks the core ran on the numbers shown: each failure as a numerical
    failure with its inputs (st.error); otherwise a one-line caption naming what was verified.
    Returns True when all hold."""
    bad = [c for c in checks if not c.holds]
    for c in bad:
        st.error(c.message())
    if not bad and checks and not quiet:
        st.caption("Verified before display: " + "; ".join(c.name for c in checks) + ".")
    return not bad


def question(text: str) -> None:
    """The page's plain-language 'what question does this answer' paragraph."""
    st.markdown(f"**What question does this answer?** {text}")


#: session key of a page's meaning panel's open state (``%`` the page's key prefix)
MEANING_OPEN = "%s_meaning_open"


def meaning_panel(
    result, state: ScenarioState, *, expanded: bool = False, empty_note: str = "This view states no privacy level."
) -> None:
    """What the page's levels mean for a person: the run's ``privacy_meaning`` table (computed by the
    core from the scenario's ``prior``, which is in the URL) and a slider for that prior."""
    from hetdp_core.framework.scenario import PRIOR_GRID

    # drawn only while open (Streamlit's tracked expander): closed, its table, math and bullets cost the
    # browser nothing, which brought Per-user privacy's first chart from 5.9 s to about 4 s; its prior
    # and FPR sliders come back from the URL when it opens again (PageState.init)
    box = st.expander(
        "What does this level mean for a person?", expanded=expanded, key=MEANING_OPEN % state.prefix, on_change="rerun"
    )
    if not box.open:
        return
    with box:
        st.markdown(
            "An attacker who believes with probability *p* that a person has the protected "
            "attribute can, after seeing the output, believe at most "
            "$\\dfrac{e^{\\varepsilon} p}{1 + (e^{\\varepsilon} - 1) p}$ "
            "(and at least $\\dfrac{p}{p + (1-p) e^{\\varepsilon}}$). Upper bounds are rounded up."
        )
        state.grid("prior", PRIOR_GRID, where=st, percent=True)
        meaning = result.meaning
        if not meaning:
            st.info(empty_note)
            return
        st.markdown(grouped_bullets([r.level.name for r in meaning.rows], [r.in_words for r in meaning.rows]))
        risk_panel(meaning, state)
        table = meaning.table()
        st.dataframe(
            shared_arrow(table, "meaning", lambda: meaning.table(words=False)), hide_index=True, width="stretch"
        )
        csv_download(table, "privacy_meaning.csv", f"{state.prefix}_dl_meaning")
        from hetdp_core.framework.scenario import levels_of
        from hetdp_core.reading.deployments import placement_of

        deployments_strip_section(placement_of(levels_of(result)), key=f"{state.prefix}_context")


def deployments_strip_section(placed, *, key: str, what: str = "these levels") -> None:
    """ "Your levels among real deployments": the strip, one sentence per distinct level, a caution where the
    evidence warrants one, and the caveat about units and periods in the same place."""
    from hetdp_core.reading.deployments import CAVEAT
    from hetdp_ui.context_figures import deployments_strip

    if not placed:
        return
    st.markdown(f"**Your levels among real deployments.** Where {what} lie among levels organisations have used:")
    chart(deployments_strip(placed), key=f"{key}_strip")
    st.markdown("\n".join(f"- {p.sentence}" for p in placed))
    for caution in dict.fromkeys(p.caution for p in placed if p.caution):
        st.warning(caution)
    st.caption(
        CAVEAT + " Data: the Differential Privacy Deployments Registry's public records (22 deployments; "
        "`hetdp context --eps E --all` lists them with their sources)."
    )
    from hetdp_ui.nav import doc_link

    doc_link("deployments", "The data, the ρ → ε conversion and how a level is placed")


def grouped_bullets(levels, words) -> str:
    """Markdown bullets, one per distinct sentence: levels that say the same (ten features at one
    level) share a bullet that names them compactly, instead of ten near-identical bullets."""
    groups: dict[str, list[str]] = {}
    for lev, w in zip(levels, words):
        groups.setdefault(str(w), []).append(str(lev))
    from hetdp_core.reading.meaning import compact_names

    return "\n".join(f"- **{compact_names(levs)}**: {w}" for w, levs in groups.items())


def risk_panel(meaning, state: ScenarioState) -> None:
    """Risk in attack terms beside the posterior: the attack FPR (a scenario field, in the URL), each
    level's TPR bound and maximal advantage in words, the trade-off curves, and "solve from a target
    risk" (the largest ε / smallest Gaussian noise whose attack TPR stays at or below a target)."""
    from hetdp_core.framework.scenario import FPR_GRID
    from hetdp_core.reading.risk import eps_for_tpr, mu_for_tpr
    from hetdp_ui.risk_figures import tradeoff_figure

    st.markdown(
        "**In attack terms.** An attacker tries to tell, from the output, whether a person is the one in "
        "question. Allowed a false-positive rate (people it wrongly flags), no attack can catch more than "
        "the *true-positive rate* below; the *maximal advantage* is the most its hit rate can exceed its "
        "false-alarm rate (0 = a coin toss, 1 = certainty)."
    )
    state.grid("fpr", FPR_GRID, where=st, percent=True)
    st.markdown(
        grouped_bullets(
            [r.level.name for r in meaning.rows],
            [f"{r.risk_in_words}; maximal advantage {r.max_advantage:.3g}" for r in meaning.rows],
        )
    )
    if any((r.level.delta or 0.0) > 0 for r in meaning.rows):
        st.caption(
            "The two answers are different questions. The posterior bound above is a worst case over every output "
            "the release could give, allowed to fail with probability δ; the attack rate here is how often the "
            "best test catches a person at the chosen false-positive rate. For Gaussian noise the worst case is "
            "far from typical (its privacy loss is unbounded but rarely large), so the posterior bound can be "
            "high while the attack rate stays low."
        )
    if st.checkbox("show the trade-off curves", key=f"{state.prefix}_show_tradeoff"):
        chart(tradeoff_figure(meaning), key=f"{state.prefix}_tradeoff_fig")
    fpr = meaning.fpr
    c1, c2 = st.columns([1, 2])
    with c1:
        target = target_tpr_input(f"{state.prefix}_target_tpr", fpr)
    with c2:
        if target <= fpr:
            st.caption(below_fpr(fpr))
        else:
            eps = eps_for_tpr(target_tpr=target, fpr=fpr)
            mu = mu_for_tpr(target_tpr=target, fpr=fpr)
            st.markdown(
                f"To keep every attack at FPR {100 * fpr:g} % below TPR {100 * target:g} %: the most accurate "
                f"pure level is **ε = {eps:.3g}**; Gaussian noise needs a standard deviation of at least "
                f"**{1 / mu:.3g} times the sensitivity** (σ/Δ ≥ {1 / mu:.3g})."
            )
            page_setting(state, target=target, fpr=fpr)


def below_fpr(fpr: float) -> str:
    """Why a target at or below the false-positive rate cannot be solved for, in plain words."""
    return f"Choose a target above the false-positive rate ({100 * fpr:g} %): a blind guess already catches that many."


def page_setting(state: ScenarioState, *, target: float, fpr: float) -> None:
    """The page's own privacy setting solved from the target risk (its spec's ``risk_field``), and a
    button that sets it (a callback: it runs before the widgets of the next run are drawn)."""
    from hetdp_core.framework.registry import get
    from hetdp_core.reading.risk import page_setting_for_tpr

    page = get(state.cls.PAGE)
    if page.PAGE_SPEC.risk_field is None:
        return
    sol = page_setting_for_tpr(page, target_tpr=target, fpr=fpr)
    st.markdown(
        f"On this page: **{sol['label']} = {sol['value']:g}** — an attack is then caught at most "
        f"{100 * sol['tpr']:.3g} % of the time at FPR {100 * fpr:g} %"
        + (f" ({sol['note']})" if sol["note"] else "")
        + "."
    )

    setting_button(state, f"Use {sol['label']} = {sol['value']:g}", "use_risk", ("field", sol["field"], sol["value"]))


#: the buttons that set the page's inputs (their key after the page's prefix: :func:`setting_button`)
SETTING_BUTTONS = ("use_solution", "use_risk")


def setting_button(state: ScenarioState, label: str, name: str, setting: tuple, *, where=None) -> None:
    """A button (key ``<prefix>_<name>``, one of :data:`SETTING_BUTTONS`) that sets the page's inputs to
    ``setting``: ``("scenario", query)`` (a solver's answer) or ``("field", name, value)`` (the level a
    target risk needs). An action button (:mod:`hetdp_ui.actions`): the inputs are set before the widgets
    (:func:`apply_pending_settings`, :func:`apply_setting`) — set in a callback alone, they were sent back
    to their old values by a slider moved at the same moment (its rerun carries every widget's value as
    the browser had it)."""
    from hetdp_ui.actions import button

    button(label, key=state.key(name), value=setting, where=where)


def apply_pending_settings(state: ScenarioState) -> None:
    """Before the page's widgets (:func:`hetdp_ui.page.start_page`): the setting of a pending
    :func:`setting_button` click (:func:`apply_setting`)."""
    from hetdp_ui.actions import pending

    for name in SETTING_BUTTONS:
        click = pending(state.key(name))
        if click is not None:
            kind, *what = click.value
            values = state.session_values(state.cls.from_query(what[0])) if kind == "scenario" else {what[0]: what[1]}
            apply_setting(state, click, values)


def apply_setting(state: ScenarioState, click, values: dict) -> None:
    """Set the page's inputs to ``values`` (field → its session value) for a pending click that sets them
    (:func:`setting_button`, *Reset to this step*), before the page's widgets: in every run until one
    that shows them ends; then, for the arrival window (:data:`hetdp_ui.actions.ARRIVAL_WINDOW`), again in
    a run that brings an old value back (a request the browser sent before it had the new ones: a slider
    moved at the same moment) — not in one that changes them anew (the reader moving an input)."""
    if click.before is None:
        click.before = {n: st.session_state.get(state.key(n)) for n in values}
    current = {n: st.session_state.get(state.key(n)) for n in values}
    if click.arrived_at is None or any(current[n] == click.before[n] != v for n, v in values.items()):
        state.apply(values)
        if "preset" in state.params:
            state.mark_custom()
    click.done_when_shown(settle=True)


def solver_button(prefix: str, label: str = "Find the most private setting"):
    """A solver's button (key ``<prefix>_solve``): an action button (:mod:`hetdp_ui.actions`), so a rerun
    that stops the solve — a slider moved meanwhile — solves again instead of losing the click. Returns
    the pending intent for :func:`solver_answer`'s ``clicked``, or None."""
    from hetdp_ui.actions import button

    return button(label, key=f"{prefix}_solve")


def solver_answer(prefix: str, signature: tuple, *, clicked, compute, label: str):
    """A solver's answer that survives reruns: while ``clicked`` (:func:`solver_button`'s pending intent)
    has no answer for ``signature`` (the scenario's query and the solver's inputs), ``compute(progress)``
    runs under a status box with a progress bar (``progress(fraction, text)``: what is being computed);
    its answer — or the InputError that says why there is none — is kept in the session for
    ``signature``, so pinning or unpinning plan A, or any other rerun with the same question, shows it
    again. A pending solve answers the question on screen: it is done when a run that shows its answer
    gets to the page's end, so a run stopped by a changed input leaves the click pending and the next run
    solves for the inputs it has. Returns the answer, or None — where the solver found none, after
    showing its InputError (why, and what to change) in place."""
    store = f"{prefix}_solution"
    if clicked:
        done = clicked.results.get("solved")
        if done is None or done[0] != signature:
            with st.status(label + " …", expanded=True) as status:
                bar = st.progress(0.0, text="starting")

                def progress(fraction: float, text: str) -> None:
                    bar.progress(min(max(float(fraction), 0.0), 1.0), text=text)

                try:
                    answer = compute(progress)
                except InputError as exc:
                    answer = exc
                clicked.results["solved"] = done = (signature, answer)  # kept with the click as it exists
                none = isinstance(answer, InputError)
                status.update(
                    label=label + (": no answer (see below)" if none else ": done"), state="complete", expanded=False
                )
        st.session_state[store] = done
        clicked.done_when_shown()
    saved = st.session_state.get(store)
    answer = saved[1] if saved and saved[0] == signature else None
    if isinstance(answer, InputError):
        show_input_error(answer)
        return None
    return answer


def solver_open(prefix: str) -> bool:
    """Whether a page's accuracy-solver expander should be open: once the reader types a target or
    presses the button (or a solve is pending) it stays open across reruns (an expander opened by hand
    would close again when typing a target reruns the page)."""
    from hetdp_ui.actions import pending

    flag = f"_{prefix}_solver_open"
    if (
        st.session_state.get(f"{prefix}_solve")
        or st.session_state.get(f"{prefix}_target_touched")
        or pending(f"{prefix}_solve")
    ):
        st.session_state[flag] = True
    return bool(st.session_state.get(flag))


#: session key: the keys of the panels (:func:`panel`) a page has drawn, for a test that opens them all
PANELS = "_hetdp_panels"


def panel(label: str, *, key: str, expanded: bool = False, **options):
    """A panel whose content is drawn only while it is open: Streamlit's tracked expander (opening or
    closing it reruns the page; its ``.open`` says which). A page writes ``with box:`` and ``if box.open:``
    around its content. Closed, the content costs nothing — neither the server's script nor the browser,
    which otherwise draws a closed panel's formulas, tables and charts at every rerun, hidden (the stage
    schematic's chart, the formulas' LaTeX). An input drawn inside comes back from the URL while the panel
    is closed (:meth:`hetdp_ui.state.PageState.init`). ``key`` is the session key of its open state (kept in
    :data:`PANELS` too)."""
    st.session_state.setdefault(PANELS, set()).add(key)
    return st.expander(label, expanded=expanded, key=key, on_change="rerun", **options)


#: the URL parameter of a page's chosen tab (:func:`tabs`): a link opens a tab
TAB_PARAM = "tab"
#: session key: the tab the next run's tabs open (a lesson's step names one in its query: :func:`open_tab`)
_OPEN_TAB = "_hetdp_open_tab"


def open_tab(label: str | None) -> None:
    """Open the tab ``label`` when the page draws its tabs in this run (a lesson step's ``tab=``; a label
    the page does not have is ignored)."""
    if label:
        st.session_state[_OPEN_TAB] = label


def tabs(labels, *, key: str) -> list:
    """Tabs of which only the chosen one is drawn: Streamlit's tracked tabs (choosing a tab reruns the
    page; each tab's ``.open`` says whether it is the chosen one). A page writes ``if tab.open:`` and
    ``with tab:`` around a tab's content, so a slider step draws one tab's charts, not every tab's hidden
    ones. An input drawn in a tab comes back from the URL while another tab is shown
    (:meth:`hetdp_ui.state.PageState.init`). ``key`` is the session key of the chosen tab's label.

    The chosen tab is part of the view's link (``tab=<label>``; none for the first tab): a link that names
    a tab — a shared view, a lesson's step — opens it, and choosing another tab writes the address, once
    the page has been read (a run that reads a link writes nothing: :meth:`~hetdp_ui.state.PageState.init`)."""
    labels = list(labels)
    asked = st.query_params.get(TAB_PARAM)
    read = f"_{key}_read"
    # the tabs are drawn at every run of their page, so a missing state means the page was just entered
    arrived = key not in st.session_state
    # the tab the address names: a link without one names the first tab (Back to it from a named tab)
    named = asked if asked in labels else labels[0] if asked is None else None
    if named is not None and (arrived or st.session_state.get(read) != asked):
        st.session_state[key] = named  # a link that names a tab (or Back/Forward to one), news to this session
    st.session_state[read] = asked
    pending = st.session_state.pop(_OPEN_TAB, None)
    if pending in labels:
        st.session_state[key] = pending
    out = list(st.tabs(labels, key=key, on_change="rerun"))
    chosen = st.session_state.get(key, labels[0])
    want = None if chosen == labels[0] else chosen
    if not arrived and want != asked:
        if want is None:
            del st.query_params[TAB_PARAM]
        else:
            st.query_params[TAB_PARAM] = want
        st.session_state[read] = want
    return out


@contextlib.contextmanager
def formulas(page: str, title: str = "Formulas behind the curves"):
    """The page's formulas, in a panel (:func:`panel`) that opens with the link to its documentation
    topic; yields whether it is open (``with ui.formulas(...) as shown: if shown: st.latex(...)``): closed,
    its LaTeX is neither sent nor typeset at every rerun."""
    from hetdp_ui.nav import doc_link

    box = panel(title, key=f"{page}_formulas_open")
    with box:
        if box.open:
            doc_link(page)
        yield bool(box.open)


def plan_table(numbers_a: dict, numbers_b: dict, key: str) -> None:
    """The A/B table: each guarantee and accuracy figure side by side with the difference."""
    from hetdp_core.reading.compare import compare

    table = compare(numbers_a, numbers_b)
    st.markdown(
        "**Plan A (pinned) vs plan B (current view)** — every guarantee and accuracy figure, "
        "with the difference B − A; figures overlay plan A dotted."
    )
    st.dataframe(table, hide_index=True, width="stretch", key=f"{key}_ab_table")
    csv_download(table, "plan_a_vs_b.csv", f"{key}_dl_ab")
