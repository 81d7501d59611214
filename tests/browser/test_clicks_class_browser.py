"""No click is lost (issue 51), in Chromium — the lessons and the class (the scenario pages and the ledger:
test_clicks_browser.py, which says how a rerun is provoked; split in two so that the suite's two workers
share them). Screenshots under tests/artifacts/clicks_*.png."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from test_actions import CHOICE_LESSON  # a lesson of one "your choice" step, previewed from a file

from hetdp_ui.classroom.store import ClassStore

from .test_browser import assert_no_errors
from .test_class_browser import contexts as browser_contexts  # noqa: F401 — the fixture, closed after the report
from .test_clicks_browser import LESSON, RerunKey, SliderStep, click_during_rerun, settle, shown

pytestmark = pytest.mark.browser


def test_the_lesson_panels_buttons_act_while_a_slider_moves(page, server, artifacts, tmp_path):
    """A lesson on the BCDP guarantee lab: Check my answer, Reset to this step, Next and Previous step,
    Finish the lesson; Go to that step (a step of another page); Keep my choice (a lesson previewed from
    an uploaded file: Walk through the preview, on the Lessons page, is clicked with R pressed)."""
    page.goto(f"{server}/BCDP_guarantee_lab?lesson={LESSON}&step=1")
    page.get_by_text("Step 1 of 4").wait_for()
    settle(page)
    a, b = SliderStep(page, "a = P(M=1 | x1=0, x2=0)"), SliderStep(page, "b = P(M=1 | x1=1, x2=0)")
    box = page.get_by_role("spinbutton", name="your answer")
    box.fill("0.693")
    box.press("Enter")
    settle(page)
    click_during_rerun(page, "Check my answer", a)
    assert shown(page, re.compile(r"^Correct\.")), "Check my answer was lost"
    for _ in range(3):
        a()
        settle(page)
    assert "a=0.5&" not in page.url
    click_during_rerun(page, "Reset to this step", b)
    assert "a=0.5&" in page.url, "Reset to this step was lost (or sent back by the slider's rerun)"
    click_during_rerun(page, "Next step →", a)
    assert shown(page, re.compile(r"^Step 2 of 4")), "Next step was lost"
    page.screenshot(path=str(artifacts / "clicks_lesson_step2.png"), full_page=True)
    click_during_rerun(page, "← Previous step", a)
    assert shown(page, re.compile(r"^Step 1 of 4")), "Previous step was lost"
    assert_no_errors(page)

    page.goto(f"{server}/BCDP_guarantee_lab?lesson={LESSON}&step=4")
    page.get_by_text("Step 4 of 4").wait_for()
    settle(page)
    click_during_rerun(page, "Finish the lesson", SliderStep(page, "a = P(M=1 | x1=0, x2=0)"))
    page.wait_for_url(re.compile(r"/Lessons"))
    page.get_by_text(re.compile(r"^Finished “What a per-feature guarantee promises")).wait_for()

    page.goto(f"{server}/BCDP_guarantee_lab?lesson=5-dp-sgd-schedules&step=1")
    page.get_by_text("is on another page (DP_SGD_schedules)").wait_for()
    settle(page)
    click_during_rerun(page, "Go to that step", SliderStep(page, "a = P(M=1 | x1=0, x2=0)"))
    page.wait_for_url(re.compile(r"/DP_SGD_schedules\?.*lesson=5-dp-sgd-schedules"))
    page.get_by_text("Step 1 of 3").wait_for()
    settle(page)

    lesson_file = tmp_path / "mine.toml"
    lesson_file.write_text(CHOICE_LESSON)
    page.goto(f"{server}/Lessons")
    page.get_by_text("Preview a lesson file (for instructors)").click()
    page.locator('input[type="file"]').set_input_files(str(lesson_file))
    page.get_by_role("button", name="Walk through the preview").wait_for()
    settle(page)
    click_during_rerun(page, "Walk through the preview", RerunKey(page))
    page.wait_for_url(re.compile(r"/BCDP_guarantee_lab\?.*lesson=preview-"))
    page.get_by_text("Lesson: Your level").wait_for()
    settle(page)
    click_during_rerun(page, "Keep my choice", SliderStep(page, "a = P(M=1 | x1=0, x2=0)"))
    assert shown(page, re.compile(r"^Your choice: 1\.")), "Keep my choice was lost"
    assert_no_errors(page)
    page.screenshot(path=str(artifacts / "clicks_lesson_choice.png"), full_page=True)


def test_the_lessons_pages_buttons_act_while_the_page_reruns(page, server, artifacts):
    """Start a lesson, Teach it live: the Lessons page has no slider, R reruns it."""
    page.goto(f"{server}/Lessons")
    page.get_by_role("button", name=re.compile("^Start: What a per-feature guarantee")).wait_for()
    settle(page)
    click_during_rerun(page, "Start: What a per-feature guarantee", RerunKey(page), exact=False)
    page.wait_for_url(re.compile(rf"/BCDP_guarantee_lab\?.*lesson={LESSON}"))
    page.get_by_text("Step 1 of 4").wait_for()
    page.goto(f"{server}/Lessons")
    settle(page)
    click_during_rerun(page, "Teach it live to a class", RerunKey(page), nth=1)
    page.wait_for_url(re.compile(rf"/Class\?teach={LESSON}"))
    page.get_by_text("Start a session (instructor)").wait_for()
    settle(page)
    assert_no_errors(page)


def test_the_class_pages_buttons_act_while_their_fragments_tick(browser, server, artifacts, browser_contexts):  # noqa: F811
    """A live class: the instructor's page refreshes its live view every 3 s and a student's lesson page
    looks for a poll every 5 s (fragments); every click is made with R pressed (or a slider moved) too.
    Start the session, Close and Reopen, Ask the class and Close the poll; a student's Join, poll answer,
    Check my answer and, from the session's page, Continue; Delete everything."""
    ctx = browser.new_context(viewport={"width": 1300, "height": 950})
    browser_contexts.append(ctx)
    inst = ctx.new_page()
    inst.set_default_timeout(120_000)
    inst.goto(f"{server}/Class?teach={LESSON}")
    inst.get_by_text("Start a session (instructor)").wait_for()
    settle(inst)
    click_during_rerun(inst, "Start the session", RerunKey(inst))
    inst.get_by_text("Live", exact=True).wait_for()
    assert "key=" in inst.url, "Start the session was lost"
    code = parse_qs(urlparse(inst.url).query)["code"][0]
    click_during_rerun(inst, "Close (no new answers)", RerunKey(inst))
    assert shown(inst, re.compile(r"· closed$")), "Close was lost"
    click_during_rerun(inst, "Reopen", RerunKey(inst))
    assert shown(inst, re.compile(r"· open$")), "Reopen was lost"
    inst.get_by_text("Ask the class a private yes/no question").click()
    inst.get_by_role("textbox", name="question").fill("Have you ever reused a password?")
    click_during_rerun(inst, "Ask the class", RerunKey(inst))
    assert shown(inst, "Asked the class (ε = 1): Have you ever reused a password?"), "Ask the class was lost"

    ctx = browser.new_context(viewport={"width": 1300, "height": 950})
    browser_contexts.append(ctx)
    ada = ctx.new_page()
    ada.set_default_timeout(120_000)
    ada.goto(f"{server}/Class?code={code}")
    ada.get_by_role("textbox", name=re.compile("your display name")).fill("Ada")
    click_during_rerun(ada, "Join", RerunKey(ada))
    ada.wait_for_url(re.compile(rf"/BCDP_guarantee_lab\?.*class={code}.*me="))
    ada.get_by_text("as Ada").wait_for()
    settle(ada)
    a = SliderStep(ada, "a = P(M=1 | x1=0, x2=0)")
    ada.get_by_text("Have you ever reused a password?").wait_for(timeout=60_000)
    click_during_rerun(ada, "My true answer: yes", a)
    assert shown(ada, re.compile(r"^Sent: ")), "the poll answer was lost"
    box = ada.get_by_role("spinbutton", name="your answer")
    box.fill("0.693")
    box.press("Enter")
    settle(ada)
    click_during_rerun(ada, "Check my answer", a)
    assert shown(ada, "Your answer was recorded (attempt 1)."), "Check my answer in a class was lost"
    ada.screenshot(path=str(artifacts / "clicks_class_student.png"), full_page=True)
    me = parse_qs(urlparse(ada.url).query)["me"][0]
    ada.goto(f"{server}/Class?code={code}&me={me}")
    ada.get_by_role("button", name="Continue the lesson at step 1").wait_for()
    settle(ada)
    click_during_rerun(ada, "Continue the lesson at step 1", RerunKey(ada))
    ada.wait_for_url(re.compile(r"/BCDP_guarantee_lab\?"))
    ada.get_by_text("as Ada").wait_for()

    click_during_rerun(inst, "Close the poll", RerunKey(inst))
    assert shown(inst, "Poll closed: no new reports are taken."), "Close the poll was lost"
    inst.get_by_text("1 students joined · 1 answers recorded").wait_for(timeout=60_000)
    inst.screenshot(path=str(artifacts / "clicks_class_instructor.png"), full_page=True)
    inst.get_by_role("button", name="Delete the session").click()
    click_during_rerun(inst, "Delete everything", RerunKey(inst))
    inst.get_by_text(f"Class session {code} and everything stored about it were deleted.").wait_for()
    assert "code=" not in inst.url
    assert_no_errors(ada)
    store = ClassStore()  # the server's database (the suite's data directory)
    assert code not in [s.code for s in store.sessions()]
