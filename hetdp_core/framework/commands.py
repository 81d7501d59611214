"""The numerics' own commands (``hetdp bcdp c-vector``, ``hetdp zcdp renyi``, …): calculations of one
source's formulas that no page view gives as a whole, each declared once as a :class:`Command`.

A command's inputs are a :class:`~hetdp_core.framework.scenario.Question` — frozen :func:`param` fields with the
shared constraints (:data:`EPS`, :data:`DEMAND`, :data:`SEED`, …), old names in ``ALIASES``, rules
between fields in ``RULES`` — and the command line is generated from it (one flag per field, its
range, default and old names in the help); its ``compute`` returns the JSON the command prints. The
command line's driver is :mod:`hetdp_ui.cli.commands`. Nothing here imports more than numpy at load: each
``compute`` imports the numerics it calls (``hetdp bcdp c-vector`` starts in ≈ 0.1 s).

Adding a command = a :class:`Question` subclass, a ``compute`` (and optionally a ``text``) and one
:class:`Command` in :data:`COMMANDS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ._doc import document
from .constraints import DEMAND, EPS, RHO, SEED, TRIALS, USERS, Interval, Numbers, Options, Rule, param
from .scenario import Question

__all__ = ["Command", "COMMANDS", "VERBS", "command"]

#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
verb | str | The command's verb (``bcdp``, ``zcdp``, ``sgd``, ``mech``, ``hetero``).
name | str | The command's name under its verb (``c-vector``).
"""


@dataclass(frozen=True)
class Command:
    """One command: ``hetdp <verb> <name>``, ``help`` its one-line description, ``question`` the class of
    its inputs (its fields are the flags), ``compute(question) -> dict`` the JSON it prints, ``text(question,
    out) -> str`` its plain output (None: the JSON, indented) and ``status(out) -> int`` its exit code
    (None: 0)."""

    verb: str
    name: str
    help: str
    question: type
    compute: Callable[[Question], dict]
    text: Callable[[Question, dict], str] | None = None
    status: Callable[[dict], int] | None = None


_PROBABILITY = Interval(float, 0.0, 1.0)
_ZETA = Interval(float, 0.0, 1.0, closed="right")
_POSITIVE = Interval(float, 0.0, None, closed="neither")
_ANY = Interval(float, None, None)


# ------------------------------------------------------------------ BCDP (Aliakbarpour et al., AISTATS 2025)


@dataclass(frozen=True)
class Allocation(Question):
    """Theorem 2's allocation of per-feature demands to budgets, and its guarantee check."""

    demands: tuple = param(
        (0.2, 0.2, 2.0, 2.0, math.inf), Numbers(DEMAND, allow_inf=True, max_len=10_000), "per-feature demands δ_i"
    )
    eps: float = param(2.0, EPS, "global LDP level ε")
    q: float = param(0.5, _PROBABILITY, "correlation bound q")
    zeta: float | None = param(None, _ZETA, "ζ of Theorem 2, (1 + q)/2 when left out", optional=True)

    ALIASES = {"delta": "demands"}


def _allocation(a: Allocation) -> dict:
    from ..per_feature.bcdp import mechanism_guarantee, privacy_allocation

    alloc = privacy_allocation(demands=a.demands, eps=a.eps, q=a.q, zeta=a.zeta)
    g = mechanism_guarantee(alloc)
    chk = g.check
    return {
        "c": alloc.c.tolist(),
        "ldp_level": alloc.ldp_level,
        "zeta": alloc.zeta,
        "guarantee": [
            {"demand": float(dl), "guaranteed": float(gd), "ok": bool(ok)}
            for dl, gd, ok in zip(chk.demanded, chk.guaranteed, chk.ok)
        ],
        "all_ok": chk.all_ok,
        "prop4_ldp": g.prop4_ldp.tolist(),
        "prop4_composition": g.prop4_composition.tolist(),
    }


def _allocation_text(a: Allocation, out: dict) -> str:
    cols = ["feature", "budget c_i", "demanded δ", "guaranteed δ'", "slack", "pass"]
    cols += ["bound from the whole-record level", "bound from composition"]
    rows = []
    for i, (c, g) in enumerate(zip(out["c"], out["guarantee"])):
        nums = (c, g["demand"], g["guaranteed"], g["demand"] - g["guaranteed"])
        rows.append(
            [f"x{i + 1}", *(f"{v:.6g}" for v in nums), "pass" if g["ok"] else "FAIL"]
            + [f"{out['prop4_ldp'][i]:.6g}", f"{out['prop4_composition'][i]:.6g}"]
        )
    widths = [max(len(c), *(len(r[j]) for r in rows)) for j, c in enumerate(cols)]
    head = f"zeta = {out['zeta']:.4g}; LDP level delivered c_d = {out['ldp_level']:.6g} (ε = {a.eps:g})"
    return "\n".join([head, *(" ".join(v.rjust(w) for v, w in zip(r, widths)) for r in [cols, *rows])])


def _one_demand_per_feature(v) -> bool:
    return v["d"] is None or v["d"] == len(v["demands"])


@dataclass(frozen=True)
class SweepQ(Question):
    """Monte Carlo squared errors of M_mean and the min-δ LDP baseline along q, with every switch of the
    channel (combinations the Feature-privacy page does not offer)."""

    n: int = param(10_000, USERS.narrow(1, 10_000_000), "number of users")
    d: int | None = param(None, Interval(int, 1, 500), "number of features, one per demand", optional=True)
    eps: float = param(2.0, EPS, "global LDP level ε")
    demands: tuple = param((0.2, 0.2) + (2.0,) * 8, Numbers(DEMAND, allow_inf=True, max_len=500), "per-feature demands")
    q: tuple = param((0.01, 0.5, 1.0), Numbers(_PROBABILITY, max_len=60), "correlations q to sweep")
    zeta: float | None = param(None, _ZETA, "ζ of Theorem 2, (1 + q)/2 when left out", optional=True)
    trials: int = param(100, TRIALS.narrow(1, 1_000_000), "Monte Carlo trials")
    seed: int = param(0, SEED, "random seed")
    duchi_scale: str = param("unbiased", Options(("unbiased", "paper")), "Duchi et al.'s constant")
    projection: str = param("box", Options(("box", "ball", "none")), "projection of M_mean's estimate")
    baseline_projection: str = param("box", Options(("box", "ball", "none")), "projection of the baseline's estimate")

    ALIASES = {"delta": "demands"}
    RULES = (
        Rule(
            "one demand per feature",
            _one_demand_per_feature,
            lambda v: f"d is {v['d']} but demands has {len(v['demands'])} entries; give one demand per feature.",
        ),
    )


def _errors_block(errs: np.ndarray) -> dict:
    from ..per_feature.bcdp_sim import _summary  # the sweep's own summary of its arrays

    return {"errors": errs.tolist(), **_summary(errs)}


def _sweep_q(a: SweepQ) -> dict:
    from ..per_feature.bcdp_sim import sweep_points

    same = dict(eps=a.eps, zeta=a.zeta, n=a.n, trials=a.trials, seed=a.seed, projection=a.projection)
    points = sweep_points(
        axis="q", values=a.q, demands=a.demands, q=a.q[0], scale=a.duchi_scale,
        baseline_projection=a.baseline_projection, **same,
    )  # fmt: skip
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
        for q, _, _, res in points
    ]
    params = {**same, "d": len(a.demands), "demands": list(a.demands), "q": list(a.q)}
    return {"params": params | {"duchi_scale": a.duchi_scale, "baseline_projection": a.baseline_projection},
            "results": results}  # fmt: skip


def _sweep_q_text(a: SweepQ, out: dict) -> str:
    lines = [f"{'q':>6} {'M_mean median':>14} {'[q25, q75]':>24} {'min-δ LDP median':>17} {'[q25, q75]':>24} {'s':>6}"]
    for r in out["results"]:
        m, b = r["mmean"], r["baseline"]
        lines.append(
            f"{r['q']:6.3g} {m['median']:14.5g} [{m['q25']:10.4g}, {m['q75']:10.4g}] "
            f"{b['median']:17.5g} [{b['q25']:10.4g}, {b['q75']:10.4g}] {r['seconds']:6.2f}"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class ExactExamples(Question):
    """Exact BCDP, LDP and CDP levels of the paper's finite examples."""

    example: str = param(
        "1",
        Options({"1": "Example 1 (a, b, c)", "2": "Example 2 (one vs two copies)", "rr": "randomized response"}),
        "example",
    )
    a: float = param(0.5, _PROBABILITY, "P(M = 1 given x = (0, 0)), Example 1")
    b: float = param(0.5, _PROBABILITY, "P(M = 1 given x = (1, 0)), Example 1")
    c: float = param(0.5, _PROBABILITY, "P(M = 1 given x = (1, 1)), Example 1")
    rr_c: tuple = param((0.3, 0.3, 0.3), Numbers(Interval(float, 0.0, 700.0), max_len=10), "RR levels per coordinate")
    q: tuple = param((0.0, 0.25, 0.5, 0.75, 1.0), Numbers(_PROBABILITY, max_len=60), "correlations q of example rr")


def _report_dict(rep) -> dict:
    return {"bcdp": rep.bcdp.tolist(), "cdp": rep.cdp.tolist(), "ldp": rep.ldp, "tv": rep.tv.tolist()}


def _exact(a: ExactExamples) -> dict:
    from ..per_feature import bcdp_exact as ex

    if a.example == "1":
        prior, mech = ex.example1(a=a.a, b=a.b, c=a.c)
        rep = _report_dict(ex.exact_report(prior, mech))
        return {"example": 1, "a": a.a, "b": a.b, "c": a.c, **rep, "p_one": mech[..., 1].tolist()}
    if a.example == "2":
        prior, one = ex.example2(copies=1)
        _, two = ex.example2(copies=2)
        xor = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
        return {
            "example": 2,
            "one_copy": _report_dict(ex.exact_report(prior, one)),
            "two_copies": _report_dict(ex.exact_report(prior, two)),
            "post_processed_xor": _report_dict(ex.exact_report(prior, ex.post_process(one, xor))),
        }
    df = ex.rr_sweep(c=list(a.rr_c), qs=list(a.q)).table
    return {"example": "rr", "c": list(a.rr_c), "rows": df.to_dict(orient="records")}


# ------------------------------------------------------------------ group-wise zCDP


@dataclass(frozen=True)
class Renyi(Question):
    """Rényi divergences D_α in both directions against the claimed budget, for one group count."""

    algorithm: str = param("1", Options(("1", "2")), "algorithm")
    x: float = param(10.0, Interval(float, 0.0, None), "the group's count")
    r: float = param(0.2, Interval(float, 0.0, 10.0, closed="right"), "relative error r")
    rho: float = param(2.0, RHO, "zCDP level ρ, σ² = 1/(2ρ)")
    alpha: tuple = param((1.5, 2.0, 5.0, 10.0), Numbers(Interval(float, 1.0, None, closed="neither")), "Rényi orders α")


def _renyi(a: Renyi) -> dict:
    from ..per_group import zcdp

    alg = int(a.algorithm)
    c = zcdp.renyi_curves(algorithm=alg, x=a.x, rho=a.rho, r=a.r, alpha=list(a.alpha))
    rep = zcdp.check_claim(c)
    out = {
        "alpha": c.alpha.tolist(),
        "up": c.up.tolist(),
        "down": c.down.tolist(),
        "claimed": c.claimed.tolist(),
        "violated": c.violated.tolist(),
        "reference": zcdp.claim_reference(alg),
        **rep.as_dict(),
    }
    if alg == 2:
        out["violation_orders"] = zcdp.algorithm2_violation_orders(x=a.x, r=a.r).as_dict()
    if rep.unresolved:
        out["note"] = (
            f"D_alpha could not be resolved to the numerical tolerance ({zcdp.ALG1_REL_TOL:g} relative) "
            f"for alpha = {', '.join(f'{v:g}' for v in rep.unresolved)}; those entries are null."
        )
    return out


def _renyi_text(a: Renyi, out: dict) -> str:
    lines = [f"Algorithm {a.algorithm}, x = {a.x:g}, rho = {a.rho:g}, r = {a.r:g}; reference: {out['reference']}"]
    lines.append(f"{'alpha':>8} {'up':>12} {'down':>12} {'claimed':>12}  ok")
    for al, u, d, cl, bad in zip(out["alpha"], out["up"], out["down"], out["claimed"], out["violated"]):
        if math.isnan(u) or math.isnan(d):
            lines.append(f"{al:8.4g} {'unresolved':>12} {'unresolved':>12} {cl:12.6g}  numerical tolerance not met")
        else:
            lines.append(f"{al:8.4g} {u:12.6g} {d:12.6g} {cl:12.6g}  {'VIOLATED' if bad else 'ok'}")
    if a.algorithm == "2":
        inf, first = out["alpha_infinite"], out["violation_orders"]["first"]
        lines.append(
            "infinite from alpha: "
            + ", ".join(f"{k} {v:.6g}" for k, v in inf.items() if k != "first" and v is not None)
            + "; first violation of the claim: "
            + (f"alpha = {first:.6g}" if first else "none")
        )
    if "note" in out:
        lines.append(out["note"])
    return "\n".join(lines)


@dataclass(frozen=True)
class Release(Question):
    """Noisy counts of Algorithm 1 or 2, their mean error and the accuracy bound."""

    counts: tuple = param((0.0, 3.0, 50.0, 400.0), Numbers(Interval(float, 0.0, None), max_len=10_000), "group counts")
    algorithm: str = param("1", Options(("1", "2")), "algorithm")
    r: float = param(0.2, Interval(float, 0.0, 10.0, closed="right"), "relative error r")
    rho: float = param(2.0, RHO, "zCDP level ρ")
    trials: int = param(1, TRIALS.narrow(1, 10_000_000), "releases")
    seed: int = param(0, SEED, "random seed")


def _release(a: Release) -> dict:
    from ..per_group import zcdp

    alg = int(a.algorithm)
    Y = zcdp.release(list(a.counts), rho=a.rho, r=a.r, algorithm=alg, trials=a.trials, rng=a.seed)
    bound = zcdp.accuracy_bound(list(a.counts), rho=a.rho, r=a.r, algorithm=alg)
    err = np.abs(Y - np.asarray(a.counts))
    return {
        "counts": list(a.counts),
        "released": Y.tolist(),
        "mean": Y.mean(axis=0).tolist(),
        "mean_abs_error": err.mean(axis=0).tolist(),
        "accuracy_bound": bound.tolist(),
    }


def _release_text(a: Release, out: dict) -> str:
    lines = [f"{'count':>10} {'mean release':>14} {'E|err|':>10} {'bound':>10}"]
    for c, m, e, b in zip(out["counts"], out["mean"], out["mean_abs_error"], out["accuracy_bound"]):
        lines.append(f"{c:10g} {m:14.6g} {e:10.4g} {b:10.4g}")
    return "\n".join(lines)


# ------------------------------------------------------------------ DP-SGD schedules


@dataclass(frozen=True)
class Theta(Question):
    """DP-SGD's noise scales θ_h and each release's guarantee for a learning-rate and privacy schedule."""

    schedule: str = param("poly", Options(("constant", "poly", "step", "custom")), "learning-rate schedule")
    rho: float = param(0.5, Interval(float, 0.0, 10.0), "learning-rate decay exponent ρ")
    gamma0: float = param(0.1, _POSITIVE, "first learning rate γ₀")
    custom: tuple | None = param(None, Numbers(_POSITIVE, max_len=100_000), "custom learning rates", optional=True)
    kappa: float = param(0.0, Interval(float, 0.0, 10.0), "privacy schedule a_h = h^κ, 0 for constant")
    eps: float = param(1.0, Interval(float, EPS.lo, 1e3), "privacy level ε")
    sensitivity: float = param(1.0, _POSITIVE, "gradient sensitivity Δ")
    steps: int = param(100, Interval(int, 1, 10_000_000), "steps")


def _theta(a: Theta) -> dict:
    from ..per_iteration import dpsgd as sg

    g = sg.learning_rates(
        schedule=a.schedule, steps=a.steps, gamma0=a.gamma0, rho=a.rho, custom=list(a.custom) if a.custom else None
    )
    av = sg.privacy_schedule(kind="constant" if a.kappa == 0 else "power", steps=a.steps, kappa=a.kappa)
    th = sg.theta(gammas=g, a=av, sensitivity=a.sensitivity, eps=a.eps)
    return {
        "h": list(range(1, a.steps + 1)),
        "theta": th.tolist(),
        "eps_release": (a.eps * av).tolist(),
        "gamma": g.tolist(),
        "sensitivity": a.sensitivity,
    }


def _theta_text(a: Theta, out: dict) -> str:
    rows = list(zip(out["h"], out["theta"], out["eps_release"]))[:20]
    lines = [f"h={h:5d}  theta={t:12.6g}  release is {e:.4g}-DP" for h, t, e in rows]
    return "\n".join(lines + ([f"... ({a.steps} steps; use --json for all)"] if a.steps > 20 else []))


# ------------------------------------------------------------------ the course's mechanisms


@dataclass(frozen=True)
class Mechanism(Question):
    """The inputs of the mechanism catalogue's four commands (each reads the ones it needs)."""

    mechanism: str = param("laplace", Options(("laplace", "gaussian", "mnm")), "noise")
    value: float = param(0.0, _ANY, "the true value")
    sensitivity: float = param(1.0, _POSITIVE, "sensitivity Δ")
    eps: float = param(1.0, EPS, "privacy level ε")
    delta: float = param(1e-5, Interval(float, 0.0, 1.0, closed="left"), "δ of (ε, δ)-DP")
    lower: float = param(0.0, _ANY, "lower end of the output range")
    upper: float = param(1.0, _ANY, "upper end of the output range")
    scores: tuple = param((15.0, 20.0, 25.0), Numbers(_ANY, max_len=10_000), "scores of the candidates")
    data: tuple = param((0.0,) * 6 + (1.0,) * 5, Numbers(_ANY, max_len=100_000), "the data of the smooth median")
    kind: str = param("laplace", Options(("laplace", "heavy", "gaussian")), "smooth-sensitivity noise")
    size: int = param(5, Interval(int, 1, 1_000_000), "releases")
    seed: int = param(0, SEED, "random seed")


def _mech_release(a: Mechanism) -> dict:
    from ..noise import mechanisms as mc

    same = dict(sensitivity=a.sensitivity, eps=a.eps, delta=a.delta)
    return {
        "releases": mc.release(a.value, a.mechanism, **same, size=a.size, rng=a.seed).tolist(),
        "noise_variance": mc.noise_variance(a.mechanism, **same),
    }


def _bounded_laplace(a: Mechanism) -> dict:
    from ..noise import mechanisms as mc

    b = mc.bounded_laplace_b(sensitivity=a.sensitivity, eps=a.eps, delta=a.delta, lower=a.lower, upper=a.upper)
    return {"b": b, "plain_laplace_b": a.sensitivity / a.eps}


def _exponential(a: Mechanism) -> dict:
    from ..noise import mechanisms as mc

    sc = list(a.scores)
    return {
        "scores": sc,
        "exponential": mc.exponential_probabilities(sc, eps=a.eps, sensitivity=a.sensitivity).tolist(),
        "report_noisy_max": mc.report_noisy_max_probabilities(sc, eps=a.eps, sensitivity=a.sensitivity).tolist(),
    }


def _smooth_median(a: Mechanism) -> dict:
    from ..noise import mechanisms as mc

    data = list(a.data)
    r = mc.smooth_noise(
        data, kind=a.kind, eps=a.eps, delta=a.delta, lower=a.lower, upper=a.upper, size=a.size, rng=a.seed
    )
    return {
        "median": r["median"],
        "local_sensitivity": mc.local_sensitivity_median(data),
        "smooth_sensitivity": r["S"],
        "beta": r["beta"],
        "scale": r["scale"],
        "guarantee": r["guarantee"],
        "releases": r["releases"].tolist(),
    }


# ------------------------------------------------------------------ per-user privacy


@dataclass(frozen=True)
class UserWeights(Question):
    """One algorithm's weights, noise scale and effective privacy for given per-user demands."""

    problem: str = param("frequency", Options(("frequency", "mean")), "problem")
    variant: str = param("CP", Options(("CP", "CE", "UP", "UE", "A", "CT", "UT", "UNI", "PROP")), "algorithm")
    demands: tuple = param(
        (0.1, 0.5, math.inf),
        Numbers(Interval(float, 1e-6, None), allow_inf=True, max_len=10_000_000),
        "per-user demands ε_i",
    )
    k: int = param(5, Interval(int, 2, 1_000_000), "number of bins k of the frequency problem")
    beta: float = param(0.05, Interval(float, 0.0, 1.0, closed="neither"), "failure probability β")
    solver: str = param("fast", Options(("fast", "cvxpy")), "solver")

    ALIASES = {"eps": "demands"}


def _weights(a: UserWeights) -> dict:
    from ..per_user import hetero as ht

    w = ht.weights(np.asarray(a.demands), algorithm=a.variant, problem=a.problem, k=a.k, beta=a.beta, solver=a.solver)
    return {
        "weights": w.weights.tolist(),
        "b": w.b,
        "eps_eff": w.eps_eff.tolist(),
        "objective": w.objective,
        "solver": w.solver,
        "t": w.t,
        "note": w.note,
        "bias_bound": ht.bias_bound(w.weights),
    }


def _weights_text(a: UserWeights, out: dict) -> str:
    head = (
        f"{a.variant} ({out['solver']}): b = {out['b']:.6g}, objective = {out['objective']:.6g}, "
        f"bias bound T = {out['bias_bound']:.4g}"
    )
    rows = list(zip(a.demands, out["weights"], out["eps_eff"]))[:30]
    return "\n".join([head, *(f"  eps = {e:<10g} w = {wi:.6g}  eps_eff = {ee:.6g}" for e, wi, ee in rows)])


#: every command, in the order ``hetdp --help`` lists them
COMMANDS: tuple[Command, ...] = (
    Command(
        "bcdp",
        "c-vector",
        "privacy allocation c of Theorem 2 and its guarantee check",
        Allocation,
        _allocation,
        _allocation_text,
        status=lambda out: 0 if out["all_ok"] else 1,
    ),
    Command(
        "bcdp", "mse", "Monte Carlo squared errors of M_mean and min-δ LDP along q", SweepQ, _sweep_q, _sweep_q_text
    ),
    Command("bcdp", "exact", "exact BCDP/LDP/CDP levels on finite examples", ExactExamples, _exact),
    Command("zcdp", "renyi", "D_alpha in both directions vs the claimed budget", Renyi, _renyi, _renyi_text),
    Command("zcdp", "release", "release noisy counts", Release, _release, _release_text),
    Command("sgd", "theta", "noise scales theta_h and per-release guarantees", Theta, _theta, _theta_text),
    Command("mech", "release", "releases of the Laplace, Gaussian or MnM mechanism", Mechanism, _mech_release),
    Command("mech", "bounded-laplace", "the bounded Laplace mechanism's scale", Mechanism, _bounded_laplace),
    Command("mech", "exponential", "exponential mechanism and report-noisy-max probabilities", Mechanism, _exponential),
    Command("mech", "smooth-median", "the median with smooth-sensitivity noise", Mechanism, _smooth_median),
    Command(
        "hetero",
        "weights",
        "weights, noise scale and effective privacy of one algorithm",
        UserWeights,
        _weights,
        _weights_text,
    ),
)

#: each verb's one-line description (``hetdp --help``)
VERBS: Mapping[str, str] = MappingProxyType(
    {
        "bcdp": "feature-specific privacy (BCDP) mean estimation",
        "zcdp": "group-wise zCDP lab",
        "sgd": "DP-SGD schedules (Theorems 36-37)",
        "mech": "mechanism catalogue (lectures 17-20)",
        "hetero": "per-user privacy: heterogeneous DP for frequencies and means",
    }
)


def command(verb: str, name: str) -> Command:
    """The command ``hetdp <verb> <name>``."""
    return next(t for t in COMMANDS if (t.verb, t.name) == (verb, name))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
