"""``hetdp regression``: private least squares against its baselines."""

from __future__ import annotations

from hetdp_ui.cli._common import _dump, parse_list


def cmd_regression(a) -> int:
    from hetdp_core.regression import excess_risk_sweep

    theta = parse_list(a.theta, "--theta")
    values = parse_list(a.values, "--values")
    df = excess_risk_sweep(
        axis=a.axis,
        values=values,
        n=a.n,
        theta=theta,
        noise=a.noise,
        q=a.q,
        k_sensitive=a.k,
        delta=a.delta,
        eps=a.eps,
        radius=a.radius,
        schedule=a.schedule,
        gamma0=a.gamma0,
        steps=a.steps,
        rho=a.rho,
        decay=a.decay,
        trials=a.trials,
        seed=a.seed,
    )
    rows = df.to_dict(orient="records")  # a point without a value: null and the core's reason
    if a.json:
        print(_dump({"axis": a.axis, "rows": rows}))
    else:
        print(df.to_string(index=False, float_format=lambda v: f"{v:.5g}", na_rep="no value"))
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    rg = sub.add_parser("regression", help="private least squares (Algorithm 2) vs baselines")
    rg.add_argument("--axis", choices=["n", "eps"], default="n")
    rg.add_argument("--values", default="1000,10000,100000", help="values of n or eps to sweep")
    rg.add_argument("--n", type=int, default=10_000, help="users (when sweeping eps)")
    rg.add_argument("--theta", default="0.5,-0.3,0.2", help="true coefficients (features = len)")
    rg.add_argument("--noise", type=float, default=0.1)
    rg.add_argument("--q", type=float, default=0.1, help="feature correlation")
    rg.add_argument("--k", type=int, default=1, help="sensitive features (demand --delta)")
    rg.add_argument("--delta", type=float, default=2.0)
    rg.add_argument("--eps", type=float, default=8.0)
    rg.add_argument("--radius", type=float, default=1.0)
    rg.add_argument("--schedule", choices=["constant", "poly", "inverse"], default="constant")
    rg.add_argument("--gamma0", type=float, default=1.0)
    rg.add_argument("--steps", type=int, default=200)
    rg.add_argument("--rho", type=float, default=0.5)
    rg.add_argument(
        "--decay",
        "--lam",
        dest="decay",
        type=float,
        default=0.1,
        help="decay rate λ of the inverse schedule (--lam: old name)",
    )
    rg.add_argument("--trials", type=int, default=10)
    rg.add_argument("--seed", type=int, default=0)
    rg.add_argument("--json", action="store_true")
    rg.set_defaults(func=cmd_regression)
