"""Risk in attack terms (hetdp_core/reading/risk.py): the trade-off curves checked against exact privacy
profiles (dp-accounting's privacy-loss distributions as the independent oracle: it computes the
Gaussian and Laplace profiles by its own code), the closed forms of the maximal advantage, the
solver's inverse, a simulated Neyman–Pearson attack that stays under the bound for the real
mechanism and breaks it for a mechanism with less noise than claimed, and bad input."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from hetdp_core.framework.scenario import InputError
from hetdp_core.reading.risk import (
    advantage_eps_delta,
    advantage_gaussian,
    eps_for_tpr,
    mu_for_tpr,
    risk_in_words,
    tpr_eps_delta,
    tpr_from_profile,
    tpr_gaussian,
    tradeoff_eps_delta,
    tradeoff_from_profile,
    tradeoff_gaussian,
)

GRID = np.unique(np.concatenate([np.linspace(0.0, 30.0, 3001), np.geomspace(1e-4, 1.0, 80)]))


def _profile(pld, grid=GRID):
    return np.minimum(np.asarray(pld.get_delta_for_epsilon(grid), dtype=float), 1.0)


@functools.cache
def _gaussian_profile(mu: float) -> np.ndarray:
    """dp-accounting's exact profile of the Gaussian mechanism at μ on GRID, once per μ (each is shared
    by the three false-positive rates below; building it is most of their cost)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    prof = _profile(pld.from_gaussian_mechanism(standard_deviation=1.0 / mu))
    prof.setflags(write=False)
    return prof


@pytest.mark.parametrize("mu", [0.25, 0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("fpr", [1e-3, 0.01, 0.1])
def test_the_gaussian_curve_equals_the_curve_of_its_exact_profile(mu, fpr):
    prof = _gaussian_profile(mu)
    from_profile = tpr_from_profile(eps_grid=GRID, delta_grid=prof, fpr=fpr)
    exact = float(tpr_gaussian(mu=mu, fpr=fpr)[0])
    # the profile is pessimistic (≥ exact δ) and the grid finite: never below, and within 2·10⁻³
    assert exact - 1e-6 <= from_profile <= exact + 2e-3
    assert float(advantage_gaussian(mu=mu)[0]) == pytest.approx(prof[0], abs=2e-4)  # δ(0) is the TV distance


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0])
def test_the_eps_dp_curve_is_exactly_randomized_response_and_bounds_laplace(eps):
    """Binary randomized response is the worst ε-DP mechanism: its exact profile gives the (ε, 0)
    curve. Laplace noise is ε-DP but gentler: its exact curve lies below (a smaller TPR), and its
    advantage is 1 − e^{−ε/2} ≤ (e^ε − 1)/(e^ε + 1)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    p = math.exp(eps) / (1 + math.exp(eps))
    rr = np.maximum(0.0, p - np.exp(GRID) * (1 - p))  # δ(ε') = max(0, p − e^{ε'}(1 − p))
    lap = _profile(pld.from_laplace_mechanism(parameter=1.0 / eps))
    for fpr in (1e-3, 0.01, 0.2):
        generic = float(tpr_eps_delta(eps=eps, fpr=fpr)[0])
        assert tpr_from_profile(eps_grid=GRID, delta_grid=rr, fpr=fpr) == pytest.approx(generic, abs=2e-3)
        assert tpr_from_profile(eps_grid=GRID, delta_grid=lap, fpr=fpr) <= generic + 1e-9
    assert float(advantage_eps_delta(eps=eps)[0]) == pytest.approx(rr[0], abs=1e-9)
    assert lap[0] == pytest.approx(1 - math.exp(-eps / 2), abs=2e-4)
    assert lap[0] <= float(advantage_eps_delta(eps=eps)[0])


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 20.0), st.sampled_from([0.0, 1e-9, 1e-6, 1e-3, 0.05]), st.floats(1e-4, 0.5))
def test_tpr_is_one_minus_the_curve_and_never_below_a_blind_guess(eps, delta, fpr):
    tpr = float(tpr_eps_delta(eps=eps, delta=delta, fpr=fpr)[0])
    assert tpr == pytest.approx(1.0 - float(tradeoff_eps_delta([fpr], eps=eps, delta=delta)[0]), abs=1e-12)
    assert fpr - 1e-12 <= tpr <= 1.0
    adv = float(advantage_eps_delta(eps=eps, delta=delta)[0])
    assert tpr - fpr <= adv + 1e-12  # the advantage is the largest gap over every FPR


@settings(max_examples=100, deadline=None)
@given(st.floats(0.0, 8.0), st.floats(1e-4, 0.5))
def test_the_gaussian_curve_is_symmetric_and_under_its_eps_delta_conversions(mu, fpr):
    """G_μ is symmetric (G_μ(G_μ(α)) = α) and, being the exact curve, lies above every (ε, δ(ε))
    line of the Gaussian profile: its TPR is at most the (ε, δ)-DP TPR at any ε."""
    from hetdp_core.noise.profiles import gaussian_delta

    g = float(tradeoff_gaussian([fpr], mu=mu)[0])
    assert float(tradeoff_gaussian([g], mu=mu)[0]) == pytest.approx(fpr, abs=1e-9)
    if mu > 1e-3:  # σ = 1/μ finite
        for e in (0.5, 1.0, 3.0):
            d = float(gaussian_delta(eps=e, sigma=1.0 / mu, sensitivity=1.0))
            assert float(tpr_gaussian(mu=mu, fpr=fpr)[0]) <= float(tpr_eps_delta(eps=e, delta=d, fpr=fpr)[0]) + 1e-9


@pytest.mark.parametrize("target,fpr,delta", [(0.05, 0.01, 0.0), (0.5, 0.01, 0.0), (0.9, 0.001, 1e-5), (0.2, 0.1, 0)])
def test_solving_from_a_target_risk_is_the_largest_safe_level(target, fpr, delta):
    eps = eps_for_tpr(target_tpr=target, fpr=fpr, delta=delta)
    assert float(tpr_eps_delta(eps=eps, delta=delta, fpr=fpr)[0]) == pytest.approx(target, rel=1e-9)
    assert float(tpr_eps_delta(eps=eps * 1.01, delta=delta, fpr=fpr)[0]) > target
    mu = mu_for_tpr(target_tpr=target, fpr=fpr)
    assert float(tpr_gaussian(mu=mu, fpr=fpr)[0]) == pytest.approx(target, rel=1e-9)
    assert float(tpr_gaussian(mu=mu * 1.01, fpr=fpr)[0]) > target


def _attack_tpr(sigma_true: float, *, fpr: float, n: int, rng) -> float:
    """The Neyman–Pearson attack on one Gaussian release (sensitivity 1): world 0 publishes N(0, σ²),
    world 1 publishes N(1, σ²); flag "1" above the (1 − fpr) quantile of world 0."""
    threshold = sigma_true * norm.ppf(1 - fpr)
    return float(np.mean(1.0 + sigma_true * rng.standard_normal(n) > threshold))


def test_a_simulated_attack_stays_under_the_bound_and_breaks_it_when_noise_is_missing():
    """Statistical check with a fixed seed: 400 000 draws give a standard error ≤ 8·10⁻⁴ on the TPR,
    so a tolerance of 4 standard errors (3.2·10⁻³). The real mechanism (σ = 1, claimed μ = 1) is
    caught at the bound; a broken one that draws σ = 0.7 while claiming σ = 1 exceeds it by ~0.1."""
    rng = np.random.default_rng(20261123)
    bound = float(tpr_gaussian(mu=1.0, fpr=0.01)[0])
    honest = _attack_tpr(1.0, fpr=0.01, n=400_000, rng=rng)
    assert honest <= bound + 3.2e-3
    assert honest == pytest.approx(bound, abs=3.2e-3)  # the bound is tight for the Gaussian
    broken = _attack_tpr(0.7, fpr=0.01, n=400_000, rng=rng)
    assert broken > bound + 0.05


def test_curves_from_a_coarse_profile_never_understate_the_risk():
    from dp_accounting.pld import privacy_loss_distribution as pld

    coarse = np.linspace(0, 10, 11)
    prof = _profile(pld.from_gaussian_mechanism(standard_deviation=1.0), coarse)
    alpha = np.logspace(-4, 0, 50)
    assert np.all(
        tradeoff_from_profile(alpha, eps_grid=coarse, delta_grid=prof) <= tradeoff_gaussian(alpha, mu=1.0) + 1e-9
    )


def test_words():
    assert risk_in_words(0.0272, 0.01) == (
        "an attacker who accepts wrongly flagging 1 in 100 people it is not after catches at most 2.72 % of "
        "those it is after"
    )
    assert "at most 100 %" in risk_in_words(1.0, 0.01)
    assert "0.03 % of people" in risk_in_words(0.5, 0.0003)  # not "1 in 3333"


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: eps_for_tpr(target_tpr=0.01, fpr=0.01), r"target_tpr must exceed the false-positive rate"),
        (lambda: eps_for_tpr(target_tpr=0.02, fpr=0.01, delta=0.02), r"false-positive rate plus δ"),
        (lambda: eps_for_tpr(target_tpr=1.0, fpr=0.01), r"target_tpr must be in"),
        (lambda: eps_for_tpr(target_tpr=0.5, fpr=0.9), r"fpr must be in"),
        (lambda: eps_for_tpr(target_tpr=0.5, fpr=0.01, delta=0.5), r"delta must be in"),
        (lambda: mu_for_tpr(target_tpr=float("nan"), fpr=0.01), r"target_tpr must be"),
        (lambda: tpr_eps_delta(eps=-1, fpr=0.01), r"eps entries must be >= 0"),
        (lambda: tpr_eps_delta(eps=1, delta=2, fpr=0.01), r"delta entries must be"),
        (lambda: tpr_eps_delta(eps=[1, 2], delta=[0, 0, 0], fpr=0.01), r"give one δ or one per ε"),
        (lambda: tpr_gaussian(mu=-1, fpr=0.01), r"mu entries must be >= 0"),
        (lambda: tradeoff_gaussian([1.5], mu=1), r"alpha entries must be"),
        (lambda: tradeoff_eps_delta([0.1], eps=[1, 2]), r"takes one level"),
        (lambda: tradeoff_from_profile([0.1], eps_grid=[0, np.inf], delta_grid=[1, 0]), r"eps_grid must be finite"),
    ],
)
def test_bad_input_is_named(call, match):
    with pytest.raises(InputError, match=match):
        call()
