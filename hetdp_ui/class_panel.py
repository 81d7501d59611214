"""A student's side of a live class, drawn inside the lesson panel: who they are in the session,
their answers recorded, the class poll. Membership lives in the URL (``class`` = the join code,
``me`` = the student's token), so a refresh, a phone waking up or a new tab keeps identity and
place; the token is checked against its hash in the database on arrival."""

from __future__ import annotations

import secrets

import streamlit as st

from hetdp_core.lessons import Lesson
from hetdp_core.scenario import InputError

#: URL parameters of a student in a class session
PARAMS = ("class", "me")
#: session key: (code, token) → StudentInfo, checked once per browser session
CHECKED = "_class_member"
#: session key: answer widget key → (given, nonce) of a click not yet stored
PENDING = "_class_pending"

#: seconds between a student page's looks for a new class poll (a fragment: only the poll box reruns)
POLL_REFRESH = 5


def store():
    """The class database (its errors: StoreUnavailable, SchemaMismatch — both shown as one line)."""
    from hetdp_ui.classroom.store import ClassStore

    return ClassStore()


def unavailable_types() -> tuple[type, ...]:
    from hetdp_ui.classroom.db import SchemaMismatch
    from hetdp_ui.classroom.store import StoreUnavailable

    return StoreUnavailable, SchemaMismatch


def carried() -> dict[str, str]:
    """The class parameters of this URL, to carry to the next step's page."""
    return {k: st.query_params[k] for k in PARAMS if st.query_params.get(k)}


def member(lesson: Lesson):
    """(code, token, student) when this URL is a student's in a session of ``lesson``, else None; a
    bad code or token is dropped from the URL with a one-line warning."""
    code, token = st.query_params.get("class"), st.query_params.get("me")
    if not code or not token:
        return None
    cache = st.session_state.setdefault(CHECKED, {})
    if (code, token) in cache:
        return code, token, cache[(code, token)]
    try:
        s = store()
        info = s.session(code)
        if info.lesson_id != lesson.id:
            raise InputError(f"class session {info.code} is for another lesson ({info.lesson_id}).")
        student = s.student(code, token)
    except InputError as exc:
        st.warning(f"Class session ignored: {exc}")
        for k in PARAMS:
            if k in st.query_params:
                del st.query_params[k]
        return None
    except unavailable_types() as exc:
        st.warning(f"Class session not reachable: {exc}. Your answers are not recorded; reload to try again.")
        return None
    cache[(code, token)] = student
    return code, token, student


def banner(code: str, token: str, student, step: int) -> None:
    """ "In class session … as …", and the step noted as reached (once per step and browser session)."""
    st.caption(f":material/groups: Class session **{code.upper()}** as **{student.name}** — your answers are recorded.")
    seen = st.session_state.setdefault("_class_reached", set())
    if (code, token, step) not in seen:
        try:
            store().reached(code, token, step)
            seen.add((code, token, step))
        except unavailable_types():
            pass  # "reached" is a courtesy count; the next step tries again


def record(code: str, token: str, widget: str, step: int, given) -> None:
    """Store one *Check my answer*; the same click retried after a failure keeps its nonce (stored once)."""
    pending = st.session_state.setdefault(PENDING, {})
    got = pending.get(widget)
    nonce = got[1] if got and got[0] == given else secrets.token_hex(12)
    pending[widget] = (given, nonce)
    try:
        r = store().record(code, token, step=step, given=given, nonce=nonce)
    except InputError as exc:
        pending.pop(widget, None)
        st.session_state[f"{widget}_class"] = ("error", f"Not recorded: {exc}", given)
    except unavailable_types():
        msg = "Not recorded — the class database did not answer. Try again."
        st.session_state[f"{widget}_class"] = ("retry", msg, given)
    else:
        pending.pop(widget, None)
        st.session_state[f"{widget}_class"] = ("ok", f"Your answer was recorded (attempt {r.attempt}).", given)


def record_status(widget: str, given) -> None:
    """What became of the last *Check* — while the answer shown is the one checked."""
    got = st.session_state.get(f"{widget}_class")
    if got and got[2] == given:
        kind, msg, _ = got
        if kind == "ok":
            st.caption(f":material/cloud_done: {msg}")
        else:
            st.error(msg, icon=":material/cloud_off:")


def poll_meaning(eps: float):
    """The meaning panel's row for one student's poll report at level ε (prior 50 %, attack at a 1 %
    false-positive rate), a :class:`~hetdp_core.meaning.LevelMeaning` (``in_words``, ``risk_in_words``),
    rounded as every page rounds them."""
    from hetdp_core.meaning import Level, meaning_of

    return meaning_of([Level("one student's report", eps)], prior=0.5, fpr=0.01).rows[0]


def poll_box(code: str, token: str) -> None:
    """The class poll, live: a fragment that looks for an open poll every :data:`POLL_REFRESH` seconds,
    so a question the instructor asks appears on every student's page without a reload (only the
    fragment reruns, not the page and its charts)."""

    @st.fragment(run_every=POLL_REFRESH)
    def live() -> None:
        _poll_box(code, token)

    live()


def _poll_box(code: str, token: str) -> None:
    """The class poll, when one is open: the question, two buttons, and after sending, what was sent
    and the guarantee it gives. The true answer is only a button's callback argument: it is randomized
    by the store before anything is written, and never kept in this session. The callback stores the
    report before the rerun, so the rerun (of the fragment, or of the page if Streamlit merged the click
    into one) draws what was sent without a second rerun."""
    try:
        s = store()
        poll = s.latest_poll(code)
        if poll is None or not poll.open:
            return
        sent_key, failed_key = ("_class_poll_sent", poll.id), ("_class_poll_failed", poll.id)
        sent = st.session_state.get(sent_key)
        if sent is None:
            sent = s.poll_sent(code, token, poll.id)
    except (InputError, *unavailable_types()):
        return
    from hetdp_core.poll import truth_probability
    from hetdp_core.words import bound_share

    # the chance the true answer is sent is the most an attacker can believe from one report: one number,
    # written as the meaning sentence writes it (rounded up), not 73.1 % here and 73.2 % there
    p = bound_share(truth_probability(eps=poll.eps))
    # the app's meaning sentence (upper bounds rounded up): what one report tells about one student
    words = poll_meaning(poll.eps).in_words
    with st.container(border=True, key="class_poll"):
        st.markdown(f"**Class poll (private, ε = {poll.eps:g}).** {poll.question}")
        if sent is not None:
            st.info(
                f"Sent: **{'yes' if sent else 'no'}**. A coin decided whether your true answer or its opposite "
                f"was sent (true with probability {p}); only what was sent is stored. About your true answer, "
                f"{words}."
            )
            return
        st.caption(
            f"Your answer is randomized on the server before it is stored: with probability {p} your true "
            f"answer is sent, otherwise its opposite. Nobody — not the instructor, not the database — learns "
            f"it for sure: at ε = {poll.eps:g}, {words}."
        )
        failed = st.session_state.pop(failed_key, None)
        if failed:
            st.error(failed[0], icon=failed[1])

        def send(truth: bool) -> None:
            try:
                out = s.answer_poll(code, token, poll_id=poll.id, truth=truth)
            except InputError as exc:
                st.session_state[failed_key] = (f"Not recorded: {exc}", None)
            except unavailable_types():
                msg = "Not recorded — the class database did not answer. Try again."
                st.session_state[failed_key] = (msg, ":material/cloud_off:")
            else:
                st.session_state[sent_key] = out

        c1, c2 = st.columns(2)
        c1.button("My true answer: yes", key=f"class_poll_yes_{poll.id}", width="stretch", on_click=send, args=(True,))
        c2.button("My true answer: no", key=f"class_poll_no_{poll.id}", width="stretch", on_click=send, args=(False,))
