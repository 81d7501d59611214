"""Private regression with BCDP — Algorithm 2.

Question: can a server fit least squares when every user randomises their own record (stricter
levels for some features)? One private fit's trajectory against the non-private optimum, and the
excess risk against n or ε for Algorithm 2, the naive single-copy plug-in and min-δ LDP.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..framework import scenario as sc
from ..framework._doc import document
from ..framework.constraints import DEMAND, EPS, SEED, TRIALS, USERS
from ..framework.memo import memoised
from ..framework.registry import PageSpec
from ..framework.scenario import Cost, InputError, Interval, Options, Result, RunOptions, check_budget, param, table
from ..materials.datasets import SOURCE_SYNONYMS, SOURCES, data_path
from ..materials.sources import BCDP_PAPER
from ..per_feature import regression as rg
from ..per_feature.bcdp import Allocation, privacy_allocation
from ..reading.meaning import Level
from ._common import map_points

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="Private_regression",
    title="Private regression (BCDP)",
    icon=":material/show_chart:",
    order=3,
    summary=(
        "Can least squares be learned when every user randomises their own record, with stricter "
        "privacy for some features — and how many users does it take?"
    ),
    upload=True,
    solver=None,
    fast_query={"trials": "2", "n": "1000"},
    example_query=(
        "features=3&k=2&demand=3&eps=6&q=0.2&steps=60&trials=2&seed=5&axis=eps&n=3000&schedule=poly&rho=0.6&gamma0=1.2"
    ),
    key_tables=("regression_guarantee", "regression_excess_risk"),
    sources=(BCDP_PAPER,),
    risk_field="eps",
)
N_GRID = (1000, 3000, 10_000, 30_000, 100_000)
EPS_GRID = (1.0, 2.0, 4.0, 8.0, 16.0)
THETA = (0.5, -0.3, 0.2, 0.1, -0.1, 0.05)


#: the learning-rate schedules in formulas (the page's widget shows these)
_SCHEDULE_LABELS = {"constant": "constant γ0", "poly": "γ0 (1+h)^−ρ", "inverse": "γ0 / (1+λh)"}


@dataclass(frozen=True)
class PrivateRegression(sc.Scenario):
    ALIASES = {"lam": "decay", "delta": "demand"}  # renamed: λ here is a decay rate, not a ridge penalty; δ is
    # the (ε, δ)-DP failure probability elsewhere

    source: str = param("synthetic", Options(SOURCES), "data", synonyms=SOURCE_SYNONYMS)
    features: int = param(
        2, Interval(int, 1, 6), "number of features", caption="features (label is the extra, last coordinate)"
    )
    noise: float = param(0.1, Interval(float, 0.0, 1.0), "label noise")
    q: float = param(0.1, Interval(float, 0.0, 1.0), "correlation q", caption="q — correlation between features")
    k: int = param(1, Interval(int, 0, 6), "sensitive features", caption="sensitive features (demand δ)")
    demand: float = param(
        2.0,
        DEMAND.narrow(0.1, 20.0, closed="both", finite=True),
        "demand of sensitive features",
        caption="δ — demand of sensitive features",
    )
    eps: float = param(
        8.0, EPS.narrow(0.1, 20.0), "global LDP level ε", caption="ε — global LDP level (other features and label)"
    )
    radius: float = param(1.0, Interval(float, 0.1, 10.0), "radius R of Θ", caption="R — radius of Θ")
    schedule: str = param("constant", Options({s: _SCHEDULE_LABELS[s] for s in rg.SCHEDULES}), "learning-rate schedule")
    gamma0: float = param(1.0, Interval(float, 0.01, 1.99), "γ0", caption="γ0 (in units of 1/L)")
    rho: float = param(0.5, Interval(float, 0.05, 1.0), "decay exponent ρ", caption="ρ")
    decay: float = param(0.05, Interval(float, 0.001, 10.0), "decay rate λ", caption="λ")
    steps: int = param(200, Interval(int, 10, 2000), "gradient steps")
    axis: str = param("n", Options({"n": "users n", "eps": "ε"}), "excess risk against")
    n: int = param(30_000, USERS.narrow(1000, 100_000), "users n", caption="n (trajectory; users when sweeping ε)")
    trials: int = param(4, TRIALS.narrow(2, 40), "trials per point")
    seed: int = param(0, SEED, "random seed", caption="seed")

    def estimate(self, d: int | None = None) -> Cost:
        """≈ 1.2e-7 s per (trial × user × d²) of the two-copy estimator, summed over the sweep and the
        trajectory fit (measured: 4 trials, n = 10⁵, d = 7 in 1.4 s). ``d`` (features + label) is known
        for synthetic and bundled data; an upload is checked again once its columns are counted."""
        if d is None:
            d = self.features + 1 if self.source == "synthetic" else 3 if self.source == "randhie" else 2
        ns = sum(N_GRID) if self.axis == "n" else self.n * len(EPS_GRID)
        units = (self.trials * ns + self.n) * d * d
        return Cost(
            cells=(self.trials * ns + self.n) * d,
            seconds=units * 1.2e-7 + self.steps * self.trials * 1e-5,
            bytes=max(N_GRID + (self.n,)) * d * 8 * 12,
            driver=f"trials = {self.trials} × users (n up to {max(N_GRID + (self.n,)):,}) × d² = {d * d}",
        )


PRESETS = {
    "Theorem 3 setting: 2 features, label last": PrivateRegression(
        features=2, k=1, demand=2.0, eps=8.0, q=0.1, axis="n", schedule="constant", gamma0=1.0
    ),
    "Loose privacy: Algorithm 2 converges": PrivateRegression(
        features=2, k=1, demand=6.0, eps=8.0, q=0.0, axis="n", schedule="constant", gamma0=1.0
    ),
    "Decaying learning rate γ0 (1+h)^−ρ": PrivateRegression(schedule="poly", gamma0=1.5, rho=0.5),
}


def data_bytes_for(s: PrivateRegression, upload: bytes | None) -> bytes | None:
    """None for synthetic data; the bundled RAND HIE table; or the uploaded CSV."""
    if s.source == "randhie":
        return rg.randhie_regression_bytes(data_path())
    if s.source == "upload":
        if upload is None:
            raise InputError(
                "source is 'upload' but no CSV was given: upload a file (numeric columns, label last) "
                "or choose synthetic data."
            )
        return upload
    return None


def _settings(s: PrivateRegression, data: bytes | None) -> tuple[dict, int, int]:
    theta = tuple(THETA[: s.features]) if data is None else (0.0,)
    n_feat = s.features if data is None else rg.load_regression_csv(data).shape[1] - 1
    k = min(s.k, n_feat)
    common = dict(theta=theta, noise=s.noise, q=s.q, k=k, demand=s.demand, eps=s.eps, **optimizer(s))
    return common, n_feat, k


def optimizer(s: PrivateRegression) -> dict:
    """The projected gradient descent's settings (radius R of Θ and the learning-rate schedule)."""
    return {name: getattr(s, name) for name in ("radius", "schedule", "gamma0", "steps", "rho", "decay")}


def _point_inputs(v, *, s, common, data):
    """What a sweep point depends on: the swept value replaces n (axis n) or ε (axis ε), so the
    scenario's own n or ε is not among them."""
    c = {k: v_ for k, v_ in common.items() if not (s.axis == "eps" and k == "eps")}
    return s.axis, v, None if s.axis == "n" else s.n, s.trials, s.seed, c, data


#: each sweep point's fits, kept by what the point depends on (its data draw, levels and fits are seeded
#: by (seed, value)): moving an input no point depends on recomputes none
@memoised(32 * 2**20, name="excess-risk sweep points", key=_point_inputs)
def _sweep_point(v, *, s, common, data):
    x = None if data is None else rg.load_regression_csv(data)
    c = dict(common)
    k = c.pop("k")
    return rg.excess_risk_sweep(axis=s.axis, values=(v,), n=s.n, k_sensitive=k, trials=s.trials, seed=s.seed, x=x, **c)


@dataclass(frozen=True, kw_only=True)
class PrivateRegressionResult(Result):
    """What a Private-regression run computed, beyond its tables.

    Attributes
    ----------
    trajectories : dict
        Method → its gradient-descent trajectory θ_t (None where the method has no value).
    reference : RegressionRun
        The non-private least-squares fit θ* the distances are measured to.
    allocation : Allocation
        The privacy allocation of the two-copy estimator.
    warnings : tuple of str
        Messages about the fit (e.g. f̂ not convex in some runs).
    k : int
        The number of sensitive features.
    n_features : int
        The number of features (the label excluded).
    coordinates : tuple of str
        The record's coordinates in order: the features, then the label.
    guaranteed : numpy.ndarray
        The BCDP level δ'_i delivered to each coordinate under the data's correlation (Proposition 4).
    """

    regression_trajectory: pd.DataFrame = table("one private fit: the distance to the non-private optimum per step")
    regression_excess_risk: pd.DataFrame = table("the sweep: excess risk per point and method")
    regression_guarantee: pd.DataFrame = table("per coordinate: demand, budget and the guaranteed level, checked")

    trajectories: dict[str, np.ndarray | None]
    reference: rg.RegressionRun
    allocation: Allocation
    warnings: tuple[str, ...]
    k: int
    n_features: int
    coordinates: tuple[str, ...]
    guaranteed: np.ndarray

    def demand_met(self) -> np.ndarray:
        """Per coordinate: whether its guaranteed level δ'_i is within its demand δ_i."""
        return self.guaranteed <= self.allocation.demands * (1 + 1e-9)


@sc.page_quick
def quick(s: PrivateRegression, *, options: RunOptions) -> PrivateRegressionResult:
    """Theorem 2's allocation for the record's coordinates and the per-coordinate guarantee under the
    data's correlation (Proposition 4), with the data read and every input checked: everything but the
    private fits."""
    check_budget(s, options.budget)
    data = data_bytes_for(s, options.upload)
    common, n_feat, k = _settings(s, data)
    check_budget(s, options.budget, s.estimate(n_feat + 1))
    d = n_feat + 1
    dem = [s.demand] * k + [s.eps] * (d - 1 - k) + [s.eps]
    alloc = privacy_allocation(demands=np.asarray(dem, dtype=float), eps=s.eps, q=s.q)
    notes = [f"The data have {n_feat} feature(s): {k} of them carry the sensitive demand δ."] if k < s.k else []
    guarantee, gnotes, guaranteed = guarantee_table(
        s, alloc, theta=common["theta"], n_feat=n_feat, k=k, synthetic=data is None
    )
    return sc.with_meaning(
        sc.partial_result(
            PrivateRegressionResult,
            s,
            pending=("regression_trajectory", "regression_excess_risk", "trajectories", "reference", "warnings"),
            regression_guarantee=guarantee,
            notes=tuple(notes + gnotes),
            allocation=alloc,
            k=int(k),
            n_features=int(n_feat),
            coordinates=coordinate_names(n_feat=n_feat, k=k),
            guaranteed=guaranteed,
        )
    )


@sc.page_run
def run(s: PrivateRegression, *, options: RunOptions) -> PrivateRegressionResult:
    """Tables: ``regression_trajectory`` (distance to θ* per gradient step and method),
    ``regression_excess_risk`` (per sweep value and method: median, quartiles, runs stopped because
    f̂ was not convex) and ``regression_guarantee`` (:func:`quick`). ``upload`` is the CSV for
    ``source = upload``."""
    q = quick(s, options=options)
    data = data_bytes_for(s, options.upload)
    common, _, k = _settings(s, data)
    if data is None:
        x = rg.regression_data(n=s.n, theta=common["theta"], noise=s.noise, q=s.q, rng=s.seed)
    else:
        x = rg.load_regression_csv(data)
    d = x.shape[1]
    dem = [s.demand] * k + [s.eps] * (d - 1 - k) + [s.eps]
    res = rg.fit(x=x, demands=dem, eps=s.eps, q=s.q, **optimizer(s), trials=1, rng=s.seed + 1)
    ref = res["_reference"][0]
    trajs = {m: runs[0].trajectory for m, runs in res.items() if not m.startswith("_")}
    trajectory = (
        pd.DataFrame({m: np.linalg.norm(tr - ref.theta, axis=1) for m, tr in trajs.items() if tr is not None})
        .rename_axis("step")
        .reset_index()
    )
    values = tuple(float(v) for v in (N_GRID if s.axis == "n" else EPS_GRID))
    parts = map_points(
        partial(_sweep_point, s=s, common=common, data=data),
        values,
        options=options,
        label=lambda v: f"{s.axis} = {v:g}",
    )
    warnings = [
        f"**{m}**: {runs[0].message}" for m, runs in res.items() if not m.startswith("_") and not runs[0].convex
    ]
    return dataclasses.replace(
        q,
        regression_trajectory=trajectory,
        regression_excess_risk=pd.concat(parts, ignore_index=True),
        trajectories=trajs,
        reference=ref,
        warnings=tuple(warnings),
    )


def coordinate_names(*, n_feat: int, k: int) -> tuple[str, ...]:
    """The names of a record's coordinates: the features (the first ``k`` sensitive), then the label."""
    return tuple(f"feature {i + 1}" + (" (sensitive)" if i < k else "") for i in range(n_feat)) + ("label",)


def guarantee_table(s: PrivateRegression, alloc, *, theta, n_feat: int, k: int, synthetic: bool):
    """Per coordinate: the demand, the correlation q_i of Assumption 1 used (measured exactly on
    synthetic data by :func:`hetdp_core.per_feature.regression.feature_correlation`; the scenario's q otherwise,
    an assumption), the BCDP level Mechanism 1 delivers under it (Proposition 4(2) with ε := c_d:
    δ'_i = min(c_i + log(1 + q_i e^{c_d} − q_i), c_d); the label is exempt from Assumption 1, so its
    level is c_d) and the LDP level c_d that bounds any attacker. Returns the table, notes naming
    each demand that the data's own correlation breaks, and the guaranteed levels δ'_i."""
    from ..per_feature.bcdp import prop4_ldp_guarantee

    d = n_feat + 1
    if synthetic:
        qf = rg.feature_correlation(theta=theta, noise=s.noise, q=s.q)
        basis = "measured on the synthetic data (exact)"
    else:
        qf = np.full(n_feat, s.q)
        basis = "assumed (the scenario's q; not measurable for these data)"
    qv = np.r_[qf, 1.0]
    guaranteed = prop4_ldp_guarantee(c=alloc.c, q=qv, ldp=alloc.ldp_level)
    names = coordinate_names(n_feat=n_feat, k=k)
    met = guaranteed <= alloc.demands * (1 + 1e-9)
    frame = pd.DataFrame(
        {
            "coordinate": names,
            "demanded δ": alloc.demands,
            "correlation q_i": qv,
            "q_i is": [basis] * n_feat + ["exempt (label)"],
            "guaranteed δ'": guaranteed,
            "any attacker (LDP c_d)": [alloc.ldp_level] * d,
            "demand met": met,
        }
    )
    notes = []
    for i in range(n_feat):
        if not met[i]:
            notes.append(
                f"Assumption 1 does not hold for {names[i]}: the data's correlation q_{i + 1} = {qf[i]:.3g} "
                f"exceeds the assumed q = {s.q:g}, so its demand δ = {alloc.demands[i]:g} is not met; "
                f"only δ' = {guaranteed[i]:.3g} holds (Proposition 4)."
            )
    return frame, notes, guaranteed


def levels(result: PrivateRegressionResult) -> list[Level]:
    """Per coordinate of a user's record: the demand, the BCDP level delivered under the data's
    correlation and the LDP level c_d that bounds any attacker."""
    ldp = float(result.allocation.ldp_level)
    return [
        Level(c, float(d), delivered=float(v), any_attacker=ldp, model="local", unit="user's record")
        for c, d, v in zip(result.coordinates, result.allocation.demands, result.guaranteed)
    ]


#: the page's question in plain words (page header and reports)
QUESTION = (
    "Can a server fit a least-squares model when every user randomises their own record, with "
    "stricter privacy for some features? Algorithm 2 has every user send *two* independent noisy "
    "copies, so that products of copies give an unbiased gradient. How fast does the fit approach "
    "the non-private one as the number of users grows — and what goes wrong with one copy, or with "
    "protecting everything at the strictest level?"
)

SCENARIO = PrivateRegression
__all__ = ["PrivateRegression", "SCENARIO", "PRESETS", "run", "N_GRID", "EPS_GRID", "THETA"]


def summarize(result: PrivateRegressionResult) -> tuple[str, ...]:
    """The run in a few plain sentences (page header, report, ``hetdp run``)."""
    s = result.scenario
    risk = result.regression_excess_risk
    last = risk[risk[s.axis] == risk[s.axis].max()]
    ok = last.dropna(subset=["median"])
    unmet = [c for c, met in zip(result.coordinates, result.demand_met()) if not met]
    out = [
        "Every coordinate's demand is met (guaranteed δ' ≤ δ)."
        if not unmet
        else f"**Demand not met** for {', '.join(unmet)}: the correlation in the data charges more than asked.",
        f"Any attacker: the whole record is {float(result.allocation.ldp_level):.3g}-LDP.",
    ]
    if ok.empty:
        out.append(f"At {s.axis} = {risk[s.axis].max():g} no method gives a value (see the table's reasons).")
    else:
        best = ok.loc[ok["median"].idxmin()]
        out.append(
            f"At {s.axis} = {best[s.axis]:g} the lowest median excess risk is {best['median']:.3g} ({best['method']})."
        )
    return tuple(out)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
