"""This page's older verb ``hetdp sgd run``: DP-SGD on the page's examples (``hetdp sgd theta`` is declared in
:mod:`hetdp_core.framework.commands`)."""

from __future__ import annotations

import numpy as np

from hetdp_ui.cli._common import BUDGET_NAMES, CliError, _dump, view


def cmd_sgd_run(a) -> int:
    """Alias of ``hetdp run DP_SGD_schedules``: the flags build the page's query (same seeds, the
    core's gradient sensitivity); the JSON keeps this verb's shape."""
    from hetdp_core.per_iteration.dpsgd import region

    if a.schedule == "custom" and not a.custom:
        raise CliError("--schedule custom needs --custom, e.g. --custom 0.1,0.05,0.02.")
    query = {
        "lr": a.schedule,
        "gamma0": a.gamma0,
        "rho": a.rho,
        "priv": "constant" if a.kappa == 0 else "power",
        "kappa": a.kappa,
        "eps": a.eps,
        "problem": a.problem,
        "Lambda": a.Lambda,
        "lam": a.lam,
        "steps": a.steps,
        "trials": a.trials,
        "compare": int(a.method != "dpsgd"),
        "n": a.n,
        "seed": a.seed,
        "sensitivity": a.sensitivity or 0,
        **({"custom": a.custom} if a.custom else {}),
    }
    s, result = view("DP_SGD_schedules", query, a)
    err = result.final_errors[_METHOD[a.method]]
    q25, med, q75 = np.quantile(err, [0.25, 0.5, 0.75])
    out = {
        "problem": a.problem,
        "method": a.method,
        "target": np.asarray(result.target).tolist(),
        "final_error": {"median": float(med), "q25": float(q25), "q75": float(q75)},
        "errors": err.tolist(),
        "converges_in_theory": bool(region(a.rho, a.kappa)) if a.schedule == "poly" else None,
        "sensitivity": result.sensitivity,
        "link": f"/{s.PAGE}?{s.query_string()}",
    }
    print(
        _dump(out)
        if a.json
        else f"{a.method} on {a.problem}: final |beta - beta*| median {med:.4g} "
        f"[{q25:.4g}, {q75:.4g}] over {a.trials} runs"
    )
    return 0


_METHOD = {"dpsgd": "DP-SGD", "sgd": "SGD (no noise)", "gd": "GD (full gradient)"}


def register(sub, groups) -> None:
    """Add ``run`` to the ``hetdp sgd`` commands (``groups["sgd"]``, generated from hetdp_core.framework.commands)."""
    sp = groups["sgd"].add_parser("run", help="simulate DP-SGD / SGD / GD on Example 33 or 34 (= run DP_SGD_schedules)")
    sp.add_argument("--schedule", choices=["constant", "poly", "step", "custom"], default="poly")
    sp.add_argument("--rho", type=float, default=0.5, help="learning-rate decay exponent")
    sp.add_argument("--gamma0", type=float, default=0.1)
    sp.add_argument("--custom", default=None, help="custom learning rates, e.g. 0.1,0.05,0.02")
    sp.add_argument("--kappa", type=float, default=0.0, help="privacy schedule a_h = h^kappa (0: constant)")
    sp.add_argument("--eps", type=float, default=1.0)
    sp.add_argument(
        "--sensitivity",
        type=float,
        default=None,
        help="gradient sensitivity Delta (default: the example's own, 2*Lambda or 4(1+2R); a smaller value is refused)",
    )
    sp.add_argument("--steps", type=int, default=100)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_sgd_run)
    sp.add_argument("--problem", choices=["mean", "ridge"], default="mean")
    sp.add_argument("--method", choices=["dpsgd", "sgd", "gd"], default="dpsgd")
    sp.add_argument("--n", type=int, default=1000)
    sp.add_argument("--Lambda", type=float, default=5.0, help="clipping level for Example 33")
    sp.add_argument("--lam", type=float, default=0.1, help="ridge penalty for Example 34")
    sp.add_argument(
        "--trials", "--runs", dest="trials", type=int, default=50, help="independent runs (--runs: old name)"
    )
    sp.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
    sp.add_argument("--seed", type=int, default=0)
