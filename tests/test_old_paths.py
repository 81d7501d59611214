"""Users' notebooks keep working: the core's old flat module paths (before the core moved into rooms, issue 54)
import, warn once naming the new path, and give the very module at the new home; and our own code uses none of
them — every module of the core, the UI and the pages imports with DeprecationWarning as an error."""

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from hetdp_core._deprecated import MOVED_MODULES


def test_the_table_names_every_flat_module_that_moved():
    assert len(MOVED_MODULES) == 41  # the 43 flat modules, less __init__ and _deprecated, which stayed
    for old, new in MOVED_MODULES.items():
        assert old.count(".") == 1 and new.count(".") == 2 and old.rsplit(".")[-1] == new.rsplit(".")[-1], (old, new)
        assert (ROOT / (new.replace(".", "/") + ".py")).is_file(), new
        assert not (ROOT / (old.replace(".", "/") + ".py")).exists(), f"{old}: a file at the old path shadows nothing"


#: one old path checked in the probe's interpreter: its first import there is the one that warns (no old
#: path is imported by another's check: the new modules import only new paths, the last test below)
_PROBE_ONE = """
new = importlib.import_module(NEW)
names = [n for n in getattr(new, "__all__", []) if not n.startswith("_")]
names = names or [n for n in vars(new) if not n.startswith("_")]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    exec(f"import {OLD} as old", ns := {})
    exec(f"from hetdp_core import {MODULE} as via_package", ns)
    exec(f"from {OLD} import {names[0]} as one", ns)
old, via_package, one = ns["old"], ns["via_package"], ns["one"]
assert [w.category for w in caught] == [DeprecationWarning], [str(w.message) for w in caught]
message = str(caught[0].message)
assert OLD in message and NEW in message, message
assert caught[0].filename == "<string>", caught[0].filename  # attributed to the importing code, not importlib's
assert old is new and via_package is new
assert all(getattr(old, n) is getattr(new, n) for n in names)
assert one is getattr(new, names[0])
assert new.__spec__.name == NEW and new.__name__ == NEW  # the alias leaves the module's own spec
"""


def test_every_old_module_path_imports_warns_and_is_the_new_module():
    """Each old path, three ways users wrote it: ``import hetdp_core.x``, ``from hetdp_core.x import name``,
    ``from hetdp_core import x`` — in a fresh interpreter (one for all 41: each path's first import there is
    the one that warns), every path checked and every failure named."""
    probe = f"""
import importlib, json, traceback, warnings
warnings.simplefilter("error")  # nothing else warns: importing the core and the new modules is clean
failed = {{}}
for OLD, NEW in {dict(sorted(MOVED_MODULES.items()))!r}.items():
    MODULE = OLD.rsplit(".", 1)[1]
    try:
        exec({_PROBE_ONE!r})
    except Exception:
        failed[OLD] = traceback.format_exc(limit=1)[-400:]
print(json.dumps(failed))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    failed = json.loads(out.stdout.strip().splitlines()[-1])
    assert not failed, failed


def test_a_split_modules_old_path_still_yields_every_name_it_exported():
    """zcdp, hetero and mechanisms grew past 600 lines and were split by concern inside their rooms; the module
    users import re-exports its parts, so every name the old module defined (public) is still there."""
    for old, parts in {
        "hetdp_core.per_group.zcdp": ("gaussian", "algorithm1"),
        "hetdp_core.per_user.hetero": ("objectives", "solver"),
        "hetdp_core.noise.mechanisms": ("calibration", "median", "bounded_laplace", "selection"),
    }.items():
        module = importlib.import_module(old)
        room = old.rsplit(".", 1)[0]
        for part in parts:
            p = importlib.import_module(f"{room}.{part}")
            tree = ast.parse(Path(p.__file__).read_text())
            constants = [
                t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
            ]
            names = [
                *p.__all__,
                *(n for n in constants if n.isupper() and not n.startswith("_") and n != "GLOSSARY_KEY"),
            ]
            missing = [n for n in names if getattr(module, n, None) is not getattr(p, n)]
            assert p.__all__ and not missing, (old, part, missing)


def test_no_file_of_ours_names_an_old_path():
    """The code, the docs and the templates name the new paths (a page.py runs as a Streamlit script, so the
    import test below cannot import it: this reads every file instead)."""
    old = "|".join(m.rsplit(".", 1)[1] for m in MOVED_MODULES)
    pattern = re.compile(rf"(?<![\w.])hetdp_core[./]({old})\b(?!/)|^\s*from hetdp_core import .*\b({old})\b", re.M)
    skip = {"_deprecated.py", "test_old_paths.py"}
    found = []
    for path in [ROOT / "app.py", ROOT / "README.md", *ROOT.glob("*/**/*.py"), *ROOT.glob("*/**/*.md")]:
        parts = path.relative_to(ROOT).parts
        if path.name in skip or parts[0] in (".venv", "build") or "artifacts" in parts or parts[0].endswith("egg-info"):
            continue
        for m in pattern.finditer(path.read_text()):
            found.append(f"{path.relative_to(ROOT)}: {m.group(0).strip()}")
    assert not found, "old module paths (use the new ones, hetdp_core._deprecated.MOVED_MODULES):\n" + "\n".join(found)


def test_our_own_code_imports_no_old_path():
    """Every module of hetdp_core, hetdp_ui and the pages' folders (not page.py, a Streamlit script) imports
    with DeprecationWarning as an error, in a fresh interpreter."""
    probe = """
import importlib, pkgutil, sys, warnings
warnings.simplefilter("error", DeprecationWarning)
sys.path.insert(0, ".")
import hetdp_core, hetdp_ui
names = []
for pkg in (hetdp_core, hetdp_ui):
    names += [i.name for i in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
              if ".migrations" not in i.name and not i.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
import pathlib
for path in sorted(pathlib.Path("pages").glob("*/*.py")):
    if path.name != "page.py":
        importlib.import_module(f"pages.{path.parent.name}.{path.stem}")
print(len(names))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout) > 100
