"""Bayesian Coordinate DP (BCDP): privacy allocation, guarantees and error bounds.

Reference: Aliakbarpour, Chaudhuri, Courtade, Fallah, Jordan, *Enhancing Feature-Specific Data
Protection via Bayesian Coordinate Differential Privacy*, AISTATS 2025 (arXiv:2410.18404),
Theorem 2, Propositions 3, 4, 6 and Corollary 1.

Conventions
-----------
* ``demands`` are the per-coordinate demands, the paper's δ (``+inf`` = no coordinate-level demand),
  in the *user's* order; δ is never the (ε, δ)-DP failure probability here. The theory sorts
  coordinates so that δ is non-decreasing; :func:`privacy_allocation` does
  the sorting itself and maps every result back to the user's order.
* ``eps`` is the global LDP level, ``q`` the correlation bound of Assumption 1, ``zeta`` the free
  parameter of Theorem 2 (default: the paper's heuristic ``(1 + q) / 2``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import MAX_EPS, InputError
from ..framework.constraints import COUNT, DEMAND, EPS, NONNEGATIVE, UNIT, USERS, Interval

__all__ = [
    "MAX_EPS",
    "GUARANTEE_TOL",
    "Allocation",
    "GuaranteeCheck",
    "heuristic_zeta",
    "privacy_allocation",
    "prop3_guarantee",
    "prop4_ldp_guarantee",
    "prop4_composition_guarantee",
    "check_guarantee",
    "prop6_matrix",
    "translate_demands_to_c",
    "Translation",
    "stage_increments",
    "mse_bound_thm2",
    "corollary1_bound",
]

#: Absolute floating-point tolerance of the pass/fail check (guaranteed ≤ demanded + tol).
GUARANTEE_TOL = 1e-9


#: a finite demand (Corollary 1's sensitive features: +∞ has no bound)
_FINITE_DEMAND = DEMAND.narrow(finite=True)


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_DEMANDS = Interval(float, 0.0, None, closed="right", allow_inf=True)
_ZETA = Interval(float, 0.0, 1.0, closed="right")
_EPS = Interval(float, 0.0, None, allow_inf=True)
_LDP = Interval(float, 0.0, MAX_EPS)
_DEMANDED = Interval(float, 0.0, None, closed="right", allow_inf=True)
_GUARANTEED = Interval(float, 0.0, None, allow_inf=True)
_LDP_LEVEL = Interval(float, 0.0, None, allow_inf=True)
_EPS_2 = Interval(float, 0.0, None, closed="right", allow_inf=True)
_D = Interval(int, 2, None)


def heuristic_zeta(q: float) -> float:
    """The paper's heuristic ζ = (1 + q)/2 (Appendix B.3)."""
    q = UNIT.check("q", q, what=" (correlation bound of Assumption 1)")
    return (1.0 + q) / 2.0


def _correlation_cost(level: np.ndarray | float, q: np.ndarray | float) -> np.ndarray:
    """``log(1 + q e^{level} − q)``: the BCDP price that correlation q adds to a coordinate.

    Computed as ``logaddexp(log q + level, log(1 − q))`` so that neither large levels overflow nor
    ``q e^{level}`` underflows (an earlier form, ``level + log(q + (1 − q)e^{−level})``, gave −∞ for
    q = 0 and level = 400); equals 0 when q = 0 and ``level`` when q = 1 (Proposition 4).
    """
    level = np.asarray(level, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore"):
        cost = np.logaddexp(np.log(q) + level, np.log1p(-q))
    return np.clip(cost, 0.0, level)  # exact range for level ≥ 0; removes round-off (~1e-17)


@dataclass(frozen=True)
class Allocation:
    """Result of :func:`privacy_allocation` (Theorem 2). Arrays are in the user's order
    unless the name ends in ``_sorted``.

    Attributes
    ----------
    demands, capped_demands : the demands δ_i and ``min(δ_i, ε)`` (the paper's δ̃).
    c : the per-coordinate CDP levels.
    order : ``order[j]`` is the user index of the j-th least-private-demand coordinate, so
        ``c_sorted = c[order]`` is non-decreasing.
    ldp_level : ``c_d = max c``: the LDP level Mechanism 1 actually delivers (≤ ε).
    """

    demands: np.ndarray
    capped_demands: np.ndarray
    c: np.ndarray
    order: np.ndarray
    eps: float
    q: float
    zeta: float
    ldp_level: float

    @property
    def c_sorted(self) -> np.ndarray:
        return self.c[self.order]

    @property
    def d(self) -> int:
        return int(self.c.size)


def privacy_allocation(*, demands, eps: float, q: float, zeta: float | None = None) -> Allocation:
    r"""Privacy allocation ``c`` of Theorem 2 (eq. 16).

    With :math:`\tilde\delta_i = \min(\delta_i, \varepsilon)` and coordinates sorted so that
    :math:`\tilde\delta` is non-decreasing:

    .. math::
        c_d = \min\Big(\log\frac{e^{\zeta\tilde\delta_1} + q - 1}{q},\ \tilde\delta_d\Big),\qquad
        c_i = \begin{cases} c_d & c_d \le \tilde\delta_i\\
              \tilde\delta_i - \log(1 + q e^{c_d} - q) & \text{otherwise.}\end{cases}

    For q = 0 the log term is +inf, so ``c = δ̃``; for q = 1 every ``c_i = ζ δ̃_1``.
    Mechanism 1 with this c is δ-BCDP and ε-LDP (it is in fact ``c_d``-LDP).
    """
    demands = _DEMANDS.check_vector("demands", demands, max_length=10_000, what=" (per-feature BCDP demands)")
    eps = EPS.check("eps", eps, what=" (global LDP level)")
    q = UNIT.check("q", q, what=" (correlation bound of Assumption 1)")
    if zeta is None:
        zeta = heuristic_zeta(q)
    zeta = _ZETA.check("zeta", zeta, what=" (free parameter ζ of Theorem 2)")

    order = np.argsort(demands, kind="stable")
    dt = np.minimum(demands[order], eps)  # δ̃, sorted non-decreasing
    a = zeta * dt[0]
    # log((e^a + q − 1)/q) written as a + log(1 − (1 − q)e^{−a}) − log q (no overflow); +inf for q = 0
    log_term = np.inf if q == 0.0 else a + np.log1p(-(1.0 - q) * np.exp(-a)) - np.log(q)
    if log_term < dt[-1]:
        # c_d is the log term, so log(1 + q e^{c_d} − q) = log(e^a) = ζ δ̃_1 exactly: using the identity
        # instead of re-evaluating it makes c_1 = (1 − ζ) δ̃_1 exactly (ζ = 1 gives c_1 = 0, not 2.8e-17)
        cd, cost = float(log_term), a
    else:
        cd = dt[-1]
        cost = _correlation_cost(cd, q)  # log(1 + q e^{c_d} − q)
    c_sorted = np.where(cd <= dt, cd, dt - cost)
    c_sorted = np.clip(c_sorted, 0.0, None)
    c = np.empty_like(c_sorted)
    c[order] = c_sorted
    return Allocation(
        demands=demands,
        capped_demands=np.minimum(demands, eps),
        c=c,
        order=order,
        eps=eps,
        q=q,
        zeta=zeta,
        ldp_level=float(c_sorted[-1]),
    )


def prop3_guarantee(*, eps: float, d: int) -> np.ndarray:
    """Proposition 3: an ε-LDP mechanism is ε·1-BCDP."""
    eps = _EPS.check("eps", eps, what=" (LDP level)")
    d = COUNT.check("d", d, what=" (number of features)")
    return np.full(d, eps)


def _q_vector(q, d: int) -> np.ndarray:
    if np.ndim(q) == 0:
        q = UNIT.check("q", q, what=" (correlation bound)")
        return np.full(d, q)
    return UNIT.check_vector("q", q, length=d, what=" (per-coordinate correlation bounds)")


def prop4_ldp_guarantee(*, c, q, ldp: float) -> np.ndarray:
    r"""Proposition 4(2): a c-CDP mechanism that is also ``ldp``-LDP is δ'-BCDP with
    :math:`\delta'_i = \min(c_i + \log(1 + q_i e^{\varepsilon} - q_i),\ \varepsilon)`, ε = ``ldp``.

    For Mechanism 1 use ``ldp = c_d`` (it is c-CDP and c_d-LDP).
    """
    c = NONNEGATIVE.check_vector("c", c, what=" (CDP levels)")
    ldp = _LDP.check("ldp", ldp, what=" (LDP level of the mechanism)")
    qv = _q_vector(q, c.size)
    return np.minimum(c + _correlation_cost(ldp, qv), ldp)


def prop4_composition_guarantee(*, c, q) -> tuple[np.ndarray, float]:
    r"""Proposition 4(1): a c-CDP mechanism is (Σ c_i)-LDP and δ-BCDP with
    :math:`\delta_i = c_i + \log(1 + q_i(e^{\sum_{j\ne i} c_j} - 1))`.

    Returns ``(levels, ldp_level)``: the guaranteed δ_i and the LDP level.
    """
    c = NONNEGATIVE.check_vector("c", c, what=" (CDP levels)")
    qv = _q_vector(q, c.size)
    rest = c.sum() - c
    return c + _correlation_cost(rest, qv), float(c.sum())


@dataclass(frozen=True)
class GuaranteeCheck:
    """Per-coordinate guarantee check, user order.

    ``ok[i]`` is True iff ``guaranteed[i] <= demanded[i] + GUARANTEE_TOL``; ``ldp_ok`` iff the
    delivered LDP level is ≤ the demanded ε (same tolerance).
    """

    demanded: np.ndarray
    guaranteed: np.ndarray
    ok: np.ndarray
    ldp_level: float
    eps: float
    ldp_ok: bool

    @property
    def slack(self) -> np.ndarray:
        return self.demanded - self.guaranteed

    @property
    def all_ok(self) -> bool:
        return bool(self.ok.all() and self.ldp_ok)

    def to_frame(self, names: list[str] | None = None):
        """The check as a table (pandas is imported here only: the CLI's c-vector path stays light)."""
        import pandas as pd

        names = names or [f"x{i + 1}" for i in range(self.demanded.size)]
        return pd.DataFrame(
            {
                "feature": names,
                "demanded δ": self.demanded,
                "guaranteed δ'": self.guaranteed,
                "slack": self.slack,
                "pass": np.where(self.ok, "pass", "FAIL"),
            }
        )


def check_guarantee(*, demanded, guaranteed, ldp_level: float, eps: float) -> GuaranteeCheck:
    """Compare guaranteed δ' with demanded δ per coordinate, and the LDP level with ε."""
    demanded = _DEMANDED.check_vector("demanded", demanded)
    guaranteed = _GUARANTEED.check_vector("guaranteed", guaranteed, length=demanded.size)
    ldp_level = _LDP_LEVEL.check("ldp_level", ldp_level)
    eps = _EPS_2.check("eps", eps)
    ok = guaranteed <= demanded + GUARANTEE_TOL
    return GuaranteeCheck(
        demanded=demanded,
        guaranteed=guaranteed,
        ok=ok,
        ldp_level=ldp_level,
        eps=eps,
        ldp_ok=bool(ldp_level <= eps + GUARANTEE_TOL),
    )


def prop6_matrix(*, demands, q) -> np.ndarray:
    r"""Matrix :math:`A_\delta` of Proposition 6 (eq. 51):
    :math:`A[i,i] = 1/\delta_i`, :math:`A[i,j] = 1/\log(1 + (e^{\delta_i}-1)/q_i)` for j ≠ i.

    ``A c ≤ 1`` implies the Proposition 4(1) guarantee ``δ_i ≥ c_i + log(1 + q_i e^{Σ_{j≠i} c_j} − q_i)``.
    Infinite demands give zero rows (no constraint); q_i = 0 gives zero off-diagonal entries.
    """
    demands = _DEMANDS.check_vector("demands", demands)
    qv = _q_vector(q, demands.size)
    with np.errstate(divide="ignore"):
        diag = np.where(np.isinf(demands), 0.0, 1.0 / demands)
        # log(1 + (e^δ − 1)/q) via logaddexp-free stable form; inf when q = 0 or δ = inf
        off = np.zeros_like(demands)
        pos = (qv > 0) & np.isfinite(demands)
        off[pos] = 1.0 / np.log1p(np.expm1(np.minimum(demands[pos], MAX_EPS)) / qv[pos])
    A = np.repeat(off[:, None], demands.size, axis=1)
    np.fill_diagonal(A, diag)
    return A


def stage_increments(c_sorted) -> np.ndarray:
    """Stage levels Δ_k = c_k − c_{k−1} (c_0 = 0) of Mechanism 1 for a non-decreasing c."""
    c_sorted = NONNEGATIVE.check_vector("c_sorted", c_sorted, what=" (sorted CDP levels)")
    inc = np.diff(np.concatenate([[0.0], c_sorted]))
    if np.any(inc < -1e-12):
        raise InputError(f"c_sorted must be non-decreasing; got {c_sorted}. Sort the coordinates by demand.")
    return np.clip(inc, 0.0, None)


def _information(c_sorted: np.ndarray) -> np.ndarray:
    """S_i = Σ_{k≤i} Δ_k² / (d − k + 1): the precision proxy of Theorem 2."""
    d = c_sorted.size
    inc = stage_increments(c_sorted)
    m = d - np.arange(d)  # m_k = d − k + 1
    return np.cumsum(inc**2 / m)


def mse_bound_thm2(*, c_sorted, n: int) -> float:
    r"""Shape of the Theorem 2 bound (17), constant set to 1:
    :math:`\frac1n\sum_i \min\big(1/\sum_{k\le i}\frac{(c_k-c_{k-1})^2}{d-k+1},\ d\big)`.

    The theorem holds up to a universal constant, so only the shape is meaningful.
    """
    c_sorted = NONNEGATIVE.check_vector("c_sorted", c_sorted)
    if np.any(np.diff(c_sorted) < -1e-12):
        raise InputError(
            "c_sorted must be non-decreasing (coordinates sorted by demand); "
            f"got {c_sorted}. Sort the coordinates first."
        )
    n = USERS.check("n", n, what=" (number of users)")
    S = _information(c_sorted)
    d = c_sorted.size
    with np.errstate(divide="ignore"):
        per = np.minimum(np.where(S > 0, 1.0 / S, np.inf), d)
    return float(per.sum() / n)


def corollary1_bound(*, d: int, k: int, demand: float, eps: float, q: float, n: int) -> float:
    r"""Corollary 1 (ζ = 1/2, δ_i = δ for i ≤ k, ε > 2δ for the rest), constant set to 1:

    * :math:`q \le (e^{\delta/2}-1)/(e^\varepsilon-1)`:
      :math:`\frac1n(\frac{dk}{\delta^2} + \frac{(d-k)^2}{\varepsilon^2})` (18);
    * otherwise :math:`\frac1n(\frac{dk}{\delta^2} + \frac{(d-k)^2}{\frac{d-k}{d}\delta^2 + (c_d - \delta/2)^2})`
      with :math:`c_d = \log\frac{e^{\delta/2}+q-1}{q}` (19).
    """
    d = _D.check("d", d, what=" (number of features)")
    k = COUNT.check("k", k, what=" (number of sensitive features)")
    n = USERS.check("n", n, what=" (number of users)")
    if not (1 <= k < d):
        raise InputError(f"k must satisfy 1 <= k < d (number of sensitive features); got k={k}, d={d}.")
    delta = _FINITE_DEMAND.check("demand", demand)  # the paper's δ
    eps = EPS.check("eps", eps)
    if not eps > 2 * delta:
        raise InputError(
            f"Corollary 1 needs eps > 2*demand; got eps={eps:g}, demand={delta:g}. "
            "Use the general Theorem 2 bound instead."
        )
    q = UNIT.check("q", q)
    threshold = np.expm1(delta / 2) / np.expm1(eps)
    if q <= threshold:
        val = d * k / delta**2 + (d - k) ** 2 / eps**2
    else:
        cd = np.log((np.exp(delta / 2) + q - 1) / q)
        val = d * k / delta**2 + (d - k) ** 2 / ((d - k) / d * delta**2 + (cd - delta / 2) ** 2)
    return float(val / n)


def _feasible_start(A: np.ndarray, ds: np.ndarray, qs: np.ndarray, eps: float) -> np.ndarray:
    """Increments of a feasible start with every increment positive (a zero increment has a zero
    tangent and would never grow): the average of a ramp t·(1/d, …, 1) with t·1 feasible (A ≥ 0) and
    Theorem 2's allocation scaled into the polytope. Both are feasible, so is their average."""
    d = ds.size
    row = A.sum(axis=1)
    t0 = min(eps, 1.0 / row.max()) if row.max() > 0 else eps
    ramp = t0 * np.arange(1, d + 1) / d
    thm2 = privacy_allocation(demands=ds, eps=eps, q=float(qs.max())).c_sorted
    scale_in = max((A @ thm2).max(), thm2[-1] / eps, 1.0)
    return stage_increments(0.999 * (ramp + thm2 / scale_in) / 2)


@dataclass(frozen=True)
class Translation:
    """Proposition 6's allocation of demands to budgets: ``c`` (user order) and ``c_sorted`` (ascending
    demands), the sorting ``order``, the Theorem 2 bound shape ``bound`` (Σ min(1/S_i, d)), the solver's
    ``objective``, its ``iterations`` and last ``status``."""

    c: np.ndarray
    c_sorted: np.ndarray
    order: np.ndarray
    bound: float
    objective: float
    iterations: int
    status: str


def translate_demands_to_c(*, demands, eps: float, q, max_iter: int = 30, tol: float = 1e-7) -> Translation:
    r"""Proposition 6 translator "δ → c": a c that satisfies ``A_δ c ≤ 1`` (hence the
    Proposition 4(1) guarantee), ``0 ≤ c``, non-decreasing in the sorted order, ``c_d ≤ ε``,
    and locally minimises the Theorem 2 bound shape ``Σ_i 1/S_i(c)``.

    The objective is not convex in c (S_i is a convex quadratic of the increments), so we use
    the convex–concave (majorise–minimise) procedure: at the current increments Δ^t, S_i is
    replaced by its tangent (a lower bound), giving the convex problem
    ``min Σ_i 1/S_i^{lin}(Δ)`` that cvxpy solves exactly; each step never increases the bound.

    The cap ``∧ d`` of (17) is dropped from the objective (it is flat, so it gives no direction);
    the reported ``bound`` re-applies it. Returns a :class:`Translation`: ``c`` (user order), ``c_sorted``,
    ``order``, ``bound`` (``Σ_i min(1/S_i, d)`` = n × :func:`mse_bound_thm2`), ``objective``
    (``Σ_i 1/S_i``), ``iterations`` and ``status``.
    """
    import cvxpy as cp

    demands = _DEMANDS.check_vector("demands", demands, max_length=200)
    eps = EPS.check("eps", eps)
    d = demands.size
    qv = _q_vector(q, d)
    order = np.argsort(demands, kind="stable")
    ds, qs = demands[order], qv[order]
    A = prop6_matrix(demands=ds, q=qs)
    m = (d - np.arange(d)).astype(float)

    inc = _feasible_start(A, ds, qs, eps)

    x = cp.Variable(d, nonneg=True)  # increments Δ_k ≥ 0 ⇒ c non-decreasing
    L = np.tril(np.ones((d, d)))  # c = L Δ
    cons = [A @ (L @ x) <= 1, cp.sum(x) <= eps]

    def objective(v: np.ndarray) -> float:  # Σ_i 1/S_i (uncapped)
        S = _information(np.cumsum(v))
        with np.errstate(divide="ignore"):
            return float(np.where(S > 0, 1.0 / S, np.inf).sum())

    status, it = "not run", 0
    best = objective(inc)
    for it in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        # tangent of Δ_k² at the current increments: 2Δ_k^t Δ_k − (Δ_k^t)² ≤ Δ_k²
        # (scaled by 1/max S_i so the subproblem is O(1); the argmin is unchanged)
        unit = 1.0 / max(float(_information(np.cumsum(inc))[-1]), 1e-300)
        tangent = L @ ((cp.multiply(2 * inc * unit, x) - unit * inc**2) / m)
        prob = cp.Problem(cp.Minimize(cp.sum(cp.inv_pos(tangent))), cons)
        try:
            prob.solve(solver=cp.CLARABEL)
        except cp.error.SolverError:
            prob.solve(solver=cp.SCS)
        status = prob.status
        if x.value is None or status not in ("optimal", "optimal_inaccurate"):
            break
        new = np.clip(np.asarray(x.value, dtype=float), 0.0, None)
        c_new = np.cumsum(new)  # stay feasible despite solver tolerance
        viol = max((A @ c_new).max(), c_new[-1] / eps)
        if viol > 1.0:
            new = new / viol
        val = objective(new)
        if not val < best:
            break
        improved, inc, best = best - val, new, val
        if improved <= tol * best:
            break
    c_sorted = np.cumsum(inc)
    c = np.empty(d)
    c[order] = c_sorted
    capped = mse_bound_thm2(c_sorted=c_sorted, n=1)  # Σ_i min(1/S_i, d)
    return Translation(c=c, c_sorted=c_sorted, order=order, bound=capped, objective=best, iterations=it, status=status)


@dataclass(frozen=True)
class MechanismGuarantee:
    """What Mechanism 1 with allocation ``allocation`` guarantees per feature (user order).

    Mechanism 1 is c-CDP and c_d-LDP, so both Proposition 4(2) (with ε := c_d) and Proposition 4(1)
    bound its BCDP level; the guarantee is the smaller of the two. ``checks`` are the provable
    bounds of Theorem 2 (δ'_i ≤ δ_i and c_d ≤ ε): a failure is a numerical failure, never a finding.
    """

    allocation: Allocation
    prop4_ldp: np.ndarray
    prop4_composition: np.ndarray
    check: GuaranteeCheck
    checks: tuple

    @property
    def guaranteed(self) -> np.ndarray:
        return self.check.guaranteed


def mechanism_guarantee(alloc: Allocation, q=None) -> MechanismGuarantee:
    """Guarantee of Mechanism 1 under ``alloc`` (at correlation ``q``, default the allocation's)."""
    from ..framework.checks import check_le

    qv = alloc.q if q is None else q
    p42 = prop4_ldp_guarantee(c=alloc.c, q=qv, ldp=alloc.ldp_level)
    p41, _ = prop4_composition_guarantee(c=alloc.c, q=qv)
    guaranteed = np.minimum(p42, p41)
    chk = check_guarantee(demanded=alloc.demands, guaranteed=guaranteed, ldp_level=alloc.ldp_level, eps=alloc.eps)
    ins = {"eps": alloc.eps, "q": alloc.q, "zeta": alloc.zeta}
    checks = (
        check_le(
            "guaranteed δ'_i ≤ demanded δ_i (Theorem 2)",
            guaranteed,
            alloc.demands,
            labels=[f"feature {i + 1}" for i in range(alloc.c.size)],
            inputs=ins,
        ),
        check_le("delivered LDP level c_d ≤ ε", alloc.ldp_level, alloc.eps, inputs=ins),
    )
    return MechanismGuarantee(alloc, p42, p41, chk, checks)


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
