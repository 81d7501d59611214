"""``python -m hetdp_ui.launch run app.py [options]``: Streamlit's own command line, after a warm-up.

A Streamlit server imports a page's modules at the page's first view, under the import lock, while
that view's visitors wait; on a server that has just started, a crowd arriving together waits for all
of it (plotly's lazily loaded parts, pandas, every page's scenario and figure modules) before the
first script run can even start its computation. This launcher does that work before the server
opens its port, in the server's own process: it imports every module that ``app.py`` and the pages
import at their top level and those the core imports inside its functions (read from their source with
:mod:`ast`, not listed by hand, so a new page or import is warmed without an edit here), builds one themed
plotly figure and serialises it (the validators and template plotly loads on first use), and starts the
run children's fork server (:func:`hetdp_ui.limits.start_fork_server_soon`) once the server's store of
shared sub-results is installed (:func:`hetdp_ui.runcache.install_shared_memo`: the children find it in
the environment they inherit from the fork server). Then it hands over to ``streamlit.web.cli.main``
with the same arguments, so settings, config file and behaviour are exactly those of
``streamlit run``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def page_imports(root: Path = ROOT) -> list[str]:
    """Modules that ``root/app.py`` and the pages' Python files (``root/pages/*.py``, and ``page.py`` and
    ``figures.py`` in each page's folder) import at their top level, in first-seen order;
    ``from package import name`` contributes ``package.name`` when that is a module."""
    found: dict[str, None] = {}
    scripts = [root / "app.py", *sorted((root / "pages").glob("*.py")), *sorted((root / "pages").glob("*/*.py"))]
    for path in (p for p in scripts if p.is_file()):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                found.update(dict.fromkeys(alias.name for alias in node.names))
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found[node.module] = None
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    try:
                        is_module = importlib.util.find_spec(sub) is not None
                    except (ImportError, ValueError):
                        is_module = False
                    if is_module:
                        found[sub] = None
    return list(found)


def core_imports(package: str = "hetdp_core") -> list[str]:
    """Modules the core imports inside its functions (cvxpy for a translator, dp-accounting for the
    ledger, scipy's optimisers …), read from its source: a page's run executes in the server's process
    when it is small (:func:`hetdp_ui.limits.in_process`), so its first view would import them while its
    visitor waits. Only installed modules are listed (an optional extra, e.g. dask, is left out)."""
    spec = importlib.util.find_spec(package)
    base = Path(spec.submodule_search_locations[0])
    found: dict[str, None] = {}
    for path in sorted(base.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                else:
                    names = []
                for name in names:
                    if name.split(".")[0] != package:
                        found[name] = None
    installed = []
    for name in found:
        try:  # a module (a name imported from one, e.g. a function, is not)
            if importlib.util.find_spec(name.split(".")[0]) is not None and importlib.util.find_spec(name):
                installed.append(name)
        except (ImportError, ValueError):
            continue
    return installed


def warm_up(root: Path = ROOT) -> list[str]:
    """Import what the pages under ``root`` import, load plotly's lazily loaded parts and start the fork
    server; return the modules imported. A module that fails to import is reported on stderr and left
    for its page to report at its view (one broken page must not keep the others from being served)."""
    from hetdp_ui.limits import start_fork_server_soon
    from hetdp_ui.runcache import install_shared_memo

    # the server's store of shared sub-results first: it is exported in the environment, which the run
    # children inherit from the fork server as it is when the fork server starts (hetdp_ui.common
    # installs it only when imported under a running server, which this process is not yet)
    install_shared_memo(create=True)
    start_fork_server_soon()  # its own process imports the numerical stack meanwhile
    modules = []
    for name in page_imports(root) + core_imports():
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - reported, and the page reports it again when viewed
            print(f"hetdp launch: warm-up could not import {name}: {exc!r}", file=sys.stderr, flush=True)
        else:
            modules.append(name)
    # one figure the way the pages draw theirs: built as plotly's dictionary, finished, written as the
    # chart's JSON and said in words (the first visitor pays none of these imports and first calls)
    from hetdp_ui.figcache import figure_json, summary_text
    from hetdp_ui.figdict import Fig
    from hetdp_ui.theme import finish, styled

    built = Fig().add_scatter(x=[0.0, 1.0], y=[0.0, 1.0], mode="lines", name="warm-up")
    fig = finish(styled(built, x="x", y="y").figure())
    figure_json(fig)
    summary_text(fig)
    from hetdp_ui.folders import figures
    from hetdp_ui.nav import scenario_entries

    for _, _, url, _, _ in scenario_entries():  # the registry: every page's scenario module, and its folder's figures
        figures(url)
    return modules


def route_with_navigation_only() -> None:
    """Tell Streamlit, before the port opens, that ``app.py`` routes every page with ``st.navigation``.

    Streamlit treats a ``pages/`` folder next to the main script as an old-style pages directory (its
    top-level ``*.py`` files are the pages) until some session has run ``st.navigation``; it then
    ignores the folder for good (``PagesManager.uses_pages_directory``, set to False by
    ``st.navigation``). A scenario page lives in a folder (``pages/<slug>/page.py``), which the
    old-style lookup does not see, so a deep link opened first after a start would be "page not
    found". Setting the flag the way ``st.navigation`` does makes the first visitor's deep link route
    like every later one (tests/test_serving.py opens every page first on fresh servers)."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


def main(argv: list[str] | None = None) -> int:
    """Warm up, then run Streamlit's command line with ``argv`` (default: this process's arguments)."""
    args = sys.argv[1:] if argv is None else argv
    # ``run <script>``: the pages are next to the script (a checkout's app.py, or an install's hetdp_app)
    root = Path(args[1]).resolve().parent if len(args) > 1 and args[0] == "run" else ROOT
    warm_up(root)
    route_with_navigation_only()
    from streamlit.web import cli

    return cli.main.main(args=args, prog_name="streamlit", standalone_mode=True)


if __name__ == "__main__":
    sys.exit(main())
