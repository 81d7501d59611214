"""The small version of ``make load``'s class run: students speaking Streamlit's websocket protocol
join a class session and answer every step through two workers behind nginx sharing one SQLite file,
while an instructor's live view refreshes, their poll boxes look for a poll, and one worker is killed
with SIGKILL in the middle. Every answer is stored exactly once (counted in the database); no exception
or error element. And the rush's lock-out, small: a join whose worker dies before it answers, then the
same student continuing on the other worker. Latency promises are measured by `make load`
(benchmarks/class_load.py), not asserted on a shared machine."""

import asyncio
import os
import re
import signal
import sys
import threading
import time
from urllib.parse import parse_qs, urlencode

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import class_load  # noqa: E402
import load  # noqa: E402

from hetdp_ui.classroom import db  # noqa: E402


def test_a_small_class_through_two_workers_survives_a_killed_worker(monkeypatch):
    from hetdp_ui.serve import Stack

    monkeypatch.setattr(class_load, "THINK", (0.5, 1.5))  # `make load` thinks 3–12 s: two minutes a class
    monkeypatch.setattr(class_load, "POLL_REFRESH", 0.4)  # so the short thinking still has poll checks
    monkeypatch.setattr(class_load, "DEADLINE", 300.0)  # about a minute here: stuck students fail, never hang
    stack = Stack(workers=2, port=load.free_port()).start(timeout=240)
    stop = threading.Event()
    sup = threading.Thread(target=stack.supervise, args=(stop,), kwargs={"interval": 0.3}, daemon=True)
    sup.start()
    fault = class_load.kill_fault(stack)
    fault.at = 12.0
    try:
        out = class_load.run_class(stack.url, db.database_url(), students=12, arrive=6, fault=fault, baseline=False)
    finally:
        stop.set()
        sup.join(5)
        stack.stop()
    c = out["class"]
    assert out["promises"]["every answer stored exactly once"], c
    assert out["promises"]["no exception or error element"], c
    assert out["promises"]["no student locked out"] and out["promises"]["answers stored in order"], c
    assert c["stored"] == {
        "students": 12,
        "answers": 12 * 5,
        "poll_reports": 0,
        "second_attempts": 0,
        "stored_out_of_order": 0,
    }, c
    assert c["refreshes"] >= 3, c  # the instructor's fragment kept refreshing
    assert c["poll_checks"] >= 1, c  # and the students' poll boxes looked for a poll while they thought
    assert getattr(fault, "done", None), "the worker was killed during the crowd"
    assert c["reconnects"] >= 1, c  # some students were on the killed worker and went on elsewhere


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    """Two workers (A, B) on one SQLite file, each with one queue slot (HETDP_CLASS_SLOTS=1): (database URL,
    A's process, A's URL, B's URL). Only the join test kills A; every test that needs a live worker uses B."""
    from hetdp_ui.serve import start_streamlit

    url = f"sqlite:///{tmp_path_factory.mktemp('class') / 'class.sqlite'}"
    env = {**os.environ, "HETDP_DATABASE_URL": url, "HETDP_CLASS_SLOTS": "1"}
    procs = [start_streamlit(load.free_port(), env=env, timeout=180) for _ in range(2)]
    urls = [f"http://127.0.0.1:{p.args[p.args.index('--server.port') + 1]}" for p in procs]
    yield url, procs[0], *urls
    for p in procs:
        if p.poll() is None:
            p.terminate()
            p.wait(10)


def test_a_join_whose_worker_dies_before_it_answers_is_the_same_student_on_the_other_worker(two_workers):
    """The browser clicks Join on worker A; A stores the student and is killed (SIGKILL) before the browser
    has read a word of its answer. The browser reconnects — to worker B, where nginx sends it — with the
    address it has (the join form wrote the click's identity into it before the click), clicks Join again
    and is the same student, not "the name is taken"; then answers step 1, stored once."""
    from hetdp_ui.classroom.store import ClassStore

    url, a, a_url, b_url = two_workers
    store = ClassStore(url)
    s = store.start(class_load.LESSON)

    def join(widgets):
        return [
            (widgets["class_name"][0], {"string_value": "Ada"}),
            (widgets["class_join"][0], {"trigger_value": True}),
        ]

    async def on_a() -> str:
        async with load.Browser(a_url) as browser:
            run = await browser.run(class_load.CLASS, f"code={s.code}")
            await browser.send(class_load.CLASS, run.query, join(run.widgets))  # the click; its answer never read
            deadline = time.monotonic() + 120
            while store.counts(s.code)["students"] == 0:  # the join is stored…
                assert time.monotonic() < deadline, "worker A did not store the join"
                await asyncio.sleep(0.01)
            os.kill(a.pid, signal.SIGKILL)  # …and its worker dies before the browser heard back
            a.wait(10)
            return run.query

    async def on_b(address: str):
        async with load.Browser(b_url) as browser:
            run = await browser.run(class_load.CLASS, address)  # the reconnect: same address, a new session
            assert "class_name" in run.widgets and not run.errors, run.errors
            run = await browser.run(class_load.CLASS, address, join(run.widgets))
            assert not run.errors and run.query and "me=" in run.query, (run.errors, run.query)
            token = parse_qs(run.query)["me"][0]
            assert run.has("as **Ada**")  # step 1 opened, as Ada
            lesson = class_load.bundled_lesson(class_load.LESSON)
            link = urlencode({"lesson": class_load.LESSON, "step": 1, "class": s.code, "me": token})
            states, fragment = class_load._answer_state(lesson, 1, run.widgets, 0)
            answered = await browser.run(lesson.steps[0].page, link, states, fragment=fragment)
            assert answered.has("Your answer was recorded (attempt 1)"), answered.texts
            return token

    address = load.arun(on_a())
    assert "join=" in address
    token = load.arun(on_b(address))
    assert store.student(s.code, token).name == "Ada"
    assert store.counts(s.code) == {"students": 1, "answers": 1, "poll_reports": 0}


def test_a_waiting_answer_says_it_is_queued_is_stored_in_its_turn_and_the_instructor_goes_first(two_workers):
    """One worker with one queue slot (HETDP_CLASS_SLOTS=1). Ada's answer takes the slot and waits for the
    database (this test holds SQLite's write lock); Bob's answer, sent after hers, waits in the queue, and
    after 2 s says so. Meanwhile the instructor's live view refreshes: it never waits for the queue. When
    the lock is released both are stored, Ada's first; Bob's answer then says it was recorded."""
    import sqlite3

    from hetdp_ui.class_queue import ANSWER_WORDS
    from hetdp_ui.classroom.store import ClassStore

    url, _, _, base = two_workers  # worker B
    store = ClassStore(url)
    s = store.start(class_load.LESSON)
    tokens = {name: store.join(s.code, name) for name in ("Ada", "Bob")}
    lesson = class_load.bundled_lesson(class_load.LESSON)
    page = lesson.steps[0].page
    queued_words = ANSWER_WORDS.split("(")[0].strip()  # "Your answer is queued"

    def link(name):
        return urlencode({"lesson": class_load.LESSON, "step": 1, "class": s.code, "me": tokens[name]})

    async def answer(browser, name, opened, i):
        states, fragment = class_load._answer_state(lesson, 1, opened.widgets, i)
        return await browser.run(page, link(name), states, fragment=fragment)

    async def go():
        async with load.Browser(base) as ada, load.Browser(base) as bob, load.Browser(base) as teacher:
            opened = {n: await b.run(page, link(n)) for n, b in (("Ada", ada), ("Bob", bob))}
            live = await teacher.run(class_load.CLASS, f"code={s.code}&key={s.key}")
            lock = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None, timeout=30)
            lock.execute("BEGIN IMMEDIATE")  # every write waits until the test commits
            first = asyncio.create_task(answer(ada, "Ada", opened["Ada"], 1))
            await asyncio.sleep(1.0)  # Ada's answer holds the only slot, waiting for the database
            second = asyncio.create_task(answer(bob, "Bob", opened["Bob"], 2))
            await asyncio.sleep(3.5)  # Bob's answer waits in the queue longer than the notice's 2 s
            refresh = await teacher.run(class_load.CLASS, f"code={s.code}&key={s.key}", fragment=live.auto_rerun)
            waiting = not first.done() and not second.done()  # the refresh ran while both still waited
            lock.execute("COMMIT")
            lock.close()
            return await first, await second, refresh, waiting

    first, second, refresh, waiting = load.arun(go())
    assert waiting and refresh.status == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY" and refresh.has("students joined")
    assert second.has(queued_words) and not first.has(queued_words), (first.texts, second.texts)
    # its notice stays once its turn came, saying how long it waited (seconds rounded: at least 2)
    assert re.search(r"Your answer was queued for ([2-9]|\d\d+) s", " ".join(second.texts)), second.texts
    assert first.has("Your answer was recorded (attempt 1)") and second.has("Your answer was recorded (attempt 1)")
    with store.engine.connect() as c:
        from sqlalchemy import text

        order = c.execute(
            text(
                "SELECT s.name FROM answer a JOIN student s ON s.id = a.student_id "
                "JOIN class_session cs ON cs.id = s.session_id WHERE cs.code = :c ORDER BY a.id"
            ),
            {"c": s.code},
        )
        assert [r.name for r in order] == ["Ada", "Bob"]


def test_a_student_who_failed_over_goes_back_to_their_own_worker_once_it_serves_again():
    """`make serve` with two workers. Ada's route goes to worker A; A is killed and her step page opens on
    B (nginx's next worker). A is restarted; Ada's next step page on B stops, says she is moving, and B
    closes her websocket once her session is idle; her reconnect opens the step on A, as Ada. Bob, whose
    route goes to B, opens his steps on B before and after: never moved. (The rush without this: the
    restarted worker idled at 0 % CPU while the survivor held the whole class at 100 %.)"""
    from hetdp_ui import handback
    from hetdp_ui.classroom.store import ClassStore
    from hetdp_ui.serve import Stack

    stack = Stack(workers=2, port=load.free_port()).start(timeout=240)
    try:
        a, b = (f"127.0.0.1:{p}" for p in stack.worker_ports)
        homes = {f"student-{i}": handback.home_of(f"student-{i}", stack.url) for i in range(64)}
        ada = next(r for r, h in homes.items() if h == a)
        bob = next(r for r, h in homes.items() if h == b)
        store = ClassStore(db.database_url())
        s = store.start(class_load.LESSON)
        page = class_load.bundled_lesson(class_load.LESSON).steps[0].page

        def link(name):
            token = store.join(s.code, name)
            return urlencode({"lesson": class_load.LESSON, "step": 1, "class": s.code, "me": token})

        links = {"Ada": link("Ada"), "Bob": link("Bob")}
        stack.procs[0].kill()
        stack.procs[0].wait(10)

        async def go():
            async with load.Browser(stack.url, cookie=ada) as on_b, load.Browser(stack.url, cookie=bob) as bobs:
                first = await on_b.run(page, links["Ada"])
                assert on_b.worker.endswith(b) and first.has("as **Ada**"), (on_b.worker, first.texts)
                assert (await bobs.run(page, links["Bob"])).has("as **Bob**") and bobs.worker == b
                t0 = time.monotonic()
                assert stack.supervise_once() == [f"worker-{stack.worker_ports[0]}"]  # A restarts
                while handback.home_of(ada, stack.url) != a:
                    assert time.monotonic() - t0 < 180, "worker A did not serve again"
                    await asyncio.sleep(0.5)
                await asyncio.sleep(max(0.0, handback.CHECK_EVERY - (time.monotonic() - t0)))
                moved = await on_b.run(page, links["Ada"])
                assert moved.has(handback.WORDS) and not moved.has("Question"), moved.texts
                with pytest.raises(load.Disconnected):  # B closes Ada's websocket once she is idle
                    async with asyncio.timeout(60):
                        while True:
                            await asyncio.sleep(0.5)
                            await on_b.run(page, links["Ada"], fragment=first.auto_rerun, auto=True)
                again = await bobs.run(page, links["Bob"])  # Bob is at home on B: he stays
                assert again.has("as **Bob**") and not again.has(handback.WORDS) and bobs.worker == b
            async with load.Browser(stack.url, cookie=ada) as home:
                back = await home.run(page, links["Ada"])
                assert home.worker == a and back.has("as **Ada**") and not back.has(handback.WORDS), back.texts

        load.arun(go())
    finally:
        stack.stop()
