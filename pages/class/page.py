"""Class: teach a lesson live — a session students join with a code, the instructor's live view of
every step's answers, and a private class poll (randomized response)."""

import io
import os

import streamlit as st

from hetdp_core.lessons import lesson_ids
from hetdp_core.poll import MAX_POLL_EPS, MIN_POLL_EPS
from hetdp_core.scenario import InputError
from hetdp_ui import actions, class_panel
from hetdp_ui.classroom.store import export_csv, links
from hetdp_ui.common import app_base_url, chart
from hetdp_ui.lesson_panel import cached_lesson
from hetdp_ui.nav import doc_link, sidebar_nav

st.set_page_config(page_title="Class — hetdp", page_icon="🔒", layout="wide", initial_sidebar_state="auto")
sidebar_nav()

#: seconds between refreshes of the live view (a fragment: only it reruns, the page does not reload)
REFRESH = 3
#: joins one browser session may make (a flood from one client stops here; the session cap stops the rest)
MAX_JOINS = 5
#: "oidc": students join with the department's login (Streamlit's st.login, configured in
#: .streamlit/secrets.toml [auth]) and their login name instead of a display name they type
LOGIN = os.environ.get("HETDP_CLASS_LOGIN", "").strip().lower() == "oidc"

qp = st.query_params
code, key, me = qp.get("code"), qp.get("key"), qp.get("me")


def fail(exc: Exception) -> None:
    """One line for a database that cannot be used, then nothing more of the page."""
    from hetdp_ui.classroom.db import SchemaMismatch

    if isinstance(exc, SchemaMismatch):
        st.error(f"The class database cannot be used: {exc}", icon=":material/cloud_off:")
    else:
        st.error(
            f"The class database is not reachable right now ({exc}). Nothing was stored; reload the page in a moment.",
            icon=":material/cloud_off:",
        )
    st.stop()


try:
    store = class_panel.store()
except class_panel.unavailable_types() as exc:
    fail(exc)


def qr_png(url: str) -> bytes:
    """A QR code of ``url`` (segno: offline, no image library)."""
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=8, border=2)
    return buf.getvalue()


def landing() -> None:
    st.title("Class")
    st.markdown(
        "**What is here?** Teach a lesson live. Start a session: students open its link (or type its code), "
        "choose a display name and walk through the lesson on their own devices; every *Check my answer* "
        "reaches your live view — how many reached each step, who got it right at the first try, the "
        "spread of answers, the common mistakes — and you can ask the class a sensitive yes/no question "
        "that is randomized on the server before it is stored."
    )
    left, right = st.columns(2)
    with left.container(border=True):
        st.subheader("Start a session (instructor)")
        ids = lesson_ids()
        teach = qp.get("teach")
        lesson_id = st.selectbox(
            "lesson",
            ids,
            index=ids.index(teach) if teach in ids else 0,
            format_func=lambda i: cached_lesson(i).title,
            key="class_lesson",
        )
        # an action button (hetdp_ui.actions): one session per click, done when its view opens (instructor_view)
        start = actions.button("Start the session", type="primary", key="class_start", icon=":material/play_arrow:")
        if start and start.may_go():  # (a request from before the new address came back: go again)
            st.session_state.pop("_class_deleted", None)
            try:
                started = start.once(lambda: store.start(lesson_id), "started")
            except class_panel.unavailable_types() as exc:
                start.finish()
                fail(exc)
            st.query_params.clear()
            st.query_params.update({"code": started.code, "key": started.key})
            st.rerun()
    with right.container(border=True):
        st.subheader("Join a session (student)")
        join_form(None)
    doc_link("Class", "How a class session works, what is stored and for how long")


#: the session key of the last *Join*'s refusal (shown until the next join)
JOIN_ERROR = "_class_join_error"


def join_form(fixed_code: str | None) -> None:
    c = fixed_code or st.text_input("code on the projector", max_chars=12, key="class_code", placeholder="e.g. K7QX2M")
    if LOGIN:
        if not st.user.get("is_logged_in", False):
            st.button("Log in to join", key="class_login", on_click=st.login, icon=":material/login:")
            return
        name = str(st.user.get("name") or st.user.get("email") or "")
        st.markdown(f"You join as **{name}** (your login).")
    else:
        name = st.text_input(
            "your display name (the class sees it; no account needed)", max_chars=200, key="class_name"
        )
    # an action button (hetdp_ui.actions): one student per click, done when the lesson's page opens
    join = actions.button("Join", type="primary", key="class_join", icon=":material/login:")
    if join:
        joins = st.session_state.get("_class_joins", 0)
        st.session_state.pop("_class_deleted", None)
        try:
            if joins >= MAX_JOINS and not join.results:
                raise InputError(f"this browser joined {joins} times already; go on with the link of your last join.")
            info, token = join.once(lambda: (store.session(c), store.join(c, name)), "joined")
        except InputError as exc:
            st.session_state[JOIN_ERROR] = str(exc)
            join.finish()
        except class_panel.unavailable_types() as exc:
            st.session_state[JOIN_ERROR] = f"Not joined — the class database did not answer ({exc}). Try again."
            join.finish()
        else:
            st.session_state.pop(JOIN_ERROR, None)
            join.once(lambda: st.session_state.update(_class_joins=joins + 1), "counted")
            lesson = cached_lesson(info.lesson_id)
            actions.navigate(
                join, lesson.steps[0].page, {"lesson": lesson.id, "step": "1", "class": info.code, "me": token}
            )
    if st.session_state.get(JOIN_ERROR):
        st.error(st.session_state[JOIN_ERROR])


def session_or_error(read):
    """``read()`` (the session as the link names it), or None after the one-line reason (a wrong or
    deleted code, a forged token, a wrong key) under the page's plain title."""
    try:
        return read()
    except InputError as exc:
        st.title("Class")
        st.error(str(exc))
        return None


def student_home() -> None:
    found = session_or_error(lambda: (store.session(code), store.student(code, me)))
    if found is None:
        return
    info, student = found
    lesson = cached_lesson(info.lesson_id)
    st.title(f"Class session {info.code}")
    st.markdown(f"You are **{student.name}** in “{lesson.title}”.")
    if info.closed:
        st.info("This session is closed: your answers are kept, new ones are not recorded.")
    class_panel.poll_box(code, me)
    step = min(max(student.furthest_step, 1), len(lesson.steps))
    go_on = actions.button(f"Continue the lesson at step {step}", type="primary", key="class_continue")
    if go_on:
        query = {"lesson": lesson.id, "step": str(step), "class": info.code, "me": me}
        actions.navigate(go_on, lesson.steps[step - 1].page, query)


def join_page() -> None:
    st.title("Join the class")
    try:
        info = store.session(code)
    except InputError as exc:
        st.error(str(exc))
        return
    if info.closed:
        st.error(f"Class session {info.code} is closed; ask your instructor to reopen it.")
        return
    st.markdown(f"Lesson: **{cached_lesson(info.lesson_id).title}** — session {info.code}.")
    join_form(info.code)


def step_block(s) -> None:
    from hetdp_ui.folders import figures_of

    figures = figures_of("class")  # this folder's figures.py
    q = s.question
    head = f"Step {s.step}" + (f" — {s.title}" if s.title else "")
    with st.container(border=True):
        st.markdown(f"**{head}**")
        c1, c2, c3 = st.columns(3)
        c1.metric("reached", s.reached)
        c2.metric("answered", s.answered if q else "—")
        if q is not None and q.kind != "your-choice":
            c3.metric("right at the first try", f"{s.first_right / s.answered:.0%}" if s.answered else "—")
        if q is None:
            st.caption("No question on this step.")
            return
        st.caption(q.prompt)
        if s.answered and q.kind in ("number", "your-choice"):
            chart(figures.numbers_figure(s), key=f"class_fig_{s.step}")
        elif s.answered:
            chart(figures.choices_figure(s), key=f"class_fig_{s.step}")
        if q.misconceptions:
            st.markdown(
                "\n".join(
                    f"- **M{j}** ({m.describe()}): **{n}** student{'s' if n != 1 else ''} — {m.explain}"
                    for j, (m, n) in enumerate(zip(q.misconceptions, s.misconceptions), start=1)
                )
            )
        if q.kind == "your-choice" and q.context == "epsilon" and s.numbers:
            import numpy as np

            from hetdp_core.deployments import place
            from hetdp_ui.common import deployments_strip_section

            median = float(np.median(s.numbers))
            deployments_strip_section(
                (place(median, who="the class's median choice"),), key=f"class_ctx_{s.step}", what="the class's median"
            )


def leave_deleted(gone: actions.Intent, deleted_code: str) -> None:
    """After *Delete everything* (``gone``, its deletion done): the page leaves the session's address and
    says so; the click arrives when a run without the address comes (the dispatch at the end: a request
    sent with the old address just after comes back here)."""
    st.session_state["_class_deleted"] = deleted_code
    st.query_params.clear()
    st.rerun()


def poll_section() -> None:
    from hetdp_ui.folders import figures_of

    poll_figure = figures_of("class").poll_figure  # this folder's figures.py
    got = store.poll_estimate(code)
    if got is not None:
        poll, est = got
        hist = st.session_state.setdefault(("_class_poll_hist", poll.id), [])
        if not hist or hist[-1].n != est.n:
            hist.append(est)
        st.markdown(f"**{'Open' if poll.open else 'Closed'} poll (ε = {poll.eps:g}):** {poll.question}")
        if est.n:
            shown = min(1.0, max(0.0, est.estimate))
            c1, c2, c3 = st.columns(3)
            c1.metric("reports", est.n)
            c2.metric("share of “yes” sent", f"{est.raw_share:.0%}")
            c3.metric("estimated true share", f"{shown:.0%}", help=f"95 % interval {est.low:.0%} – {est.high:.0%}")
            outside = (
                f" The unbiased estimate itself is {est.estimate:.0%}: outside 0–100 % because with "
                f"{est.n} report{'s' if est.n > 1 else ''} the coin's noise dominates; it settles as reports arrive."
                if shown != est.estimate
                else ""
            )
            st.caption(
                f"Estimated true share of “yes”: {shown:.1%}, 95 % interval {est.low:.1%} – {est.high:.1%} "
                f"(randomized-response estimate; the sent share is pulled towards 50 % by the coin).{outside}"
            )
            chart(poll_figure(tuple(hist)), key="class_poll_fig")
        else:
            st.caption("No report yet.")
        poll_meaning(poll.eps)


def poll_meaning(eps: float) -> None:
    """What the poll's ε means for one student, in the words and numbers of every page's meaning panel:
    an attacker's belief, an attack's success at a 1 % false-positive rate, real deployments' levels."""
    from hetdp_core.deployments import place
    from hetdp_ui.common import deployments_strip_section

    row = class_panel.poll_meaning(eps)
    st.markdown(
        f"**What ε = {eps:g} means for one student.** Seeing what they sent, {row.in_words} that their "
        f"true answer is yes (the same for no). As an attack: {row.risk_in_words}."
    )
    with st.expander(f"Where ε = {eps:g} lies among real deployments"):
        deployments_strip_section((place(eps, who="this poll"),), key="class_poll_ctx", what="the poll's ε")


def _ask_class() -> None:
    """``on_click`` of "Ask the class": stores the poll before the page reruns (a callback runs first, so
    no rerun that follows can lose the click), with the confirmation or the reason it was refused."""
    try:
        poll = store.open_poll(code, question=st.session_state["class_poll_q"], eps=st.session_state["class_poll_eps"])
    except InputError as exc:
        st.session_state[POLL_MESSAGE] = ("error", str(exc))
    else:
        st.session_state[POLL_MESSAGE] = ("ok", f"Asked the class (ε = {poll.eps:g}): {poll.question}")


def _close_poll() -> None:
    """``on_click`` of "Close the poll" (stored before the page reruns, as :func:`_ask_class`)."""
    store.close_poll(code)
    st.session_state[POLL_MESSAGE] = ("closed", "Poll closed: no new reports are taken.")


#: the session key of the last poll action's confirmation (shown until the next one)
POLL_MESSAGE = "_class_poll_message"


def poll_controls() -> None:
    """The instructor's private yes/no poll: a question and its ε sent together (a form: what was typed
    is what is asked, whatever else reruns meanwhile), stored by the button's callback, a confirmation
    that stays until the next poll action, and closing."""
    with st.expander("Ask the class a private yes/no question", icon=":material/how_to_vote:"):
        st.markdown(
            "Each student's answer is randomized **before it is stored** (randomized response at the level "
            "you choose): the true answer is never written anywhere. The live view estimates the true share. "
            f"Students see a new poll on their page within {class_panel.POLL_REFRESH} s, without reloading."
        )
        with st.form("class_poll_form", border=False):
            st.text_input("question", max_chars=300, key="class_poll_q", placeholder="Have you ever reused a password?")
            st.slider("ε of the poll", MIN_POLL_EPS, MAX_POLL_EPS, 1.0, 0.05, key="class_poll_eps")
            st.form_submit_button("Ask the class", key="class_poll_open", type="primary", on_click=_ask_class)
        kind, text = st.session_state.get(POLL_MESSAGE, (None, ""))
        if kind == "error":
            st.error(text)
        elif kind is not None:
            st.success(text, icon=":material/lock:" if kind == "closed" else ":material/check:")
        st.button("Close the poll", key="class_poll_close", on_click=_close_poll)


def instructor_view() -> None:
    info = session_or_error(lambda: store.authorize(code, key))
    if info is None:
        return
    started = actions.pending("class_start")
    if started and "started" in started.results and started.results["started"].code == info.code:
        started.arrived()  # the session the click started is open (hetdp_ui.actions: done after a while)
    lesson = cached_lesson(info.lesson_id)
    base = app_base_url("Class")
    link = links(base, info.code)["student"]
    st.title(f"Class session {info.code}")
    st.markdown(f"Lesson: **{lesson.title}** · {'**closed**' if info.closed else 'open'}")
    left, right = st.columns([2, 1])
    with left:
        st.markdown(f"Students open **{link}** or type the code **{info.code}** on the Class page.")
        st.code(link, language=None)
        st.caption(
            "This page's own address holds your instructor key: keep it private (only its hash is stored; "
            "lose it and the live view is lost — `hetdp class export` still works on the server)."
        )
        c1, c2, c3 = st.columns(3)
        # action buttons (hetdp_ui.actions): closing and reopening are the same however often redone; a click
        # whose effect is already the session's state is done
        already = actions.pending("class_close" if info.closed else "class_reopen")
        if already:
            already.finish()
        if info.closed:
            reopen = actions.button("Reopen", key="class_reopen", where=c1, icon=":material/lock_open:")
            if reopen:
                store.reopen(code)
                reopen.finish()
                st.rerun()
        else:
            close = actions.button("Close (no new answers)", key="class_close", where=c1, icon=":material/lock:")
            if close:
                store.close(code)
                close.finish()
                st.rerun()
        c2.download_button(
            "Export answers (CSV)",
            data=lambda: export_csv(store.export_rows(code)),
            file_name=f"class-{info.code}.csv",
            mime="text/csv",
            key="class_export",
            icon=":material/download:",
        )
        with c3.popover("Delete the session", icon=":material/delete:"):
            st.markdown("Deletes the session, its students, answers and polls. This cannot be undone.")
            gone = actions.button("Delete everything", type="primary", key="class_delete")
            if gone:
                gone.once(lambda: store.delete(code), "deleted")
                leave_deleted(gone, info.code)
    right.image(qr_png(link), caption=f"Join: {info.code}", width=220)

    poll_controls()

    @st.fragment(run_every=REFRESH)
    def live() -> None:
        try:
            stats = store.step_stats(code)
            counts = store.counts(code)
        except InputError as exc:  # deleted from another tab or the CLI
            st.error(str(exc))
            return
        except class_panel.unavailable_types() as exc:
            st.warning(f"Live view paused: {exc}. It retries every {REFRESH} s.")
            return
        st.subheader("Live")
        st.caption(
            f"{counts['students']} students joined · {counts['answers']} answers recorded · refreshes every "
            f"{REFRESH} s. Histograms and counts use each student's first answer; misconceptions count students "
            "who gave one at any attempt."
        )
        poll_section()
        for s in stats:
            step_block(s)

    live()


deleted = st.session_state.get("_class_deleted")  # said until a session is started or joined: a rerun keeps it
if deleted and not code:
    st.success(f"Class session {deleted} and everything stored about it were deleted.")
gone = actions.pending("class_delete")
if gone and gone.results and not code:
    gone.arrived()  # deleted, and this run is without its address
try:
    if gone and gone.results and code and gone.may_go():  # deleted; a request with its address came after
        leave_deleted(gone, code)
    if code and key:
        instructor_view()
    elif code and me:
        student_home()
    elif code:
        join_page()
    else:
        landing()
except class_panel.unavailable_types() as exc:
    fail(exc)
actions.run_ended()  # the clicks this run showed done, and the navigations that led here (hetdp_ui.actions)
