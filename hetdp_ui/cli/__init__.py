"""The ``hetdp`` command line: one module per verb (``hetdp_ui/cli/<verb>.py``, each with its
``cmd_*`` function and a ``register(sub)`` that adds its parser), shared helpers in ``_common``.
``--json`` prints JSON on stdout. Bad input exits with code 2 and one line on stderr naming the
parameter; never a traceback.

Heavy modules (pandas, scipy, cvxpy, the simulations) are imported inside the commands that use
them, so ``hetdp --help`` and ``hetdp bcdp c-vector`` start fast (numpy only).
"""

from __future__ import annotations

import argparse
import sys

from hetdp_core._validate import InputError
from hetdp_ui.cli import (
    app,
    bcdp,
    hetero,
    ledger,
    lesson,
    meaning,
    mech,
    notebook,
    regression,
    report,
    reproduce,
    run,
    sgd,
    solve,
    zcdp,
)
from hetdp_ui.cli._common import (  # noqa: F401
    BUDGET_NAMES,
    FIGURES,
    CliError,
    OneLineParser,
    _dump,
    _errors_block,
    _executor,
    _last,
    _no_file_above,
    _no_nan,
    _query_of,
    _scenario_verb,
    budget,
    output_dir,
    output_path,
    parse_list,
    write_atomic,
)
from hetdp_ui.cli.app import app_script, cmd_app  # noqa: F401
from hetdp_ui.cli.bcdp import _report_dict, cmd_c_vector, cmd_exact, cmd_mse  # noqa: F401
from hetdp_ui.cli.hetero import cmd_hetero_run, cmd_hetero_weights, ht_summarize  # noqa: F401
from hetdp_ui.cli.ledger import _limited_levels, cmd_ledger  # noqa: F401
from hetdp_ui.cli.lesson import cmd_lesson_check, cmd_lesson_key, cmd_lesson_list  # noqa: F401
from hetdp_ui.cli.meaning import cmd_meaning  # noqa: F401
from hetdp_ui.cli.mech import cmd_mech  # noqa: F401
from hetdp_ui.cli.notebook import cmd_notebook  # noqa: F401
from hetdp_ui.cli.regression import cmd_regression  # noqa: F401
from hetdp_ui.cli.report import cmd_report  # noqa: F401
from hetdp_ui.cli.reproduce import cmd_reproduce  # noqa: F401
from hetdp_ui.cli.run import cmd_run  # noqa: F401
from hetdp_ui.cli.sgd import _METHOD, _sgd_schedules, cmd_sgd_run, cmd_sgd_theta  # noqa: F401
from hetdp_ui.cli.solve import SOLVERS, _print_solution, _solve_feature, _solve_mechanisms, _solve_per_user, cmd_solve  # noqa: F401
from hetdp_ui.cli.zcdp import cmd_zcdp_release, cmd_zcdp_renyi  # noqa: F401
from hetdp_ui.dask_exec import ClusterError

#: the verbs, in the order ``hetdp --help`` lists them
VERBS = (
    bcdp,
    zcdp,
    regression,
    sgd,
    mech,
    hetero,
    run,
    solve,
    report,
    ledger,
    notebook,
    app,
    meaning,
    lesson,
    reproduce,
)


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="hetdp", description="Heterogeneous differential privacy toolkit.")
    sub = ap.add_subparsers(dest="group", required=True)
    for verb in VERBS:
        verb.register(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
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
    except OSError as exc:  # a file the user named: unreadable, unwritable, disk full
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"hetdp: error: cannot use{where}: {exc.strerror or exc}.", file=sys.stderr)
        return 2
