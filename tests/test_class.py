"""The live class: the store on a real SQLite file and a real PostgreSQL server (started by the suite),
migrations and the schema check, every bad input, retries stored once, the private poll (estimator
against a simulation; no true answer reaches the database), deletion; the CLI."""

import hmac

import numpy as np
import pytest
from conftest import at_once
from sqlalchemy import event, inspect, text

from hetdp_core.framework.scenario import InputError
from hetdp_core.teaching.lessons import bundled_lesson
from hetdp_core.teaching.poll import estimate, randomize, truth_probability
from hetdp_ui.classroom import db
from hetdp_ui.classroom import store as store_mod
from hetdp_ui.classroom.store import ClassStore, StoreUnavailable

LESSON = (
    "1-bcdp-feature-privacy"  # step 1: number 0.09 ± 0.002 (M1 = 0.2), step 3: choice "no" (M1 = "yes"), 5: your choice
)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'class.sqlite'}"
    return request.getfixturevalue("postgres").new_database()


@pytest.fixture
def store(url):
    return ClassStore(url)


def everything(engine) -> dict[str, list[tuple]]:
    """Every row of every table of the class database."""
    with engine.connect() as c:
        return {t: [tuple(r) for r in c.execute(text(f"SELECT * FROM {t}"))] for t in db.TABLES}


# ---------------------------------------------------------------- schema and migrations


def test_a_migration_from_an_empty_database_creates_the_schema_at_the_code_s_revision(url):
    eng = db.engine_for(url)
    assert db.current_revision(eng) is None and inspect(eng).get_table_names() == []
    db.ensure_schema(eng)
    assert db.current_revision(eng) == db.head_revision() == "0002"
    assert set(db.TABLES) <= set(inspect(eng).get_table_names())
    assert db.schema_problem(eng) is None
    db.ensure_schema(eng)  # a second start changes nothing


def test_a_database_at_another_revision_is_refused_in_one_line_and_migrate_mends_an_older_one(url, capsys):
    from hetdp_ui.cli import main

    eng = db.engine_for(url)
    db.upgrade(eng)
    with eng.begin() as c:
        c.execute(text("UPDATE alembic_version SET version_num = 'zz99'"))
    with pytest.raises(db.SchemaMismatch, match=r"schema zz99.*does not know.*newer than the code — upgrade hetdp"):
        db.ensure_schema(eng)
    db.reset_caches()
    with pytest.raises(db.SchemaMismatch, match="upgrade hetdp"):
        ClassStore(url)
    # an older database: the schema's tables gone (as before revision 0001), the version table left
    with eng.begin() as c:
        c.execute(text("DELETE FROM alembic_version"))
    db.reset_caches()
    eng = db.engine_for(url)
    from alembic import command

    cfg = db._alembic_config()
    with eng.begin() as c:
        c.execute(text(f"INSERT INTO alembic_version VALUES ('{db.head_revision()}')"))
    with eng.begin() as c:
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "base")
    assert db.current_revision(eng) is None
    with pytest.raises(db.SchemaMismatch, match=r"no schema yet: run `hetdp class migrate`"):
        db.ensure_schema(eng)
    import os

    os.environ[db.URL_ENV] = url
    try:
        assert main(["class", "migrate"]) == 0
    finally:
        del os.environ[db.URL_ENV]
    assert f"schema empty -> {db.head_revision()}" in capsys.readouterr().out
    db.reset_caches()
    ClassStore(url)  # accepted now


# ---------------------------------------------------------------- a session's life


def test_a_session_records_right_wrong_misconception_and_your_choice_answers(store):
    s = store.start(LESSON)
    assert len(s.code) == 6 and len(s.key) >= 30
    ada, bob = store.join(s.code, "Ada"), store.join(s.code.lower(), "  Bob  ")
    assert store.student(s.code, bob).name == "Bob"
    r = store.record(s.code, ada, step=1, given=0.2, nonce="ada-1-aaaa")
    assert (r.attempt, r.correct, r.misconception) == (1, False, 1)
    assert store.record(s.code, ada, step=1, given=0.2, nonce="ada-1-aaaa") == r  # the same click retried
    # the same answer from a new browser session (its server process died with the nonce): one attempt
    assert store.record(s.code, ada, step=1, given=0.2, nonce="ada-1-zzzz") == r
    assert store.record(s.code, ada, step=1, given=0.0905, nonce="ada-1-bbbb").correct is True
    assert store.record(s.code, bob, step=1, given=0.09, nonce="bob-1-aaaa").attempt == 1
    assert store.record(s.code, bob, step=3, given="YES", nonce="bob-3-aaaa").misconception == 1
    assert store.record(s.code, ada, step=3, given="no", nonce="ada-3-aaaa").correct is True
    assert store.record(s.code, bob, step=5, given=1.5, nonce="bob-5-aaaa").correct is None
    store.reached(s.code, ada, 2)
    stats = {x.step: x for x in store.step_stats(s.code)}
    assert (stats[1].reached, stats[1].answered, stats[1].first_right) == (2, 2, 1)
    assert sorted(stats[1].numbers) == [0.09, 0.2]  # first answers only
    assert stats[1].misconceptions == (1, 0)
    assert stats[2].reached == 2 and stats[2].answered == 0
    assert stats[3].choices == {"yes": 1, "no": 1} and stats[3].misconceptions == (1,)
    assert stats[5].numbers == (1.5,) and stats[5].reached == 1
    assert store.counts(s.code) == {"students": 2, "answers": 6, "poll_reports": 0}
    rows = {(r["student"], r["step"]): r for r in store.export_rows(s.code)}
    assert len(rows) == 2 * 5  # every question step of the lesson, per student
    assert (rows[("Ada", 1)]["first_try_right"], rows[("Ada", 1)]["attempts"], rows[("Ada", 1)]["last_answer"]) == (
        False,
        2,
        0.0905,
    )
    assert rows[("Bob", 5)]["first_try_right"] is None and rows[("Bob", 5)]["last_answer"] == 1.5
    assert rows[("Ada", 2)]["attempts"] == 0 and rows[("Ada", 2)]["answered_at"] is None


def test_close_reopen_and_delete_remove_every_row_of_the_session_and_only_those(store):
    a, b = store.start(LESSON), store.start(LESSON)
    for s in (a, b):
        t = store.join(s.code, "Ada")
        store.record(s.code, t, step=1, given=0.09, nonce=f"{s.code}-n1")
        p = store.open_poll(s.code, question="Reused a password?", eps=1.0)
        store.answer_poll(s.code, t, poll_id=p.id, truth=True, rng=0)
    store.close(a.code)
    assert store.session(a.code).closed
    with pytest.raises(InputError, match="is closed"):
        store.join(a.code, "Cy")
    t = store.join(b.code, "Cy")
    store.reopen(a.code)
    store.join(a.code, "Cy")
    before = everything(store.engine)
    n = store.delete(a.code)
    after = everything(store.engine)
    assert n == 1 + 2 + 1 + 1 + 1  # session, 2 students, answer, poll, report
    assert sum(len(v) for v in before.values()) - sum(len(v) for v in after.values()) == n
    with pytest.raises(InputError, match="names no class session"):
        store.session(a.code)
    assert store.counts(b.code) == {"students": 2, "answers": 1, "poll_reports": 1}
    assert store.student(b.code, t).name == "Cy"


# ---------------------------------------------------------------- bad input: one line, nothing stored


def test_every_bad_input_is_refused_in_one_line_and_stores_nothing(store, monkeypatch):
    s = store.start(LESSON)
    ada = store.join(s.code, "Ada")
    before = everything(store.engine)
    cases = [
        (lambda: store.join("ZZZZZZ", "Bob"), "names no class session"),
        (lambda: store.join("12", "Bob"), "code must be 6 letters"),
        (lambda: store.join(s.code, "x" * 10_000), "at most 40"),
        (lambda: store.join(s.code, "Bob\x00\x1b[2J"), "control or invisible"),
        (lambda: store.join(s.code, "Bob\u200b"), "control or invisible"),
        (lambda: store.join(s.code, "   "), "name is empty"),
        (lambda: store.join(s.code, "ada ".strip().title()), "is taken"),
        (
            lambda: store.record(s.code, ada, step=9, given=1.0, nonce="n-bad-step"),
            "step must be a whole number from 1 to 5",
        ),
        (lambda: store.record(s.code, ada, step=2.0, given=1.0, nonce="n-bad-step2"), "step must be a whole number"),
        (lambda: store.record(s.code, ada, step=1, given="lots", nonce="n-bad-number"), "answer must be a number"),
        (lambda: store.record(s.code, ada, step=1, given=float("nan"), nonce="n-bad-nan"), "finite number"),
        (lambda: store.record(s.code, ada, step=3, given="maybe", nonce="n-bad-choice"), r"one of \['yes', 'no'\]"),
        (lambda: store.record(s.code, ada, step=5, given=99.0, nonce="n-bad-range"), r"lie in \[0.05, 10\]"),
        (lambda: store.record(s.code, "forged-token-123", step=1, given=0.09, nonce="n-forged"), "token is not valid"),
        (lambda: store.record(s.code, ada, step=1, given=0.09, nonce="x"), "nonce must be"),
        (lambda: store.authorize(s.code, "guessed"), "instructor key does not match"),
        (lambda: store.authorize(s.code, None), "instructor key does not match"),
        (lambda: store.start("no-such-lesson"), "lesson must be one of"),
        (lambda: store.open_poll(s.code, question="", eps=1.0), "question is empty"),
        (lambda: store.open_poll(s.code, question="q?", eps=0.0), r"eps must be a number in \[0.05, 10"),
        (lambda: store.open_poll(s.code, question="q" * 301, eps=1.0), "at most 300"),
    ]
    for call, match in cases:
        with pytest.raises(InputError, match=match) as exc:
            call()
        assert "\n" not in str(exc.value)
    assert everything(store.engine) == before
    # a token of another session is no identity here
    other = store.start(LESSON)
    with pytest.raises(InputError, match="token is not valid"):
        store.student(other.code, ada)


def test_a_flood_of_joins_fills_one_session_at_most_to_its_cap(store, monkeypatch):
    monkeypatch.setattr(store_mod, "MAX_STUDENTS", 25)
    s = store.start(LESSON)
    refused = 0
    for i in range(300):  # one client joining again and again (10 000 against the real cap in `make load`)
        try:
            store.join(s.code, f"bot {i}")
        except InputError as exc:
            assert "is full (25 students)" in str(exc)
            refused += 1
    assert store.counts(s.code)["students"] == 25 and refused == 275


def test_a_join_repeated_with_the_same_click_is_the_same_student_and_no_click_takes_another_s_name(store):
    """The click's identity (the page keeps it in its link) makes Join idempotent: a worker that died after
    storing the join leaves the student free to click again elsewhere and be the same student, while a
    name stays with the click that took it."""
    from hetdp_ui.classroom.store import join_token

    s = store.start(LESSON)
    click = "c" * 24
    ada = store.join(s.code, "Ada", click=click)
    assert ada == join_token(click, s.code, "Ada")
    assert store.join(s.code.lower(), "  Ada ", click=click) == ada  # the same click again: same student
    assert store.counts(s.code)["students"] == 1 and store.student(s.code, ada).name == "Ada"
    t = store.record(s.code, ada, step=1, given=0.09, nonce="same-click-1")
    assert t.attempt == 1
    # nobody takes over Ada: another click, or none, with her name is refused
    for other in ("d" * 24, None):
        with pytest.raises(InputError, match="the name 'Ada' is taken"):
            store.join(s.code, "Ada", click=other)
    # the same click with another name (a second join from one tab) is another student; in another
    # session, another one again
    bob = store.join(s.code, "Bob", click=click)
    assert bob != ada and store.student(s.code, bob).name == "Bob"
    other = store.start(LESSON)
    assert store.join(other.code, "Ada", click=click) not in (ada, bob)
    assert store.counts(s.code)["students"] == 2
    # a malformed click is refused, nothing stored
    for bad in ("short", "x" * 65, "c" * 23 + "!", 12345678901234567):
        with pytest.raises(InputError, match="join must be 16 to 64"):
            store.join(s.code, "Cy", click=bad)
    assert store.counts(s.code)["students"] == 2
    # a closed session still answers a join it already stored (the click repeated), and refuses new ones
    store.close(s.code)
    assert store.join(s.code, "Ada", click=click) == ada
    with pytest.raises(InputError, match="is closed"):
        store.join(s.code, "Cy", click="e" * 24)


def test_the_same_join_click_from_two_workers_at_once_is_one_student(store):
    """Two processes storing the same click at the same moment (the browser retried while the first worker
    was still committing): one row, both get the same token, no "name taken"."""
    s = store.start(LESSON)
    got, errors = at_once(24, lambda i: store.join(s.code, f"s{i // 2}", click=f"click-of-student-{i // 2:04d}"))
    assert errors == [] and len(got) == 24 and len(set(got)) == 12
    assert store.counts(s.code)["students"] == 12


def test_the_instructor_key_is_compared_in_constant_time_and_only_its_hash_is_stored(store, monkeypatch):
    s = store.start(LESSON)
    calls = []
    real = hmac.compare_digest
    monkeypatch.setattr(store_mod.hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    assert store.authorize(s.code, s.key).code == s.code
    with pytest.raises(InputError):
        store.authorize(s.code, s.key[:-1])
    assert len(calls) == 2 and all(len(a) == len(b) == 64 for a, b in calls)
    tokens = [store.join(s.code, "Ada")]
    dump = repr(everything(store.engine))
    assert s.key not in dump and tokens[0] not in dump


# ---------------------------------------------------------------- failures: not recorded, a retry stored once


def test_a_full_sqlite_database_says_not_recorded_and_the_retry_is_stored_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'full.sqlite'}"
    store = ClassStore(url)
    s = store.start(LESSON)
    t = store.join(s.code, "Ada")
    eng = db.engine_for(url)

    @event.listens_for(eng, "connect")
    def _full(dbapi_conn, _rec):
        pages = dbapi_conn.execute("PRAGMA page_count").fetchone()[0]
        dbapi_conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLITE_FULL: "database or disk is full"

    eng.dispose()
    n = 0
    given = lambda n: ("yes", "no")[n % 2]  # alternate: the same answer twice in a row is one attempt
    with pytest.raises(StoreUnavailable, match="disk is full"):
        for n in range(2000):  # fill the last free pages
            store.record(s.code, t, step=3, given=given(n), nonce=f"fill-{n:05d}-xxxxxxxxxxxxxxxxxxxx")
    stored = store.counts(s.code)["answers"]
    assert stored == n  # the failed one left nothing half-written
    event.remove(eng, "connect", _full)
    eng.dispose()
    r = store.record(s.code, t, step=3, given=given(n), nonce=f"fill-{n:05d}-xxxxxxxxxxxxxxxxxxxx")  # the retry
    assert r.attempt == n + 1
    assert store.record(s.code, t, step=3, given=given(n), nonce=f"fill-{n:05d}-xxxxxxxxxxxxxxxxxxxx") == r
    assert store.counts(s.code)["answers"] == n + 1


def test_a_postgresql_restart_says_not_recorded_and_the_retry_is_stored_once(postgres):
    store = ClassStore(postgres.new_database())
    s = store.start(LESSON)
    t = store.join(s.code, "Ada")
    store.record(s.code, t, step=1, given=0.2, nonce="before-restart")
    postgres.stop()
    try:
        with pytest.raises(StoreUnavailable, match="not available"):
            store.record(s.code, t, step=1, given=0.09, nonce="during-restart")
    finally:
        postgres.start()
    r = store.record(s.code, t, step=1, given=0.09, nonce="during-restart")
    assert (r.attempt, r.correct) == (2, True)
    assert store.record(s.code, t, step=1, given=0.09, nonce="during-restart") == r
    assert store.counts(s.code)["answers"] == 2


def test_concurrent_answers_from_many_threads_are_each_stored_exactly_once(store):
    s = store.start(LESSON)
    tokens = [store.join(s.code, f"s{i}") for i in range(12)]

    def answer(i):
        for step, given in ((1, 0.2), (1, 0.09), (3, "no")):
            store.record(s.code, tokens[i], step=step, given=given, nonce=f"conc-{i}-{step}-{given}")
            store.record(s.code, tokens[i], step=step, given=given, nonce=f"conc-{i}-{step}-{given}")  # a retry

    _, errors = at_once(len(tokens), answer)
    assert errors == []
    assert store.counts(s.code)["answers"] == 12 * 3
    stats = {x.step: x for x in store.step_stats(s.code)}
    assert stats[1].answered == 12 and stats[1].first_right == 0 and stats[1].misconceptions == (12, 0)


# ---------------------------------------------------------------- the private poll


def test_the_poll_estimator_is_unbiased_and_its_interval_covers_at_the_stated_rate():
    """π = 0.3, ε = 1, 200 students, 4 000 classes: mean of π̂ within 0.006 of π (its standard error
    is ≈ 0.0012) and 95 % intervals covering π in 93–97 % of classes. The naive raw share of "yes"
    (no de-biasing) is off by ≈ 0.09 and fails the first check."""
    rng = np.random.default_rng(4376)
    pi, eps, n, reps = 0.3, 1.0, 200, 4000
    truth = rng.random((reps, n)) < pi
    sent = randomize(truth, eps=eps, rng=rng)
    ests = [estimate(yes=int(y), n=n, eps=eps) for y in sent.sum(axis=1)]
    mean = np.mean([e.estimate for e in ests])
    cover = np.mean([e.low <= pi <= e.high for e in ests])
    assert abs(mean - pi) < 0.006, mean
    assert 0.93 <= cover <= 0.97, cover
    raw = np.mean([e.raw_share for e in ests])
    assert abs(raw - pi) > 0.05  # the broken (not de-biased) estimator is caught by the first check
    p = truth_probability(eps=eps)
    assert abs(sent.mean() - (p * pi + (1 - p) * (1 - pi))) < 0.003


def test_poll_inputs_are_checked():
    with pytest.raises(InputError, match="eps"):
        truth_probability(eps=0.0)
    with pytest.raises(InputError, match="yes"):
        estimate(yes=5, n=3, eps=1.0)
    with pytest.raises(InputError, match="truth must hold yes/no"):
        randomize([0.5], eps=1.0, rng=0)
    e = estimate(yes=0, n=0, eps=1.0)
    assert e.estimate is None and e.n == 0


def test_no_true_poll_answer_reaches_the_database_or_a_log(store, caplog):
    s = store.start(LESSON)
    tokens = [store.join(s.code, f"s{i}") for i in range(40)]
    poll = store.open_poll(s.code, question="Have you ever reused a password?", eps=0.5)
    seen = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def _spy(conn, cursor, statement, parameters, context, executemany):
        seen.append((statement, parameters))

    caplog.set_level("DEBUG")
    sent = {}
    try:
        for i, t in enumerate(tokens):
            seen.clear()
            sent[i] = store.answer_poll(s.code, t, poll_id=poll.id, truth=True, rng=i)
            if not sent[i]:  # the coin flipped: "True" must appear in no statement of this answer
                for statement, params in seen:
                    assert "true" not in statement.lower() or "reported" not in statement.lower()
                    flat = params.values() if isinstance(params, dict) else params
                    assert True not in [v for v in flat if isinstance(v, bool)], (statement, params)
    finally:
        event.remove(store.engine, "before_cursor_execute", _spy)
    flipped = [i for i, v in sent.items() if not v]
    assert 5 <= len(flipped) <= 30  # at ε = 0.5 about 38 % are flipped
    cols = {c["name"] for c in inspect(store.engine).get_columns("poll_report")}
    assert cols == {"id", "poll_id", "student_id", "reported", "reported_at"}
    with store.engine.connect() as c:
        stored = [bool(r[0]) for r in c.execute(text("SELECT reported FROM poll_report ORDER BY student_id"))]
    assert stored == [sent[i] for i in range(40)]
    assert not any("truth" in r.getMessage().lower() for r in caplog.records)
    # a second answer does not replace the first; the estimate counts each student once
    assert store.answer_poll(s.code, tokens[0], poll_id=poll.id, truth=False, rng=99) == sent[0]
    info, est = store.poll_estimate(s.code)
    assert est.n == 40 and est.yes == sum(sent.values()) and info.open
    store.close_poll(s.code)
    with pytest.raises(InputError, match="poll is closed"):
        store.answer_poll(s.code, store.join(s.code, "late"), poll_id=poll.id, truth=True)


# ---------------------------------------------------------------- the CLI


def test_the_cli_starts_lists_exports_closes_and_deletes_a_session(tmp_path, monkeypatch, capsys):
    import csv
    import json

    from hetdp_ui.cli import main

    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    monkeypatch.setenv(db.URL_ENV, url)
    assert main(["class", "start", LESSON, "--json", "--base-url", "https://class.example/hetdp/"]) == 0
    got = json.loads(capsys.readouterr().out)
    code = got["code"]
    assert got["student"] == f"https://class.example/hetdp/Class?code={code}"
    assert got["instructor"].startswith(got["student"] + "&key=")
    store = ClassStore(url)
    t = store.join(code, "Ada")
    store.record(code, t, step=1, given=0.2, nonce="cli-aaaaaa")
    assert main(["class", "list"]) == 0 and f"{code}  {LESSON}" in capsys.readouterr().out
    out = tmp_path / "export.csv"
    assert main(["class", "export", code, "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == len([s for s in bundled_lesson(LESSON).steps if s.question])
    assert rows[0]["student"] == "Ada" and rows[0]["first_try_right"] == "False" and rows[0]["misconception"] == "1"
    assert main(["class", "close", code]) == 0 and store.session(code).closed
    assert main(["class", "reopen", code]) == 0 and not store.session(code).closed
    assert main(["class", "delete", code]) == 0
    capsys.readouterr()
    assert main(["class", "export", code]) == 2
    assert "names no class session" in capsys.readouterr().err
    monkeypatch.setenv(db.URL_ENV, "postgresql+psycopg://nobody@127.0.0.1:1/none")
    db.reset_caches()
    assert main(["class", "list"]) == 3
    assert "class database is not available" in capsys.readouterr().err


def test_the_poll_figure_draws_the_estimate_within_0_and_1_with_its_interval():
    from hetdp_ui.folders import figures_of

    poll_figure = figures_of("class").poll_figure

    hist = (estimate(yes=1, n=1, eps=1.0), estimate(yes=0, n=2, eps=1.0), estimate(yes=30, n=100, eps=1.0))
    fig = poll_figure(hist)
    est, raw = fig.data
    assert est.y[0] == 1.0 and est.customdata[0] > 1.5  # 158 % unbiased, drawn at 100 %, said on hover
    assert est.y[1] == 0.0 and est.customdata[1] < 0
    for h, y, up, down in zip(hist, est.y, est.error_y.array, est.error_y.arrayminus):
        assert 0 <= y <= 1 and abs(y + up - h.high) < 1e-12 and abs(y - down - h.low) < 1e-12
    assert list(raw.y) == [1.0, 0.0, 0.3]
