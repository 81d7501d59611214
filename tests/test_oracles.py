"""The field's own libraries as independent oracles.

Which library checks what:
- OpenDP: Laplace scale <-> epsilon, Gaussian scale <-> zCDP rho (against hetdp_core.noise.mechanisms / zcdp).
- Google's dp-accounting: Renyi DP of the Gaussian mechanism at several orders (against the closed-form
  Gaussian Renyi divergence in hetdp_core.per_group.zcdp); the classical (eps, delta) Gaussian calibration
  checked with the tight PLD accountant.
- diffprivlib: bounded-domain Laplace scale (LaplaceBoundedDomain), Gaussian sigma and exponential
  mechanism probabilities (against the course-lab catalogue).
- pystatdp: counterexample search (hypothesis test on neighbouring inputs) on the project's Laplace
  (no counterexample at the claimed epsilon), an over-claimed Laplace and the local-sensitivity median
  of Example 12 (both caught).
"""

import numpy as np
import pytest

from hetdp_core.noise import mechanisms as mc
from hetdp_core.per_group import zcdp

dp = pytest.importorskip("opendp.prelude")  # test extra; `make test` installs it (never skipped there)
dp.enable_features("contrib")


@pytest.mark.parametrize("sens,eps", [(1.0, 0.1), (2.0, 1.0), (0.5, 8.0)])
def test_opendp_laplace_scale_matches_epsilon(sens, eps):
    b = mc.laplace_scale(sensitivity=sens, eps=eps)
    meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=b)
    assert meas.map(sens) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("rho", [0.01, 0.5, 2.0, 10.0])
def test_opendp_gaussian_scale_matches_zcdp_rho(rho):
    sigma = zcdp.sigma_from_rho(rho)
    meas = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma)
    assert str(meas.output_measure).startswith("ZeroConcentratedDivergence")
    assert meas.map(1.0) == pytest.approx(rho, rel=1e-9)
    # and our Rényi divergence of the Gaussian pair is exactly α·ρ (zCDP with equality)
    a = np.array([1.5, 2.0, 10.0, 100.0])
    assert zcdp.renyi_gaussian(alpha=a, mu1=0.0, s1=sigma, mu2=1.0, s2=sigma) == pytest.approx(a * rho, rel=1e-12)


def test_dp_accounting_gaussian_renyi_orders():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting import rdp

    orders = [1.5, 2.0, 3.0, 5.0, 10.0, 32.0]
    for noise in (0.7, 2.0, 5.0):
        acc = rdp.RdpAccountant(orders=orders)
        acc.compose(dpa.GaussianDpEvent(noise_multiplier=noise))
        ours = zcdp.renyi_gaussian(alpha=np.array(orders), mu1=0.0, s1=noise, mu2=1.0, s2=noise)
        assert np.asarray(acc._rdp) == pytest.approx(ours, rel=1e-9)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-5), (0.5, 1e-6), (0.9, 1e-3)])
def test_dp_accounting_confirms_the_classical_gaussian_calibration(eps, delta):
    """σ = √(2 ln(1.25/δ))Δ/ε (ε < 1) is (ε, δ)-DP: the tight PLD accountant gives ε_true ≤ ε."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting import pld

    sigma = mc.gaussian_sigma(sensitivity=1.0, eps=eps, delta=delta)
    acc = pld.PLDAccountant()
    acc.compose(dpa.GaussianDpEvent(noise_multiplier=sigma))
    assert acc.get_epsilon(delta) <= eps


@pytest.mark.parametrize(
    "eps,delta,lo,hi,sens",
    [(0.5, 1e-3, 0, 10, 1), (1.0, 0.0, 0, 5, 1), (0.1, 0.01, -3, 3, 2), (0.01, 0.999999, 0, 100, 1)],
)
def test_diffprivlib_bounded_laplace_scale(eps, delta, lo, hi, sens):
    mechs = pytest.importorskip("diffprivlib.mechanisms")
    ref = mechs.LaplaceBoundedDomain(epsilon=eps, delta=delta, sensitivity=sens, lower=lo, upper=hi)._find_scale()
    assert mc.bounded_laplace_b(sensitivity=sens, eps=eps, delta=delta, lower=lo, upper=hi) == pytest.approx(
        ref, rel=1e-6
    )


def test_diffprivlib_gaussian_and_exponential():
    mechs = pytest.importorskip("diffprivlib.mechanisms")
    for eps, delta in ((0.5, 1e-5), (0.2, 1e-3)):
        ref = mechs.Gaussian(epsilon=eps, delta=delta, sensitivity=1.0)._scale
        assert mc.gaussian_sigma(sensitivity=1.0, eps=eps, delta=delta) == pytest.approx(ref, rel=1e-9)
    scores = [3.0, 1.0, 4.0, 1.0, 5.0]
    for eps, sens in ((0.5, 1.0), (2.0, 3.0)):
        ref = mechs.Exponential(epsilon=eps, sensitivity=sens, utility=scores)._probabilities
        ours = mc.exponential_probabilities(scores, eps=eps, sensitivity=sens)
        assert np.cumsum(ours) == pytest.approx(np.asarray(ref), rel=1e-12)


# ---------------------------------------------------------------- pystatdp counterexample search
# pystatdp calls algorithm(queries, epsilon) in worker processes; one fixed-seed generator per
# process (one worker: cores=1, so the stream is not duplicated) keeps the test reproducible.
_RNG = {"g": np.random.default_rng(20261122)}


def project_laplace(queries, epsilon):
    return float(mc.release(float(queries[0]), "laplace", sensitivity=1.0, eps=epsilon, rng=_RNG["g"])[0])


def overclaimed_laplace(queries, epsilon):
    return float(mc.release(float(queries[0]), "laplace", sensitivity=1.0, eps=2 * epsilon, rng=_RNG["g"])[0])


def local_sensitivity_median(queries, epsilon):
    return float(mc.local_sensitivity_release(np.asarray(queries), eps=epsilon, size=1, rng=_RNG["g"])[0])


def _seed_numba(seed: int) -> None:
    """pystatdp's p-value averages binomial draws from numba's own generator: seed it too."""
    from numba import njit

    @njit
    def _s(s):
        np.random.seed(s)

    _s(seed)


def _pvalue(algorithm, eps, d1, d2):
    pystatdp = pytest.importorskip("pystatdp")
    _seed_numba(7)
    _RNG["g"] = np.random.default_rng(20261122)
    res = pystatdp.pystatdp().detect_counterexample(
        algorithm,
        eps,
        default_kwargs={"epsilon": eps},
        databases=(np.asarray(d1, float), np.asarray(d2, float)),
        event_iterations=20_000,
        detect_iterations=60_000,
        cores=1,
        quiet=True,
        loglevel=40,
    )
    return res[0][1]


@pytest.mark.statistical
def test_pystatdp_finds_no_counterexample_for_the_project_laplace():
    assert _pvalue(project_laplace, 1.0, [0.0], [1.0]) > 0.05


@pytest.mark.statistical
def test_pystatdp_catches_an_overclaimed_laplace():
    assert _pvalue(overclaimed_laplace, 1.0, [0.0], [1.0]) < 0.01


@pytest.mark.statistical
def test_pystatdp_catches_the_local_sensitivity_median():
    d1, d2 = mc.example12_datasets(n=5, Lambda=10.0)
    assert _pvalue(local_sensitivity_median, 1.0, d1, d2) < 0.01
