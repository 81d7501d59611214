"""The documentation site (``make docs``): built from docs/ by MkDocs with warnings as errors, with the
page index, the command-line reference and the API reference generated, and formulas as MathML."""

import hashlib
import re
import shutil

import pytest
from conftest import ROOT

from hetdp_core.framework.registry import specs
from hetdp_ui import docsite
from hetdp_ui.nav import docs


@pytest.fixture(scope="module")
def site(built_docs_site):
    return built_docs_site


def test_the_site_builds_strictly_with_every_topic_and_page(site):
    for name in docs():
        page = (site / f"{name}.html").read_text()
        assert "<h1" in page, name
    index = (site / "index.html").read_text()
    for s in specs():  # the table of pages comes from the registry
        assert f'href="{s.slug}.html"' in index and s.title.split(" (")[0] in index


def test_formulas_are_mathml_and_no_page_needs_the_internet(site):
    page = (site / "per_user_privacy.html").read_text()
    assert page.count("<math") >= 3 and 'class="arithmatex"' not in page
    for f in site.rglob("*.html"):
        text = f.read_text()
        assert not re.search(r'(src|href)="https?://(?!localhost)', text.replace('href="https://', 'x="')), f
    assert not any("fonts.googleapis" in f.read_text() for f in site.rglob("*.html"))


def test_the_search_works_from_disk(site):
    """Material's offline plugin: the search index is also a script (a page opened from file:// cannot
    fetch JSON), and the Web Worker shim it needs is shipped beside the pages, the npm package's own
    file, referenced relatively by every page (the plugin would load it from a CDN)."""
    from hetdp_ui.docsite import IFRAME_WORKER, SHIM, iframe_worker_shim

    assert (site / "search" / "search_index.js").read_text().startswith("var __index = {")
    assert (site / SHIM).read_bytes() == iframe_worker_shim()
    assert hashlib.sha256(iframe_worker_shim()).hexdigest() == IFRAME_WORKER[2]
    for f in (site / "index.html", site / "api" / "hetdp_core.teaching.poll.html"):
        depth = "../" * (len(f.relative_to(site).parts) - 1)
        assert f'<script src="{depth}{SHIM}">' in f.read_text(), f
    assert not any("unpkg" in f.read_text() for f in site.rglob("*.html"))


def test_the_cli_reference_is_generated_from_the_parser(site):
    from hetdp_ui.cli import build_parser

    page = (site / "cli.html").read_text()
    verbs = docsite._subcommands(build_parser())
    assert len(verbs) >= 10
    for verb in verbs:
        assert f"hetdp {verb}" in page, verb
    assert "--query" in page and "hetdp class start" in page


def test_the_api_reference_renders_the_core_docstrings(site):
    mods = docsite.api_modules()
    assert "hetdp_core.per_user.hetero" in mods and not any("._" in m for m in mods)
    page = (site / "api" / "hetdp_core.teaching.poll.html").read_text()
    assert "randomized response" in page.lower() and "doc-heading" in page


def test_the_index_of_docs_readme_is_the_registrys():
    """docs/README.md's table of pages, its topics and its list of sources are generated (`make docs`
    rewrites them); not typed by hand."""
    assert (ROOT / "docs" / "README.md").read_text() == docsite.index_text(), (
        "rule: docs/README.md's table of pages, topics and sources is generated from the registry and the pages' "
        "specs.\nfix: run `make docs` (python -m hetdp_ui.docsite), which rewrites the block, and keep docs/README.md"
    )
    assert all(f"(../pages/{s.slug}/guide.md)" in docsite.index_block() for s in specs())
    assert all(f"({s.slug}.md)" in docsite.index_block(site=True) for s in specs())


@pytest.mark.parametrize(
    "addition,message",
    [("\nSee [gone](no-such-topic.md).\n", "no-such-topic.md"), ("\n$\\frac{1}{$\n", "formula not converted")],
    ids=["broken link", "formula that does not convert"],
)
def test_a_warning_fails_the_build(addition, message, tmp_path, monkeypatch):
    """Warnings are errors: a link to a topic that does not exist, or a formula latex2mathml cannot
    convert, stops the build."""
    src = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", src)
    (src / "corrections.md").write_text((src / "corrections.md").read_text() + addition)
    monkeypatch.setattr(docsite, "DOCS", src)
    done = docsite.build(tmp_path / "site")
    assert done.returncode != 0 and message in done.stderr


def test_readme_is_short_and_links_only_existing_docs():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).exists(), link
    for must in (
        "make run",
        "make test",
        "make docs",
        "hetdp run",
        "hetdp lesson check",
        "hetdp ledger",
        "/Feature_privacy?",
    ):
        assert must in readme, must
