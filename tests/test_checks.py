"""Every number shown as a guarantee is checked against a provable bound; a violation is shown as a
numerical failure with its inputs, never as a finding."""

import numpy as np
import pytest
from conftest import ROOT, page_path
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.checks import check_le, failures
from hetdp_core.noise import mechanisms
from hetdp_core.per_feature import bcdp, bcdp_exact, bcdp_sim
from hetdp_core.per_feature.bcdp import privacy_allocation
from hetdp_core.per_group import zcdp
from hetdp_core.per_iteration import dpsgd
from hetdp_core.per_user import hetero

PAGES = ROOT / "pages"


def test_check_le_semantics():
    assert check_le("x", [1.0, 2.0], [1.0, 3.0]).holds
    assert check_le("x", [np.inf], [np.inf]).holds  # ∞ ≤ ∞ (public coordinate)
    assert check_le("x", [np.nan, 1.0], [0.0, 1.0]).holds  # NaN = not shown, not checked
    bad = check_le("δ' ≤ δ", [1.0, 2.5], [1.0, 2.0], labels=["a", "b"], inputs={"q": 0.3})
    assert not bad.holds and bad.where == "b" and bad.worst == pytest.approx(0.5)
    assert "Numerical failure" in bad.message() and "q = 0.3" in bad.message()
    assert not check_le("x", [1.0], [np.nan]).holds  # a NaN bound never passes
    assert check_le("x", [1.0 + 1e-12], [1.0]).holds  # round-off slack


def test_core_checks_hold_on_ordinary_inputs():
    alloc = privacy_allocation(demands=[0.2, 0.2, 2, 2], eps=2, q=0.4)
    assert not failures(bcdp_sim.guarantee_report(alloc).checks)
    assert not failures(bcdp_exact.rr_sweep(c=[0.5, 1.0, 3.5], qs=[0, 0.5, 1]).checks)
    eps = np.array([0.1, 0.5, 1.0, 4.0, np.inf])
    for alg in ("CP", "UE", "A", "UNI", "PROP"):
        w = hetero.weights(eps, algorithm=alg, problem="frequency", k=5)
        checks = hetero.weight_checks(demands=eps, eps_eff=w.eps_eff, weights=w.weights, algorithm=alg, b=w.b)
        assert not failures(checks)
    c = zcdp.renyi_curves(algorithm=1, x=10, rho=2.0, r=0.2, alpha=[2.0, 10.0, 40.0])
    assert not failures(zcdp.curve_checks(c, rho=2.0))
    b = mechanisms.bounded_laplace_b(sensitivity=1, eps=0.5, delta=1e-3, lower=0, upper=10)
    assert not failures(mechanisms.calibration_checks(sensitivity=1, eps=0.5, delta=1e-3, bounded=(b, 0, 10)))
    # a scale far below Theorem 26's (loss up to Δ/b = 2 > ε = 0.5): the exact profile check says so
    bad = failures(mechanisms.calibration_checks(sensitivity=1, eps=0.5, delta=1e-5, bounded=(0.5, 0, 10)))
    assert [c.name for c in bad] == ["bounded Laplace: exact δ(ε) ≤ stated δ"]
    g = dpsgd.learning_rates(schedule="poly", steps=50, gamma0=0.1, rho=0.5)
    a = dpsgd.privacy_schedule(kind="power", steps=50, kappa=1.0)
    th = dpsgd.theta(gammas=g, a=a, sensitivity=10.0, eps=1.0)
    assert not failures(dpsgd.theta_checks(thetas=th, a=a, sensitivity=10.0, eps=1.0))


def test_checks_catch_broken_values():
    """Each check fails when the number it guards is wrong (so the checks are not vacuous)."""
    eps = np.array([0.5, 1.0])
    assert failures(hetero.weight_checks(demands=eps, eps_eff=eps * 1.01, weights=[0.5, 0.5], algorithm="X", b=1.0))
    c = zcdp.renyi_curves(algorithm=1, x=10, rho=2.0, r=0.2, alpha=[10.0])
    broken = zcdp.RenyiCurves(alpha=c.alpha, up=c.alpha * 2.0 * 1.01, down=c.down, claimed=c.claimed, algorithm=1, x=10)
    assert failures(zcdp.curve_checks(broken, rho=2.0))
    a = np.ones(5)
    assert failures(dpsgd.theta_checks(thetas=np.full(5, 0.5), a=a, sensitivity=1.0, eps=1.0))


def _page(name: str) -> AppTest:
    return AppTest.from_file(str(page_path(name)), default_timeout=120)


def test_page_reports_a_broken_guarantee_as_a_numerical_failure(monkeypatch, forked_runs):
    """Force Proposition 4(2) to return a too-large δ': the page must not say "a demand fails"
    (a finding) but "Numerical failure" naming the check and its inputs."""
    real = bcdp.prop4_ldp_guarantee
    monkeypatch.setattr(bcdp, "prop4_ldp_guarantee", lambda **kw: real(**kw) + 5.0)
    monkeypatch.setattr(
        bcdp, "prop4_composition_guarantee", lambda **kw: (np.full(np.size(kw["c"]), 50.0), float(np.sum(kw["c"])))
    )
    at = _page("Feature_privacy")
    at.query_params["trials"] = "5"
    at.query_params["n"] = "500"
    at.run()
    assert not at.exception
    errs = [e.value for e in at.error]
    assert any("Numerical failure" in e and "guaranteed δ'_i ≤ demanded δ_i" in e and "q = " in e for e in errs), errs
    assert not at.success


def test_zcdp_page_reports_an_algorithm1_bound_violation_as_numerical_failure(monkeypatch, forked_runs):
    real = zcdp.renyi_algorithm1

    def broken(**kw):
        up, down = real(**kw)
        return up * 0 + np.asarray(kw["alpha"], float) * kw["rho"] * 2, down

    monkeypatch.setattr(zcdp, "renyi_algorithm1", broken)
    at = _page("Groupwise_zCDP")
    for k, v in {"algorithm": "1", "mode": "List", "counts": "3,10"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    errs = [e.value for e in at.error]
    assert any("Numerical failure" in e and "≤ αρ" in e for e in errs), errs
