"""One scenario and one run per page. ``get(PAGE)`` returns the page's module, which defines
``SCENARIO`` (the scenario class), ``run(scenario, *, executor=None, progress=None) -> Result`` and
``PRESETS`` (name → scenario). PAGE is the page's URL path (e.g. ``Feature_privacy``); any case and
``-`` for ``_`` are accepted."""

from __future__ import annotations

import importlib

from ..scenario import InputError

#: page URL path → module name (the page files are pages/<n>_<URL path>.py)
PAGES = {
    "Feature_privacy": "feature_privacy",
    "BCDP_guarantee_lab": "bcdp_guarantee_lab",
    "Private_regression": "private_regression",
    "Per_user_privacy": "per_user_privacy",
    "Groupwise_zCDP": "groupwise_zcdp",
    "Mechanism_lab": "mechanism_lab",
    "DP_SGD_schedules": "dp_sgd_schedules",
}


def page_name(page: str) -> str:
    """The canonical page name for ``page`` (case-insensitive, ``-`` = ``_``, a URL path's slashes
    ignored)."""
    key = str(page).strip().strip("/").split("/")[-1].replace("-", "_").lower()
    for name in PAGES:
        if name.lower() == key:
            return name
    raise InputError(f"PAGE must be one of {', '.join(PAGES)} (any case); got {page!r}.")


def get(page: str):
    return importlib.import_module(f".{PAGES[page_name(page)]}", __name__)


__all__ = ["PAGES", "page_name", "get"]
