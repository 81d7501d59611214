"""The lesson panel shown on a scenario page when its URL carries ``lesson=<id>&step=<k>``.

Position lives in the URL (``lesson`` and ``step``, next to the scenario's own parameters), so a
student can send their exact view. Arriving at a step (from the lesson list, next/previous, or a
link without scenario parameters) sets the page to the step's scenario; afterwards the student
moves sliders freely and "Reset to this step" restores it. A link that carries scenario
parameters (a student's own position) keeps them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from urllib.parse import parse_qsl

import streamlit as st
from streamlit.errors import StreamlitAPIException

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lesson_variants import base_variant, variant_step
from hetdp_core.teaching.lessons import Lesson, Step, bundled_lesson, step_scenario
from hetdp_ui import actions, class_panel
from hetdp_ui.folders import LESSON_LIST, LIVE_CLASS, page_for
from hetdp_ui.nav import doc_link, file_of
from hetdp_ui.panels import TAB_PARAM, apply_setting, open_tab
from hetdp_ui.state import ScenarioState

#: session key of the (lesson, step) whose scenario was last applied
AT = "_lesson_at"
#: session key of the lessons previewed from an uploaded file (id → Lesson); their ids start "preview-"
PREVIEWS = "_lesson_previews"
#: note key (:func:`hetdp_ui.actions.keep_note`): the lesson just finished, which the lesson list says
FINISHED = "_lesson_finished"
#: session key of the student's answers: lesson id → step → Attempts
SCORES = "_lesson_scores"
#: the intent of the navigation buttons (Previous, Next or Finish, Go to that step: the last click's)
NAV = "lesson_nav"


@dataclass
class Attempts:
    """One question's answers in this session: how many checks, whether the first was right, whether
    one was right, whether the answer was shown before it was found."""

    tries: int = 0
    first_right: bool = False
    right: bool = False
    shown: bool = False


def scores(lesson_id: str) -> dict[int, Attempts]:
    return st.session_state.setdefault(SCORES, {}).setdefault(lesson_id, {})


def score_line(lesson: Lesson) -> str | None:
    """ "3 of 4 questions right, 2 at the first try" — or None before any answer. A question whose
    answer was looked up (opened, or revealed by the instructor) before it was found counts as looked
    up, not as right."""
    asked = [
        i for i, s in enumerate(lesson.steps, start=1) if s.question is not None and s.question.kind != "your-choice"
    ]
    got = scores(lesson.id)
    if not asked or not any(got.get(i) and got[i].tries for i in asked):
        return None
    right = sum(1 for i in asked if got.get(i) and got[i].right and not got[i].shown)
    first = sum(1 for i in asked if got.get(i) and got[i].first_right and not got[i].shown)
    shown = sum(1 for i in asked if got.get(i) and got[i].shown)
    return f"{right} of {len(asked)} questions right, {first} at the first try" + (
        f"; {shown} answer{'s' if shown > 1 else ''} looked up" if shown else ""
    )


@functools.lru_cache(maxsize=32)
def cached_lesson(lesson_id: str) -> Lesson:
    """A bundled lesson, parsed and validated once per process (the files ship with the app)."""
    return bundled_lesson(lesson_id)


def position() -> tuple[Lesson, int] | None:
    """(lesson, step number) from the URL, or None; a bad value is dropped with a warning naming it."""
    qp = st.query_params
    lesson_id = qp.get("lesson")
    if not lesson_id:
        return None
    try:
        lesson = _preview(lesson_id[:80]) if lesson_id.startswith("preview-") else cached_lesson(lesson_id[:80])
        raw = qp.get("step", "1")
        # ASCII digits only: "²".isdigit() is true but int("²") fails
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 4) or not 1 <= int(raw) <= len(lesson.steps):
            raise InputError(f"step must be a whole number from 1 to {len(lesson.steps)}; got {raw[:20]!r}.")
        return lesson, int(raw)
    except InputError as exc:
        st.warning(f"URL parameter 'lesson' ignored: {exc}")
        for k in ("lesson", "step"):
            if k in qp:
                del qp[k]
        return None


def _preview(lesson_id: str) -> Lesson:
    """A lesson previewed from an uploaded file in this session (the lesson list's preview)."""
    got = st.session_state.get(PREVIEWS, {}).get(lesson_id)
    if got is None:
        raise InputError(
            f"lesson {lesson_id!r} is a preview of an uploaded file, kept only in the session that uploaded it; "
            f"upload the file again on the {page_for(LESSON_LIST).title} page."
        )
    return got


def go(lesson: Lesson, step: int, current_page: str, click: actions.Intent) -> None:
    """Open step ``step`` of ``lesson`` for a pending navigation ``click``: on this page by changing the
    URL (the click arrives when the step is shown: :func:`_follow`), else by switching page."""
    target = lesson.steps[step - 1].page
    if target == current_page:
        st.query_params["lesson"] = lesson.id
        st.query_params["step"] = str(step)
        st.rerun()
    _switch(
        target,
        {"lesson": lesson.id, "step": str(step), **class_panel.carried()},
        f"Step {step} is on the page {target}: open /{target}?lesson={lesson.id}&step={step}",
        click,
    )


def _switch(page: str, query_params: dict, fallback: str, click: actions.Intent) -> None:
    """Open another page of the app for ``click`` (it arrives when that page runs, as for
    :func:`actions.navigate`); a page file run on its own (AppTest) cannot, so it says where and the
    click is done."""
    click.leaving, click.target = True, (page, dict(query_params))
    try:
        st.switch_page(file_of(page), query_params=query_params)
    except StreamlitAPIException:
        st.info(fallback)
        click.finish()


def _follow(click: actions.Intent | None, lesson: Lesson, k: int, page: str, in_class) -> None:
    """The pending click of a navigation button (one intent for the three, :data:`NAV`: the last click's;
    its value is the lesson and step it was clicked on and where it leads): navigate while that step is
    shown — a rerun that stopped the navigation, or a request sent with the old step's address before
    the new one arrived, navigates again (:meth:`actions.Intent.may_go`) — and arrived on any other."""
    if click is None:
        return
    lesson_id, at, to = click.value
    if (lesson_id, at) != (lesson.id, k):
        click.arrived()
    elif click.may_go():
        _finish(lesson, page, in_class, click) if to == "finish" else go(lesson, to, page, click)


def lesson_panel(state: ScenarioState) -> None:
    """Call right after ``state.init()`` and before any widget: applies the step's scenario when the
    student arrives at a step, then shows the step's text, question and navigation."""
    pos = position()
    if pos is None:
        return
    lesson, k = pos
    step = lesson.steps[k - 1]
    page = state.cls.PAGE
    if step.page != page:
        st.info(f"Lesson “{lesson.title}”, step {k}, is on another page ({step.page}).")
        goto = actions.button("Go to that step", key="lesson_goto", value=(lesson.id, k, k), intent=NAV)
        _follow(goto, lesson, k, page, None)
        return
    in_class = class_panel.member(lesson)
    step = _shown_step(step, in_class, k)  # a step with variants: the student's own values (or the written ones)
    marker = (lesson.id, k)
    at = st.session_state.get(AT)
    if at != marker or state.read_url:
        # a URL that carries the scenario's own values (a shared view, a Back to a moved slider) shows
        # them; arriving at a step by its lesson and step alone shows the step's settings
        own_link = state.read_url and any(name in st.query_params for name in state.cls.specs())
        if not own_link:
            state.apply_scenario(step_scenario(step))
            open_tab(dict(parse_qsl(step.query)).get(TAB_PARAM))  # the tab the step's text reads from
        st.session_state[AT] = marker
    reset = actions.pending("lesson_reset")  # *Reset to this step*: set before the widgets (apply_setting)
    if reset is not None and reset.value == marker:
        apply_setting(state, reset, state.session_values(step_scenario(step)))
    elif reset is not None:
        reset.finish()

    with st.container(border=True, key="lesson_panel"):
        st.markdown(f"##### Lesson: {lesson.title}")
        st.caption(
            f"Step {k} of {len(lesson.steps)}{' — ' + step.title if step.title else ''} · follows {lesson.follows}"
        )
        if in_class and not class_panel.banner(*in_class, k):
            in_class = None  # the session was deleted: the lesson goes on alone
        st.markdown(step.text)
        if step.claims.answered_by is not None:  # which table or curve answers the step (exact or simulated)
            st.caption(step.claims.answered_by.sentence())
        if step.question is not None:
            # a fragment: typing an answer or checking it reruns the question only, not the page and
            # its charts (a class of students checking answers costs a fraction of opening the page)
            _question_fragment(lesson, k, in_class, step.question)
        last = k == len(lesson.steps)
        if last:
            line = score_line(lesson)
            asked = sum(s.question is not None and s.question.kind != "your-choice" for s in lesson.steps)
            if line:
                st.success(f"**Last step.** Your answers in this lesson: {line}.", icon=":material/flag:")
            elif asked:
                st.info(f"**Last step.** No answer checked yet in this lesson ({asked} questions).")
        doc_link(page, "This page's notes: formulas, corrections, tests")
        c1, c2, c3 = st.columns(3)
        back = (lesson.id, k, k - 1)  # a navigation click's value: where it was clicked, where it leads
        prev = actions.button(
            "← Previous step", key="lesson_prev", value=back, where=c1, intent=NAV, disabled=k == 1, width="stretch"
        )
        actions.button(  # acted on above, before the page's widgets (a callback's values were sent back)
            "Reset to this step",
            key="lesson_reset",
            value=marker,
            where=c2,
            width="stretch",
            help="put every input back to this step's settings",
        )
        nxt = actions.button(
            "Finish the lesson" if last else "Next step →",
            key="lesson_next",
            value=(lesson.id, k, "finish" if last else k + 1),
            where=c3,
            intent=NAV,
            width="stretch",
            type="primary",
        )
    _follow(nxt or prev, lesson, k, page, in_class)
    if in_class:
        class_panel.poll_box(*in_class[:2], lesson=lesson, watch=True)


def _shown_step(step: Step, in_class, k: int) -> Step:
    """The step as this student sees it: for a question with variants, in a class session their own
    values and answer (:mod:`hetdp_core.teaching.lesson_variants`), else the values of the step's own query."""
    q = step.question
    if q is None or not q.variants:
        return step
    if in_class:
        mine = class_panel.variant(in_class[0], in_class[1], k)
        if mine is not None:
            return mine.step
    return variant_step(step, base_variant(step))


def _finish(lesson: Lesson, page: str, in_class, click: actions.Intent) -> None:
    """*Finish the lesson*: back to the class session's page or to the lessons, with the score."""
    st.session_state.pop(AT, None)
    actions.keep_note(FINISHED, lesson.id)  # said by the lesson list (two of its runs that reach its end)
    if in_class:
        _switch(page_for(LIVE_CLASS).url, {"code": in_class[0], "me": in_class[1]}, "Lesson finished.", click)
    lessons = page_for(LESSON_LIST)
    _switch(lessons.url, {}, f"Lesson finished: open the {lessons.title} page for the next one.", click)


def _your_choice(lesson: Lesson, k: int, in_class) -> None:
    """A "your choice" step: a slider and *Send my choice* (recorded in a class session)."""
    q = lesson.steps[k - 1].question
    key = f"lesson_{lesson.id}_{k}"
    st.markdown(f"**Your choice.** {q.prompt}")
    widget = f"{key}_answer"
    given = st.slider(
        "your choice", min_value=q.low, max_value=q.high, value=q.value, step=q.slider_step, key=widget, format="%g"
    )  # shown as its value (1, not 1.00), the same as "Your choice: 1" and the class's view
    # an action button (:mod:`hetdp_ui.actions`): the choice on the slider when clicked is what is sent
    sent = actions.button(
        "Send my choice" if in_class else "Keep my choice", key=f"{key}_check", value=lambda: _given(widget)
    )
    if sent:
        choice = given if sent.value is None else sent.value
        if in_class:
            class_panel.record(in_class[0], in_class[1], widget, k, choice)  # stored once however often redone
        else:
            st.session_state[f"{widget}_kept_choice"] = choice
        sent.finish()
    if in_class:
        class_panel.record_status(widget, given)
    elif st.session_state.get(f"{widget}_kept_choice") is not None:
        st.success(
            f"Your choice: {st.session_state[f'{widget}_kept_choice']:g}. "
            + (q.explain or "There is no right answer: compare it with the meaning panel below the chart.")
        )


def _feedback(q, given, result) -> None:
    """The verdict of the last check while the answer shown is the one checked: right (with the
    explanation), or wrong — with the explanation of the known mistake it matches, at once."""
    if result is None or result[0] != given:
        return
    if result[1]:
        st.success("Correct. " + q.explain if q.explain else "Correct.")
    elif given is None:
        st.info("Enter an answer first.")
    else:
        _, mis = q.classify(given)
        if mis is not None:
            st.warning(
                f"Not quite — a common mistake. {q.misconceptions[mis - 1].explain} Try again.",
                icon=":material/lightbulb:",
            )
        else:
            st.warning("Not quite." + (f" Hint: {q.hint}" if q.hint else " Try again."))


def _looked_up(lesson_id: str, k: int, widget: str) -> None:
    """The answer of step ``k`` is in front of the student (opened, or revealed by the instructor): before
    it was found, the score counts it as looked up, and a class session records it with the next check."""
    if not scores(lesson_id).get(k, Attempts()).right:
        scores(lesson_id).setdefault(k, Attempts()).shown = True
        st.session_state[f"{widget}_looked"] = True


def _question(lesson: Lesson, k: int, in_class=None, q=None) -> None:
    """The step's question (``q``: as this student sees it — their own variant — default as written)."""
    q = q or lesson.steps[k - 1].question
    if q.kind == "your-choice":
        _your_choice(lesson, k, in_class)
        return
    key = f"lesson_{lesson.id}_{k}"
    st.markdown(f"**Question.** {q.prompt}")
    # the typed answer lives in a plain session key too: Streamlit forgets a widget's value when a run
    # does not draw it (a side trip to another page), the session key stays
    widget, kept = f"{key}_answer", f"{key}_kept"
    if widget not in st.session_state and kept in st.session_state:
        st.session_state[widget] = st.session_state[kept]

    def keep() -> None:
        st.session_state[kept] = st.session_state[widget]

    if in_class and k in st.session_state.get(class_panel.REVEALED, ()):  # the instructor revealed it
        _looked_up(lesson.id, k, widget)
    # the same arguments on every run (another value would make it another widget); None starts empty
    if q.kind == "number":
        given = st.number_input("your answer", value=None, step=0.001, format="%.4f", key=widget, on_change=keep)
    else:
        given = st.radio("your answer", q.choices, index=None, key=widget, horizontal=True, on_change=keep)
    # an action button (:mod:`hetdp_ui.actions`): the answer in the box when clicked is the one checked,
    # counted once and recorded once however many reruns stop the check halfway
    check = actions.button("Check my answer", key=f"{key}_check", value=lambda: _given(widget))
    if check:
        answer = check.value
        ok = q.accepts(answer)
        if answer is not None:
            check.once(lambda: _count(lesson.id, k, ok))
            if in_class:
                class_panel.record(in_class[0], in_class[1], widget, k, answer)
        st.session_state[f"{key}_result"] = (answer, ok)
        check.finish()
        if answer is not None and k == len(lesson.steps):  # the last step's score line lies outside this fragment
            st.rerun(scope="app")
    if in_class:
        class_panel.record_status(widget, given)
    _feedback(q, given, st.session_state.get(f"{key}_result"))
    # one expander per step (its label names the step): an answer opened on one step is not open on
    # the next (Streamlit keeps an expander's open state while its identity stays the same)
    # the answer is drawn only while its expander is open (Streamlit's tracked expander): opening it
    # is what counts as looking the answer up in the score
    box = st.expander(f"Show the answer to step {k}", key=f"{key}_reveal", on_change="rerun")
    if box.open:
        _looked_up(lesson.id, k, widget)
        shown = f"{q.answer:g} (± {q.tolerance:g})" if q.kind == "number" else str(q.answer)
        box.markdown(
            f"**{shown}**"
            + (f" — {q.explain}" if q.explain else "")
            + (
                "\n\nThe answer is the value at this step's settings; use *Reset to this step* if you "
                "moved the sliders."
            )
        )


def _given(widget: str):
    """The answer in the answer widget ``widget`` (read when *Check* is clicked: its callback)."""
    return st.session_state.get(widget)


def _count(lesson_id: str, k: int, ok: bool) -> None:
    """One checked answer to step ``k`` in the score (every Streamlit call before the count changes)."""
    got = scores(lesson_id).setdefault(k, Attempts())
    got.tries += 1
    got.first_right = got.first_right or (got.tries == 1 and ok)
    got.right = got.right or ok


_question_fragment = st.fragment(_question)
