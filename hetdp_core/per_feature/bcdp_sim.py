"""Monte Carlo experiments for BCDP mean estimation.

Everything here works in the *user's* coordinate order: demands may be given in any order; the
allocation sorts them and the estimates are compared with x̄ in the same order (the squared ℓ2
error does not depend on the order).

Randomness: one integer ``seed`` (or Generator) per call; each sweep point gets its own stream
:func:`point_rng` built from ``(seed, the point's value)``, so a point's result does not depend on
the other points of the sweep (and a point can be cached and recomputed on its own).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported by the functions that build tables
    import pandas as pd

from ..framework._doc import document
from ..framework._validate import InputError, as_generator, check_choice, check_vector
from ..framework.constraints import COUNT, EPS, POSITIVE, TRIALS, UNIT, USERS, Interval
from ..framework.memo import memoised
from ..framework.scenario import LARGE_BUDGET, PAGE_BUDGET
from .bcdp import (
    Allocation,
    MechanismGuarantee,
    corollary1_bound,
    mechanism_guarantee,
    mse_bound_thm2,
    privacy_allocation,
)
from .duchi import SCALES, spawn
from .mmean import PROJECTIONS, exact_mse_baseline, exact_mse_mmean, ldp_baseline_estimate, mmean_estimate

__all__ = [
    "AXES",
    "MAX_CELLS_CLI",
    "MAX_CELLS_PAGE",
    "PRESETS",
    "Preset",
    "PointResult",
    "two_group_demands",
    "q_mixture_data",
    "simulation_cost",
    "check_cost",
    "run_point",
    "sweep",
    "sweep_points",
    "guarantee_report",
    "GuaranteeReport",
    "point_rng",
    "check_sweep_size",
]

AXES = ("q", "d", "f", "n")
#: Compute-size guards, in random numbers drawn (≈ 5 ns each on 2 cores): the page's and the large budget's
MAX_CELLS_PAGE = PAGE_BUDGET.cells
MAX_CELLS_CLI = LARGE_BUDGET.cells


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_SEED = Interval(int, 0, 2**63 - 1)
_D = Interval(int, 1, 500)
_DEMAND = Interval(float, 0.0, None, closed="right", allow_inf=True)
_N = Interval(int, 1, 10_000_000)
_CELLS = Interval(int, 0, None)
_TRIALS = Interval(int, 1, 1_000_000)
_DEMANDS = Interval(float, 0.0, None, closed="right", allow_inf=True)
_D_VALUES = Interval(int, 1, 500)
_N_VALUES = Interval(int, 1, 10_000_000)


def point_rng(seed: int, value: float) -> np.random.Generator:
    """Generator for one sweep point: ``SeedSequence([seed, bits of float64(value)])``."""
    seed = _SEED.check("seed", seed, what=" (random seed)")
    bits = int(np.float64(value).view(np.uint64))
    return np.random.default_rng(np.random.SeedSequence([seed, bits]))


def two_group_demands(*, d: int, k: int, demand: float, eps: float) -> np.ndarray:
    """Demand vector with the first ``k`` features at ``demand`` and the other ``d − k`` at ``eps``."""
    d = _D.check("d", d, what=" (number of features)")
    k = Interval(int, 0, d).check("k", k, what=" (number of sensitive features)")
    demand = _DEMAND.check("demand", demand, what=" (sensitive demand)")
    eps = EPS.check("eps", eps, what=" (global LDP level)")
    return np.concatenate([np.full(k, demand), np.full(d - k, eps)])


def q_mixture_data(*, n: int, d: int, q: float, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Users from the q-mixture prior of eq. (58), values in {−1, 1}:
    with probability q all coordinates equal one fair sign Z, otherwise i.i.d. fair signs.
    Under this prior TV(π_{x−i|xi=1}, π_{x−i|xi=−1}) = q for every i (Assumption 1 with q)."""
    n = _N.check("n", n, what=" (number of users)")
    d = _D.check("d", d, what=" (number of features)")
    q = UNIT.check("q", q, what=" (mixture weight / correlation)")
    rng = as_generator(rng)
    same = rng.random(n) < q
    z = rng.integers(0, 2, size=n)
    bits = rng.integers(0, 2, size=(n, d))
    bits = np.where(same[:, None], z[:, None], bits)
    return 2.0 * bits - 1.0


def simulation_cost(*, n: int, d: int, trials: int) -> int:
    """Upper bound on random numbers drawn by one point (M_mean ≤ d(d+1)/2 normals per user-trial
    plus d for the baseline)."""
    n = USERS.check("n", n, what=" (number of users)")
    d = COUNT.check("d", d, what=" (number of features)")
    trials = TRIALS.check("trials", trials, what=" (Monte Carlo repetitions)")
    return n * trials * (d * (d + 1) // 2 + d)


def check_cost(cells: int, limit: int) -> None:
    """Raise a ValueError explaining the compute-size guard when ``cells > limit``."""
    cells = _CELLS.check("cells", cells)
    limit = COUNT.check("limit", limit)
    if cells > limit:
        raise InputError(
            f"compute size: this run would draw about {cells:.3g} random numbers, over the "
            f"limit of {limit:.3g}. Reduce trials, n, d or the number of sweep points."
        )


def _sweep_shapes(axis: str, values, d: int, n: int) -> tuple[list[int], list[int]]:
    """Dimension and number of users at every sweep point."""
    if axis == "d":
        dims = [_D_VALUES.check("d values", v, what=" (dimensions to sweep)") for v in values]
    else:
        dims = [_D.check("d", d, what=" (number of features)")] * len(values)
    if axis == "n":
        ns = [_N_VALUES.check("n values", v, what=" (user counts to sweep)") for v in values]
    else:
        ns = [_N.check("n", n, what=" (number of users)")] * len(values)
    return dims, ns


def check_sweep_size(*, axis: str, values, d: int, n: int, trials: int, limit: int) -> int:
    """Compute-size guard for a whole sweep: raises ValueError over ``limit``; returns the cost."""
    axis = check_choice("axis", axis, AXES)
    values = check_vector("values", values, min_length=1, max_length=60, what=" (sweep points)")
    trials = _TRIALS.check("trials", trials, what=" (Monte Carlo repetitions)")
    dims, ns = _sweep_shapes(axis, values, d, n)
    total = sum(simulation_cost(n=nn, d=dd, trials=trials) for nn, dd in zip(ns, dims))
    check_cost(total, limit)
    return total


@dataclass(frozen=True)
class PointResult:
    """One configuration: per-trial squared errors of M_mean and the baseline and summaries."""

    allocation: Allocation
    errors_mmean: np.ndarray
    errors_baseline: np.ndarray
    exact_mmean: float  # closed-form pre-projection MSE (analytic)
    exact_baseline: float
    bound_shape: float  # Theorem 2 bound with constant 1 (analytic, up to a constant)
    corollary1: float  # Corollary 1 (two-group demands with ε > 2δ; NaN otherwise)
    baseline_level: float
    seconds: float
    extra: dict = field(default_factory=dict)


def _summary(errors: np.ndarray) -> dict:
    """Median, quartiles and mean of a sweep point's per-trial errors (the core's own arrays: its row of a
    summary table, and the JSON of ``hetdp bcdp mse``)."""
    q25, med, q75 = np.quantile(errors, [0.25, 0.5, 0.75])
    return {"median": float(med), "q25": float(q25), "q75": float(q75), "mean": float(errors.mean())}


def _generator_inputs(xs, *, rng, data=None, **kw):
    """What one method's releases depend on: the data — ``data``, what it was drawn by, when the caller
    knows it (hashing n × d numbers at every sweep point and method was a quarter of a Feature privacy
    run), else its content —, the generator's state and the settings."""
    return (xs if data is None else data), rng.bit_generator.state, kw


def _data_keyed(estimate):
    """``estimate(xs, **kw)`` that also takes ``data`` (what ``xs`` was drawn by: its memo key only)."""

    def releases(xs, *, data=None, **kw):
        return estimate(xs, **kw)

    releases.__doc__ = estimate.__doc__
    return releases


#: each method's releases at a sweep point, kept by what they depend on (the data, the levels, their own
#: generator's state): a change that moves only one method's curve (ζ moves Mechanism 1's, a larger ε
#: leaves the min-δ baseline as it is while min δ < ε) recomputes that curve only
#: a sweep point's users, drawn from their own generator (used for nothing else)
_point_data = memoised(
    128 * 2**20, name="sweep points' data", key=lambda *, n, d, q, rng: (n, d, q, rng.bit_generator.state)
)(q_mixture_data)
mmean_releases = memoised(32 * 2**20, name="Mechanism 1 releases", key=_generator_inputs)(_data_keyed(mmean_estimate))
_BASELINE = memoised(32 * 2**20, name="min-δ LDP releases", key=_generator_inputs)(_data_keyed(ldp_baseline_estimate))


def run_point(
    *,
    x: np.ndarray | None = None,
    n: int | None = None,
    demands,
    eps: float,
    q: float,
    zeta: float | None = None,
    data_q: float | None = None,
    trials: int,
    rng: np.random.Generator | int | None = None,
    projection: str = "box",
    baseline_projection: str = "box",
    scale: str = "unbiased",
    max_cells: int = MAX_CELLS_CLI,
) -> PointResult:
    """Simulate Mechanism 1 (allocation of Theorem 2) and the min-δ LDP baseline ``trials`` times.

    Either pass data ``x`` (n × d, in [-1,1]) or ``n`` to draw users from the q-mixture prior with
    mixture weight ``data_q`` (default: ``q``). Errors are ``‖estimate − x̄‖²``, one per trial,
    conditional on the data (as in Theorem 2).
    """
    demands = _DEMANDS.check_vector("demands", demands, max_length=500, what=" (per-feature demands)")
    d = demands.size
    trials = _TRIALS.check("trials", trials, what=" (Monte Carlo repetitions)")
    projection = check_choice("projection", projection, PROJECTIONS)
    baseline_projection = check_choice("baseline_projection", baseline_projection, PROJECTIONS)
    scale = check_choice("scale", scale, SCALES)
    alloc = privacy_allocation(demands=demands, eps=eps, q=q, zeta=zeta)
    rng = as_generator(rng)
    g_data, g_mech, g_base = spawn(rng, 3)
    if x is None:
        if n is None:
            raise InputError("run_point needs either x (data) or n (number of users to draw); got neither.")
        n = _N.check("n", n, what=" (number of users)")
        check_cost(simulation_cost(n=n, d=d, trials=trials), max_cells)
        q_data = alloc.q if data_q is None else data_q
        drawn = ("q-mixture", n, d, float(q_data), g_data.bit_generator.state)  # what draws these users
        x = _point_data(n=n, d=d, q=q_data, rng=g_data)
    else:
        drawn = None
        x = np.asarray(x, dtype=float)
        if x.ndim != 2 or x.shape[1] != d:
            raise InputError(f"x must have one column per feature (d = {d}); got shape {x.shape}.")
        check_cost(simulation_cost(n=x.shape[0], d=d, trials=trials), max_cells)
    t0 = time.perf_counter()
    xs = x[:, alloc.order]  # sorted coordinate order
    xbar = xs.mean(axis=0)
    # each method draws from its own generator (used for nothing else), so a kept value is the same draw
    data = None if drawn is None else (drawn, tuple(int(i) for i in alloc.order))  # what xs is: no hash of it
    est = mmean_releases(
        xs, data=data, c_sorted=alloc.c_sorted, trials=trials, rng=g_mech, projection=projection, scale=scale
    )
    base_level = float(alloc.capped_demands.min())  # min δ (capped at ε)
    base = _BASELINE(
        xs, data=data, level=base_level, trials=trials, rng=g_base, projection=baseline_projection, scale=scale
    )
    seconds = time.perf_counter() - t0
    err_m = ((est - xbar) ** 2).sum(axis=1)
    err_b = ((base - xbar) ** 2).sum(axis=1)
    return PointResult(
        allocation=alloc,
        errors_mmean=err_m,
        errors_baseline=err_b,
        exact_mmean=exact_mse_mmean(xs, c_sorted=alloc.c_sorted, scale=scale),
        exact_baseline=exact_mse_baseline(xs, level=base_level, scale=scale),
        bound_shape=mse_bound_thm2(c_sorted=alloc.c_sorted, n=x.shape[0]),
        corollary1=_corollary1_if_two_groups(alloc, x.shape[0]),
        baseline_level=base_level,
        seconds=seconds,
    )


def _corollary1_if_two_groups(alloc: Allocation, n: int) -> float:
    """Corollary 1 when the demands are two groups (k at δ, the rest at ε, ε > 2δ), else NaN."""
    dt = alloc.capped_demands
    low = dt.min()
    k = int(np.sum(dt == low))
    if not (1 <= k < dt.size) or not np.all((dt == low) | (dt == alloc.eps)) or not alloc.eps > 2 * low:
        return float("nan")
    return corollary1_bound(d=dt.size, k=k, demand=float(low), eps=alloc.eps, q=alloc.q, n=n)


@dataclass(frozen=True)
class GuaranteeReport:
    """What Mechanism 1 guarantees (:class:`hetdp_core.per_feature.bcdp.MechanismGuarantee`: the levels, the
    checks of Theorem 2) and its table (``bcdp_guarantee``, display labels)."""

    table: pd.DataFrame
    guarantee: MechanismGuarantee

    @property
    def checks(self) -> tuple:
        """The provable bounds checked (Theorem 2): a failure is a numerical failure, never a finding."""
        return tuple(self.guarantee.checks)

    @property
    def all_ok(self) -> bool:
        """Whether every demand and the LDP level hold."""
        return bool(self.guarantee.check.all_ok)

    @property
    def guaranteed(self) -> np.ndarray:
        """The guaranteed level δ'_i of each feature (user order)."""
        return self.guarantee.guaranteed


def guarantee_report(alloc: Allocation, q=None) -> GuaranteeReport:
    """Guarantee of Mechanism 1 with allocation ``alloc`` (user order), and its table.

    Mechanism 1 is c-CDP and c_d-LDP, so both Proposition 4(2) (with ε := c_d) and
    Proposition 4(1) bound the BCDP level; the guarantee is the smaller of the two.
    """
    g = mechanism_guarantee(alloc, q)
    df = g.check.to_frame()
    df.insert(1, "budget c_i", alloc.c)
    df["bound from the whole-record level"] = g.prop4_ldp
    df["bound from composition"] = g.prop4_composition
    return GuaranteeReport(df, g)


@dataclass(frozen=True)
class Preset:
    """A paper experiment. ``published`` notes how the paper/code differ."""

    name: str
    axis: str
    values: tuple
    d: int
    demand: float
    eps: float
    n: int
    trials: int
    note: str
    k_fraction: float | None = None  # for two-group presets: fraction f of sensitive features
    k: int | None = None
    q: float = 0.1


#: what both panels of the paper's Figure 4 share (its text: d = 50 features, n = 5000 users, T = 100 trials)
_FIGURE_4 = {"d": 50, "n": 5000, "trials": 100}

PRESETS: dict[str, Preset] = {
    "fig3": Preset(
        "Figure 3 (MSE vs q)",
        "q",
        (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9, 1.0),
        d=10,
        k=2,
        demand=0.2,
        eps=2.0,
        n=10_000,
        trials=1000,
        note="d = 10, δ = (0.2, 0.2, ε, …, ε), ε = 2, n = 10 000, 1000 trials, ζ = (1+q)/2.",
    ),
    "fig4a": Preset(
        "Figure 4a (MSE vs d)",
        "d",
        (5, 10, 20, 30, 40, 50),
        **_FIGURE_4,
        k_fraction=0.2,
        demand=0.8,
        eps=8.0,
        note="Paper text: n = 5000, f = 0.2, q = 0.1, δ = 0.8, ε = 8, T = 100. The authors' code uses n = 3000.",
    ),
    "fig4b": Preset(
        "Figure 4b (MSE vs fraction f)",
        "f",
        (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
        **_FIGURE_4,
        demand=0.2,
        eps=2.0,
        note="Paper text: d = 50, n = 5000, δ = 0.2, ε = 2, T = 100, q = 0.1. The authors' code uses q = 0.01.",
    ),
}


def _point_demands(axis: str, value, *, demands, d, f, demand, eps):
    if axis == "d":
        dd = int(value)
        return two_group_demands(d=dd, k=int(round(dd * f)), demand=demand, eps=eps)
    if axis == "f":
        return two_group_demands(d=d, k=int(round(d * float(value))), demand=demand, eps=eps)
    return demands


def sweep_points(
    *,
    axis: str,
    values: Sequence[float],
    eps: float,
    q: float,
    n: int,
    trials: int,
    seed: int,
    demands: Sequence[float] | None = None,
    d: int | None = None,
    f: float = 0.2,
    demand_sensitive: float = 0.2,
    zeta: float | None = None,
    projection: str = "box",
    baseline_projection: str = "box",
    scale: str = "unbiased",
    max_cells: int = MAX_CELLS_CLI,
    progress: Callable[[float, str], None] | None = None,
) -> list[tuple[float, int, np.ndarray, PointResult]]:
    """Run :func:`run_point` at every point of one axis (see :func:`sweep` for the axes): one
    ``(value, users, demand vector, PointResult)`` per point, each point drawing from
    :func:`point_rng` of (``seed``, value). No tables are built (the command line's ``bcdp mse`` needs
    none, nor pandas)."""
    axis = check_choice("axis", axis, AXES)
    values = check_vector("values", values, min_length=1, max_length=60, what=" (sweep points)")
    seed = _SEED.check("seed", seed, what=" (random seed)")
    trials = _TRIALS.check("trials", trials, what=" (Monte Carlo repetitions)")
    n = _N.check("n", n, what=" (number of users)")
    if axis in ("q", "n"):
        if demands is None:
            raise InputError(f"axis={axis!r} needs the demand vector demands; got None. Pass one demand per feature.")
        demands = _DEMANDS.check_vector("demands", demands, max_length=500)
        d = demands.size
    else:
        demands = None
        f = UNIT.check("f", f, what=" (fraction of sensitive features)")
        demand_sensitive = POSITIVE.check(
            "demand_sensitive", demand_sensitive, what=" (demand of the sensitive features)"
        )
    if axis == "q":
        for v in values:
            UNIT.check("q values", v, what=" (correlations to sweep)")
    if axis == "f":
        for v in values:
            UNIT.check("f values", v, what=" (fractions to sweep)")
    _, ns = _sweep_shapes(axis, values, d, n)
    check_sweep_size(axis=axis, values=values, d=d, n=n, trials=trials, limit=max_cells)

    points = []
    for i, v in enumerate(values):
        if progress:
            progress(i / values.size, f"{axis} = {v:g}")
        dv = _point_demands(axis, v, demands=demands, d=d, f=f, demand=demand_sensitive, eps=eps)
        res = run_point(
            n=ns[i],
            demands=dv,
            eps=eps,
            q=float(v) if axis == "q" else q,
            zeta=zeta,
            trials=trials,
            rng=point_rng(seed, float(v)),
            projection=projection,
            baseline_projection=baseline_projection,
            scale=scale,
            max_cells=max_cells,
        )
        points.append((float(v), int(ns[i]), dv, res))
    if progress:
        progress(1.0, "done")
    return points


def sweep(**kwargs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run :func:`run_point` along one axis and return ``(summary, errors)`` tidy DataFrames
    (``kwargs``: those of :func:`sweep_points`; the tables: :func:`sweep_tables`).

    * ``axis="q"``: the demand vector ``demands`` is fixed, q takes ``values`` (ζ heuristic per q
      unless ``zeta`` is given);
    * ``axis="n"``: ``demands`` fixed, n takes ``values``;
    * ``axis="d"``: two-group demands, the first round(d·f) features at ``demand_sensitive``, the
      rest at ε, for each d in ``values``;
    * ``axis="f"``: dimension ``d``, fraction f of sensitive features takes ``values``.
    """
    points = sweep_points(**kwargs)  # validates every argument, the axis included
    return sweep_tables(kwargs["axis"], points)


def sweep_tables(axis: str, points) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``(summary, errors)`` tables of sweep points (:func:`sweep_points`' tuples, of one or several
    calls), each built once from plain columns. ``summary`` has one row per (x, method) with median, q25,
    q75, mean, exact (closed-form, pre-projection) MSE, the Theorem 2 bound shape and Corollary 1 (both
    with constant 1); ``errors`` has one row per (x, method, trial)."""
    import pandas as pd

    rows, xs, methods, trials, errors = [], [], [], [], []
    for v, users, dv, res in points:
        for method, errs, exact, bound, cor in (
            ("M_mean (BCDP)", res.errors_mmean, res.exact_mmean, res.bound_shape, res.corollary1),
            ("min-δ LDP", res.errors_baseline, res.exact_baseline, np.nan, np.nan),
        ):
            rows.append(
                {
                    axis: v,
                    "method": method,
                    **_summary(errs),
                    "exact_mse": exact,
                    "bound_shape": bound,
                    "corollary1": cor,
                    "ldp_level": res.allocation.ldp_level if method.startswith("M") else res.baseline_level,
                    "seconds": res.seconds,
                    "d": dv.size,
                    "n": users,
                }
            )
            xs.append(np.full(errs.size, v, dtype=float))
            methods.append(np.full(errs.size, method, dtype=object))
            trials.append(np.arange(errs.size))
            errors.append(np.asarray(errs, dtype=float))
    table = pd.DataFrame(
        {
            axis: np.concatenate(xs),
            "method": np.concatenate(methods),
            "trial": np.concatenate(trials),
            "sq_error": np.concatenate(errors),
        }
    )
    return pd.DataFrame(rows), table


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
