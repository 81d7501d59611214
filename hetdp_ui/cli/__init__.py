"""The ``hetdp`` command line: one module per verb (``hetdp_ui/cli/<verb>.py``, each with its
``cmd_*`` function and a ``register(sub)`` that adds its parser), shared helpers in ``_common``. A
page's own verbs (an older verb kept as an alias of ``hetdp run``, a paper's reproduction, the release
ledger's ``hetdp ledger`` and its package flags) live in its
folder, ``pages/<slug>/cli.py``, found by :func:`hetdp_ui.folders.cli_modules`.
``--json`` prints JSON on stdout. Bad input exits with code 2 and one line on stderr naming the
parameter; never a traceback.

The numerics' own commands (``hetdp bcdp c-vector``, ``hetdp zcdp renyi``, ``hetdp sgd theta``,
``hetdp mech …``, ``hetdp hetero weights``) are generated from their declarations in
:mod:`hetdp_core.framework.commands` (:mod:`hetdp_ui.cli.commands`). Heavy modules (pandas, scipy, cvxpy, the
simulations) are imported inside the commands that use them, so ``hetdp --help`` and ``hetdp bcdp
c-vector`` start fast (numpy only).

Also importable from here: ``main``, ``build_parser``, ``CliError``, ``write_atomic``, ``FIGURES`` and
``app_script``.
"""

# ruff: noqa: E402 (the BLAS thread count below must be set before any import loads numpy)
from __future__ import annotations

import argparse
import os
import sys

# One BLAS thread unless the user asks for more, set before numpy loads: the simulations run on the
# channel's own pool of chunk threads and never call BLAS (hetdp_core.per_feature.duchi uses einsum), so the
# threads OpenBLAS starts at import only spin (≈ 0.05–0.08 s of CPU per command, 5–8 % of the
# Figure-3 subset); the CLI's few BLAS calls (least squares, small solves) are small. Has no effect
# when numpy is already loaded (e.g. the CLI called in-process by the tests).
#: the variables set here (not by the user): ``hetdp app`` removes them again, so the server it starts
#: runs with the same environment as ``make run``
BLAS_DEFAULTS = tuple(v for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS") if v not in os.environ)
for _var in BLAS_DEFAULTS:
    os.environ[_var] = "1"

from hetdp_core.framework._validate import InputError
from hetdp_ui.cli import app, classroom, commands, context, lesson, meaning, notebook, package, report, run, solve
from hetdp_ui.cli._common import FIGURES, CliError, OneLineParser, write_atomic
from hetdp_ui.cli.app import app_script
from hetdp_ui.dask_exec import ClusterError
from hetdp_ui.folders import cli_modules

__all__ = ["main", "build_parser", "CliError", "write_atomic", "FIGURES", "app_script"]

#: the verbs after the numerics' own (:mod:`hetdp_ui.cli.commands`), in the order ``hetdp --help`` lists them
VERBS = (run, solve, report, notebook, package, app, meaning, context, lesson, classroom)


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="hetdp", description="Heterogeneous differential privacy toolkit.")
    sub = ap.add_subparsers(dest="group", required=True)
    groups = commands.register(sub)  # bcdp, zcdp, sgd, mech, hetero: generated from hetdp_core.framework.commands
    for verb in VERBS:
        verb.register(sub)
    for page_cli in cli_modules():  # a page's own verbs (pages/<slug>/cli.py): older aliases, reproductions
        page_cli.register(sub, groups)
    return ap


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: the interpreter's last flush of a closed pipe would otherwise print
    "Exception ignored … BrokenPipeError" on stderr (the advice of Python's signal documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file descriptor (tests capture it)
        pass


def main(argv: list[str] | None = None) -> int:
    """Run one command; ``argv`` None means this process's own command line (the ``hetdp`` command),
    which also sets the allocator of a short-lived process (:func:`hetdp_ui.allocator.keep_freed_memory`:
    freed arrays are reused instead of faulted back in). Called with a list (tests, scripts), nothing
    about the calling process changes."""
    if argv is None:
        from hetdp_ui.allocator import keep_freed_memory

        keep_freed_memory()
    ap = build_parser()
    args = ap.parse_args(argv)  # argparse itself exits 2 on malformed flags
    try:
        return int(args.func(args))
    except InputError as exc:  # only input problems; anything else is a bug
        msg = " ".join(str(exc).split())
        print(f"hetdp: error: {msg}", file=sys.stderr)
        return 2
    except ClusterError as exc:  # the Dask cluster (unreachable, workers dying): exit 3
        print(f"hetdp: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 3
    except BrokenPipeError:  # the reader went away (`hetdp run … --json | head -c 120`): a normal end
        _quiet_stdout()
        return 0
    except OSError as exc:  # a file the user named: unreadable, unwritable, disk full
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"hetdp: error: cannot use{where}: {exc.strerror or exc}.", file=sys.stderr)
        return 2
