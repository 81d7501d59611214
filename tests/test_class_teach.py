"""What a live class teaches back, in the class database (a real SQLite file and a real PostgreSQL server
the suite starts with pg_ctl): migration 0001 → 0002 keeps every row, each student's own variant of a
step (drawn once, judged against their own answer, so a neighbour's number is wrong), the progress
table (step, time on it, attempts, stuck), steps revealed to the class, a student's periodic look
(closed poll with the class's estimate, reveals, a deleted session), deletion of the new rows, the
export's new columns, and the live figure that no longer hides the lesson."""

from datetime import timedelta

import pytest
import test_class
from conftest import at_once
from sqlalchemy import inspect, text

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lesson_variants import variant_answer
from hetdp_core.teaching.lessons import bundled_lesson
from hetdp_ui.classroom import db
from hetdp_ui.classroom.progress import STUCK_SECONDS
from hetdp_ui.classroom.store import EXPORT_COLUMNS, ClassStore

#: the store's fixtures of tests/test_class.py: an SQLite file and a database on the suite's PostgreSQL
url, store = test_class.url, test_class.store

LESSON = "1-bcdp-feature-privacy"  # step 1: 0.09 ± 0.002, M1 = 0.2 ± 0.005, M2 = 2 ± 0.05
VARIED = "5-dp-sgd-schedules"  # step 1: each student's own ρ in 0.3 … 0.7 (nine variants), M1 = 2 ± 0.05


def rows(engine, table: str) -> int:
    with engine.connect() as c:
        return int(c.execute(text(f"SELECT count(*) FROM {table}")).scalar())


# ---------------------------------------------------------------- the migration


def test_migration_0002_keeps_every_row_of_a_0001_database_and_goes_back(url):
    from alembic import command

    eng = db.engine_for(url)
    db.upgrade(eng, to="0001")
    assert db.current_revision(eng) == "0001"
    with pytest.raises(
        db.SchemaMismatch, match=r"schema 0001, older than this hetdp's 0002: run `hetdp class migrate`"
    ):
        db.ensure_schema(eng)
    with eng.begin() as c:  # a class of revision 0001: a session, a student at step 2, an answer
        c.execute(
            text("INSERT INTO class_session VALUES (1, 'ABCDEF', :l, :h, '2026-01-05 10:00:00', NULL)"),
            {"l": LESSON, "h": "0" * 64},
        )
        c.execute(text("INSERT INTO student VALUES (1, 1, 'Ada', :h, '2026-01-05 10:01:00', 2)"), {"h": "1" * 64})
        c.execute(
            text("INSERT INTO answer VALUES (1, 1, 1, 1, 0.2, NULL, false, 1, 'nonce-0001', '2026-01-05 10:02:00')")
        )
    before = {t: rows(eng, t) for t in ("class_session", "student", "answer")}
    db.upgrade(eng)
    assert db.current_revision(eng) == "0002" and db.schema_problem(eng) is None
    assert {t: rows(eng, t) for t in before} == before == {"class_session": 1, "student": 1, "answer": 1}
    assert {"variant", "reveal"} <= set(inspect(eng).get_table_names())
    db.reset_caches()
    store = ClassStore(url)
    (p,) = store.progress("ABCDEF")  # the old row: its time on the step is unknown, not made up
    assert (p.name, p.step, p.since, p.seconds, p.attempts) == ("Ada", 2, None, None, 0)
    (first, *_) = store.export_rows("ABCDEF")
    assert first["looked_up"] is False and first["last_answer"] == 0.2 and first["variant"] is None
    cfg = db._alembic_config()
    with eng.begin() as c:
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "0001")
    assert db.current_revision(eng) == "0001" and "variant" not in inspect(eng).get_table_names()
    assert "furthest_at" not in {c["name"] for c in inspect(eng).get_columns("student")}
    assert {t: rows(eng, t) for t in before} == before
    db.upgrade(eng)
    assert db.current_revision(eng) == "0002"


# ---------------------------------------------------------------- per-student variants


def test_each_student_gets_their_own_variant_and_is_judged_against_their_own_answer(store):
    s = store.start(VARIED)
    tokens = [store.join(s.code, f"s{i}") for i in range(10)]
    got = [store.variant(s.code, t, 1, rng=i) for i, t in enumerate(tokens)]
    rhos = [g.variant["rho"] for g in got]
    assert len(set(rhos[:9])) == 9  # nine variants: the first nine students all differ
    step = bundled_lesson(VARIED).steps[0]
    for g in got[:3]:
        assert g.answer == variant_answer(step, g.variant)  # the core's value for their scenario
        assert f"ρ = {g.variant['rho']:g}" in g.step.question.prompt and f"rho={g.variant['rho']:g}" in g.step.query
    assert store.variant(s.code, tokens[0], 1) == got[0]  # stored once: the same again
    a, b = got[0], got[1]
    copied = store.record(s.code, tokens[0], step=1, given=b.answer, nonce="copy-0000")
    assert copied.correct is False  # the neighbour's number is wrong for this student
    own = store.record(s.code, tokens[0], step=1, given=a.answer, nonce="own-00000")
    assert own.correct is True and own.attempt == 2
    mis = store.record(s.code, tokens[1], step=1, given=2.0, nonce="mis-00000")
    assert (mis.correct, mis.misconception) == (False, 1)
    with pytest.raises(InputError, match="no per-student variants"):
        store.variant(s.code, tokens[0], 2)
    st1 = store.step_stats(s.code)[0]
    assert st1.numbers == (b.answer, 2.0) and st1.verdicts == (None, 1)
    assert st1.relative == pytest.approx(((b.answer - a.answer) / a.answer, (2.0 - b.answer) / b.answer))
    rows_ = {(r["student"], r["step"]): r for r in store.export_rows(s.code)}
    assert rows_[("s0", 1)]["variant"] == f"rho = {a.variant['rho']:g}" and rows_[("s0", 1)]["own_answer"] == a.answer


def test_an_answer_to_a_step_never_opened_draws_the_variant_first(store):
    s = store.start(VARIED)
    t = store.join(s.code, "Ada")
    r = store.record(s.code, t, step=1, given=2.0, nonce="first-0000")  # no variant yet: drawn, then judged
    assert (r.correct, r.misconception) == (False, 1) and rows(store.engine, "variant") == 1
    assert store.record(s.code, t, step=1, given=store.variant(s.code, t, 1).answer, nonce="second-000").correct


def test_two_tabs_drawing_at_once_store_one_variant(store):
    s = store.start(VARIED)
    t = store.join(s.code, "Ada")
    got, errors = at_once(6, lambda i: store.variant(s.code, t, 1, rng=i))
    assert errors == [] and rows(store.engine, "variant") == 1
    assert len({g.variant["rho"] for g in got}) == 1  # every tab got the one stored


# ---------------------------------------------------------------- progress, reveal, a student's look


def test_the_progress_table_says_where_each_student_is_and_who_is_stuck(store):
    s = store.start(LESSON)
    ada, bob, cy, di = (store.join(s.code, n) for n in ("Ada", "Bob", "Cy", "Di"))
    store.reached(s.code, ada, 1)
    for n, given in enumerate((0.2, 0.5)):  # two wrong attempts, no right one: stuck
        store.record(s.code, ada, step=1, given=given, nonce=f"ada-{n}-xxxx")
    store.reached(s.code, bob, 1)
    store.record(s.code, bob, step=1, given=0.09, nonce="bob-1-xxxx", looked_up=True)
    store.reached(s.code, bob, 2)
    store.reached(s.code, cy, 1)
    with store.engine.begin() as c:  # Cy has been on step 1 for longer than the rule's time
        c.execute(
            text("UPDATE student SET furthest_at = :t WHERE name = 'Cy'"),
            {"t": db.utcnow() - timedelta(seconds=STUCK_SECONDS + 60)},
        )
    table = {p.name: p for p in store.progress(s.code)}
    assert [p.name for p in store.progress(s.code)][:2] == ["Cy", "Ada"]  # stuck first, the longest on top
    assert (table["Ada"].step, table["Ada"].attempts, table["Ada"].right, table["Ada"].stuck) == (1, 2, False, True)
    assert table["Cy"].stuck and table["Cy"].attempts == 0 and table["Cy"].seconds >= STUCK_SECONDS + 60
    assert (table["Bob"].step, table["Bob"].attempts, table["Bob"].stuck) == (2, 0, False)
    assert (table["Di"].step, table["Di"].seconds) == (0, None)
    assert 0 <= table["Ada"].seconds < 120
    ex = {(r["student"], r["step"]): r for r in store.export_rows(s.code)}
    assert ex[("Bob", 1)]["looked_up"] is True and ex[("Ada", 1)]["looked_up"] is False
    assert list(ex[("Ada", 1)]) == list(EXPORT_COLUMNS)
    with pytest.raises(InputError, match="looked_up must be true or false"):
        store.record(s.code, di, step=1, given=0.09, nonce="di-1-xxxxx", looked_up="yes")


def _two_steps(lesson_id):
    from hetdp_core.teaching.lessons import parse_lesson

    step = '[[steps]]\npage = "Feature_privacy"\ntext = "t"\n'
    question = '[steps.question]\nkind = "choice"\nprompt = "p"\nchoices = ["yes", "no"]\nanswer = "no"\n'
    return parse_lesson(f'title = "t"\nfollows = "f"\n{step}{question}{step}', id=lesson_id)


def test_a_revealed_step_reaches_every_student_once_and_a_closed_poll_its_result(store):
    s = store.start(LESSON)
    ada, bob = store.join(s.code, "Ada"), store.join(s.code, "Bob")
    view = store.student_view(s.code, ada)
    assert (view.closed, view.poll, view.revealed) == (False, None, ())
    store.reveal(s.code, 3)
    store.reveal(s.code, 3)  # twice from two tabs: one row
    store.reveal(s.code, 1)
    assert store.revealed(s.code) == (1, 3) and rows(store.engine, "reveal") == 2
    for bad, match in ((9, "from 1 to 5"), (True, "whole number"), (2.0, "whole number")):
        with pytest.raises(InputError, match=match):
            store.reveal(s.code, bad)
    with pytest.raises(InputError, match="step 2 of this lesson has no question; nothing to reveal"):
        plain = ClassStore(store.engine.url.render_as_string(hide_password=False), lesson_of=_two_steps)
        plain.reveal(plain.start("two-steps").code, 2)
    assert store.step_stats(s.code)[0].revealed and not store.step_stats(s.code)[1].revealed
    poll = store.open_poll(s.code, question="Reused a password?", eps=1.0)
    sent = store.answer_poll(s.code, ada, poll_id=poll.id, truth=True, rng=3)
    view = store.student_view(s.code, ada)
    assert view.poll.open and view.sent is sent and view.result is None  # no result while it is open
    store.close_poll(s.code)
    view = store.student_view(s.code, ada)
    _, est = store.poll_estimate(s.code)
    assert not view.poll.open and view.result == est and view.revealed == (1, 3)
    assert store.student_view(s.code, bob).sent is None  # Bob did not answer
    store.close(s.code)
    assert store.student_view(s.code, bob).closed
    store.delete(s.code)
    with pytest.raises(InputError, match="names no class session"):
        store.student_view(s.code, ada)


def test_delete_removes_the_variants_and_reveals_of_the_session_and_only_those(store):
    a, b = store.start(VARIED), store.start(VARIED)
    for s in (a, b):
        t = store.join(s.code, "Ada")
        store.variant(s.code, t, 1, rng=0)
        store.reveal(s.code, 1)
    n = store.delete(a.code)
    assert n == 1 + 1 + 1 + 1  # session, student, variant, reveal
    assert rows(store.engine, "variant") == 1 and rows(store.engine, "reveal") == 1
    assert store.revealed(b.code) == (1,)


# ---------------------------------------------------------------- the live figure


def _stats(store, code):
    return store.step_stats(code)[0]


def test_the_live_figure_puts_the_right_answer_and_a_known_mistake_on_rows_of_their_own(store):
    """The issue's case: 0.09 (right) and 0.2 (the demand taken for the budget) fell into one bar with
    the 'right' line drawn inside it. Now every verdict is a row of its own, one dot per student."""
    from hetdp_ui.folders import figures_of

    figures = figures_of("class")
    s = store.start(LESSON)
    for i, given in enumerate((0.09, 0.0905, 0.2, 0.2, 0.2, 2.0, 0.153)):
        store.record(s.code, store.join(s.code, f"s{i}"), step=1, given=given, nonce=f"fig-{i}-xxxx")
    fig = figures.numbers_figure(_stats(store, s.code))
    by_name = {tr.name: sorted(tr.x) for tr in fig.data}
    assert by_name == {
        "right (2)": [0.09, 0.0905],
        "M1 0.2 ± 0.005 (3)": [0.2, 0.2, 0.2],
        "M2 2 ± 0.05 (1)": [2.0],
        "other wrong (1)": [0.153],
    }
    colors = {tr.name: tr.marker.color for tr in fig.data}
    assert len({colors["right (2)"], colors["M1 0.2 ± 0.005 (3)"], colors["other wrong (1)"]}) == 3
    assert all(tr.boxpoints == "all" for tr in fig.data)  # dots, never binned together
    v = store.start(VARIED)
    t = store.join(v.code, "Ada")
    own = store.variant(v.code, t, 1).answer
    store.record(v.code, t, step=1, given=own * 1.1, nonce="rel-0-xxxx")
    fig = figures.numbers_figure(_stats(store, v.code))
    (tr,) = fig.data
    assert tr.x[0] == pytest.approx(10.0) and "own answer" in fig.layout.xaxis.title.text
