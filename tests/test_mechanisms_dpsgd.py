"""Mechanism lab and DP-SGD: privacy-loss tests, variances, bounded Laplace, exponential mechanism,
θ_h, A3 slope, convergence."""

import math

import numpy as np
import pytest
from stats import mean_within_ci

from hetdp_core.noise import mechanisms as mc
from hetdp_core.noise.dptest import histogram_privacy_test
from hetdp_core.per_iteration import dpsgd as sg

N_SAMPLES = 300_000


# ------------------------------------------------------------------ empirical privacy loss (CI-based)
@pytest.mark.statistical
@pytest.mark.parametrize(
    "mech,eps,delta", [("laplace", 1.0, 0.0), ("laplace", 0.3, 0.0), ("gaussian", 0.5, 1e-3), ("mnm", 1.0, 0.05)]
)
def test_empirical_privacy_loss_within_claim(mech, eps, delta):
    """Neighbouring inputs f(x) = 0 and f(y) = Δ: no bin certifies a loss above the claim."""
    kw = dict(sensitivity=1.0, eps=eps, delta=delta if delta else 1e-5, size=N_SAMPLES)
    x = mc.release(0.0, mech, rng=1, **kw)
    y = mc.release(1.0, mech, rng=2, **kw)
    res = histogram_privacy_test(x, y, eps=eps, delta=delta, bins=40)
    assert not res.violation, res.loss_lower_bound
    if delta == 0:  # an (ε, δ) noise may exceed ε on outputs of probability ≤ δ
        assert res.loss_lower_bound <= eps + 1e-9


@pytest.mark.statistical
def test_privacy_test_catches_broken_mechanisms():
    """Laplace with scale Δ/(2ε) claimed as ε-DP, and the local-sensitivity median of Example 12."""
    x = mc.release(0.0, "laplace", sensitivity=0.5, eps=1.0, size=N_SAMPLES, rng=3)  # actually 2ε-DP
    y = mc.release(1.0, "laplace", sensitivity=0.5, eps=1.0, size=N_SAMPLES, rng=4)
    assert histogram_privacy_test(x, y, eps=1.0).violation
    d1, d2 = mc.example12_datasets(n=11, Lambda=1.0)
    rng = np.random.default_rng(5)
    out1 = 0.0 + rng.laplace(0, mc.local_sensitivity_median(d1) / 1.0, N_SAMPLES)  # noise ∝ local sens.
    out2 = np.zeros(N_SAMPLES)  # local sens. 0: no noise
    assert histogram_privacy_test(out1, out2, eps=1.0, delta=0.01).violation


@pytest.mark.statistical
def test_smooth_sensitivity_laplace_on_example12_neighbours_passes():
    d1, d2 = mc.example12_datasets(n=11, Lambda=1.0)
    r1 = mc.smooth_noise(d1, kind="laplace", eps=1.0, delta=0.05, lower=0, upper=1, size=N_SAMPLES, rng=6)
    r2 = mc.smooth_noise(d2, kind="laplace", eps=1.0, delta=0.05, lower=0, upper=1, size=N_SAMPLES, rng=7)
    assert r1["S"] > 0 and r2["S"] > 0  # Example 21: both non-zero
    assert not histogram_privacy_test(r1["releases"], r2["releases"], eps=1.0, delta=0.05).violation


@pytest.mark.statistical
def test_mnm_and_laplace_variances_equal():
    for sens in (1e-4, 1.0):  # Gaussian branch and Laplace branch
        for mech in ("laplace", "mnm"):
            z = mc.release(0.0, mech, sensitivity=sens, eps=0.5, delta=0.01, size=400_000, rng=8)
            target = 2 * (sens / 0.5) ** 2
            ok, dev = mean_within_ci(z**2, target)
            assert ok, (mech, sens, dev)
    assert mc.noise_variance("mnm", sensitivity=1, eps=0.5) == pytest.approx(
        mc.noise_variance("laplace", sensitivity=1, eps=0.5), rel=1e-14
    )


def test_gaussian_sigma_and_mnm_threshold():
    s = mc.gaussian_sigma(sensitivity=2.0, eps=0.5, delta=1e-5)
    assert (s * 0.5 / 2.0) ** 2 > 2 * math.log(1.25 / 1e-5)
    assert mc.mnm_threshold(eps=1.0, delta=0.1) == pytest.approx(math.sqrt(math.pi) * 0.05)
    with pytest.raises(ValueError, match="eps must be < 1"):
        mc.gaussian_sigma(sensitivity=1, eps=1.5, delta=1e-5)


@pytest.mark.parametrize("sens,eps,delta,lo,u", [(1, 1, 1e-3, 0, 10), (2, 0.5, 0.01, 0, 110), (0.5, 2, 0.0, -1, 1)])
def test_bounded_laplace_b_satisfies_theorem26_and_is_minimal(sens, eps, delta, lo, u):
    b = mc.bounded_laplace_b(sensitivity=sens, eps=eps, delta=delta, lower=lo, upper=u)

    def rhs(bb):
        dC = mc.bounded_laplace_C(lo + sens, b=bb, lower=lo, upper=u) / mc.bounded_laplace_C(
            lo, b=bb, lower=lo, upper=u
        )
        return sens / (eps - math.log(dC) - math.log1p(-delta))

    assert b >= rhs(b) * (1 - 1e-9)
    smaller = np.linspace(b * 1e-3, b * (1 - 1e-6), 400)
    assert not any(
        bb >= rhs(bb)
        and eps
        - math.log(
            mc.bounded_laplace_C(lo + sens, b=bb, lower=lo, upper=u) / mc.bounded_laplace_C(lo, b=bb, lower=lo, upper=u)
        )
        - math.log1p(-delta)
        > 0
        for bb in smaller
    )


def test_bounded_laplace_sampler_stays_in_domain_and_matches_density():
    s = mc.bounded_laplace_sample(1.0, b=2.0, lower=0, upper=10, size=200_000, rng=9)
    assert s.min() >= 0 and s.max() <= 10
    hist, edges = np.histogram(s, bins=20, range=(0, 10), density=True)
    mid = (edges[1:] + edges[:-1]) / 2
    assert hist == pytest.approx(mc.bounded_laplace_density(mid, q=1.0, b=2.0, lower=0, upper=10), rel=0.05)


def test_exponential_mechanism_probabilities_exact_and_rnm():
    p = mc.exponential_probabilities([15, 20, 25], eps=1.0)
    e = np.exp(np.array([15, 20, 25]) / 2)
    assert p == pytest.approx(e / e.sum(), rel=1e-12)
    w = mc.report_noisy_max_sample([15, 20, 25], eps=1.0, size=200_000, rng=10)
    emp = np.bincount(w, minlength=3) / w.size
    exact = mc.report_noisy_max_probabilities([15, 20, 25], eps=1.0)
    se = np.sqrt(exact * (1 - exact) / w.size)
    assert np.all(np.abs(emp - exact) <= 4.5 * se + 1e-12)
    df = mc.lemma28_bound([15, 20, 25], eps=1.0, t=np.linspace(0, 5, 11))
    assert np.all(df["exact"] <= df["bound"] + 1e-12)


def test_smooth_sensitivity_examples_12_and_21():
    d1, d2 = mc.example12_datasets(n=11, Lambda=3.0)
    assert mc.local_sensitivity_median(d1) == 3.0 and mc.local_sensitivity_median(d2) == 0.0
    s1 = mc.smooth_sensitivity_median(d1, beta=0.2, lower=0, upper=3)
    s2 = mc.smooth_sensitivity_median(d2, beta=0.2, lower=0, upper=3)
    assert s1 == pytest.approx(3.0) and s2 == pytest.approx(3.0 * math.exp(-0.2))
    assert s1 <= math.exp(0.2) * s2 + 1e-12 and s2 <= math.exp(0.2) * s1 + 1e-12  # β-smooth


def test_example8_and_composition():
    r = mc.example8(n=100, m=40, Lambda=10, eps1=0.5, eps2=0.3, eps3=1.0)
    assert r.sensitivity == {"mean": 0.25, "variance": 2.5, "median": 10.0}
    assert r.total == pytest.approx(1.0) and r.part1 == pytest.approx(0.8)
    assert mc.sequential([0.1, 0.2]) == pytest.approx(0.3) and mc.parallel([0.1, 0.2]) == 0.2


# ------------------------------------------------------------------ DP-SGD
def test_theta_matches_formula():
    g = sg.learning_rates(schedule="poly", steps=6, gamma0=0.5, rho=0.5)
    a = sg.privacy_schedule(kind="power", steps=6, kappa=0.7)
    th = sg.theta(gammas=g, a=a, sensitivity=2.0, eps=0.5)
    assert th[0] == pytest.approx(4.0)
    for h in range(2, 7):
        expect = (1 / a[h - 1]) * (g[: h - 1].sum() / g[h - 1] + 1) * 2.0 / 0.5  # γ_{h-1} = g[h-1]
        assert th[h - 1] == pytest.approx(expect, rel=1e-12)


@pytest.mark.parametrize("rho,kappa", [(0.5, 0.0), (0.5, 0.5), (0.3, 0.4), (0.5, 0.8)])
def test_a3_slope(rho, kappa):
    """A3's fitted log–log slope ≈ 2 − ρ − 2κ where the lecture's approximation holds
    (summand exponent 2 − 2ρ − 2κ > −1); tolerance 0.05 for finite-N corrections."""
    N = 200_000
    g = sg.learning_rates(schedule="poly", steps=N, rho=rho)
    th = sg.theta(gammas=g, a=sg.privacy_schedule(kind="power", steps=N, kappa=kappa), sensitivity=1, eps=1)
    df = sg.bound_terms(gammas=g, thetas=th)
    assert sg.fitted_slope(df.N, df.A3) == pytest.approx(2 - rho - 2 * kappa, abs=0.05)


@pytest.mark.statistical
def test_dpsgd_converges_iff_2kappa_plus_rho_above_2():
    x = sg.example33_data(n=2000, Lambda=3.0, rng=0)
    errs = {}
    for kappa in (0.0, 1.0):
        for N in (200, 20_000):
            g = sg.learning_rates(schedule="poly", steps=N, gamma0=0.1, rho=0.5)
            th = sg.theta(gammas=g, a=sg.privacy_schedule(kind="power", steps=N, kappa=kappa), sensitivity=6.0, eps=1.0)
            tr = sg.simulate(problem="mean", data=x, gammas=g, thetas=th, trials=200, rng=N + int(10 * kappa))
            errs[(kappa, N)] = np.median(np.abs(tr[:, -1, 0] - x.mean()))
    assert errs[(1.0, 20_000)] < errs[(1.0, 200)] / 3  # 2κ + ρ = 2.5 > 2: converges
    assert errs[(0.0, 20_000)] > errs[(0.0, 200)] * 3  # κ = 0: the privacy noise wins


def test_sgd_and_gd_on_ridge():
    x = sg.example34_data(n=500, rng=1)
    g = sg.learning_rates(schedule="constant", steps=300, gamma0=0.3)
    gd = sg.simulate(problem="ridge", data=x, gammas=g, thetas=np.zeros(300), trials=1, method="gd", lam=0.1)
    u, v = x[:, 0], x[:, 1]
    b1 = np.mean((v - v.mean()) * (u - u.mean())) / (np.var(v) + 0.1)
    assert gd[0, -1] == pytest.approx([u.mean() - b1 * v.mean(), b1], abs=1e-4)  # eq. (8)


@pytest.mark.parametrize(
    "func,kw,match",
    [
        (mc.release, dict(value=0.0, mechanism="laplace", sensitivity=1, eps=0), r"eps must be in \[1e-06"),
        (mc.release, dict(value=0.0, mechanism="laplace", sensitivity=1, eps=-1), r"eps must be in \[1e-06"),
        (
            mc.release,
            dict(value=0.0, mechanism="gaussian", sensitivity=1, eps=0.5, delta=1.5),
            r"delta must be in \(0, 1\)",
        ),
        (
            mc.release,
            dict(value=0.0, mechanism="gaussian", sensitivity=1, eps=0.5, delta=0),
            r"delta must be in \(0, 1\)",
        ),
        (mc.release, dict(value=0.0, mechanism="laplace", sensitivity=0, eps=1), r"sensitivity must be in \(0"),
        (mc.release, dict(value=0.0, mechanism="cauchy", sensitivity=1, eps=1), "mechanism must be one of"),
        (mc.pareto_mse, dict(n=10, pareto_index=3, clip=-1, eps_values=[1]), r"clip must be in \(1"),
        (mc.example12_datasets, dict(n=10, Lambda=1), "n must be odd"),
        (mc.smooth_sensitivity_median, dict(x=[0.1, 0.5, 2.0], beta=0.1, lower=0, upper=1), "data inside"),
        (mc.bounded_laplace_b, dict(sensitivity=1, eps=1, delta=0.1, lower=5, upper=5), "lower < upper"),
        (mc.exponential_probabilities, dict(scores=[], eps=1), "at least 1"),
        (mc.exponential_probabilities, dict(scores=[1, float("nan")], eps=1), "must not contain NaN"),
        (sg.learning_rates, dict(schedule="poly", steps=10, rho=0), r"rho must be in \(0, 1\]"),
        (sg.learning_rates, dict(schedule="poly", steps=10, rho=1.5), r"rho must be in \(0, 1\]"),
        (sg.privacy_schedule, dict(kind="power", steps=10, kappa=-0.5), "kappa must be in"),
        (sg.theta, dict(gammas=[0.1, 0.1], a=[1, 1], sensitivity=1, eps=0), r"eps must be in \[1e-06"),
        (sg.theta, dict(gammas=[0.1, 0.1], a=[1], sensitivity=1, eps=1), "a must have length 2"),
        (sg.example33_data, dict(n=10, Lambda=0), r"Lambda must be in \(0"),
        (sg.example33_data, dict(n=10, Lambda=-2), r"Lambda must be in \(0"),
    ],
)
def test_bad_input(func, kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        func(**kw)
