"""A class under load (``make load``): virtual students who join a class session and answer a lesson
through ``make serve WORKERS=2``, speaking Streamlit's own websocket protocol — the messages a browser
sends when a link is opened, a name is typed, a button is clicked, and the class poll box's check
every 5 s while a student thinks (a fragment the browser reruns by itself) — while an instructor's
live view refreshes its fragment every 3 s.

    python benchmarks/class_load.py                         # SQLite and PostgreSQL, then the faults
    python benchmarks/class_load.py --db sqlite --students 50 --fault none
    python benchmarks/class_load.py --db postgresql --fault pg-restart
    python benchmarks/class_load.py --scenario rush         # 300 students in 10 s, a worker killed
    python benchmarks/class_load.py --scenario two-machines # the rush across two `make serve` instances

(``--scenario rush`` and ``two-machines``: benchmarks/class_rush.py.) Every student's browser keeps a
route cookie (nginx keeps it on one worker) and its address: the join form's click identity is in it,
so a join cut off by its worker is clicked again with the same address, as a reconnecting browser does.

Per database the run has two phases with the same crowd and pacing (students arrive over
``--arrive`` = 30 s and think ``--think`` = 3–12 s between actions, so the class's twelve actions per
student fit in about two minutes):

* **baseline** — every student walks the lesson without a session: opens each step's link and checks an
  answer (the cost of the page; nothing recorded);
* **class** — every student joins through the student link (types a name, clicks *Join*), then on each
  step opens the step's link and answers (number, choice or "your choice" slider) with *Check my
  answer*, retrying after "Not recorded — try again".

Promises checked (exit 1 if one fails): every answer stored exactly once (counted in the database:
students × steps rows, no attempt 2), no student locked out of their name, each student's answers
stored in order, no exception or error element, the live view's refresh p95 ≤ 2 s, every answer slower
than 5 s said it was queued, the students' poll check p95 ≤ 2 s (where they think longer than the poll
box's 5 s), and a student's answer p95 ≤ 3 × the baseline's page-open p95.

Faults (``--fault``): **kill** — SIGKILL one of the two workers 20 s into the class phase (its students
reconnect to the other worker and continue from their link: identity and place kept, the repeated
answer stored once); **pg-restart** — stop PostgreSQL for 5 s during the crowd (answers meanwhile say
"not recorded", the retry stores them once); **disk-full** — the SQLite file on a small tmpfs filled to
the last byte for 5 s (same promise). With ``--fault all`` also a **flood**: one client joining one
session 10 000 times fills it only up to its cap of 500 students, every further join refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import load  # noqa: E402
from class_checks import count_rows  # noqa: E402
from class_faults import Tmpfs, disk_full_fault, flood, kill_fault, pg_restart_fault  # noqa: E402, F401
from load import Browser, Disconnected, Run  # noqa: E402
from load import percentile as p  # noqa: E402

from hetdp_core.teaching.lessons import bundled_lesson  # noqa: E402
from hetdp_ui.class_panel import POLL_REFRESH  # noqa: E402
from hetdp_ui.folders import LIVE_CLASS, page_for  # noqa: E402
from hetdp_ui.handback import WORDS as HANDED_BACK  # noqa: E402  (a step page moving its student back)

#: the live-class page's URL path (the page playing the live-class role)
CLASS = page_for(LIVE_CLASS).url

LESSON = "1-bcdp-feature-privacy"
ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


@dataclass
class Tally:
    """Latencies and problems of one phase."""

    opens: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    joins: list[float] = field(default_factory=list)
    refresh: list[float] = field(default_factory=list)
    polls: list[float] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    not_recorded: int = 0
    reconnects: int = 0
    failures: list[str] = field(default_factory=list)
    locked_out: int = 0
    queued_answers: int = 0  # answers that said they were queued
    slow_unqueued: int = 0  # answers slower than SLOW_ANSWER that did not
    queued_pages: int = 0
    handed_back: int = 0  # step pages that moved the student back to their own worker (hetdp_ui.handback)
    slow: list = field(default_factory=list)  # (start, seconds, worker) of slow answers not said queued
    t0: float = field(default_factory=time.time)  # when the phase started (wall clock)
    joined_on: dict[str, int] = field(default_factory=dict)  # worker → students who arrived there

    def note(self, run: Run, *, expected_errors=()) -> None:
        self.exceptions += run.exceptions
        self.errors += [e for e in run.errors if not any(x in e for x in expected_errors)]

    def answer(self, run: Run, worker: str | None = None) -> None:
        """One *Check my answer*: its latency, and whether a slow one said it was queued."""
        self.answers.append(run.seconds)
        queued = any(run.has(words) for words in QUEUED_ANSWER)
        self.queued_answers += queued
        if run.seconds > SLOW_ANSWER and not queued:
            self.slow_unqueued += 1
            self.slow.append((round(time.time() - run.seconds - self.t0, 1), round(run.seconds, 1), worker))


def _answer_state(lesson, k: int, widgets: dict, i: int):
    """(widget states, fragment id) answering step k: student i's value and the step's check button;
    the question is a fragment, so a browser reruns only it (the fragment id goes with the rerun)."""
    q = lesson.steps[k - 1].question
    key = f"lesson_{LESSON}_{k}"
    wid = widgets[f"{key}_answer"][0]
    if q.kind == "number":
        value = {"double_value": [q.answer, q.answer * 1.7, 0.2][i % 3] if k == 1 else q.answer + (i % 2)}
    elif q.kind == "choice":
        value = {"string_value": q.choices[i % len(q.choices)]}  # a radio sends its option label
    else:
        value = {"double_array_value": {"data": [round(q.low + (i % 20) * q.slider_step * 5, 6)]}}
    check = widgets[f"{key}_check"]
    return [(wid, value), (check[0], {"trigger_value": True})], check[2] or None


#: seconds a student thinks between two actions (uniform): 12 actions in about two minutes
THINK = (3.0, 12.0)


async def baseline_student(url: str, i: int, lesson, tally: Tally, arrive: float) -> None:
    """The same walk without a session: open each step's link, answer, nothing recorded."""
    await asyncio.sleep(random.Random(i).uniform(0, arrive))
    rnd = random.Random(1000 + i)
    async with Browser(url) as b:
        await asyncio.sleep(rnd.uniform(*THINK))  # as long as a student takes to join
        for k, step in enumerate(lesson.steps, start=1):
            link = urlencode({"lesson": LESSON, "step": k})
            run = await b.run(step.page, link)
            tally.opens.append(run.seconds)
            tally.note(run)
            await asyncio.sleep(rnd.uniform(*THINK))
            states, fragment = _answer_state(lesson, k, run.widgets, i)
            run = await b.run(step.page, link, states, fragment=fragment)
            tally.answers.append(run.seconds)
            tally.note(run)
            await asyncio.sleep(rnd.uniform(*THINK))


#: how many times a student tries one thing again (a reload, a join, an answer) before the run calls it a
#: failure, naming what the page said: a load client that retried forever once held CI for an hour
RETRIES = 30


class Stuck(Exception):
    """A student tried one thing :data:`RETRIES` times without the page answering it."""


def _tried(counts: dict, what: str, run) -> None:
    """Count one more try at ``what``; past :data:`RETRIES`, :class:`Stuck` naming what the page said."""
    counts[what] = counts.get(what, 0) + 1
    if counts[what] > RETRIES:
        said = "; ".join((run.errors or run.texts or ["nothing"])[:3]) if run is not None else "no run"
        raise Stuck(f"{what}: tried {RETRIES} times; the page said: {said}")


class LockedOut(Exception):
    """Join said the student's own name is taken: their join went through on a worker that died."""


@dataclass
class Student:
    """What one virtual student's browser keeps across reconnects: its address and its identity."""

    name: str
    query: str  # the live-class page's query string, as the address bar has it (the page adds its join click)
    token: str | None = None
    k: int = 1  # the step it is on
    first_worker: str | None = None  # where its first connection went (through nginx)


#: what the server says (hetdp_ui.class_queue): a queued answer, waiting or once its turn came (a browser
#: may get only the second: Streamlit replaces an unsent update), and a page opening in turn
QUEUED_ANSWER, QUEUED_PAGE = ("Your answer is queued", "Your answer was queued"), "this page opens in turn"
#: an answer slower than this must have said it was queued (the notice comes after 2 s of waiting)
SLOW_ANSWER = 5.0


async def class_student(url: str, code: str, i: int, lesson, tally: Tally, arrive: float) -> None:
    """Join, then open and answer every step; reconnect on a dead worker and go on from the link (a join
    cut off by its worker is clicked again with the same address: the same student)."""
    await asyncio.sleep(random.Random(i).uniform(0, arrive))
    rnd = random.Random(2000 + i)
    me = Student(f"student {i:03d}", f"code={code}")
    tries: dict = {}
    while me.k <= len(lesson.steps):
        try:
            _tried(tries, f"a connection at step {me.k}", None)
            async with Browser(url, cookie=f"student-{i}") as b:  # a browser's route cookie: sticky
                if b.worker and me.first_worker is None:
                    me.first_worker = b.worker
                    tally.joined_on[b.worker] = tally.joined_on.get(b.worker, 0) + 1
                opened = None
                if me.token is None:
                    opened = await join(b, me, rnd, tally)
                    if opened is None:
                        _tried(tries, "the join", None)
                        continue
                await walk(b, code, me, lesson, i, opened, rnd, tally)
        except Disconnected:
            tally.reconnects += 1
            await asyncio.sleep(1)
        except LockedOut:
            tally.failures.append(f"{me.name}: locked out of their own name")
            tally.locked_out += 1
            return
        except (TimeoutError, KeyError, Stuck) as exc:
            tally.failures.append(f"{me.name} at step {me.k}: {type(exc).__name__}: {exc}"[:300])
            return


async def join(b: Browser, me: Student, rnd, tally: Tally):
    """Open the student link, type the name, click *Join*: the run that opened step 1, or None to try
    again (the database was down, or the join was not stored)."""
    run = await b.run(CLASS, me.query)
    tally.note(run, expected_errors=("The class database is not reachable",))
    if "class_name" not in run.widgets:  # the database is down: the student reloads
        tally.not_recorded += 1
        await asyncio.sleep(1)
        return None
    me.query = run.query or me.query  # the page wrote its join click into the address
    await asyncio.sleep(rnd.uniform(*THINK))
    w = run.widgets
    states = [(w["class_name"][0], {"string_value": me.name}), (w["class_join"][0], {"trigger_value": True})]
    run = await b.run(CLASS, me.query, states)
    tally.joins.append(run.seconds)
    if run.query is None or "me=" not in run.query:
        tally.note(run, expected_errors=("Not joined", "The class database is not reachable"))
        if any("is taken" in e for e in run.errors):
            raise LockedOut
        await asyncio.sleep(1)
        return None
    me.token = parse_qs(run.query)["me"][0]
    tally.note(run)
    return run  # the join opened step 1 (st.switch_page), as in a browser


async def walk(b: Browser, code: str, me: Student, lesson, i: int, opened, rnd, tally: Tally) -> None:
    """Open and answer the steps from ``me.k`` on (``opened``: step k's run, if the join opened it)."""
    link = urlencode({"lesson": LESSON, "step": me.k, "class": code, "me": me.token})
    tries: dict = {}
    while me.k <= len(lesson.steps):
        page = lesson.steps[me.k - 1].page
        if opened is None:
            run = await b.run(page, link)
            tally.opens.append(run.seconds)
            tally.queued_pages += run.has(QUEUED_PAGE)
            tally.handed_back += run.has(HANDED_BACK)
            tally.note(run)
        else:
            run, opened = opened, None
        if not run.has(f"as **{me.name}**"):  # the database did not answer the check of the link
            tally.not_recorded += 1
            _tried(tries, f"opening step {me.k} as {me.name}", run)
            await asyncio.sleep(1)
            continue
        poll_box = run.auto_rerun  # the class poll's fragment, which a browser reruns by itself
        if poll_box is None:
            tally.failures.append(f"{me.name} at step {me.k}: the page has no auto-rerunning poll box")
            raise KeyError("poll box")
        await think(b, page, link, poll_box, rnd.uniform(*THINK), tally)
        widgets = run.widgets
        while True:
            states, fragment = _answer_state(lesson, me.k, widgets, i)
            run = await b.run(page, link, states, fragment=fragment)
            tally.answer(run, b.worker)
            tally.note(run, expected_errors=("Not recorded — the class database did not answer",))
            if run.has("Your answer was recorded"):
                break
            tally.not_recorded += 1
            _tried(tries, f"answering step {me.k}", run)
            await asyncio.sleep(1)
        me.k += 1
        await think(b, page, link, poll_box, rnd.uniform(*THINK), tally)
        link = urlencode({"lesson": LESSON, "step": me.k, "class": code, "me": me.token})


async def think(b: Browser, page: str, link: str, poll_box: str, seconds: float, tally: Tally) -> None:
    """A student thinking for ``seconds`` on a step's page, whose poll box (a fragment) the browser
    reruns every POLL_REFRESH seconds meanwhile, as Streamlit's frontend does."""
    end = time.perf_counter() + seconds
    while (left := end - time.perf_counter()) > 0:
        await asyncio.sleep(min(left, POLL_REFRESH))
        if time.perf_counter() < end:
            run = await b.run(page, link, fragment=poll_box, auto=True)
            tally.polls.append(run.seconds)
            tally.note(run)


async def instructor(url: str, code: str, key: str, tally: Tally, stop: asyncio.Event) -> None:
    query = f"code={code}&key={key}"
    while not stop.is_set():
        try:
            async with Browser(url, cookie="instructor") as b:
                first = await b.run(CLASS, query)
                tally.note(first)
                fragment = first.auto_rerun
                if fragment is None:
                    tally.failures.append("the live view has no auto-rerunning fragment")
                    return
                while not stop.is_set():
                    await asyncio.sleep(3)
                    run = await b.run(CLASS, query, fragment=fragment, auto=True)
                    tally.refresh.append(run.seconds)
                    tally.note(run)
        except Disconnected:
            tally.reconnects += 1
            await asyncio.sleep(1)


#: seconds a phase (every student's walk) may take before the run stops it as a failure
DEADLINE = 1800.0


async def phase(url, coros_of_students, code=None, key=None, tally=None):
    stop = asyncio.Event()
    inst = asyncio.create_task(instructor(url, code, key, tally, stop)) if code else None
    try:
        async with asyncio.timeout(DEADLINE):
            await asyncio.gather(*coros_of_students)
    except TimeoutError:
        raise TimeoutError(f"the class did not finish within {DEADLINE:g} s") from None
    finally:
        stop.set()
        if inst is not None:
            await inst


def _cpu(pids, since=None):
    """Server CPU seconds (workers and their children) since ``since``; None without pids. ``pids`` may be
    a callable giving the workers' pids now (a killed worker's restart has a new one); a worker that died
    and was reaped counts in this process's children's times."""
    if pids is None:
        return None
    t = os.times()
    now = load.tree_cpu_seconds(list(pids() if callable(pids) else pids)) + t.children_user + t.children_system
    return now if since is None else round(now - since, 1)


def _class_summary(tally: Tally, *, students: int, seconds: float, cpu) -> dict:
    """The class phase's numbers: latencies (p50/p95), counts and the first problem of each kind."""
    return {
        "students": students,
        "seconds": round(seconds, 1),
        "server_cpu_s": cpu,
        "runs": len(tally.opens) + len(tally.answers) + 2 * len(tally.joins) + len(tally.refresh) + len(tally.polls),
        "join_p95_s": p(tally.joins, 0.95),
        "open_p95_s": p(tally.opens, 0.95),
        "answer_p50_s": p(tally.answers, 0.5),
        "answer_p95_s": p(tally.answers, 0.95),
        "refresh_p50_s": p(tally.refresh, 0.5),
        "refresh_p95_s": p(tally.refresh, 0.95),
        "refreshes": len(tally.refresh),
        "poll_check_p95_s": p(tally.polls, 0.95),
        "poll_checks": len(tally.polls),
        "not_recorded_then_retried": tally.not_recorded,
        "reconnects": tally.reconnects,
        "locked_out": tally.locked_out,
        "answers_said_queued": tally.queued_answers,
        "slow_answers_not_said_queued": tally.slow_unqueued,
        "pages_said_queued": tally.queued_pages,
        "handed_back": tally.handed_back,
        "students_arrived_on": dict(sorted(tally.joined_on.items())),
        "slow_answers_not_said_queued_first": tally.slow[:10],
        "exceptions": len(tally.exceptions),
        "error_elements": len(tally.errors),
        "first_failure": (tally.failures or [None])[0],
        "first_exception": (tally.exceptions or [None])[0],
        "first_error_element": (tally.errors or [None])[0],
    }


def run_class(
    url: str, db_url: str, *, students: int, arrive: float, fault=None, baseline: bool = True, pids=None
) -> dict:
    """One baseline phase and one class phase against a running server; ``fault`` is a callable run
    in a thread 20 s into the class phase (or at ``fault.at`` seconds)."""
    from hetdp_ui.classroom.store import ClassStore

    lesson = bundled_lesson(LESSON)
    out = {}
    if baseline:
        base = Tally()
        t0, c0 = time.perf_counter(), _cpu(pids)
        load.arun(phase(url, [baseline_student(url, i, lesson, base, arrive) for i in range(students)]))
        out["baseline"] = {
            "seconds": round(time.perf_counter() - t0, 1),
            "server_cpu_s": _cpu(pids, c0),
            "runs": len(base.opens) + len(base.answers),
            "open_p50_s": p(base.opens, 0.5),
            "open_p95_s": p(base.opens, 0.95),
            "answer_p95_s": p(base.answers, 0.95),
            "exceptions": len(base.exceptions),
            "error_elements": len(base.errors),
        }
    started = ClassStore(db_url).start(LESSON)
    tally = Tally()
    t0, c0, me0 = time.perf_counter(), _cpu(pids), time.process_time()
    th = None
    if fault is not None:
        th = threading.Timer(getattr(fault, "at", 20.0), fault)
        th.start()
    with load.LoadAverage() as machine:
        crowd = [class_student(url, started.code, i, lesson, tally, arrive) for i in range(students)]
        load.arun(phase(url, crowd, started.code, started.key, tally))
    if th is not None:
        th.join()
        tally.failures += [] if getattr(fault, "done", None) else ["the fault did not fire during the crowd"]
    rows = count_rows(db_url, started.code)
    steps = len([s for s in lesson.steps if s.question])
    out["class"] = _class_summary(tally, students=students, seconds=time.perf_counter() - t0, cpu=_cpu(pids, c0))
    out["class"] |= {
        "load_tool_cpu_s": round(time.process_time() - me0, 1),
        "fault_at_s": round(fault.done - tally.t0, 1) if getattr(fault, "done", None) else None,
        "load_average": machine.summary(),
        "stored": rows,
        "expected_answers": students * steps,
    }
    out["promises"] = promises(out["class"], tally, students * steps)
    if baseline:
        c = out["class"]
        ratio = c["answer_p95_s"] / out["baseline"]["open_p95_s"]
        c["answer_p95_over_baseline_open_p95"] = round(ratio, 2)
        c["answer_p95_over_baseline_answer_p95"] = round(c["answer_p95_s"] / out["baseline"]["answer_p95_s"], 2)
        out["promises"]["answer p95 <= 3x baseline open p95"] = ratio <= 3.0
    return out


# ---------------------------------------------------------------- main


def promises(c: dict, tally: Tally, expected: int) -> dict[str, bool]:
    """What a class run must hold, from its summary ``c`` (the students' poll checks only where they
    thought longer than the poll box's refresh: a rush's 1–4 s leave no time for one)."""
    rows = c["stored"]
    held = {
        "every answer stored exactly once": rows["answers"] == expected
        and rows["second_attempts"] == 0
        and rows["students"] == c["students"],
        "no student locked out": tally.locked_out == 0,
        "answers stored in order": rows["stored_out_of_order"] == 0,
        "no exception or error element": not (tally.exceptions or tally.errors or tally.failures),
        "live view refresh p95 <= 2 s": c["refresh_p95_s"] is not None and c["refresh_p95_s"] <= 2.0,
        f"every answer slower than {SLOW_ANSWER:g} s said it was queued": tally.slow_unqueued == 0,
    }
    if THINK[1] > POLL_REFRESH:
        ok = c["poll_check_p95_s"] is not None and c["poll_check_p95_s"] <= 2.0
        held["students' poll check p95 <= 2 s"] = ok
    return held


def one(db: str, fault: str, students: int, arrive: float, baseline: bool) -> dict:
    from hetdp_ui.serve import Stack

    pg = fs = None
    env_before = dict(os.environ)
    try:
        data = tempfile.mkdtemp(prefix="hetdp-class-load-")
        os.environ["HETDP_DATA_DIR"] = data
        os.environ.pop("HETDP_DATABASE_URL", None)
        if db == "postgresql":
            from pgserver import PostgresServer

            pg = PostgresServer()
            os.environ["HETDP_DATABASE_URL"] = db_url = pg.new_database()
        elif fault == "disk-full":
            fs = Tmpfs()
            db_url = f"sqlite:///{fs.dir / 'class.sqlite'}"
            os.environ["HETDP_DATABASE_URL"] = db_url
        else:
            db_url = f"sqlite:///{Path(data) / 'class.sqlite'}"
        stack = Stack(workers=2, port=load.free_port()).start(timeout=240)
        stop = threading.Event()
        sup = threading.Thread(target=stack.supervise, args=(stop,), kwargs={"interval": 0.3}, daemon=True)
        sup.start()
        fire = {
            "none": None,
            "kill": lambda: kill_fault(stack),
            "pg-restart": lambda: pg_restart_fault(pg),
            "disk-full": lambda: disk_full_fault(fs),
        }[fault]
        try:
            result = run_class(
                stack.url,
                db_url,
                students=students,
                arrive=arrive,
                fault=fire and fire(),
                baseline=baseline,
                pids=lambda: stack.pids + (pg.pids() if pg else []),  # the database's CPU counts too
            )
        finally:
            stop.set()
            sup.join(5)
            stack.stop()
        result.update({"db": db, "fault": fault, "workers": 2, "arrive_s": arrive, "machine_cpus": os.cpu_count()})
        return result
    finally:
        os.environ.clear()
        os.environ.update(env_before)
        if pg is not None:
            pg.remove()
        if fs is not None:
            fs.remove()


#: each scenario's crowd: students, seconds over which they arrive, "LO,HI" seconds of thinking
SCENARIOS = {"class": (200, 30.0, "3,12"), "rush": (300, 10.0, "1,4"), "two-machines": (300, 10.0, "1,4")}


def class_runs(a) -> list[dict]:
    """The class scenario: each database without a fault (with its baseline), then the faults."""
    runs = []
    dbs = ("sqlite", "postgresql") if a.db == "both" else (a.db,)
    for db in dbs if a.fault != "flood" else ():
        if a.fault in ("none", "all"):
            runs.append(one(db, "none", a.students, a.arrive, True))
            print(json.dumps(runs[-1], indent=2), flush=True)
    # each fault on the database it concerns (kill: SQLite by default, --db postgresql for the other)
    faults = {"kill": "sqlite", "pg-restart": "postgresql", "disk-full": "sqlite"}
    for fault, db in faults.items():
        if a.fault in (fault, "all"):
            on = a.db if a.fault == fault and a.db != "both" and fault == "kill" else db
            runs.append(one(on, fault, a.students, a.arrive, False))
            print(json.dumps(runs[-1], indent=2), flush=True)
    if a.fault in ("flood", "all"):
        runs.append(flood(LESSON))
        print(json.dumps(runs[-1], indent=2), flush=True)
    return runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--scenario",
        choices=tuple(SCENARIOS),
        default="class",
        help="class: 200 students over 30 s, thinking 3-12 s, with its faults; rush: 300 students over 10 s, "
        "thinking 1-4 s, a worker killed; two-machines: the rush across two `make serve` instances on one "
        "PostgreSQL, one of them killed (benchmarks/class_rush.py)",
    )
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--fault", choices=("none", "kill", "pg-restart", "disk-full", "flood", "all"), default="all")
    ap.add_argument("--students", type=int, help="default: the scenario's")
    ap.add_argument("--arrive", type=float, help="students arrive over this many seconds (default: the scenario's)")
    ap.add_argument("--think", help="LO,HI seconds a student thinks between actions (default: the scenario's)")
    ap.add_argument("--out", default=None, help="default: benchmarks/results/<scenario>.json")
    a = ap.parse_args(argv)
    standard = a.students is None and a.arrive is None and a.think is None
    n, arrive, think = SCENARIOS[a.scenario]
    a.students, a.arrive, a.think = a.students or n, a.arrive or arrive, a.think or think
    global THINK
    THINK = tuple(float(x) for x in a.think.split(","))
    dbs = ("sqlite", "postgresql") if a.db == "both" else (a.db,)
    if a.scenario == "class":
        runs, whole = class_runs(a), a.db == "both" and a.fault == "all"
    else:
        import class_rush

        if a.scenario == "rush":
            runs = class_rush.rush(dbs, a.students, a.arrive)
        else:
            runs = [class_rush.two_machines(a.students, a.arrive)]
        whole = standard and (a.db == "both" or a.scenario == "two-machines")
        for r in runs:
            print(json.dumps(r, indent=2), flush=True)
    out = Path(a.out or RESULTS / f"{a.scenario}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(runs, indent=2))
    print(f"wrote {out}")
    if whole:  # the whole scenario: its table in docs/benchmarks.md
        from benchmarks.tables import record

        record(a.scenario, runs)
    failed = [(r["db"], r["fault"], k) for r in runs for k, ok in r["promises"].items() if not ok]
    for f in failed:
        print("PROMISE FAILED:", *f)
    return 1 if failed else 0


if __name__ == "__main__":
    import class_load  # the module itself, not __main__: class_rush reads the THINK that main sets

    sys.exit(class_load.main())
