"""A student's side of a live class, drawn inside the lesson panel: who they are in the session,
their answers recorded, the class poll. Membership lives in the URL (``class`` = the join code,
``me`` = the student's token), so a refresh, a phone waking up or a new tab keeps identity and
place; the token is checked against its hash in the database on arrival."""

from __future__ import annotations

import secrets

import streamlit as st

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lessons import Lesson
from hetdp_ui import actions

#: URL parameters of a student in a class session
PARAMS = ("class", "me")
#: session key: (code, token) → StudentInfo, checked once per browser session
CHECKED = "_class_member"
#: session key: answer widget key → (given, nonce) of a click not yet stored
PENDING = "_class_pending"

#: session key: the session's state the banner last showed ("open", "closed", "gone"); the live box
#: reruns the page when it sees another one, so the banner never says more than is true
SHOWN = "_class_shown_state"
#: session key: (lesson id, why) — this browser's class session of that lesson ended (it was deleted); said
#: on every step of that lesson while it goes on alone
ENDED = "_class_ended"
#: session key: the steps whose answer the instructor revealed (the lesson panel counts them as looked up)
REVEALED = "_class_revealed"
#: URL parameter of the live-class page: the identity of this browser's *Join* click (see :func:`join_id`)
JOIN = "join"

#: seconds between a student page's looks for a new class poll (a fragment: only the poll box reruns)
POLL_REFRESH = 5


def store():
    """The class database (its errors: StoreUnavailable, SchemaMismatch — both shown as one line); a
    student's own answer to a step with variants is computed through the app's run cache, so the page
    that then shows their scenario costs nothing more."""
    from hetdp_ui.classroom.store import ClassStore

    return ClassStore(answer_of=_cached_answer)


def _cached_answer(step, variant):
    from hetdp_core.teaching.lesson_variants import variant_answer
    from hetdp_ui.execution import run_scenario

    return variant_answer(step, variant, run=lambda scenario: run_scenario(scenario, progress=False))


def unavailable_types() -> tuple[type, ...]:
    from hetdp_ui.classroom.db import SchemaMismatch
    from hetdp_ui.classroom.store import StoreUnavailable

    return StoreUnavailable, SchemaMismatch


def carried() -> dict[str, str]:
    """The class parameters of this URL, to carry to the next step's page."""
    return {k: st.query_params[k] for k in PARAMS if st.query_params.get(k)}


def _leave() -> None:
    """Drop the class parameters from the URL: the lesson goes on without the session."""
    for k in PARAMS:
        if k in st.query_params:
            del st.query_params[k]


def join_id() -> str:
    """The identity of this browser's *Join* click: the link's ``join`` parameter, drawn and written to the
    link when the join form is drawn (so it is in the browser before the click) and the link has none.
    A reconnecting browser — its worker died during *Join* — sends it back with the link, so the click
    repeated on another worker is the same student (:meth:`~hetdp_ui.classroom.store.ClassStore.join`)."""
    from hetdp_ui.classroom.store import check_click

    click = st.query_params.get(JOIN)
    try:
        return check_click(click)
    except InputError:
        click = secrets.token_urlsafe(18)
        st.query_params[JOIN] = click
        return click


def member(lesson: Lesson):
    """(code, token, student) when this URL is a student's in a session of ``lesson``, else None; a
    bad code or token is dropped from the URL with a one-line warning."""
    code, token = st.query_params.get("class"), st.query_params.get("me")
    if not code or not token:
        ended = st.session_state.get(ENDED)
        if ended and ended[0] == lesson.id:
            st.info(ended[1], icon=":material/group_off:")
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
        _leave()
        return None
    except unavailable_types() as exc:
        st.warning(f"Class session not reachable: {exc}. Your answers are not recorded; reload to try again.")
        return None
    cache[(code, token)] = student
    return code, token, student


def session_state_of(code: str) -> str:
    """ "open", "closed" or "gone" (deleted): what the session is now (InputError: gone)."""
    try:
        return "closed" if store().session(code).closed else "open"
    except InputError:
        return "gone"


def banner(code: str, token: str, student, step: int) -> bool:
    """ "In class session … as …" with what is true now — answers recorded (open), not recorded
    (closed), or the session deleted (the class parameters leave the URL and the lesson goes on alone) —
    and the step noted as reached (once per step and browser session). False once the session is gone."""
    try:
        state = session_state_of(code)
    except unavailable_types():
        st.caption(f":material/cloud_off: Class session **{code.upper()}**: the class database did not answer.")
        return True
    st.session_state[SHOWN] = state
    if state == "gone":
        msg = (
            f"Class session {code.upper()} no longer exists (your instructor deleted it): your answers are no "
            "longer recorded. The lesson goes on on your own."
        )
        st.session_state[ENDED] = (st.query_params.get("lesson"), msg)
        st.session_state.get(CHECKED, {}).pop((code, token), None)
        _leave()
        st.warning(msg, icon=":material/group_off:")
        return False
    if state == "closed":
        st.caption(
            f":material/lock: Class session **{code.upper()}** as **{student.name}** is closed: your answers are "
            "kept, new ones are not recorded."
        )
        return True
    st.caption(f":material/groups: Class session **{code.upper()}** as **{student.name}** — your answers are recorded.")
    seen = st.session_state.setdefault("_class_reached", set())
    if (code, token, step) not in seen:
        try:
            store().reached(code, token, step)
            seen.add((code, token, step))
        except (InputError, *unavailable_types()):
            pass  # "reached" is a courtesy count; the next run tries again (and says what became of the session)
    return True


def variant(code: str, token: str, step: int):
    """This student's own variant of ``step`` (a :class:`~hetdp_ui.classroom.progress.VariantInfo`), or
    None when it cannot be had now (the lesson then shows the step as written, and says so)."""
    try:
        return store().variant(code, token, step)
    except InputError:  # the session is gone or closed to this token: the banner says so
        return None
    except unavailable_types() as exc:
        st.caption(f":material/cloud_off: Your own values for this step are not available ({exc}): shown as written.")
        return None


def record(code: str, token: str, widget: str, step: int, given) -> None:
    """Store one *Check my answer*; the same click retried after a failure keeps its nonce (stored once).
    Whether the student had looked the answer up is the lesson panel's flag ``<widget>_looked``."""
    pending = st.session_state.setdefault(PENDING, {})
    got = pending.get(widget)
    nonce = got[1] if got and got[0] == given else secrets.token_hex(12)
    pending[widget] = (given, nonce)
    from hetdp_ui.class_queue import ANSWER_TURN_WORDS, ANSWER_WORDS, WRITE, queued

    looked = bool(st.session_state.get(f"{widget}_looked"))
    try:
        # in the order answers arrived, before any student's page; a wait that was shown stays said
        with queued(WRITE, ANSWER_WORDS, turn_words=ANSWER_TURN_WORDS):
            r = store().record(code, token, step=step, given=given, nonce=nonce, looked_up=looked)
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
    false-positive rate), a :class:`~hetdp_core.reading.meaning.LevelMeaning` (``in_words``, ``risk_in_words``),
    rounded as every page rounds them."""
    from hetdp_core.reading.meaning import Level, meaning_of

    return meaning_of([Level("one student's report", eps)], prior=0.5, fpr=0.01).rows[0]


def poll_box(code: str, token: str, *, lesson: Lesson | None = None, watch: bool = False) -> None:
    """The class's live box: a fragment that looks every :data:`POLL_REFRESH` seconds (one read of the
    database) for the open poll — so a question the instructor asks appears on every student's page
    without a reload (only the fragment reruns, not the page and its charts) — for a closed poll's
    result, and for the steps the instructor revealed (``lesson``: their explanations). ``watch``: the
    page has the class banner; when the session's state differs from what the banner shows (closed,
    reopened, deleted), the whole page reruns so it never says more than is true."""

    @st.fragment(run_every=POLL_REFRESH)
    def live() -> None:
        _live_box(code, token, lesson, watch)

    live()


def _live_box(code: str, token: str, lesson: Lesson | None, watch: bool) -> None:
    try:
        s = store()
        view = s.student_view(code, token)
    except InputError:  # deleted (or the token is no longer one of its students)
        view = None
    except unavailable_types():
        return
    if watch:
        state = "gone" if view is None else ("closed" if view.closed else "open")
        if st.session_state.get(SHOWN, state) != state:
            st.session_state[SHOWN] = state  # set first: a page without the banner cannot loop
            st.rerun(scope="app")
    if view is None:
        return
    st.session_state[REVEALED] = set(view.revealed)
    if view.revealed and lesson is not None:
        _reveals(s, code, token, lesson, view.revealed)
    poll = view.poll
    if poll is None:
        return
    if not poll.open:
        _closed_poll(poll, view)
        return
    _open_poll(s, code, token, poll, view.sent)


def _revealed_text(s, code: str, token: str, lesson: Lesson, k: int) -> str:
    step = lesson.steps[k - 1]
    q, mine = step.question, ""
    if q.variants:
        got = s.variant(code, token, k)
        from hetdp_core.teaching.lesson_variants import variant_text

        q, mine = got.step.question, f" for your own values ({variant_text(got.variant)})"
    head = f"Step {k}" + (f" — {step.title}" if step.title else "")
    if q.kind == "your-choice":
        return f"**{head}:** {q.explain or 'there is no right answer: compare your choice with the class.'}"
    shown = f"{q.answer:.4g} (± {q.tolerance:g})" if q.kind == "number" else str(q.answer)
    return f"**{head}:** the answer{mine} is **{shown}**." + (f" {q.explain}" if q.explain else "")


def _reveals(s, code: str, token: str, lesson: Lesson, steps: tuple[int, ...]) -> None:
    """The explanations the instructor pushed to the class: the latest one open, earlier ones folded."""
    try:
        texts = [(k, _revealed_text(s, code, token, lesson, k)) for k in steps if 1 <= k <= len(lesson.steps)]
    except (InputError, *unavailable_types()):
        return
    if not texts:
        return
    k, latest = texts[-1]
    st.info(f"Your instructor revealed {latest}", icon=":material/campaign:")
    if len(texts) > 1:
        with st.expander(f"Earlier answers your instructor revealed ({len(texts) - 1})"):
            st.markdown("\n".join(f"- {t}" for _, t in texts[:-1]))


def _closed_poll(poll, view) -> None:
    """A closed poll: the class's estimate and interval, and what the student's own randomized answer
    revealed about them, in the meaning panel's words for the poll's ε."""
    est = view.result
    row = poll_meaning(poll.eps)
    with st.container(border=True, key="class_poll_result"):
        st.markdown(f"**Class poll closed (private, ε = {poll.eps:g}).** {poll.question}")
        if est is not None and est.n:
            shown = min(1.0, max(0.0, est.estimate))
            st.markdown(
                f"**The class's answer:** an estimated **{shown:.0%}** of the class would truly answer yes "
                f"(95 % interval {est.low:.0%} – {est.high:.0%}), from {est.n} randomized report"
                f"{'s' if est.n != 1 else ''}, {est.raw_share:.0%} of which said yes (the coin pulls that share "
                "towards 50 %; the estimate undoes it)."
            )
        else:
            st.markdown("**The class's answer:** nobody answered this poll.")
        if view.sent is None:
            st.caption("You did not answer this poll: it holds nothing about you.")
        else:
            st.info(
                f"**What your own answer revealed.** You sent **{'yes' if view.sent else 'no'}**. Seeing it, "
                f"{row.in_words} that your true answer is {'yes' if view.sent else 'no'}. As an attack: "
                f"{row.risk_in_words}.",
                icon=":material/visibility_lock:",
            )


def _open_poll(s, code: str, token: str, poll, stored) -> None:
    """The open poll: the question, two buttons, and after sending, what was sent and the guarantee it
    gives. The true answer is only a button's callback argument: it is randomized by the store before
    anything is written, and never kept in this session. The callback stores the report before the
    rerun, so the rerun (of the fragment, or of the page if Streamlit merged the click into one) draws
    what was sent without a second rerun."""
    sent_key, failed_key = ("_class_poll_sent", poll.id), ("_class_poll_failed", poll.id)
    sent = st.session_state.get(sent_key)
    if sent is None:
        sent = stored
    from hetdp_core.reading.words import bound_share
    from hetdp_core.teaching.poll import truth_probability

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
        failed = actions.note(failed_key)
        if failed:
            st.error(failed[0], icon=failed[1])

        def send(truth: bool) -> None:
            try:
                out = s.answer_poll(code, token, poll_id=poll.id, truth=truth)
            except InputError as exc:
                actions.keep_note(failed_key, (f"Not recorded: {exc}", None))
            except unavailable_types():
                msg = "Not recorded — the class database did not answer. Try again."
                actions.keep_note(failed_key, (msg, ":material/cloud_off:"))
            else:
                st.session_state[sent_key] = out
                actions.drop_note(failed_key)

        c1, c2 = st.columns(2)
        c1.button("My true answer: yes", key=f"class_poll_yes_{poll.id}", width="stretch", on_click=send, args=(True,))
        c2.button("My true answer: no", key=f"class_poll_no_{poll.id}", width="stretch", on_click=send, args=(False,))
