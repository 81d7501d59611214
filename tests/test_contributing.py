"""docs/contributing.md's "Adding a page, step by step", followed literally: the four files it prints (the
core module and the page's folder) are written into one copy of the app and `make docs` is run there.
Then the new page is found everywhere the guide promises — the menu, the docs (app and site), `hetdp
run/solve/report/notebook`, the fork server's preload list, the load tool, the page itself in AppTest —
with no other file edited than the generated lists, and **every generic test of the suite passes on it**:
the registry's, the architecture's, the fuzz tests, the page ↔ CLI agreement and the documentation's,
run in the copy on the new page. So the guide cannot drift from the tests: a rule a test adds that the
guide's page breaks fails here, in one copy of the tree and one pytest run."""

import os
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT

GUIDE = (ROOT / "docs" / "contributing.md").read_text()
#: the guide's example page (its URL path)
PAGE = "Coin_flip"
#: the tests that hold for every page; run on the guide's page in the copy (``SELECT`` picks its cases)
GENERIC = (
    "tests/test_registry.py",
    "tests/test_architecture.py",
    "tests/test_fuzz.py",
    "tests/test_page_cli_agreement.py",
    "tests/test_docs.py",
    "tests/test_docsite.py",
)
#: of those, the ones that must have run on the guide's page (the four the guide once failed among them)
MUST_RUN = (
    "test_registry.py::test_every_page_names_its_sources",
    "test_registry.py::test_a_page_is_named_only_by_its_own_files",
    f"test_registry.py::test_every_spec_matches_its_files[{PAGE}]",
    f"test_registry.py::test_a_pages_tables_are_typed_fields_named_as_their_csv[{PAGE}]",
    "test_architecture.py::test_pages_take_widget_bounds_from_the_scenario_spec",
    f"test_architecture.py::test_rendered_widget_ranges_equal_the_spec[{PAGE}]",
    "test_architecture.py::test_no_import_circle_in_the_core",
    "test_page_cli_agreement.py::test_every_page_has_an_agreement_query",
    f"test_page_cli_agreement.py::test_page_and_cli_give_identical_tables[{PAGE}]",
    f"test_fuzz.py::test_fuzzed_url_parameters[{PAGE}]",
    "test_fuzz.py::test_fuzzed_cli_run",  # hypothesis draws the page among all of them
    f"test_docs.py::test_each_page_topic_has_formulas_sources_and_tests[{PAGE.lower()}]",
    f"test_docs.py::test_docs_page_renders_every_topic[{PAGE.lower()}]",
    f"test_docs.py::test_every_chart_has_a_text_summary_next_to_it[{PAGE}]",
    "test_docsite.py::test_the_index_of_docs_readme_is_the_registrys",
    "test_guide_page_everywhere.py::test_the_guides_page_is_found_everywhere",
)

#: a pytest plugin for the copy: of the generic tests, those that are not parametrized and the cases of
#: the guide's page; not those that build the whole documentation site (`make docs` built it here, with the
#: new page, and the test below reads its index)
SELECT = textwrap.dedent(
    """
    import os

    PAGE = os.environ["HETDP_GUIDE_PAGE"]


    def pytest_collection_modifyitems(config, items):
        keep, drop = [], []
        for item in items:
            case = getattr(item, "callspec", None)
            on_page = case is None or PAGE in case.id or PAGE.lower() in case.id
            (keep if on_page and "built_docs_site" not in item.fixturenames else drop).append(item)
        items[:] = keep
        config.hook.pytest_deselected(items=drop)
    """
)

#: the places the guide promises that no generic test covers, as one more test run in the copy
EVERYWHERE = textwrap.dedent(
    """
    import json
    import sys
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from hetdp_core.framework import registry
    from hetdp_ui import docsite, limits, nav
    from hetdp_ui.chart_element import charts
    from hetdp_ui.cli import main


    def test_the_guides_page_is_found_everywhere(tmp_path):
        root = Path.cwd()
        assert registry.__file__.startswith(str(root)), registry.__file__  # the copy, not the checkout
        assert "Coin_flip" in registry.pages(), list(registry.pages())
        assert ("pages/coin_flip/page.py", "Coin flip", "Coin_flip") == nav.scenario_entries()[-1][:3]  # the menu
        assert nav.docs()["coin_flip"] == "Coin flip" and "(../pages/coin_flip/guide.md)" in docsite.index_block()
        assert nav.doc_file("coin_flip") == root / "pages" / "coin_flip" / "guide.md"
        assert "hetdp_core.scenarios.coin_flip" in limits.preload()
        assert [t for _, t in registry.cited_sources() if "Coin flip" in t]  # its own source, listed
        assert main(["run", "coin-flip", "--query", "eps=2&trials=50", "--json"]) == 0
        assert main(["solve", "Coin_flip", "--target", "0.1"]) == 2  # no solver: one line, exit 2
        report = tmp_path / "r.html"
        assert main(["report", "Coin_flip", "--query", "trials=50", "--out", str(report)]) == 0
        assert "Error of the estimated share against ε" in report.read_text()  # the folder's figure
        notebook = tmp_path / "n.ipynb"
        assert main(["notebook", "Coin_flip", "--query", "trials=50", "--out", str(notebook)]) == 0
        assert json.loads(notebook.read_text())["cells"]
        sys.path.insert(0, str(root / "benchmarks"))
        import load

        assert "Coin_flip" in load.PAGES, (load.__file__, load.PAGES)
        at = AppTest.from_file(str(root / "pages" / "coin_flip" / "page.py"), default_timeout=120).run()
        assert not at.exception and not at.error, (at.exception, at.error)
        assert at.title[0].value == "Coin flip" and "In short" in " ".join(m.value for m in at.markdown)
        at.slider(key="coin_flip_eps").set_value(3.0).run()
        assert not at.exception and not at.error, (at.exception, at.error)
        assert at.query_params["eps"] in (["3"], "3"), dict(at.query_params)
        assert len(charts(at)) == 1  # the folder's one figure
    """
)

#: what `make docs` may rewrite: the generated blocks of these files
GENERATED = re.compile(r"<!-- begin: generated.*?<!-- end -->", re.S)


def steps() -> dict[str, str]:
    """path → file text, from the guide's numbered steps (the first `path` and code block of each)."""
    section = GUIDE.split("## Adding a page, step by step", 1)[1].split("\nThen `make test`", 1)[0]
    out = {}
    for step in re.split(r"\n\*\*\d\. ", section)[1:]:
        path = re.search(r"`([\w/.-]+\.(?:py|md))`", step).group(1)
        out[path] = re.search(r"```\w*\n(.*?)\n```\n", step, re.S).group(1) + "\n"
    return out


def test_the_guide_prints_the_core_module_and_the_folder():
    files = steps()
    assert list(files) == [
        "hetdp_core/scenarios/coin_flip.py",
        "pages/coin_flip/page.py",
        "pages/coin_flip/figures.py",
        "pages/coin_flip/guide.md",
    ]
    assert "PAGE_SPEC = PageSpec(" in files["hetdp_core/scenarios/coin_flip.py"]


@pytest.fixture(scope="module")
def guided(tmp_path_factory):
    """One copy of the app with the guide's four files written in it and `make docs` run: (the copy, its
    files' bytes before the four files, the docs run, the built site, the environment to run it in)."""
    tmp = tmp_path_factory.mktemp("guided")
    app = tmp / "app"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "artifacts")
    for name in ("hetdp_core", "hetdp_ui", "pages", "docs", "data", "benchmarks", "tests", ".streamlit"):
        shutil.copytree(ROOT / name, app / name, ignore=ignore)
    for name in ("app.py", "README.md", "pyproject.toml"):
        shutil.copy(ROOT / name, app / name)
    before = {p: p.read_bytes() for p in app.rglob("*") if p.is_file()}
    for path, text in steps().items():
        assert not (app / path).exists(), path
        (app / path).parent.mkdir(parents=True, exist_ok=True)
        (app / path).write_text(text, encoding="utf-8")
    plugin = tmp / "plugin"
    plugin.mkdir()
    (plugin / "guide_page_only.py").write_text(SELECT, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(app), str(plugin)]),
        "HETDP_DATA_DIR": str(tmp / "data"),
        "HETDP_GUIDE_PAGE": PAGE,
    }
    docs = subprocess.run(  # `make docs`
        [sys.executable, "-m", "hetdp_ui.docsite", "--out", str(tmp / "site")],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return app, before, docs, tmp / "site", env


def _edited(app, before) -> list[str]:
    """The files of the copy whose bytes changed outside the generated blocks."""
    out = []
    for path, old in before.items():
        new = path.read_bytes()
        if new != old and GENERATED.sub("", new.decode("utf-8", "replace")) != GENERATED.sub("", old.decode()):
            out.append(str(path.relative_to(app)))
    return out


def test_make_docs_lists_the_page_and_its_source_and_edits_nothing_else(guided):
    app, before, docs, site, _ = guided
    assert docs.returncode == 0, docs.stdout[-2000:] + docs.stderr[-3000:]
    assert not _edited(app, before)  # nothing but the four files and the generated lists
    for readme in (app / "README.md", app / "docs" / "README.md"):
        assert "*Randomized Response: A Survey Technique for Eliminating Evasive Answer Bias*" in readme.read_text()
    assert "(../pages/coin_flip/guide.md)" in (app / "docs" / "README.md").read_text()
    # the documentation site builds with the new guide (strict) and lists it, with its module's API page
    assert 'href="coin_flip.html"' in (site / "index.html").read_text()
    assert (site / "api" / "hetdp_core.scenarios.coin_flip.html").exists()


def test_every_generic_test_passes_on_the_guides_page(guided):
    app, before, _, _, env = guided
    (app / "tests" / "test_guide_page_everywhere.py").write_text(EVERYWHERE, encoding="utf-8")
    report = app.parent / "generic.xml"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "guide_page_only", "-x"]
        # the guide teaches the core's current import paths: an old one (a DeprecationWarning) fails
        + ["-W", "error:hetdp_core.*is deprecated:DeprecationWarning"]
        + ["--junitxml", str(report), *GENERIC, "tests/test_guide_page_everywhere.py"],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    ran = {  # file::test of every case that passed (junit's classname is tests.<file>)
        f"{c.get('classname').rpartition('.')[2]}.py::{c.get('name')}"
        for c in ET.parse(report).getroot().iter("testcase")
        if not any(x.tag in ("skipped", "failure", "error") for x in c)
    }
    missing = [t for t in MUST_RUN if t not in ran]
    assert not missing, f"these generic tests did not run on the guide's page: {missing}"
    assert not _edited(app, before)  # the tests edited nothing either
