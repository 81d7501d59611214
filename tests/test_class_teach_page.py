"""A live class that strands no one and teaches back (AppTest): a student who keeps clicking through a
close, a reopen and a delete never gets an error page; no dead end after a wrong code, a deleted session
or a wrong instructor key; one limit for a name; a look-up counted in the score; targeted feedback on a
known mistake; each student's own variant and answer; the class's closed poll on a student's page;
the instructor's progress table and *Reveal to the class*."""

import re

import pytest
import test_class_page
from conftest import ROOT
from streamlit.testing.v1 import AppTest
from test_class_page import LESSON, answer, class_page, join, lesson_step, qp, texts

from hetdp_core.teaching.lessons import bundled_lesson
from hetdp_ui.chart_element import charts, spec_of
from hetdp_ui.class_panel import ENDED
from hetdp_ui.classroom.store import ClassStore

VARIED = "5-dp-sgd-schedules"
#: the class database of tests/test_class_page.py: an SQLite file the pages use (HETDP_DATABASE_URL)
url = test_class_page.url


def no_error_page(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def step_of(at: AppTest) -> str:
    return qp(at, "step")


def ada_answered(url, value):
    """A session of lesson 1, Ada joined, on step 1, having answered ``value``: (store, session, token, page)."""
    store = ClassStore(url)
    s = store.start(LESSON)
    _, ada = join(s.code, "Ada")
    at = lesson_step(s.code, ada, 1)
    answer(at, 1, value)
    return store, s, ada, at


def test_a_student_clicking_through_a_close_a_reopen_and_a_delete_never_gets_an_error_page(url):
    store, s, ada, at = ada_answered(url, 0.5)
    assert "recorded (attempt 1)" in texts(at)
    store.close(s.code)
    at.run()  # any rerun: the banner says what is true now
    assert "is closed: your answers are kept, new ones are not recorded" in texts(at)
    assert "your answers are recorded" not in texts(at)
    answer(at, 1, 0.09)
    no_error_page(at)
    assert any("Not recorded: class session" in e.value for e in at.error)
    store.reopen(s.code)
    at.run()
    assert "— your answers are recorded" in texts(at)
    answer(at, 1, 0.0905)
    assert "recorded (attempt 2)" in texts(at)
    store.delete(s.code)
    # the crash: Next step → after a delete raised "names no class session" from the banner
    at.button(key="lesson_next").click().run()
    no_error_page(at)
    assert step_of(at) == "2" and qp(at, "class") is None and qp(at, "me") is None
    said = [m.value for m in (*at.warning, *at.info)]
    assert any("no longer exists (your instructor deleted it)" in m for m in said), said
    assert "your answers are recorded" not in texts(at)
    for click in ("lesson_next", "lesson_prev", "lesson_prev", "lesson_next"):  # and on, and back
        at.button(key=click).click().run()
        no_error_page(at)
        assert any("no longer exists" in i.value for i in at.info)  # said on every step, not only once
    answer(at, 2, 2.33)
    no_error_page(at)
    assert any(s_.value.startswith("Correct") for s_ in at.success) and not at.error
    assert at.session_state[ENDED] == (LESSON, next(i.value for i in at.info if "no longer exists" in i.value))
    other = AppTest.from_file(str(ROOT / "pages" / "dp_sgd_schedules" / "page.py"), default_timeout=180)
    other.session_state[ENDED] = at.session_state[ENDED]
    other.query_params.update({"lesson": VARIED, "step": "1"})
    other.run()  # another lesson of the same browser session: nothing said about the ended class
    assert not any("no longer exists" in i.value for i in other.info) and not other.exception


def test_a_delete_while_the_student_answers_or_sends_the_poll_is_no_error_page(url):
    store = ClassStore(url)
    s = store.start(LESSON)
    _, ada = join(s.code, "Ada")
    at = lesson_step(s.code, ada, 3)
    poll = store.open_poll(s.code, question="Reused a password?", eps=1.0)
    at.run()
    store.delete(s.code)
    at.button(key=f"class_poll_yes_{poll.id}").click().run()  # the poll button of a page drawn before
    no_error_page(at)
    at = lesson_step(s.code, ada, 3)  # the link of a deleted session, reloaded
    no_error_page(at)
    assert any("Class session ignored" in w.value for w in at.warning)
    home = class_page(code=s.code, me=ada)  # the class home of a deleted session: the reason and a way on
    no_error_page(home)
    assert [t.key for t in home.text_input] == ["class_code", "class_name"]


def test_no_dead_end_after_a_wrong_code_a_closed_session_or_a_wrong_key(url):
    store = ClassStore(url)
    s = store.start(LESSON)
    at = class_page(code="ZZZZZZ")
    assert [e.value for e in at.error] == ["code 'ZZZZZZ' names no class session; check the code on the projector."]
    at.text_input(key="class_code").input(s.code.lower()).run()  # type the right code there
    _, tok = join(s.code, "Ada", at)
    assert store.student(s.code, tok).name == "Ada"
    store.close(s.code)
    at = class_page(code=s.code)
    assert any("is closed" in e.value for e in at.error) and at.text_input(key="class_code")
    store.reopen(s.code)
    at = class_page(code=s.code, key="guessed")
    assert [e.value for e in at.error] == [
        "the instructor key does not match this session; open the instructor link you were given."
    ]
    assert not at.metric and not at.get("image")
    link = f"https://hetdp.example.edu/Class?code={s.code}&key={s.key}"
    at.text_input(key="class_key_again").input(link)  # paste the whole instructor link
    at.button[0].click().run()  # the form's "Open the live view"
    assert qp(at, "key") == s.key and not at.error
    assert {m.label for m in at.metric} >= {"reached", "answered"}  # the live view
    gone = store.start(LESSON)
    store.delete(gone.code)
    at = class_page(code=gone.code, key=gone.key)
    assert any("names no class session" in e.value for e in at.error) and at.text_input(key="class_code")


def test_a_name_has_one_limit_and_a_long_paste_is_kept_and_refused_by_its_length(url):
    s = ClassStore(url).start(LESSON)
    at = class_page(code=s.code)
    box = at.text_input(key="class_name")
    assert not box.max_chars and "1 to 40 characters" in box.label  # no 200 in the box, 40 on Join
    at.text_input(key="class_name").input("x" * 300).run()
    at.button(key="class_join").click().run()
    assert [e.value for e in at.error] == ["name has 300 characters; at most 40. Choose a shorter name."]
    assert at.text_input(key="class_name").value == "x" * 300  # the paste is kept to shorten, not dropped
    assert ClassStore(url).counts(s.code)["students"] == 0


def test_a_look_up_is_counted_in_the_score_and_recorded_in_class(url):
    """The issue's case: wrong, *Show the answer*, type it in — the score said "4 of 4 right"."""
    lid = LESSON
    fp = str(ROOT / "pages" / "feature_privacy" / "page.py")
    at = AppTest.from_file(fp, default_timeout=180)
    at.query_params.update({"lesson": lid, "step": "1"})
    at.run()
    answer(at, 1, 0.5)
    at.session_state[f"lesson_{lid}_1_reveal"] = True  # open *Show the answer to step 1*
    at.run()
    answer(at, 1, 0.09)
    for k, value in ((2, 2.33), (3, "no"), (4, 0.2)):
        at.button(key="lesson_next").click().run()
        answer(at, k, value)
    at.button(key="lesson_next").click().run()
    line = next(s_.value for s_ in at.success if "Last step" in s_.value)
    assert "3 of 4 questions right, 3 at the first try; 1 answer looked up" in line, line
    # in a class session: the instructor's reveal counts as a look-up, recorded with the next check
    store, s, ada, at = ada_answered(url, 0.5)
    store.reveal(s.code, 1)
    at.run()
    assert any(
        i.value.startswith("Your instructor revealed **Step 1 — The setting:** the answer is **0.09") for i in at.info
    )
    answer(at, 1, 0.09)
    (row, *_) = store.export_rows(s.code)
    assert (row["attempts"], row["last_right"], row["looked_up"]) == (2, True, True)


def test_a_known_mistake_shows_the_student_its_explanation_at_once(url):
    store, s, ada, at = ada_answered(url, 0.2)
    (w,) = at.warning
    assert w.value.startswith("Not quite — a common mistake. You took the demand δ = 0.2 for the budget c")
    assert w.value.endswith("what correlated features leak. Try again.")  # its explanation, not the general hint
    answer(at, 1, 0.5)  # a wrong answer no misconception names: the hint only
    hint = bundled_lesson("1-bcdp-feature-privacy").steps[0].question.hint  # the step's hint, its claims cited
    assert [w.value for w in at.warning] == [f"Not quite. Hint: {hint}"]
    ct = lesson_step(s.code, ada, 3)
    answer(ct, 3, "yes")  # a choice misconception
    assert any("a common mistake. You compared the medians (simulated, after projection" in w.value for w in ct.warning)


def test_each_student_answers_their_own_variant_and_the_instructor_sees_relative_errors(url):
    store = ClassStore(url)
    s = store.start(VARIED)
    pages, mine = {}, {}
    for name in ("Ada", "Bao"):
        _, tok = join(s.code, name)
        at = AppTest.from_file(str(ROOT / "pages" / "dp_sgd_schedules" / "page.py"), default_timeout=180)
        at.query_params.update({"lesson": VARIED, "step": "1", "class": s.code, "me": tok})
        at.run()
        no_error_page(at)
        pages[name], mine[name] = at, store.variant(s.code, tok, 1)
    ada, bao = mine["Ada"], mine["Bao"]
    assert ada.variant != bao.variant
    for name, at in pages.items():
        rho = mine[name].variant["rho"]
        assert f"With ρ = {rho:g}, how many times larger" in texts(at)
        assert f"the learning rate decays with ρ = {rho:g}" in texts(at)
        rho_slider = next(w for w in at.sidebar.slider if w.key.endswith("_rho"))
        assert rho_slider.value == pytest.approx(rho)  # the page opened at the student's own scenario
    at = pages["Ada"]
    key = f"lesson_{VARIED}_1"
    at.number_input(key=f"{key}_answer").set_value(round(bao.answer, 4)).run()  # the neighbour's number
    at.button(key=f"{key}_check").click().run()
    assert any(w.value.startswith("Not quite") for w in at.warning)
    at.number_input(key=f"{key}_answer").set_value(round(ada.answer, 4)).run()
    at.button(key=f"{key}_check").click().run()
    assert any(x.value.startswith("Correct") for x in at.success)
    at.session_state[f"{key}_reveal"] = True
    at.run()
    assert any(f"**{ada.answer:g} (± 0.03)**" in m.value for m in at.expander[0].markdown)  # their own answer
    inst = class_page(code=s.code, key=s.key)
    no_error_page(inst)
    assert "Each student has their own values (rho from 0.3 to 0.7)" in texts(inst)
    assert "With ρ = 0.3–0.7, how many times larger" in texts(inst)  # the prompt as the whole class has it
    fig = charts(inst)[0]
    assert "own answer" in spec_of(fig)  # the relative-error chart


def test_a_student_sees_the_class_s_closed_poll_and_what_their_own_answer_revealed(url):
    store = ClassStore(url)
    s = store.start(LESSON)
    _, ada = join(s.code, "Ada")
    _, bob = join(s.code, "Bob")
    poll = store.open_poll(s.code, question="Have you ever reused a password?", eps=1.0)
    sent = store.answer_poll(s.code, ada, poll_id=poll.id, truth=True, rng=1)
    store.answer_poll(s.code, bob, poll_id=poll.id, truth=False, rng=2)
    store.close_poll(s.code)
    _, est = store.poll_estimate(s.code)
    at = lesson_step(s.code, ada, 2)
    shown = texts(at)
    assert "**Class poll closed (private, ε = 1).** Have you ever reused a password?" in shown
    clipped = min(1.0, max(0.0, est.estimate))
    assert f"an estimated **{clipped:.0%}** of the class would truly answer yes (95 % interval {est.low:.0%}" in shown
    said = "yes" if sent else "no"
    words = "an attacker who thought 50 % now thinks at most 73.2 %"
    assert f"You sent **{said}**. Seeing it, {words} that your true answer is {said}" in shown
    assert "catches at most 2.72 % of those it is after" in shown  # the meaning panel's attack sentence
    home = class_page(code=s.code, me=bob)
    assert "What your own answer revealed" in texts(home)


def test_the_instructor_sees_who_is_stuck_and_reveals_a_step_to_the_class(url):
    store = ClassStore(url)
    s = store.start(LESSON)
    _, ada = join(s.code, "Ada")
    _, bao = join(s.code, "Bao")
    at = lesson_step(s.code, ada, 1)
    answer(at, 1, 0.2)
    answer(at, 1, 0.5)  # two wrong attempts: stuck
    bt = lesson_step(s.code, bao, 1)
    answer(bt, 1, 0.09)
    inst = class_page(code=s.code, key=s.key)
    table = inst.dataframe[0].value
    assert list(table.columns) == [
        "student",
        "step reached",
        "on it for",
        "attempts there",
        "right there",
        "looked up",
        "stuck",
    ]
    assert table.iloc[0]["student"] == "Ada" and table.iloc[0]["stuck"] == "stuck"
    assert table.iloc[0]["attempts there"] == 2 and table.iloc[0]["step reached"] == "1 — The setting"
    assert table.iloc[1]["right there"] == "yes" and table.iloc[1]["stuck"] == ""
    assert "1 of 2 students look stuck" in texts(inst)
    inst.button(key="class_reveal_1").click().run()
    assert store.revealed(s.code) == (1,)
    assert "Revealed to the class: every student's page shows step 1's answer" in texts(inst)
    assert not [b for b in inst.button if b.key == "class_reveal_1"]
    at.run()  # the student's next look
    assert any(
        i.value.startswith("Your instructor revealed **Step 1 — The setting:** the answer is **0.09 (± 0.002)**")
        for i in at.info
    )
    assert re.search(r"Theorem 2 splits the demand", " ".join(i.value for i in at.info))
