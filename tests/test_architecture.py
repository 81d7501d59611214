"""The layers show in the tree: the core imports neither Streamlit, plotly nor the UI package; the
figure builders and the CLI are Streamlit-free; dependencies point pages/CLI → figures → core; no
import circle in the core. A failure says the rule it checks and how to fix it (:func:`broken`)."""

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT, page_path

from hetdp_core.framework.registry import pages


def broken(rule: str, fix: str, found=()) -> str:
    """A failure's message: the rule, what to do, and where."""
    return f"rule: {rule}\nfix: {fix}" + "".join(f"\n  {f}" for f in found)


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


CORE = sorted((ROOT / "hetdp_core").rglob("*.py"))
#: the hetdp_ui modules that draw with Streamlit (page helpers); every other module of the package —
#: figures, the CLI, reports, notebooks, the class database, the docs site, and any module added later —
#: must stay Streamlit-free (found by walking the package, not listed)
STREAMLIT_UI = {
    *("state.py", "widgets.py", "chart_element.py", "execution.py", "panels.py", "exports.py", "page.py", "common.py"),
    *(
        "nav.py",
        "lesson_panel.py",
        "class_panel.py",
        "class_queue.py",
        "handback.py",
        "launch.py",
        "actions.py",
        "streamlit_fix.py",
    ),
}
STREAMLIT_FREE_UI = sorted(
    str(p.relative_to(ROOT / "hetdp_ui"))
    for p in (ROOT / "hetdp_ui").rglob("*.py")
    if str(p.relative_to(ROOT / "hetdp_ui")) not in STREAMLIT_UI
)


def test_the_core_states_ranges_in_the_constraint_vocabulary():
    """A core function states the range it accepts as a constraint (``EPS.check``, ``UNIT.check_vector``,
    a module's named ``Interval``), the same objects the scenarios declare their fields with; the
    keyword bounds of the low-level checks (``lo=``, ``lo_open=``, …) are used only inside
    hetdp_core.framework._validate and hetdp_core.framework.constraints."""
    bounds = {"lo", "hi", "lo_open", "hi_open", "allow_inf"}
    found = []
    for path in CORE:
        if path.name in ("_validate.py", "constraints.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check_"):
                if bounds & {k.arg for k in node.keywords}:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")
    assert not found, broken(
        "a core function states the range it accepts with the constraint vocabulary "
        "(hetdp_core/framework/constraints.py)",
        "replace the low-level keywords (lo=, hi=, lo_open=, …) with EPS.check(…), UNIT.check_vector(…) or a "
        "named Interval of the module",
        found,
    )


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_imports_no_ui(path):
    bad = imports(path) & {"streamlit", "plotly", "hetdp_ui"}
    assert not bad, broken(
        "hetdp_core is numerics and scenarios: it imports neither Streamlit, plotly nor hetdp_ui",
        "return the numbers (a Result's tables and fields) and draw them in the page's folder (figures.py) "
        "or a hetdp_ui helper",
        [f"{path.relative_to(ROOT)} imports {sorted(bad)}"],
    )


#: the page scripts: each page folder's page.py
PAGE_SCRIPTS = sorted((ROOT / "pages").glob("*/page.py"))
#: every other module of a page folder: its figures (Streamlit-free plotly builders, like hetdp_ui's), its
#: own CLI verbs, and any other part (the release ledger's downloads)
PAGE_FIGURES = sorted(p for p in (ROOT / "pages").glob("*/*.py") if p.name != "page.py")


@pytest.mark.parametrize("name", STREAMLIT_FREE_UI)
def test_figures_and_cli_are_streamlit_free(name):
    assert "streamlit" not in imports(ROOT / "hetdp_ui" / name), broken(
        "only hetdp_ui's page helpers (STREAMLIT_UI in this file) draw with Streamlit; figures, the CLI, "
        "reports, notebooks, the class database and the docs site run without a server",
        "move the Streamlit part into a page helper (widgets.py, panels.py, …) and keep this module "
        "Streamlit-free; a new page helper is added to STREAMLIT_UI",
        [f"hetdp_ui/{name} imports streamlit"],
    )


@pytest.mark.parametrize("path", PAGE_FIGURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_folders_figures_are_streamlit_free(path):
    """A page's figures.py draws from a result with plotly and hetdp_ui's shared builders, never Streamlit;
    its cli.py (the page's own hetdp verbs) and any other module of the folder run without a server either."""
    assert "streamlit" not in imports(path), broken(
        "in a page's folder only page.py uses Streamlit: its figures, CLI verbs and other parts run without a server",
        "build figures with plotly and hetdp_ui's builders and return them; draw them with page.chart(name) in page.py",
        [f"{path.relative_to(ROOT)} imports streamlit"],
    )


def test_every_page_has_a_scenario_and_run():
    from hetdp_core.framework.scenario import Result, Scenario
    from hetdp_core.scenarios import get, pages
    from hetdp_ui.folders import tool_pages

    loose = list((ROOT / "pages").glob("*.py"))
    assert not loose, broken("every page is a folder pages/<slug>/", "move the file to pages/<slug>/page.py", loose)
    folders = {p.name for p in (ROOT / "pages").iterdir() if p.is_dir() and p.name != "__pycache__"}
    tools = {t.slug for t in tool_pages()}  # lessons, release_ledger, class, docs: a page.toml each
    assert tools == {"lessons", "release_ledger", "class", "docs"}, tools
    scenario_pages = {get(page).PAGE_SPEC.slug for page in pages()}
    assert folders == scenario_pages | tools, broken(
        "one folder per page: pages/<slug>/ for each scenario module hetdp_core/scenarios/<slug>.py, and the "
        "folders with a page.toml",
        "name the folder as the page's URL path in lower case (its slug), or give a page that is not a scenario "
        "its page.toml",
        [
            f"folders without a page: {sorted(folders - scenario_pages - tools)}",
            f"pages without a folder: {sorted(scenario_pages - folders)}",
        ],
    )
    assert all((ROOT / "pages" / slug / "page.py").is_file() for slug in folders), "every folder has its page.py"
    for page in pages():
        mod = get(page)
        assert issubclass(mod.SCENARIO, Scenario) and mod.SCENARIO.PAGE == page, broken(
            "a page module's SCENARIO is a hetdp_core.framework.scenario.Scenario subclass named by the module's "
            "PAGE_SPEC",
            "subclass Scenario (a frozen dataclass of param fields) in the page's module, beside PAGE_SPEC",
            [page],
        )
        assert callable(mod.run) and isinstance(mod.PRESETS, dict), f"{page}: run must be a function, PRESETS a dict"
        for name, preset in mod.PRESETS.items():  # presets are scenarios
            assert isinstance(preset, mod.SCENARIO) and mod.SCENARIO.from_query(preset.to_query()) == preset, broken(
                "a preset is a scenario, and its URL query string reads back to it",
                "build the preset with the page's scenario class from values its fields accept",
                [f"{page}: preset {name!r}"],
            )
        assert Result


def test_pages_catch_only_the_input_error_type():
    """A page never catches ValueError/TypeError/Exception broadly: a bug must fail a test."""
    for page in PAGE_SCRIPTS:
        text = page.read_text()
        for bad in ("except ValueError", "except (ValueError", "except TypeError", "except Exception", "except:"):
            assert bad not in text, broken(
                "a page catches only InputError, only around scenario construction and the run: any other "
                "exception is a bug that must fail a test",
                "catch InputError (from hetdp_core.framework.scenario) or let page.run() show it",
                [f"{page.relative_to(ROOT)}: {bad}"],
            )


@pytest.mark.parametrize(
    "page,old,new,value",
    [
        ("Mechanism_lab", "alpha", "pareto_index", 2.5),
        ("DP_SGD_schedules", "runs", "trials", 20),
        ("Private_regression", "lam", "decay", 0.3),
    ],
)
def test_renamed_parameters_keep_old_links_working(page, old, new, value):
    """One name per concept: renamed URL parameters are still read under their old names (core and page)."""
    from streamlit.testing.v1 import AppTest

    from hetdp_core.scenarios import get

    mod = get(page)
    assert getattr(mod.SCENARIO.from_query({old: str(value)}), new) == value
    assert getattr(mod.SCENARIO.from_query({old: "999", new: str(value)}), new) == value  # the new name wins
    at = AppTest.from_file(str(page_path(page)), default_timeout=180)
    at.query_params[old] = str(value)
    at.run()
    assert not at.exception and not at.error
    assert at.session_state[f"{mod.PAGE_SPEC.slug}_{new}"] == value


def test_pages_build_no_figures_themselves():
    """Pages hold widgets and layout only: figures come from the Streamlit-free builders."""
    for page in PAGE_SCRIPTS:
        assert "plotly" not in imports(page), broken(
            "a page script holds widgets and layout; its figures are built in its folder's figures.py",
            "declare the figure in FIGURES (figures.py) and draw it with page.chart(name)",
            [f"{page.relative_to(ROOT)} imports plotly"],
        )


def test_no_user_facing_text_points_outside_the_repository():
    """The team's references (../shared/SPEC.md, ../shared/papers/) are not in a copy of the
    repository: the app, CLI, core docstrings, README, docs and data cite sources by authors,
    title, venue and arXiv id instead (hetdp_core/materials/sources.py)."""
    import re

    # ../pages/<slug>/guide.md is the documentation index's link to a page's guide, inside the repository
    pattern = re.compile(r"\.\./(?!pages/)|shared/papers|SPEC\.md|\bSPEC\b|file://|(?<![\w.])/(?:work|home|Users)/")
    files = [
        ROOT / "app.py",
        ROOT / "README.md",
        *ROOT.glob("pages/**/*.py"),
        *ROOT.glob("pages/*/guide.md"),
        *ROOT.glob("hetdp_ui/**/*.py"),
        *ROOT.glob("hetdp_core/**/*.py"),
        *ROOT.glob("docs/**/*.md"),
        *ROOT.glob("data/**/*.md"),
        *ROOT.glob("data/**/*.toml"),
        *ROOT.glob("benchmarks/*.py"),
        ROOT / ".streamlit" / "config.toml",
    ]
    hits = [
        f"{f.relative_to(ROOT)}:{i}: {line.strip()}"
        for f in files
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not hits, broken(
        "the product never points users to files outside the repository (the team's references are not shipped)",
        "cite a work by authors, title, venue and arXiv id (a page's PageSpec.sources) instead of a path",
        hits,
    )


def test_the_readmes_sources_are_the_pages_own():
    """A page names its sources in its spec; the README's list is made from them by `make docs` (the
    documentation's list with docs/README.md's table of pages: tests/test_docsite.py), each cited by
    authors, title, venue and arXiv id."""
    from hetdp_core.framework.registry import cited_sources
    from hetdp_ui import docsite

    assert (ROOT / "README.md").read_text() == docsite.readme_text(), broken(
        "the README's list of sources is generated from the pages' specs (PageSpec.sources)",
        "run `make docs` (python -m hetdp_ui.docsite), which rewrites the block, and keep README.md",
    )
    readme = (ROOT / "README.md").read_text()
    for s, titles in cited_sources():
        assert titles and s.title in readme and (not s.arxiv or f"arXiv:{s.arxiv}" in readme), s


def test_pages_take_widget_bounds_from_the_scenario_spec():
    """One definition per input: range widgets are created through
    ScenarioState.slider/number (bounds from the field's Spec) or over a grid; a widget that is not
    a scenario field (e.g. the solver's target) takes its bounds from named core constants. No page
    passes literal numbers as bounds to st.slider/st.number_input."""

    def literal(n):
        return isinstance(n, ast.Constant) or (isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Constant))

    def scenario_state(n):  # `state.slider(…)`, `page.state.slider(…)`: a ScenarioState, whatever holds it
        return (isinstance(n, ast.Name) and n.id == "state") or (isinstance(n, ast.Attribute) and n.attr == "state")

    offenders = []
    for path in PAGE_SCRIPTS:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("slider", "number_input")
                and not scenario_state(node.func.value)
            ):
                bounds = node.args[1:3] + [k.value for k in node.keywords if k.arg in ("min_value", "max_value")]
                if not bounds or any(literal(b) for b in bounds):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, broken(
        "a field's widget takes its bounds and label from the scenario's spec; a widget that is no field takes "
        "its bounds from named core constants, never from numbers typed in the page",
        "draw a field with page.state.slider/number/grid(name) (or state.… with state = page.state); give "
        "another widget min_value/max_value from a core constant",
        offenders,
    )


@pytest.mark.parametrize("page", list(pages()))
def test_rendered_widget_ranges_equal_the_spec(page):
    """Every slider / number input a page renders (default view) has the Spec's bounds, so a URL
    value accepted by the parser can never be outside the widget."""
    from streamlit.testing.v1 import AppTest

    from hetdp_core.scenarios import get

    specs = get(page).SCENARIO.specs()
    at = AppTest.from_file(str(ROOT / get(page).PAGE_SPEC.file), default_timeout=120)
    at.query_params.update({"trials": str(int(specs["trials"].lo))} if "trials" in specs else {})
    at.run()
    checked = 0
    for w in [*at.slider, *at.number_input]:
        prefix = get(page).PAGE_SPEC.slug + "_"
        name = w.key[len(prefix) :] if w.key and w.key.startswith(prefix) else None
        if name not in specs or (page == "Feature_privacy" and name == "k"):  # k ≤ d: narrowed on purpose
            continue
        sp = specs[name]
        assert (float(w.min), float(w.max)) == (float(sp.lo), float(sp.hi)), broken(
            "a widget's range is its field's range, so no value the URL accepts is outside the widget",
            "draw the field with page.state.slider/number(name) and narrow the range in the field's constraint",
            [f"{page}: {name} shows [{w.min}, {w.max}], its field accepts [{sp.lo}, {sp.hi}]"],
        )
        checked += 1
    assert checked >= 2, f"{page}: fewer than two field widgets found (keys must be <slug>_<field>: page.state.key)"


def _public_core_functions():
    import importlib
    import inspect
    import pkgutil

    import hetdp_core

    for info in pkgutil.walk_packages(hetdp_core.__path__, "hetdp_core."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", obj


def test_public_core_functions_have_numpydoc_sections():
    """Every public function of the core (its modules' ``__all__``) documents each parameter in a
    numpydoc ``Parameters`` section and what it returns in a ``Returns`` section."""
    import inspect
    import re

    missing = []
    functions = dict(_public_core_functions())
    assert len(functions) > 200
    for qualname, fn in functions.items():
        doc = inspect.getdoc(inspect.unwrap(fn)) or ""
        sig = inspect.signature(inspect.unwrap(fn))
        params = [p for p in sig.parameters.values()]
        if params:
            if "\nParameters\n----------\n" not in doc:
                missing.append(f"{qualname}: no Parameters section")
                continue
            section = doc.split("\nParameters\n----------\n", 1)[1].split("\n\n", 1)[0]
            documented = set(re.findall(r"^\*{0,2}(\w+) : ", section, re.M))
            lacking = [p.name for p in params if p.name not in documented]
            if lacking:
                missing.append(f"{qualname}: parameters {lacking} undocumented")
        if sig.return_annotation not in (None, "None") and "\nReturns\n-------\n" not in doc:
            missing.append(f"{qualname}: no Returns section")
    assert not missing, broken(
        "every public function of the core (its module's __all__) documents its parameters and its result",
        "end the module with document(globals()) (sections from the glossary, hetdp_core/framework/_doc.py) or "
        "write the "
        "numpydoc Parameters and Returns sections",
        missing,
    )


def test_importing_every_page_module_leaves_the_heavy_scipy_modules_for_later():
    """A server's menu imports every page's scenario module at its first view; scipy.stats, scipy.optimize
    and scipy.integrate (≈ 0.6 s together) are imported where they are used, in the run children (whose
    fork server preloads them) or at the first call, not with the modules."""
    import subprocess
    import sys

    probe = (
        "import sys; from hetdp_core.framework.registry import pages; pages(); "
        "print(sorted(m for m in ('scipy.stats', 'scipy.optimize', 'scipy.integrate') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", broken(
        "importing the page modules (a menu does) imports no heavy scipy module",
        "import scipy.stats / scipy.optimize / scipy.integrate inside the function that uses them",
        [out.stdout.strip()],
    )


def _product_sources():
    return [
        p
        for p in [ROOT / "app.py", *ROOT.glob("pages/**/*.py"), *ROOT.glob("benchmarks/*.py")]
        + [*(ROOT / "hetdp_core").rglob("*.py"), *(ROOT / "hetdp_ui").rglob("*.py")]
        if "__pycache__" not in p.parts
    ]


def test_every_page_file_named_in_the_code_exists():
    """A page that moves leaves no path to its old file behind: every string in the product code that
    names a file under pages/ (``pages/x/page.py``, or a bare ``10_Release_ledger.py``) names one that
    exists. (benchmarks/run.py named pages/1_Feature_privacy.py after the page had moved into its
    folder, and no test runs make bench.)"""
    missing = []
    for path in _product_sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            for m in re.finditer(r"(?<![\w<{])pages/[\w/]+\.(?:py|md)\b", node.value):
                if not (ROOT / m.group(0)).is_file():
                    missing.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
            if re.fullmatch(r"\d+_\w+\.py", node.value) and not (ROOT / "pages" / node.value).is_file():
                missing.append(f"{path.relative_to(ROOT)}: pages/{node.value}")
    assert not missing, broken(
        "a path to a page file in the code names a file that exists", "correct or remove the path", missing
    )


def test_no_function_over_80_lines_and_no_file_over_600():
    """Size limits outside the tests: a function fits a screen and a half (80 lines, docstring
    included), a module 600 lines (a source's numerics that grow past it are split by concern inside its room,
    as hetdp_core/per_group/ splits group-wise zCDP)."""
    long_functions, long_files = [], []
    for path in _product_sources():
        text = path.read_text()
        rel = str(path.relative_to(ROOT))
        if len(text.splitlines()) > 600:
            long_files.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno - first + 1 > 80:
                    long_functions.append(f"{rel}:{node.lineno} {node.name}: {node.end_lineno - first + 1} lines")
    assert not long_functions and not long_files, broken(
        "no function over 80 lines and no module over 600 outside the tests",
        "split the function into named steps, or the module by concern (a part of one source's numerics sets "
        "GLOSSARY_KEY to share its rows of the glossary, and the module users import re-exports its names)",
        long_functions + long_files,
    )


def test_every_glossary_row_describes_a_parameter():
    """A ``module:name`` row of the core's glossary is read by some public function of that module (a
    row left behind when a function moves would describe nothing while its twin describes the moved one)."""
    import inspect

    from hetdp_core.framework._doc import KEYS, PARAMETERS, glossary_key

    used = set()
    for _qualname, fn in _public_core_functions():
        module = KEYS.get(fn.__module__) or glossary_key(fn.__module__)  # its name in its room, or GLOSSARY_KEY
        for p in inspect.signature(inspect.unwrap(fn)).parameters:
            used.add(next((k for k in (f"{module}.{fn.__name__}:{p}", f"{module}:{p}", p) if k in PARAMETERS), p))
    dead = sorted(k for k in PARAMETERS if ":" in k and k not in used)
    assert not dead, broken(
        "a module:name row of the glossary describes a parameter of a public function of that module",
        "delete the row, or move it with the function it describes",
        dead,
    )


def test_setuptools_finds_the_packages_and_no_list_is_kept_by_hand():
    """pyproject.toml names the folders that ship (``[tool.setuptools.package-dir]``), not the packages:
    setuptools' discovery of that layout finds every package below each folder, so a new subpackage of
    the core or a new page folder ships with no edit (and the install prints no "Package would be
    ignored" warning, since every folder holding a shipped file is a package)."""
    import tomllib

    from setuptools import find_namespace_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in conf and "py-modules" not in conf, (
        "rule: pyproject.toml keeps no list of packages. Fix: delete [tool.setuptools] packages; a folder that "
        "ships is declared once in [tool.setuptools.package-dir] and setuptools finds the packages below it"
    )
    folders = dict(conf["package-dir"])
    assert set(folders.values()) == {"hetdp_core", "hetdp_ui", "data", "pages", "docs"}, folders
    for name, folder in folders.items():
        found = {name} | {f"{name}.{p}" for p in find_namespace_packages(str(ROOT / folder))}
        have = {
            ".".join([name, *d.relative_to(ROOT / folder).parts])
            for d in [ROOT / folder, *(ROOT / folder).rglob("*")]
            if d.is_dir() and "__pycache__" not in d.parts and any(f.suffix == ".py" for f in d.iterdir())
        }
        assert have <= found, sorted(have - found)


def _core_imports() -> dict[str, set[str]]:
    """Module → the core modules it imports, anywhere in its file (inside functions too: a lazy import is
    still a dependency)."""

    def name(p: Path) -> str:
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    mods = {name(p): p for p in CORE}
    graph = {}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                names = [target, *(f"{target}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for n in names:
                while n and n not in mods:
                    n = n.rpartition(".")[0]
                if n and n != mod:
                    out.add(n)
        graph[mod] = out
    return graph


def test_no_import_circle_in_the_core():
    """The core's imports form no circle (imports inside functions count): a module that two others need
    goes below both."""
    graph = _core_imports()
    done, on_path, circles = set(), [], []

    def visit(mod):
        on_path.append(mod)
        for dep in sorted(graph[mod]):
            if dep in on_path:
                circles.append(" → ".join(on_path[on_path.index(dep) :] + [dep]))
            elif dep not in done:
                visit(dep)
        on_path.pop()
        done.add(mod)

    for mod in sorted(graph):
        if mod not in done:
            visit(mod)
    assert not circles, broken(
        "no import circle in hetdp_core (the house reads from the bottom up: scenario framework, numerics, "
        "accountants, reading a level, pages)",
        "move what both modules need into a module below both (a private _module if it is small), or pass it "
        "as an argument; the registry finds page modules by package name (registry.PAGE_PACKAGE)",
        circles,
    )


def test_the_import_graph_sees_lazy_imports_and_circles(tmp_path, monkeypatch):
    """The check above is not blind: a function-level import that closes a circle is found."""
    core = tmp_path / "hetdp_core"
    core.mkdir()
    (core / "__init__.py").write_text("")
    (core / "a.py").write_text("from .b import f\n")
    (core / "b.py").write_text("def f():\n    from . import a\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    monkeypatch.setattr(__import__(__name__), "CORE", sorted(core.rglob("*.py")))
    assert _core_imports()["hetdp_core.b"] == {"hetdp_core", "hetdp_core.a"}
    with pytest.raises(AssertionError, match="hetdp_core.a → hetdp_core.b → hetdp_core.a"):
        test_no_import_circle_in_the_core()


def test_every_name_a_core_module_exports_exists():
    """``from hetdp_core.<module> import *`` works: every name of a module's ``__all__`` is defined in it (a
    page's core module imports the constraint vocabulary from hetdp_core.framework.scenario)."""
    import importlib
    import pkgutil

    import hetdp_core

    missing = []
    for info in pkgutil.walk_packages(hetdp_core.__path__, "hetdp_core."):
        module = importlib.import_module(info.name)
        missing += [f"{info.name}.{n}" for n in getattr(module, "__all__", ()) if n not in vars(module)]
    assert not missing, broken(
        "a module's __all__ names only what the module defines or imports",
        "import the name in the module (a re-export), or take it out of __all__",
        missing,
    )


def test_every_public_parameter_is_in_the_glossary():
    """document(globals()) found every public function's parameters in the glossary (a missing one is a
    warning at import, never an error that takes the module's importers down)."""
    from hetdp_core.framework._doc import UNDOCUMENTED, missing_row_message

    list(_public_core_functions())  # imports every core module, so each one's document() has run
    assert not UNDOCUMENTED, broken(
        "every parameter of a public core function is described once, in the core's glossary",
        "add the row each line names",
        [missing_row_message(*m) for m in UNDOCUMENTED],
    )


def test_a_parameter_missing_from_the_glossary_is_a_clear_warning_not_an_import_error():
    import warnings

    from hetdp_core.framework import _doc

    def shiny(*, wobble: float) -> float:
        """A function whose parameter nobody described."""
        return wobble

    namespace = {"__name__": "hetdp_core.probe", "__all__": ["shiny"], "shiny": shiny}
    shiny.__module__ = "hetdp_core.probe"
    before = list(_doc.UNDOCUMENTED)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _doc.document(namespace)
        assert [str(w.message) for w in caught] == [_doc.missing_row_message("probe", "shiny", "wobble")]
        assert "add a row 'wobble | <numpydoc type> | <what it is>'" in str(caught[0].message)
        assert "\nParameters\n----------\nwobble : float" in shiny.__doc__
    finally:
        _doc.UNDOCUMENTED[:] = before


def test_the_cores_map_names_every_public_module_and_only_those():
    """The core's map is what a maintainer starts from: hetdp_core's docstring names every room (subpackage),
    and each room's docstring names every public module in it (no leading underscore) and no module that is
    gone; no module is left loose beside the rooms."""
    import importlib
    import pkgutil
    import re

    import hetdp_core

    top = {m.name: m.ispkg for m in pkgutil.iter_modules(hetdp_core.__path__) if not m.name.startswith("_")}
    loose = sorted(n for n, ispkg in top.items() if not ispkg)
    named = set(re.findall(r":mod:`~?(hetdp_core\.[a-z]\w*)`", hetdp_core.__doc__))
    rooms = {f"hetdp_core.{n}" for n in top}
    wrong = [
        f"not listed in hetdp_core/__init__.py: {sorted(rooms - named)}",
        f"listed but gone: {sorted(named - rooms)}",
    ]
    for room in sorted(rooms - {"hetdp_core.scenarios"}):
        package = importlib.import_module(room)
        public = {f"{room}.{m.name}" for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")}
        listed = set(re.findall(rf":mod:`~?({re.escape(room)}\.\w+)`", package.__doc__ or ""))
        if public != listed:
            wrong.append(f"{room}: not listed {sorted(public - listed)}, listed but gone {sorted(listed - public)}")
    assert not loose and rooms == named and len(wrong) == 2, broken(
        "hetdp_core/__init__.py's docstring lists every room of the core, and each room's __init__ every public "
        "module in it; every module lives in a room",
        "move a loose module into the room of its concern; add a new module to its room's docstring (or remove "
        "the one that moved)",
        [f"loose modules: {loose}", *wrong],
    )


def test_a_rooms_init_imports_nothing():
    """A room's ``__init__`` is its map and nothing else: importing one module of a room loads only what that
    module imports, so the circle check above (module to module) sees every import that runs."""
    bad = []
    for init in sorted((ROOT / "hetdp_core").glob("*/__init__.py")):
        if init.parent.name == "scenarios":  # the page modules' package: finds them by name (registry)
            continue
        tree = ast.parse(init.read_text())
        if any(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(tree)):
            bad.append(str(init.relative_to(ROOT)))
    assert not bad, broken(
        "a room's __init__.py holds its docstring (the map of its modules) and imports nothing",
        "import from the module itself (from hetdp_core.<room>.<module> import name)",
        bad,
    )


def test_no_button_is_read_as_a_value():
    """No click is lost (issue 51): Streamlit gives a click to one script run, and a rerun that stops that
    run (a slider moved meanwhile) takes it away, so ``if st.button(...): act()`` loses clicks. Every
    button in pages/ and hetdp_ui/ passes ``on_click`` and its value is not used (a statement of its own);
    a button that acts goes through :func:`hetdp_ui.actions.button` (its intent stays until acted on)."""
    bad = []
    for path in [*(ROOT / "pages").rglob("*.py"), *(ROOT / "hetdp_ui").rglob("*.py"), ROOT / "app.py"]:
        tree = ast.parse(path.read_text())
        statements = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("button", "form_submit_button")
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "actions")
            ):
                continue
            if id(node) not in statements or not any(k.arg == "on_click" for k in node.keywords):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, f"a button read as a value or without on_click (use hetdp_ui.actions.button): {bad}"
