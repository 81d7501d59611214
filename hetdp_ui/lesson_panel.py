"""The lesson panel shown on a scenario page when its URL carries ``lesson=<id>&step=<k>``.

Position lives in the URL (``lesson`` and ``step``, next to the scenario's own parameters), so a
student can send their exact view. Arriving at a step (from the Lessons page, next/previous, or a
link without scenario parameters) sets the page to the step's scenario; afterwards the student
moves sliders freely and "Reset to this step" restores it. A link that carries scenario
parameters (a student's own position) keeps them.
"""

from __future__ import annotations

import functools

import streamlit as st
from streamlit.errors import StreamlitAPIException

from hetdp_core.lessons import Lesson, bundled_lesson, step_scenario
from hetdp_core.scenario import InputError
from hetdp_ui.common import ScenarioState
from hetdp_ui.nav import file_of

#: session key of the (lesson, step) whose scenario was last applied
AT = "_lesson_at"


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
        lesson = cached_lesson(lesson_id[:80])
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


def go(lesson: Lesson, step: int, current_page: str) -> None:
    """Open step ``step`` of ``lesson``: on this page by changing the URL, else by switching page."""
    target = lesson.steps[step - 1].page
    if target == current_page:
        st.query_params["lesson"] = lesson.id
        st.query_params["step"] = str(step)
        st.rerun()
    _switch(
        target,
        {"lesson": lesson.id, "step": str(step)},
        f"Step {step} is on the page {target}: open /{target}?lesson={lesson.id}&step={step}",
    )


def _switch(page: str, query_params: dict, fallback: str) -> None:
    """Open another page of the app; a page file run on its own (AppTest) cannot, so it says where."""
    try:
        st.switch_page(file_of(page), query_params=query_params)
    except StreamlitAPIException:
        st.info(fallback)


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
        if st.button("Go to that step", key="lesson_goto"):
            go(lesson, k, page)
        return
    marker = (lesson.id, k)
    at = st.session_state.get(AT)
    if at != marker or state.read_url:
        # a URL that carries the scenario's own values (a shared view, a Back to a moved slider) shows
        # them; arriving at a step by its lesson and step alone shows the step's settings
        own_link = state.read_url and any(name in st.query_params for name in state.cls.specs())
        if not own_link:
            state.apply_scenario(step_scenario(step))
        st.session_state[AT] = marker

    with st.container(border=True, key="lesson_panel"):
        st.markdown(f"##### Lesson: {lesson.title}")
        st.caption(
            f"Step {k} of {len(lesson.steps)}{' — ' + step.title if step.title else ''} · follows {lesson.follows}"
        )
        st.markdown(step.text)
        if step.question is not None:
            _question(lesson, k)
        c1, c2, c3 = st.columns(3)
        prev = c1.button("← Previous step", key="lesson_prev", disabled=k == 1, width="stretch")
        c2.button(
            "Reset to this step",
            key="lesson_reset",
            width="stretch",
            help="put every input back to this step's settings",
            on_click=lambda: state.apply_scenario(step_scenario(step)),
        )
        last = k == len(lesson.steps)
        nxt = c3.button(
            "Finish the lesson" if last else "Next step →", key="lesson_next", width="stretch", type="primary"
        )
    if prev:
        go(lesson, k - 1, page)
    if nxt:
        if last:
            st.session_state.pop(AT, None)
            _switch("Lessons", {}, "Lesson finished: open the Lessons page for the next one.")
        else:
            go(lesson, k + 1, page)


def _question(lesson: Lesson, k: int) -> None:
    q = lesson.steps[k - 1].question
    key = f"lesson_{lesson.id}_{k}"
    st.markdown(f"**Question.** {q.prompt}")
    if q.kind == "number":
        given = st.number_input("your answer", value=None, step=0.001, format="%.4f", key=f"{key}_answer")
    else:
        given = st.radio("your answer", q.choices, index=None, key=f"{key}_answer", horizontal=True)
    if st.button("Check my answer", key=f"{key}_check"):
        st.session_state[f"{key}_result"] = (given, q.accepts(given))
    result = st.session_state.get(f"{key}_result")
    if result is not None and result[0] == given:
        if result[1]:
            st.success("Correct. " + q.explain if q.explain else "Correct.")
        elif given is None:
            st.info("Enter an answer first.")
        else:
            st.warning("Not quite." + (f" Hint: {q.hint}" if q.hint else " Try again."))
    # one expander per step (its label names the step): an answer opened on one step is not open on
    # the next (Streamlit keeps an expander's open state while its identity stays the same)
    with st.expander(f"Show the answer to step {k}"):
        shown = f"{q.answer:g} (± {q.tolerance:g})" if q.kind == "number" else str(q.answer)
        st.markdown(
            f"**{shown}**"
            + (f" — {q.explain}" if q.explain else "")
            + (
                "\n\nThe answer is the value at this step's settings; use *Reset to this step* if you "
                "moved the sliders."
            )
        )
