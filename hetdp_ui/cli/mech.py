"""``hetdp mech``: the mechanism catalogue."""

from __future__ import annotations

from hetdp_ui.cli._common import _dump, parse_list


def cmd_mech(a) -> int:
    from hetdp_core import mechanisms as mc

    if a.what == "release":
        out = {
            "releases": mc.release(
                a.value, a.mechanism, sensitivity=a.sensitivity, eps=a.eps, delta=a.delta, size=a.size, rng=a.seed
            ).tolist(),
            "noise_variance": mc.noise_variance(a.mechanism, sensitivity=a.sensitivity, eps=a.eps, delta=a.delta),
        }
    elif a.what == "bounded-laplace":
        b = mc.bounded_laplace_b(sensitivity=a.sensitivity, eps=a.eps, delta=a.delta, lower=a.lower, upper=a.upper)
        out = {"b": b, "plain_laplace_b": a.sensitivity / a.eps}
    elif a.what == "exponential":
        sc = parse_list(a.scores, "--scores")
        out = {
            "scores": sc,
            "exponential": mc.exponential_probabilities(sc, eps=a.eps, sensitivity=a.sensitivity).tolist(),
            "report_noisy_max": mc.report_noisy_max_probabilities(sc, eps=a.eps, sensitivity=a.sensitivity).tolist(),
        }
    else:
        data = parse_list(a.data, "--data")
        r = mc.smooth_noise(
            data, kind=a.kind, eps=a.eps, delta=a.delta, lower=a.lower, upper=a.upper, size=a.size, rng=a.seed
        )
        out = {
            "median": r["median"],
            "local_sensitivity": mc.local_sensitivity_median(data),
            "smooth_sensitivity": r["S"],
            "beta": r["beta"],
            "scale": r["scale"],
            "guarantee": r["guarantee"],
            "releases": r["releases"].tolist(),
        }
    print(_dump(out) if a.json else _dump(out, indent=2))
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    mp = sub.add_parser("mech", help="mechanism catalogue (lectures 17-20)")
    mp.add_argument("what", choices=["release", "bounded-laplace", "exponential", "smooth-median"])
    mp.add_argument("--mechanism", choices=["laplace", "gaussian", "mnm"], default="laplace")
    mp.add_argument("--value", type=float, default=0.0)
    mp.add_argument("--sensitivity", type=float, default=1.0)
    mp.add_argument("--eps", type=float, default=1.0)
    mp.add_argument("--delta", type=float, default=1e-5)
    mp.add_argument("--lower", type=float, default=0.0)
    mp.add_argument("--upper", type=float, default=1.0)
    mp.add_argument("--scores", default="15,20,25")
    mp.add_argument("--data", default="0,0,0,0,0,0,1,1,1,1,1")
    mp.add_argument("--kind", choices=["laplace", "heavy", "gaussian"], default="laplace")
    mp.add_argument("--size", type=int, default=5)
    mp.add_argument("--seed", type=int, default=0)
    mp.add_argument("--json", action="store_true")
    mp.set_defaults(func=cmd_mech)
