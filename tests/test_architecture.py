"""The layers show in the tree: the core imports neither Streamlit, plotly nor the UI package; the
figure builders and the CLI are Streamlit-free; dependencies point pages/CLI → figures → core."""

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT, page_path

from hetdp_core.registry import pages


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
    *("state.py", "widgets.py", "execution.py", "panels.py", "exports.py", "page.py", "common.py"),
    *("nav.py", "lesson_panel.py", "class_panel.py", "launch.py"),
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
    hetdp_core._validate and hetdp_core.constraints."""
    bounds = {"lo", "hi", "lo_open", "hi_open", "allow_inf"}
    found = []
    for path in CORE:
        if path.name in ("_validate.py", "constraints.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check_"):
                if bounds & {k.arg for k in node.keywords}:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")
    assert not found, found


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_imports_no_ui(path):
    bad = imports(path) & {"streamlit", "plotly", "hetdp_ui"}
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


#: the page scripts: each page folder's page.py
PAGE_SCRIPTS = sorted((ROOT / "pages").glob("*/page.py"))
#: every other module of a page folder: its figures (Streamlit-free plotly builders, like hetdp_ui's), its
#: own CLI verbs, and any other part (the release ledger's downloads)
PAGE_FIGURES = sorted(p for p in (ROOT / "pages").glob("*/*.py") if p.name != "page.py")


@pytest.mark.parametrize("name", STREAMLIT_FREE_UI)
def test_figures_and_cli_are_streamlit_free(name):
    assert "streamlit" not in imports(ROOT / "hetdp_ui" / name)


@pytest.mark.parametrize("path", PAGE_FIGURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_folders_figures_are_streamlit_free(path):
    """A page's figures.py draws from a result with plotly and hetdp_ui's shared builders, never Streamlit;
    its cli.py (the page's own hetdp verbs) and any other module of the folder run without a server either."""
    assert "streamlit" not in imports(path)


def test_every_page_has_a_scenario_and_run():
    from hetdp_core.scenario import Result, Scenario
    from hetdp_core.scenarios import get, pages
    from hetdp_ui.folders import tool_pages

    assert not list((ROOT / "pages").glob("*.py"))  # every page is a folder
    folders = {p.name for p in (ROOT / "pages").iterdir() if p.is_dir() and p.name != "__pycache__"}
    tools = {t.slug for t in tool_pages()}  # lessons, release_ledger, class, docs: a page.toml each
    assert tools == {"lessons", "release_ledger", "class", "docs"}
    assert folders == {get(page).PAGE_SPEC.slug for page in pages()} | tools  # one folder per page
    assert all((ROOT / "pages" / slug / "page.py").is_file() for slug in folders)
    for page in pages():
        mod = get(page)
        assert issubclass(mod.SCENARIO, Scenario) and mod.SCENARIO.PAGE == page
        assert callable(mod.run) and isinstance(mod.PRESETS, dict)
        for preset in mod.PRESETS.values():  # presets are scenarios
            assert isinstance(preset, mod.SCENARIO)
            assert mod.SCENARIO.from_query(preset.to_query()) == preset  # the URL is the serialisation
        assert Result


def test_pages_catch_only_the_input_error_type():
    """A page never catches ValueError/TypeError/Exception broadly: a bug must fail a test."""
    for page in PAGE_SCRIPTS:
        text = page.read_text()
        for bad in ("except ValueError", "except (ValueError", "except TypeError", "except Exception", "except:"):
            assert bad not in text, f"{page.name}: {bad}"


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
        assert "plotly" not in imports(page), f"{page.relative_to(ROOT)} imports plotly"


def test_no_user_facing_text_points_outside_the_repository():
    """The team's references (../shared/SPEC.md, ../shared/papers/) are not in a copy of the
    repository: the app, CLI, core docstrings, README, docs and data cite sources by authors,
    title, venue and arXiv id instead (hetdp_core/sources.py)."""
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
    assert not hits, "\n".join(hits)


def test_sources_are_cited_with_authors_title_venue():
    from hetdp_core.sources import SOURCES

    readme = (ROOT / "README.md").read_text()
    for s in SOURCES:
        assert s.authors and s.title and s.venue
        assert s.title.split(":")[0] in readme.replace("\n  ", " ")
        if s.arxiv:
            assert re.fullmatch(r"\d{4}\.\d{4,5}", s.arxiv) and f"arXiv:{s.arxiv}" in readme


def test_pages_take_widget_bounds_from_the_scenario_spec():
    """One definition per input: range widgets are created through
    ScenarioState.slider/number (bounds from the field's Spec) or over a grid; a widget that is not
    a scenario field (e.g. the solver's target) takes its bounds from named core constants. No page
    passes literal numbers as bounds to st.slider/st.number_input."""

    def literal(n):
        return isinstance(n, ast.Constant) or (isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Constant))

    offenders = []
    for path in PAGE_SCRIPTS:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("slider", "number_input")
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "state")
            ):
                bounds = node.args[1:3] + [k.value for k in node.keywords if k.arg in ("min_value", "max_value")]
                if not bounds or any(literal(b) for b in bounds):
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, offenders


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
        assert (float(w.min), float(w.max)) == (float(sp.lo), float(sp.hi)), (name, w.min, w.max, sp.lo, sp.hi)
        checked += 1
    assert checked >= 2


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
    assert not missing, "\n".join(missing)


def test_importing_every_page_module_leaves_the_heavy_scipy_modules_for_later():
    """A server's menu imports every page's scenario module at its first view; scipy.stats, scipy.optimize
    and scipy.integrate (≈ 0.6 s together) are imported where they are used, in the run children (whose
    fork server preloads them) or at the first call, not with the modules."""
    import subprocess
    import sys

    probe = (
        "import sys; from hetdp_core.registry import pages; pages(); "
        "print(sorted(m for m in ('scipy.stats', 'scipy.optimize', 'scipy.integrate') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout


#: modules over 600 lines allowed: the numerics of one source each (a paper's or the course's mechanisms),
#: kept whole so that each reads next to its source
ONE_SOURCE_NUMERICS = {
    "hetdp_core/hetero.py": "Chaudhuri & Courtade, heterogeneous DP for means and frequencies",
    "hetdp_core/zcdp.py": "Azize, group-wise zCDP",
    "hetdp_core/mechanisms.py": "MAT 4376 lectures 17–20, the mechanisms",
}


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
    assert not missing, missing


def test_no_function_over_80_lines_and_no_file_over_600():
    """Size limits outside the tests: a function fits a screen and a half (80 lines, docstring
    included), a module 600 lines — except the numerics modules of one source each."""
    long_functions, long_files = [], []
    for path in _product_sources():
        text = path.read_text()
        rel = str(path.relative_to(ROOT))
        if len(text.splitlines()) > 600 and rel not in ONE_SOURCE_NUMERICS:
            long_files.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno - first + 1 > 80:
                    long_functions.append(f"{rel}:{node.lineno} {node.name}: {node.end_lineno - first + 1} lines")
    assert not long_functions and not long_files, "\n".join(long_functions + long_files)


def test_every_glossary_row_describes_a_parameter():
    """A ``module:name`` row of the core's glossary is read by some public function of that module (a
    row left behind when a function moves would describe nothing while its twin describes the moved one)."""
    import inspect

    from hetdp_core._doc import PARAMETERS

    used = set()
    for qualname, fn in _public_core_functions():
        module = qualname.removeprefix("hetdp_core.").rsplit(".", 1)[0]
        for p in inspect.signature(inspect.unwrap(fn)).parameters:
            used.add(next((k for k in (f"{module}.{fn.__name__}:{p}", f"{module}:{p}", p) if k in PARAMETERS), p))
    dead = sorted(k for k in PARAMETERS if ":" in k and k not in used)
    assert not dead, dead


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


def test_the_cores_map_names_every_public_module_and_only_those():
    """hetdp_core's docstring is the map a maintainer starts from: it names every public module (no leading
    underscore) and no module that is gone."""
    import pkgutil
    import re

    import hetdp_core

    public = {f"hetdp_core.{m.name}" for m in pkgutil.iter_modules(hetdp_core.__path__) if not m.name.startswith("_")}
    named = set(re.findall(r":mod:`~?(hetdp_core\.\w+)`", hetdp_core.__doc__))
    assert public == named, broken(
        "hetdp_core/__init__.py's docstring lists every public module of the core, by concern",
        "add the new module under its concern (or remove the one that moved)",
        [f"not listed: {sorted(public - named)}", f"listed but gone: {sorted(named - public)}"],
    )
