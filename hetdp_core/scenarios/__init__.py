"""One scenario and one run per page: each module of this package is a page (see
:mod:`hetdp_core.framework.registry`) defining ``PAGE_SPEC``, ``SCENARIO`` (the scenario class),
``run(scenario, *, options=None) -> Result`` (how it runs: :class:`~hetdp_core.framework.scenario.RunOptions`)
and ``PRESETS`` (name → scenario).
``get(PAGE)`` returns a page's module; PAGE is its URL path (e.g. ``My_page``), any case,
``-`` for ``_``."""

from __future__ import annotations

from ..framework.registry import get, page_name, pages, specs

__all__ = ["get", "page_name", "pages", "specs"]
