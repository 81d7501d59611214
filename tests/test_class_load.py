"""The small version of ``make load``'s class run: students speaking Streamlit's websocket protocol
join a class session and answer every step through two workers behind nginx sharing one SQLite file,
while an instructor's live view refreshes, their poll boxes look for a poll, and one worker is killed
with SIGKILL in the middle. Every answer is stored exactly once (counted in the database); no exception
or error element. Latency promises are measured by `make load` (benchmarks/class_load.py), not
asserted on a shared machine."""

import sys
import threading

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import class_load  # noqa: E402
import load  # noqa: E402

from hetdp_ui.classroom import db  # noqa: E402


def test_a_small_class_through_two_workers_survives_a_killed_worker(monkeypatch):
    from hetdp_ui.serve import Stack

    monkeypatch.setattr(class_load, "THINK", (0.5, 1.5))  # `make load` thinks 3–12 s: two minutes a class
    monkeypatch.setattr(class_load, "POLL_REFRESH", 0.4)  # so the short thinking still has poll checks
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
    assert c["stored"] == {"students": 12, "answers": 12 * 5, "poll_reports": 0, "second_attempts": 0}, c
    assert c["refreshes"] >= 3, c  # the instructor's fragment kept refreshing
    assert c["poll_checks"] >= 1, c  # and the students' poll boxes looked for a poll while they thought
    assert getattr(fault, "done", None), "the worker was killed during the crowd"
    assert c["reconnects"] >= 1, c  # some students were on the killed worker and went on elsewhere
