"""The private class poll's part of the class database: open and close a poll, record a student's
randomized answer (the true answer is randomized before the insert and never stored), and estimate the
share. :class:`~hetdp_ui.classroom.store.ClassStore` has these methods.
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Integer, cast, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from hetdp_core.framework._validate import InputError
from hetdp_core.teaching.poll import MAX_POLL_EPS, MIN_POLL_EPS, PollEstimate, estimate, randomize

from .db import POLL, REPORT, utcnow

MAX_POLL_QUESTION = 300


@dataclass(frozen=True)
class PollInfo:
    id: int
    question: str
    eps: float
    open: bool


class PollStore:
    """The poll operations of :class:`~hetdp_ui.classroom.store.ClassStore` (which provides ``_run``,
    ``_session_row`` and ``_student_row``)."""

    def open_poll(self, code: str, *, question: str, eps: float) -> PollInfo:
        """Ask the class a yes/no question at level ε (closing the poll open before, if any)."""
        if not isinstance(question, str) or not " ".join(question.split()):
            raise InputError("question is empty; type the yes/no question to ask.")
        question = " ".join(question.split())
        if len(question) > MAX_POLL_QUESTION:
            raise InputError(f"question has {len(question)} characters; at most {MAX_POLL_QUESTION}.")
        if any(unicodedata.category(ch)[0] == "C" for ch in question):
            raise InputError("question contains control characters; remove them.")
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not MIN_POLL_EPS <= eps <= MAX_POLL_EPS:
            raise InputError(f"eps must be a number in [{MIN_POLL_EPS}, {MAX_POLL_EPS}]; got {str(eps)[:20]!r}.")

        def go(c):
            sid = self._session_row(c, code).id
            now = utcnow()
            c.execute(update(POLL).where(POLL.c.session_id == sid, POLL.c.closed_at.is_(None)).values(closed_at=now))
            pid = c.execute(
                insert(POLL).values(session_id=sid, question=question, eps=float(eps), opened_at=now)
            ).inserted_primary_key[0]
            return PollInfo(pid, question, float(eps), True)

        return self._run(go, write=True)

    def close_poll(self, code: str) -> None:
        def go(c):
            sid = self._session_row(c, code).id
            c.execute(
                update(POLL).where(POLL.c.session_id == sid, POLL.c.closed_at.is_(None)).values(closed_at=utcnow())
            )

        self._run(go, write=True)

    def latest_poll(self, code: str) -> PollInfo | None:
        def go(c):
            sid = self._session_row(c, code).id
            return c.execute(select(POLL).where(POLL.c.session_id == sid).order_by(POLL.c.id.desc()).limit(1)).first()

        row = self._run(go, write=False)
        return None if row is None else PollInfo(row.id, row.question, row.eps, row.closed_at is None)

    def poll_sent(self, code: str, token, poll_id: int) -> bool | None:
        """What this student sent to the poll (None before sending)."""

        def go(c):
            _, row = self._student_row(c, code, token)
            return c.execute(
                select(REPORT.c.reported).where(REPORT.c.poll_id == poll_id, REPORT.c.student_id == row.id)
            ).scalar()

        return self._run(go, write=False)

    def answer_poll(
        self, code: str, token, *, poll_id: int, truth: bool, rng: np.random.Generator | int | None = None
    ) -> bool:
        """Randomize the student's true answer at the poll's ε and store only the result; returns what
        was sent. A second answer to the same poll is refused (the first one stands)."""
        if not isinstance(truth, bool):
            raise InputError("truth must be yes or no.")
        rng = rng if rng is not None else np.random.default_rng(secrets.randbits(128))

        def go(c):
            sess, row = self._student_row(c, code, token)
            if sess.closed_at is not None:
                raise InputError(f"class session {sess.code} is closed: your answer was not recorded.")
            poll = c.execute(select(POLL).where(POLL.c.id == poll_id, POLL.c.session_id == sess.id)).first()
            if poll is None:
                raise InputError("this poll is not part of your class session.")
            if poll.closed_at is not None:
                raise InputError("this poll is closed; your answer was not recorded.")
            before = c.execute(
                select(REPORT.c.reported).where(REPORT.c.poll_id == poll.id, REPORT.c.student_id == row.id)
            ).scalar()
            if before is not None:
                return bool(before)
            sent = bool(randomize(np.array([truth]), eps=poll.eps, rng=rng)[0])
            c.execute(insert(REPORT).values(poll_id=poll.id, student_id=row.id, reported=sent, reported_at=utcnow()))
            return sent

        try:
            return self._run(go, write=True)
        except IntegrityError:  # the same student in two tabs at once: the first report stands
            return bool(self.poll_sent(code, token, poll_id))

    def poll_estimate(self, code: str, poll_id: int | None = None) -> tuple[PollInfo, PollEstimate] | None:
        """The latest (or given) poll and its estimate of the true share of "yes"."""

        def go(c):
            sid = self._session_row(c, code).id
            q = select(POLL).where(POLL.c.session_id == sid)
            q = q.where(POLL.c.id == poll_id) if poll_id is not None else q.order_by(POLL.c.id.desc()).limit(1)
            poll = c.execute(q).first()
            if poll is None:
                return None
            n, yes = c.execute(
                select(func.count(), func.sum(cast(REPORT.c.reported, Integer))).where(REPORT.c.poll_id == poll.id)
            ).one()
            return poll, int(n), int(yes or 0)

        got = self._run(go, write=False)
        if got is None:
            return None
        poll, n, yes = got
        return PollInfo(poll.id, poll.question, poll.eps, poll.closed_at is None), estimate(yes=yes, n=n, eps=poll.eps)
