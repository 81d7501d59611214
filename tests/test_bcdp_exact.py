"""Exact BCDP lab (finite enumeration) and Algorithm 2 regression."""

import math
import time

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from stats import mean_within_ci

from hetdp_core.per_feature import bcdp_exact as ex
from hetdp_core.per_feature import regression as rg
from hetdp_core.per_feature.bcdp import privacy_allocation, prop4_composition_guarantee, prop4_ldp_guarantee
from hetdp_core.per_feature.mmean import mmean_release


def test_example1_half_gives_log2_and_infinite_ldp():
    prior, mech = ex.example1(a=0.5, b=0.5, c=0.5)
    r = ex.exact_report(prior, mech)
    assert r.bcdp == pytest.approx([math.log(2), math.log(2)])
    assert math.isinf(r.ldp)
    assert r.tv == pytest.approx([0, 0])


@given(st.floats(0.01, 1), st.floats(0.01, 1), st.floats(0.01, 1))
@example(1.0, 1.0, 0.9999999999999999)
@example(0.9999999999999999, 1.0, 1.0)
@example(0.5, 1.0, 1.0)
@example(0.5, 1 - 1e-16, 1 - 1e-16)
def test_example1_bcdp_finite_ldp_infinite(a, b, c):
    """LDP is always infinite; BCDP is finite except at two corners of the paper's range (0, 1]:
    P(M=0 | x1=1) = (2 − b − c)/2 vanishes exactly when b = c = 1, and P(M=0 | x2=0) = (2 − a − b)/2
    when a = b = 1 (found by hypothesis). Zeros are structural: 1 − 1e−16 is not 1."""
    prior, mech = ex.example1(a=a, b=b, c=c)
    r = ex.exact_report(prior, mech)
    assert math.isinf(r.ldp)
    assert math.isinf(r.bcdp[0]) == (b == 1.0 and c == 1.0)
    assert math.isinf(r.bcdp[1]) == (a == 1.0 and b == 1.0)
    if not math.isinf(r.bcdp[0]):  # δ_1 = max log-ratio of P(M | x1), exactly
        p1 = [a / 2, (b + c) / 2]  # P(M = 1 | x1 = 0), P(M = 1 | x1 = 1)
        p0 = [((1 - a) + 1) / 2, ((1 - b) + (1 - c)) / 2]  # complements without cancellation
        ratios = [p1[1] / p1[0], p1[0] / p1[1], p0[0] / p0[1], p0[1] / p0[0]]
        assert r.bcdp[0] == pytest.approx(math.log(max(ratios)), rel=1e-9)


# Probabilities around 1e-16 were treated as zeros (delta = inf at q = 1).
@settings(max_examples=30)
@given(c=st.floats(0.0, 10.0), d=st.integers(1, 10), q=st.floats(0.0, 1.0))
@example(c=3.5, d=10, q=1.0)
@example(c=10.0, d=10, q=1.0)
def test_rr_exact_levels_over_the_page_range(c, d, q):
    """Per-coordinate RR over the page's whole range (c_i ≤ 10, d ≤ 10): CDP levels equal c_i
    (relative 1e-9), the LDP level is Σc_i, and the exact δ_i is finite and ≤ Prop 3 (= Σc_i)."""
    cs = np.full(d, c)
    m = ex.randomized_response(cs)
    assert ex.cdp_levels(m) == pytest.approx(cs, rel=1e-9, abs=1e-12)
    assert ex.ldp_level(m) == pytest.approx(cs.sum(), rel=1e-9, abs=1e-12)
    sweep = ex.rr_sweep(c=cs, qs=[q]).table
    assert np.all(np.isfinite(sweep["exact"]))
    assert np.all(sweep["exact"] <= sweep["prop3"] * (1 + 1e-9) + 1e-12)
    assert sweep["within_bound"].all()


def test_example2_composition_fails_post_processing_holds():
    prior, one = ex.example2(copies=1)
    assert ex.bcdp_levels(prior, one)[0] == pytest.approx(0.0, abs=1e-12)
    _, two = ex.example2(copies=2)
    assert math.isinf(ex.bcdp_levels(prior, two)[0])
    xor = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])  # y_a ⊕ y_b
    first = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])  # y_a only
    for K in (xor, first):
        assert np.all(ex.bcdp_levels(prior, ex.post_process(one, K)) <= ex.bcdp_levels(prior, one) + 1e-12)


def test_q_mixture_prior_tv_equals_q():
    for q in (0.0, 0.3, 1.0):
        assert ex.tv_correlation(ex.q_mixture_prior(d=4, q=q)) == pytest.approx([q] * 4)


def test_rr_levels_match_definitions():
    c = np.array([0.2, 0.5, 1.0])
    m = ex.randomized_response(c)
    assert ex.cdp_levels(m) == pytest.approx(c)
    assert ex.ldp_level(m) == pytest.approx(c.sum())
    assert ex.bcdp_levels(ex.q_mixture_prior(d=3, q=0.0), m) == pytest.approx(c)  # independent: δ = c


priors = st.integers(2, 4).flatmap(
    lambda d: st.tuples(
        st.just(d),
        st.lists(st.floats(0.0, 1.0), min_size=2**d, max_size=2**d).filter(lambda v: sum(v) > 1e-3),
        st.lists(st.floats(0.0, 2.0), min_size=d, max_size=d),
    )
)


@given(priors)
@settings(max_examples=40)
@example((3, [0.0, 0.5504130004389386, 0.048828125, 0.0, 0.0, 1e-10, 0.0, 0.03125], [0.0, 0.0, 0.0]))
def test_exact_bcdp_below_prop4_on_random_priors(args):
    d, w, c = args
    prior = np.asarray(w).reshape((2,) * d)
    prior = prior / prior.sum()
    mech = ex.randomized_response(c)
    exact = ex.bcdp_levels(prior, mech)
    q = ex.tv_correlation(prior)
    p41, ldp = prop4_composition_guarantee(c=c, q=q)
    p42 = prop4_ldp_guarantee(c=c, q=q, ldp=ldp)
    assert np.all(exact <= np.minimum(p41, p42) + 1e-9)
    assert np.all(exact <= ldp + 1e-9)  # Prop 3: never above the LDP level Σc


def test_tradeoff_region_respects_theorem1():
    prior, mech = ex.example1(a=0.5, b=0.5, c=0.5)
    vals, P = ex.conditional_outputs(prior, mech, 0)
    delta = ex.bcdp_levels(prior, mech)[0]
    a, b = ex.all_tests(P[0], P[1])
    assert np.all(math.exp(delta) * a + b >= 1 - 1e-12) and np.all(a + math.exp(delta) * b >= 1 - 1e-12)
    al, be = ex.tradeoff_curve(P[0], P[1])
    assert al[0] == 0 and be[0] == 1 and al[-1] == pytest.approx(1) and be[-1] == pytest.approx(0)
    # the bound is tight: some test sits on the line e^δ α + β = 1 or α + e^δ β = 1
    tight = np.minimum(math.exp(delta) * a + b, a + math.exp(delta) * b) - 1
    assert tight.min() == pytest.approx(0, abs=1e-12)


def test_enumeration_d10_within_a_second():
    prior = ex.q_mixture_prior(d=10, q=0.3)
    mech = ex.randomized_response(np.full(10, 0.3))
    t = time.perf_counter()
    ex.bcdp_levels(prior, mech)
    assert time.perf_counter() - t < 5.0  # measured 0.08 s; generous bound against noise


@pytest.mark.parametrize(
    "func,kw,match",
    [
        (ex.check_prior, dict(prior=[0.5, 0.6]), "prior must sum to 1"),
        (ex.check_prior, dict(prior=[1.2, -0.2]), "must be >= 0"),
        (ex.check_prior, dict(prior=[np.nan, 1]), "finite"),
        (ex.check_mechanism, dict(mech=[[0.5, 0.6], [1, 0]]), "rows must sum to 1"),
        (ex.check_mechanism, dict(mech=[[1.5, -0.5], [1, 0]]), r"in \[0, 1\]"),
        (ex.check_mechanism, dict(mech=[0.5, 0.5]), "output axis"),
        (ex.example1, dict(a=1.5, b=0.5, c=0.5), r"a must be in \[0, 1\]"),
        (ex.example1, dict(a=0.5, b=-0.1, c=0.5), r"b must be in \[0, 1\]"),
        (ex.example2, dict(copies=0), "copies must be >= 1"),
        (ex.q_mixture_prior, dict(d=13, q=0.5), "d must be <= 12"),
        (ex.q_mixture_prior, dict(d=3, q=2), r"q must be in \[0, 1\]"),
        (ex.randomized_response, dict(c=[0.1] * 11), "at most 10 entries"),
        (ex.randomized_response, dict(c=[-0.1]), "c entries must be >= 0"),
        (ex.bcdp_levels, dict(prior=np.full((2, 2), 0.25), mech=np.full((2, 3, 2), 0.5)), "must match the prior"),
        (ex.rr_sweep, dict(c=[0.1, 0.2], qs=[0.5, 1.5]), "qs entries must be <= 1"),
    ],
)
def test_exact_bad_input(func, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        func(**kw)


# ------------------------------------------------------------------ regression
@pytest.mark.statistical
def test_algorithm2_gradient_unbiased_single_copy_biased():
    """E[Âθ − b̂] = ∇f(θ) for two independent copies; the single-copy plug-in is biased."""
    x = rg.regression_data(n=40, theta=[0.5, -0.3], noise=0.1, q=0.2, rng=1)
    a = privacy_allocation(demands=[1.0, 3.0, 3.0], eps=3.0, q=0.2)
    xs = x[:, a.order]
    T = 6000

    def rel(seed):
        r = mmean_release(xs, c_sorted=a.c_sorted / 2, trials=T, rng=seed)
        out = np.empty_like(r)
        out[..., a.order] = r
        return out

    c1, c2 = rel(11), rel(12)
    theta = np.array([0.4, 0.2])
    z, label = x[:, :-1], x[:, -1]
    true_grad = z.T @ z @ theta / 40 - z.T @ label / 40
    A, b = rg.private_quadratic(c1, c2)
    ok, dev = mean_within_ci(A @ theta - b, true_grad)
    assert ok, f"two-copy gradient biased: {dev.max():.2f} SE"
    A1, b1 = rg.private_quadratic(c1, None)
    ok1, dev1 = mean_within_ci(A1 @ theta - b1, true_grad)
    assert not ok1 and dev1.max() > 10, "the single-copy gradient must be visibly biased"


@pytest.mark.statistical
def test_excess_risk_decreases_with_n():
    df = rg.excess_risk_sweep(
        axis="n",
        values=[1000, 10000, 100000],
        n=1000,
        noise=0.1,
        q=0.0,
        k_sensitive=1,
        theta=[0.5, -0.3],
        demand=6.0,
        eps=8.0,
        trials=6,
        seed=3,
        gamma0=1.0,
    )
    alg2 = df[df.method.str.startswith("Algorithm 2")].sort_values("n")
    assert alg2["nonconvex"].iloc[-1] == 0
    med = alg2["median"].to_numpy()
    assert med[2] < med[0] / 3 and med[1] < med[0]
    naive = df[df.method.str.startswith("naive")].sort_values("n")["median"].to_numpy()
    assert naive[-1] > 3 * med[-1]  # the plug-in bias does not vanish with n


def test_nonconvex_is_reported_not_diverging():
    x = rg.regression_data(n=50, theta=[0.5, -0.3], noise=0.1, rng=2)
    res = rg.fit(x=x, demands=[0.3, 1.0, 1.0], eps=1.0, q=0.0, trials=3, rng=4)
    runs = res["Algorithm 2 (two copies)"]
    assert any(not r.convex for r in runs)
    for r in runs:
        if not r.convex:
            assert r.theta is None and "not convex" in r.message and r.min_eig < 0


def test_ball_lstsq_and_pgd_agree():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((5, 3))
    A, b = M.T @ M / 5, rng.standard_normal(3)
    for R in (0.1, 10.0):
        th = rg.ball_lstsq(A, b, radius=R)
        assert np.linalg.norm(th) <= R + 1e-9
        traj = rg.pgd(A, b, radius=R, rates=rg.pgd_rates(schedule="constant", gamma0=1.0, steps=3000))
        assert traj[-1] == pytest.approx(th, abs=1e-6)


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(schedule="poly", gamma0=0.0, steps=10), r"gamma0 must be in \(0"),
        (dict(schedule="poly", gamma0=-1.0, steps=10), r"gamma0 must be in \(0"),
        (dict(schedule="poly", gamma0=1.0, steps=10, rho=0.0), r"rho must be in \(0, 1\]"),
        (dict(schedule="inverse", gamma0=1.0, steps=10, decay=-1), r"decay must be in \(0"),
        (dict(schedule="cosine", gamma0=1.0, steps=10), "schedule must be one of"),
        (dict(schedule="constant", gamma0=1.0, steps=0), "steps must be >= 1"),
        (dict(schedule="constant", gamma0=float("nan"), steps=5), "gamma0 must be a number"),
    ],
)
def test_learning_rate_bad_input(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        rg.pgd_rates(**kw)


def test_regression_bad_input():
    with pytest.raises(ValueError, match="x entries must be <= 1"):
        rg.fit(x=np.full((10, 3), 2.0), demands=[1, 1, 1], eps=1, q=0)
    with pytest.raises(ValueError, match="demands must have length 3"):
        rg.fit(x=np.zeros((10, 3)), demands=[1, 1], eps=1, q=0)
    with pytest.raises(ValueError, match="compute size"):
        rg.fit(x=np.zeros((100_000, 3)), demands=[1, 1, 1], eps=1, q=0, trials=100)
    with pytest.raises(ValueError, match="n must be >= 2"):
        rg.regression_data(n=1, theta=[0.1])
