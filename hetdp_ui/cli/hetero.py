"""``hetdp hetero weights | run``: per-user privacy."""

from __future__ import annotations

from hetdp_core.scenario import RunOptions
from hetdp_ui.cli._common import BUDGET_NAMES, _dump, budget, parse_list


def cmd_hetero_weights(a) -> int:
    from hetdp_core import hetero as ht

    eps = parse_list(a.eps, "--eps")
    w = ht.weights(eps, algorithm=a.variant, problem=a.problem, k=a.k, beta=a.beta, solver=a.solver)
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
        for e, wi, ee in list(zip(eps, w.weights, w.eps_eff))[:30]:
            print(f"  eps = {e:<10g} w = {wi:.6g}  eps_eff = {ee:.6g}")
    return 0


def cmd_hetero_run(a) -> int:
    """Alias of ``hetdp run Per_user_privacy``: the page's scenario and seeds."""
    from hetdp_core.scenarios import per_user_privacy as pu

    algs = tuple(s.strip().upper() for s in a.algorithms.split(",") if s.strip())
    s = pu.PerUserPrivacy(
        problem=a.problem,
        dataset="randhie" if a.dataset == "randhie" else "synthetic",
        n=a.n,
        k=a.k,
        demand="by_value" if a.eps_by_bin else "groups",
        eps_by_bin=a.eps_by_bin or "1",
        shares=a.shares,
        lows=a.lows,
        highs=a.highs,
        setting=a.setting,
        beta=a.beta,
        algs=algs,
        trials=a.trials,
        solver=a.solver,
        sm_threshold=a.sm_threshold,
        seed=a.seed,
    )
    res = pu.run(s, options=RunOptions(budget=budget(a.budget)))
    errs, infos = res.tables()["hetero_errors"], res.infos
    results = []
    for alg in algs:
        e = errs[alg].to_numpy()
        results.append({"algorithm": alg, "errors": e.tolist(), **ht_summarize(e, a.beta), "b": infos[alg].get("b")})
    out = {
        "params": {
            "problem": a.problem,
            "dataset": a.dataset,
            "n": int(res.eps.size),
            "k": res.k,
            "setting": a.setting,
            "beta": a.beta,
            "trials": a.trials,
            "seed": a.seed,
        },
        "results": results,
        "link": f"/{s.PAGE}?{s.query_string()}",
    }
    if a.json:
        print(_dump(out))
    else:
        for r in results:
            print(f"{r['algorithm']:>5}: PAC({1 - a.beta:.0%}) = {r['pac']:.5g}   MSE = {r['mse']:.4g}")
    return 0


def ht_summarize(errors, beta):
    from hetdp_core import hetero as ht

    return ht.summarize(errors, beta=beta)


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    hp = sub.add_parser("hetero", help="per-user privacy: heterogeneous DP for frequencies and means")
    hsub = hp.add_subparsers(dest="cmd", required=True)
    hw = hsub.add_parser("weights", help="weights, noise scale and effective privacy of one algorithm")
    hw.add_argument("--problem", choices=["frequency", "mean"], required=True)
    hw.add_argument("--variant", choices=["CP", "CE", "UP", "UE", "A", "CT", "UT", "UNI", "PROP"], required=True)
    hw.add_argument("--eps", required=True, help="demands, e.g. 0.1,0.5,inf or @file")
    hw.add_argument("--k", type=int, default=5)
    hw.add_argument("--beta", type=float, default=0.05)
    hw.add_argument("--solver", choices=["fast", "cvxpy"], default="fast")
    hw.add_argument("--json", action="store_true")
    hw.set_defaults(func=cmd_hetero_weights)
    hr = hsub.add_parser("run", help="error samples per algorithm")
    hr.add_argument("--problem", choices=["frequency", "mean"], default="frequency")
    hr.add_argument("--dataset", choices=["synthetic", "randhie"], default="synthetic")
    hr.add_argument("--n", type=int, default=10_000)
    hr.add_argument("--k", type=int, default=5)
    hr.add_argument("--eps-by-bin", default="0.05,0.5,2,0.5,0.05", help="correlated demand per bin ('' for groups)")
    hr.add_argument("--shares", default="0.3,0.5,0.2")
    hr.add_argument("--lows", default="0.01,0.1,1")
    hr.add_argument("--highs", default="0.1,1,5")
    hr.add_argument("--setting", choices=["correlated", "uncorrelated"], default="correlated")
    hr.add_argument("--algorithms", default="CP,CE,UP,UE,A,UNI,PROP,SM,LDP")
    hr.add_argument("--beta", type=float, default=0.05)
    hr.add_argument("--trials", type=int, default=200)
    hr.add_argument("--seed", type=int, default=0)
    hr.add_argument("--solver", choices=["fast", "cvxpy"], default="fast")
    hr.add_argument("--sm-threshold", choices=["max_finite", "max"], default="max_finite")
    hr.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
    hr.add_argument("--json", action="store_true")
    hr.set_defaults(func=cmd_hetero_run)
