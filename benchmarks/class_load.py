"""A class under load (``make load``): virtual students who join a class session and answer a lesson
through ``make serve WORKERS=2``, speaking Streamlit's own websocket protocol — the messages a browser
sends when a link is opened, a name is typed, a button is clicked, and the class poll box's check
every 5 s while a student thinks (a fragment the browser reruns by itself) — while an instructor's
live view refreshes its fragment every 3 s.

    python benchmarks/class_load.py                         # SQLite and PostgreSQL, then the faults
    python benchmarks/class_load.py --db sqlite --students 50 --fault none
    python benchmarks/class_load.py --db postgresql --fault pg-restart

Per database the run has two phases with the same crowd and pacing (students arrive over
``--arrive`` = 30 s and think ``--think`` = 3–12 s between actions, so the class's twelve actions per
student fit in about two minutes):

* **baseline** — every student walks the lesson without a session: opens each step's link and checks an
  answer (the cost of the page; nothing recorded);
* **class** — every student joins through the student link (types a name, clicks *Join*), then on each
  step opens the step's link and answers (number, choice or "your choice" slider) with *Check my
  answer*, retrying after "Not recorded — try again".

Promises checked (exit 1 if one fails): every answer stored exactly once (counted in the database:
students × steps rows, no attempt 2), no exception or error element, the live view's refresh p95 ≤ 2 s,
the students' poll check p95 ≤ 2 s, and a student's answer p95 ≤ 3 × the baseline's page-open p95.

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
import signal
import subprocess
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
from load import Browser, Disconnected, Run  # noqa: E402

from hetdp_core.lessons import bundled_lesson  # noqa: E402
from hetdp_ui.class_panel import POLL_REFRESH  # noqa: E402
from hetdp_ui.folders import LIVE_CLASS, page_for  # noqa: E402

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

    def note(self, run: Run, *, expected_errors=()) -> None:
        self.exceptions += run.exceptions
        self.errors += [e for e in run.errors if not any(x in e for x in expected_errors)]


def p(values, q):
    v = sorted(values)
    return round(v[min(len(v) - 1, int(round(q * (len(v) - 1))))], 3) if v else None


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


async def class_student(url: str, code: str, i: int, lesson, tally: Tally, arrive: float) -> None:
    """Join, then open and answer every step; reconnect on a dead worker and go on from the link."""
    await asyncio.sleep(random.Random(i).uniform(0, arrive))
    rnd = random.Random(2000 + i)
    name, token, k = f"student {i:03d}", None, 1
    while k <= len(lesson.steps):
        try:
            async with Browser(url) as b:
                if token is None:
                    run = await b.run(CLASS, f"code={code}")
                    tally.note(run, expected_errors=("The class database is not reachable",))
                    if "class_name" not in run.widgets:  # the database is down: the student reloads
                        tally.not_recorded += 1
                        await asyncio.sleep(1)
                        continue
                    await asyncio.sleep(rnd.uniform(*THINK))
                    w = run.widgets
                    run = await b.run(
                        CLASS,
                        f"code={code}",
                        [(w["class_name"][0], {"string_value": name}), (w["class_join"][0], {"trigger_value": True})],
                    )
                    tally.joins.append(run.seconds)
                    if run.query is None or "me=" not in run.query:
                        tally.note(run, expected_errors=("Not joined", "The class database is not reachable"))
                        if any("is taken" in e for e in run.errors):  # joined before the worker died
                            tally.failures.append(f"{name}: joined twice")
                            return
                        await asyncio.sleep(1)
                        continue
                    token = parse_qs(run.query)["me"][0]
                    tally.note(run)
                    opened = run  # the join opened step 1 (st.switch_page), as in a browser
                else:
                    opened = None
                link = urlencode({"lesson": LESSON, "step": k, "class": code, "me": token})
                while k <= len(lesson.steps):
                    page = lesson.steps[k - 1].page
                    if opened is None:
                        run = await b.run(page, link)
                        tally.opens.append(run.seconds)
                        tally.note(run)
                    else:
                        run, opened = opened, None
                    if not run.has(f"as **{name}**"):  # the database did not answer the check of the link
                        tally.not_recorded += 1
                        await asyncio.sleep(1)
                        continue
                    poll_box = run.auto_rerun  # the class poll's fragment, which a browser reruns by itself
                    if poll_box is None:
                        tally.failures.append(f"{name} at step {k}: the page has no auto-rerunning poll box")
                        return
                    await think(b, page, link, poll_box, rnd.uniform(*THINK), tally)
                    widgets = run.widgets
                    while True:
                        states, fragment = _answer_state(lesson, k, widgets, i)
                        run = await b.run(page, link, states, fragment=fragment)
                        tally.answers.append(run.seconds)
                        tally.note(run, expected_errors=("Not recorded — the class database did not answer",))
                        if run.has("Your answer was recorded"):
                            break
                        tally.not_recorded += 1
                        await asyncio.sleep(1)
                    k += 1
                    await think(b, page, link, poll_box, rnd.uniform(*THINK), tally)
                    link = urlencode({"lesson": LESSON, "step": k, "class": code, "me": token})
        except Disconnected:
            tally.reconnects += 1
            await asyncio.sleep(1)
        except (TimeoutError, KeyError) as exc:
            tally.failures.append(f"{name} at step {k}: {type(exc).__name__}: {exc}"[:200])
            return


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
            async with Browser(url) as b:
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


async def phase(url, coros_of_students, code=None, key=None, tally=None):
    stop = asyncio.Event()
    inst = asyncio.create_task(instructor(url, code, key, tally, stop)) if code else None
    await asyncio.gather(*coros_of_students)
    stop.set()
    if inst is not None:
        await inst


def _cpu(pids, since=None):
    """Server CPU seconds (workers and their children) since ``since``; None without pids."""
    if pids is None:
        return None
    now = load.tree_cpu_seconds(list(pids))
    return now if since is None else round(now - since, 1)


def count_rows(db_url: str, code: str) -> dict:
    from hetdp_ui.classroom.store import ClassStore

    store = ClassStore(db_url)
    from sqlalchemy import text

    with store.engine.connect() as c:
        dup = c.execute(
            text(
                "SELECT count(*) FROM answer a JOIN student s ON s.id = a.student_id "
                "JOIN class_session cs ON cs.id = s.session_id WHERE cs.code = :c AND a.attempt > 1"
            ),
            {"c": code},
        ).scalar()
    return {**store.counts(code), "second_attempts": int(dup)}


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
    t0, c0 = time.perf_counter(), _cpu(pids)
    th = None
    if fault is not None:
        th = threading.Timer(getattr(fault, "at", 20.0), fault)
        th.start()
    load.arun(
        phase(
            url,
            [class_student(url, started.code, i, lesson, tally, arrive) for i in range(students)],
            started.code,
            started.key,
            tally,
        )
    )
    if th is not None:
        th.join()
    rows = count_rows(db_url, started.code)
    steps = len([s for s in lesson.steps if s.question])
    out["class"] = _class_summary(tally, students=students, seconds=time.perf_counter() - t0, cpu=_cpu(pids, c0))
    out["class"] |= {"stored": rows, "expected_answers": students * steps}
    c = out["class"]
    promises = {
        "every answer stored exactly once": rows["answers"] == students * steps
        and rows["second_attempts"] == 0
        and rows["students"] == students,
        "no exception or error element": not (tally.exceptions or tally.errors or tally.failures),
        "live view refresh p95 <= 2 s": c["refresh_p95_s"] is not None and c["refresh_p95_s"] <= 2.0,
        "students' poll check p95 <= 2 s": c["poll_check_p95_s"] is not None and c["poll_check_p95_s"] <= 2.0,
    }
    if baseline:
        ratio = c["answer_p95_s"] / out["baseline"]["open_p95_s"]
        c["answer_p95_over_baseline_open_p95"] = round(ratio, 2)
        c["answer_p95_over_baseline_answer_p95"] = round(c["answer_p95_s"] / out["baseline"]["answer_p95_s"], 2)
        promises["answer p95 <= 3x baseline open p95"] = ratio <= 3.0
    out["promises"] = promises
    return out


# ---------------------------------------------------------------- faults


def kill_fault(stack):
    def fire():
        os.kill(stack.procs[0].pid, signal.SIGKILL)
        fire.done = time.time()

    fire.at = 20.0
    return fire


def pg_restart_fault(pg, down: float = 5.0):
    def fire():
        pg.stop("fast")
        time.sleep(down)
        pg.start()

    fire.at = 20.0
    return fire


class Tmpfs:
    """A small tmpfs for the SQLite file, to fill the disk for real (needs root)."""

    def __init__(self, size_mb: int = 64):
        self.dir = Path(tempfile.mkdtemp(prefix="hetdp-full-"))
        cmd = ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(self.dir)]
        r = subprocess.run(cmd, capture_output=True)
        if r.returncode != 0:
            raise SystemExit(f"class_load: cannot mount a tmpfs for the disk-full run: {r.stderr.decode().strip()}")

    def fill(self, seconds: float = 5.0):
        """Fill the filesystem to its last byte (unbuffered writes: nothing left to flush), hold it full
        for ``seconds``, then free it."""
        filler = self.dir / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for block in (1 << 20, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\0" * block)
                except OSError:
                    pass
            self.filled_at = time.time()
            time.sleep(seconds)
        finally:
            os.close(fd)
            filler.unlink()

    def remove(self):
        subprocess.run(["umount", str(self.dir)], capture_output=True)


def disk_full_fault(fs: Tmpfs):
    def fire():
        fs.fill()

    fire.at = 20.0
    return fire


# ---------------------------------------------------------------- a flood of joins


def flood(joins: int = 10_000) -> dict:
    """One client joining one session again and again (a script, each join a new name): the session
    fills up to its cap and every further join is refused in one line, nothing stored."""
    from hetdp_core.scenario import InputError
    from hetdp_ui.classroom.store import MAX_STUDENTS, ClassStore

    store = ClassStore(f"sqlite:///{Path(tempfile.mkdtemp(prefix='hetdp-flood-')) / 'class.sqlite'}")
    s = store.start(LESSON)
    refused, t0 = 0, time.perf_counter()
    for i in range(joins):
        try:
            store.join(s.code, f"bot {i}")
        except InputError as exc:
            refused += "is full" in str(exc)
    stored = store.counts(s.code)["students"]
    return {
        "joins": joins,
        "stored_students": stored,
        "refused_as_full": refused,
        "seconds": round(time.perf_counter() - t0, 1),
        "promises": {"a flood fills one session at most to its cap": stored == MAX_STUDENTS == joins - refused},
        "db": "sqlite",
        "fault": "flood of joins",
    }


# ---------------------------------------------------------------- main


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
                pids=stack.pids,
            )
        finally:
            stop.set()
            sup.join(5)
            stack.stop()
        result.update({"db": db, "fault": fault, "workers": 2, "machine_cpus": os.cpu_count()})
        return result
    finally:
        os.environ.clear()
        os.environ.update(env_before)
        if pg is not None:
            pg.remove()
        if fs is not None:
            fs.remove()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--fault", choices=("none", "kill", "pg-restart", "disk-full", "flood", "all"), default="all")
    ap.add_argument("--students", type=int, default=200)
    ap.add_argument("--arrive", type=float, default=30.0, help="students arrive over this many seconds")
    ap.add_argument("--think", default="3,12", help="LO,HI seconds a student thinks between actions")
    ap.add_argument("--out", default=str(RESULTS / "class.json"))
    a = ap.parse_args(argv)
    global THINK
    THINK = tuple(float(x) for x in a.think.split(","))
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
        runs.append(flood())
        print(json.dumps(runs[-1], indent=2), flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(runs, indent=2))
    print(f"wrote {a.out}")
    if a.db == "both" and a.fault == "all":  # the whole class run: docs/benchmarks.md's table
        from benchmarks.tables import record

        record("class", runs)
    failed = [(r["db"], r["fault"], k) for r in runs for k, ok in r["promises"].items() if not ok]
    for f in failed:
        print("PROMISE FAILED:", *f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
