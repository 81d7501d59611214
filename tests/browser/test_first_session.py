"""A first session in Chromium: every docs topic renders its formulas with
no KaTeX error while every request outside the server is blocked (an offline classroom); the
per-user widgets that used to break the page; lessons, phone view, side trips. The sweep of every
widget type is test_widget_sweep.py. Screenshots under tests/artifacts/."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from conftest import ROOT
from playwright.sync_api import expect

from hetdp_ui.nav import doc_file, docs

from .test_browser import assert_no_errors, type_in, wait_idle

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


def _has_math(topic: str) -> bool:
    """Whether a topic's Markdown has a formula ($…$ outside code blocks and code spans)."""
    text = doc_file(topic).read_text()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return "$" in re.sub(r"`[^`]*`", "", text)


def test_every_docs_topic_renders_without_katex_errors_offline(page, server, artifacts):
    """Every topic of the Documentation page, with every request outside the server blocked: the first
    opened by its link, the others chosen in the sidebar's topic list as a reader does (a rerun each,
    not a new load of the app: a Chromium page load costs ~5 s of CPU here), the address following."""
    blocked = _block_outside(page, server)
    topics = docs()
    first = next(iter(topics))
    page.goto(f"{server}/Docs?topic={first}")
    for topic, title in topics.items():
        if topic != first:
            page.get_by_test_id("stSidebar").get_by_role("radio", name=title, exact=True).click(force=True)
            page.wait_for_url(re.compile(rf"[?&]topic={re.escape(topic)}(&|$)"), timeout=60_000)
        page.get_by_test_id("stCaptionContainer").get_by_text("Sources are cited by authors").wait_for()
        wait_idle(page)
        assert_no_errors(page)
        # the topic's own text is shown, not the one before it (its first heading)
        own = doc_file(topic).read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        expect(page.get_by_test_id("stMain").get_by_role("heading", name=own, exact=True).first).to_be_visible()
        if _has_math(topic):  # KaTeX renders in the browser: wait for it under load
            page.locator(".katex").first.wait_for(timeout=60_000)
        errors = page.locator(".katex-error")
        assert errors.count() == 0, (topic, [errors.nth(i).inner_text()[:120] for i in range(min(errors.count(), 3))])
        page.screenshot(path=str(artifacts / f"docs_{topic}.png"), full_page=True)
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
    hidden = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot .modebar-btn')].map(b => getComputedStyle(b).visibility)"
    )
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
        assert page.locator("h1").first.bounding_box()["x"] < 100  # the page, not the menu, fills the screen
        page.screenshot(path=str(artifacts / f"phone_{path or 'home'}.png"))
    finally:
        ctx.close()


@pytest.mark.parametrize("width,height", [(1400, 900), (390, 844)], ids=["desktop", "phone"])
def test_home_says_where_to_start_above_the_fold(browser, server, artifacts, width, height):
    """Each kind of user's first step is on the first screen, and each link opens its page cleanly."""
    from hetdp_ui.nav import start_links

    ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(server)
        page.get_by_text("New here? Start with").wait_for()
        wait_idle(page)
        page.screenshot(path=str(artifacts / f"home_start_{width}x{height}.png"))
        for who, _, _, label, _ in start_links():
            link = page.locator('[data-testid="stMain"] a').filter(has_text=label).first
            box = link.bounding_box()
            assert box is not None and box["y"] + box["height"] <= height, (who, box)
            assert page.get_by_text(who).first.bounding_box()["y"] < height
        if width > 500:
            for _, _, path, label, _ in start_links():
                page.goto(server)
                page.locator('[data-testid="stMain"] a').filter(has_text=label).first.click()
                page.wait_for_url(re.compile(f"/{path}"))
                page.locator("h1").first.wait_for()
                wait_idle(page, timeout=120_000)
                assert_no_errors(page)
    finally:
        ctx.close()


def test_a_docs_side_trip_inside_a_lesson_keeps_the_lesson(page, server, artifacts):
    """Inside a lesson the Formulas expander's docs link opens a new tab: the lesson tab keeps its
    lesson, step and settings."""
    page.goto(f"{server}/Feature_privacy?lesson=1-bcdp-feature-privacy&step=2")
    page.get_by_text("Show the answer to step 2").wait_for()
    wait_idle(page, timeout=120_000)
    before = page.url
    page.get_by_text("Formulas behind").first.click()
    with page.context.expect_page() as new:
        page.get_by_role("link", name=re.compile("This page's notes.*opens in a new tab")).click()
    docs = new.value
    docs.get_by_test_id("stCaptionContainer").get_by_text("Sources are cited by authors").wait_for()
    assert "/Docs?topic=feature_privacy" in docs.url
    assert page.url == before and "lesson=1-bcdp-feature-privacy" in page.url and "step=2" in page.url
    assert page.get_by_text("Show the answer to step 2").count() == 1
    docs.screenshot(path=str(artifacts / "lesson_docs_new_tab.png"))


def test_back_after_a_menu_side_trip_returns_to_the_lesson_step_and_settings(page, server, artifacts):
    """Inside a lesson a student moves a slider and types an answer, opens another page and the
    Documentation from the menu, then presses Back twice: the lesson, the step, the moved slider and the
    typed answer are back, one menu item
    is current, and no stray parameter of another page is in the address."""
    page.goto(f"{server}/Feature_privacy?lesson=1-bcdp-feature-privacy&step=2")
    page.get_by_text("Show the answer to step 2").wait_for()
    wait_idle(page, timeout=120_000)
    slider = page.locator('[data-testid="stSidebar"]').get_by_role("slider").first
    slider.focus()
    before = page.url
    page.keyboard.press("ArrowRight")
    # the address follows the moved slider once its rerun has written the query string: wait for that,
    # not only for the rerun (reading the address in between gave the value before the move)
    page.wait_for_function("u => window.location.href !== u", arg=before, timeout=120_000)
    wait_idle(page, timeout=120_000)
    moved = slider.get_attribute("aria-valuenow")
    answer = page.get_by_role("spinbutton", name="your answer")
    type_in(answer, "2.5")
    wait_idle(page, timeout=120_000)
    lesson_url = page.url
    assert "lesson=1-bcdp-feature-privacy" in lesson_url and "step=2" in lesson_url
    menu = page.locator('[data-testid="stSidebar"] a')
    menu.filter(has_text="Mechanism lab").first.click()
    page.wait_for_url(re.compile("/Mechanism_lab"))
    wait_idle(page, timeout=120_000)
    menu.filter(has_text="Documentation").first.click()
    page.wait_for_url(re.compile("/Docs"))
    page.get_by_test_id("stCaptionContainer").get_by_text("Sources are cited by authors").wait_for()
    wait_idle(page)
    page.go_back()
    page.wait_for_url(re.compile("/Mechanism_lab"))
    wait_idle(page, timeout=120_000)
    assert "topic=" not in page.url and "lesson=" not in page.url, page.url
    page.go_back()
    page.wait_for_url(re.compile("/Feature_privacy"))
    page.get_by_text("Show the answer to step 2").wait_for()
    wait_idle(page, timeout=120_000)
    assert_no_errors(page)
    assert page.url == lesson_url, (page.url, lesson_url)
    assert "topic=" not in page.url and "pareto_index" not in page.url
    slider = page.locator('[data-testid="stSidebar"]').get_by_role("slider").first
    assert slider.get_attribute("aria-valuenow") == moved
    answer = page.get_by_role("spinbutton", name="your answer")
    expect(answer).to_have_value(re.compile(r"^2\.50*$"), timeout=30_000)  # the typed answer too (restored by a rerun)
    assert page.locator('[data-testid="stSidebar"] a[aria-current="page"]').count() <= 1
    page.screenshot(path=str(artifacts / "lesson_back_after_menu_trip.png"), full_page=True)


def test_the_report_of_a_pinned_view_is_a_printable_decision_record(page, server, artifacts, browser, tmp_path):
    """A pinned A/B view's report holds both plans, the key table and the link back to this server;
    printed, it has no chart toolbars."""
    from urllib.parse import quote

    q = "trials=20&n=1000&algs=CP,UNI"
    page.goto(f"{server}/Per_user_privacy?{q}&beta=0.1&pin={quote(q)}")
    page.get_by_text("Plan A (pinned) vs plan B").first.wait_for()
    wait_idle(page, timeout=120_000)
    assert_no_errors(page)
    with page.expect_download(timeout=120_000) as dl:
        page.get_by_role("button", name="Download a report").click()
    file = tmp_path / "ab.html"
    dl.value.save_as(str(file))
    text = file.read_text(encoding="utf-8")
    assert "Plan A (pinned) vs plan B (this view)" in text and "<h3>hetero_summary" in text
    assert f"{server}/Per_user_privacy?" in text and "In short." in text
    ctx = browser.new_context(offline=True, viewport={"width": 1000, "height": 1400})
    try:
        off = ctx.new_page()
        off.goto(file.as_uri())
        off.emulate_media(media="print")
        off.wait_for_function(
            "() => window.Plotly && document.querySelectorAll('.js-plotly-plot .main-svg').length >= 3", timeout=30_000
        )
        shown = off.evaluate(
            "() => [...document.querySelectorAll('.modebar-container')]"
            ".filter(e => getComputedStyle(e).display !== 'none').length"
        )
        assert shown == 0
        off.screenshot(path=str(artifacts / "report_ab_print.png"), full_page=False)
    finally:
        ctx.close()


def test_the_per_user_page_speaks_plainly(page, server, artifacts):
    page.goto(f"{server}/Per_user_privacy?trials=20&n=1000")
    page.get_by_text("How accurate is each method?").wait_for()
    wait_idle(page, timeout=120_000)
    assert_no_errors(page)
    assert page.get_by_text("Uniform weights (UNI)").count() >= 1  # full names (acronym in brackets)
    page.get_by_text("Glossary: the methods and terms in plain words").click()
    page.get_by_text("the error that is not exceeded in a share").wait_for()
    page.screenshot(path=str(artifacts / "per_user_plain_words.png"), full_page=True)


@pytest.mark.browser
def test_the_accuracy_table_gives_everyday_units():
    """(AppTest: the table is drawn on a canvas in the browser.) Next to the technical columns, the
    error in everyday units: ± percentage points on each bin's share."""

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / "per_user_privacy" / "page.py"), default_timeout=180)
    at.query_params.update({"trials": "20", "n": "1000"})
    at.run()
    assert not at.exception
    df = next(d.value for d in at.dataframe if "in everyday units" in d.value.columns)
    assert df["in everyday units"].str.contains("percentage points on each bin's share").all()
    assert df["method"].str.contains(r"\(UNI\)").any()


@pytest.mark.parametrize("path,query", [("Feature_privacy", "trials=5&n=2000"), ("Release_ledger", "")])
def test_the_strip_of_real_deployments_in_the_browser(page, server, artifacts, path, query):
    """The meaning panel (opened) and the ledger place the levels among real deployments: the strip is
    drawn, with a sentence per level and the caveat; the decision package can be prepared and downloaded."""
    page.goto(f"{server}/{path}?{query}")
    page.locator(".js-plotly-plot").nth(1).wait_for(state="attached", timeout=120_000)
    wait_idle(page, timeout=120_000)
    if path != "Release_ledger":
        page.get_by_text("What does this level mean for a person?").click()
    page.get_by_text("Your levels among real deployments.").wait_for(timeout=120_000)
    strip = page.locator(".js-plotly-plot").filter(has_text="Your levels among real deployments")
    strip.wait_for(timeout=60_000)
    strip.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    assert page.get_by_text(re.compile(r"lies between|is at the level of|deployment here")).count() >= 1
    assert page.get_by_text(re.compile("Units and periods differ")).count() >= 1
    assert_no_errors(page)
    page.screenshot(path=str(artifacts / f"deployments_strip_{path}.png"))
    page.get_by_role("button", name=re.compile("Prepare the decision")).click()
    with page.expect_download(timeout=180_000) as dl:
        page.get_by_role("button", name="Download the decision (zip)").click(timeout=180_000)
    assert dl.value.suggested_filename.endswith("-decision.zip")
    assert_no_errors(page)
