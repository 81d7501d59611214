"""What a class teaches back, in the class database: each student's own variant of a question step
(parameters drawn per student, their answer computed by the core), the instructor's per-student
progress table, steps revealed to the class, and what a student's page looks up every few seconds
(the session's state, the latest poll — with the class's result once it is closed — and the
reveals) in one read. :class:`~hetdp_ui.classroom.store.ClassStore` has these methods.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from sqlalchemy import Integer, cast, func, insert, select
from sqlalchemy.exc import IntegrityError

from hetdp_core.framework._validate import InputError
from hetdp_core.teaching.lesson_variants import (
    draw_variant,
    parse_variant_id,
    relative_error,
    variant_answer,
    variant_id,
    variant_step,
    with_answer,
)
from hetdp_core.teaching.lessons import Question
from hetdp_core.teaching.poll import PollEstimate, estimate

from .db import ANSWER, POLL, REPORT, REVEAL, STUDENT, VARIANT, utcnow

#: a student is flagged as stuck at a question after this many wrong attempts without a right one …
STUCK_ATTEMPTS = 2
#: … or after this many seconds on it without a right answer
STUCK_SECONDS = 300


@dataclass(frozen=True)
class VariantInfo:
    """A student's own variant of a step: the parameters drawn for them, their answer (computed by the
    core) and the step as they see it (their values in its query and text, their answer)."""

    variant: dict
    answer: float
    step: object  # hetdp_core.teaching.lessons.Step


@dataclass(frozen=True)
class StudentProgress:
    """One row of the instructor's progress table: the furthest step a student reached, since when
    (None: unknown, e.g. a row from before schema 0002), their attempts at its question, whether one
    was right, whether they looked the answer up, and whether they look stuck."""

    name: str
    step: int
    since: datetime | None
    seconds: float | None
    attempts: int
    right: bool | None
    looked_up: bool
    stuck: bool


@dataclass(frozen=True)
class StudentView:
    """What a student's page looks up every few seconds: the session open or closed, the latest poll,
    what this student sent to it, the class's estimate once the poll is closed, the revealed steps."""

    closed: bool
    poll: object | None  # hetdp_ui.classroom.polls.PollInfo
    sent: bool | None
    result: PollEstimate | None
    revealed: tuple[int, ...]


def _default_answer(step, variant: dict) -> float:
    return variant_answer(step, variant)


@dataclass(frozen=True)
class StepStats:
    """The live counts of one step: students who reached it, who answered, right at the first try;
    the first answers' numbers (or choices), and per misconception how many students gave it."""

    step: int
    title: str
    question: Question | None
    reached: int
    answered: int
    first_right: int
    numbers: tuple[float, ...]
    choices: dict[str, int]
    misconceptions: tuple[int, ...]  # students per misconception, in the lesson's order
    #: per first number answer (aligned with ``numbers``): 0 right, j misconception j, None another wrong
    #: answer; and its error relative to the student's own answer (a step with variants; else None)
    verdicts: tuple[int | None, ...] = ()
    relative: tuple[float | None, ...] = ()
    revealed: bool = False


class ProgressStore:
    """The teach-back operations of :class:`~hetdp_ui.classroom.store.ClassStore` (which provides
    ``_run``, ``_session_row``, ``_student_row``, ``_step``, ``lesson_of`` and ``answer_of``)."""

    # ------------------------------------------------------------ variants
    def variant(self, code: str, token, step: int, *, rng: np.random.Generator | int | None = None) -> VariantInfo:
        """The student's own variant of ``step`` (a number question with variants): the one stored, or
        a new one — the least-used variant of the class so far — whose answer the core computes (outside
        any write transaction) before it is stored. Stored once per student and step: a second tab that
        draws at the same moment gets the first one."""

        def read(c):
            sess, row = self._student_row(c, code, token)
            st = self._step(sess.lesson_id, step)
            if st.question is None or not st.question.variants:
                raise InputError(f"step {step} of this lesson has no per-student variants.")
            mine = c.execute(select(VARIANT).where(VARIANT.c.student_id == row.id, VARIANT.c.step == step)).first()
            taken = None
            if mine is None:
                taken = c.execute(
                    select(VARIANT.c.params, func.count())
                    .join(STUDENT, STUDENT.c.id == VARIANT.c.student_id)
                    .where(STUDENT.c.session_id == sess.id, VARIANT.c.step == step)
                    .group_by(VARIANT.c.params)
                ).all()
            return st, row.id, mine, taken

        st, student_id, mine, taken = self._run(read, write=False)
        if mine is None:
            rng = rng if rng is not None else np.random.default_rng(secrets.randbits(128))
            drawn = draw_variant(st.question.variants, taken=dict(taken), rng=rng)
            answer = self.answer_of(st, drawn)
            try:
                self._run(
                    lambda c: c.execute(
                        insert(VARIANT).values(
                            student_id=student_id, step=step, params=variant_id(drawn), answer=answer, drawn_at=utcnow()
                        )
                    ),
                    write=True,
                )
            except IntegrityError:  # another tab of this student drew first: theirs stands
                return self.variant(code, token, step)
            return _info(st, drawn, answer)
        return _info(st, parse_variant_id(mine.params, st.question.variants), mine.answer)

    # ------------------------------------------------------------ reveal
    def reveal(self, code: str, step: int) -> None:
        """Push a question step's explanation to every student of the session (once per step; the
        instructor's page authorizes the click)."""

        def go(c):
            sess = self._session_row(c, code)
            st = self._step(sess.lesson_id, step)
            if st.question is None:
                raise InputError(f"step {step} of this lesson has no question; nothing to reveal.")
            done = c.execute(select(REVEAL.c.id).where(REVEAL.c.session_id == sess.id, REVEAL.c.step == step)).first()
            if done is None:
                c.execute(insert(REVEAL).values(session_id=sess.id, step=step, revealed_at=utcnow()))

        try:
            self._run(go, write=True)
        except IntegrityError:  # revealed from two tabs at once: one row stands
            pass

    def revealed(self, code: str) -> tuple[int, ...]:
        def go(c):
            sid = self._session_row(c, code).id
            return c.execute(select(REVEAL.c.step).where(REVEAL.c.session_id == sid).order_by(REVEAL.c.step)).all()

        return tuple(r.step for r in self._run(go, write=False))

    # ------------------------------------------------------------ a student's periodic look
    def student_view(self, code: str, token) -> StudentView:
        """One read for a student page's live box: InputError when the session is gone (deleted) or the
        token is not one of its students."""

        def go(c):
            sess, row = self._student_row(c, code, token)
            poll = c.execute(
                select(POLL).where(POLL.c.session_id == sess.id).order_by(POLL.c.id.desc()).limit(1)
            ).first()
            sent = result = None
            if poll is not None:
                sent = c.execute(
                    select(REPORT.c.reported).where(REPORT.c.poll_id == poll.id, REPORT.c.student_id == row.id)
                ).scalar()
                if poll.closed_at is not None:
                    n, yes = c.execute(
                        select(func.count(), func.sum(cast(REPORT.c.reported, Integer))).where(
                            REPORT.c.poll_id == poll.id
                        )
                    ).one()
                    result = estimate(yes=int(yes or 0), n=int(n), eps=poll.eps)
            steps = c.execute(select(REVEAL.c.step).where(REVEAL.c.session_id == sess.id).order_by(REVEAL.c.step))
            return sess, poll, sent, result, tuple(r.step for r in steps)

        from .polls import PollInfo

        sess, poll, sent, result, steps = self._run(go, write=False)
        info = None if poll is None else PollInfo(poll.id, poll.question, poll.eps, poll.closed_at is None)
        return StudentView(sess.closed_at is not None, info, None if sent is None else bool(sent), result, steps)

    # ------------------------------------------------------------ the instructor's progress table
    def progress(self, code: str) -> list[StudentProgress]:
        """Per student: the furthest step reached, time on it, attempts at its question, right or not,
        looked up; stuck students first, then the longest on their step."""

        def go(c):
            sess = self._session_row(c, code)
            students = c.execute(select(STUDENT).where(STUDENT.c.session_id == sess.id)).all()
            answers = c.execute(
                select(ANSWER.c.student_id, ANSWER.c.step, ANSWER.c.correct, ANSWER.c.looked_up)
                .join(STUDENT, STUDENT.c.id == ANSWER.c.student_id)
                .where(STUDENT.c.session_id == sess.id)
            ).all()
            return sess, students, answers

        sess, students, answers = self._run(go, write=False)
        return progress_rows(self.lesson_of(sess.lesson_id), students, answers, now=utcnow())

    # ------------------------------------------------------------ live view
    def step_stats(self, code: str) -> list[StepStats]:
        def go(c):
            sess = self._session_row(c, code)
            lesson = self.lesson_of(sess.lesson_id)
            students = c.execute(select(STUDENT.c.id, STUDENT.c.furthest_step).where(STUDENT.c.session_id == sess.id))
            furthest = [r.furthest_step for r in students]
            answers = c.execute(
                select(ANSWER)
                .join(STUDENT, STUDENT.c.id == ANSWER.c.student_id)
                .where(STUDENT.c.session_id == sess.id)
                .order_by(ANSWER.c.student_id, ANSWER.c.step, ANSWER.c.attempt)
            ).all()
            revealed = {r.step for r in c.execute(select(REVEAL.c.step).where(REVEAL.c.session_id == sess.id))}
            return lesson, furthest, answers, variant_answers(c, sess.id), revealed

        lesson, furthest, answers, own, revealed = self._run(go, write=False)
        out = []
        for k, st in enumerate(lesson.steps, start=1):
            mine = [a for a in answers if a.step == k]
            first = {}
            for a in mine:
                first.setdefault(a.student_id, a)
            numbered = [a for a in first.values() if a.number is not None]
            verdicts, relative = first_verdicts(numbered, {s: v for (s, j), v in own.items() if j == k})
            q = st.question
            mis = (
                tuple(
                    len({a.student_id for a in mine if a.misconception == j})
                    for j in range(1, len(q.misconceptions) + 1)
                )
                if q
                else ()
            )
            choices = {}
            if q is not None and q.kind == "choice":
                choices = {ch: sum(1 for a in first.values() if a.choice == ch) for ch in q.choices}
            out.append(
                StepStats(
                    step=k,
                    title=st.title,
                    question=q,
                    reached=sum(1 for f in furthest if f >= k),
                    answered=len(first),
                    first_right=sum(1 for a in first.values() if a.correct),
                    numbers=tuple(a.number for a in numbered),
                    choices=choices,
                    misconceptions=mis,
                    verdicts=verdicts,
                    relative=relative,
                    revealed=k in revealed,
                )
            )
        return out


def _info(st, variant: dict, answer: float) -> VariantInfo:
    return VariantInfo(variant, float(answer), with_answer(variant_step(st, variant), answer))


def progress_rows(lesson, students, answers, *, now: datetime) -> list[StudentProgress]:
    """The progress table from the rows of one session (students; answers as (student_id, step,
    correct, looked_up))."""
    mine: dict[tuple[int, int], list] = {}
    for a in answers:
        mine.setdefault((a.student_id, a.step), []).append(a)
    rows = []
    for s in students:
        k = s.furthest_step
        q = lesson.steps[k - 1].question if 1 <= k <= len(lesson.steps) else None
        got = mine.get((s.id, k), [])
        seconds = None if s.furthest_at is None else max(0.0, (now - s.furthest_at).total_seconds())
        graded = q is not None and q.kind != "your-choice"
        right = any(a.correct for a in got) if graded else None
        wrong = sum(1 for a in got if a.correct is False)
        stuck = graded and not right and (wrong >= STUCK_ATTEMPTS or (seconds or 0) >= STUCK_SECONDS)
        looked = any(bool(a.looked_up) for a in got)
        rows.append(StudentProgress(s.name, k, s.furthest_at, seconds, len(got), right, looked, stuck))
    return sorted(rows, key=lambda r: (not r.stuck, -(r.seconds or 0), r.name))


def first_verdicts(firsts, variants: dict) -> tuple[tuple[int | None, ...], tuple[float | None, ...]]:
    """For the first answers of a number step: each one's verdict (0 right, j misconception j, None
    another wrong answer) and, where the student has their own variant (``variants``: student id →
    their answer), its relative error against their own answer."""
    verdicts, relative = [], []
    for a in firsts:
        verdicts.append(0 if a.correct else a.misconception)
        own = variants.get(a.student_id)
        relative.append(None if own is None or a.number is None else relative_error(a.number, own))
    return tuple(verdicts), tuple(relative)


def variant_answers(conn, session_id: int) -> dict[tuple[int, int], float]:
    """(student id, step) → the student's own answer, for one session."""
    rows = conn.execute(
        select(VARIANT.c.student_id, VARIANT.c.step, VARIANT.c.answer)
        .join(STUDENT, STUDENT.c.id == VARIANT.c.student_id)
        .where(STUDENT.c.session_id == session_id)
    ).all()
    return {(r.student_id, r.step): r.answer for r in rows}
