"""One declaration per page: a page registered once (tests/tiny_page.py: a scenario module with its
PageSpec, nothing else) appears in the menu, the home page's list, `hetdp run`, `hetdp report`, the
documentation topics and the load tool's page list; and every real page's spec is consistent with
its files (page script, docs topic, widget prefix, solver). A failure says the rule it checks and how to
fix it (:func:`broken`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT, strict_json

from hetdp_core.framework import registry
from hetdp_core.framework.scenario import InputError, RunOptions


def broken(rule: str, fix: str, found=()) -> str:
    """A failure's message: the rule, what to do, and where."""
    return f"rule: {rule}\nfix: {fix}" + "".join(f"\n  {f}" for f in found)


@pytest.fixture
def tiny():
    import tiny_page

    registry.register(tiny_page)
    yield tiny_page
    registry.unregister(tiny_page.PAGE_SPEC.url)


def test_a_page_declared_once_is_found_everywhere(tiny, capsys, tmp_path):
    """Rule: every part of the app reads its pages from the registry; a failure here names a part that keeps
    its own list or ignores the registry — fix that part to iterate over registry.specs()."""
    from hetdp_ui import nav
    from hetdp_ui.cli import main
    from hetdp_ui.report import build_report

    assert "Tiny_page" in registry.pages() and list(registry.pages())[-1] == "Tiny_page"  # order 99: last
    assert (
        "pages/tiny_page/page.py",
        "A tiny page",
        "Tiny_page",
        ":material/star:",
        "Does a page declared once appear everywhere?",
    ) in nav.scenario_entries()  # menu and home page
    assert nav.docs()["tiny_page"] == "A tiny page" and nav.page_doc("Tiny_page") == "tiny_page"
    assert registry.get("tiny-PAGE") is tiny  # any case, - for _
    assert main(["run", "tiny_page", "--query", "n=4&eps=2", "--json", "--budget", "large"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert out["page"] == "Tiny_page" and len(out["tables"]["tiny_rows"]) == 4
    assert "privacy_meaning" in out["tables"]  # its level, read as a risk
    html = build_report("Tiny_page", tiny.SCENARIO(n=2), tiny.run(tiny.SCENARIO(n=2)))
    assert "hetdp report — A tiny page" in html and tiny.QUESTION[:40] in html and "tiny_rows" in html
    assert main(["report", "Tiny_page", "--query", "n=2", "--out", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_text().count("A tiny page") >= 1
    assert main(["solve", "Tiny_page", "--target", "1"]) == 2  # no solver: one line
    assert "has no accuracy solver" in capsys.readouterr().err
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import load

    assert "Tiny_page" in tuple(registry.pages()) and set(load.PAGES) <= set(registry.pages()), broken(
        "the load tool's pages are the registry's", "read registry.pages() in benchmarks/load.py", [load.PAGES]
    )


def test_a_module_that_is_not_a_page_or_reuses_a_prefix_is_refused(tiny):
    import types

    with pytest.raises(InputError, match="lacks .*SCENARIO"):
        registry.register(types.ModuleType("not_a_page"))
    clone = types.ModuleType("clone")
    clone.__dict__.update({k: getattr(tiny, k) for k in ("SCENARIO", "PRESETS", "QUESTION", "run", "summarize")})
    clone.PAGE_SPEC = registry.PageSpec(
        **{
            **{f: getattr(tiny.PAGE_SPEC, f) for f in ("title", "icon", "summary", "order")},
            "url": "TINY_PAGE",  # another URL path, the same name (slug) in lower case
        }
    )
    with pytest.raises(InputError, match="its name 'tiny_page' is already used by Tiny_page"):
        registry.register(clone)
    with pytest.raises(InputError, match="url must be"):
        registry.PageSpec(url="a b", title="t", icon="i", summary="s", order=1)
    clone.PAGE_SPEC = registry.PageSpec(**{**clone.PAGE_SPEC.__dict__, "url": "Clone"})
    clone.levels = [1.0]  # an optional part that is not a function
    with pytest.raises(InputError, match=r"levels must be a function \(levels\(result\) -> list\[Level\]"):
        registry.register(clone)


def test_optional_parts_are_declared_hooks(tiny):
    """A page module's optional parts are read through registry.hook, which knows them by name: the tiny
    page has levels and no key_numbers, and asking for an undeclared part is an error."""
    assert registry.hook(tiny, "levels") is tiny.levels and registry.hook(tiny, "key_numbers") is None
    with pytest.raises(
        KeyError, match="'level' is not a declared page hook; the hooks are levels, key_numbers, paper_preset"
    ):
        registry.hook(tiny, "level")


#: a page folder's optional files: its own CLI verbs, its first steps on the home page, its benchmark workloads
OPTIONAL = ("cli.py", "start.toml", "bench.toml")


@pytest.mark.parametrize("spec", registry.specs(), ids=lambda s: s.url)
def test_every_spec_matches_its_files(spec):
    from hetdp_ui import folders

    mod = registry.get(spec.url)
    assert mod.__name__ == f"hetdp_core.scenarios.{spec.slug}", broken(
        "a page has one name, its URL path in lower case: the module hetdp_core/scenarios/<slug>.py, its folder "
        "pages/<slug>/ and its documentation topic",
        f"rename the module to hetdp_core/scenarios/{spec.slug}.py (or the URL path to match the module)",
        [f"{spec.url}: module {mod.__name__}"],
    )
    folder = ROOT / "pages" / spec.slug
    files = sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    assert folders.folder(spec.url) == folder and [f for f in files if f not in OPTIONAL] == [
        "figures.py",
        "guide.md",
        "page.py",
    ], broken(
        f"a page's folder pages/<slug>/ holds page.py, figures.py and guide.md, and optionally {', '.join(OPTIONAL)}",
        f"add the missing files to {folder.relative_to(ROOT)}/ (docs/contributing.md prints an example of each) and "
        "move any other file to the core module or hetdp_ui",
        [f"{spec.url}: {files}"],
    )
    src = (ROOT / spec.file).read_text()
    assert folders.page_file(spec.url) == ROOT / spec.file
    # one list of figures: the page draws every figure its folder declares (the report draws them all)
    figs = folders.figures(spec.url)
    undrawn = [f.name for f in figs if not re.search(rf'page\.chart\(\s*"{f.name}"', src)]
    assert figs and not undrawn, broken(
        "figures.py declares the page's figures (FIGURES, at least one) and page.py draws each with page.chart(name)",
        'call page.chart("<name>") where the page shows it, or drop the figure from FIGURES',
        [f"{spec.url}: not drawn: {undrawn}" if figs else f"{spec.url}: FIGURES is empty"],
    )
    assert re.search(r"with ui\.page_shell\(\s*\w+", src), broken(
        "a page script is one context, `with ui.page_shell(module) as page:` (title, widgets, run, report)",
        "wrap the page's widgets and layout in `with ui.page_shell(<its core module>) as page:`",
        [spec.file],
    )
    assert mod.SCENARIO.PAGE == spec.url and mod.SCENARIO.TITLE == spec.title, broken(
        "the scenario class is named by its module's PAGE_SPEC (Scenario.PAGE and TITLE read it)",
        "do not set PAGE or TITLE by hand, or set them from PAGE_SPEC",
        [f"{spec.url}: PAGE {mod.SCENARIO.PAGE!r}, TITLE {mod.SCENARIO.TITLE!r}"],
    )
    import inspect

    if spec.solver is not None:  # "module:function", a solver taking the scenario and a target
        import importlib

        module, name = spec.solver.split(":")
        solve = getattr(importlib.import_module(module), name)
        assert "target" in inspect.signature(solve).parameters, broken(
            "a page's solver is a function (scenario, *, target, …)", f"give {spec.solver} a keyword target"
        )
    # one run contract: run(scenario, *, options) — how it runs is an options object, never a keyword per page
    params = inspect.signature(mod.run).parameters
    assert (
        list(params) == [next(iter(params)), "options"] and params["options"].kind is inspect.Parameter.KEYWORD_ONLY
    ), broken(
        "a page's run is run(scenario, *, options): how it runs is a RunOptions, never a keyword of its own",
        "decorate `def run(s: <Scenario>, *, options: RunOptions)` with @page_run (hetdp_core.framework.scenario)",
        [f"{spec.url}: run{inspect.signature(mod.run)}"],
    )
    scenario = mod.SCENARIO.from_query(dict(spec.fast_query))  # the cheap query is valid
    if not spec.upload:  # a page without a data source refuses a file instead of ignoring it
        with pytest.raises(InputError, match="upload: .* takes no data file"):
            mod.run(scenario, options=RunOptions(upload=b"x\n1\n"))
    with pytest.raises(TypeError, match="options must be a RunOptions"):
        mod.run(scenario, options={"budget": None})


@pytest.mark.parametrize("spec", registry.specs(), ids=lambda s: s.url)
def test_a_pages_tables_are_typed_fields_named_as_their_csv(spec):
    """A page's result declares its download tables as DataFrame fields (hetdp_core.framework.scenario.table): the
    run fills them, tables() is exactly those (plus privacy_meaning, added to a finished result), and the
    report's key tables are among them."""
    import pandas as pd

    mod = registry.get(spec.url)
    result = mod.run(mod.SCENARIO.from_query(dict(spec.fast_query)))
    declared = type(result).table_names()
    assert declared and set(spec.key_tables) <= set(declared), broken(
        "a page's result declares its download tables as fields (table(…)), and the spec's key_tables are among them",
        'declare each table as `name: pd.DataFrame = table("what it holds")` on the result class, and name only '
        "those in key_tables",
        [f"{spec.url}: tables {declared}, key_tables {spec.key_tables}"],
    )
    have = {n for n in declared if getattr(result, n) is not None}
    assert all(isinstance(getattr(result, n), pd.DataFrame) for n in have)
    assert list(result.tables()) == [n for n in declared if n in have] + (["privacy_meaning"] if result.meaning else [])
    assert not result.tables_  # nothing by string: the meaning is a typed field, its table rendered from it


def _page_names(*, prose: bool = False) -> dict[str, set[str]]:
    """Every name of every page: URL path, slug (docs topic, folder), scenario module (dotted), page
    file, and the docs topic it had before its guide moved into its folder — for the pages that are not
    scenarios (lessons, the ledger, the class, the docs), their URL path, folder and file (in ``prose``
    their folder and file only: "Class" and "Lessons" are also plain words)."""
    from hetdp_ui.folders import tool_pages

    out = {}
    for s in registry.specs():
        module = registry.get(s.url).__name__
        old_topic = s.slug.replace("_", "-")
        out[s.url] = {s.url, s.slug, module, s.file, f"pages/{s.slug}", f"/{s.url}", old_topic}
    for t in tool_pages():
        out[t.url] = {t.file, f"pages/{t.slug}"} | (set() if prose else {t.url, f"/{t.url}"})
    return out


def _named_in_literal(node, names) -> set[str]:
    """The pages a list/tuple/set/dict display names anywhere inside it (nested displays included)."""
    import ast

    strings = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return {url for url, ns in names.items() if any(v in ns or v.startswith(f"{url}?") for v in strings)}


def test_no_page_list_outside_the_registry():
    """No file keeps its own list of the pages. In the app, the core, the UI package and the benchmarks a
    literal (list, tuple, set or dict, nested ones included) naming three or more pages by any of their
    names is a copy of the registry; in README and docs, a paragraph, list or table naming three or more
    (docs/README.md's generated table excepted); in the tests, a literal naming every page (page-specific
    cases of a few pages are the tests' own data)."""
    import ast

    names = _page_names()
    offenders = []
    product = [
        *ROOT.glob("*.py"),
        *(ROOT / "pages").glob("*/*.py"),
        *(ROOT / "hetdp_core").rglob("*.py"),
        *(ROOT / "hetdp_ui").rglob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
    ]
    tests = [p for p in (ROOT / "tests").rglob("*.py") if p.name != "test_registry.py"]
    for path in product + tests:
        limit = 3 if path in product else len(names)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                hit = _named_in_literal(node, names)
                if len(hit) >= limit:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(hit)}")
    generated = re.compile(r"<!-- begin: generated.*?<!-- end -->", re.S)
    in_prose = _page_names(prose=True)
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "pages").glob("*/guide.md")]:
        for block in re.split(r"\n\s*\n", generated.sub("", path.read_text())):
            hit = {
                url
                for url, ns in in_prose.items()
                if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", block) for n in ns - {f"/{url}"})
            }
            if len(hit) >= 3:
                offenders.append(f"{path.relative_to(ROOT)}: {block[:60]!r}: {sorted(hit)}")
    assert not offenders, broken(
        "no file keeps its own list of pages: the registry (and the other pages' page.toml) is the one list",
        "iterate over hetdp_core.framework.registry.specs() / hetdp_ui.folders.tool_pages(), or in Markdown write "
        "the list "
        "into a generated block (hetdp_ui/docsite.py)",
        offenders,
    )


def test_the_guard_sees_nested_lists_and_markdown():
    """The guard above catches what the old one missed: page names nested in tuples, module paths."""
    import ast

    names = _page_names()
    nested = ast.parse(
        'X = [("Feature_privacy", 1), ("hetdp_core.scenarios.mechanism_lab", 2), ("per-user-privacy", 3)]'
    )
    assert len(_named_in_literal(nested.body[0].value, names)) == 3


def test_every_page_names_its_sources():
    """A page names the works it is built on in its own spec, each a Source cited by authors, title, venue
    (and arXiv id); the lists of sources (README, docs, home page) are made from them."""
    from hetdp_core.materials.sources import Source

    for s in registry.specs():
        assert s.sources and all(isinstance(x, Source) for x in s.sources), broken(
            "a page names the works it is built on in its spec (PageSpec.sources)",
            f"add sources=(…,) to PAGE_SPEC in {registry.get(s.url).__file__}: a citation "
            "hetdp_core.materials.sources holds "
            "(BCDP_PAPER, …) or the page's own Source(authors, title, venue, arxiv)",
            [s.url],
        )
    cited = registry.cited_sources()
    assert cited and all(titles for _, titles in cited)
    with pytest.raises(InputError, match="PageSpec.sources must hold Source objects"):
        registry.PageSpec(url="X", title="t", icon="i", summary="s", order=1, sources=("bcdp",))


def test_a_scenario_finds_its_spec_declared_before_or_after_the_class():
    """Scenario.PAGE and TITLE read the module's PAGE_SPEC when asked, so the spec may follow the class."""
    import sys
    import types
    from dataclasses import dataclass

    code = (
        "from dataclasses import dataclass\n"
        "from hetdp_core.framework.registry import PageSpec\n"
        "from hetdp_core.framework.scenario import Interval, Scenario, param\n"
        "@dataclass(frozen=True)\n"
        "class Late(Scenario):\n"
        "    n: int = param(1, Interval(int, 1, 3), 'n')\n"
        "PAGE_SPEC = PageSpec(url='Late_page', title='Late', icon='i', summary='s', order=1)\n"
    )
    module = types.ModuleType("spec_after_class")
    sys.modules[module.__name__] = module
    try:
        exec(code, module.__dict__)
        assert (module.Late.PAGE, module.Late.TITLE, module.Late().PAGE) == ("Late_page", "Late", "Late_page")
        exec(
            "@dataclass(frozen=True)\nclass Elsewhere(Late):\n    pass\n",
            ns := {"dataclass": dataclass, "Late": module.Late},
        )
        assert ns["Elsewhere"].PAGE == "Late_page"  # a subclass in another module keeps its page
    finally:
        del sys.modules[module.__name__]
    from hetdp_core.framework.scenario import Scenario

    assert (Scenario.PAGE, Scenario.TITLE) == ("", "")  # a scenario outside a page's module


def test_set_flags_are_the_scenarios_inputs(capsys):
    """`--set NAME=VALUE` works for every input of every page (its own field names, old names too)
    and wins over --query; an unknown name is one line listing the page's inputs."""
    from hetdp_ui.cli import main

    assert main(["run", "Mechanism_lab", "--query", "eps=2&trials=100", "--set", "eps=0.7", "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert out["query"]["eps"] == "0.7" and out["query"]["trials"] == "100"
    assert main(["run", "Mechanism_lab", "--set", "alpha=2.5", "--set", "trials=100", "--json"]) == 0  # old name
    assert strict_json(capsys.readouterr().out)["query"]["pareto_index"] == "2.5"
    assert main(["run", "Mechanism_lab", "--set", "epsilon=0.7"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NAME one of Mechanism_lab's inputs: eps, delta" in err
    assert main(["solve", "Mechanism_lab", "--set", "novalue", "--target", "1"]) == 2


def _names_in_code(path, own: str | None, names: dict[str, set[str]]) -> set[str]:
    """The pages a Python file names outside its docstrings: a string equal to one of a page's names or a
    link to it, or an import of its scenario module; ``own`` (a folder's or core module's page) excepted."""
    import ast

    tree = ast.parse(path.read_text())
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    values = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            values.append(n.value)
        elif isinstance(n, ast.ImportFrom) and n.module:
            values += [n.module, *(f"{n.module}.{a.name}" for a in n.names)]
        elif isinstance(n, ast.Import):
            values += [a.name for a in n.names]
    return {
        url
        for url, ns in names.items()
        if url.lower() != own and any(v in ns or v.startswith((f"{url}?", f"/{url}?")) for v in values)
    }


def _names_in_text(path, own: str | None, names: dict[str, set[str]]) -> set[str]:
    """The pages a file's text names anywhere — docstrings, comments, messages and help included — by a
    name no plain word spells (one with ``_``, ``/`` or ``.``: the URL path, slug, module, folder, file or
    a link) or as "<URL path> page" ("the Lessons page"); ``own`` excepted."""
    text = path.read_text()
    found = set()
    for url, ns in names.items():
        if url.lower() == own:
            continue
        spelled = sorted((re.escape(n) for n in ns if any(c in n for c in "_/.")), key=len, reverse=True)
        if re.search(rf"(?<![\w/.-])(?:{'|'.join([*spelled, re.escape(f'{url} page')])})(?![\w-])", text):
            found.add(url)
    return found


def test_a_page_is_named_only_by_its_own_files():
    """Outside a page's folder (pages/<slug>/) and its core module (hetdp_core/scenarios/<slug>.py, or the
    package hetdp_core/scenarios/<slug>/), no product file names a page — by URL path, slug, module path,
    file or link, in code, docstrings, comments or messages: every other file finds pages through the
    registry and the folders — links to the documentation, lessons and class by the role a page declares,
    the home page's first steps and the benchmarks' workloads in each page's own start.toml and
    bench.toml."""
    from hetdp_ui.folders import tool_pages

    names = {}
    for s in registry.specs():
        module = registry.get(s.url).__name__
        names[s.url] = {
            s.url,
            s.slug,
            module,
            module.removeprefix("hetdp_core."),
            s.file,
            f"pages/{s.slug}",
            f"/{s.url}",
        }
    for t in tool_pages():  # "class", "docs", "lessons" are also plain words: the URL path and files only
        names[t.url] = {t.url, t.file, f"pages/{t.slug}", f"/{t.url}"} | ({t.slug} if "_" in t.slug else set())
    product = [
        *ROOT.glob("*.py"),
        *(ROOT / "pages").glob("*/*.py"),
        *(ROOT / "hetdp_core").rglob("*.py"),
        *(ROOT / "hetdp_ui").rglob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
    ]
    found = {}
    for path in product:
        rel = path.relative_to(ROOT)
        scenarios = rel.parts[0] == "hetdp_core" and rel.parts[1:2] == ("scenarios",) and len(rel.parts) > 2
        # a page's core module: scenarios/<slug>.py, or the package scenarios/<slug>/ (its solver beside it)
        own = rel.parts[1] if rel.parts[0] == "pages" else Path(rel.parts[2]).stem if scenarios else None
        hit = _names_in_code(path, own, names) | _names_in_text(path, own, names)
        if hit:
            found[str(rel)] = hit
    assert not found, broken(
        "a page is named only by its own files — its folder pages/<slug>/ and its core module "
        "hetdp_core/scenarios/<slug>.py (or package) — in code, docstrings, comments and messages alike; every "
        "other file finds pages through the registry and the folders",
        "loop over registry.specs() or folders.tool_pages() instead of naming the page; link the documentation, "
        "lessons or class by the role a page declares (folders.page_for); declare first steps and benchmark "
        "workloads in the page's own start.toml and bench.toml; in an example, name a page that does not exist "
        "(My_page)",
        [f"{f} names {sorted(p)}" for f, p in sorted(found.items())],
    )


def test_the_single_name_guard_sees_imports_links_text_and_own_folders(tmp_path):
    """The guard above catches a module import, a link and a name in a docstring, comment or message, and
    leaves a page's own folder alone."""
    names = {"Feature_privacy": {"Feature_privacy", "hetdp_core.scenarios.feature_privacy"}}
    f = tmp_path / "x.py"
    f.write_text('"""Docstrings may say Feature_privacy."""\nfrom hetdp_core.scenarios.feature_privacy import run\n')
    assert _names_in_code(f, None, names) == {"Feature_privacy"}
    assert _names_in_code(f, "feature_privacy", names) == set()
    f.write_text('"""Feature_privacy"""\nLINK = "Feature_privacy?q=0.3"\n')
    assert _names_in_code(f, None, names) == {"Feature_privacy"}
    f.write_text('"""Only the docstring: Feature_privacy."""\n')
    assert _names_in_code(f, None, names) == set()
    # the text is read too: docstrings, comments and messages, by names no plain word spells
    names["Lessons"] = {"Lessons", "pages/lessons/page.py", "pages/lessons", "/Lessons"}
    for text, named in (
        ('"""Only the docstring: Feature_privacy."""\n', {"Feature_privacy"}),
        ("x = 1  # see pages/lessons/guide.md\n", {"Lessons"}),
        ('MSG = "upload it again on the Lessons page"\n', {"Lessons"}),
        ('"""Lessons: a path through the pages; feature privacy in plain words."""\n', set()),
    ):
        f.write_text(text)
        assert _names_in_text(f, None, names) == named, text
    assert _names_in_text(f, "feature_privacy", names) == set()


def test_a_page_declares_its_first_steps_in_its_folder(tiny, tmp_path):
    """The home page's first steps come from each page's ``start.toml`` (its URL path from the registry), in
    their declared order; a ``start.toml`` in a folder that is no page is refused."""
    from hetdp_ui import folders, nav

    pages = tmp_path / "pages"
    (pages / "tiny_page").mkdir(parents=True)
    (pages / "tiny_page" / "start.toml").write_text(
        '[[start]]\norder = 0\nwho = "Anyone"\nwhat = "a tiny view"\nlabel = "Tiny"\nquery = { n = 3 }\n'
    )
    step = folders.FirstStep(
        order=0, who="Anyone", what="a tiny view", page="Tiny_page", label="Tiny", query={"n": "3"}
    )
    assert folders._first_steps(pages) == (step,)
    other = tmp_path / "other"
    (other / "not_a_page").mkdir(parents=True)
    (other / "not_a_page" / "start.toml").write_text('[[start]]\norder = 0\nwho = "x"\nwhat = "x"\nlabel = "x"\n')
    with pytest.raises(ValueError, match="'not_a_page' is not a page"):
        folders._first_steps(other)
    # the app's own: one first step per kind of user, in order, each opening a page of the app
    assert [who for who, *_ in nav.start_links()] == ["Student or instructor", "Deciding privacy levels", "Researcher"]


def test_links_to_the_documentation_lessons_and_class_go_to_the_page_playing_that_role(tmp_path):
    """A page that is not a scenario declares the role it plays for other pages' links (``role`` in its
    page.toml); the links find it by role, so only its own folder names it. One page per role, known roles
    only, and a role no page plays is a clear error."""
    from hetdp_ui import folders
    from hetdp_ui.classroom.store import links

    assert {r: folders.page_for(r).slug for r in folders.ROLES} == {
        folders.DOCUMENTATION: "docs",
        folders.LESSON_LIST: "lessons",
        folders.LIVE_CLASS: "class",
    }
    assert links("http://h/", "ABC", "k") == {
        "student": f"http://h/{folders.page_for(folders.LIVE_CLASS).url}?code=ABC",
        "instructor": f"http://h/{folders.page_for(folders.LIVE_CLASS).url}?code=ABC&key=k",
    }
    entry = 'url = "{url}"\ntitle = "t"\nicon = "i"\nsummary = "s"\norder = 1\nrole = "{role}"\n'
    for name, pages, error in (
        ("twice", {"a": folders.DOCUMENTATION, "b": folders.DOCUMENTATION}, "one page per role"),
        ("unknown", {"a": "helpdesk"}, "'helpdesk' is not one of"),
    ):
        for slug, role in pages.items():
            (tmp_path / name / slug).mkdir(parents=True)
            (tmp_path / name / slug / "page.toml").write_text(entry.format(url=slug.upper(), role=role))
        with pytest.raises(ValueError, match=error):
            folders._tool_pages(tmp_path / name)
    (tmp_path / "none" / "a").mkdir(parents=True)
    (tmp_path / "none" / "a" / "page.toml").write_text(entry.format(url="A", role=folders.LESSON_LIST))
    with pytest.raises(LookupError, match="no page plays the role 'live class'"):
        folders._page_for(tmp_path / "none", folders.LIVE_CLASS)
