"""The registry of the app's pages: one declaration per page, from which everything else derives.

A page is a scenario module (``hetdp_core/scenarios/<slug>.py``) that satisfies :class:`ScenarioPage`:
its scenario class, its one ``run``, its presets and its question in plain words, and one
:class:`PageSpec` — URL path, title, icon, a one-line summary, whether it accepts an upload, which
accuracy solver it offers, its report's key tables — plus one folder ``pages/<slug>/`` with what the
page shows (``page.py``, ``figures.py``, ``guide.md``; see :mod:`hetdp_ui.folders`). Navigation, the
home page, ``hetdp run``/``report``/``solve``, the documentation, the load benchmark and the tests
read this registry; none of them keeps its own list of pages.

Adding a page = its scenario module + its folder; docs/contributing.md walks through it and
tests/test_contributing.py follows that walk-through.
Modules in the package :data:`PAGE_PACKAGE` are found by :func:`discover`, which imports them by name,
as a host finds its plugins: the registry depends on no page (the pages import it for :class:`PageSpec`);
:func:`register` adds a module from elsewhere (a plugin, or a test).
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any, Protocol, runtime_checkable

from ..materials.sources import Source
from ._doc import document
from ._validate import InputError

__all__ = [
    "PageName",
    "PageSpec",
    "ScenarioPage",
    "HOOKS",
    "hook",
    "register",
    "pages",
    "specs",
    "get",
    "page_name",
    "cited_sources",
]


class PageName:
    """A page's names from its URL path ``url``: :attr:`slug` (its folder, module and docs topic) and
    :attr:`file` (its script)."""

    url: str

    @property
    def slug(self) -> str:
        """The page's one name: its URL path in lower case (``my_page``)."""
        return self.url.lower()

    @property
    def file(self) -> str:
        """Its page script relative to the app root: ``pages/<slug>/page.py``."""
        return f"pages/{self.slug}/page.py"


@dataclass(frozen=True)
class PageSpec(PageName):
    """Everything the app needs to know about one page, declared once in its scenario module.

    ``url`` the URL path (``My_page``; ``hetdp run`` accepts any case and ``-``);
    ``title`` the menu and report title; ``icon`` a Material icon name (``:material/tune:``);
    ``summary`` its question in one or two plain sentences (home page; the page itself and its
    report show the module's longer ``QUESTION``); ``order`` its place in the menu; ``upload`` whether its
    run accepts an uploaded CSV; ``solver`` its accuracy solver as ``"module:function"`` (None: none) — a
    function ``(scenario, *, target, …)`` whose other keywords are among ``metric``, ``statistic``,
    ``algorithm``, returning an answer with ``text(link)``, ``as_json(link)``, ``link_query(scenario)``
    (the view that shows it) and ``meets_target``;
    ``fast_query`` a cheap query of the page, used by the load tool and the tests;
    ``example_query`` a non-default view (small enough for the test suite) that exercises the
    page's options, used by the page ↔ CLI agreement test; ``key_tables`` the tables a report shows
    as the key results; ``risk_field`` the scenario field that
    "solve from a target risk" sets (None: the page has no single privacy setting) and ``risk_kind``
    what it is ("eps": an ε-DP level; "zcdp": the ρ of ρ-zCDP Gaussian noise); ``text_view`` the query
    of a view that shows the page's text inputs (typed lists), which the fuzz test types malformed
    text into (None: the page has no text input in any view); ``sources`` the works the page is built
    on, each a :class:`~hetdp_core.materials.sources.Source` (a citation :mod:`hetdp_core.materials.sources` holds
    for several pages, or the page's own, declared in its module); the README's, the documentation's and the home
    page's lists of sources are made from them (:func:`cited_sources`).

    Its one name is :attr:`slug`, the URL path in lower case: the scenario module
    ``hetdp_core/scenarios/<slug>.py``, the page's folder ``pages/<slug>/`` (``page.py``, ``figures.py``,
    ``guide.md``: :mod:`hetdp_ui.folders`), its documentation topic, the prefix of its widgets' session
    keys (``my_page_eps``) and ``hetdp run <slug>``."""

    url: str
    title: str
    icon: str
    summary: str
    order: int
    upload: bool = False
    solver: str | None = None
    fast_query: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    example_query: str = ""
    key_tables: tuple[str, ...] = ()
    risk_field: str | None = None
    risk_kind: str = "eps"
    text_view: Mapping[str, str] | None = None
    sources: tuple[Source, ...] = ()

    def __post_init__(self):
        if not self.url.isidentifier():
            raise InputError(f"PageSpec.url must be an identifier-like URL path; got {self.url!r}.")
        object.__setattr__(self, "fast_query", MappingProxyType(dict(self.fast_query)))
        if self.text_view is not None:
            object.__setattr__(self, "text_view", MappingProxyType(dict(self.text_view)))
        if self.risk_kind not in ("eps", "zcdp"):
            raise InputError(f"PageSpec.risk_kind must be 'eps' or 'zcdp'; got {self.risk_kind!r}.")
        object.__setattr__(self, "sources", tuple(self.sources))
        bad = [repr(s) for s in self.sources if not isinstance(s, Source)]
        if bad:
            raise InputError(
                f"PageSpec.sources must hold Source objects (hetdp_core.materials.sources.Source: authors, title, "
                f"venue, arXiv id); got {bad[0]}. Use a citation of hetdp_core.materials.sources or declare the page's "
                f"own Source."
            )


@runtime_checkable
class ScenarioPage(Protocol):
    """What a page's scenario module provides; its optional parts are declared in :data:`HOOKS`."""

    PAGE_SPEC: PageSpec
    SCENARIO: type
    PRESETS: Mapping[str, Any]
    QUESTION: str
    run: Callable[..., Any]
    summarize: Callable[[Any], tuple[str, ...]]


#: the optional parts of a page's scenario module, declared here and read through :func:`hook` (a name not
#: declared here is an error, so no module looks for a part nobody declared)
HOOKS: Mapping[str, str] = MappingProxyType(
    {
        "levels": "levels(result) -> list[Level]: the privacy levels the page states, read by the meaning "
        "panel, the report and the placements among real deployments (none: the page states no level)",
        "key_numbers": "key_numbers(result) -> dict[str, float]: the numbers plan A vs plan B compares "
        "(none: every finite cell of the spec's key tables)",
        "paper_preset": "paper_preset(key, *, variant, trials, …) -> scenario: a paper figure's setup at its "
        "full size, as published or corrected, for reproductions and the benchmarks (none: no paper figure)",
        "quick": "quick(scenario, *, options) -> result: the cheap part of the run (the guarantee checks, the "
        "analytic curves, every input check; where the analytic part is the costly one, as on Group-wise zCDP, "
        "the few simulated releases instead), the other fields PENDING "
        "(hetdp_core.framework.scenario.partial_result); the run builds on it and the app shows it first (none: the "
        "page shows its whole run at once)",
        "quick_cost": "quick_cost(scenario) -> Cost: what the quick part costs when it is not negligible; the app "
        "computes a quick part first only when it is small enough to run in its own process, else the view's "
        "whole run goes through the limits at once (none: the quick part is analytic and cheap)",
    }
)


def hook(module: ModuleType, name: str) -> Callable | None:
    """The page module's optional part ``name`` (one of :data:`HOOKS`), or None when it has none."""
    if name not in HOOKS:
        raise KeyError(f"{name!r} is not a declared page hook; the hooks are {', '.join(HOOKS)}")
    return getattr(module, name, None)


#: the package whose modules are the app's pages (each one a :class:`ScenarioPage`)
PAGE_PACKAGE = "hetdp_core.scenarios"

_LOCK = threading.Lock()
_PAGES: dict[str, ModuleType] = {}
_DISCOVERED = False


def register(module: ModuleType) -> PageSpec:
    """Add a page; its module must satisfy :class:`ScenarioPage`, its URL path and key prefix must be
    new. Returns its spec."""
    if not isinstance(module, ScenarioPage):
        missing = [
            n for n in ("PAGE_SPEC", "SCENARIO", "PRESETS", "QUESTION", "run", "summarize") if not hasattr(module, n)
        ]
        raise InputError(
            f"page module {module.__name__} lacks {', '.join(missing)} (see hetdp_core.framework.registry)."
        )
    bad = [n for n in HOOKS if hasattr(module, n) and not callable(getattr(module, n))]
    if bad:
        raise InputError(f"page module {module.__name__}: {', '.join(bad)} must be a function ({HOOKS[bad[0]]}).")
    spec = module.PAGE_SPEC
    with _LOCK:
        for other in _PAGES.values():
            if other is not module and other.PAGE_SPEC.slug == spec.slug:
                raise InputError(f"page {spec.url}: its name {spec.slug!r} is already used by {other.PAGE_SPEC.url}.")
        _PAGES[spec.url] = module
    return spec


def unregister(url: str) -> None:
    """Remove a page added by :func:`register` (tests)."""
    with _LOCK:
        _PAGES.pop(url, None)


def discover() -> None:
    """Register every module of the :data:`PAGE_PACKAGE` package whose name has no leading underscore (once)."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    package = importlib.import_module(PAGE_PACKAGE)
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            register(importlib.import_module(f"{PAGE_PACKAGE}.{info.name}"))
    _DISCOVERED = True


def pages() -> dict[str, ModuleType]:
    """URL path → scenario module, in menu order."""
    discover()
    with _LOCK:
        items = list(_PAGES.items())
    return dict(sorted(items, key=lambda kv: (kv[1].PAGE_SPEC.order, kv[0])))


def specs() -> list[PageSpec]:
    """Every page's spec, in menu order."""
    return [m.PAGE_SPEC for m in pages().values()]


def page_name(page: str) -> str:
    """The canonical URL path for ``page`` (case-insensitive, ``-`` = ``_``, a URL's slashes ignored)."""
    key = str(page).strip().strip("/").split("/")[-1].replace("-", "_").lower()
    names = list(pages())
    for name in names:
        if name.lower() == key:
            return name
    raise InputError(f"PAGE must be one of {', '.join(names)} (any case); got {page!r}.")


def get(page: str) -> ModuleType:
    """The scenario module of ``page``."""
    return pages()[page_name(page)]


def cited_sources() -> list[tuple[Source, tuple[str, ...]]]:
    """Every work a page names (``PageSpec.sources``), once, with the titles of the pages built on it: in
    menu order of the first page that names it. The app's home page and the README's and the
    documentation's lists of sources are made from it."""
    out: dict[Source, list[str]] = {}
    for s in specs():
        for src in s.sources:
            out.setdefault(src, []).append(s.title)
    return [(src, tuple(titles)) for src, titles in out.items()]


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
