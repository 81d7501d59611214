"""``hetdp context``: where privacy levels lie among real deployments."""

from __future__ import annotations

from hetdp_ui.cli._common import _dump, parse_list


def cmd_context(a) -> int:
    """``hetdp context --eps E[,E…] [--delta D]``: each level's neighbours among the deployments, the
    caveat about units and periods, and (``--all``) every deployment."""
    from hetdp_core.framework._validate import check_real
    from hetdp_core.reading.deployments import CAVEAT, deployments, place, placement_rows

    levels = parse_list(a.eps, "--eps")
    if a.delta is not None:
        check_real("--delta", a.delta, lo=0.0, hi=1.0, hi_open=True, what=" (the δ of your levels)")
    tag = f" at δ = {a.delta:g}" if a.delta else ""
    rows = placement_rows([place(float(e), who=f"ε = {e:g}{tag}") for e in levels])
    deps = [
        {
            "deployment": d.name,
            "organisation": d.organisation,
            "model": d.model,
            "unit": d.unit,
            "period": d.period,
            "epsilon": d.epsilon,
            "delta": d.delta,
            "rho": d.rho,
            "converted_from_rho": d.converted,
            "note": d.note,
            "source": d.source,
        }
        for d in deployments()
    ]
    if a.json:
        print(_dump({"levels": rows, "caveat": CAVEAT, "deployments": deps}))
        return 0
    for r in rows:
        print(r["sentence"] + (f" {r['caution']}" if r["caution"] else ""))
    print(f"Caveat: {CAVEAT}")
    if a.all:
        for d in deps:
            print(
                f"  {d['epsilon']:8.3g}  {d['model']:7s}  per {d['unit']}, {d['period']}: {d['organisation']}, "
                f"{d['deployment']}" + (f" (from ρ = {d['rho']:g})" if d["converted_from_rho"] else "")
            )
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    cx = sub.add_parser("context", help="where privacy levels lie among real deployments (units and periods said)")
    cx.add_argument("--eps", required=True, help="levels ε, e.g. 0.5,2,8 (inf: no protection)")
    cx.add_argument("--delta", type=float, default=None, help="the δ of your levels, named in the output")
    cx.add_argument("--all", action="store_true", help="also list every deployment")
    cx.add_argument("--json", action="store_true")
    cx.set_defaults(func=cmd_context)
