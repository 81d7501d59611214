"""This page's older verb ``hetdp hetero run``: per-user privacy, an alias of ``hetdp run
Per_user_privacy`` (``hetdp hetero weights`` is declared in :mod:`hetdp_core.framework.commands`)."""

from __future__ import annotations

from hetdp_ui.cli._common import BUDGET_NAMES, _dump, field_flags, given_fields, view

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
    from hetdp_core.per_user import hetero as ht
    from hetdp_core.reading.words import quantile_share

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
            print(f"{r['algorithm']:>5}: PAC({quantile_share(s.beta)}) = {r['pac']:.5g}   MSE = {r['mse']:.4g}")
    return 0


def register(sub, groups) -> None:
    """Add ``run`` to the ``hetdp hetero`` commands (``groups["hetero"]``, generated from
    hetdp_core.framework.commands)."""
    hr = groups["hetero"].add_parser("run", help="error samples per algorithm (= run Per_user_privacy)")
    field_flags(hr, "Per_user_privacy", RUN_FIELDS)
    hr.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
    hr.add_argument("--json", action="store_true")
    hr.set_defaults(func=cmd_hetero_run)
