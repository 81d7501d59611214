"""The release ledger's verbs: ``hetdp ledger`` (what a plan of releases costs each group, its risk, report
and notebook) and ``hetdp package release_ledger --plan FILE`` (its decision package)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from hetdp_ui.cli._common import CliError, _dump, output_dir, output_path, risk_arguments, write_atomic


def _print_ledger(a, result, compared, solved) -> None:
    """The ledger as text: every accountant's total, each group's headline and risk, plan A vs B, the solve."""
    for t in result.totals:
        print(
            f"{t.group:24s} {t.accountant:6s} ε = {t.epsilon:.4g} at δ = {t.delta:.3g}"
            f"  ({t.releases} releases)" + (f"  [{t.note}]" if t.note else "")
        )
    for h in result.headline:
        extra = (
            f"  reserve {h.reserve:+.4g}" + ("  OVER BUDGET" if h.over_budget else "") if a.budget is not None else ""
        )
        print(
            f"{h.group:24s} headline ε = {h.epsilon:.4g} at δ = {h.delta:.3g}, the smallest "
            f"valid bound, by {h.how}{extra}"
        )
    for r in result.risk:
        print(f"{r.group:24s} {r.in_words}; maximal advantage {r.max_advantage:.3g}")
    if compared is not None:
        print(f"plan A ({a.pin}) vs plan B ({a.plan}):")
        for row in compared.itertuples(index=False):
            print(f"  {row[0]:52s} A {row[1]:<10.4g} B {row[2]:<10.4g} B − A {row[3]:+.4g}")
    if solved:
        print(
            f"solve: multiply the noise of the plan's own releases by {solved['factor']:.4g} to keep every "
            f"group's attack TPR at FPR {a.fpr:g} at or below {a.target_tpr:g} (worst: {solved['worst_group']}, "
            f"TPR {solved['tpr']:.4g})"
        )


def _downloads():
    """This folder's downloads.py (the report, notebook and package), loaded when a command needs it."""
    from hetdp_ui.folders import folder_module

    return folder_module("release_ledger", "downloads")


def _plan(flag: str, value: str, give: str):
    """The plan in the file a flag names, parsed; a missing file is named with what to give instead."""
    from hetdp_core.accountants.ledger import parse_plan

    path = Path(value)
    if not path.is_file():
        raise CliError(f"{flag}: file {path} not found. Give {give}.")
    return parse_plan(path.read_bytes())


def _write_files(a, result) -> None:
    """``--report``, ``--notebook`` and ``--csv``: each written atomically."""
    if a.report:
        out = output_path(a.report, what="--report", suffixes=(".html", ".htm"))
        write_atomic(out, _downloads().build_ledger_report(result), what="--report")
        print(f"wrote {out}", file=sys.stderr)
    if a.notebook:
        from hetdp_ui.notebook import notebook_bytes

        out = output_path(a.notebook, what="--notebook", suffixes=(".ipynb",))
        write_atomic(out, notebook_bytes(_downloads().ledger_notebook(result)), what="--notebook")
        print(f"wrote {out}", file=sys.stderr)
    if a.csv:
        import pandas as pd

        from hetdp_ui.csvfile import csv_text

        out = output_dir(a.csv, what="--csv")
        for name, rows in result.tables().items():
            write_atomic(out / f"{name}.csv", csv_text(pd.DataFrame(rows)), what="--csv")


def cmd_ledger(a) -> int:
    """``hetdp ledger --plan FILE.toml --delta D``: what the whole plan costs each group, by four accountants."""
    from hetdp_core.accountants.ledger import ledger

    plan = _plan("--plan", a.plan, "a plan file (TOML), e.g. data/plans/census-and-survey.toml")
    levels_of = functools.cache(_limited_levels)  # each linked view runs once, for the ledger and the solver
    result = ledger(plan, delta=a.delta, budget=a.budget, fpr=a.fpr, levels_of=levels_of)
    compared = None
    if a.pin:  # plan A vs plan B, as the page shows it for a pinned plan
        from hetdp_core.reading.compare import compare

        plan_a = _plan("--pin", a.pin, "plan A's file (TOML)")
        result_a = ledger(plan_a, delta=a.delta, budget=a.budget, fpr=a.fpr, levels_of=levels_of)
        compared = compare(result_a.key_numbers(), result.key_numbers())
    solved = None
    if a.target_tpr is not None:
        from hetdp_core.accountants.ledger import plan_toml, solve_noise

        sol = solve_noise(plan, fpr=a.fpr, target_tpr=a.target_tpr, delta=a.delta, levels_of=levels_of)
        solved = {
            "factor": sol.factor,
            "worst_group": sol.worst_group,
            "tpr": sol.tpr,
            "fpr": sol.fpr,
            "target_tpr": sol.target_tpr,
            "plan": plan_toml(sol.plan),
        }
    _write_files(a, result)
    tables = result.tables()
    if a.json:
        print(
            _dump(
                {
                    "delta": result.delta,
                    "budget": result.budget,
                    "fpr": result.fpr,
                    "headline": tables["ledger_headline"],
                    "ledger": tables["ledger"],
                    "spend": tables["ledger_spend"],
                    "risk": result.risk_rows(),
                    "solve": solved,
                    **({"plan_a_vs_b": compared.to_dict(orient="records")} if compared is not None else {}),
                }
            )
        )
    elif not a.csv:
        _print_ledger(a, result, compared, solved)
    return 1 if a.budget is not None and any(h.over_budget for h in result.headline) else 0


def _limited_levels(link: str):
    """A linked view's privacy levels, its run under the page's limits (memory and time, enforced while
    it runs) — the same reading as the app's."""
    from hetdp_core.accountants.ledger import link_scenario
    from hetdp_core.framework.scenario import levels_of
    from hetdp_ui.limits import run_limited

    scenario = link_scenario(link)
    return levels_of(run_limited(scenario.PAGE, scenario, start="fork"))


def package_ledger(a) -> bytes:
    """``hetdp package release_ledger --plan FILE [--delta D --budget B --fpr F]``: the plan's decision package."""
    from hetdp_core.accountants.ledger import ledger

    if not a.plan:
        raise CliError("--plan: give the plan (TOML) to package, e.g. data/plans/census-and-survey.toml.")
    plan = _plan("--plan", a.plan, "a plan file (TOML)")
    result = ledger(plan, delta=a.delta, budget=a.budget, fpr=a.fpr, levels_of=functools.cache(_limited_levels))
    return _downloads().ledger_package(result, app_url=a.app_url, execute=not a.no_execute)


def register(sub, groups) -> None:
    """Add ``hetdp ledger`` to the ``hetdp`` subcommands, and this page's plan flags to ``hetdp package``
    (``groups``, the generated command groups, are not used here)."""
    from hetdp_ui.cli.package import add_packager

    pk = add_packager(sub, ("release_ledger", "ledger"), package_ledger)
    plan = pk.add_argument_group("the release ledger (hetdp package release_ledger --plan FILE)")
    plan.add_argument("--plan", default=None, metavar="FILE", help="the plan (TOML)")
    plan.add_argument("--delta", type=float, default=1e-6, help="the δ of every total")
    plan.add_argument("--budget", type=float, default=None, help="the ε the plan may spend")
    plan.add_argument("--fpr", type=float, default=0.01, help="the attack false-positive rate")

    lg = sub.add_parser("ledger", help="a release plan's total privacy loss per group (basic, zCDP, RDP, PLD)")
    lg.add_argument("--plan", required=True, metavar="FILE", help="the plan (TOML): [[release]] tables, see README")
    lg.add_argument("--delta", type=float, default=1e-6, help="the δ at which every total is read (default 1e-6)")
    lg.add_argument("--budget", type=float, default=None, help="the ε the plan may spend: reserve and warnings")
    risk_arguments(
        lg,
        fpr_help="the attack false-positive rate of the risk",
        target_help="the smallest noise factor for the plan's own releases keeping every group's attack TPR at "
        "--fpr at or below this",
    )
    lg.add_argument(
        "--pin",
        default=None,
        metavar="FILE",
        help="plan A (TOML): compare its headline, risk and reserve per group with --plan's (plan B)",
    )
    lg.add_argument("--json", action="store_true")
    lg.add_argument(
        "--csv", default=None, metavar="DIR", help="write ledger_headline.csv, ledger.csv and ledger_spend.csv into DIR"
    )
    lg.add_argument("--report", default=None, metavar="FILE.html", help="write a standalone HTML report of the ledger")
    lg.add_argument(
        "--notebook", default=None, metavar="FILE.ipynb", help="write a Jupyter notebook that recomputes it"
    )
    lg.set_defaults(func=cmd_ledger)
