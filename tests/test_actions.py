"""No click is lost (issue 51), in AppTest: every action button's effect happens, survives a rerun, and
still happens when the run of the click is stopped before the page acted — as a rerun request arriving
then (a slider moved at the same moment) stops it at the page's next Streamlit call: the next run acts
on the click's pending intent (:mod:`hetdp_ui.actions`). An effect that must happen once (a session
started, a student joined, an answer counted, a session deleted) happens once when the run is stopped
right after it. The same clicks in Chromium with a rerun provoked: tests/browser/test_clicks_browser.py."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.scenario import InputError
from hetdp_ui import actions
from hetdp_ui.classroom import db
from hetdp_ui.classroom.store import ClassStore

LAB = str(ROOT / "pages" / "bcdp_guarantee_lab" / "page.py")
CLASS = str(ROOT / "pages" / "class" / "page.py")
LESSON = "2-bcdp-guarantee-lab"  # every step on the BCDP guarantee lab: a cheap page
#: a lesson of one "your choice" step on the same page (an instructor's preview)
CHOICE_LESSON = """
title = "Your level"
follows = "Aliakbarpour, Chaudhuri, Courtade, Fallah, Jordan, AISTATS 2025, arXiv:2410.18404"

[[steps]]
page = "BCDP_guarantee_lab"
query = "a=0.5&b=0.5&c=0.5"
text = "Choose."

[steps.question]
kind = "your-choice"
prompt = "Which level would you accept?"
min = 0.05
max = 10.0
step = 0.05
value = 1.0
context = "epsilon"
"""


@pytest.fixture(autouse=True)
def arrive_at_once(monkeypatch):
    """A navigation is done as soon as its target is shown (no window for requests sent from the old
    place: AppTest sends none; the window has its own tests below)."""
    monkeypatch.setattr(actions, "ARRIVAL_WINDOW", 0.0)


@pytest.fixture
def stop(monkeypatch):
    """``stop()`` arms one stop of the next run: right after its callbacks, before the page's own code
    (at :func:`hetdp_ui.actions.expire`, which every page calls first), or with ``stop("effect")`` right
    after an action's lasting effect (:meth:`Intent.once`). Returns the arming's record: ``["stopped"]``
    once it stopped a run."""

    def arm(where: str = "callbacks") -> list:
        record: list = []
        if where == "callbacks":
            real = actions.expire

            def expire():
                if not record:
                    record.append("stopped")
                    raise StopException()
                real()

            monkeypatch.setattr(actions, "expire", expire)
        else:
            real_once = actions.Intent.once

            def once(self, act, step="act"):
                out = real_once(self, act, step)
                if not record:
                    record.append("stopped")
                    raise StopException()
                return out

            monkeypatch.setattr(actions.Intent, "once", once)
        return record

    return arm


def click_stopped(at: AppTest, key: str, stop, where: str = "callbacks", resend: dict | None = None) -> AppTest:
    """Click ``key`` in a run that is stopped (``where``: see the ``stop`` fixture), then the rerun that
    follows with nothing clicked — carrying the inputs' values ``resend`` as they were before the click
    (a browser's rerun sends every widget's value as it had it: a callback's new values are sent back)."""
    record = stop(where)
    at.button(key=key).click().run()
    assert record == ["stopped"], f"the run of the click on {key} was not stopped"
    for name, value in (resend or {}).items():
        at.session_state[name] = value
    return at.run()


def pending(at: AppTest) -> dict:
    return dict(at.session_state[actions.INTENTS]) if actions.INTENTS in at.session_state else {}


def texts(at: AppTest) -> str:
    return " ".join(
        e.value for kind in ("markdown", "success", "info", "warning", "error", "caption") for e in at.get(kind)
    )


def qp(at: AppTest, name: str):
    v = at.query_params.get(name)
    return v if isinstance(v, str) or v is None else v[0]


# ---------------------------------------------------------------------------- the helper itself


def _clicker():
    """A page with two action buttons: one counts clicks in ``once``, one navigates nowhere."""
    import streamlit as st

    from hetdp_ui import actions

    actions.expire()
    st.number_input("x", value=1.0, key="x")
    add = actions.button("add", key="add", value=lambda: st.session_state["x"])
    if add:
        add.once(lambda: st.session_state.update(total=st.session_state.get("total", 0) + add.value))
        add.finish()
    st.markdown(f"total {st.session_state.get('total', 0):g}")


def test_a_stopped_click_acts_once_on_the_next_run_with_the_value_it_was_clicked_with(stop):
    at = AppTest.from_function(_clicker).run()
    at.button(key="add").click().run()
    assert "total 1" in texts(at) and not pending(at)
    click_stopped(at, "add", stop)  # stopped before the page's code: the next run adds
    assert "total 2" in texts(at) and not pending(at)
    at.number_input(key="x").set_value(5.0)
    click_stopped(at, "add", stop, "effect")  # stopped right after adding: added once
    assert "total 7" in texts(at) and not pending(at)
    at.run()
    assert "total 7" in texts(at) and not at.exception


def test_a_click_pending_on_another_page_is_dropped_there_and_never_acts_later(routed_by_navigation, stop):
    """A pending navigation has arrived when another page runs; an action left behind on a page does
    not act when the reader comes back."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/mechanism_lab/page.py").run()
    stop()
    at.button(key="mechanism_lab_solve").click().run()  # stopped: the solve is pending
    assert "mechanism_lab_solve" in pending(at)
    at.switch_page("pages/lessons/page.py").run()
    assert not pending(at) and not at.exception
    at.switch_page("pages/mechanism_lab/page.py").run()
    assert "**laplace**: ε =" not in texts(at) and not at.exception


def test_a_request_from_the_old_step_within_the_window_navigates_again(monkeypatch):
    """A request the browser sent from the step it left (a slider moved as Next was clicked, sent before
    the new address arrived) comes after the step changed: within the window the click navigates again;
    after it, a reader who goes back stays there."""
    monkeypatch.setattr(actions, "ARRIVAL_WINDOW", 600.0)
    at = lab_step(1)
    at.button(key="lesson_next").click().run()
    assert qp(at, "step") == "2"
    at.query_params["step"] = "1"  # the old address, sent before the browser learned the new one
    at.run()
    assert qp(at, "step") == "2" and "Step 2 of 4" in texts(at) and pending(at)
    monkeypatch.setattr(actions, "ARRIVAL_WINDOW", 0.0)  # the window has passed
    at.query_params["step"] = "1"  # the reader goes back on purpose
    at.run()
    assert qp(at, "step") == "1" and "Step 1 of 4" in texts(at) and not pending(at) and not at.exception


def test_a_request_from_the_page_left_within_the_window_switches_again(routed_by_navigation, monkeypatch):
    monkeypatch.setattr(actions, "ARRIVAL_WINDOW", 600.0)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/lessons/page.py").run()
    at.button(key=f"start_{LESSON}").click().run()
    assert "Step 1 of 4" in texts(at)
    at.switch_page("pages/lessons/page.py").run()  # a request of the Lessons page, sent before the switch
    assert "Step 1 of 4" in texts(at) and qp(at, "lesson") == LESSON
    monkeypatch.setattr(actions, "ARRIVAL_WINDOW", 0.0)
    at.switch_page("pages/lessons/page.py").run()  # later: the reader comes back on purpose
    assert "Step 1 of 4" not in texts(at) and at.button(key=f"start_{LESSON}") and not pending(at)


def _noter():
    """A page whose button keeps a note (in its callback) that the page says."""
    import streamlit as st

    from hetdp_ui import actions

    actions.expire()
    st.button("say", key="say", on_click=actions.keep_note, args=("n", "the list was resized"))
    said = actions.note("n")
    if said:
        st.info(said)
    actions.run_ended()


def test_a_note_is_said_by_two_runs_that_reach_the_page_end_after_a_stopped_run(stop):
    """Read once and popped, a note was lost with the run that drew it when a rerun stopped that run;
    it is said until two runs that drew it reached the page's end (hetdp_ui.actions.keep_note)."""
    at = AppTest.from_function(_noter).run()
    record = stop()
    at.button(key="say").click().run()  # stopped before the page drew anything
    assert record == ["stopped"] and not at.info
    said = []
    for _ in range(3):
        said.append([i.value for i in at.run().info])
    assert said == [["the list was resized"]] * 2 + [[]] and not at.exception


def test_per_user_privacys_resized_list_note_survives_the_next_run():
    at = AppTest.from_file(str(ROOT / "pages" / "per_user_privacy" / "page.py"), default_timeout=120)
    at.query_params.update({"trials": "50"})
    at.run()
    at.slider(key="per_user_privacy_k").set_value(at.slider(key="per_user_privacy_k").value + 1).run()
    note = "“ε per bin” now has 6 entries, one per bin"
    assert any(note in c.value for c in at.caption), [c.value for c in at.caption]
    at.run()  # said again (a run stopped after drawing it would have lost it)
    assert any(note in c.value for c in at.caption)
    at.run()
    assert not any(note in c.value for c in at.caption) and not at.exception


# ---------------------------------------------------------------------------- scenario pages


def test_the_mechanism_labs_solve_pin_and_unpin_act_after_a_stopped_run(stop):
    at = AppTest.from_file(str(ROOT / "pages" / "mechanism_lab" / "page.py"), default_timeout=120).run()
    at.number_input(key="mechanism_lab_target").set_value(10.0).run()
    click_stopped(at, "mechanism_lab_solve", stop)
    assert "**laplace**: ε = 0.4472" in texts(at) and not pending(at)
    at.run()  # the answer is kept: any rerun shows it again
    assert "**laplace**: ε = 0.4472" in texts(at)
    # a solve whose run was stopped, then the target changed: it answers the question on screen
    stop()
    at.button(key="mechanism_lab_solve").click().run()
    at.session_state["mechanism_lab_target"] = 2.0  # as a rerun with a new target stopped the solve's run
    at.run()
    assert "**laplace**: ε = 1" in texts(at) and "0.4472" not in texts(at) and not pending(at)

    click_stopped(at, "mechanism_lab_pin_set", stop)
    assert "Plan A (pinned) vs plan B" in texts(at) and qp(at, "pin") is not None
    at.run()
    assert "Plan A (pinned) vs plan B" in texts(at)
    click_stopped(at, "mechanism_lab_pin_clear", stop)
    assert "Plan A (pinned)" not in texts(at) and qp(at, "pin") is None and not at.exception

    # the level a target risk needs (the meaning panel): set though the rerun sends the old ε back
    at.session_state["mechanism_lab_meaning_open"] = True  # the meaning panel is drawn while open
    at.run()
    at.number_input(key="mechanism_lab_target_tpr").set_value(50.0).run()
    old = at.session_state["mechanism_lab_eps"]
    click_stopped(at, "mechanism_lab_use_risk", stop, resend={"mechanism_lab_eps": old})
    assert at.session_state["mechanism_lab_eps"] == 3.91 and qp(at, "eps") == "3.91" and not pending(at)
    at.run()
    assert at.session_state["mechanism_lab_eps"] == 3.91 and not at.exception


@pytest.mark.parametrize(
    "slug,query,found,field",
    [
        ("per_user_privacy", {"trials": "50"}, "every finite demand ×", "eps_by_bin"),
        ("feature_privacy", {"trials": "5"}, "× the levels", "eps"),
    ],
)
def test_a_solvers_stopped_click_still_answers_and_its_setting_is_used(slug, query, found, field, stop):
    """The per-user solver's click was lost in a full test run (expander open, no status, no answer); its
    *Use this setting here* set the inputs in a callback, and a rerun carrying their old values undid it."""
    at = AppTest.from_file(str(ROOT / "pages" / slug / "page.py"), default_timeout=300)
    at.query_params.update(query)
    at.run()
    click_stopped(at, f"{slug}_solve", stop)
    assert any(found in s.value for s in at.success) and not pending(at) and not at.exception
    at.run()
    assert any(found in s.value for s in at.success)
    old = at.session_state[f"{slug}_{field}"]
    click_stopped(at, f"{slug}_use_solution", stop, resend={f"{slug}_{field}": old})
    assert at.session_state[f"{slug}_{field}"] != old and qp(at, field) != str(old) and not pending(at)
    at.run()
    assert at.session_state[f"{slug}_{field}"] != old and not at.exception


def _decision():
    """The decision-package button with a builder that counts its builds."""
    import streamlit as st

    from hetdp_ui import actions
    from hetdp_ui.exports import decision_button

    actions.expire()
    view = st.radio("view", ["a", "b"], key="view")

    def build():
        st.session_state["builds"] = st.session_state.get("builds", 0) + 1
        return f"zip of {view}".encode()

    decision_button("d", view, build, file_name="d.zip")
    st.markdown(f"builds {st.session_state.get('builds', 0)}")
    actions.run_ended()


def test_prepare_the_decision_builds_once_for_the_view_on_screen(stop):
    """Prepare the decision (every scenario page and the ledger; the real package: tests/test_package.py)."""
    at = AppTest.from_function(_decision).run()
    click_stopped(at, "d_prepare", stop)
    assert "builds 1" in texts(at) and at.get("download_button") and not pending(at)
    at.run()
    assert "builds 1" in texts(at) and at.get("download_button")
    at.radio(key="view").set_value("b").run()
    stop()
    at.button(key="d_prepare").click().run()
    at.session_state["view"] = "a"  # back to a built view before the click was acted on
    at.run()
    assert not pending(at) and "builds 1" in texts(at)
    at.radio(key="view").set_value("b").run()
    assert "builds 1" in texts(at) and not at.get("download_button")  # no build without a click


def test_the_ledgers_solve_use_pin_and_unpin_act_after_a_stopped_run(stop):
    at = AppTest.from_file(str(ROOT / "pages" / "release_ledger" / "page.py"), default_timeout=180)
    at.query_params["plan"] = '[[release]]\nname = "counts"\nmechanism = "gaussian"\nnoise = 2.0\nrepeat = 3\n'
    at.run()
    click_stopped(at, "ledger_solve", stop)
    assert any("Multiply the noise" in s.value for s in at.success) and not pending(at)
    before = at.session_state["ledger_rows"]["noise"].tolist()
    click_stopped(at, "ledger_use_solution", stop)
    assert at.session_state["ledger_rows"]["noise"].tolist() != before and not at.exception
    click_stopped(at, "ledger_pin_set", stop)
    assert "Plan A (pinned) vs plan B" in texts(at)
    click_stopped(at, "ledger_pin_clear", stop)
    assert "Plan A (pinned)" not in texts(at) and not at.exception


# ---------------------------------------------------------------------------- lessons


def test_the_lessons_pages_buttons_open_their_page_after_a_stopped_run(routed_by_navigation, stop, url):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/lessons/page.py").run()
    click_stopped(at, f"start_{LESSON}", stop)
    assert "Lesson: What a per-feature guarantee promises" in texts(at), texts(at)[:300]
    assert qp(at, "lesson") == LESSON and not pending(at) and not at.exception
    at.switch_page("pages/lessons/page.py").run()
    click_stopped(at, f"teach_{LESSON}", stop)
    assert at.selectbox(key="class_lesson").value == LESSON and not pending(at)
    at.switch_page("pages/lessons/page.py").run()
    at.file_uploader(key="lesson_preview_file").set_value(("mine.toml", CHOICE_LESSON.encode(), "text/plain")).run()
    click_stopped(at, "lesson_preview_start", stop)
    assert "Lesson: Your level" in texts(at) and not pending(at) and not at.exception


def lab_step(step: int, lesson: str = LESSON, **extra) -> AppTest:
    at = AppTest.from_file(LAB, default_timeout=120)
    at.query_params.update({"lesson": lesson, "step": str(step), **extra})
    return at.run()


def test_the_lesson_panels_buttons_act_after_a_stopped_run(stop):
    from hetdp_ui.lesson_panel import SCORES

    at = lab_step(1)
    key = f"lesson_{LESSON}_1"
    at.number_input(key=f"{key}_answer").set_value(0.693).run()
    click_stopped(at, f"{key}_check", stop)
    assert any(s.value.startswith("Correct") for s in at.success) and not pending(at)
    at.number_input(key=f"{key}_answer").set_value(0.9).run()
    click_stopped(at, f"{key}_check", stop, "effect")  # stopped right after the count: counted once
    assert any(w.value.startswith("Not quite") for w in at.warning)
    assert at.session_state[SCORES][LESSON][1].tries == 2 and not pending(at)

    click_stopped(at, "lesson_next", stop)  # the step is on the same page: the URL changes
    assert qp(at, "step") == "2" and not pending(at)
    at.run()
    assert qp(at, "step") == "2"
    click_stopped(at, "lesson_prev", stop)
    assert qp(at, "step") == "1" and not pending(at) and not at.exception
    at.slider(key="bcdp_guarantee_lab_a").set_value(0.9).run()
    click_stopped(at, "lesson_reset", stop, resend={"bcdp_guarantee_lab_a": 0.9})  # the old value sent back
    assert at.session_state["bcdp_guarantee_lab_a"] == 0.5 and qp(at, "a") == "0.5" and not pending(at)

    last = lab_step(4)
    click_stopped(last, "lesson_next", stop)  # finish: run alone, the page says where to go
    assert last.session_state[actions.NOTES]["_lesson_finished"].text == LESSON and "Lesson finished" in texts(last)
    assert not pending(last)

    away = lab_step(1, lesson="1-bcdp-feature-privacy")  # a step of another page
    click_stopped(away, "lesson_goto", stop)
    assert "Step 1 is on the page Feature_privacy" in texts(away) and not pending(away)


def test_keep_my_choice_acts_after_a_stopped_run(stop):
    from hetdp_core.teaching.lessons import parse_lesson
    from hetdp_ui.lesson_panel import PREVIEWS

    lesson = parse_lesson(CHOICE_LESSON, id="preview-0000-choice")
    at = AppTest.from_file(LAB, default_timeout=120)
    at.session_state[PREVIEWS] = {lesson.id: lesson}
    at.query_params.update({"lesson": lesson.id, "step": "1"})
    at.run()
    key = f"lesson_{lesson.id}_1"
    at.slider(key=f"{key}_answer").set_value(2.5).run()
    click_stopped(at, f"{key}_check", stop)
    assert any(s.value.startswith("Your choice: 2.5") for s in at.success) and not pending(at)
    at.run()
    assert any(s.value.startswith("Your choice: 2.5") for s in at.success)


# ---------------------------------------------------------------------------- the class


@pytest.fixture
def url(tmp_path, monkeypatch):
    u = f"sqlite:///{tmp_path / 'class.sqlite'}"
    monkeypatch.setenv(db.URL_ENV, u)
    return u


def class_page(**params) -> AppTest:
    at = AppTest.from_file(CLASS, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def test_start_the_session_starts_one_session_per_click(url, stop):
    at = class_page(teach=LESSON)
    click_stopped(at, "class_start", stop, "effect")  # started, then stopped before the page left
    assert qp(at, "code") and qp(at, "key") and "Class session" in at.title[0].value
    assert not pending(at) and not at.exception
    at.run()
    assert "Live" in [s.value for s in at.subheader]
    assert len(ClassStore().sessions()) == 1  # one session for the click
    again = class_page(teach=LESSON)
    click_stopped(again, "class_start", stop)
    assert qp(again, "code") and qp(again, "code") != qp(at, "code") and not pending(again)


def started(lesson: str = LESSON):
    s = ClassStore().start(lesson)
    return s.code, s.key


def test_join_continue_and_a_refused_join_act_after_a_stopped_run(url, stop):
    code, _ = started()
    at = class_page(code=code)
    at.text_input(key="class_name").input("Ada").run()
    click_stopped(at, "class_join", stop, "effect")  # joined, then stopped before the page switched
    link = " ".join(i.value for i in at.info)
    m = re.search(r"class=(\w+)&me=([\w-]+)", link)
    assert m and not pending(at), link
    assert ClassStore().counts(code)["students"] == 1  # one student for the click
    refused = class_page(code=code)
    refused.text_input(key="class_name").input("Ada").run()
    click_stopped(refused, "class_join", stop)
    assert any("is taken" in e.value for e in refused.error)
    refused.run()  # the refusal stays until the next join
    assert any("is taken" in e.value for e in refused.error) and not pending(refused)

    home = class_page(code=code, me=m.group(2))
    click_stopped(home, "class_continue", stop)
    assert f"lesson={LESSON}&step=1&class={code}&me=" in " ".join(i.value for i in home.info)
    assert not pending(home) and not home.exception


def test_a_switch_stopped_after_it_wrote_the_address_goes_on_from_the_page_it_left(url, monkeypatch):
    """``st.switch_page`` writes the target's query string, then asks for the target's run; a rerun
    request in between (the student pressed a key; a fragment ticked) runs the *class* page at the lesson
    step's address, which shows the landing page and no *Continue* button (found in a full run beside a
    CPU hog: the student stranded on the landing page). The pending navigation goes on from there."""
    import streamlit as st

    from hetdp_ui import nav

    code, _ = started()
    token = ClassStore().join(code, "Ada")
    real, calls = nav.open_page, []

    def half_done(page, query_params):
        calls.append(page)
        if len(calls) == 1:  # the address written, the switch lost to a rerun request
            st.query_params.from_dict(query_params)
            raise StopException()
        real(page, query_params)

    monkeypatch.setattr(nav, "open_page", half_done)
    home = class_page(code=code, me=token)
    home.button(key="class_continue").click().run()
    assert calls == ["BCDP_guarantee_lab"] and qp(home, "code") is None and "class_continue" in pending(home)
    home.run()  # the class page at the step's address: no Continue button drawn
    assert calls == ["BCDP_guarantee_lab"] * 2, "the navigation was not resumed"
    assert f"lesson={LESSON}&step=1&class={code}&me={token}" in " ".join(i.value for i in home.info)
    assert not pending(home) and not home.exception


def test_close_reopen_poll_and_delete_act_after_a_stopped_run(url, stop):
    code, key = started()
    at = class_page(code=code, key=key)
    click_stopped(at, "class_close", stop)
    assert ClassStore().session(code).closed and "**closed**" in texts(at)
    click_stopped(at, "class_reopen", stop)
    assert not ClassStore().session(code).closed and not pending(at)
    at.text_input(key="class_poll_q").input("Have you ever reused a password?")
    click_stopped(at, "class_poll_open", stop)
    assert any("Asked the class" in s.value for s in at.success)
    click_stopped(at, "class_poll_close", stop)
    assert any("Poll closed" in s.value for s in at.success)
    click_stopped(at, "class_delete", stop, "effect")  # deleted, then stopped before the page left it
    assert any(f"Class session {code} and everything" in s.value for s in at.success)
    assert qp(at, "code") is None and not pending(at) and not at.exception
    at.run()  # the note stays through a rerun (until a session is started or joined)
    assert any(f"Class session {code} and everything" in s.value for s in at.success)
    with pytest.raises(InputError, match="names no class session"):
        ClassStore().session(code)


def test_check_my_answer_in_a_class_is_recorded_once_after_a_stopped_run(url, stop):
    code, _ = started()
    token = ClassStore().join(code, "Bao")
    at = lab_step(1, **{"class": code, "me": token})
    key = f"lesson_{LESSON}_1"
    at.number_input(key=f"{key}_answer").set_value(0.693).run()
    click_stopped(at, f"{key}_check", stop)
    assert any("Your answer was recorded (attempt 1)" in c.value for c in at.caption), texts(at)
    at.number_input(key=f"{key}_answer").set_value(0.5).run()
    click_stopped(at, f"{key}_check", stop, "effect")  # counted, then stopped before it was recorded
    assert any("Your answer was recorded (attempt 2)" in c.value for c in at.caption)
    assert ClassStore().counts(code)["answers"] == 2 and not pending(at) and not at.exception


# ---------------------------------------------------------------- the click Streamlit itself dropped


class _Runner:
    """Streamlit's script runner as far as a session state's yield point sees it: while ``_execing``, a
    pending request (a slider's value that came in meanwhile) stops the run at the next yield point."""

    def __init__(self):
        self._execing, self.pending, self.yields = True, True, 0

    def _maybe_handle_execution_control_request(self):
        if not self._execing:
            return
        self.yields += 1
        if self.pending:
            self.pending = False
            raise StopException()


class _State(dict):
    """The session state under Streamlit's thread-safe wrapper: applying a click's widget states runs its
    callback, which reads the session through the wrapper (``st.session_state``: a yield point) and
    counts the click."""

    def on_script_will_rerun(self, fresh_widget_states, **kwargs):
        self["applied"] = fresh_widget_states
        self["clicks"] = self.safe["clicks"] + 1  # the callback's read of st.session_state


def _safe_state():
    from streamlit.runtime.state.safe_session_state import SafeSessionState

    runner, state = _Runner(), _State(clicks=0)
    state.safe = SafeSessionState(state, runner._maybe_handle_execution_control_request)
    return runner, state


def test_streamlits_own_yield_points_no_longer_drop_a_click_before_its_callback():
    """hetdp_ui.streamlit_fix: Streamlit (1.67) checked for a pending request before it applied a click's
    widget states, and at every session-state read inside the callback: a slider's request that came in
    then stopped the run with the click dropped (1–11 of 80 clicks in Chromium on a busy machine; the
    same clicks in a browser: tests/browser/test_clicks_browser.py). With the fix the states are applied
    and the callback runs whole first, and the runner's own check right after still stops the run."""
    from hetdp_ui import streamlit_fix

    assert streamlit_fix.install(), "Streamlit's on_script_will_rerun changed: revisit hetdp_ui/streamlit_fix.py"
    # without the fix: stopped before the click's states were applied, the click never counted
    runner, state = _safe_state()
    with pytest.raises(StopException):
        streamlit_fix._ORIGINAL(state.safe, "the click")
    assert "applied" not in state and state["clicks"] == 0
    # its second yield point, inside the callback: stopped there, the callback stored nothing either
    _, state = _safe_state()
    with pytest.raises(StopException):
        state.on_script_will_rerun("the click")  # past the first check: the callback's read stops it
    assert state["clicks"] == 0
    # with the fix: applied and counted, no yield point in between; the request is still pending, and
    # the runner's check that follows (Streamlit's own, right after) stops the run then
    runner, state = _safe_state()
    state.safe.on_script_will_rerun("the click")
    assert state["applied"] == "the click" and state["clicks"] == 1
    assert runner.yields == 0 and runner.pending and runner._execing
    with pytest.raises(StopException):
        runner._maybe_handle_execution_control_request()
    # a runner told to stop (under fastReruns another runner took its place) applies nothing, as before
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    runner, state = _safe_state()
    runner._requests = type("Requests", (), {"_state": ScriptRequestType.STOP})()
    with pytest.raises(StopException):
        state.safe.on_script_will_rerun("the click")
    assert "applied" not in state and state["clicks"] == 0
    # a runner interrupted inside is left as it was (_execing restored)
    runner, state = _safe_state()
    state["clicks"] = "not a number"
    with pytest.raises(TypeError):
        state.safe.on_script_will_rerun("the click")
    assert runner._execing is True


def test_the_click_trace_notes_a_click_where_it_reaches_the_server_and_where_its_run_applies_it(tmp_path, monkeypatch):
    """hetdp_ui.streamlit_fix's trace (the browser tests' servers): a form's submit or a button's click in
    a request is one line when the request reaches the server and one when its run applies it, named by
    the widget's key; a slider's value is no click; no trace file set, nothing is written."""
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    from hetdp_ui import streamlit_fix

    states = WidgetStates()
    click = states.widgets.add()
    click.id, click.trigger_value = "$$ID-0123abcd-class_poll_open", True
    slider = states.widgets.add()
    slider.id, slider.double_value = "$$ID-89ab-class_poll_eps", 1.0
    unclicked = states.widgets.add()
    unclicked.id, unclicked.trigger_value = "$$ID-cdef-class_poll_close", False
    assert streamlit_fix._triggers(states) == ["class_poll_open"]

    path = tmp_path / "clicks.log"
    monkeypatch.delenv(streamlit_fix.TRACE_ENV, raising=False)
    streamlit_fix._trace_triggers("reached the server", states, type("S", (), {"id": "session-1"})())
    assert not path.exists()
    monkeypatch.setenv(streamlit_fix.TRACE_ENV, str(path))
    seen = []
    request_rerun = streamlit_fix._traced_request_rerun(lambda self, cs: seen.append(cs))
    client_state = type("CS", (), {"widget_states": states, "fragment_id": ""})()
    request_rerun(type("S", (), {"id": "session-1"})(), client_state)
    assert seen == [client_state]  # Streamlit's own method still handles the request
    streamlit_fix._trace_triggers("applied by its run", states, type("R", (), {"_session_id": "session-1"})())
    lines = path.read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "session- run-page=- click-page=- reached the server class_poll_open",
        "session- run-page=- click-page=- applied by its run class_poll_open",
    ]
