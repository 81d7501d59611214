"""Accessibility in real Chromium: axe-core finds no serious or critical violation on
any page or on a lesson step, and a whole lesson can be walked with the keyboard only. The same page
load then checks the page's charts in words (tests/browser/test_charts_in_words.py): one load of each
page for both (a Chromium page load is the suite's main cost).

axe-core comes from the `axe-playwright-python` package (test extra), which bundles the axe script
and runs it in the page; nothing is fetched from the network."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from .test_browser import assert_no_errors, wait_idle
from .test_charts_in_words import _paths as chart_paths
from .test_charts_in_words import check_charts_in_words

pytestmark = pytest.mark.browser


#: every page with charts (the scenario pages, the ledger, a lesson step) and the pages without
PAGES = [("home", "/"), *chart_paths(), ("lessons", "/Lessons"), ("docs", "/Docs?topic=corrections")]
#: the views whose charts say in words what they draw (every page with charts)
CHARTS = {path for _, path in chart_paths()}


@pytest.fixture(scope="module")
def axe():
    return Axe()


@pytest.mark.parametrize("name, path", PAGES)
def test_axe_finds_no_serious_or_critical_violation_and_the_charts_say_what_they_draw(
    page, server, artifacts, axe, name, path
):
    page.goto(server + path)
    page.locator('[data-testid="stSidebar"]').wait_for()
    wait_idle(page, timeout=180_000)
    page.wait_for_timeout(1500)  # fade-in animations of new elements have ended
    wait_idle(page)
    # and every animation has finished (a caption still fading in has a lower contrast; under load
    # the page renders later than 1.5 s)
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')", timeout=60_000)
    assert_no_errors(page)  # the zCDP page's "the claim fails" is a warning, not an error element
    result = axe.run(page)
    (artifacts / f"axe_{name}.json").write_text(result.generate_report())
    page.screenshot(path=str(artifacts / f"axe_{name}.png"), full_page=True)
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
        for v in result.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, bad
    assert result.response["passes"], "axe ran no rule: the check itself did not run"
    if path in CHARTS:
        check_charts_in_words(page, artifacts, name, path)


# ---------------------------------------------------------------- keyboard only

FOCUS_TEXT = """() => { const e = document.activeElement; if (!e) return '';
  if (!['A', 'BUTTON', 'INPUT', 'TEXTAREA'].includes(e.tagName)) return '';   // a control, not a container
  const lab = e.closest('label'); const own = e.getAttribute('aria-label');
  return ((e.tagName === 'INPUT' ? (own || (lab && lab.innerText) || '') : (e.innerText || own || ''))).trim(); }"""


def tab_to(page, text, *, exact=False, limit=400):
    """Press Tab until the focused element's text (or label) is ``text``; return how many presses."""
    for i in range(limit):
        page.keyboard.press("Tab")
        got = page.evaluate(FOCUS_TEXT)
        if (got == text) if exact else (text in got):
            return i + 1
    raise AssertionError(f"no focusable element {text!r} within {limit} Tab presses")


def answer_by_keyboard(page, kind, answer):
    if kind == "number":
        tab_to(page, "your answer", exact=True)
        page.keyboard.type(answer)
        page.keyboard.press("Enter")
    else:
        tab_to(page, "yes", exact=True)  # the first choice of the radio group
        page.keyboard.press("ArrowRight" if answer == "no" else "Space")
    wait_idle(page)
    tab_to(page, "Check my answer", exact=True)
    page.keyboard.press("Enter")
    page.get_by_text("Correct.").first.wait_for(timeout=30_000)
    wait_idle(page)


def test_a_whole_lesson_with_the_keyboard_only(page, server, artifacts):
    """Lessons page → Start → three steps (a number and two choice answers) → Finish, no mouse."""
    from hetdp_core.teaching.lessons import bundled_lesson

    lesson = bundled_lesson("5-dp-sgd-schedules")
    page.goto(server + "/Lessons")
    page.get_by_text("Write your own").wait_for()
    wait_idle(page)
    page.locator("body").focus()
    tab_to(page, f"Start: {lesson.title}")
    page.keyboard.press("Enter")
    for k, step in enumerate(lesson.steps, start=1):
        page.get_by_text(f"Step {k} of {len(lesson.steps)}").wait_for(timeout=60_000)
        wait_idle(page)
        assert f"lesson={lesson.id}" in page.url and f"step={k}" in page.url  # position in the URL
        assert_no_errors(page)
        q = step.question
        answer_by_keyboard(page, q.kind, f"{q.answer:g}" if q.kind == "number" else q.answer)
        page.screenshot(path=str(artifacts / f"lesson_keyboard_step{k}.png"), full_page=True)
        assert "kappa=0.8" in page.url if k == 3 else "priv=constant" in page.url  # the step's scenario
        page.locator("body").focus()
        tab_to(page, "Finish the lesson" if k == len(lesson.steps) else "Next step →", exact=True)
        page.keyboard.press("Enter")
    page.get_by_text("Write your own").wait_for(timeout=60_000)  # back on the Lessons page
    assert page.url.rstrip("/").endswith("/Lessons")
