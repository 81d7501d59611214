"""Old public names that keep working with a :class:`DeprecationWarning`.

A public name of the core (one in a module's ``__all__`` or in the documentation) that moves or is renamed
stays importable from where users' notebooks import it: the old module declares
``__getattr__ = moved(__name__, {"old_name": "hetdp_core.module:new_name"})``, and reading the old name
warns once per place, naming the new one, and returns the very object the new name holds. Every table is
kept in :data:`MOVED` (tests import each old name and check the warning and the object).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

#: module → {old name → "module:new name"}, filled by :func:`moved`
MOVED: dict[str, dict[str, str]] = {}


def moved(module: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``module`` (PEP 562) that resolves its old names ``table`` (old → "module:new")."""
    MOVED[module] = dict(table)

    def __getattr__(name: str) -> Any:
        target = MOVED[module].get(name)
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, new = target.split(":")
        warnings.warn(
            f"{module}.{name} is deprecated: use {where}.{new}, the same object (the old name will be removed).",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(where), new)

    return __getattr__
