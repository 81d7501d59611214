"""``hetdp package``: a decision in one download (zip: README, report, notebook, script, CSV, TOML)."""

from __future__ import annotations

import functools
from pathlib import Path

from hetdp_ui.cli._common import CliError, output_path, write_atomic


def cmd_package(a) -> int:
    """``hetdp package PAGE --query … --out F.zip`` (or ``hetdp package Release_ledger --plan FILE``)."""
    out = output_path(a.out, what="--out", suffixes=(".zip",))
    if (a.page or "").strip("/").lower().replace("-", "_") in ("release_ledger", "ledger"):
        from hetdp_core.ledger import ledger, parse_plan
        from hetdp_ui.cli.ledger import _limited_levels
        from hetdp_ui.package import ledger_package

        if not a.plan:
            raise CliError("--plan: give the plan (TOML) to package, e.g. data/plans/census-and-survey.toml.")
        path = Path(a.plan)
        if not path.is_file():
            raise CliError(f"--plan: file {path} not found. Give a plan file (TOML).")
        result = ledger(
            parse_plan(path.read_bytes()),
            delta=a.delta,
            budget=a.budget,
            fpr=a.fpr,
            levels_of=functools.cache(_limited_levels),
        )
        data = ledger_package(result, app_url=a.app_url, execute=not a.no_execute)
    else:
        from urllib.parse import urlencode

        from hetdp_ui.cli._common import _query_of
        from hetdp_ui.package import page_package

        page, query = _query_of(a)
        query.pop("pin", None)
        data = page_package(page, urlencode(query, doseq=True), app_url=a.app_url, execute=not a.no_execute)
    write_atomic(out, data, what="--out")
    print(f"wrote {out} ({len(data) / 1e6:.1f} MB): README.md, report.html, notebook.ipynb, recompute.py, tables/")
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    pk = sub.add_parser("package", help="a decision in one zip: README, report, notebook, script, CSV tables, TOML")
    pk.add_argument("page", nargs="?", help="the page (e.g. Feature_privacy), or Release_ledger with --plan")
    pk.add_argument("--query", default=None, help="the view's URL query string")
    pk.add_argument("--url", default=None, help="an app link of the view (instead of PAGE and --query)")
    pk.add_argument("--plan", default=None, metavar="FILE", help="Release_ledger: the plan (TOML)")
    pk.add_argument("--delta", type=float, default=1e-6, help="Release_ledger: the δ of every total")
    pk.add_argument("--budget", type=float, default=None, help="Release_ledger: the ε the plan may spend")
    pk.add_argument("--fpr", type=float, default=0.01, help="Release_ledger: the attack false-positive rate")
    pk.add_argument("--out", required=True, help="the zip file to write")
    pk.add_argument("--app-url", default="http://localhost:8501", help="base of the links that reopen the view")
    pk.add_argument("--no-execute", action="store_true", help="leave the notebook unexecuted (faster)")
    pk.set_defaults(func=cmd_package)
