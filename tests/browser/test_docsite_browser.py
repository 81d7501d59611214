"""The documentation site in Chromium, offline: the home page and one page's guide open from disk
with every request outside the site refused (and none attempted), formulas drawn as MathML."""


def test_home_and_a_guide_open_offline(browser, artifacts, built_docs_site):
    site = built_docs_site
    ctx = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    outside = []

    def refuse(route):
        outside.append(route.request.url)
        route.abort()

    ctx.route("http*://**", refuse)
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
