"""The Release ledger page in Chromium: the example plan's totals and charts, a budget that turns
into a warning, a plan loaded from a TOML file (the totals change, the link keeps the plan), a bad
file that leaves the current plan in place, and the plan's TOML download. Screenshots under
tests/artifacts/."""

from __future__ import annotations

import re

import pytest

from hetdp_core.accountants.ledger import parse_plan

from .test_browser import assert_no_errors, type_in, wait_idle

pytestmark = pytest.mark.browser

SMALL = '[[release]]\nname = "counts"\nmechanism = "laplace"\nnoise = 0.5\nrepeat = 4\ngroups = ["all"]\n'


def test_ledger_page_budget_upload_and_download(page, server, artifacts, tmp_path):
    page.goto(f"{server}/Release_ledger")
    page.locator(".js-plotly-plot").nth(1).wait_for()
    wait_idle(page)
    assert_no_errors(page)
    page.get_by_text("Who pays most: survey participants").wait_for()
    page.screenshot(path=str(artifacts / "ledger_example.png"), full_page=True)

    page.get_by_text("compare with a budget").click()
    budget = page.get_by_role("spinbutton", name="budget")
    budget.wait_for()
    type_in(budget, "2")
    page.wait_for_url(re.compile(r"budget=2\.0"))
    warning = page.get_by_text(
        re.compile(r"Over budget \(judged by each group's headline.*survey participants spends 3\.17\d* \(by pld\) > 2")
    )
    warning.wait_for()  # the participants (headline ε 3.175, by the PLD) are over a budget of 2; the residents not
    assert "residents" not in warning.inner_text()
    wait_idle(page)
    assert_no_errors(page)

    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace("laplace", "exponential"))
    page.locator('input[type="file"]').set_input_files(str(bad))
    page.get_by_text(re.compile(r"The file was not loaded .*release 1 \('counts'\): mechanism")).wait_for()
    wait_idle(page)
    page.get_by_text("Who pays most: survey participants").wait_for()  # the current plan is kept

    good = tmp_path / "plan.toml"
    good.write_text(SMALL)
    page.locator('input[type="file"]').set_input_files(str(good))
    page.get_by_text("Who pays most: everyone").wait_for()  # Laplace b = 0.5, 4 times: ε = 8
    wait_idle(page)
    assert_no_errors(page)
    page.screenshot(path=str(artifacts / "ledger_loaded.png"), full_page=True)
    saved = _download(page, "Download the plan (TOML)", tmp_path / "saved.toml")
    assert parse_plan(saved.read_text()).releases[0].name == "counts"


def _download(page, button: str, path):
    """Click a download button and save the file it gives at ``path``."""
    with page.expect_download() as dl:
        page.get_by_role("button", name=button).click()
    dl.value.save_as(path)
    return path


def test_ledger_risk_solve_report_and_notebook_in_the_browser(page, server, artifacts, tmp_path):
    """The plan's risk in attack terms, solving from a target risk and using the solved plan, then the
    report (HTML) and the notebook (Jupyter) downloads."""
    import nbformat

    page.goto(f"{server}/Release_ledger")
    page.locator(".js-plotly-plot").nth(2).wait_for()  # totals, spend, trade-off curves
    wait_idle(page)
    page.get_by_text(re.compile(r"survey participants: an attacker who accepts wrongly flagging 1 in 100")).wait_for()
    target = page.get_by_role("spinbutton", name="solve from a target risk")
    type_in(target, "3")  # percent, as the FPR slider shows it
    wait_idle(page)
    page.get_by_role("button", name="Solve", exact=True).click()
    page.get_by_text(re.compile(r"Multiply the noise of every Gaussian and Laplace release by")).wait_for()
    page.get_by_role("button", name="Use this plan").click()
    wait_idle(page)
    page.get_by_text(re.compile(r"survey participants: .* catches at most 3 % of those")).wait_for()
    assert_no_errors(page)
    page.screenshot(path=str(artifacts / "ledger_solved.png"), full_page=True)
    rep = _download(page, "Download a report (HTML)", tmp_path / "r.html")
    assert "In attack terms (false-positive rate 1 %)" in rep.read_text()
    nb = _download(page, "Download a notebook (Jupyter)", tmp_path / "l.ipynb")
    nbformat.validate(nbformat.read(nb, as_version=4))


def test_a_bundled_plan_from_the_picker_and_the_decision_package_that_reopens_it(page, server, artifacts, tmp_path):
    """The release ledger's bundled plans in a picker (no TOML file from a checkout needed), and the
    decision package's README link, opened in the browser, shows the decided plan — not the default."""
    import io
    import zipfile

    page.goto(f"{server}/Release_ledger")
    page.locator(".js-plotly-plot").nth(1).wait_for()
    wait_idle(page)
    page.get_by_text("Who pays most: survey participants").wait_for()
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("combobox", name="open a plan that ships with hetdp").click()
    page.get_by_role("option", name="A course project with per-user levels").click()
    page.wait_for_url(re.compile(r"plan=.*careful"))
    page.get_by_text(re.compile(r"Who pays most: (careful|others)")).wait_for()
    wait_idle(page)
    assert_no_errors(page)
    page.screenshot(path=str(artifacts / "ledger_bundled_plan.png"), full_page=True)
    page.get_by_role("button", name=re.compile("Prepare the decision")).click()
    with page.expect_download(timeout=240_000) as dl:
        page.get_by_role("button", name="Download the decision (zip)").click(timeout=240_000)
    readme = zipfile.ZipFile(io.BytesIO(dl.value.path().read_bytes())).read("README.md").decode()
    (link,) = re.findall(r"In the app: <([^>]+)>", readme)
    assert "/Release_ledger?" in link and "plan=" in link
    page.goto(link)  # the link the README gives
    page.get_by_text(re.compile(r"Who pays most: (careful|others)")).wait_for()
    wait_idle(page)
    assert_no_errors(page)
    assert "survey participants" not in page.locator('[data-testid="stMain"]').inner_text()
