"""Class: teach a lesson live — a session students join with a code, the instructor's live view of
every step's answers, and a private class poll (randomized response)."""

import io
import os
from urllib.parse import parse_qs

import streamlit as st

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lesson_variants import with_ranges
from hetdp_core.teaching.lessons import lesson_ids
from hetdp_core.teaching.poll import MAX_POLL_EPS, MIN_POLL_EPS
from hetdp_ui import actions, class_panel, class_queue
from hetdp_ui.classroom.store import MAX_NAME, export_csv, links
from hetdp_ui.common import app_base_url, chart
from hetdp_ui.folders import LIVE_CLASS, page_for
from hetdp_ui.lesson_panel import cached_lesson
from hetdp_ui.nav import app_link, doc_link, page_top

qp = st.query_params
code, key, me = qp.get("code"), qp.get("key"), qp.get("me")
# the landing page's title first, painted before the menu; a session's title needs the session looked up
page_top("Class", heading=None if code else "Class")

#: seconds between refreshes of the live view (a fragment: only it reruns, the page does not reload)
REFRESH = 3
#: joins one browser session may make (a flood from one client stops here; the session cap stops the rest)
MAX_JOINS = 5
#: "oidc": students join with the department's login (Streamlit's st.login, configured in
#: .streamlit/secrets.toml [auth]) and their login name instead of a display name they type
LOGIN = os.environ.get("HETDP_CLASS_LOGIN", "").strip().lower() == "oidc"
#: the display name's one limit, as the name box states it (the store refuses anything else on Join)
NAME_LIMIT = f"1 to {MAX_NAME} characters"


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
    """The page without a session in its address (its title is drawn first, by the menu)."""
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
        # no max_chars: the box keeps whatever is typed or pasted, and Join says the one limit (MAX_NAME)
        name = st.text_input(f"your display name ({NAME_LIMIT}; the class sees it, no account)", key="class_name")
    class_panel.join_id()  # the click's identity, in the link before the click (see join_now)
    # an action button (hetdp_ui.actions): one student per click, done when the lesson's page opens
    join = actions.button("Join", type="primary", key="class_join", icon=":material/login:")
    if join:
        st.session_state.pop("_class_deleted", None)
        joined = join.once(lambda: join_now(c, name), "joined")
        if joined is None:  # refused: its reason is kept until the next join
            join.finish()
        else:
            info, token = joined
            lesson = cached_lesson(info.lesson_id)
            actions.navigate(
                join, lesson.steps[0].page, {"lesson": lesson.id, "step": "1", "class": info.code, "me": token}
            )
    if st.session_state.get(JOIN_ERROR):
        st.error(st.session_state[JOIN_ERROR])


def join_now(c: str, name: str):
    """*Join*: (the session, the student's token), or None with its one-line reason kept in the session
    (shown under the form until the next join). The click's identity is the link's ``join`` parameter,
    written before the click: a worker that dies during *Join* leaves it in the browser, and the click
    repeated on another worker is the same student (not "name taken"). Works in the script or in a
    button's callback (it reads only the link and the session state); repeated in one browser (a rerun
    that stopped the first), it is the same student too."""
    from hetdp_ui.classroom.store import join_token

    joins = st.session_state.get("_class_joins", 0)
    done = st.session_state.setdefault("_class_joined", set())  # tokens this browser session joined as
    try:
        click = class_panel.join_id()
        again = join_token(click, c, name) in done  # the same click repeated: not a new join
        if joins >= MAX_JOINS and not again:
            raise InputError(f"this browser joined {joins} times already; go on with the link of your last join.")
        info = store.session(c)
        token = store.join(c, name, click=click)
    except InputError as exc:
        st.session_state[JOIN_ERROR] = str(exc)
        return None
    except class_panel.unavailable_types() as exc:
        st.session_state[JOIN_ERROR] = f"Not joined — the class database did not answer ({exc}). Try again."
        return None
    st.session_state.pop(JOIN_ERROR, None)
    if not again:
        done.add(token)
        st.session_state["_class_joins"] = joins + 1
    st.session_state[class_queue.JOINED] = True  # the step it opens is still the join (class_queue)
    return info, token


def session_or_error(read, way_on=None):
    """``read()`` (the session as the link names it), or None after the one-line reason (a wrong or
    deleted code, a forged token, a wrong key) under the page's plain title, and then ``way_on()``: what
    the visitor can do next (type another code, paste the key again) — never a dead end."""
    try:
        return read()
    except InputError as exc:
        st.title("Class")
        st.error(str(exc))
        (way_on or another_code)()
        return None


def another_code() -> None:
    """After a code that names no session (mistyped, or deleted): the join form with a code box, and the
    way to start a session."""
    with st.container(border=True):
        st.subheader("Join a session")
        join_form(None)
    app_link(page_for(LIVE_CLASS).url, "Start a session (instructor)", icon=":material/play_arrow:", query_params={})


def _use_key() -> None:
    """``on_click`` of the instructor-key form: the key typed, or the one in a whole instructor link pasted."""
    raw = " ".join(str(st.session_state.get("class_key_again") or "").split())
    if "key=" in raw:
        raw = parse_qs(raw.split("?", 1)[-1]).get("key", [""])[0]
    if raw:
        st.query_params["key"] = raw[:200]


def key_again() -> None:
    """After a wrong instructor key: a box for the right one (or the instructor link), the student link."""
    with st.form("class_key_form"):
        st.text_input("instructor key — or paste the whole instructor link", key="class_key_again", type="password")
        st.form_submit_button("Open the live view", on_click=_use_key, icon=":material/key:")
    app_link(
        page_for(LIVE_CLASS).url, "Join this session as a student", icon=":material/login:", query_params={"code": code}
    )


def student_home() -> None:
    info = session_or_error(lambda: store.session(code))
    if info is None:
        return
    student = session_or_error(lambda: store.student(code, me), lambda: join_page(info))
    if student is None:
        return
    lesson = cached_lesson(info.lesson_id)
    st.title(f"Class session {info.code}")
    st.markdown(f"You are **{student.name}** in “{lesson.title}”.")
    st.session_state[class_panel.SHOWN] = "closed" if info.closed else "open"
    if info.closed:
        st.info("This session is closed: your answers are kept, new ones are not recorded.")
    class_panel.poll_box(code, me, lesson=lesson, watch=True)
    step = min(max(student.furthest_step, 1), len(lesson.steps))
    go_on = actions.button(f"Continue the lesson at step {step}", type="primary", key="class_continue")
    if go_on:
        query = {"lesson": lesson.id, "step": str(step), "class": info.code, "me": me}
        actions.navigate(go_on, lesson.steps[step - 1].page, query)


def join_page(info=None) -> None:
    if info is None:
        info = session_or_error(lambda: store.session(code))
        if info is None:
            return
        st.title("Join the class")
    if info.closed:
        st.error(f"Class session {info.code} is closed; ask your instructor to reopen it.")
        another_code()
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
        st.caption(with_ranges(q.prompt, q.variants))  # a step with variants: "ρ = 0.3–0.7", each their own
        if q.variants:
            st.caption(
                ":material/shuffle: Each student has their own values ("
                + "; ".join(f"{p.name} from {min(p.values):g} to {max(p.values):g}" for p in q.variants)
                + ") and their own answer, computed by the core: the chart shows each first answer's error "
                "relative to the student's own answer, so a copied number stands out."
            )
        if s.numbers and q.kind in ("number", "your-choice"):
            chart(figures.numbers_figure(s), key=f"class_fig_{s.step}")
        elif s.answered and q.kind == "choice":
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

            from hetdp_core.reading.deployments import place
            from hetdp_ui.common import deployments_strip_section

            median = float(np.median(s.numbers))
            deployments_strip_section(
                (place(median, who="the class's median choice"),), key=f"class_ctx_{s.step}", what="the class's median"
            )
        reveal_control(s)


def _reveal(step: int) -> None:
    """``on_click`` of *Reveal to the class*: stored before the page reruns (students' pages show it
    within their live box's refresh)."""
    try:
        store.reveal(code, step)
    except (InputError, *class_panel.unavailable_types()) as exc:
        st.session_state["_class_reveal_failed"] = (step, f"Not revealed: {exc}")


def reveal_control(s) -> None:
    """*Reveal to the class*: the step's answer and explanation pushed to every student's screen."""
    failed = st.session_state.get("_class_reveal_failed")
    if failed and failed[0] == s.step:
        st.error(failed[1])
    if s.revealed:
        st.caption(
            f":material/campaign: Revealed to the class: every student's page shows step {s.step}'s answer "
            "(each student's own, where they have their own values) and its explanation."
        )
    else:
        st.button(
            "Reveal to the class",
            key=f"class_reveal_{s.step}",
            icon=":material/campaign:",
            on_click=_reveal,
            args=(s.step,),
            help=f"show step {s.step}'s answer and explanation on every student's page (within "
            f"{class_panel.POLL_REFRESH} s, without a reload)",
        )


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    m, sec = divmod(int(seconds), 60)
    return f"{m} min {sec:02d} s" if m else f"{sec} s"


def progress_table(rows, lesson) -> None:
    """Who is where: per student the furthest step reached, time on it, attempts at its question, right
    or not, looked up; stuck students first (the rule is said under the table, the count computed)."""
    import pandas as pd

    from hetdp_ui.classroom.progress import STUCK_ATTEMPTS, STUCK_SECONDS

    st.subheader("Who is where")
    if not rows:
        st.caption("No student has joined yet.")
        return
    stuck = sum(r.stuck for r in rows)
    st.caption(
        f"**{stuck} of {len(rows)} student{'s' if len(rows) != 1 else ''} look stuck**: at least {STUCK_ATTEMPTS} "
        f"wrong attempts at the question of the step they reached and no right one, or {STUCK_SECONDS // 60} min "
        "on it without one. Stuck first, then the longest on their step."
    )

    def at(r) -> str:
        if r.step < 1:
            return "not started"
        title = lesson.steps[r.step - 1].title
        return f"{r.step} — {title}" if title else str(r.step)

    table = pd.DataFrame(
        [
            {
                "student": r.name,
                "step reached": at(r),
                "on it for": _duration(r.seconds),
                "attempts there": r.attempts,
                "right there": "—" if r.right is None else ("yes" if r.right else "not yet"),
                "looked up": "yes" if r.looked_up else "",
                "stuck": "stuck" if r.stuck else "",
            }
            for r in rows
        ]
    )
    st.dataframe(table, hide_index=True, height=min(38 + 35 * len(table), 420))


def leave_deleted(gone: actions.Intent, deleted_code: str) -> None:
    """After *Delete everything* (``gone``, its deletion done): the page leaves the session's address and
    says so; the click arrives when a run without the address comes (the dispatch at the end: a request
    sent with the old address just after comes back here)."""
    st.session_state["_class_deleted"] = deleted_code
    st.query_params.clear()
    st.rerun()


def poll_section() -> None:
    from hetdp_core.reading.words import share
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
            c2.metric("share of “yes” sent", share(est.raw_share))
            c3.metric("estimated true share", share(shown), help=f"95 % interval {share(est.low)} – {share(est.high)}")
            outside = (
                f" The unbiased estimate itself is {share(est.estimate)}: outside 0–100 % because with "
                f"{est.n} report{'s' if est.n > 1 else ''} the coin's noise dominates; "
                + ("it settles as reports arrive." if poll.open else "the poll is closed, so this estimate is final.")
                if shown != est.estimate
                else ""
            )
            st.caption(
                f"Estimated true share of “yes”: {share(shown)}, 95 % interval {share(est.low)} – {share(est.high)} "
                f"(randomized-response estimate; the sent share is pulled towards 50 % by the coin).{outside}"
            )
            chart(poll_figure(tuple(hist)), key="class_poll_fig")
        else:
            st.caption("No report yet.")
        poll_meaning(poll.eps)


def poll_meaning(eps: float) -> None:
    """What the poll's ε means for one student, in the words and numbers of every page's meaning panel:
    an attacker's belief, an attack's success at a 1 % false-positive rate, real deployments' levels."""
    from hetdp_core.reading.deployments import place
    from hetdp_ui.common import deployments_strip_section, panel

    row = class_panel.poll_meaning(eps)
    st.markdown(
        f"**What ε = {eps:g} means for one student.** Seeing what they sent, {row.in_words} that their "
        f"true answer is yes (the same for no). As an attack: {row.risk_in_words}."
    )
    # drawn only while open: the live view reruns every few seconds, and a closed strip costs nothing then
    strip = panel(f"Where ε = {eps:g} lies among real deployments", key="class_poll_ctx_open")
    with strip:
        if strip.open:
            placed = place(eps, who=f"this poll (local ε = {eps:g} per student's answer)", model="local")
            deployments_strip_section((placed,), key="class_poll_ctx", what="the poll's ε")


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


def session_buttons(info) -> None:
    """The instructor's *Close*/*Reopen*, *Export answers (CSV)* and *Delete the session*."""
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


def instructor_view() -> None:
    if session_or_error(lambda: store.session(code)) is None:
        return
    info = session_or_error(lambda: store.authorize(code, key), key_again)
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
        session_buttons(info)
    right.image(qr_png(link), caption=f"Join: {info.code}", width=220)

    poll_controls()

    @st.fragment(run_every=REFRESH)
    @class_queue.comes_first  # the instructor's view refreshes ahead of a class's queue
    def live() -> None:
        try:
            stats = store.step_stats(code)
            counts = store.counts(code)
            progress = store.progress(code)
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
        progress_table(progress, lesson)
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
