"""``hetdp bcdp c-vector | mse | exact``: feature-specific privacy (BCDP) tools."""

from __future__ import annotations

import numpy as np

from hetdp_ui.cli._common import CliError, _dump, _errors_block, parse_list, verb_with_commands


def cmd_c_vector(a) -> int:
    from hetdp_core.bcdp import mechanism_guarantee, privacy_allocation

    demands = parse_list(a.demands, "--demands")
    alloc = privacy_allocation(demands=demands, eps=a.eps, q=a.q, zeta=a.zeta)
    g = mechanism_guarantee(alloc)
    chk = g.check
    out = {
        "c": alloc.c.tolist(),
        "ldp_level": alloc.ldp_level,
        "zeta": alloc.zeta,
        "guarantee": [
            {"demand": float(dl), "guaranteed": float(gd), "ok": bool(ok)}
            for dl, gd, ok in zip(chk.demanded, chk.guaranteed, chk.ok)
        ],
        "all_ok": chk.all_ok,
    }
    if a.json:
        print(_dump(out))
    else:
        print(f"zeta = {alloc.zeta:.4g}; LDP level delivered c_d = {alloc.ldp_level:.6g} (ε = {alloc.eps:g})")
        cols = [
            "feature",
            "budget c_i",
            "demanded δ",
            "guaranteed δ'",
            "slack",
            "pass",
            "bound from the whole-record level",
            "bound from composition",
        ]
        rows = [
            [
                f"x{i + 1}",
                *(f"{v:.6g}" for v in (alloc.c[i], chk.demanded[i], chk.guaranteed[i], chk.slack[i])),
                "pass" if chk.ok[i] else "FAIL",
                f"{g.prop4_ldp[i]:.6g}",
                f"{g.prop4_composition[i]:.6g}",
            ]
            for i in range(alloc.c.size)
        ]
        widths = [max(len(c), *(len(r[j]) for r in rows)) for j, c in enumerate(cols)]
        for r in [cols, *rows]:
            print(" ".join(v.rjust(w) for v, w in zip(r, widths)))
    return 0 if out["all_ok"] else 1


def cmd_mse(a) -> int:
    """The core's Monte Carlo sweep along q (:func:`hetdp_core.bcdp_sim.sweep_points`, the computation
    of each Feature-privacy sweep point, same seeds), with every switch of the channel — combinations the
    page does not offer. ``hetdp run Feature_privacy`` gives the page's whole view."""
    from hetdp_core.bcdp_sim import sweep_points

    demands = parse_list(a.demands, "--demands")
    if a.d is not None and a.d != len(demands):
        raise CliError(f"--d is {a.d} but --demands has {len(demands)} entries; give one demand per feature.")
    qs = parse_list(a.q, "--q")
    same = {k: getattr(a, k) for k in ("eps", "zeta", "n", "trials", "seed", "projection", "baseline_projection")}
    results = [
        {
            "q": q,
            "seconds": res.seconds,
            "c": res.allocation.c.tolist(),
            "ldp_level": res.allocation.ldp_level,
            "mmean": {**_errors_block(res.errors_mmean), "exact_mse_no_projection": res.exact_mmean},
            "baseline": {
                **_errors_block(res.errors_baseline),
                "level": res.baseline_level,
                "exact_mse_no_projection": res.exact_baseline,
            },
        }
        for q, _, _, res in sweep_points(axis="q", values=qs, demands=demands, q=qs[0], scale=a.duchi_scale, **same)
    ]
    params = {
        "n": a.n,
        "d": len(demands),
        "eps": a.eps,
        "demands": demands,
        "q": qs,
        "zeta": a.zeta,
        "trials": a.trials,
        "seed": a.seed,
        "duchi_scale": a.duchi_scale,
        "projection": a.projection,
        "baseline_projection": a.baseline_projection,
    }
    if a.json:
        print(_dump({"params": params, "results": results}))
    else:
        print(f"{'q':>6} {'M_mean median':>14} {'[q25, q75]':>24} {'min-δ LDP median':>17} {'[q25, q75]':>24} {'s':>6}")
        for r in results:
            m, b = r["mmean"], r["baseline"]
            print(
                f"{r['q']:6.3g} {m['median']:14.5g} [{m['q25']:10.4g}, {m['q75']:10.4g}] "
                f"{b['median']:17.5g} [{b['q25']:10.4g}, {b['q75']:10.4g}] {r['seconds']:6.2f}"
            )
    return 0


def cmd_exact(a) -> int:
    from hetdp_core import bcdp_exact as ex

    if a.example == "1":
        prior, mech = ex.example1(a=a.a, b=a.b, c=a.c)
        out = {
            "example": 1,
            "a": a.a,
            "b": a.b,
            "c": a.c,
            **_report_dict(ex.exact_report(prior, mech)),
            "p_one": mech[..., 1].tolist(),
        }
    elif a.example == "2":
        prior, one = ex.example2(copies=1)
        _, two = ex.example2(copies=2)
        xor = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
        out = {
            "example": 2,
            "one_copy": _report_dict(ex.exact_report(prior, one)),
            "two_copies": _report_dict(ex.exact_report(prior, two)),
            "post_processed_xor": _report_dict(ex.exact_report(prior, ex.post_process(one, xor))),
        }
    else:
        c = parse_list(a.rr_c, "--rr-c")
        qs = parse_list(a.q, "--q")
        df = ex.rr_sweep(c=c, qs=qs)
        out = {"example": "rr", "c": c, "rows": df.to_dict(orient="records")}
    if a.json:
        print(_dump(out))
    else:
        print(_dump(out, indent=2))
    return 0


def _report_dict(rep) -> dict:
    return {"bcdp": rep.bcdp.tolist(), "cdp": rep.cdp.tolist(), "ldp": rep.ldp, "tv": rep.tv.tolist()}


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    bsub = verb_with_commands(sub, "bcdp", "feature-specific privacy (BCDP) mean estimation")

    cv = bsub.add_parser("c-vector", help="privacy allocation c of Theorem 2 and its guarantee check")
    cv.add_argument(
        "--demands",
        "--delta",
        dest="demands",
        required=True,
        help="per-feature demands, e.g. 0.2,0.2,2,inf (--delta: old name)",
    )
    cv.add_argument("--eps", type=float, required=True, help="global LDP level ε")
    cv.add_argument("--q", type=float, required=True, help="correlation bound q in [0,1]")
    cv.add_argument("--zeta", type=float, default=None, help="ζ in (0,1] (default (1+q)/2)")
    cv.add_argument("--json", action="store_true")
    cv.set_defaults(func=cmd_c_vector)

    ms = bsub.add_parser("mse", help="Monte Carlo squared errors of M_mean and min-δ LDP")
    ms.add_argument("--n", type=int, required=True)
    ms.add_argument("--d", type=int, default=None, help="number of features (= length of --demands)")
    ms.add_argument("--eps", type=float, required=True)
    ms.add_argument(
        "--demands",
        "--delta",
        dest="demands",
        metavar="DEMANDS",
        required=True,
        help="per-feature demands (--delta: old name)",
    )
    ms.add_argument("--q", required=True, help="one or more q values, e.g. 0.1,0.5,1")
    ms.add_argument("--zeta", type=float, default=None)
    ms.add_argument("--trials", type=int, default=100)
    ms.add_argument("--seed", type=int, default=0)
    ms.add_argument("--duchi-scale", choices=["unbiased", "paper"], default="unbiased")
    ms.add_argument("--projection", choices=["box", "ball", "none"], default="box")
    ms.add_argument("--baseline-projection", choices=["box", "ball", "none"], default="box")
    ms.add_argument("--json", action="store_true")
    ms.set_defaults(func=cmd_mse)

    ex_ = bsub.add_parser("exact", help="exact BCDP/LDP/CDP levels on finite examples")
    ex_.add_argument(
        "--example",
        choices=["1", "2", "rr"],
        required=True,
        help="1: Example 1 (a, b, c); 2: Example 2 (one vs two copies); rr: per-coordinate "
        "randomized response under the q-mixture prior",
    )
    ex_.add_argument("--a", type=float, default=0.5)
    ex_.add_argument("--b", type=float, default=0.5)
    ex_.add_argument("--c", type=float, default=0.5)
    ex_.add_argument("--rr-c", default="0.3,0.3,0.3", help="RR levels per coordinate (d <= 10)")
    ex_.add_argument("--q", default="0,0.25,0.5,0.75,1", help="q values for --example rr")
    ex_.add_argument("--json", action="store_true")
    ex_.set_defaults(func=cmd_exact)
