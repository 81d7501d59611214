"""A first session in Chromium (issue 20, first part): every docs topic renders its formulas with
no KaTeX error while every request outside the server is blocked (an offline classroom); the first
sidebar sliders of every page moved one after another give no exception and no error box; the
group-wise zCDP and per-user widgets that used to break the page. Screenshots under tests/artifacts/."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from .test_browser import ERROR_SELECTORS, assert_no_errors, wait_idle

from hetdp_core.scenarios import get
from hetdp_ui.nav import DOCS, PAGES

pytestmark = pytest.mark.browser


def _block_outside(page, server):
    """Abort every request that leaves the test server; return the list of blocked URLs."""
    host = urlparse(server).netloc
    blocked: list[str] = []

    def route(r):
        u = urlparse(r.request.url)
        if u.scheme in ("data", "blob") or u.netloc == host:
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return blocked


@pytest.mark.parametrize("topic", list(DOCS))
def test_docs_topic_renders_without_katex_errors_offline(page, server, artifacts, topic):
    blocked = _block_outside(page, server)
    page.goto(f"{server}/Docs?topic={topic}")
    page.get_by_text("Sources are cited by authors").wait_for()
    wait_idle(page)
    assert_no_errors(page)
    errors = page.locator(".katex-error")
    assert errors.count() == 0, [errors.nth(i).inner_text()[:120] for i in range(min(errors.count(), 3))]
    page.screenshot(path=str(artifacts / f"docs_{topic}.png"), full_page=True)
    assert blocked == [], blocked


@pytest.mark.parametrize("path", [p[2] for p in PAGES])
def test_first_sidebar_sliders_one_after_another(page, server, artifacts, path):
    """Move each of the first three sidebar sliders one step, in turn: no exception, no error box
    (an info or warning note is fine), and no request leaves the server."""
    blocked = _block_outside(page, server)
    sp = get(path).SCENARIO.specs()
    page.goto(f"{server}/{path}?trials={int(sp['trials'].lo)}" if "trials" in sp else f"{server}/{path}")

    def sliders():
        return page.locator('[data-testid="stSidebar"]').get_by_role("slider")

    sliders().first.wait_for()
    wait_idle(page, timeout=120_000)
    n = min(sliders().count(), 3)
    assert n >= 1
    for i in range(n):
        sliders().nth(i).focus()
        page.keyboard.press("ArrowRight")
        wait_idle(page, timeout=120_000)
        assert_no_errors(page)
    # then another widget, which is where the group-wise zCDP crash appeared
    sliders().first.focus()
    page.keyboard.press("ArrowLeft")
    wait_idle(page, timeout=120_000)
    assert_no_errors(page)
    assert page.locator(ERROR_SELECTORS).count() == 0
    page.screenshot(path=str(artifacts / f"sliders_{path}.png"), full_page=True)
    assert blocked == [], blocked


def test_per_user_k_bins_resizes_the_demands(page, server, artifacts):
    page.goto(f"{server}/Per_user_privacy?trials=50")
    wait_idle(page)
    k = page.get_by_role("slider", name="k bins")
    k.focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page, timeout=120_000)
    assert_no_errors(page)
    page.get_by_text(re.compile(r"now has 6 entries, one per bin")).wait_for()
    page.screenshot(path=str(artifacts / "per_user_k_bins.png"), full_page=True)


def test_show_the_answer_on_step_2_shows_nothing_on_step_3(page, server, artifacts):
    """A student opens the answer of step 2, then moves on: step 3's answer stays closed."""
    page.goto(f"{server}/Feature_privacy?lesson=1-bcdp-feature-privacy&step=2")
    page.get_by_text("Show the answer to step 2").wait_for()
    wait_idle(page, timeout=120_000)
    page.get_by_text("Show the answer to step 2").click()
    page.get_by_text("2.33 (± ").wait_for()
    page.get_by_role("button", name="Next step →").click()
    page.get_by_text("Show the answer to step 3").wait_for()
    wait_idle(page, timeout=120_000)
    assert_no_errors(page)
    answer3 = page.locator('[data-testid="stExpander"]', has_text="Show the answer to step 3")
    assert answer3.locator("details").get_attribute("open") is None
    page.screenshot(path=str(artifacts / "lesson_step3_answer_closed.png"), full_page=True)


def test_chart_toolbars_are_out_of_the_tab_order(page, server, artifacts):
    page.goto(f"{server}/Feature_privacy?trials=5&points=0.1,0.5")
    page.locator(".js-plotly-plot").first.wait_for()
    wait_idle(page, timeout=120_000)
    hidden = page.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .modebar-btn')]"
                           ".map(b => getComputedStyle(b).visibility)")
    assert hidden and set(hidden) == {"hidden"}, set(hidden)
    page.locator(".js-plotly-plot").first.hover()
    page.wait_for_timeout(300)
    shown = page.evaluate("() => getComputedStyle(document.querySelector('.js-plotly-plot .modebar-btn')).visibility")
    assert shown == "visible"


@pytest.mark.parametrize("path", ["", "Feature_privacy", "Lessons"])
def test_phone_view_opens_with_the_sidebar_collapsed(browser, server, artifacts, path):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{server}/{path}")
        page.locator("h1").first.wait_for()
        wait_idle(page, timeout=120_000)
        box = page.locator('[data-testid="stSidebar"]').bounding_box()
        assert box is None or box["width"] == 0 or box["x"] + box["width"] <= 0, box
        assert page.locator("h1").first.bounding_box()["x"] < 100          # the page, not the menu, fills the screen
        page.screenshot(path=str(artifacts / f"phone_{path or 'home'}.png"))
    finally:
        ctx.close()
