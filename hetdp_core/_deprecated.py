"""Old public paths that keep working with a :class:`DeprecationWarning`: moved modules and moved names.

* **A moved module** (the core's flat modules moved into its rooms, issue 54): ``import hetdp_core.zcdp``,
  ``from hetdp_core.hetero import hpm_weights`` and ``from hetdp_core import meaning`` still work. The old
  dotted name is mapped, in :data:`MOVED_MODULES` (the one table), to the module's new home; a finder on
  ``sys.meta_path`` (installed by ``hetdp_core/__init__.py``) answers the old name with the *very same*
  module object, so ``hetdp_core.zcdp.rho_of is hetdp_core.per_group.zcdp.rho_of``, and warns once (the
  first import in a process) naming the new path.
* **A moved name inside a module**: the old module declares
  ``__getattr__ = moved(__name__, {"old_name": "hetdp_core.room.module:new_name"})``, and reading the old name
  warns once per place, naming the new one, and returns the very object the new name holds. Every table is
  kept in :data:`MOVED`.

Tests import each old path and name and check the warning and the object (tests/test_old_paths.py).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any

#: module → {old name → "module:new name"}, filled by :func:`moved`
MOVED: dict[str, dict[str, str]] = {}

_ROOMS = {
    "framework": "registry scenario constraints checks commands _validate _doc memo",
    "per_feature": "bcdp bcdp_exact bcdp_sim mmean duchi regression",
    "per_user": "hetero",
    "per_group": "zcdp",
    "per_iteration": "dpsgd",
    "noise": "mechanisms profiles gdp rr dptest",
    "accountants": "accounting pld plan ledger",
    "reading": "meaning risk deployments solve compare words _rounding",
    "teaching": "lessons lesson_keys lesson_claims lesson_variants poll",
    "materials": "sources datasets uploads",
}
#: old module path → its new home (the core's flat modules, moved into rooms by concern)
MOVED_MODULES: dict[str, str] = {
    f"hetdp_core.{module}": f"hetdp_core.{room}.{module}"
    for room, modules in _ROOMS.items()
    for module in modules.split()
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers an old module path of :data:`MOVED_MODULES` with the module at its new home."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        new = MOVED_MODULES[spec.name]
        warnings.warn(
            f"{spec.name} is deprecated: import {new}, the same module (the old path will be removed).",
            DeprecationWarning,
            stacklevel=2,  # the import system's own frames are skipped: the warning names the importing line
        )
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__  # the import system then sets the alias's spec on it: put its own back
        return module

    def exec_module(self, module):
        module.__spec__ = module.__spec__.loader_state


def install() -> None:
    """Put the finder of old module paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())


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
