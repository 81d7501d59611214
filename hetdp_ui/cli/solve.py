"""``hetdp solve PAGE``: the page's accuracy solver (its spec names it)."""

from __future__ import annotations

from hetdp_ui.cli._common import CliError, _dump, _query_of, _scenario_verb, risk_arguments


def cmd_solve(a) -> int:
    """``hetdp solve PAGE --query … --target T``: the most private setting that meets T, by the solver
    the page's spec names."""
    from hetdp_core.registry import get, specs

    page, query = _query_of(a)
    if a.target_tpr is not None:
        return _solve_risk(a, page, get(page).SCENARIO.from_query(query))
    if a.target is None:
        raise CliError("give --target (an accuracy target) or --target-tpr (a target risk).")
    solver = get(page).PAGE_SPEC.solver
    if solver is None:
        raise CliError(
            f"PAGE: {page} has no accuracy solver; solvers exist for {', '.join(s.url for s in specs() if s.solver)}."
        )
    return SOLVERS[solver](a, page, get(page).SCENARIO.from_query(query))


def _solve_risk(a, page, s) -> int:
    """``--target-tpr T [--fpr F]``: the page's privacy setting at its most accurate value whose attack
    TPR at F stays at or below T (the meaning panel's "Use …" button)."""
    import dataclasses

    from hetdp_core.registry import get
    from hetdp_core.risk import page_setting_for_tpr

    sol = page_setting_for_tpr(get(page), target_tpr=a.target_tpr, fpr=a.fpr)
    solved = dataclasses.replace(s, **{sol["field"]: sol["value"]})
    link = f"/{page}?{solved.query_string()}"
    if a.json:
        print(_dump({**sol, "target_tpr": a.target_tpr, "fpr": a.fpr, "link": link}))
    else:
        print(
            f"{sol['label']} = {sol['value']:g}: an attack is caught at most {100 * sol['tpr']:.3g} % of the time at "
            f"FPR {100 * a.fpr:g} % (target {100 * a.target_tpr:g} %)" + (f"; {sol['note']}" if sol["note"] else "")
        )
        print(f"link: {link}")
    return 0


def _solve_mechanisms(a, page, s) -> int:
    import dataclasses

    from hetdp_core.solve import solve_mechanisms

    sols = solve_mechanisms(s, target=a.target, metric=a.metric)
    if a.json:
        print(_dump({"metric": a.metric, "target": a.target, "rows": [dataclasses.asdict(r) for r in sols]}))
    else:
        for r in sols:
            print(
                f"{r.mechanism:9s} "
                + (
                    f"ε = {r.eps:.4g}: {a.metric} {r.error:.4g} (simulated {r.simulated:.4g}) {r.reason}"
                    if r.eps is not None
                    else f"no ε in range: {r.reason}"
                )
            )
    return 0


def _print_solution(a, page: str, sol, text) -> int:
    """A scaling solver's answer: JSON (with the link that opens it), or ``text(link)``; exit code 1
    when the fresh check misses the target."""
    import dataclasses
    from urllib.parse import urlencode

    link = f"/{page}?{urlencode(sol.scenario_query)}"
    print(_dump({**dataclasses.asdict(sol), "link": link}) if a.json else text(link))
    return 0 if sol.meets_target else 1


def _solve_per_user(a, page, s) -> int:
    from hetdp_core.solve_per_user import solve_per_user

    sol = solve_per_user(s, target=a.target, metric="pac" if a.metric == "q95" else a.metric, algorithm=a.algorithm)
    return _print_solution(
        a,
        page,
        sol,
        lambda link: (
            f"{sol.algorithm}: every finite demand × {sol.scale:.4g} meets {sol.metric} ≤ {sol.target:g} "
            f"({sol.error:.4g}; 10 % more private: {sol.error_10pct_more_private:.4g}); 95 % interval of the "
            f"smallest scaling [{sol.scale_low:.4g}, {sol.scale_high:.4g}] (± {100 * sol.precision:.1f} %, "
            f"{sol.trials_used} trials); fresh check {sol.check_error:.4g} — "
            f"{'meets' if sol.meets_target else 'MISSES'} the target\nlink: {link}"
        ),
    )


def _solve_feature(a, page, s) -> int:
    from hetdp_core.solve import solve_feature_privacy

    sol = solve_feature_privacy(s, target=a.target, statistic=a.statistic)
    return _print_solution(
        a,
        page,
        sol,
        lambda link: (
            f"most private scaling whose {sol.statistic} ‖x̂ − x̄‖² (projection {sol.projection}) is ≤ {sol.target:g}: "
            f"{sol.scale:.4g}× the levels (ε = {sol.eps:.4g}, δ = {', '.join(f'{v:.4g}' for v in sol.delta)}; "
            f"between {sol.scale_low:.4g}× (misses) and {sol.scale:.4g}× (meets); {sol.releases} releases simulated)\n"
            f"simulated {sol.statistic} {sol.error:.4g} (10 % more private: {sol.error_10pct_more_private:.4g}); fresh "
            f"simulation ({sol.check_trials} releases): {sol.check:.4g}, 95 % interval [{sol.check_low:.4g}, "
            f"{sol.check_high:.4g}] — {'meets' if sol.meets_target else 'MISSES'} the target\nlink: {link}"
        ),
    )


#: a page spec's ``solver`` name → the CLI's printer of that solver
SOLVERS = {"mechanisms": _solve_mechanisms, "per_user": _solve_per_user, "feature": _solve_feature}


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
        help="target error: Feature_privacy's squared error ‖x̂ − x̄‖² (see --statistic), the "
        "mechanism lab's error of one release, Per_user_privacy's error (see --metric)",
    )
    sv.add_argument(
        "--statistic",
        choices=("median", "mean"),
        default="median",
        help="Feature_privacy: the median over releases (the page's plotted curve) or the mean",
    )
    sv.add_argument(
        "--metric",
        choices=("mse", "q95"),
        default="mse",
        help="mse, or q95: Mechanism_lab's 95 %% error quantile / Per_user_privacy's PAC error (the (1-β)-quantile)",
    )
    sv.add_argument(
        "--algorithm", default=None, help="Per_user_privacy: the algorithm to solve for (default: the first)"
    )
    sv.add_argument("--json", action="store_true")
    sv.set_defaults(func=cmd_solve)
