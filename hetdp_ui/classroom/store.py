"""Operations on the class database: sessions, students, answers, the private poll, the live counts.

Every input a browser can send is checked here and refused with an :class:`InputError` (one line,
nothing stored): a wrong or closed code, a display name that is empty, too long or holds control
characters, a step the lesson does not have, a forged student token, a wrong instructor key
(compared in constant time, as a hash: the key itself is never stored). A database that cannot be
reached or written (server restarting, disk full) raises :class:`StoreUnavailable`; the caller says
"not recorded — try again", and a retry of the same click (the same ``nonce``) is stored once.

What is stored (and nothing else — no address, no browser, no true poll answer): per session the
lesson, the code, the key's hash, when it was opened and closed; per student the display name, the
token's hash, when they joined and the furthest step they reached; per *Check my answer* the step,
the value or choice, right or wrong, the misconception matched, the attempt number and the time; per
poll the question, ε and, per student, the randomized answer sent. Rows live until the session is
deleted (:meth:`ClassStore.delete`, ``hetdp class delete``), which deletes all of them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import re
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from hetdp_core.framework._validate import InputError
from hetdp_core.teaching.lesson_variants import (
    parse_variant_id,
    variant_answer,
    variant_step,
    variant_text,
    with_answer,
)
from hetdp_core.teaching.lessons import Lesson, Question, bundled_lesson
from hetdp_ui.folders import LIVE_CLASS, page_for

from . import db
from .db import ANSWER, POLL, REPORT, REVEAL, SESSION, STUDENT, VARIANT, utcnow
from .polls import PollStore
from .progress import ProgressStore

#: the join code's letters: no 0/O, 1/I/L (read off a projector)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
MAX_NAME = 40
#: students per session: a flood of joins fills one session at most this far
MAX_STUDENTS = 500


class StoreUnavailable(RuntimeError):
    """The class database cannot be reached or written right now (nothing was stored)."""


def _unavailable(exc: Exception) -> StoreUnavailable:
    orig = getattr(exc, "orig", None) or exc
    first = " ".join(str(orig).split())[:160]
    return StoreUnavailable(f"the class database is not available ({type(orig).__name__}: {first})")


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def normalize_code(code) -> str:
    """A join code as stored: upper case, spaces and dashes removed; refused if it cannot be one."""
    c = "".join(str(code or "").split()).replace("-", "").upper()[:20]
    if len(c) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in c):
        raise InputError(
            f"code must be {CODE_LENGTH} letters or digits as shown on the projector; got {str(code)[:20]!r}. "
            "Check the code and type it again."
        )
    return c


#: a *Join* click's identity: what :func:`secrets.token_urlsafe` draws (16 to 64 URL-safe letters)
CLICK = re.compile(r"[A-Za-z0-9_-]{16,64}")


def check_click(click) -> str:
    """A *Join* click's identity as the page draws it; else InputError."""
    if not isinstance(click, str) or not CLICK.fullmatch(click):
        raise InputError("join must be 16 to 64 letters, digits, '-' or '_'; open the class link again to join.")
    return click


def join_token(click, code, name) -> str:
    """The token of the student who joins session ``code`` with the *Join* click ``click`` under ``name``:
    SHA-256 of the three, so the same click and name always give the same student, and another name or
    session another one. The click is as secret as the token (it lives in the same browser's link)."""
    digest = hashlib.sha256(f"{check_click(click)}\n{normalize_code(code)}\n{check_name(name)}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def check_name(name) -> str:
    """A display name: 1 to 40 characters after trimming, no control or invisible characters."""
    if not isinstance(name, str):
        raise InputError(f"name must be text; got {type(name).__name__}.")
    n = " ".join(name.split())
    if not n:
        raise InputError("name is empty; type the name you want the class to see.")
    if len(n) > MAX_NAME:
        raise InputError(f"name has {len(n)} characters; at most {MAX_NAME}. Choose a shorter name.")
    if any(unicodedata.category(ch)[0] == "C" for ch in n):
        raise InputError("name contains control or invisible characters; use letters, digits and punctuation.")
    return n


@dataclass(frozen=True)
class SessionInfo:
    code: str
    lesson_id: str
    created_at: datetime
    closed: bool
    id: int


@dataclass(frozen=True)
class Started:
    code: str
    key: str  # the instructor's secret: shown once, stored only as a hash


@dataclass(frozen=True)
class StudentInfo:
    id: int
    name: str
    furthest_step: int


@dataclass(frozen=True)
class Recorded:
    attempt: int
    correct: bool | None
    misconception: int | None


class ClassStore(PollStore, ProgressStore):
    """The class database at ``url`` (default: ``HETDP_DATABASE_URL`` or the SQLite file).
    ``answer_of(step, variant)`` computes a student's own answer to a step with variants (default: the
    core's :func:`hetdp_core.teaching.lesson_variants.variant_answer`; the app passes its cached run)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        lesson_of: Callable[[str], Lesson] = bundled_lesson,
        answer_of: Callable | None = None,
    ):
        try:
            self.engine: Engine = db.ready_engine(url)
        except (OperationalError, DBAPIError) as exc:
            raise _unavailable(exc) from None
        self._writer = self.engine.execution_options(write=True)
        self.lesson_of = lesson_of
        self.answer_of = answer_of or variant_answer

    # ------------------------------------------------------------ plumbing
    def _run(self, fn, *, write: bool):
        try:
            with (self._writer if write else self.engine).begin() as conn:
                return fn(conn)
        except IntegrityError:
            raise
        except (OperationalError, DBAPIError) as exc:
            raise _unavailable(exc) from None

    def _session_row(self, conn, code: str):
        row = conn.execute(select(SESSION).where(SESSION.c.code == normalize_code(code))).first()
        if row is None:
            raise InputError(f"code {str(code)[:20]!r} names no class session; check the code on the projector.")
        return row

    @staticmethod
    def _info(row) -> SessionInfo:
        return SessionInfo(row.code, row.lesson_id, row.created_at, row.closed_at is not None, row.id)

    # ------------------------------------------------------------ sessions
    def start(self, lesson_id: str) -> Started:
        """A new session for a bundled lesson: a fresh join code and instructor key."""
        self.lesson_of(lesson_id)  # an unknown lesson raises InputError listing the lessons
        key = secrets.token_urlsafe(24)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                self._run(
                    lambda c, code=code: c.execute(
                        insert(SESSION).values(code=code, lesson_id=lesson_id, key_hash=_hash(key), created_at=utcnow())
                    ),
                    write=True,
                )
                return Started(code, key)
            except IntegrityError:  # the code is taken: draw another
                continue
        raise StoreUnavailable("could not draw a free join code in 20 tries")

    def session(self, code: str) -> SessionInfo:
        return self._run(lambda c: self._info(self._session_row(c, code)), write=False)

    def authorize(self, code: str, key) -> SessionInfo:
        """The session, if ``key`` is its instructor key (compared in constant time); else InputError."""
        info_row = self._run(lambda c: self._session_row(c, code), write=False)
        given = _hash(str(key or "")[:200])
        if not hmac.compare_digest(given, info_row.key_hash):
            raise InputError("the instructor key does not match this session; open the instructor link you were given.")
        return self._info(info_row)

    def sessions(self) -> list[SessionInfo]:
        rows = self._run(lambda c: c.execute(select(SESSION).order_by(SESSION.c.created_at)).all(), write=False)
        return [self._info(r) for r in rows]

    def _set_closed(self, code: str, closed: bool) -> None:
        def go(c):
            row = self._session_row(c, code)
            c.execute(update(SESSION).where(SESSION.c.id == row.id).values(closed_at=utcnow() if closed else None))

        self._run(go, write=True)

    def close(self, code: str) -> None:
        """No new joins, answers or poll reports."""
        self._set_closed(code, True)

    def reopen(self, code: str) -> None:
        self._set_closed(code, False)

    def delete(self, code: str) -> int:
        """Delete the session and every row about it; returns the number of rows deleted."""

        def go(c):
            sid = self._session_row(c, code).id
            students = select(STUDENT.c.id).where(STUDENT.c.session_id == sid)
            polls = select(POLL.c.id).where(POLL.c.session_id == sid)
            n = c.execute(delete(REPORT).where(REPORT.c.poll_id.in_(polls))).rowcount
            n += c.execute(delete(VARIANT).where(VARIANT.c.student_id.in_(students))).rowcount
            n += c.execute(delete(REVEAL).where(REVEAL.c.session_id == sid)).rowcount
            n += c.execute(delete(ANSWER).where(ANSWER.c.student_id.in_(students))).rowcount
            n += c.execute(delete(POLL).where(POLL.c.session_id == sid)).rowcount
            n += c.execute(delete(STUDENT).where(STUDENT.c.session_id == sid)).rowcount
            return n + c.execute(delete(SESSION).where(SESSION.c.id == sid)).rowcount

        return self._run(go, write=True)

    # ------------------------------------------------------------ students
    def join(self, code: str, name, *, click: str | None = None) -> str:
        """Join an open session under a display name; returns the student's token (their identity).

        ``click`` is the identity of the *Join* click, drawn before the click and kept where a reconnecting
        browser finds it (the page keeps it in its link): the token is :func:`join_token` of it and the
        name, so the same click with the same name is the same student. A worker that dies during *Join*,
        after the row was stored, leaves the click in the browser; the click repeated on another worker
        returns the same student instead of "name taken". A name is never given to a second token: nobody
        takes over another student's name. Without ``click`` the token is drawn at random."""
        name = check_name(name)
        token = secrets.token_urlsafe(18) if click is None else join_token(click, code, name)

        def go(c):
            row = self._session_row(c, code)
            mine = c.execute(select(STUDENT).where(STUDENT.c.token_hash == _hash(token))).first()
            if mine is not None:
                if mine.session_id != row.id or mine.name != name:
                    raise InputError("this join was already used elsewhere; open the class link again to join.")
                return  # the same click again: already joined
            if row.closed_at is not None:
                raise InputError(f"class session {row.code} is closed; ask your instructor to reopen it.")
            n = c.execute(select(func.count()).select_from(STUDENT).where(STUDENT.c.session_id == row.id)).scalar()
            if n >= MAX_STUDENTS:
                raise InputError(f"class session {row.code} is full ({MAX_STUDENTS} students); ask your instructor.")
            taken = c.execute(
                select(STUDENT.c.token_hash).where(STUDENT.c.session_id == row.id, STUDENT.c.name == name)
            ).first()
            if taken is not None:
                if hmac.compare_digest(taken.token_hash, _hash(token)):  # the same click, stored meanwhile
                    return
                raise InputError(f"the name {name!r} is taken in this session; choose another one.")
            c.execute(
                insert(STUDENT).values(
                    session_id=row.id, name=name, token_hash=_hash(token), joined_at=utcnow(), furthest_step=0
                )
            )

        try:
            self._run(go, write=True)
        except IntegrityError:  # the same click (or the same name) stored at the same moment: look again
            try:
                self._run(go, write=True)
            except IntegrityError:
                raise InputError(f"the name {name!r} is taken in this session; choose another one.") from None
        return token

    def _student_row(self, c, code: str, token):
        sess = self._session_row(c, code)
        if not isinstance(token, str) or not 10 <= len(token) <= 64:
            raise InputError("this link's student token is not valid; join the session again with its code.")
        row = c.execute(
            select(STUDENT).where(STUDENT.c.token_hash == _hash(token), STUDENT.c.session_id == sess.id)
        ).first()
        if row is None:
            raise InputError("this link's student token is not valid; join the session again with its code.")
        return sess, row

    def student(self, code: str, token) -> StudentInfo:
        _, row = self._run(lambda c: self._student_row(c, code, token), write=False)
        return StudentInfo(row.id, row.name, row.furthest_step)

    def reached(self, code: str, token, step: int) -> None:
        """Note that the student opened ``step`` (the live view's "reached")."""

        def go(c):
            sess, row = self._student_row(c, code, token)
            self._step(sess.lesson_id, step)
            if step > row.furthest_step:
                c.execute(
                    update(STUDENT).where(STUDENT.c.id == row.id).values(furthest_step=step, furthest_at=utcnow())
                )

        self._run(go, write=True)

    def _step(self, lesson_id: str, step):
        lesson = self.lesson_of(lesson_id)
        if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= len(lesson.steps):
            raise InputError(f"step must be a whole number from 1 to {len(lesson.steps)}; got {str(step)[:20]!r}.")
        return lesson.steps[step - 1]

    # ------------------------------------------------------------ answers
    def record(self, code: str, token, *, step: int, given, nonce: str, looked_up: bool = False) -> Recorded:
        """Store one *Check my answer* and return its attempt number and verdict. Stored once per
        ``nonce`` (a retry of the same click), and an answer equal to the student's previous one for
        the step is not a new attempt (a click repeated from a new browser session after its server
        process died carries a new nonce but the same answer). On a step with variants the verdict is
        against the student's own answer (their variant is drawn first if they have none yet);
        ``looked_up``: the student had opened the answer (or it was revealed) before this check."""
        if not isinstance(nonce, str) or not 8 <= len(nonce) <= 40:
            raise InputError("nonce must be 8 to 40 characters (one per click).")
        if not isinstance(looked_up, bool):
            raise InputError(f"looked_up must be true or false; got {str(looked_up)[:20]!r}.")
        need = []

        def go(c):
            sess, row = self._student_row(c, code, token)
            if sess.closed_at is not None:
                raise InputError(f"class session {sess.code} is closed: your answer was not recorded.")
            st = self._step(sess.lesson_id, step)
            q = st.question
            if q is None:
                raise InputError(f"step {step} of this lesson has no question; nothing to record.")
            if q.variants:  # judged against the student's own answer
                mine = c.execute(select(VARIANT).where(VARIANT.c.student_id == row.id, VARIANT.c.step == step)).first()
                if mine is None:
                    need.append(step)
                    return None
                q = with_answer(variant_step(st, parse_variant_id(mine.params, q.variants)), mine.answer).question
            done = c.execute(select(ANSWER).where(ANSWER.c.nonce == nonce)).first()
            if done is not None:
                if done.student_id != row.id:
                    raise InputError("nonce was used by another answer.")
                return Recorded(done.attempt, done.correct, done.misconception)
            number, choice = _given(q, given)
            last = c.execute(
                select(ANSWER)
                .where(ANSWER.c.student_id == row.id, ANSWER.c.step == step)
                .order_by(ANSWER.c.attempt.desc())
                .limit(1)
            ).first()
            if last is not None and (last.number, last.choice) == (number, choice):
                # the same answer again is not a new attempt: a click repeated after a worker died (its
                # nonce died with the browser session) or a double click is stored once
                return Recorded(last.attempt, last.correct, last.misconception)
            correct, mis = q.classify(number if choice is None else choice)
            attempt = 1 + (last.attempt if last is not None else 0)
            c.execute(
                insert(ANSWER).values(
                    student_id=row.id,
                    step=step,
                    attempt=attempt,
                    number=number,
                    choice=choice,
                    correct=correct,
                    misconception=mis,
                    nonce=nonce,
                    answered_at=utcnow(),
                    looked_up=looked_up,
                )
            )
            if step > row.furthest_step:
                c.execute(
                    update(STUDENT).where(STUDENT.c.id == row.id).values(furthest_step=step, furthest_at=utcnow())
                )
            return Recorded(attempt, correct, mis)

        for _ in range(5):
            try:
                got = self._run(go, write=True)
            except IntegrityError:  # the same student answered twice at once (two tabs): count again
                continue
            if got is not None:
                return got
            self.variant(code, token, need.pop())  # drawn and computed outside the write transaction
        raise StoreUnavailable("could not store the answer after 5 tries")

    # ------------------------------------------------------------ export
    def counts(self, code: str) -> dict[str, int]:
        """Rows stored for a session (students, answers, poll reports)."""

        def go(c):
            sid = self._session_row(c, code).id
            students = select(STUDENT.c.id).where(STUDENT.c.session_id == sid)
            count = lambda t, where: int(c.execute(select(func.count()).select_from(t).where(where)).scalar())
            return {
                "students": count(STUDENT, STUDENT.c.session_id == sid),
                "answers": count(ANSWER, ANSWER.c.student_id.in_(students)),
                "poll_reports": count(REPORT, REPORT.c.student_id.in_(students)),
            }

        return self._run(go, write=False)

    def export_rows(self, code: str) -> list[dict]:
        """One row per student and question step: first-try right, attempts, last answer, time —
        the long format a learning-management system's gradebook import takes."""

        def go(c):
            sess = self._session_row(c, code)
            students = c.execute(select(STUDENT).where(STUDENT.c.session_id == sess.id).order_by(STUDENT.c.name)).all()
            answers = c.execute(
                select(ANSWER)
                .join(STUDENT, STUDENT.c.id == ANSWER.c.student_id)
                .where(STUDENT.c.session_id == sess.id)
                .order_by(ANSWER.c.attempt)
            ).all()
            own = c.execute(
                select(VARIANT)
                .join(STUDENT, STUDENT.c.id == VARIANT.c.student_id)
                .where(STUDENT.c.session_id == sess.id)
            ).all()
            return sess, students, answers, {(v.student_id, v.step): v for v in own}

        sess, students, answers, own = self._run(go, write=False)
        lesson = self.lesson_of(sess.lesson_id)
        rows = []
        for s in students:
            for k, st in enumerate(lesson.steps, start=1):
                if st.question is None:
                    continue
                mine = [a for a in answers if a.student_id == s.id and a.step == k]
                last = mine[-1] if mine else None
                v = own.get((s.id, k))
                rows.append(
                    {
                        "session": sess.code,
                        "lesson": sess.lesson_id,
                        "student": s.name,
                        "step": k,
                        "kind": st.question.kind,
                        "first_try_right": None if not mine or mine[0].correct is None else bool(mine[0].correct),
                        "attempts": len(mine),
                        "last_answer": None
                        if last is None
                        else (last.choice if last.choice is not None else last.number),
                        "last_right": None if last is None or last.correct is None else bool(last.correct),
                        "misconception": None if last is None else last.misconception,
                        "answered_at": None if last is None else last.answered_at.isoformat(timespec="seconds") + "Z",
                        "looked_up": None if not mine else any(bool(a.looked_up) for a in mine),
                        "variant": None
                        if v is None
                        else variant_text(parse_variant_id(v.params, st.question.variants)),
                        "own_answer": None if v is None else v.answer,
                    }
                )
        return rows

    # ------------------------------------------------------------ private poll


def _given(q: Question, given) -> tuple[float | None, str | None]:
    """(number, choice) of an answer, refused if it cannot answer ``q``."""
    if q.kind == "choice":
        if not isinstance(given, str) or given.strip().lower() not in [c.lower() for c in q.choices]:
            raise InputError(f"answer must be one of {list(q.choices)}; got {str(given)[:40]!r}.")
        return None, next(c for c in q.choices if c.lower() == given.strip().lower())
    try:
        g = float(given)
    except (TypeError, ValueError):
        raise InputError(f"answer must be a number; got {str(given)[:40]!r}.") from None
    if not math.isfinite(g):
        raise InputError(f"answer must be a finite number; got {given!r}.")
    if q.kind == "your-choice" and not q.low <= g <= q.high:
        raise InputError(f"answer must lie in [{q.low:g}, {q.high:g}]; got {g:g}.")
    return g, None


#: columns of the export (one row per student and question step)
EXPORT_COLUMNS = (
    "session",
    "lesson",
    "student",
    "step",
    "kind",
    "first_try_right",
    "attempts",
    "last_answer",
    "last_right",
    "misconception",
    "answered_at",
    "looked_up",
    "variant",
    "own_answer",
)


def links(base_url: str, code: str, key: str | None = None) -> dict[str, str]:
    """The student link (what the QR code holds) and, with ``key``, the instructor's link."""
    page = f"{base_url.rstrip('/')}/{page_for(LIVE_CLASS).url}"
    out = {"student": f"{page}?code={code}"}
    if key is not None:
        out["instructor"] = f"{page}?code={code}&key={key}"
    return out


def export_csv(rows: list[dict]) -> str:
    """The export's CSV (``hetdp class export`` and the instructor's export button): :data:`EXPORT_COLUMNS`,
    an empty cell for None, and a name or answer a spreadsheet would read as a formula defended
    (:func:`hetdp_ui.csvfile.csv_text`)."""
    import pandas as pd

    from hetdp_ui.csvfile import csv_text

    return csv_text(pd.DataFrame(rows, columns=list(EXPORT_COLUMNS), dtype=object))
