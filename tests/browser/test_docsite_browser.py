"""The documentation site in Chromium, offline: the home page and one page's guide open from disk
with every request outside the site refused (and none attempted), formulas drawn as MathML, and the
search box finds a page from disk (Material's offline plugin)."""

import pytest

pytestmark = pytest.mark.browser


def _offline(browser):
    """A browser context with no network: every request outside the site is refused and recorded."""
    ctx = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    outside = []

    def refuse(route):
        outside.append(route.request.url)
        route.abort()

    ctx.route("http*://**", refuse)
    return ctx, outside


def test_home_and_a_guide_open_offline(browser, artifacts, built_docs_site):
    site = built_docs_site
    ctx, outside = _offline(browser)
    page = ctx.new_page()
    page.goto((site / "index.html").as_uri())
    page.get_by_role("heading", name="hetdp documentation").wait_for()
    assert page.get_by_role("link", name="Per-user privacy").first.is_visible()
    page.screenshot(path=str(artifacts / "docsite_home.png"))

    page.get_by_role("link", name="Per-user privacy").first.click()
    page.wait_for_url("**/per_user_privacy.html")
    page.get_by_role("heading", name="Per-user privacy (heterogeneous DP)").wait_for()
    assert page.locator("math").count() >= 3
    box = page.locator("math").first.bounding_box()
    assert box and box["width"] > 5 and box["height"] > 5  # drawn, not raw TeX text
    assert "\\varepsilon" not in page.inner_text("article")
    page.screenshot(path=str(artifacts / "docsite_per_user.png"), full_page=False)

    page.goto((site / "cli.html").as_uri())
    assert "hetdp run" in page.inner_text("article")
    assert outside == [], outside
    ctx.close()


def test_search_finds_a_guide_from_disk(browser, artifacts, built_docs_site):
    """Typed in the search box of a page opened from file://, a word finds the guides that use it (the
    index is a script beside the pages, the worker runs in an iframe: no server, no network), and a
    result opens its page."""
    ctx, outside = _offline(browser)
    page = ctx.new_page()
    page.goto((built_docs_site / "index.html").as_uri())
    page.get_by_role("textbox", name="Search").click()
    page.keyboard.type("zCDP")
    first = page.locator(".md-search-result__item").first
    first.wait_for()
    assert "matching document" in page.locator(".md-search-result__meta").inner_text()
    titles = page.locator(".md-search-result__item h1").all_inner_texts()
    assert "Group-wise zCDP" in titles, titles
    page.screenshot(path=str(artifacts / "docsite_search.png"))
    page.locator(".md-search-result__item", has_text="Group-wise zCDP").first.locator("a").first.click()
    page.wait_for_url("**/groupwise_zcdp.html*")
    page.get_by_role("heading", name="Group-wise zCDP").first.wait_for()
    assert outside == [], outside
    ctx.close()
