"""``hetdp meaning``: what a privacy level means — posterior bound and risk in attack terms."""

from __future__ import annotations

from hetdp_ui.cli._common import _dump, parse_list, risk_arguments


def cmd_meaning(a) -> int:
    """``hetdp meaning``: the attacker's worst-case posterior for levels ε (or ρ-zCDP at δ)."""
    from hetdp_core.reading.meaning import Level, meaning_of, zcdp_to_eps

    levels = parse_list(a.eps, "--eps")
    eps = zcdp_to_eps(rho=levels, delta=a.delta) if a.zcdp else levels
    lv = [Level(f"{'ρ' if a.zcdp else 'ε'} = {v:g}", float(e)) for v, e in zip(levels, eps)]
    meaning = meaning_of(lv, prior=a.prior, delta=a.delta if a.zcdp else None, fpr=a.fpr)
    solved = None
    if a.target_tpr is not None:
        from hetdp_core.reading.risk import eps_for_tpr, mu_for_tpr

        mu = mu_for_tpr(target_tpr=a.target_tpr, fpr=a.fpr)
        solved = {
            "target_tpr": a.target_tpr,
            "fpr": a.fpr,
            "largest_eps": eps_for_tpr(target_tpr=a.target_tpr, fpr=a.fpr),
            "largest_mu": mu,
            "smallest_sigma_over_sensitivity": 1.0 / mu,
        }
    if a.json:
        print(
            _dump({"prior": a.prior, "fpr": a.fpr, "rows": meaning.table().to_dict(orient="records"), "solve": solved})
        )
    else:
        for r in meaning.rows:
            print(f"{r.level.name}: {r.in_words}; {r.risk_in_words}; maximal advantage {r.max_advantage:.3g}")
        if solved:
            print(
                f"to keep the attack TPR at FPR {a.fpr:g} at or below {a.target_tpr:g}: "
                f"ε ≤ {solved['largest_eps']:.4g} (pure DP), or Gaussian noise "
                f"σ/Δ ≥ {solved['smallest_sigma_over_sensitivity']:.4g}"
            )
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    mn = sub.add_parser("meaning", help="what a privacy level means: an attacker's worst-case posterior")
    mn.add_argument("--eps", required=True, help="levels, e.g. 0.1,1,2,inf (with --zcdp: zCDP levels ρ)")
    mn.add_argument("--prior", type=float, default=0.01, help="the attacker's prior probability p in (0, 1)")
    mn.add_argument("--zcdp", action="store_true", help="the levels are ρ-zCDP: convert to (ε, δ) first")
    mn.add_argument("--delta", type=float, default=1e-6, help="δ of the zCDP conversion (default 1e-6)")
    risk_arguments(
        mn,
        fpr_help="the attack false-positive rate",
        target_help="the largest ε and smallest Gaussian σ/Δ whose attack TPR at --fpr stays at or below this",
    )
    mn.add_argument("--json", action="store_true")
    mn.set_defaults(func=cmd_meaning)
