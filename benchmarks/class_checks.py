"""How a class run is counted in the class database (:mod:`benchmarks.class_load`): the answers stored, second
attempts, and each student's answers in the order given."""

from __future__ import annotations


def count_rows(db_url: str, code: str) -> dict:
    from hetdp_ui.classroom.store import ClassStore

    store = ClassStore(db_url)
    from sqlalchemy import text

    of_session = "FROM answer a JOIN student s ON s.id = a.student_id JOIN class_session cs ON cs.id = s.session_id"
    with store.engine.connect() as c:
        dup = c.execute(text(f"SELECT count(*) {of_session} WHERE cs.code = :c AND a.attempt > 1"), {"c": code})
        dup = dup.scalar()
        rows = c.execute(
            text(f"SELECT a.student_id, a.answered_at {of_session} WHERE cs.code = :c ORDER BY a.student_id, a.step"),
            {"c": code},
        ).all()
    # each student's answers are stored in the order given: step by step, so their times rise with the step
    late = sum(1 for a, b in zip(rows, rows[1:]) if a.student_id == b.student_id and b.answered_at < a.answered_at)
    return {**store.counts(code), "second_attempts": int(dup), "stored_out_of_order": late}
