"""``hetdp zcdp renyi | release``: the group-wise zCDP lab."""

from __future__ import annotations

import math

import numpy as np

from hetdp_ui.cli._common import _dump, parse_list, verb_with_commands


def cmd_zcdp_renyi(a) -> int:
    from hetdp_core import zcdp
    from hetdp_core.scenarios.groupwise_zcdp import claim_reference

    alphas = parse_list(a.alpha, "--alpha")
    c = zcdp.renyi_curves(algorithm=a.algorithm, x=a.x, rho=a.rho, r=a.r, alpha=alphas)
    rep = zcdp.check_claim(c)
    out = {
        "alpha": c.alpha.tolist(),
        "up": c.up.tolist(),
        "down": c.down.tolist(),
        "claimed": c.claimed.tolist(),
        "violated": c.violated.tolist(),
        "reference": claim_reference(a.algorithm),
        **rep.as_dict(),
    }
    if a.algorithm == 2:
        out["violation_orders"] = zcdp.algorithm2_violation_orders(x=a.x, r=a.r)
    if rep.unresolved:
        out["note"] = (
            f"D_alpha could not be resolved to the numerical tolerance ({zcdp.ALG1_REL_TOL:g} relative) "
            f"for alpha = {', '.join(f'{v:g}' for v in rep.unresolved)}; those entries are null."
        )
    if a.json:
        print(_dump(out))
    else:
        print(f"Algorithm {a.algorithm}, x = {a.x:g}, rho = {a.rho:g}, r = {a.r:g}; reference: {out['reference']}")
        print(f"{'alpha':>8} {'up':>12} {'down':>12} {'claimed':>12}  ok")
        for al, u, d, cl, bad in zip(c.alpha, c.up, c.down, c.claimed, c.violated):
            if math.isnan(u) or math.isnan(d):
                print(f"{al:8.4g} {'unresolved':>12} {'unresolved':>12} {cl:12.6g}  numerical tolerance not met")
                continue
            print(f"{al:8.4g} {u:12.6g} {d:12.6g} {cl:12.6g}  {'VIOLATED' if bad else 'ok'}")
        if a.algorithm == 2:
            inf = rep.alpha_infinite
            print(
                "infinite from alpha: "
                + ", ".join(f"{k} {v:.6g}" for k, v in inf.items() if k != "first" and v is not None)
                + "; first violation of the claim: "
                + (f"alpha = {out['violation_orders']['first']:.6g}" if out["violation_orders"]["first"] else "none")
            )
        if "note" in out:
            print(out["note"])
    return 0


def cmd_zcdp_release(a) -> int:
    from hetdp_core import zcdp

    counts = parse_list(a.counts, "--counts")
    Y = zcdp.release(counts, rho=a.rho, r=a.r, algorithm=a.algorithm, trials=a.trials, rng=a.seed)
    bound = zcdp.accuracy_bound(counts, rho=a.rho, r=a.r, algorithm=a.algorithm)
    err = np.abs(Y - np.asarray(counts))
    out = {
        "counts": counts,
        "released": Y.tolist(),
        "mean": Y.mean(axis=0).tolist(),
        "mean_abs_error": err.mean(axis=0).tolist(),
        "accuracy_bound": bound.tolist(),
    }
    if a.json:
        print(_dump(out))
    else:
        print(f"{'count':>10} {'mean release':>14} {'E|err|':>10} {'bound':>10}")
        for c, m, e, b in zip(counts, out["mean"], out["mean_abs_error"], bound):
            print(f"{c:10g} {m:14.6g} {e:10.4g} {b:10.4g}")
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    zsub = verb_with_commands(sub, "zcdp", "group-wise zCDP lab")
    zr = zsub.add_parser("renyi", help="D_alpha in both directions vs the claimed budget")
    zr.add_argument("--algorithm", type=int, choices=[1, 2], required=True)
    zr.add_argument("--x", type=float, required=True, help="group count")
    zr.add_argument("--r", type=float, required=True, help="relative error r")
    zr.add_argument("--rho", type=float, required=True, help="zCDP level rho (sigma^2 = 1/(2 rho))")
    zr.add_argument("--alpha", required=True, help="Renyi orders > 1, e.g. 1.5,2,5,10")
    zr.add_argument("--json", action="store_true")
    zr.set_defaults(func=cmd_zcdp_renyi)
    zl = zsub.add_parser("release", help="release noisy counts")
    zl.add_argument("--counts", required=True, help="group counts, e.g. 0,3,50,400")
    zl.add_argument("--algorithm", type=int, choices=[1, 2], required=True)
    zl.add_argument("--r", type=float, required=True)
    zl.add_argument("--rho", type=float, required=True)
    zl.add_argument("--trials", type=int, default=1)
    zl.add_argument("--seed", type=int, default=0)
    zl.add_argument("--json", action="store_true")
    zl.set_defaults(func=cmd_zcdp_release)
