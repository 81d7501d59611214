"""This page's older verb ``hetdp regression``: private least squares against its baselines — an alias of ``hetdp run
Private_regression`` (the flags build the page's query; same seeds, same sweep grids)."""

from __future__ import annotations

from hetdp_ui.cli._common import BUDGET_NAMES, CliError, _dump, field_flags, given_fields, view

#: flags of the older verb that the page's scenario does not have, and what replaced them
REMOVED = {
    "theta": "the coefficients are the page's θ* = 0.5,-0.3,0.2,0.1,-0.1,0.05 (the first --features of them)",
    "values": "the sweep points are the page's grids: n = 1000,3000,10000,30000,100000 or ε = 1,2,4,8,16",
}


#: this verb's flags → the page's scenario fields (same names)
FIELDS = {
    f: f
    for f in (
        "axis", "n", "features", "noise", "q", "k", "demand", "eps", "radius",
        "schedule", "gamma0", "steps", "rho", "decay", "trials", "seed",
    )
}  # fmt: skip


def cmd_regression(a) -> int:
    for flag, note in REMOVED.items():
        if getattr(a, flag) is not None:
            raise CliError(f"--{flag} was removed: {note}. Drop it (`hetdp run Private_regression --help`).")
    s, result = view("Private_regression", given_fields(a, FIELDS), a)
    df = result.regression_excess_risk
    rows = df.to_dict(orient="records")  # a point without a value: null and the core's reason
    if a.json:
        print(_dump({"axis": s.axis, "rows": rows, "link": f"/{s.PAGE}?{s.query_string()}"}))
    else:
        print(df.to_string(index=False, float_format=lambda v: f"{v:.5g}", na_rep="no value"))
    return 0


def register(sub, groups) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands (``groups``: not used)."""
    rg = sub.add_parser(
        "regression", help="private least squares (Algorithm 2) vs baselines (= run Private_regression)"
    )
    field_flags(rg, "Private_regression", FIELDS)
    rg.add_argument("--lam", dest="decay", help="old name of --decay")
    rg.add_argument("--delta", dest="demand", help="old name of --demand")
    rg.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
    for flag in REMOVED:
        rg.add_argument(f"--{flag}", default=None, help="removed (see the message it gives)")
    rg.add_argument("--json", action="store_true")
    rg.set_defaults(func=cmd_regression)
