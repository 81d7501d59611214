"""Lessons: step-by-step paths through the pages (data/lessons/*.toml)."""

import streamlit as st

from hetdp_core.lessons import lesson_ids
from hetdp_ui.lesson_panel import AT, cached_lesson
from hetdp_ui.nav import doc_link, open_page, sidebar_nav

st.set_page_config(
    page_title="Lessons — hetdp", page_icon="🔒", layout="wide", initial_sidebar_state="auto"
)  # an emoji icon is inlined: no font server
sidebar_nav()
st.session_state.pop(AT, None)  # starting (or restarting) a lesson always opens its step

st.title("Lessons")
st.markdown(
    "**What is here?** Short paths through the pages for a course or a reading group. Each step "
    "opens a page with the right settings, explains what to look at and asks a question whose "
    "answer the app computes. Move the sliders freely; *Reset to this step* brings the step's "
    "settings back. Your position is in the page's link: send it to share exactly where you are."
)

for lesson in map(cached_lesson, lesson_ids()):
    with st.container(border=True):
        st.subheader(lesson.title)
        st.caption(f"Follows {lesson.follows}")
        if lesson.summary:
            st.markdown(lesson.summary)
        st.markdown(
            "\n".join(
                f"{i}. {s.title or s.page.replace('_', ' ')}" + (" — with a question" if s.question else "")
                for i, s in enumerate(lesson.steps, start=1)
            )
        )
        if st.button(f"Start: {lesson.title}", key=f"start_{lesson.id}", type="primary", icon=":material/play_arrow:"):
            open_page(lesson.steps[0].page, {"lesson": lesson.id, "step": "1"})

st.subheader("Write your own")
st.markdown(
    "A lesson is a short TOML file in `data/lessons/`: a title, the lecture or paper it follows, and "
    "steps (a page, its settings as a query string, a text, and optionally a question with its answer "
    "and a hint). No Python is needed. `hetdp lesson check FILE` validates it and checks every answer "
    "against the core; `make test` does the same for every bundled lesson."
)
doc_link("lessons", "The lesson file format")
