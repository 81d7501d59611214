"""The Class page and a lesson in a class session (AppTest): start a session, join, answer right,
wrong and with a misconception, a "your choice" step, live counts, the private poll, export,
delete, and every bad input a browser can send."""

import contextlib
import re

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from hetdp_ui.chart_element import charts
from hetdp_ui.classroom import db
from hetdp_ui.classroom.store import ClassStore

CLASS = str(ROOT / "pages" / "class" / "page.py")
FP = str(ROOT / "pages" / "feature_privacy" / "page.py")
LESSON = "1-bcdp-feature-privacy"


@pytest.fixture
def url(tmp_path, monkeypatch):
    u = f"sqlite:///{tmp_path / 'class.sqlite'}"
    monkeypatch.setenv(db.URL_ENV, u)
    return u


def qp(at, name):
    v = at.query_params.get(name)
    return v if isinstance(v, str) or v is None else v[0]


def class_page(**params) -> AppTest:
    at = AppTest.from_file(CLASS, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def texts(at) -> str:
    return " ".join(
        [m.value for m in at.markdown]
        + [c.value for c in at.caption]
        + [i.value for i in at.info]
        + [s.value for s in at.success]
        + [str(m.label) + " " + str(m.value) for m in at.metric]
    )


def join(code: str, name: str, at: AppTest | None = None) -> tuple[AppTest, str]:
    """Join through the student link; returns the page and the student's token from the step link."""
    at = at or class_page(code=code)
    at.text_input(key="class_name").input(name).run()
    at.button(key="class_join").click().run()
    link = " ".join(i.value for i in at.info)
    m = re.search(r"class=(\w+)&me=([\w-]+)", link)
    assert m, ([e.value for e in at.error], link)
    return at, m.group(2)


def lesson_step(code: str, token: str, step: int) -> AppTest:
    at = AppTest.from_file(FP, default_timeout=180)
    at.query_params.update({"lesson": LESSON, "step": str(step), "class": code, "me": token})
    return at.run()


def answer(at: AppTest, step: int, value) -> None:
    key = f"lesson_{LESSON}_{step}"
    widget = at.radio(key=f"{key}_answer") if isinstance(value, str) else at.number_input(key=f"{key}_answer")
    widget.set_value(value).run()
    at.button(key=f"{key}_check").click().run()


def test_a_whole_class_session_from_start_to_delete(url):
    # the instructor starts a session
    inst = class_page(teach=LESSON)
    assert inst.selectbox(key="class_lesson").value == LESSON
    inst.button(key="class_start").click().run()
    code, key = qp(inst, "code"), qp(inst, "key")
    assert code and key and not inst.exception and not inst.error
    assert any(f"/Class?code={code}" in c.value for c in inst.code)  # the student link, to copy
    assert inst.get("image"), "the QR code of the student link is drawn"
    assert {m.label for m in inst.metric} >= {"reached", "answered", "right at the first try"}

    # two students join with the link and answer
    _, ada = join(code, "Ada")
    _, bob = join(code, "Bob")
    at = lesson_step(code, ada, 1)
    assert not at.exception and not at.error
    assert f"Class session **{code}** as **Ada**" in texts(at)
    answer(at, 1, 0.2)  # the misconception "demand for budget"
    assert "Your answer was recorded (attempt 1)" in texts(at)
    assert any(w.value.startswith("Not quite") for w in at.warning)
    answer(at, 1, 0.09)
    assert "Your answer was recorded (attempt 2)" in texts(at)
    bt = lesson_step(code, bob, 1)
    answer(bt, 1, 0.09)  # right at the first try
    ct = lesson_step(code, bob, 3)
    answer(ct, 3, "yes")  # the choice misconception
    assert "recorded (attempt 1)" in texts(ct)
    yt = lesson_step(code, bob, 5)  # "your choice"
    yt.slider(key=f"lesson_{LESSON}_5_answer").set_value(0.5).run()
    yt.button(key=f"lesson_{LESSON}_5_check").click().run()
    assert "Your answer was recorded (attempt 1)" in texts(yt) and not yt.exception

    # the live view counts them
    inst = class_page(code=code, key=key)
    shown = texts(inst)
    assert "2 students joined · 5 answers recorded" in shown
    metrics = [(m.label, m.value) for m in inst.metric]
    assert metrics[:3] == [("reached", "2"), ("answered", "2"), ("right at the first try", "50%")], metrics
    assert "**M1** (0.2 ± 0.005): **1** student — You took the demand δ = 0.2" in shown
    assert "**M1** ('yes'): **1** student" in shown
    assert charts(inst), "answer histograms are drawn"
    assert "Your levels among real deployments" in shown  # the "your choice" step with context = epsilon

    # the private poll
    # (a form: the question and its ε go with the click, as the browser sends them)
    inst.text_input(key="class_poll_q").input("Have you ever reused a password?")
    inst.slider(key="class_poll_eps").set_value(1.0)
    inst.button(key="class_poll_open").click().run()
    poll = ClassStore(url).latest_poll(code)
    assert "Asked the class (ε = 1): Have you ever reused a password?" in [s.value for s in inst.success]
    # the button's callback stored it before the page reran; the confirmation stays through later reruns
    assert poll.question == "Have you ever reused a password?" and poll.open
    inst.run()
    assert "Asked the class (ε = 1): Have you ever reused a password?" in [s.value for s in inst.success]
    at = lesson_step(code, ada, 2)
    assert "Class poll (private, ε = 1)" in texts(at)
    at.button(key=f"class_poll_yes_{poll.id}").click().run()
    assert any(i.value.startswith("Sent: **") for i in at.info), [i.value for i in at.info]
    # what the session keeps of the poll once sent: the randomized report, nothing else (no true answer)
    kept = {k: at.session_state[k] for k in at.session_state.keys() if "poll" in str(k)}
    assert kept == {str(("_class_poll_sent", poll.id)): ClassStore(url).poll_sent(code, ada, poll.id)}, kept
    inst = class_page(code=code, key=key)
    assert ("reports", "1") in [(m.label, m.value) for m in inst.metric]
    # one report at ε = 1: the unbiased estimate is 158 % or −58 %; shown within 0–100 %, said in words
    shown = dict((m.label, m.value) for m in inst.metric)["estimated true share"]
    assert shown in ("0.0 %", "100.0 %") and "The unbiased estimate itself is" in texts(inst)
    shown_text = texts(inst)
    assert "What ε = 1 means for one student" in shown_text and "now thinks at most 73.2 %" in shown_text
    assert "As an attack:" in shown_text  # the meaning panel's attack sentence, at a 1 % false-positive rate
    # the deployments strip for the poll's ε: drawn once its panel is opened (the live view reruns every
    # few seconds, and a closed panel draws nothing)
    assert "Where ε = 1 lies among real deployments" in [e.label for e in inst.expander]
    assert "Where the poll's ε lie among levels" not in shown_text
    inst.session_state["class_poll_ctx_open"] = True
    inst.run()
    shown_text = texts(inst)
    assert "Where the poll's ε lie among levels" in shown_text
    assert "it settles as reports arrive" in shown_text
    # a closed poll's estimate is final: it no longer says that it settles as reports arrive
    inst.button(key="class_poll_close").click().run()
    closed = texts(class_page(code=code, key=key))
    assert "Closed poll (ε = 1)" in closed and "it settles as reports arrive" not in closed
    assert "the poll is closed, so this estimate is final" in closed
    store = ClassStore(url)
    assert store.counts(code) == {"students": 2, "answers": 5, "poll_reports": 1}

    # export (the button's data is the CLI's CSV) and close/reopen
    from hetdp_ui.classroom.store import export_csv

    csv_text = export_csv(store.export_rows(code))
    assert csv_text.splitlines()[0].startswith("session,lesson,student,step,kind,first_try_right")
    assert any(b.proto.label == "Export answers (CSV)" for b in inst.get("download_button"))
    inst.button(key="class_close").click().run()
    assert store.session(code).closed
    late = class_page(code=code)
    assert any("is closed" in e.value for e in late.error)
    at = lesson_step(code, ada, 3)
    answer(at, 3, "no")
    assert any("Not recorded: class session" in e.value for e in at.error)
    inst.button(key="class_reopen").click().run()
    assert not store.session(code).closed

    # delete: everything about the session goes
    inst.button(key="class_delete").click().run()
    assert any("and everything stored about it were deleted" in s.value for s in inst.success)
    from sqlalchemy import text

    with store.engine.connect() as c:
        assert all(c.execute(text(f"SELECT count(*) FROM {t}")).scalar() == 0 for t in db.TABLES)


def test_bad_inputs_on_the_class_page_are_one_line_each_and_store_nothing(url, monkeypatch):
    store = ClassStore(url)
    s = store.start(LESSON)
    # unknown, malformed code: one line, and the join form to type another code (no dead end)
    for bad in ("ZZZZZZ", "x" * 500, "<script>"):
        at = class_page(code=bad)
        assert len(at.error) == 1 and not at.exception
        assert [t.key for t in at.text_input] == ["class_code", "class_name"]
    # the instructor view with a wrong key or none: nothing of the session
    for key in ("guess", "", s.key[:-1]):
        at = class_page(code=s.code, key=key) if key else class_page(code=s.code)
        assert not at.metric and not at.get("image") and not at.exception
        if key:
            assert [e.value for e in at.error] == [
                "the instructor key does not match this session; open the instructor link you were given."
            ]
    # names: too long (the box takes 200 characters; 10 kB is refused by the store: test_class.py), control
    # characters, empty, taken
    at = class_page(code=s.code)
    for name, match in (("x" * 120, "at most 40"), ("Eve\x07", "control"), ("   ", "empty")):
        at.text_input(key="class_name").input(name).run()
        at.button(key="class_join").click().run()
        assert any(match in e.value for e in at.error), [e.value for e in at.error]
    _, _tok = join(s.code, "Ada")
    at = class_page(code=s.code)
    at.text_input(key="class_name").input("Ada").run()
    at.button(key="class_join").click().run()
    assert any("is taken" in e.value for e in at.error)
    # one browser session joining again and again stops after 5
    at = class_page(code=s.code)
    for i in range(7):
        at.text_input(key="class_name").input(f"bot {i}").run()
        at.button(key="class_join").click().run()
    assert any("this browser joined 5 times" in e.value for e in at.error)
    assert store.counts(s.code)["students"] == 1 + 5
    # a forged student token on a lesson page: dropped with a warning, nothing recorded
    at = lesson_step(s.code, "forged-token-0000000", 1)
    assert any("Class session ignored" in w.value for w in at.warning) and qp(at, "me") is None
    answer(at, 1, 0.09)
    assert store.counts(s.code)["answers"] == 0
    # a session of another lesson
    other = store.start("2-bcdp-guarantee-lab")
    tok = store.join(other.code, "Zed")
    at = lesson_step(other.code, tok, 1)
    assert any("is for another lesson" in w.value for w in at.warning)


def test_a_join_repeated_from_a_new_browser_session_with_its_link_is_the_same_student(url):
    """The join form writes the click's identity into the link before the click; a browser whose worker
    died during Join reconnects with that link (a new session, on another worker) and its click is the
    same student — no "name taken" — while another browser still cannot take the name."""
    store = ClassStore(url)
    s = store.start(LESSON)
    first = class_page(code=s.code)
    click = qp(first, "join")
    assert click and len(click) >= 16  # in the link before anyone clicks
    first.run()
    assert qp(first, "join") == click  # and it stays the same while the form is redrawn
    _, ada = join(s.code, "Ada", first)
    again = class_page(code=s.code, join=click)  # the reconnected browser: same link, new session
    _, same = join(s.code, "Ada", again)
    assert same == ada and not again.error and store.counts(s.code)["students"] == 1
    other = class_page(code=s.code)  # another browser: its own click
    assert qp(other, "join") != click
    other.text_input(key="class_name").input("Ada").run()
    other.button(key="class_join").click().run()
    assert [e.value for e in other.error] == ["the name 'Ada' is taken in this session; choose another one."]
    forged = class_page(code=s.code, join="not a click!")  # a malformed one is replaced, not trusted
    assert qp(forged, "join") != "not a click!" and not forged.error
    assert store.counts(s.code)["students"] == 1


def _priority_script():
    import streamlit as st

    from hetdp_ui.class_queue import priority_of

    if st.query_params.get("joined"):
        st.session_state["_class_queue_joined"] = True
    st.markdown(f"priority {priority_of(st.query_params.get('page', ''))}")


def test_the_queue_puts_the_instructor_first_then_answers_and_joins_then_pages(url):
    """Who waits for whom in a worker's class queue, by the run's page and link: the instructor (a key the
    session accepts) first and never queued, a made-up key queued as a student, a student at the door (and
    the step their join opens) before a student's page, anyone outside a class not queued at all."""
    from hetdp_ui.class_queue import FIRST, PAGE, WRITE
    from hetdp_ui.folders import LIVE_CLASS, page_for

    s = ClassStore(url).start(LESSON)
    cls = page_for(LIVE_CLASS).url
    cases = [
        ({"page": cls, "code": s.code, "key": s.key}, FIRST),
        ({"page": cls, "code": s.code, "key": "made-up"}, WRITE),
        ({"page": cls, "code": s.code}, WRITE),
        ({"page": cls}, None),
        ({"page": "Feature_privacy", "class": s.code, "me": "t" * 24}, PAGE),
        ({"page": "Feature_privacy", "class": s.code, "me": "t" * 24, "joined": "1"}, WRITE),
        ({"page": "Feature_privacy", "lesson": LESSON, "step": "1"}, None),
    ]
    for params, expected in cases:
        at = AppTest.from_function(_priority_script, default_timeout=60)
        at.query_params.update(params)
        at.run()
        assert not at.exception and at.markdown[0].value == f"priority {expected}", (params, at.markdown[0].value)
        if "joined" in params:  # the step a join opens is a write once; its next run is a page again
            del at.query_params["joined"]
            at.run()
            assert at.markdown[0].value == f"priority {PAGE}"


def test_a_database_that_cannot_be_reached_is_one_line_not_a_traceback(monkeypatch):
    monkeypatch.setenv(db.URL_ENV, "postgresql+psycopg://nobody@127.0.0.1:1/none")
    db.reset_caches()
    at = class_page()
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith("The class database is not reachable right now")
    assert "reload the page in a moment" in at.error[0].value
    # a lesson in a session goes on without recording, and says so
    at = lesson_step("ABCDEF", "token-0000000000", 1)
    assert not at.exception and any("Class session not reachable" in w.value for w in at.warning)


def test_the_student_home_keeps_identity_and_offers_the_poll(url):
    store = ClassStore(url)
    s = store.start(LESSON)
    _, tok = join(s.code, "Ada")
    store.reached(s.code, tok, 3)
    poll = store.open_poll(s.code, question="Ever shared a password?", eps=2.0)
    home = class_page(code=s.code, me=tok)  # a refresh, a new tab: the link keeps who and where
    assert "You are **Ada**" in texts(home) and "Ever shared a password?" in texts(home)
    assert [b.label for b in home.button][-1] == "Continue the lesson at step 3"
    home.button(key=f"class_poll_no_{poll.id}").click().run()
    assert any(i.value.startswith("Sent: **") for i in home.info)
    assert store.poll_estimate(s.code)[1].n == 1


def test_students_type_a_display_name_unless_the_department_turns_on_its_login(url, monkeypatch):
    """Setting off (the default): a name box, no login. Setting on (HETDP_CLASS_LOGIN=oidc, with
    Streamlit's [auth] configured as pages/class/guide.md says): a logged-out student sees only a login
    button — no name box, nothing joined."""
    s = ClassStore(url).start(LESSON)
    at = class_page(code=s.code)
    assert at.text_input(key="class_name") and not [b for b in at.button if b.key == "class_login"]
    monkeypatch.setenv("HETDP_CLASS_LOGIN", "oidc")
    at = class_page(code=s.code)
    assert [b.label for b in at.button if b.key == "class_login"] == ["Log in to join"]
    assert not [t for t in at.text_input if t.key == "class_name"] and not at.exception
    assert ClassStore(url).counts(s.code)["students"] == 0


def test_a_database_of_another_schema_version_is_one_line_on_the_page(url):
    from sqlalchemy import text

    ClassStore(url)
    with db.engine_for(url).begin() as c:
        c.execute(text("UPDATE alembic_version SET version_num = 'zz99'"))
    db.reset_caches()
    at = class_page()
    assert not at.exception and len(at.error) == 1
    assert at.error[0].value.startswith("The class database cannot be used: the class database is at schema zz99")
    assert "upgrade hetdp" in at.error[0].value and not at.button


def _queued_student_page():
    import streamlit as st

    from hetdp_ui.class_queue import in_turn

    with in_turn("Feature_privacy"):
        st.markdown("the page's first line")
        with st.expander("a panel the student opened"):
            st.text_input("typed, not yet sent")


class _Queue:
    """A class queue that makes every run wait ``waits`` times (telling it its place) before its turn."""

    def __init__(self, waits: int):
        self.waits = waits

    @contextlib.contextmanager
    def __call__(self, *, on_wait, priority):
        for _ in range(self.waits):
            on_wait(3)
        yield


def test_a_students_page_keeps_its_elements_in_place_whether_its_run_waited_or_not(monkeypatch):
    """Streamlit matches a rerun's elements to the last run's by position: the queue's notice, drawn only
    by a run that waited, moved the whole page down one place when the class was busy, so the browser drew
    it anew (the student's open panels closed, what they had typed and not sent was lost). The notice has
    its place in every run of a queued page, shown or not; the page's own elements stay where they were."""
    from hetdp_ui import class_queue

    monkeypatch.setattr(class_queue, "NOTICE_AFTER", 0.0)
    places = {}
    for waits in (0, 1):
        monkeypatch.setattr(class_queue, "QUEUE", _Queue(waits))
        at = AppTest.from_function(_queued_student_page, default_timeout=60)
        at.query_params.update({"class": "ABCDEF", "me": "t" * 24})
        at.run()
        assert not at.exception, at.exception
        children = list(at.main.children.values())
        places[waits] = [i for i, c in enumerate(children) if getattr(c, "value", None) == "the page's first line"]
    assert places[0] == places[1] == [1], places  # after the notice's place, in both runs


def _queued_answer():
    import streamlit as st

    from hetdp_ui.class_queue import ANSWER_TURN_WORDS, ANSWER_WORDS, WRITE, queued

    with queued(WRITE, ANSWER_WORDS, turn_words=ANSWER_TURN_WORDS):
        st.caption("stored")


def test_a_queued_answers_notice_stays_and_says_how_long_it_waited(monkeypatch):
    """An answer's notice is replaced when its turn comes, not removed: Streamlit replaces an element's
    update that it has not sent yet, so under a rush a notice removed at its turn never reached the
    browser. A run that did not wait long enough for the notice draws none."""
    from hetdp_ui import class_queue

    for after, waits, said in ((0.0, 2, True), (60.0, 2, False), (0.0, 0, False)):
        monkeypatch.setattr(class_queue, "NOTICE_AFTER", after)
        monkeypatch.setattr(class_queue, "QUEUE", _Queue(waits))
        at = AppTest.from_function(_queued_answer, default_timeout=60)
        at.run()
        assert not at.exception, at.exception
        infos = [i.value for i in at.info]
        if said:
            assert len(infos) == 1 and infos[0].startswith("Your answer was queued for 0 s on this server"), infos
        else:
            assert infos == [], infos
        assert [c.value for c in at.caption] == ["stored"]


def test_a_routes_own_worker_is_the_one_nginx_named_at_the_first_try():
    """handback.home_of reads nginx's X-Hetdp-Worker: one address is the route's own worker, serving; a
    list (nginx tried the route's worker, then the next) means its own worker is down: None. The route
    goes as the route cookie."""
    import http.server
    import threading

    from hetdp_ui import handback

    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.headers.get("Cookie"))
            self.send_response(200)
            self.send_header("X-Hetdp-Worker", self.server.say)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}"
    try:
        srv.say = "127.0.0.1:8502"
        assert handback.home_of("student-7", url) == "127.0.0.1:8502"
        srv.say = "127.0.0.1:8502, 127.0.0.1:8503"
        assert handback.home_of("student-7", url) is None
        srv.say = ""
        assert handback.home_of("student-7", url) is None
    finally:
        srv.shutdown()
    assert seen == ["hetdp_route=student-7"] * 3


def test_outside_make_serve_nobody_is_handed_back(monkeypatch):
    """A worker that `make serve` did not start (no proxy named in its environment) never hands back."""
    from hetdp_ui import handback

    for name in (handback.PROXY_ENV, handback.PROXY_ID_ENV, handback.SELF_ENV):
        monkeypatch.delenv(name, raising=False)

    def page():
        import streamlit as st

        from hetdp_ui import handback

        st.write(str(handback.hand_back("Feature_privacy")))

    at = AppTest.from_function(page, default_timeout=30)
    at.run()
    assert not at.exception and at.markdown[0].value == "False"
