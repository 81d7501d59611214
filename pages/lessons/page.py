"""Lessons: step-by-step paths through the pages (data/lessons/*.toml)."""

import hashlib

import streamlit as st

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lessons import MAX_LESSON_BYTES, check_lesson, lesson_ids, parse_lesson
from hetdp_ui import actions
from hetdp_ui.folders import LIVE_CLASS, page_for
from hetdp_ui.lesson_panel import AT, FINISHED, PREVIEWS, cached_lesson, score_line
from hetdp_ui.nav import doc_link, page_top

page_top("Lessons")  # the title first, painted before the menu
st.session_state.pop(AT, None)  # starting (or restarting) a lesson always opens its step

st.markdown(
    "**What is here?** Short paths through the pages for a course or a reading group. Each step "
    "opens a page with the right settings, explains what to look at and asks a question whose "
    "answer the app computes. Move the sliders freely; *Reset to this step* brings the step's "
    "settings back. Your position is in the page's link: send it to share exactly where you are."
)

# the "Finished" line: a note, said until two runs of this page that drew it reach its end (hetdp_ui.actions)
finished = actions.note(FINISHED)
if finished:
    done = st.session_state.get(PREVIEWS, {}).get(finished) or (
        cached_lesson(finished) if finished in lesson_ids() else None
    )
    if done is not None:
        line = score_line(done)
        st.success(f"Finished “{done.title}”" + (f": {line}." if line else "."), icon=":material/flag:")

for lesson in map(cached_lesson, lesson_ids()):
    with st.container(border=True):
        st.subheader(lesson.title)
        line = score_line(lesson)
        if line:
            st.caption(f"Your answers so far: {line}.")
        st.caption(f"Follows {lesson.follows}")
        if lesson.summary:
            st.markdown(lesson.summary)
        st.markdown(
            "\n".join(
                f"{i}. {s.title or s.page.replace('_', ' ')}"
                + (
                    (" — your choice" if s.question.kind == "your-choice" else " — with a question")
                    if s.question
                    else ""
                )
                for i, s in enumerate(lesson.steps, start=1)
            )
        )
        c1, c2 = st.columns([3, 2])
        # action buttons (hetdp_ui.actions): a pending click opens its page on the next run that gets here
        start = actions.button(
            f"Start: {lesson.title}", key=f"start_{lesson.id}", where=c1, type="primary", icon=":material/play_arrow:"
        )
        if start:
            actions.navigate(start, lesson.steps[0].page, {"lesson": lesson.id, "step": "1"})
        teach = actions.button(
            "Teach it live to a class",
            key=f"teach_{lesson.id}",
            where=c2,
            icon=":material/groups:",
            help="start a class session: students join with a code, you see their answers live",
        )
        if teach:
            actions.navigate(teach, page_for(LIVE_CLASS).url, {"teach": lesson.id})

st.subheader("Write your own")
st.markdown(
    "A lesson is a short TOML file in `data/lessons/`: a title, the lecture or paper it follows, and "
    "steps (a page, its settings as a query string, a text, and optionally a question with its answer "
    "and a hint). No Python is needed. `hetdp lesson check FILE` validates it and checks every answer "
    "against the core; `make test` does the same for every bundled lesson."
)
doc_link("lessons", "The lesson file format")

with st.expander("Preview a lesson file (for instructors)", icon=":material/preview:"):
    st.markdown(
        "Upload a lesson file to check it as `hetdp lesson check` does — its schema, every step's "
        "settings, and every answer against the core — and to walk through it as a student would. "
        "The preview lives in this browser session only; to share a lesson, add it to `data/lessons/`."
    )
    up = st.file_uploader("lesson file (.toml)", type=["toml"], key="lesson_preview_file")
    if up is not None:
        raw = up.getvalue()
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in up.name.rsplit(".", 1)[0].lower())[:40]
        lesson_id = f"preview-{hashlib.sha256(raw).hexdigest()[:8]}-{stem or 'lesson'}"[:60]
        try:
            if len(raw) > MAX_LESSON_BYTES:
                raise InputError(f"the file is {len(raw)} bytes; a lesson is at most {MAX_LESSON_BYTES}.")
            preview = parse_lesson(raw, id=lesson_id)
            with st.status("Checking every answer against the core…", expanded=False) as status:
                checks = check_lesson(preview)
                status.update(label="Checked every step", state="complete")
        except InputError as exc:
            st.error(f"This lesson file cannot be used: {exc}")
        else:
            bad = [c for c in checks if c.status == "wrong"]
            (st.warning if bad else st.success)(
                f"“{preview.title}”: {len(checks)} steps, {sum(c.status == 'ok' for c in checks)} answers agree "
                "with the core" + (f", **{len(bad)} disagree**" if bad else "") + "."
            )
            st.dataframe(
                [{"step": c.step, "page": c.page, "check": c.status, "what the core says": c.message} for c in checks],
                hide_index=True,
            )
            st.session_state.setdefault(PREVIEWS, {})[lesson_id] = preview
            walk = actions.button("Walk through the preview", key="lesson_preview_start", icon=":material/play_arrow:")
            if walk:
                actions.navigate(walk, preview.steps[0].page, {"lesson": lesson_id, "step": "1"})
actions.run_ended()  # the navigations that led here are done, the Finished line said once more (hetdp_ui.actions)
