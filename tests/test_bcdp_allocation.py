"""Theorem 2 allocation, Proposition 3/4/6 guarantees, bounds: unit and property tests."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hetdp_core.per_feature import bcdp
from hetdp_core.per_feature.bcdp_sim import guarantee_report
from hetdp_core.per_feature.mmean import PROJECTIONS, project

demand = st.one_of(st.floats(0.01, 20.0), st.just(math.inf))
demands = st.lists(demand, min_size=1, max_size=12)
epsilons = st.floats(0.05, 20.0)
qs = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0]))
zetas = st.floats(0.01, 1.0)


def test_figure3_allocation_values():
    a = bcdp.privacy_allocation(demands=[0.2, 0.2] + [2.0] * 8, eps=2.0, q=0.1)
    assert a.zeta == pytest.approx(0.55)
    cd = math.log((math.exp(0.55 * 0.2) + 0.1 - 1) / 0.1)
    assert a.ldp_level == pytest.approx(cd)
    assert a.c[:2] == pytest.approx([0.2 - math.log(1 + 0.1 * math.exp(cd) - 0.1)] * 2)
    assert a.c[2:] == pytest.approx([cd] * 8)


def test_user_order_is_preserved():
    a = bcdp.privacy_allocation(demands=[2.0, 0.2, math.inf, 2.0, 0.2], eps=2.0, q=0.3)
    b = bcdp.privacy_allocation(demands=[0.2, 0.2, 2.0, 2.0, math.inf], eps=2.0, q=0.3)
    assert a.c[[1, 4, 0, 3, 2]] == pytest.approx(b.c)
    assert np.all(np.diff(a.c_sorted) >= 0)


@given(demands, epsilons, qs, zetas)
def test_c_monotone_bounded_and_passes_prop4(delta, eps, q, zeta):
    a = bcdp.privacy_allocation(demands=delta, eps=eps, q=q, zeta=zeta)
    cs = a.c_sorted
    dt = np.minimum(np.asarray(delta), eps)
    assert np.all(np.diff(cs) >= -1e-12), "c must be non-decreasing in the sorted order"
    assert np.all(a.c >= 0) and np.all(a.c <= dt + 1e-12), "0 <= c_i <= min(delta_i, eps)"
    assert a.ldp_level <= eps + 1e-12
    rep = guarantee_report(a)
    assert rep.all_ok, rep.table
    # guarantee never exceeds the demand (tolerance stated in bcdp.GUARANTEE_TOL)
    assert np.all(rep.guaranteed <= np.asarray(delta) + bcdp.GUARANTEE_TOL)
    assert np.array_equal(rep.table["guaranteed δ'"].to_numpy(), rep.guaranteed)  # the table renders it


@given(demands, epsilons, zetas)
def test_q0_gives_capped_demands(delta, eps, zeta):
    a = bcdp.privacy_allocation(demands=delta, eps=eps, q=0.0, zeta=zeta)
    assert a.c == pytest.approx(np.minimum(delta, eps), rel=1e-12)


@given(demands, epsilons, zetas)
def test_q1_gives_zeta_delta1(delta, eps, zeta):
    a = bcdp.privacy_allocation(demands=delta, eps=eps, q=1.0, zeta=zeta)
    d1 = min(min(delta), eps)
    assert a.c == pytest.approx(np.full(len(delta), zeta * d1), rel=1e-9, abs=1e-12)


def test_check_never_passes_a_failing_inequality():
    chk = bcdp.check_guarantee(demanded=[0.2, 1.0], guaranteed=[0.2 + 1e-6, 1.0], ldp_level=1.0, eps=1.0)
    assert list(chk.ok) == [False, True] and not chk.all_ok
    assert list(chk.to_frame()["pass"]) == ["FAIL", "pass"]
    chk = bcdp.check_guarantee(demanded=[0.2], guaranteed=[0.1], ldp_level=2.5, eps=2.0)
    assert chk.ok.all() and not chk.ldp_ok and not chk.all_ok


@given(
    st.lists(st.floats(0.0, 3.0), min_size=1, max_size=8), st.floats(0.0, 1.0), st.floats(0.0, 5.0), st.floats(0.0, 5.0)
)
def test_guarantee_check_agrees_with_inequality(guar, q, shift, eps):
    demanded = np.asarray(guar) + shift - 1.0
    demanded = np.where(demanded <= 0, 0.01, demanded)
    chk = bcdp.check_guarantee(demanded=demanded, guaranteed=guar, ldp_level=eps, eps=max(eps, 0.01))
    assert np.array_equal(chk.ok, np.asarray(guar) <= demanded + bcdp.GUARANTEE_TOL)


def test_prop3_and_prop4_formulas():
    assert bcdp.prop3_guarantee(eps=1.5, d=3) == pytest.approx([1.5] * 3)
    c = np.array([0.1, 0.3, 0.5])
    g = bcdp.prop4_ldp_guarantee(c=c, q=0.2, ldp=0.5)
    assert g == pytest.approx(np.minimum(c + np.log(1 + 0.2 * math.exp(0.5) - 0.2), 0.5))
    g1, ldp = bcdp.prop4_composition_guarantee(c=c, q=0.2)
    assert ldp == pytest.approx(0.9)
    assert g1 == pytest.approx(c + np.log(1 + 0.2 * (np.exp(0.9 - c) - 1)))


@given(
    st.lists(st.floats(0.05, 5.0), min_size=2, max_size=6),
    st.floats(0.01, 1.0),
    st.lists(st.floats(0.0, 1.0), min_size=6, max_size=6),
)
@example(delta=[1.0, 0.75], q=1.0, raw=[0.0, 5e-324, 0.0, 0.0, 0.0, 0.0])  # a subnormal draw (hypothesis found it)
def test_prop6_constraint_implies_prop4_1(delta, q, raw):
    """A c ≤ 1 ⇒ δ_i ≥ c_i + log(1 + q(e^{Σ_{j≠i} c_j} − 1)) (Proposition 6)."""
    delta = np.asarray(delta)
    A = bcdp.prop6_matrix(demands=delta, q=q)
    c = np.asarray(raw[: delta.size])
    if c.max() > 0:
        # to [0, 1] first: a subnormal draw divided by its own product with A kept too few bits, and the
        # "boundary" point lay outside A c ≤ 1 (the property holds; the test's scaling did not)
        c = c / c.max()
        c = c / (A @ c).max()  # now max_i (A c)_i = 1: on the boundary
    g, _ = bcdp.prop4_composition_guarantee(c=c, q=q)
    assert np.all(g <= delta + 1e-9)


@pytest.mark.parametrize("q", [0.0, 0.05, 0.3, 1.0])
def test_translator_is_feasible_and_valid(q):
    delta = [0.2, 0.2, 2.0, 2.0, 2.0, 2.0]
    res = bcdp.translate_demands_to_c(demands=delta, eps=2.0, q=q)
    c = res.c_sorted
    A = bcdp.prop6_matrix(demands=np.sort(delta), q=q)
    assert res.status in ("optimal", "optimal_inaccurate")
    assert np.all(c >= 0) and np.all(np.diff(c) >= -1e-12)
    assert np.all(A @ c <= 1 + 1e-7) and c[-1] <= 2.0 + 1e-9
    g, _ = bcdp.prop4_composition_guarantee(c=res.c, q=q)
    assert np.all(g <= np.asarray(delta) + 1e-6)
    # it improves on its own feasible starting point: the bound is finite and ≤ d·d
    assert np.isfinite(res.objective) and res.bound <= len(delta) ** 2


def test_translator_q0_reaches_demands():
    """With q = 0 the constraint is c_i ≤ δ_i; the bound is minimised by c = min(δ, ε)."""
    res = bcdp.translate_demands_to_c(demands=[0.5, 1.0, 2.0], eps=2.0, q=0.0)
    assert res.c_sorted == pytest.approx([0.5, 1.0, 2.0], rel=1e-3)


def test_bound_shape_and_corollary():
    c = np.array([0.1, 0.1, 1.0, 1.0])
    inc = np.diff(np.r_[0.0, c])
    S = np.cumsum(inc**2 / np.array([4, 3, 2, 1]))
    assert bcdp.mse_bound_thm2(c_sorted=c, n=10) == pytest.approx(np.minimum(1 / S, 4).sum() / 10)
    small = bcdp.corollary1_bound(d=10, k=2, demand=0.2, eps=2.0, q=1e-6, n=100)
    assert small == pytest.approx((10 * 2 / 0.04 + 64 / 4) / 100)
    big = bcdp.corollary1_bound(d=10, k=2, demand=0.2, eps=2.0, q=0.5, n=100)
    assert big > small


@given(st.integers(1, 6), st.sampled_from(PROJECTIONS), st.lists(st.floats(-50, 50), min_size=12, max_size=12))
def test_projections_land_inside_their_sets(d, mode, raw):
    est = np.asarray(raw[: 2 * d]).reshape(2, d)
    out = project(est, mode=mode)
    if mode == "box":
        assert np.all(np.abs(out) <= 1.0)
    elif mode == "ball":
        assert np.all(np.linalg.norm(out, axis=1) <= math.sqrt(d) * (1 + 1e-12))
    else:
        assert np.array_equal(out, est)
    inside = np.clip(est, -1, 1) / math.sqrt(max(d, 1))
    assert project(inside, mode=mode) == pytest.approx(inside)  # points inside are fixed


def test_corollary1_reported_only_for_two_groups():
    from hetdp_core.per_feature.bcdp_sim import run_point

    two = run_point(n=200, demands=[0.2, 0.2, 2.0, 2.0], eps=2.0, q=0.3, zeta=0.5, trials=3, rng=0)
    assert two.corollary1 == pytest.approx(bcdp.corollary1_bound(d=4, k=2, demand=0.2, eps=2.0, q=0.3, n=200))
    three = run_point(n=200, demands=[0.2, 0.5, 2.0, 2.0], eps=2.0, q=0.3, trials=3, rng=0)
    assert math.isnan(three.corollary1)
    close = run_point(n=200, demands=[1.5, 2.0], eps=2.0, q=0.3, trials=3, rng=0)  # ε ≤ 2δ
    assert math.isnan(close.corollary1)
