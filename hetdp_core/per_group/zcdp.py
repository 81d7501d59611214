r"""Group-wise zCDP lab (A. Azize, *Open problem: better privacy guarantees for larger groups*, 2023).

Counts ``x_i`` for k groups are released with relative error r; σ² = 1/(2ρ).

* **Algorithm 1**: ``X_i ~ N(x_i, σ²)``, then ``Y_i ~ N(X_i, (r X_i)²)``. Accuracy bound
  ``E|Y_i − x_i| ≤ r x_i + σ√(1+r²)``. Y is a post-processing of the Gaussian mechanism X, so it is
  ρ-zCDP for every group (D_α ≤ αρ); the open question is whether the loss *decreases* with x_i.
  The divergence has no closed form: we compute it numerically (see :func:`renyi_algorithm1`).
* **Algorithm 2**: ``X_i ~ N(x_i, (r x_i)²)``. Accuracy ``E|X_i − x_i| ≤ r x_i``. The paper claims
  group-wise zCDP with ``v_i = 1/(2 r² x_i²)``, ``ξ_i = 2 log(1 + 1/x_i)``; group-wise zCDP needs
  **both** directions ``D_α(M(D)‖M(D'))`` and ``D_α(M(D')‖M(D))`` ≤ α v_i + ξ_i for neighbours
  x_i ± 1 and all α > 1. The reverse direction is +∞ once ``s_α² ≤ 0``, i.e. for
  ``α ≥ (x+1)²/(2x+1)`` (neighbour x+1): the claim fails there.

Rényi divergence of Gaussians (s_α² = α s2² + (1−α) s1²):

.. math:: D_\alpha(N(\mu_1,s_1^2)\|N(\mu_2,s_2^2)) = \log\frac{s_2}{s_1} + \frac{\log(s_2^2/s_\alpha^2)}{2(\alpha-1)}
          + \frac{\alpha(\mu_1-\mu_2)^2}{2 s_\alpha^2},\qquad +\infty \text{ if } s_\alpha^2 \le 0.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..framework._doc import document
from ..framework.constraints import UNIT

if TYPE_CHECKING:
    import pandas as pd

from .algorithm1 import (
    ALG1_ABS_TOL,
    ALG1_REL_TOL,
    Algorithm1Divergence,
    algorithm1_seconds,
    log_density_algorithm1,
    renyi_algorithm1,
    renyi_algorithm1_detail,
    renyi_monte_carlo_algorithm1,
)
from .gaussian import (
    _ALGORITHM,
    _ALPHA_MAX,
    _K,
    _R,
    _RHO,
    _S,
    _TOTAL,
    _alphas,
    _counts,
    _neighbours,
    release,
    renyi_gaussian,
    sigma_from_rho,
    validate_counts,
)
from .gaussian import ALGORITHMS as ALGORITHMS
from .gaussian import MAX_ALPHA as MAX_ALPHA
from .gaussian import MAX_COUNT as MAX_COUNT
from .gaussian import MAX_RHO as MAX_RHO
from .gaussian import MIN_RHO as MIN_RHO

__all__ = [
    "sigma_from_rho",
    "renyi_gaussian",
    "release",
    "accuracy_bound",
    "claimed_budget",
    "renyi_algorithm2",
    "renyi_algorithm1",
    "log_density_algorithm1",
    "renyi_monte_carlo_algorithm1",
    "RenyiCurves",
    "renyi_curves",
    "ClaimCheck",
    "claim_reference",
    "check_claim",
    "curve_checks",
    "NeighbourOrders",
    "algorithm2_infinite_from",
    "algorithm2_violation_orders",
    "renyi_algorithm1_detail",
    "algorithm1_seconds",
    "Algorithm1Divergence",
    "ALG1_REL_TOL",
    "zipf_counts",
    "divergence_vs_size",
    "group_summary",
    "release_summary",
    "Monotonicity",
    "loss_monotonicity",
    "validate_counts",
]


def accuracy_bound(counts, *, rho: float, r: float, algorithm: int) -> np.ndarray:
    """Bound on E|release − x|: ``r x + σ√(1+r²)`` (Algorithm 1) or ``r x`` (Algorithm 2)."""
    x = _counts(counts)
    sigma = sigma_from_rho(rho)
    r = _R.check("r", r, what=" (relative error)")
    algorithm = _ALGORITHM.check("algorithm", algorithm)
    return r * x + (sigma * np.sqrt(1 + r**2) if algorithm == 1 else 0.0)


def claimed_budget(counts, *, r: float) -> tuple[np.ndarray, np.ndarray]:
    """The paper's claim for Algorithm 2: ``v = 1/(2 r² x²)``, ``ξ = 2 log(1 + 1/x)`` (inf at x = 0)."""
    x = _counts(counts)
    r = _R.check("r", r, what=" (relative error)")
    with np.errstate(divide="ignore"):
        v = np.where(x > 0, 1.0 / (2.0 * r**2 * np.maximum(x, 1e-300) ** 2), np.inf)
        xi = np.where(x > 0, 2.0 * np.log1p(1.0 / np.maximum(x, 1e-300)), np.inf)
    return v, xi


def renyi_algorithm2(*, x: float, r: float, alpha) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 2, both directions, maximised over the neighbours x ± 1 (x − 1 only if x ≥ 1):
    ``up = max D_α(M(x)‖M(x±1))``, ``down = max D_α(M(x±1)‖M(x))``."""
    x = float(_counts(x, "x")[0])
    r = _R.check("r", r, what=" (relative error)")
    a = _alphas(alpha)
    up = np.full(a.shape, -np.inf)
    down = np.full(a.shape, -np.inf)
    for xn in _neighbours(x):
        up = np.maximum(up, renyi_gaussian(alpha=a, mu1=x, s1=r * x, mu2=xn, s2=r * xn))
        down = np.maximum(down, renyi_gaussian(alpha=a, mu1=xn, s1=r * xn, mu2=x, s2=r * x))
    return up, down


# ---------------------------------------------------------------- curves and claim check
@dataclass(frozen=True)
class RenyiCurves:
    """D_α in both directions against the reference line for one group.

    For Algorithm 1 the values are numerical: NaN marks an order whose integral could not be
    resolved to the tolerance (``unresolved``); it is never counted as a violation or a finding."""

    alpha: np.ndarray
    up: np.ndarray  # max over ± of D_α(M(x) ‖ M(x±1))
    down: np.ndarray  # max over ± of D_α(M(x±1) ‖ M(x))
    claimed: np.ndarray  # α v + ξ (Algorithm 2's claim) or α ρ (Algorithm 1, post-processing)
    algorithm: int
    x: float

    @property
    def unresolved(self) -> np.ndarray:
        return np.isnan(self.up) | np.isnan(self.down)

    @property
    def violated(self) -> np.ndarray:
        """True where either direction exceeds the claim (tolerance 1e-9 relative)."""
        tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(self.claimed), self.claimed, 0)))
        with np.errstate(invalid="ignore"):
            return (self.up > self.claimed + tol) | (self.down > self.claimed + tol)


def renyi_curves(*, algorithm: int, x: float, rho: float, r: float, alpha) -> RenyiCurves:
    """Both directions and the reference line: Algorithm 2 vs the paper's ``α v + ξ``;
    Algorithm 1 vs ``α ρ`` (valid by post-processing of the Gaussian mechanism)."""
    algorithm = _ALGORITHM.check("algorithm", algorithm, what=" (1 or 2)")
    a = _alphas(alpha)
    xv = float(_counts(x, "x")[0])
    if algorithm == 2:
        _RHO.check("rho", rho, what=" (zCDP level)")
        up, down = renyi_algorithm2(x=xv, r=r, alpha=a)
        v, xi = claimed_budget([xv], r=r)
        with np.errstate(invalid="ignore"):
            claimed = a * v[0] + xi[0]
    else:
        up, down = renyi_algorithm1(x=xv, rho=rho, r=r, alpha=a)
        claimed = a * _RHO.check("rho", rho)
    return RenyiCurves(alpha=a, up=up, down=down, claimed=claimed, algorithm=algorithm, x=xv)


def curve_checks(curves: RenyiCurves, *, rho: float) -> list:
    """Algorithm 1 is a post-processing of the ρ-zCDP Gaussian step: every shown D_α ≤ αρ
    (unresolved orders are not shown and not checked). Algorithm 2 has no provable bound to check:
    its comparison with the paper's claim is a finding, not a check."""
    from ..framework.checks import check_le

    if curves.algorithm != 1:
        return []
    ins = {"x": curves.x, "rho": rho}
    return [
        check_le(
            f"Algorithm 1: {name} ≤ αρ (post-processing)",
            vals,
            curves.alpha * rho,
            labels=[f"α = {a:g}" for a in curves.alpha],
            inputs=ins,
        )
        for name, vals in (("D_α(M(x)‖M(x±1))", curves.up), ("D_α(M(x±1)‖M(x))", curves.down))
    ]


@dataclass(frozen=True)
class NeighbourOrders:
    """One order α per direction and neighbour of Algorithm 2's divergences — ``up_plus`` =
    D_α(M(x)‖M(x+1)), ``up_minus`` = D_α(M(x)‖M(x−1)), ``down_plus`` = D_α(M(x+1)‖M(x)), ``down_minus`` =
    D_α(M(x−1)‖M(x)) — None where there is none, and ``first``, the smallest of them."""

    up_plus: float | None
    up_minus: float | None
    down_plus: float | None
    down_minus: float | None
    first: float | None

    def as_dict(self) -> dict:
        """The orders as ``hetdp zcdp renyi --json`` prints them."""
        return dataclasses.asdict(self)


def algorithm2_infinite_from(x: float) -> NeighbourOrders:
    r"""Orders from which Algorithm 2's divergences are +∞, per direction and neighbour.

    With s = r·x the scales of M(x) = N(x, r²x²) and M(x') = N(x', r²x'²), D_α(P‖Q) is infinite
    iff s_α² = α s_Q² + (1 − α) s_P² ≤ 0, i.e. for α ≥ s_P²/(s_P² − s_Q²) when s_P > s_Q:

    * ``down_plus``  D_α(M(x+1)‖M(x)): α ≥ (x+1)²/(2x+1);
    * ``up_minus``   D_α(M(x)‖M(x−1)): α ≥ x²/(2x−1) (x ≥ 1; at x = 1, M(0) is a point mass and
      the divergence is infinite for every α);
    * ``up_plus`` and ``down_minus`` (towards the larger scale) stay finite for every α.

    ``first`` is the smallest of these: the order from which the claim fails by being infinite.
    (r cancels.)"""
    x = float(_counts(x, "x")[0])
    if x == 0:
        return NeighbourOrders(up_plus=1.0, up_minus=None, down_plus=1.0, down_minus=None, first=1.0)
    down_plus, up_minus = (x + 1) ** 2 / (2 * x + 1), (1.0 if x == 1 else x**2 / (2 * x - 1))
    return NeighbourOrders(
        up_plus=None, up_minus=up_minus, down_plus=down_plus, down_minus=None, first=min(down_plus, up_minus)
    )


def algorithm2_violation_orders(*, x: float, r: float, alpha_max: float = 100.0) -> NeighbourOrders:
    """The smallest order α ∈ (1, ``alpha_max``] at which each of Algorithm 2's four divergences
    (``up_plus`` = D_α(M(x)‖M(x+1)), ``up_minus`` = D_α(M(x)‖M(x−1)), ``down_plus``, ``down_minus``)
    exceeds the claim α v + ξ — found on a fine grid and refined by bisection to 1e-10 — or None
    if it never does there. ``first`` is the smallest of them."""
    from scipy.optimize import brentq

    x = float(_counts(x, "x")[0])
    r = _R.check("r", r, what=" (relative error)")
    alpha_max = _ALPHA_MAX.check("alpha_max", alpha_max)
    v, xi = claimed_budget([x], r=r)
    grid = 1.0 + np.geomspace(1e-6, alpha_max - 1.0, 4000)
    out = {}
    for name, (mu1, mu2) in {
        "up_plus": (x, x + 1),
        "up_minus": (x, x - 1),
        "down_plus": (x + 1, x),
        "down_minus": (x - 1, x),
    }.items():
        if min(mu1, mu2) < 0:
            out[name] = None
            continue

        def excess(a, mu1=mu1, mu2=mu2):
            with np.errstate(invalid="ignore", over="ignore"):
                d = renyi_gaussian(alpha=a, mu1=mu1, s1=r * mu1, mu2=mu2, s2=r * mu2)
                return d - (a * v[0] + xi[0])

        e = excess(grid)
        bad = np.flatnonzero(e > 0)
        if bad.size == 0:
            out[name] = None
        elif bad[0] == 0:
            out[name] = 1.0  # violated from the smallest order tried: for no α > 1
        else:
            lo, hi = grid[bad[0] - 1], grid[bad[0]]
            f = lambda a: float(np.minimum(excess(np.array([a]))[0], 1e300))  # noqa: E731
            out[name] = float(brentq(f, lo, hi, xtol=1e-10)) if np.isfinite(e[bad[0]]) or f(hi) > 0 else float(hi)
    found = [val for val in out.values() if val is not None]
    return NeighbourOrders(**out, first=min(found) if found else None)


@dataclass(frozen=True)
class ClaimCheck:
    """What :func:`check_claim` found for one group's curves.

    ``holds`` whether the claimed budget bounds both directions on the grid (Algorithm 1: always, it is
    ρ-zCDP by post-processing); ``first_violation_up`` / ``first_violation_down`` the smallest order α
    where a direction exceeds the claim (None: nowhere on the grid); ``infinite_up`` / ``infinite_down``
    whether a direction is infinite somewhere on the grid; ``unresolved`` the orders whose integral
    could not be resolved (Algorithm 1). Algorithm 1 only: ``bound_violation``, a resolved value above
    αρ — a numerical failure, never a finding. Algorithm 2 only: ``alpha_infinite`` the exact orders
    from which each direction and neighbour is infinite (:func:`algorithm2_infinite_from`) and
    ``alpha_infinite_threshold`` the first of them."""

    holds: bool
    first_violation_up: float | None
    first_violation_down: float | None
    infinite_up: bool
    infinite_down: bool
    unresolved: tuple[float, ...]
    bound_violation: bool | None = None
    alpha_infinite_threshold: float | None = None
    alpha_infinite: NeighbourOrders | None = None

    def first_violation(self, direction: str) -> float | None:
        """The smallest violating order of ``direction`` ("up" or "down")."""
        return {"up": self.first_violation_up, "down": self.first_violation_down}[direction]

    def infinite(self, direction: str) -> bool:
        """Whether ``direction`` ("up" or "down") is infinite somewhere on the grid."""
        return {"up": self.infinite_up, "down": self.infinite_down}[direction]

    def as_dict(self) -> dict:
        """The check as ``hetdp zcdp renyi --json`` prints it (an algorithm's own entries only)."""
        out = {
            "first_violation_up": self.first_violation_up,
            "infinite_up": self.infinite_up,
            "first_violation_down": self.first_violation_down,
            "infinite_down": self.infinite_down,
            "unresolved": list(self.unresolved),
        }
        if self.bound_violation is not None:
            out["bound_violation"] = self.bound_violation
        out["holds"] = self.holds
        if self.alpha_infinite is not None:
            out["alpha_infinite_threshold"] = self.alpha_infinite_threshold
            out["alpha_infinite"] = self.alpha_infinite.as_dict()
        return out


def claim_reference(algorithm: int) -> str:
    """What an algorithm's Rényi divergences are compared with: the paper's claimed α·v + ξ
    (Algorithm 2) or α·ρ, which Algorithm 1 meets as a post-processing of its Gaussian step."""
    return "claimed α·v + ξ (paper)" if algorithm == 2 else "α·ρ (post-processing of the Gaussian step)"


def check_claim(curves: RenyiCurves) -> ClaimCheck:
    """Where the claim fails: the smallest violating α per direction (None if it holds on the
    grid), and whether any direction is infinite. For Algorithm 2 the exact orders from which a
    direction is infinite are given per direction and neighbour (:func:`algorithm2_infinite_from`).
    For Algorithm 1, ``unresolved`` lists the orders whose integral could not be resolved and
    ``bound_violation`` is True if a resolved value exceeds αρ — a numerical failure, never a
    finding (Algorithm 1 is ρ-zCDP by post-processing)."""
    tol = 1e-9 * np.maximum(1.0, np.abs(np.where(np.isfinite(curves.claimed), curves.claimed, 0)))
    first, infinite = {}, {}
    for name, vals in (("up", curves.up), ("down", curves.down)):
        with np.errstate(invalid="ignore"):
            bad = vals > curves.claimed + tol
        first[name] = float(curves.alpha[bad][0]) if bad.any() else None
        infinite[name] = bool(np.isinf(vals).any())
    found = {
        "first_violation_up": first["up"],
        "first_violation_down": first["down"],
        "infinite_up": infinite["up"],
        "infinite_down": infinite["down"],
        "unresolved": tuple(float(v) for v in curves.alpha[curves.unresolved]),
    }
    clean = first["up"] is None and first["down"] is None
    if curves.algorithm == 1:
        return ClaimCheck(holds=True, bound_violation=not clean, **found)
    inf = algorithm2_infinite_from(curves.x)
    return ClaimCheck(holds=clean, alpha_infinite_threshold=inf.first, alpha_infinite=inf, **found)


def zipf_counts(*, k: int, total: int, s: float = 1.0) -> np.ndarray:
    """k group counts with Zipf shares ∝ 1/rank^s, rounded to integers summing to ``total``."""
    k = _K.check("k", k, what=" (number of groups)")
    total = _TOTAL.check("total", total, what=" (total people)")
    s = _S.check("s", s, what=" (Zipf exponent)")
    w = 1.0 / np.arange(1, k + 1) ** s
    raw = total * w / w.sum()
    base = np.floor(raw)
    rest = int(total - base.sum())
    base[np.argsort(-(raw - base))[:rest]] += 1  # largest remainders
    return base


def divergence_vs_size(*, sizes, alphas, rho: float, r: float, algorithm: int = 1) -> pd.DataFrame:
    """Worst-direction loss ``max(up, down)`` at each group size and order α (tidy DataFrame with
    columns size, alpha, up, down, loss, error, reference); :func:`loss_monotonicity` reads from it, for
    each α, whether the loss is non-increasing in the size over the given sizes — the open question,
    answered numerically for these parameters. For Algorithm 1, ``error`` is the numerical error
    estimate and ``loss`` is NaN where the integral could not be resolved (such sizes are skipped
    by the monotonicity check)."""
    import pandas as pd

    sizes = np.unique(_counts(sizes, "sizes"))
    a = _alphas(alphas)
    algorithm = _ALGORITHM.check("algorithm", algorithm, what=" (1 or 2)")
    rows = []
    for x in sizes:
        if algorithm == 1:
            d = renyi_algorithm1_detail(x=x, rho=rho, r=r, alpha=a)
            up, down, err = d.up, d.down, np.maximum(d.up_error, d.down_error)
            ref = a * rho
        else:
            up, down = renyi_algorithm2(x=x, r=r, alpha=a)
            err = np.zeros(a.shape)
            v, xi = claimed_budget([x], r=r)
            ref = a * v[0] + xi[0]
        for j, al in enumerate(a):
            rows.append(
                {
                    "size": float(x),
                    "alpha": float(al),
                    "up": up[j],
                    "down": down[j],
                    "loss": np.nan if np.isnan(up[j]) or np.isnan(down[j]) else max(up[j], down[j]),
                    "error": float(err[j]),
                    "reference": ref[j],
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Monotonicity:
    """Whether a loss is non-increasing in the group size (:func:`loss_monotonicity`, one order α):
    ``non_increasing``, its ``first_rise`` (size before, size after; None when it never rises) and
    ``from_size``, the smallest size from which it never rises again (None if it rises at the last step)."""

    non_increasing: bool
    first_rise: tuple[float, float] | None
    from_size: float | None


def loss_monotonicity(df: pd.DataFrame, *, rel_tol: float = 1e-9) -> dict[float, Monotonicity]:
    """For each α in a (size, alpha, loss[, error]) table: whether the loss is non-increasing in
    the size, the first rise (size before, size after) and the smallest size from which it never
    rises again (None if it rises at the last step), as a :class:`Monotonicity` per α. A rise counts
    only when it exceeds the two points' numerical error estimates plus ``rel_tol`` relative and
    ``ALG1_ABS_TOL``; unresolved (NaN) points are skipped."""
    rel_tol = UNIT.check("rel_tol", rel_tol)
    out = {}
    for al, g in df.groupby("alpha"):
        g = g.sort_values("size")
        g = g[~g["loss"].isna()]
        vals, xs = g["loss"].to_numpy(dtype=float), g["size"].to_numpy(dtype=float)
        err = g["error"].to_numpy(dtype=float) if "error" in g else np.zeros(vals.size)
        with np.errstate(invalid="ignore"):
            slack = err[:-1] + err[1:] + rel_tol * np.abs(vals[:-1]) + ALG1_ABS_TOL
            rises = np.diff(vals) > slack
        rises |= np.isinf(vals[1:]) & np.isfinite(vals[:-1])
        idx = np.flatnonzero(rises)
        out[float(al)] = Monotonicity(
            non_increasing=idx.size == 0,
            first_rise=None if idx.size == 0 else (float(xs[idx[0]]), float(xs[idx[0] + 1])),
            from_size=(float(xs[0]) if xs.size else None)
            if idx.size == 0
            else (float(xs[idx[-1] + 1]) if idx[-1] + 1 < xs.size - 1 else None),
        )
    return out


def group_summary(counts, *, rho: float, r: float, algorithm: int, alpha_max: float = 20.0) -> pd.DataFrame:
    """Per group, in plain terms: the accuracy bound, the promise and what the group actually gets.

    Algorithm 2: promise ``α v + ξ`` (paper); actual = worst direction over neighbours x ± 1;
    "claim holds for α <" = the exact order at which the first of the four divergences crosses the
    claim (:func:`algorithm2_violation_orders`, bisection to 1e−10; a number, ``inf`` when the claim
    holds on all of (1, ``alpha_max``]).
    Algorithm 1: promise ``α ρ`` (post-processing); actual computed numerically at α = 2; the claim
    holds for every α (``inf``).
    """
    import pandas as pd

    x = _counts(counts)
    alpha_max = _ALPHA_MAX.check("alpha_max", alpha_max)
    acc = accuracy_bound(x, rho=rho, r=r, algorithm=algorithm)
    rows = []
    for i, xi_ in enumerate(x):
        if algorithm == 2:
            first = algorithm2_violation_orders(x=xi_, r=r, alpha_max=alpha_max).first
            up2, down2 = renyi_algorithm2(x=xi_, r=r, alpha=[2.0])
            v, xi = claimed_budget([xi_], r=r)
            inf_from = algorithm2_infinite_from(xi_).first
            rows.append(
                {
                    "group": i + 1,
                    "count": xi_,
                    "accuracy bound E|err|": acc[i],
                    "promised at α=2": float(2.0 * v[0] + xi[0]),
                    "actual at α=2": float(max(up2[0], down2[0])),
                    "claim holds for α <": float(first) if first is not None else np.inf,
                    "checked up to α": alpha_max,
                    "infinite loss from α =": inf_from if inf_from <= alpha_max else np.nan,
                }
            )
        else:
            up, down = renyi_algorithm1(x=xi_, rho=rho, r=r, alpha=np.array([2.0]))
            rows.append(
                {
                    "group": i + 1,
                    "count": xi_,
                    "accuracy bound E|err|": acc[i],
                    "promised at α=2": 2 * rho,
                    "actual at α=2": np.nan if np.isnan(up[0] + down[0]) else float(max(up[0], down[0])),
                    "claim holds for α <": np.inf,
                    "checked up to α": np.inf,
                    "infinite loss from α =": np.nan,
                }
            )
    return pd.DataFrame(rows)


def release_summary(
    counts, *, rho: float, r: float, algorithm: int, trials: int, rng: np.random.Generator | int | None = None
) -> pd.DataFrame:
    """Simulated releases per group: mean, 2.5/97.5 % quantiles, E|error| and the accuracy bound."""
    import pandas as pd

    x = _counts(counts)
    Y = release(x, rho=rho, r=r, algorithm=algorithm, trials=trials, rng=rng)
    q025, q975 = np.quantile(Y, [0.025, 0.975], axis=0)
    return pd.DataFrame(
        {
            "group": np.arange(1, x.size + 1),
            "count": x,
            "mean": Y.mean(axis=0),
            "q025": q025,
            "q975": q975,
            "mean_abs_error": np.abs(Y - x).mean(axis=0),
            "bound": accuracy_bound(x, rho=rho, r=r, algorithm=algorithm),
        }
    )


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
