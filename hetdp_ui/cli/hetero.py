"""``hetdp hetero weights | run``: per-user privacy."""

from __future__ import annotations

from hetdp_ui.cli._common import BUDGET_NAMES, _dump, field_flags, given_fields, parse_list, verb_with_commands, view


def cmd_hetero_weights(a) -> int:
    from hetdp_core import hetero as ht

    demands = parse_list(a.demands, "--demands")
    w = ht.weights(demands, algorithm=a.variant, problem=a.problem, k=a.k, beta=a.beta, solver=a.solver)
    out = {
        "weights": w.weights.tolist(),
        "b": w.b,
        "eps_eff": w.eps_eff.tolist(),
        "objective": w.objective,
        "solver": w.solver,
        "t": w.t,
        "note": w.note,
        "bias_bound": ht.bias_bound(w.weights),
    }
    if a.json:
        print(_dump(out))
    else:
        print(
            f"{a.variant} ({w.solver}): b = {w.b:.6g}, objective = {w.objective:.6g}, "
            f"bias bound T = {out['bias_bound']:.4g}"
        )
        for e, wi, ee in list(zip(demands, w.weights, w.eps_eff))[:30]:
            print(f"  eps = {e:<10g} w = {wi:.6g}  eps_eff = {ee:.6g}")
    return 0


#: ``hetero run`` flags → the page's scenario fields
RUN_FIELDS = {
    "problem": "problem",
    "dataset": "dataset",
    "n": "n",
    "k": "k",
    "profile": "profile",
    "demand": "demand",
    "eps-by-bin": "eps_by_bin",
    "shares": "shares",
    "lows": "lows",
    "highs": "highs",
    "setting": "setting",
    "beta": "beta",
    "algorithms": "algs",
    "trials": "trials",
    "solver": "solver",
    "sm-threshold": "sm_threshold",
    "seed": "seed",
}


def cmd_hetero_run(a) -> int:
    """Alias of ``hetdp run Per_user_privacy``: the flags build the page's query (same seeds, same
    defaults); the JSON keeps this verb's shape. ``--eps-by-bin ''`` still means group demands."""
    from hetdp_core import hetero as ht

    query = given_fields(a, RUN_FIELDS)
    if query.get("eps_by_bin", None) == "":
        query.pop("eps_by_bin")
        query.setdefault("demand", "groups")
    if "algs" in query:
        query["algs"] = query["algs"].upper().replace(" ", "")
    s, res = view("Per_user_privacy", query, a)
    errs = res.hetero_errors
    results = [
        {
            "algorithm": alg,
            "errors": errs[alg].to_numpy().tolist(),
            **ht.summarize(errs[alg].to_numpy(), beta=s.beta),
            "b": res.infos[alg].b,
        }
        for alg in s.algs
    ]
    out = {
        "params": {
            "problem": s.problem,
            "dataset": s.dataset,
            "n": int(res.demands.size),
            "k": res.k,
            "setting": s.setting,
            "beta": s.beta,
            "trials": s.trials,
            "seed": s.seed,
        },
        "results": results,
        "link": f"/{s.PAGE}?{s.query_string()}",
    }
    if a.json:
        print(_dump(out))
    else:
        for r in results:
            print(f"{r['algorithm']:>5}: PAC({1 - s.beta:.0%}) = {r['pac']:.5g}   MSE = {r['mse']:.4g}")
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    hsub = verb_with_commands(sub, "hetero", "per-user privacy: heterogeneous DP for frequencies and means")
    hw = hsub.add_parser("weights", help="weights, noise scale and effective privacy of one algorithm")
    hw.add_argument("--problem", choices=["frequency", "mean"], required=True)
    hw.add_argument("--variant", choices=["CP", "CE", "UP", "UE", "A", "CT", "UT", "UNI", "PROP"], required=True)
    hw.add_argument(
        "--demands",
        "--eps",
        dest="demands",
        required=True,
        help="per-user demands ε_i, e.g. 0.1,0.5,inf or @file (--eps: old name)",
    )
    hw.add_argument("--k", type=int, default=5)
    hw.add_argument("--beta", type=float, default=0.05)
    hw.add_argument("--solver", choices=["fast", "cvxpy"], default="fast")
    hw.add_argument("--json", action="store_true")
    hw.set_defaults(func=cmd_hetero_weights)
    hr = hsub.add_parser("run", help="error samples per algorithm (= run Per_user_privacy)")
    field_flags(hr, "Per_user_privacy", RUN_FIELDS)
    hr.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
    hr.add_argument("--json", action="store_true")
    hr.set_defaults(func=cmd_hetero_run)
