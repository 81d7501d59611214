"""A live class that strands no one and teaches back, in Chromium: an instructor and three students
(one on a phone), each in a browser context of their own. A long pasted name is kept and refused by
its length; a known mistake shows its explanation to the student at once; the instructor's progress
table and *Reveal to the class* (on the students' pages without a reload); a closed poll shows the
class's estimate and what each student's own answer revealed; a close, a reopen and a delete reach
every student's banner by themselves, and a student who keeps clicking through them never gets an
error page; a wrong code and a wrong key are no dead end; per-student variants (lesson 5): each
student their own ρ and answer, a neighbour's number judged wrong. Screenshots under tests/artifacts/."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from hetdp_ui.classroom.store import ClassStore

from . import test_class_browser
from .test_browser import type_in, wait_idle
from .test_charts_in_words import check_charts_in_words
from .test_class_browser import _context as one_context
from .test_class_browser import join, start

pytestmark = pytest.mark.browser
#: the browser contexts of a test, closed after its report (tests/browser/test_class_browser.py)
contexts = test_class_browser.contexts

#: an error *page*: Streamlit's exception box or its "This app has encountered an error"
CRASH = '[data-testid="stException"]'
PHONE = {"width": 390, "height": 844}


def _context(browser, contexts, **kw):
    """A page in a browser context of its own (closed after the test's report)."""
    ctx, pg = one_context(browser, **kw)
    contexts.append(ctx)
    return pg


def shot(pg, locator, path) -> None:
    """A screenshot of the viewport with ``locator`` in its middle (Streamlit scrolls its own container,
    so a full-page screenshot shows only the top)."""
    locator.first.evaluate("e => e.scrollIntoView({block: 'center'})")
    pg.wait_for_timeout(400)
    pg.screenshot(path=str(path))


def no_crash(pg) -> None:
    assert pg.locator(CRASH).count() == 0, pg.locator(CRASH).first.inner_text()
    assert pg.get_by_text("This app has encountered an error").count() == 0


def check(pg, value: str) -> None:
    type_in(pg.get_by_role("spinbutton", name="your answer"), value)
    wait_idle(pg)
    pg.get_by_role("button", name="Check my answer").click()
    wait_idle(pg)


def test_a_class_that_strands_no_one_and_teaches_back(browser, server, artifacts, contexts):
    """One limit for a name, targeted feedback and the instructor's progress table (a look-up and Reveal to
    the class: the next test; the poll, close, reopen and delete: the one after)."""
    inst, code, key = start(browser, contexts, server, "1-bcdp-feature-privacy")

    # one limit for a name: a 300-character paste stays in the box and Join names its length (phone)
    chi = _context(browser, contexts, viewport=PHONE)
    chi.goto(f"{server}/Class?code={code}")
    box = chi.get_by_role("textbox", name=re.compile("your display name"))
    type_in(box, "x" * 300)
    assert len(box.input_value()) == 300  # kept, not silently dropped
    chi.get_by_role("button", name="Join").click()
    chi.get_by_text("name has 300 characters; at most 40. Choose a shorter name.").wait_for()
    type_in(box, "Chi")
    chi.get_by_role("button", name="Join").click()
    chi.wait_for_url(re.compile(r"/Feature_privacy\?.*me="))
    chi.get_by_text("as Chi").first.wait_for()
    wait_idle(chi, timeout=180_000)
    ada = join(browser, contexts, server, code, "Ada", "Feature_privacy")
    bao = join(browser, contexts, server, code, "Bao", "Feature_privacy")

    # targeted feedback: the known mistake's explanation, at once, on the student's screen
    check(ada, "0.2")
    feedback = ada.get_by_text(re.compile(r"Not quite — a common mistake\. You took the demand δ = 0\.2"))
    feedback.wait_for()
    shot(ada, feedback, artifacts / "class_student_feedback.png")
    check(ada, "0.5")  # a second wrong answer: Ada is stuck
    check(bao, "0.09")
    bao.get_by_text(re.compile(r"^Correct\.")).wait_for()
    check(chi, "0.5")
    chi.get_by_text(re.compile(r"^Not quite\. Hint:")).wait_for()
    for pg in (ada, bao, chi):
        no_crash(pg)

    # the instructor's progress table, by itself (the live view refreshes without a reload)
    inst.get_by_text("3 students joined · 4 answers recorded").wait_for(timeout=60_000)
    inst.get_by_text(re.compile(r"1 of 3 students look stuck")).wait_for()
    shot(inst, inst.get_by_text("Who is where"), artifacts / "class_instructor_progress.png")
    shot(inst, inst.locator(".js-plotly-plot"), artifacts / "class_instructor_rows.png")
    # the right answer and the known mistake on rows of their own, read from the chart the browser drew
    rows = inst.evaluate(
        "() => [...document.querySelectorAll('.hetdp-chart')].flatMap(g => (g.data || [])"
        ".filter(t => t.type === 'box').map(t => [t.name, Array.from(t.x || [])]))"
    )
    right = [x for name, xs in rows if name.startswith("right") for x in xs]
    mistake = [x for name, xs in rows if name.startswith("M1 ") for x in xs]
    assert right == [0.09] and mistake == [0.2], rows  # Bao's 0.09 and Ada's 0.2: never one bar
    check_charts_in_words(inst, artifacts, "class_instructor", "/Class")  # the class page's charts say what they draw
    for pg in (inst, ada, bao, chi):
        no_crash(pg)


def test_a_look_up_is_recorded_and_a_reveal_reaches_the_students(browser, server, artifacts, contexts):
    """A look-up counts as one, and Reveal to the class reaches the students' pages without a reload (the
    walk above in one test took 60 s of a full run on a slow host, at the 60-s limit: a test of its own)."""
    inst, code, key = start(browser, contexts, server, "1-bcdp-feature-privacy")
    ada = join(browser, contexts, server, code, "Ada", "Feature_privacy")
    chi = join(browser, contexts, server, code, "Chi", "Feature_privacy", viewport=PHONE)

    # a look-up counts as one: Chi opens the answer, then gives it — right, and recorded as looked up
    chi.get_by_text("Show the answer to step 1").click()
    wait_idle(chi)
    check(chi, "0.09")
    chi.get_by_text(re.compile(r"^Correct\.")).wait_for()
    row = next(r for r in ClassStore().export_rows(code) if r["student"] == "Chi" and r["step"] == 1)
    assert row["looked_up"] is True and row["last_right"] is True, row

    # Reveal to the class: the explanation reaches the students' screens without a reload
    inst.get_by_role("button", name="Reveal to the class").first.click()
    inst.get_by_text(re.compile(r"Revealed to the class: every student's page shows step 1")).wait_for()
    for pg in (ada, chi):
        pg.get_by_text(re.compile(r"Your instructor revealed Step 1 — The setting: the answer is 0\.09")).wait_for(
            timeout=60_000
        )
    shot(chi, chi.get_by_text("Your instructor revealed"), artifacts / "class_student_reveal_phone.png")
    for pg in (inst, ada, chi):
        no_crash(pg)


def test_a_closed_poll_reaches_every_student(browser, server, artifacts, contexts):
    """The second half of the class above (a test of its own: the whole walk took a minute or more): a
    closed poll on every student's page. The class follows the guarantee lab's lesson: what is tested is
    the class's, not the page's, and its students' pages draw no chart of their own (with Feature
    privacy's the test took 63 s of a quiet full run, over the 60-s limit; with the close, reopen and
    delete below in it, 46.6 s quiet and 63.2 s beside a CPU hog)."""
    inst, code, key = start(browser, contexts, server, "2-bcdp-guarantee-lab")
    ada = join(browser, contexts, server, code, "Ada", "BCDP_guarantee_lab")
    bao = join(browser, contexts, server, code, "Bao", "BCDP_guarantee_lab")
    chi = join(browser, contexts, server, code, "Chi", "BCDP_guarantee_lab", viewport=PHONE)

    # the class sees its closed poll: the estimate and what each one's own answer revealed
    inst.get_by_text("Ask the class a private yes/no question").click()
    inst.get_by_role("textbox", name="question").fill("Have you ever reused a password?")
    inst.get_by_role("button", name="Ask the class").click()
    inst.get_by_text("Asked the class (ε = 1): Have you ever reused a password?").wait_for()
    for pg, truth in ((ada, "yes"), (bao, "no")):
        pg.get_by_role("button", name=f"My true answer: {truth}").click(timeout=60_000)
        pg.get_by_text(re.compile("^Sent: ")).wait_for()
    inst.get_by_role("button", name="Close the poll").click()
    inst.get_by_text("Poll closed: no new reports are taken.").wait_for()
    for pg in (ada, bao, chi):
        pg.get_by_text("Class poll closed (private, ε = 1).", exact=False).wait_for(timeout=60_000)
    ada.get_by_text(
        re.compile(r"What your own answer revealed\. You sent (yes|no)\. Seeing it, an attacker")
    ).wait_for()
    chi.get_by_text("You did not answer this poll: it holds nothing about you.").wait_for()
    shot(ada, ada.locator(".st-key-class_poll_result"), artifacts / "class_student_closed_poll.png")
    shot(chi, chi.locator(".st-key-class_poll_result"), artifacts / "class_student_closed_poll_phone.png")
    for pg in (inst, ada, bao, chi):
        no_crash(pg)


def test_a_close_reopen_and_delete_reach_every_student(browser, server, artifacts, contexts):
    """Close, reopen and delete a session while two students are on its pages: every banner follows by
    itself, and a student who keeps clicking after the delete gets no error page."""
    inst, code, _key = start(browser, contexts, server, "2-bcdp-guarantee-lab")
    ada = join(browser, contexts, server, code, "Ada", "BCDP_guarantee_lab")
    bao = join(browser, contexts, server, code, "Bao", "BCDP_guarantee_lab")
    url_before = bao.url
    inst.get_by_role("button", name="Close (no new answers)").click()
    bao.get_by_text(re.compile(r"is closed: your answers are kept, new ones are not recorded")).wait_for(timeout=60_000)
    assert bao.url == url_before  # no reload: the live box reran the page
    bao.get_by_role("button", name="Next step →").click()
    bao.wait_for_url(re.compile(r"step=2"))
    wait_idle(bao)
    no_crash(bao)
    inst.get_by_role("button", name="Reopen").click()
    bao.get_by_text(re.compile(r"as Bao — your answers are recorded")).wait_for(timeout=60_000)
    inst.get_by_role("button", name="Delete the session").click()
    inst.get_by_role("button", name="Delete everything").click()
    inst.get_by_text(re.compile(r"and everything stored about it were deleted")).wait_for()
    ada.get_by_role("button", name="Next step →").click()  # the crash: a click right after the delete
    ada.get_by_text(re.compile(r"no longer exists \(your instructor deleted it\)")).first.wait_for()
    wait_idle(ada)
    no_crash(ada)
    for name in ("← Previous step", "Next step →", "Check my answer", "Next step →"):
        ada.get_by_role("button", name=name).click()
        wait_idle(ada)
        no_crash(ada)
    assert "class=" not in ada.url and "me=" not in ada.url
    bao.get_by_text(re.compile(r"no longer exists")).first.wait_for(timeout=60_000)  # without a click
    no_crash(bao)
    shot(ada, ada.get_by_text(re.compile(r"no longer exists")), artifacts / "class_student_after_delete.png")


def test_a_wrong_code_or_key_is_no_dead_end(browser, server, contexts):
    """A wrong code offers the code box, a wrong key the key box (and the right key opens the live view)."""
    chi = _context(browser, contexts, viewport=PHONE)
    inst = _context(browser, contexts)
    chi.goto(f"{server}/Class?code=ZZZZZZ")
    chi.get_by_text("code 'ZZZZZZ' names no class session").wait_for()
    chi.get_by_role("textbox", name="code on the projector").wait_for()
    other = ClassStore().start("1-bcdp-feature-privacy")
    inst.goto(f"{server}/Class?code={other.code}&key=guessed")
    inst.get_by_text("the instructor key does not match this session").wait_for()
    inst.get_by_label("instructor key — or paste the whole instructor link").fill(other.key)
    inst.get_by_role("button", name="Open the live view").click()
    inst.get_by_text("Live", exact=True).wait_for()
    no_crash(inst)
    ClassStore().delete(other.code)


def test_each_student_gets_their_own_variant_and_answer(browser, server, artifacts, contexts):
    inst, code, key = start(browser, contexts, server, "5-dp-sgd-schedules")
    students = {
        name: join(browser, contexts, server, code, name, "DP_SGD_schedules", **kw)
        for name, kw in (("Ada", {}), ("Bao", {}), ("Chi", {"viewport": PHONE}))
    }
    store = ClassStore()
    tokens = {name: parse_qs(urlparse(pg.url).query)["me"][0] for name, pg in students.items()}
    mine = {name: store.variant(code, tokens[name], 1) for name in students}
    assert len({m.variant["rho"] for m in mine.values()}) == 3  # three students, three values of ρ
    for name, pg in students.items():
        pg.get_by_text(f"With ρ = {mine[name].variant['rho']:g}, how many times larger").wait_for()
    ada, bao = students["Ada"], students["Bao"]
    check(ada, f"{mine['Bao'].answer:.4f}")  # the neighbour's number
    ada.get_by_text(re.compile(r"^Not quite")).first.wait_for()
    check(ada, f"{mine['Ada'].answer:.4f}")
    ada.get_by_text(re.compile(r"^Correct\.")).wait_for()
    check(bao, "2")  # the misconception "A3 grows in proportion to N"
    bao.get_by_text(re.compile(r"a common mistake\. You assumed A3 grows in proportion to N")).wait_for()
    check(students["Chi"], f"{mine['Chi'].answer:.4f}")
    students["Chi"].get_by_text(re.compile(r"^Correct\.")).wait_for()
    shot(students["Chi"], students["Chi"].get_by_text(re.compile(r"^Correct\.")), artifacts / "class_variant_phone.png")
    for pg in students.values():
        no_crash(pg)
    inst.get_by_text("3 students joined · 4 answers recorded").wait_for(timeout=60_000)
    own = inst.get_by_text(re.compile(r"Each student has their own values \(rho from 0\.3 to 0\.7\)"))
    shot(inst, own, artifacts / "class_instructor_variants.png")
    no_crash(inst)
    store.delete(code)
