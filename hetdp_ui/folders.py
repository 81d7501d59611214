"""A page's folder: everything a page shows lives in ``pages/<slug>/`` next to ``app.py``.

::

    pages/<slug>/page.py      widgets and layout (the script Streamlit runs)
    pages/<slug>/figures.py   its figures: FIGURES, one list that the page and its report both draw from
    pages/<slug>/guide.md     its documentation (the app's Documentation page and the documentation site)
    pages/<slug>/page.toml    a page that is not a scenario (lessons, the ledger, the class, the docs):
                              its menu entry — url, title, icon, summary, order (:func:`tool_pages`) —
                              and the role it plays for other pages' links, if any (:func:`page_for`)
    pages/<slug>/cli.py       optional: the page's own ``hetdp`` verbs beyond ``hetdp run`` (an older
                              verb kept as an alias, a paper's reproduction): ``register(sub, groups)``
                              (:func:`cli_modules`)
    pages/<slug>/start.toml   optional: the page's first steps on the home page ("New here? Start with…"):
                              ``[[start]]`` tables — order, who, what, label, query (:func:`first_steps`)
    pages/<slug>/<other>.py   optional: more Streamlit-free parts of the page, loaded by
                              :func:`folder_module` (the release ledger's downloads.py: its report,
                              notebook and decision package)

``<slug>`` is the page's one name: its URL path in lower case and, for a scenario page, its scenario module
``hetdp_core/scenarios/<slug>.py`` (:attr:`hetdp_core.framework.registry.PageSpec.slug`). This module finds a
scenario page's folder from the registry and the other pages by their ``page.toml``; it keeps no list of
pages. A figures module is Streamlit-free (plotly builders only), so the
report, the notebook and the CLI load it without a server; it is loaded from its file, the same way in a
checkout and in an install (where the app ships as the package ``hetdp_app``).
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from hetdp_core.framework.registry import PageName

if TYPE_CHECKING:  # a type only: `hetdp app` and the Documentation page find folders without plotly
    import plotly.graph_objects as go

__all__ = [
    "PageFigure",
    "ToolPage",
    "tool_pages",
    "ROLES",
    "DOCUMENTATION",
    "LESSON_LIST",
    "LIVE_CLASS",
    "page_for",
    "figures_of",
    "installed_app",
    "app_root",
    "folder",
    "page_file",
    "guide_file",
    "figures_module",
    "folder_module",
    "cli_modules",
    "FirstStep",
    "first_steps",
    "figures",
    "figure",
]


@dataclass(frozen=True)
class PageFigure:
    """One figure of a page, declared once in its ``figures.py`` and drawn by the page
    (``page.chart(name)``) and by the report (every figure, in order).

    ``name`` the figure's name (its chart key on the page is ``<slug>_<name>``); ``title`` what the
    report heads it with, or a function of the scenario and the result returning it;
    ``build(scenario, result, **opts)`` the figure — the report calls it with no options, a page may pass
    its widgets' options (a plan A to overlay, what to draw); ``shown(scenario, result)`` whether the
    view has this figure at all (None: always)."""

    name: str
    title: str | Callable[[Any, Any], str]
    build: Callable[..., go.Figure]
    shown: Callable[[Any, Any], bool] | None = None

    def title_for(self, scenario, result) -> str:
        return self.title(scenario, result) if callable(self.title) else self.title

    def applies(self, scenario, result) -> bool:
        return self.shown is None or bool(self.shown(scenario, result))


def _is_app(d: Path) -> bool:
    return (d / "app.py").is_file() and (d / "pages").is_dir()


def installed_app() -> Path | None:
    """The dashboard shipped in an install (package ``hetdp_app``: app.py, the pages, the docs), or None."""
    spec = importlib.util.find_spec("hetdp_app")
    return next((d for d in map(Path, (spec.submodule_search_locations or []) if spec else []) if _is_app(d)), None)


def app_root() -> Path:
    """The folder holding ``app.py`` and ``pages/``: the checkout this package sits in, else the
    installed app (:func:`installed_app`)."""
    here = Path(__file__).resolve().parents[1]
    return here if _is_app(here) else installed_app() or here


def _slug(page) -> str:
    from hetdp_core.framework.registry import get

    return (page if not isinstance(page, str) else get(page)).PAGE_SPEC.slug


def folder(page) -> Path:
    """``pages/<slug>/`` of a page (its URL path in any case, or its scenario module)."""
    return app_root() / "pages" / _slug(page)


def page_file(page) -> Path:
    """The script Streamlit runs for the page."""
    return folder(page) / "page.py"


def guide_file(page) -> Path:
    """The page's documentation."""
    return folder(page) / "guide.md"


#: re-entrant: a folder module may load another of its folder (the ledger's downloads.py loads its figures.py)
_LOCK = threading.RLock()


def _folder_module(slug: str, stem: str = "figures") -> ModuleType | None:
    """``pages/<slug>/<stem>.py`` loaded from its file as ``hetdp_pages.<slug>.<stem>`` (once), or None."""
    path = app_root() / "pages" / slug / f"{stem}.py"
    name = f"hetdp_pages.{slug}.{stem}"
    with _LOCK:
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None) == str(path):
            return mod
        if not path.is_file():
            return None
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return mod


def folder_module(slug: str, stem: str) -> ModuleType:
    """The module ``pages/<slug>/<stem>.py`` of the folder ``pages/<slug>/`` by the folder's name (a tool
    page's figures, its downloads), loaded from its file once — the same way in a checkout and in an
    install."""
    mod = _folder_module(slug, stem)
    if mod is None:
        raise FileNotFoundError(f"pages/{slug}/{stem}.py not found under {app_root()}")
    return mod


def figures_of(slug: str) -> ModuleType:
    """The ``figures.py`` of the folder ``pages/<slug>/`` by the folder's name (a tool page's, whose figures
    are functions its page, report and notebook call), loaded from its file."""
    return folder_module(slug, "figures")


#: the roles a page that is not a scenario can play for the rest of the app, each declared by the one page
#: playing it (``role`` in its ``page.toml``): links go to the page of a role (:func:`page_for`), so that no
#: other file names that page
DOCUMENTATION = "documentation"  # opens a documentation topic: ?topic=<name>
LESSON_LIST = "lesson list"  # where a finished lesson returns to
LIVE_CLASS = "live class"  # a class session: ?code=… (student), &key=… (instructor), ?teach=<lesson id>
ROLES = (DOCUMENTATION, LESSON_LIST, LIVE_CLASS)


@dataclass(frozen=True)
class ToolPage(PageName):
    """A page that is not a scenario (lessons, the release ledger, the class, the documentation), declared by
    its folder's ``page.toml``: ``url`` its URL path, ``title`` and ``icon`` its menu entry, ``summary`` its
    line on the home page, ``order`` its place among these pages, ``role`` what it does for the rest of the
    app (one of :data:`ROLES`, or None)."""

    url: str
    title: str
    icon: str
    summary: str
    order: int
    role: str | None = None

    @property
    def guide(self) -> Path | None:
        """Its documentation (``guide.md`` in its folder), or None."""
        path = app_root() / "pages" / self.slug / "guide.md"
        return path if path.is_file() else None


def tool_pages() -> tuple[ToolPage, ...]:
    """Every page that is not a scenario, found by its ``pages/<slug>/page.toml``, in menu order (read once
    per process: the menu, every documentation link and every page link ask for them on each rerun)."""
    return _tool_pages(app_root() / "pages")


@functools.cache
def _tool_pages(pages: Path) -> tuple[ToolPage, ...]:
    import tomllib

    found, roles = [], {}
    for path in sorted(pages.glob("*/page.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        page = ToolPage(**{k: data[k] for k in ("url", "title", "icon", "summary", "order")}, role=data.get("role"))
        if page.slug != path.parent.name:
            raise ValueError(f"{path}: url {page.url!r} must be the folder's name {path.parent.name!r} in any case")
        if page.role is not None and page.role not in ROLES:
            raise ValueError(f"{path}: role {page.role!r} is not one of {', '.join(map(repr, ROLES))}")
        if page.role in roles:
            raise ValueError(f"{path}: role {page.role!r} is already {roles[page.role]}'s; one page per role")
        roles[page.role] = page.url
        found.append(page)
    return tuple(sorted(found, key=lambda p: (p.order, p.url)))


def page_for(role: str) -> ToolPage:
    """The page that plays ``role`` (one of :data:`ROLES`), as its ``page.toml`` declares: a link to the
    documentation, back to the lesson list or into a class goes to ``page_for(role).url``."""
    return _page_for(app_root() / "pages", role)


def _page_for(pages: Path, role: str) -> ToolPage:
    for page in _tool_pages(pages):
        if page.role == role:
            return page
    raise LookupError(f"no page plays the role {role!r}: one page's page.toml must say role = {role!r}")


def cli_modules() -> tuple[ModuleType, ...]:
    """Every page folder's ``cli.py`` (its own ``hetdp`` verbs), in folder order. Each module has
    ``register(sub, groups)``: ``sub`` the ``hetdp`` subcommands, ``groups`` the generated command groups
    by verb (``hetdp sgd …``), so that a page can add a command to a group as well as a verb of its own.
    It imports nothing heavy at module level: ``hetdp --help`` loads every one."""
    return tuple(_folder_module(path.parent.name, "cli") for path in sorted((app_root() / "pages").glob("*/cli.py")))


@dataclass(frozen=True)
class FirstStep:
    """One kind of user's first step, declared by a page in its folder's ``start.toml``: ``who`` the kind of
    user, ``what`` what they get, ``page`` the URL path it opens (the folder's page), ``label`` the link,
    ``query`` its query string (a scenario page's ``preset`` is completed with the preset's values by
    :func:`hetdp_ui.nav.start_links`), ``order`` its place on the home page."""

    order: int
    who: str
    what: str
    page: str
    label: str
    query: dict[str, str]


def first_steps() -> tuple[FirstStep, ...]:
    """Every page's first steps (``pages/<slug>/start.toml``), in their declared order."""
    return _first_steps(app_root() / "pages")


@functools.cache
def _first_steps(pages: Path) -> tuple[FirstStep, ...]:
    import tomllib

    from hetdp_core.framework.registry import specs

    urls = {s.slug: s.url for s in specs()} | {t.slug: t.url for t in _tool_pages(pages)}
    found = []
    for path in sorted(pages.glob("*/start.toml")):
        if path.parent.name not in urls:
            raise ValueError(f"{path}: the folder {path.parent.name!r} is not a page (no scenario, no page.toml)")
        for entry in tomllib.loads(path.read_text(encoding="utf-8"))["start"]:
            query = {str(k): str(v) for k, v in entry.get("query", {}).items()}
            fields = {k: entry[k] for k in ("order", "who", "what", "label")}
            found.append(FirstStep(**fields, page=urls[path.parent.name], query=query))
    return tuple(sorted(found, key=lambda f: (f.order, f.page)))


def figures_module(page) -> ModuleType | None:
    """The page's ``figures.py``, loaded from its folder (None when it has none)."""
    return _folder_module(_slug(page))


def figures(page) -> tuple[PageFigure, ...]:
    """The page's figures in the order its report shows them (none when its folder has no figures.py)."""
    mod = figures_module(page)
    if mod is None:
        return ()
    found = tuple(getattr(mod, "FIGURES", ()))
    if not all(isinstance(f, PageFigure) for f in found):
        raise TypeError(f"{mod.__file__}: FIGURES must be a sequence of hetdp_ui.folders.PageFigure")
    return found


def figure(page, name: str) -> PageFigure:
    """One of the page's figures, by name."""
    found = {f.name: f for f in figures(page)}
    if name not in found:
        raise KeyError(f"page {_slug(page)} has no figure {name!r}; its figures are {', '.join(found)}")
    return found[name]
