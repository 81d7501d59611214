"""Documentation that stands on its own and a text summary next to every chart."""

import re

import pytest
from conftest import ROOT, each_tab, page_path
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import pages, specs
from hetdp_ui.chart_element import charts
from hetdp_ui.folders import tool_pages
from hetdp_ui.nav import doc_file, docs

DOCS = docs()
PAGE_DOCS = {s.url: s.slug for s in specs()}
PAGES = list(pages())

DOCS_DIR = ROOT / "docs"


def test_one_docs_page_per_topic_and_an_index():
    """A page's guide is in its folder; the other topics are docs/*.md; the index lists them all."""
    files = {p.stem for p in DOCS_DIR.glob("*.md")} - {"README"}
    guides = {p.parent.name for p in (ROOT / "pages").glob("*/guide.md")}
    tool_guides = {t.slug for t in tool_pages() if t.guide}  # lessons, release_ledger, class
    assert files | guides == set(DOCS) and guides == set(PAGE_DOCS.values()) | tool_guides
    assert all(doc_file(topic).is_file() for topic in DOCS)
    index = (DOCS_DIR / "README.md").read_text()
    assert all(f"(../pages/{name}/guide.md)" in index for name in guides)
    assert all(f"({name}.md)" in index for name in files)
    # every link of the index opens a file of the repository (as GitHub shows it)
    for target in re.findall(r"\]\(([^)#:]+\.md)\)", index):
        assert (DOCS_DIR / target).resolve().is_file(), target
    assert set(PAGE_DOCS.values()) <= set(DOCS)


@pytest.mark.parametrize("topic", sorted(PAGE_DOCS.values()))
def test_each_page_topic_has_formulas_sources_and_tests(topic):
    text = doc_file(topic).read_text()
    assert "## Formulas" in text and "## How it is tested" in text and "$" in text
    assert re.search(r"tests/test_\w+\.py", text)
    assert "**Question.**" in text


def test_the_corrections_page_names_each_correction_and_its_test():
    text = (DOCS_DIR / "corrections.md").read_text()
    for must in (
        "Duchi et al. constant",
        "Projection",
        "Figure 4 parameters",
        "Group-wise zCDP directions",
        "tests/test_statistical_bcdp.py",
        "tests/test_zcdp.py",
        "tests/test_reproduction_bcdp.py",
    ):
        assert must in text, must


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_formulas_expander_links_to_its_docs_topic(page):
    src = page_path(page).read_text()
    # ui.formulas opens the expander with the link to the page's documentation topic
    assert re.search(r'with ui\.formulas\("' + page + r'"(, "Formulas behind [^"]*")?\) as shown:', src)


def test_the_link_renders_on_a_page():
    """The formulas' panel, opened, links the page's topic; closed, it draws nothing (ui.panel)."""
    at = AppTest.from_file(str(ROOT / "pages" / "dp_sgd_schedules" / "page.py"), default_timeout=120).run()
    assert not at.exception
    assert not any("/Docs?topic=dp_sgd_schedules" in m.value for m in at.markdown)  # closed: not drawn
    at.session_state["DP_SGD_schedules_formulas_open"] = True
    at.run()
    assert not at.exception
    assert any("/Docs?topic=dp_sgd_schedules" in m.value for m in at.markdown)  # plain link when run alone
    assert any(e.label.startswith("Formulas behind") for e in at.expander)


@pytest.mark.parametrize(
    ("old", "topic"), [("feature-privacy", "feature_privacy"), ("release-ledger", "release_ledger")]
)
def test_a_guides_older_topic_name_still_opens_it(old, topic):
    """Links from before the guides moved into the pages' folders (``?topic=feature-privacy``,
    ``?topic=release-ledger``) open the guide."""
    at = AppTest.from_file(str(ROOT / "pages" / "docs" / "page.py"), default_timeout=60)
    at.query_params["topic"] = old
    at.run()
    assert not at.exception and not at.warning
    assert at.sidebar.radio[0].value == topic
    assert doc_file(topic).read_text().splitlines()[0].lstrip("# ") in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("topic", sorted(DOCS))
def test_docs_page_renders_every_topic(topic):
    at = AppTest.from_file(str(ROOT / "pages" / "docs" / "page.py"), default_timeout=60)
    at.query_params["topic"] = topic
    at.run()
    assert not at.exception and not at.error and not at.warning
    body = " ".join(m.value for m in at.markdown)
    title = doc_file(topic).read_text().splitlines()[0].lstrip("# ")
    assert title in body
    assert not re.search(r"\]\([a-z0-9_-]+\.md\)", body)  # links between topics stay in the app


def test_docs_page_refuses_an_unknown_topic():
    at = AppTest.from_file(str(ROOT / "pages" / "docs" / "page.py"), default_timeout=60)
    at.query_params["topic"] = "../../etc/passwd"
    at.run()
    assert not at.exception
    assert any("URL parameter 'topic' ignored" in w.value for w in at.warning)
    assert "feature_privacy" in str(at.query_params["topic"])


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_chart_has_a_text_summary_next_to_it(page):
    q = {"Feature_privacy": {"trials": "5", "n": "500"}, "Private_regression": {"trials": "5"}}.get(page, {})
    at = AppTest.from_file(str(page_path(page)), default_timeout=180)
    at.query_params.update(q)
    at.run()
    drawn = 0
    for _tab in each_tab(at):  # a tabbed page draws the chosen tab's charts only
        assert not at.exception
        shown = charts(at)
        words = [c for c in at.caption if c.value.startswith("Chart in words: ")]
        assert len(words) == len(shown), (_tab, len(shown), len(words))
        assert all("Series —" in w.value for w in words)
        drawn += len(shown)
    assert drawn >= 1


def test_the_html_report_has_a_summary_under_every_figure():
    from hetdp_core.scenarios import get
    from hetdp_ui.report import build_report, report_figures

    mod = get("DP_SGD_schedules")
    s = mod.SCENARIO.from_query({"trials": "10"})
    r = mod.run(s)
    html = build_report("DP_SGD_schedules", s, r)
    assert html.count("Chart in words: ") == len(report_figures("DP_SGD_schedules", s, r)) >= 3


def test_display_formulas_in_the_docs_are_on_one_line():
    """A `$$…$$` block split over lines renders as red raw LaTeX (KaTeX error) in the Docs page;
    tests/browser/test_first_session.py checks every topic in Chromium too."""
    import re

    for f in sorted([*(ROOT / "docs").glob("*.md"), *(ROOT / "pages").glob("*/guide.md")]):
        for m in re.finditer(r"\$\$(.+?)\$\$", f.read_text(encoding="utf-8"), flags=re.S):
            assert "\n" not in m.group(1), f"{f.name}: display formula over several lines: {m.group(0)[:80]}"
