"""Per-user privacy: heterogeneous-DP frequency (HPF) and mean (HPM) estimation.

Question: each person chose their own ε; what histogram or mean can be published, how accurate is
it, and who pays? Compares the weighting schemes (CP, CE, UP, UE, A, CT, UT) with UNI, PROP, SM and
LDP. Seeds: the data from ``seed``, group demands from ``seed + 1``, algorithm j from
``[seed, j]`` (j its index in ``hetero.ALGORITHMS``) — the same for the page, ``hetdp run`` and
``hetdp hetero run``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ...framework import scenario as sc
from ...framework._doc import document
from ...framework.constraints import SEED, TRIALS, USERS
from ...framework.memo import memoised
from ...framework.registry import PageSpec
from ...framework.scenario import Cost, InputError, Interval, Numbers, Options, Result, check_budget, param, table
from ...materials.datasets import SOURCE_SYNONYMS, SOURCES, data_path
from ...materials.sources import HETERO_PAPER
from ...per_user import hetero as ht
from ...per_user.objectives import Weights
from ...reading.meaning import Level
from .._common import map_points

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="Per_user_privacy",
    title="Per-user privacy",
    icon=":material/person:",
    order=4,
    summary=(
        "Each person chose their own ε — what histogram or average can we publish, how accurate "
        "is it, and who pays for it?"
    ),
    upload=True,
    solver="hetdp_core.scenarios.per_user_privacy.solve:solve_per_user",
    fast_query={"trials": "20", "n": "1000"},
    example_query=(
        "problem=mean&n=2000&demand=groups&shares=0.4,0.6&lows=0.05,1"
        "&highs=0.5,5&trials=40&seed=9&algs=CP,UE,A,UNI,SM,LDP"
        "&setting=uncorrelated&beta=0.1"
    ),
    key_tables=("hetero_summary",),
    text_view={"demand": "groups"},
    sources=(HETERO_PAPER,),
)
ALL_ALGS = tuple(ht.ALGORITHMS)
N_OPTIONS = (100, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000)
MAX_LDP_USERS = 50_000
#: a user's ε on this page (per bin, a group's low and high), +∞ allowed: wider than the shared DEMAND's
#: ≤ 700 so that links made before the shared constraints keep opening; declared once for the three fields
USER_EPS = Interval(float, 1e-4, 1e4)


@dataclass(frozen=True)
class PerUserPrivacy(sc.Scenario):
    problem: str = param("frequency", Options(tuple(ht.PROBLEMS)), "problem")
    dataset: str = param("synthetic", Options(SOURCES), "dataset", synonyms=SOURCE_SYNONYMS)
    n: int = param(10_000, USERS.narrow(100, 200_000), "number of users", caption="n users")
    k: int = param(5, Interval(int, 2, 50), "number of bins", caption="k bins")
    profile: str = param("peaked", Options(("uniform", "peaked", "skewed")), "bin profile")
    demand: str = param("by_value", Options({"by_value": "by value", "groups": "groups"}), "demand profile")
    eps_by_bin: tuple = param(
        (0.05, 0.5, 2, 0.5, 0.05),
        Numbers(USER_EPS, max_len=50, allow_inf=True),
        "ε per bin",
        caption="ε per bin (mean: per fifth of [0,1]…); inf = public",
    )
    shares: tuple = param(
        (0.3, 0.5, 0.2),
        Numbers(Interval(float, 1e-6, 1.0), max_len=20),
        "group shares",
        caption="group shares (sum to 1)",
    )
    lows: tuple = param(
        (0.01, 0.1, 1),
        Numbers(USER_EPS, max_len=20, allow_inf=True),
        "group ε low",
        caption="group ε low (inf = public)",
    )
    highs: tuple = param((0.1, 1, 5), Numbers(USER_EPS, max_len=20, allow_inf=True), "group ε high")
    setting: str = param("correlated", Options(("correlated", "uncorrelated")), "setting")
    beta: float = param(
        0.05,
        Interval(float, 0.001, 0.5),
        "β (PAC level)",
        caption="β: worst-case error holds in a share 1−β of releases",
    )
    algs: tuple = param(
        ("CP", "UP", "A", "UNI", "PROP", "SM"), sc.Subset(ALL_ALGS, max_len=len(ALL_ALGS)), "algorithms"
    )
    trials: int = param(200, TRIALS.narrow(20, 5000), "trials")
    solver: str = param("fast", Options(("fast", "cvxpy")), "solver for the weights")
    sm_threshold: str = param(
        "max_finite", Options(("max_finite", "max")), "SM threshold (max finite ε, or the paper's max ε)"
    )
    seed: int = param(0, SEED, "random seed", caption="seed")

    def estimate(self, n: int | None = None, k: int | None = None) -> Cost:
        """Measured: 2e8 (trial × user) steps of a weighted release in 0.5 s; random permutations
        (uncorrelated setting) ≈ 4× that; the LDP baseline draws k flips per user and trial; one cvxpy
        weight solve ≈ 6e-5 s per user (n = 20 000: 1.2 s)."""
        if n is None:
            n = self.n if self.dataset == "synthetic" else 6000 if self.dataset != "upload" else 1_000_000
        if k is None:
            k = self.k if self.problem == "frequency" else 1
        per = self.trials * n * (4 if self.setting == "uncorrelated" else 1)
        seconds = sum(per * (10 * k if a == "LDP" else 1) * 2.5e-9 for a in self.algs)
        cvx = [a for a in self.algs if a == "LDP" or (self.solver == "cvxpy" and a not in ("UNI", "PROP", "SM"))]
        seconds += len(cvx) * n * 6e-5
        # bins come from the data for uploads: the release and its dotplot grow with k² (the audit's CSV
        # with 10 000 distinct bins ran 86 s, ≈ 9e-7 s per k²)
        seconds += 9e-7 * k * k
        return Cost(
            cells=per * len(self.algs),
            seconds=seconds,
            bytes=n * max(k, 1) * 8 * 6 + self.trials * len(self.algs) * 8,
            driver=f"{len(self.algs)} algorithms × {self.trials} trials × n = {n:,} users"
            + (f" (cvxpy solves for {', '.join(cvx)})" if cvx else ""),
        )

    def demands(self, x: np.ndarray) -> np.ndarray:
        """Every user's demanded ε_i for the users' values ``x`` under the demand profile (by value or
        by groups)."""
        if self.demand == "by_value":
            bins = x if self.problem == "frequency" else ht.value_bins(x, bins=len(self.eps_by_bin))
            return ht.demand_by_bin(bins, eps_by_bin=self.eps_by_bin)
        return ht.demand_by_groups(n=x.size, shares=self.shares, lows=self.lows, highs=self.highs, rng=self.seed + 1)


MAX_CVXPY_USERS = 50_000


_ALL = ("CP", "CE", "UP", "UE", "A", "UNI", "PROP", "SM", "LDP")
#: the papers' setups; each states only what differs from the page's defaults (synthetic data,
#: frequencies, n = 10 000, k = 5 bins, demands by value, correlated setting)
PRESETS = {
    "Synthetic frequencies k = 5, central bins less private (correlated)": PerUserPrivacy(
        algs=_ALL, eps_by_bin=(0.05, 0.5, 2, 0.5, 0.05)
    ),
    "Synthetic frequencies k = 20, groups (uncorrelated)": PerUserPrivacy(
        algs=_ALL,
        k=20,
        demand="groups",
        shares=(0.3, 0.5, 0.2),
        lows=(0.01, 0.1, 1),
        highs=(0.1, 1, 5),
        setting="uncorrelated",
    ),
    "Synthetic mean, groups with 1 % public users": PerUserPrivacy(
        problem="mean",
        demand="groups",
        shares=(0.49, 0.5, 0.01),
        lows=(0.01, 0.1, float("inf")),
        highs=(0.1, 1, float("inf")),
        setting="uncorrelated",
    ),
    "RAND HIE income (mean), high earners more private": PerUserPrivacy(
        problem="mean", dataset="randhie", eps_by_bin=(1, 1, 0.5, 0.1, 0.05)
    ),
    "RAND HIE self-rated health (k = 4)": PerUserPrivacy(dataset="randhie", eps_by_bin=(1, 0.5, 0.1, 0.05)),
}


def bins_needed(*, dataset: str, problem: str, k: int) -> int | None:
    """How many entries "ε per bin" must have for demands by value: one per bin of a histogram (k for
    synthetic data, 4 for RAND HIE's self-rated health); None where any length works (a mean's
    values are cut into as many bins as given) or the data decide (an upload)."""
    if problem != "frequency":
        return None
    return int(k) if dataset == "synthetic" else 4 if dataset == "randhie" else None


def load_data(s: PerUserPrivacy, upload: bytes | None = None) -> tuple[np.ndarray, int, str]:
    """(values, number of bins, description) for the scenario's dataset."""
    if s.dataset == "synthetic":
        x = (
            ht.synthetic_frequency(n=s.n, k=s.k, profile=s.profile, rng=s.seed)
            if s.problem == "frequency"
            else ht.synthetic_mean(n=s.n, rng=s.seed)
        )
        return x, s.k, f"synthetic ({s.profile if s.problem == 'frequency' else 'Beta(2, 5)'}), n = {s.n:,}"
    if s.dataset == "randhie":
        df = ht.load_randhie(data_path())
        if s.problem == "frequency":
            return df["health"].to_numpy(), 4, "RAND HIE self-rated health (0 excellent … 3 poor), 5 912 persons"
        return np.minimum(df["income"].to_numpy() / 30_000, 1.0), s.k, "RAND HIE income / $30 000, 5 912 persons"
    if upload is None:
        raise InputError("dataset is 'upload' but no CSV was given: upload a file or choose another dataset.")
    vals, col = ht.parse_data_csv(upload)
    if s.problem == "frequency":
        if np.any(vals != np.round(vals)) or vals.min() < 0:
            raise InputError(f"for frequencies, column {col!r} must hold bin indices 0, 1, 2, …")
        return vals.astype(int), int(vals.max()) + 1, f"upload: column {col!r}, n = {vals.size:,}"
    lo, hi = vals.min(), vals.max()
    return (
        (vals - lo) / (hi - lo) if hi > lo else np.zeros_like(vals),
        s.k,
        f"upload: column {col!r} rescaled to [0, 1]",
    )


@dataclass(frozen=True)
class MethodRun:
    """What one method's simulation computed (:func:`hetdp_core.per_user.hetero.simulate`), as typed fields.

    ``estimates`` every trial's release and ``truth`` the true value; then what the method's weighting
    computed, None where a method has none: ``weights`` per user, the noise scale ``b``, each user's
    effective level ``eps_eff`` (checked ≤ the demand), a ``note``, the ``solver`` used, the
    sampling mechanism's ``threshold`` and ``keep_probability``, the LDP baseline's ``ldp_variance``."""

    estimates: np.ndarray
    truth: np.ndarray
    weights: np.ndarray | None = None
    b: float | None = None
    eps_eff: np.ndarray | None = None
    note: str | None = None
    solver: str | None = None
    threshold: float | None = None
    keep_probability: float | None = None
    ldp_variance: float | None = None


def _one(method: tuple[str, Weights | None], *, s: PerUserPrivacy, x, demands, k):
    """One method's simulated releases: ``method`` is (its name, the quick part's weights or None)."""
    alg, w = method
    r = ht.simulate(
        x,
        demands,
        algorithm=alg,
        problem=s.problem,
        k=k,
        beta=s.beta,
        trials=s.trials,
        setting=s.setting,
        rng=np.random.default_rng([s.seed, ALL_ALGS.index(alg)]),
        solver=s.solver,
        sm_threshold=s.sm_threshold,
        w=w,  # the quick part's: the same weights the simulation would compute
    )
    return r["errors"], MethodRun(estimates=r["estimates"], truth=r["truth"], **r["info"])


#: equally likely releases in the quantile dotplot
def release_quantiles(s: PerUserPrivacy, res: dict) -> pd.DataFrame:
    """Twenty equally likely published values of the first algorithm's release — the mean, or each
    bin's frequency — next to the true value: the (i − ½)/20 quantiles of the simulated releases
    (per bin for frequencies), for the quantile dotplot."""
    alg = next(iter(res))
    info = res[alg][1]
    est, truth = np.asarray(info.estimates, float), np.atleast_1d(np.asarray(info.truth, float))
    est = est.reshape(est.shape[0], -1)
    from ...reading.meaning import DOT_PROBABILITIES, dot_table

    q = np.quantile(est, DOT_PROBABILITIES, axis=0)  # (DOTS, k)
    labels = [f"{alg}: mean"] if s.problem == "mean" else [f"{alg}: bin {j + 1}" for j in range(est.shape[1])]
    return dot_table({lab: q[:, j] for j, lab in enumerate(labels)}, dict(zip(labels, truth)))


@dataclass(frozen=True, kw_only=True)
class PerUserResult(Result):
    """What a Per-user-privacy run computed, beyond its tables.

    Attributes
    ----------
    demands : numpy.ndarray
        Every user's demanded ε (∞: no demand).
    infos : dict of str to MethodRun
        Algorithm → what its simulation and weighting computed (``weights``, ``b``, ``eps_eff``, …).
    weightings : dict of str to Weights
        Weighted algorithm (:data:`hetdp_core.per_user.hetero.WEIGHTED`) → its weights, noise scale b
        and every user's effective level (the quick part: no simulation).
    description : str
        The data in words (source, users, bins).
    k : int
        The number of bins (1 for the mean).
    """

    hetero_summary: pd.DataFrame = table("per method: the error and the weights' summary (Tables 4 and 5)")
    hetero_errors: pd.DataFrame = table("every simulated error per method")
    hetero_weights: pd.DataFrame = table("per user: demand ε_i, weight and the level each user actually gets")
    hetero_release_quantiles: pd.DataFrame = table("twenty equally likely published values under the first method")

    demands: np.ndarray
    infos: dict[str, MethodRun]
    weightings: dict[str, Weights]
    description: str
    k: int


def quick_cost(s: PerUserPrivacy) -> Cost:
    """The quick part's cost: the weighted algorithms' weights — the fast exact solver sorts the demands
    (≈ 3e-7 s per user and algorithm, measured: 0.05 s for UP at n = 200 000), cvxpy ≈ 6e-5 s per user —
    and the data and demands themselves."""
    n = s.n if s.dataset == "synthetic" else 6000 if s.dataset != "upload" else 1_000_000
    weighted = [a for a in s.algs if a in ht.WEIGHTED]
    seconds = n * sum(6e-5 if s.solver == "cvxpy" and a not in ("UNI", "PROP") else 3e-7 for a in weighted)
    return Cost(
        seconds=seconds,
        bytes=n * 8 * (4 + 2 * len(weighted)),
        driver=f"the weights of {len(weighted)} weighted algorithms for n = {n:,} users",
    )


def _weights_table(demands: np.ndarray, weights: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per user: the demand and each algorithm's weight (``hetero_weights``)."""
    return pd.DataFrame({"eps": demands, **{f"w_{a}": w for a, w in weights.items()}})


def _quick_parts(s: PerUserPrivacy, options: sc.RunOptions) -> tuple[PerUserResult, np.ndarray, int]:
    """(the quick part's partial result, the users' values, the number of bins): every input check of
    the run, the data and demands, and the weighted algorithms' weights with their checks.

    A view of the bundled or synthetic data is computed once (:data:`_bundled_quick_parts`, memoised by
    the scenario and the budget): the app computes a view's quick part first and then its whole run,
    which begins with the same part (at n = 200 000 about 0.085 s of each slider step was this part
    computed a second time); an upload's is computed each time (its bytes are not kept)."""
    if s.dataset == "upload":
        return _computed_quick_parts(s, options.upload, options.budget)
    return _bundled_quick_parts(s, None, options.budget)


def _computed_quick_parts(s: PerUserPrivacy, upload: bytes | None, budget) -> tuple[PerUserResult, np.ndarray, int]:
    """:func:`_quick_parts`, computed."""
    # an upload's size is known from its bytes before it is parsed: the estimate uses its row count
    rows = (upload.count(b"\n") or upload.count(b"\r")) if (s.dataset == "upload" and upload) else None
    check_budget(s, budget, s.estimate(n=max(int(rows), 1)) if rows is not None else None)
    x, k, desc = load_data(s, upload)
    if s.dataset != "synthetic":  # the data's own size and bins, now that they are known
        check_budget(s, budget, s.estimate(n=int(x.size), k=int(k) if s.problem == "frequency" else 1))
    if s.solver == "cvxpy" and x.size > MAX_CVXPY_USERS and budget is not None and budget.name == "page":
        raise InputError(
            f"solver cvxpy with n = {x.size:,} users exceeds the page's limit of {MAX_CVXPY_USERS:,} "
            "for cvxpy; use the fast exact solver (same weights, tested) or fewer users."
        )
    if "LDP" in s.algs and x.size > MAX_LDP_USERS:
        raise InputError(
            f"the LDP baseline solves a cvxpy problem over all users; n = {x.size:,} exceeds "
            f"{MAX_LDP_USERS:,}. Use fewer users or deselect LDP."
        )
    demands = s.demands(x)
    bins = max(ht.check_bins(s.problem, k), 2)  # as the simulation checks it: a histogram of one bin is refused
    # the weighted estimators' weights come before any release; SM weights nobody (it samples users) and
    # LDP's weights are its run's cvxpy solve
    weightings = {
        a: ht.weights(demands, algorithm=a, problem=s.problem, k=bins, beta=s.beta, solver=s.solver)
        for a in s.algs
        if a in ht.WEIGHTED
    }
    checks = []
    for alg, w in weightings.items():
        checks += ht.weight_checks(demands=demands, eps_eff=w.eps_eff, weights=w.weights, algorithm=alg, b=w.b)
    pending = ("hetero_summary", "hetero_errors", "hetero_release_quantiles", "infos")
    known = {"hetero_weights": _weights_table(demands, {a: w.weights for a, w in weightings.items()})}
    if "LDP" in s.algs:  # its weights are its run's solve
        pending, known = pending + ("hetero_weights",), {}
    q = sc.partial_result(
        PerUserResult,
        s,
        pending=pending,
        **known,
        checks=tuple(checks),
        demands=demands,
        weightings=weightings,
        description=desc,
        k=int(k),
    )
    return sc.with_meaning(q), x, int(k)


#: :func:`_computed_quick_parts` of a bundled or synthetic dataset, keyed by the scenario and the budget
#: (deterministic: the synthetic data is drawn from the scenario's seed); values are read-only. 64 MB:
#: two views at n = 200 000 (the data, the demands, five weightings and their table, about 30 MB)
_bundled_quick_parts = memoised(64 * 2**20, name="per-user quick parts", key=lambda s, _upload, budget: (s, budget))(
    _computed_quick_parts
)


@sc.page_quick
def quick(s: PerUserPrivacy, *, options: sc.RunOptions) -> PerUserResult:
    """The data, every user's demand, the weighted algorithms' weights and effective levels, and their
    checks (ε_eff,i ≤ ε_i; weights on the simplex), with every input checked: everything but the
    simulated releases (and LDP's weights, a cvxpy solve of its run)."""
    return _quick_parts(s, options)[0]


@sc.page_run
def run(s: PerUserPrivacy, *, options: sc.RunOptions) -> PerUserResult:
    """Tables: ``hetero_summary`` (PAC error, MSE, b, bias bound per algorithm), ``hetero_errors``
    (error samples), ``hetero_weights`` (demands and each weighting's weights)."""
    q, x, k = _quick_parts(s, options)
    demands, weightings = q.demands, q.weightings
    one = partial(_one, s=s, x=x, demands=demands, k=k)
    outs = map_points(one, [(a, weightings.get(a)) for a in s.algs], options=options, label=lambda p: p[0])
    res = dict(zip(s.algs, outs))
    rows = []
    for alg, (errs, info) in res.items():
        sm = ht.summarize(errs, beta=s.beta)
        w = info.weights
        rows.append(
            {
                "algorithm": alg,
                pac_column(s.beta): sm["pac"],
                "MSE": sm["mse"],
                "noise scale b": np.nan if info.b is None else info.b,
                "bias bound ½‖w−u‖₁": ht.bias_bound(w) if w is not None else np.nan,
                "note": info.note
                or ("" if alg != "SM" else f"threshold t = {np.nan if info.threshold is None else info.threshold:.3g}"),
            }
        )
    weights_table = q.hetero_weights
    if weights_table is sc.PENDING:  # the quick part left it to the run (LDP's weights are its solve)
        weights_table = _weights_table(
            demands, {a: info.weights for a, (_, info) in res.items() if info.weights is not None}
        )
    return dataclasses.replace(
        q,
        hetero_summary=pd.DataFrame(rows),
        hetero_errors=pd.DataFrame({alg: errs for alg, (errs, _) in res.items()}),
        hetero_weights=weights_table,
        hetero_release_quantiles=release_quantiles(s, res),
        infos={a: info for a, (_, info) in res.items()},
    )


def weights_of(result: PerUserResult, alg: str) -> np.ndarray | None:
    """The weights algorithm ``alg`` gives the users: a weighted estimator's from the quick part, LDP's
    from its run (its cvxpy solve); None for SM, which samples users instead."""
    if alg in result.weightings:
        return result.weightings[alg].weights
    return result.infos[alg].weights if alg == "LDP" else None


def levels(result: Result, *, max_groups: int = 12) -> list[Level]:
    """The page's privacy levels per group of users with the same demand ε_i: the demand and the
    largest effective level ε_eff = κ w_i / b that the first weighted algorithm delivers in the group
    (ε_eff ≤ ε_i is checked with the weights, before any release). More than ``max_groups`` distinct
    demands are grouped into ``max_groups`` quantile groups (demanded = the group's smallest ε: the
    strictest)."""
    demands = np.asarray(result.demands, float)
    alg = next(iter(result.weightings), None)  # the first weighted algorithm (the others have no ε_eff)
    eff = np.asarray(result.weightings[alg].eps_eff, float) if alg else None
    distinct = np.unique(demands)
    if distinct.size <= max_groups:
        groups = [demands == v for v in distinct]
    else:
        edges = np.quantile(demands[np.isfinite(demands)], np.linspace(0, 1, max_groups + 1)[1:-1])
        idx = np.searchsorted(edges, demands, side="right")
        groups = [idx == i for i in np.unique(idx)]
    out = []
    for m in groups:
        dem, top = float(demands[m].min()), float(demands[m].max())
        name = f"users with ε = {dem:g}" if top == dem else f"users with ε in [{dem:g}, {top:g}]"
        delivered = None if eff is None else float(eff[m].max())
        out.append(
            Level(name, dem, delivered=delivered, delivered_by=alg if eff is not None else None, users=int(m.sum()))
        )
    return out


def key_numbers(result: PerUserResult) -> dict:
    """Accuracy per algorithm and the largest effective level, for plan A vs plan B."""
    t = result.hetero_summary
    pac = next(c for c in t.columns if c.startswith("PAC error"))
    out = {}
    for _, row in t.iterrows():
        out[f"{pac}, {row['algorithm']}"] = float(row[pac])
        out[f"MSE, {row['algorithm']}"] = float(row["MSE"])
    for alg, w in result.weightings.items():
        out[f"largest effective ε, {alg}"] = float(np.max(w.eps_eff))
    return out


#: the page's question in plain words (page header and reports)
QUESTION = (
    "Each person chose their own privacy level ε (some are relaxed, some very strict, some have nothing "
    "to hide). What histogram or average can we publish, how accurate is it — and who pays for it? The "
    "trick is to give people different weights: strict users get less weight so the noise can stay "
    "small. This page compares the weighting schemes of the heterogeneous-DP paper with simple baselines."
)

SCENARIO = PerUserPrivacy
__all__ = ["PerUserPrivacy", "SCENARIO", "PRESETS", "run", "ALL_ALGS", "N_OPTIONS", "load_data", "pac_column"]


def pac_column(beta: float) -> str:
    """The summary's column of the PAC error: "PAC error (95 % quantile)", the share 1 − β written as
    everywhere else (:func:`hetdp_core.reading.words.quantile_share`: β = 0.055 is 94.5 %, never 94 % or 95 %)."""
    from ...reading.words import quantile_share

    return f"PAC error ({quantile_share(beta)} quantile)"


def summarize(result: PerUserResult) -> tuple[str, ...]:
    """The run in a few plain sentences (page header, report, ``hetdp run``)."""
    from ...reading.words import quantile_share

    s, t = result.scenario, result.hetero_summary
    pac = pac_column(s.beta)
    best = t.loc[t[pac].idxmin()]
    out = [
        f"{result.description}.",
        f"Lowest {quantile_share(s.beta)}-quantile error: **{best['algorithm']}** ({best[pac]:.3g}).",
    ]
    if "UNI" in set(t["algorithm"]) and best["algorithm"] != "UNI":
        uni = float(t.loc[t["algorithm"] == "UNI", pac].iloc[0])
        out.append(f"Uniform weights (UNI) reach {uni:.3g}: {uni / best[pac]:.2g}× the best.")
    return tuple(out)


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
upload | bytes or None | An uploaded CSV (untrusted), for ``dataset = upload``.
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
