"""One formula, one place: each privacy formula is one function of the core that every other part calls —
the Gaussian mechanism's δ(ε) and its inverses and the Gaussian DP conversions (hetdp_core.noise.gdp), the
Laplace privacy loss (hetdp_core.noise.profiles.laplace_loss_cdf), the randomized-response channel
(hetdp_core.noise.rr). Each home is checked against an independent oracle at the edges of its range (tiny and
huge ε and μ; mpmath at 60 digits, scipy.stats), the parts that used to hold their own copy agree with
it there, and no copy comes back (the special functions that compute them are called in their home only).
Old public names keep working with a DeprecationWarning."""

import ast
import importlib
import math
import pkgutil
import warnings

import mpmath
import numpy as np
import pytest
from conftest import ROOT

from hetdp_core.noise import gdp
from hetdp_core.noise.rr import rr_channel, rr_estimate, rr_variance

mpmath.mp.dps = 60

EPS_EDGES = (0.0, 1e-12, 1e-3, 1.0, 50.0, 700.0, 1e4, 1e10)
MU_EDGES = (1e-6, 1e-3, 0.5, 5.0, 50.0, 1e3)


def exact_delta(eps: float, mu: float) -> float:
    """δ_μ(ε) at 60 digits: Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)."""
    e, m = mpmath.mpf(eps), mpmath.mpf(mu)
    return float(mpmath.ncdf(m / 2 - e / m) - mpmath.exp(e) * mpmath.ncdf(-m / 2 - e / m))


def close(got: float, want: float, rel: float = 1e-9) -> bool:
    """Equal to ``rel``, or both below the smallest normal number's neighbourhood (underflow to 0 is fine)."""
    return (want < 1e-290 and got < 1e-280) or math.isclose(got, want, rel_tol=rel, abs_tol=0.0)


# ---------------------------------------------------------------- the Gaussian mechanism's δ(ε) and inverses
@pytest.mark.parametrize("mu", MU_EDGES)
def test_the_gaussian_profile_is_exact_at_the_edges(mu):
    got = gdp.gdp_delta(np.array(EPS_EDGES), mu=mu)
    for e, g in zip(EPS_EDGES, got):
        assert close(float(g), exact_delta(e, mu)), (e, mu, g, exact_delta(e, mu))
    tail = gdp.gdp_tail(np.array(EPS_EDGES), mu=mu)
    for e, t in zip(EPS_EDGES, tail):
        want = float(mpmath.ncdf(mpmath.mpf(mu) / 2 - mpmath.mpf(e) / mu))
        assert close(float(t), want, 1e-12) and t >= got[EPS_EDGES.index(e)]  # P(L > ε) ≥ δ(ε)


@pytest.mark.parametrize("mu", MU_EDGES)
def test_the_old_homes_of_the_gaussian_profile_call_the_one_function(mu):
    """profiles.gaussian_delta (σ = Δ/μ), the ledger's exact Gaussian composition and the ledger's grid
    (which discretises with it) give gdp_delta at every edge ε."""
    from hetdp_core.accountants.pld import Event, compose
    from hetdp_core.noise.profiles import gaussian_delta, gaussian_tail

    comp = compose((Event("gaussian", 1.0 / mu),))
    assert comp.exact and comp.mu == pytest.approx(mu, rel=1e-15)
    profile = comp.delta(list(EPS_EDGES))
    for e, d in zip(EPS_EDGES, profile):
        one = float(gdp.gdp_delta(e, mu=comp.mu)[0])
        assert d == one
        assert close(gaussian_delta(eps=e, sigma=2.0 / mu, sensitivity=2.0), one, 1e-12)
        assert close(gaussian_tail(eps=e, sigma=2.0 / mu, sensitivity=2.0), float(gdp.gdp_tail(e, mu=mu)[0]), 1e-12)


@pytest.mark.parametrize("mu", (1e-3, 0.5, 5.0, 50.0))
@pytest.mark.parametrize("delta", (1e-15, 1e-6, 0.1))
def test_the_inverse_in_epsilon_and_its_callers(mu, delta):
    """gdp_epsilon inverts the profile; the ledger's exact composition, its basic accountant on one
    Gaussian release and the group-wise page's stated level read ε from it."""
    from hetdp_core.accountants.accounting import account
    from hetdp_core.accountants.pld import Event

    e = gdp.gdp_epsilon(mu, delta)
    if e == 0:
        assert exact_delta(0.0, mu) <= delta
    else:
        assert math.isclose(exact_delta(e, mu), delta, rel_tol=1e-8)
    ev = [Event("gaussian", 1.0 / mu)]  # σ/Δ = 1/μ, read back as μ up to rounding
    assert account("pld", ev, delta)[0] == pytest.approx(e, rel=1e-12)
    assert account("basic", ev, delta)[0] == pytest.approx(e, rel=1e-12)


@pytest.mark.parametrize("eps", (1e-3, 0.1, 1.0, 10.0, 100.0))
@pytest.mark.parametrize("delta", (1e-12, 1e-6, 0.01))
def test_the_inverse_in_mu_is_the_analytic_gaussian_mechanism(eps, delta):
    """gdp_mu is the largest μ meeting (ε, δ): δ holds at μ and fails 10⁻⁹ above it; the Gaussian
    mechanism's exact calibration (profiles.gaussian_sigma_exact) is Δ/μ."""
    from hetdp_core.noise.profiles import gaussian_sigma_exact

    m = gdp.gdp_mu(eps=eps, delta=delta)
    assert exact_delta(eps, m) <= delta * (1 + 1e-12)
    assert m == gdp.MU_RANGE[1] or exact_delta(eps, m * (1 + 1e-9)) > delta
    assert gaussian_sigma_exact(eps=eps, delta=delta, sensitivity=3.0) == 3.0 / m


def test_the_gaussian_dp_conversions_have_one_home():
    """μ = √(2ρ), ρ = μ²/2 and ρ-zCDP ⇒ (ρ + 2√(ρ log 1/δ), δ): the zCDP pages' noise, the risk solver, the
    meaning panel's conversion and the zCDP accountant all call them."""
    from hetdp_core.accountants.accounting import account
    from hetdp_core.accountants.pld import Event
    from hetdp_core.per_group import zcdp
    from hetdp_core.reading.meaning import zcdp_to_eps
    from hetdp_core.reading.risk import mu_for_tpr, setting_for_tpr

    for rho in (1e-6, 1e-3, 0.5, 1e4):  # the zCDP pages' whole range
        mu = gdp.mu_from_rho(rho)
        assert mu == math.sqrt(2 * rho) and math.isclose(gdp.rho_from_mu(mu), rho, rel_tol=1e-15)
        assert zcdp.sigma_from_rho(rho) == 1.0 / mu
        for delta in (1e-12, 1e-6, 0.1):
            one = gdp.zcdp_epsilon(rho, delta)
            assert float(zcdp_to_eps(rho=[rho], delta=delta)[0]) == one
            assert account("zcdp", [Event("gaussian", 1.0 / gdp.mu_from_rho(rho))], delta)[0] == pytest.approx(
                one, rel=1e-14
            )
    mu = mu_for_tpr(target_tpr=0.2, fpr=0.01)
    assert setting_for_tpr(kind="zcdp", target_tpr=0.2, fpr=0.01) == gdp.rho_from_mu(mu)


# ---------------------------------------------------------------- the Laplace privacy loss
@pytest.mark.parametrize("eps0", (1e-6, 0.1, 1.0, 30.0, 700.0))
def test_the_laplace_loss_law_is_exact_and_its_callers_use_it(eps0):
    """P(L ≤ ℓ) against the Laplace distribution itself (y ~ Lap(0, b), Δ = 1, L = (|y − 1| − |y|)/b:
    L ≤ ℓ ⟺ y ≥ (1 − bℓ)/2 inside the range), the profile's P(L > ε), and the ledger's rounded-up law."""
    from scipy import stats

    from hetdp_core.accountants import pld
    from hetdp_core.noise.profiles import laplace_loss_cdf, laplace_tail

    b = 1.0 / eps0
    losses = np.array([-2 * eps0, -eps0, -0.5 * eps0, 0.0, 0.999 * eps0, eps0, 3 * eps0])
    got = laplace_loss_cdf(losses, eps0=eps0)
    for x, g in zip(losses, got):
        want = 0.0 if x < -eps0 else 1.0 if x >= eps0 else float(stats.laplace.sf((1 - b * x) / 2, scale=b))
        assert math.isclose(g, want, rel_tol=1e-9, abs_tol=1e-300), (x, g, want)
        if 0 <= x:  # b = 1 and Δ = ε₀: the same loss law
            assert math.isclose(laplace_tail(eps=x, b=1.0, sensitivity=eps0), 1.0 - g, rel_tol=1e-15)
    step = eps0 / 37
    lo, masses, inf = pld._rounded_laplace(eps0, step)
    assert inf == 0.0 and masses.min() >= 0 and math.isclose(masses.sum(), 1.0, rel_tol=1e-12)
    grid = (lo + np.arange(masses.size)) * step
    inside = grid < eps0 * (1 - 1e-12)
    assert np.allclose(np.cumsum(masses)[inside], laplace_loss_cdf(grid, eps0=eps0)[inside], rtol=1e-12, atol=0)


# ---------------------------------------------------------------- the randomized-response channel
RR_EDGES = (0.0, 1e-12, 0.05, 1.0, 10.0, 40.0, 700.0, 1e6)


@pytest.mark.parametrize("eps", RR_EDGES)
def test_the_randomized_response_channel_is_exact_at_the_edges(eps):
    p, q = rr_channel(eps)
    e = mpmath.mpf(eps)
    assert math.isclose(p, float(mpmath.exp(e) / (1 + mpmath.exp(e))), rel_tol=1e-15)
    assert close(q, float(1 / (1 + mpmath.exp(e))), 1e-14)  # the lie probability keeps its digits for a large ε
    if eps > 0:
        assert rr_estimate(q, eps=eps) == 0.0 or abs(rr_estimate(q, eps=eps)) < 1e-12  # a share of pure lies
    assert rr_channel(math.inf) == (1.0, 0.0) and rr_variance(0.0, eps=math.inf) == 0.0


@pytest.mark.parametrize("eps", (0.05, 1.0, 10.0))
def test_the_old_homes_of_randomized_response_call_the_one_function(eps):
    """The class poll, Duchi et al.'s privacy coin, per-coordinate randomized response (BCDP's exact
    examples), the ledger's worst case of a pure level and the per-user page's k-RAPPOR baseline (each bit
    at ε/2) use rr_channel, rr_estimate and rr_variance."""
    from hetdp_core.accountants import pld
    from hetdp_core.per_feature import bcdp_exact, duchi
    from hetdp_core.per_user import hetero
    from hetdp_core.teaching import poll

    p, q = rr_channel(eps)
    assert poll.truth_probability(eps=eps) == p and duchi.coin_probability(eps) == p
    est = poll.estimate(yes=37, n=100, eps=eps)
    assert est.estimate == rr_estimate(0.37, eps=eps)
    mech = bcdp_exact.randomized_response([eps])
    assert (mech[0, 0], mech[0, 1], mech[1, 0], mech[1, 1]) == (p, q, q, p)
    lo, masses, inf = pld._rounded_level(eps, 0.0, eps / 10)
    assert (masses[0], masses[-1], inf) == (q, p, 0.0)
    x = np.array([0, 1, 2, 1, 0, 1])
    demands = np.array([2 * eps, 2 * eps, np.inf, 2 * eps, 2 * eps, 2 * eps])
    info = hetero.simulate(x, demands, algorithm="LDP", problem="frequency", k=3, trials=2, rng=0)["info"]
    flip = rr_channel(eps)[1]
    want = np.where(np.isinf(demands), 0.0, rr_variance(flip, eps=eps))
    assert np.array_equal(info["ldp_variance"], want)


# ---------------------------------------------------------------- no copy comes back
#: special functions that compute one of the formulas, and the one module allowed to call each
HOMES = {"log_ndtr": "gdp.py", "expit": "rr.py"}


def test_the_special_functions_of_the_formulas_are_called_in_their_home_only():
    """The Gaussian profile is the only user of log Φ and randomized response the only user of the logistic
    function: a second caller would be a second copy of the formula."""
    found = []
    for path in [*ROOT.glob("hetdp_core/**/*.py"), *ROOT.glob("hetdp_ui/**/*.py"), *ROOT.glob("pages/*/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
            if name in HOMES and path.name != HOMES[name]:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {name}")
    assert not found, (
        "rule: one function per formula; the Gaussian privacy profile lives in hetdp_core/noise/gdp.py and randomized "
        "response in hetdp_core/noise/rr.py. Fix: call gdp_delta / gdp_epsilon / gdp_mu or rr_channel / rr_estimate / "
        "rr_variance instead of writing the formula again:\n" + "\n".join(found)
    )


# ---------------------------------------------------------------- old names
def test_old_public_names_warn_and_give_the_same_object():
    import hetdp_core
    from hetdp_core._deprecated import MOVED

    for info in pkgutil.walk_packages(hetdp_core.__path__, "hetdp_core."):
        importlib.import_module(info.name)
    importlib.import_module("hetdp_ui.nav")
    assert {
        "hetdp_core.accountants.accounting",
        "hetdp_core.per_feature.bcdp_exact",
        "hetdp_core.per_feature.regression",
    } <= set(MOVED)
    for module, table in MOVED.items():
        for old, target in table.items():
            where, new = target.split(":")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                obj = getattr(importlib.import_module(module), old)
            assert obj is getattr(importlib.import_module(where), new), (module, old)
            assert [w.category for w in caught] == [DeprecationWarning] and f"{where}.{new}" in str(caught[0].message)
            assert old not in getattr(importlib.import_module(module), "__all__", ())
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        importlib.import_module("hetdp_core.accountants.accounting").nothing  # noqa: B018
