"""``hetdp solve PAGE``: the page's accuracy solver (its spec names it)."""

from __future__ import annotations

from hetdp_ui.cli._common import CliError, _dump, _query_of, _scenario_verb, risk_arguments


def cmd_solve(a) -> int:
    """``hetdp solve PAGE --query … --target T``: the most private setting that meets T, by the solver
    the page's spec names (``"module:function"``); the solver's own answer prints itself."""
    import importlib
    import inspect
    from urllib.parse import urlencode

    from hetdp_core.framework.registry import get, specs

    page, query = _query_of(a)
    s = get(page).SCENARIO.from_query(query)
    if a.target_tpr is not None:
        return _solve_risk(a, page, s)
    if a.target is None:
        raise CliError("give --target (an accuracy target) or --target-tpr (a target risk).")
    solver = get(page).PAGE_SPEC.solver
    if solver is None:
        raise CliError(
            f"PAGE: {page} has no accuracy solver; solvers exist for {', '.join(s.url for s in specs() if s.solver)}."
        )
    module, name = solver.split(":")
    solve = getattr(importlib.import_module(module), name)
    options = {"metric": a.metric, "statistic": a.statistic, "algorithm": a.algorithm}
    accepted = inspect.signature(solve).parameters
    sol = solve(s, target=a.target, **{k: v for k, v in options.items() if k in accepted})
    link = f"/{page}?{urlencode(sol.link_query(s))}"
    print(_dump(sol.as_json(link)) if a.json else sol.text(link))
    return 0 if sol.meets_target else 1


def _solve_risk(a, page, s) -> int:
    """``--target-tpr T [--fpr F]``: the page's privacy setting at its most accurate value whose attack
    TPR at F stays at or below T (the meaning panel's "Use …" button)."""
    import dataclasses

    from hetdp_core.framework.registry import get
    from hetdp_core.reading.risk import page_setting_for_tpr

    sol = page_setting_for_tpr(get(page), target_tpr=a.target_tpr, fpr=a.fpr)
    solved = dataclasses.replace(s, **{sol["field"]: sol["value"]})
    link = f"/{page}?{solved.query_string()}"
    note = f"; {sol['note']}" if sol["note"] else ""
    text = (
        f"{sol['label']} = {sol['value']:g}: an attack is caught at most {100 * sol['tpr']:.3g} % of the time at "
        f"FPR {100 * a.fpr:g} % (target {100 * a.target_tpr:g} %){note}\nlink: {link}"
    )
    print(_dump({**sol, "target_tpr": a.target_tpr, "fpr": a.fpr, "link": link}) if a.json else text)
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    sv = _scenario_verb(
        sub,
        "solve",
        "what privacy do I need for this accuracy (pages with a solver), or for this risk (--target-tpr)?",
        dask=False,
        budget=False,
    )
    risk_arguments(
        sv,
        fpr_help="with --target-tpr: the attack false-positive rate",
        target_help="the page's privacy setting (ε, or ρ on Group-wise zCDP) at its most accurate value whose "
        "attack TPR at --fpr stays at or below this (instead of --target)",
    )
    sv.add_argument(
        "--target",
        type=float,
        default=None,
        help="target error, in the unit of the page's accuracy curve (its guide says which: a squared error, "
        "one release's error, or an error quantile; see --statistic and --metric)",
    )
    sv.add_argument(
        "--statistic",
        choices=("median", "mean"),
        default="median",
        help="solvers that simulate releases: the median over releases (the page's plotted curve) or the mean",
    )
    sv.add_argument(
        "--metric",
        choices=("mse", "q95"),
        default="mse",
        help="solvers with a choice of error: mse, or q95 (the 95 %% error quantile, or the PAC error: the "
        "(1-β)-quantile)",
    )
    sv.add_argument(
        "--algorithm",
        default=None,
        help="solvers that compare algorithms: the algorithm to solve for (default: the first)",
    )
    sv.add_argument("--json", action="store_true")
    sv.set_defaults(func=cmd_solve)
