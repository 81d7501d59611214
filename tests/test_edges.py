"""Numerics at the edges: each test fails on the code before the fix."""

import math

import numpy as np
import pytest
from conftest import strict_json
from hypothesis import given
from hypothesis import strategies as st

from hetdp_core.noise import mechanisms
from hetdp_core.per_feature import bcdp
from hetdp_core.per_iteration import dpsgd
from hetdp_core.per_user import hetero
from hetdp_core.scenarios import get
from hetdp_ui.cli import main


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- defect 3: DP-SGD sensitivity
@pytest.mark.parametrize(
    "flags,expected",
    [
        (["--problem", "mean", "--method", "dpsgd", "--Lambda", "5"], 10.0),  # 2Λ, not the old default 1
        (["--problem", "ridge"], 44.0),  # 4(1 + 2R), R = 5
        (["--problem", "mean", "--Lambda", "5", "--sensitivity", "20"], 20.0),  # larger: allowed (more noise)
    ],
)
def test_sgd_run_calibrates_with_the_example_gradient_sensitivity(flags, expected, capsys):
    code, out, _ = run(["sgd", "run", *flags, "--steps", "20", "--runs", "5", "--json"], capsys)
    assert code == 0 and strict_json(out)["sensitivity"] == expected


def test_sgd_run_refuses_a_smaller_sensitivity(capsys):
    code, _, err = run(["sgd", "run", "--problem", "mean", "--Lambda", "5", "--sensitivity", "1"], capsys)
    assert code == 2 and "would not be private" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="sensitivity 1 is below the gradient sensitivity 10"):
        get("DP_SGD_schedules").SCENARIO(problem="mean", Lambda=5, sensitivity=1)  # the page's own rule
    with pytest.raises(ValueError, match="below the gradient sensitivity 44"):
        dpsgd.checked_sensitivity(problem="ridge", override=43.9)


@given(Lambda=st.floats(0.5, 50.0), seed=st.integers(0, 2**31 - 1))
def test_gradient_sensitivity_bounds_every_pair_of_gradients(Lambda, seed):
    """Empirical check of the derivation: over random β and data pairs in the example's domain, the
    ℓ1 gradient difference never exceeds Δ, and the worst case is attained (up to 1 %)."""
    rng = np.random.default_rng(seed)
    beta = rng.uniform(-10, 10, (2000, 1))
    x, y = rng.uniform(0, Lambda, 2000), rng.uniform(0, Lambda, 2000)
    diff = np.abs(dpsgd._grad("mean", beta, x, 0.1) - dpsgd._grad("mean", beta, y, 0.1)).sum(axis=1)
    delta = dpsgd.gradient_sensitivity(problem="mean", Lambda=Lambda)
    assert diff.max() <= delta * (1 + 1e-12)
    corners = np.abs(
        dpsgd._grad("mean", beta[:1], np.array([0.0]), 0.1) - dpsgd._grad("mean", beta[:1], np.array([Lambda]), 0.1)
    ).sum()
    assert corners == pytest.approx(delta)
    R = dpsgd.RIDGE_RADIUS
    b = rng.uniform(-R, R, (4000, 2))
    p, q = rng.uniform(-1, 1, (4000, 2)), rng.uniform(-1, 1, (4000, 2))
    d2 = np.abs(dpsgd._grad("ridge", b, p, 0.7) - dpsgd._grad("ridge", b, q, 0.7)).sum(axis=1)
    assert d2.max() <= dpsgd.gradient_sensitivity(problem="ridge")
    # 4(1 + 2R) is an upper bound, not attained; this pair comes within a factor 2 of it
    worst = np.abs(
        dpsgd._grad("ridge", np.array([[-R, -R]]), np.array([[1.0, 1.0]]), 0.7)
        - dpsgd._grad("ridge", np.array([[-R, -R]]), np.array([[-1.0, -1.0]]), 0.7)
    ).sum()
    assert dpsgd.gradient_sensitivity(problem="ridge") / 2 <= worst <= dpsgd.gradient_sensitivity(problem="ridge")


# ---------------------------------------------------------------- defect 5: correlation cost
def test_c_vector_with_a_huge_level_and_no_correlation(capsys):
    code, out, err = run(["bcdp", "c-vector", "--delta", "inf,inf,inf", "--eps", "400", "--q", "0", "--json"], capsys)
    assert code == 0, err
    d = strict_json(out)
    assert d["c"] == [400.0, 400.0, 400.0] and d["all_ok"]


@given(level=st.floats(0.0, 700.0), q=st.floats(0.0, 1.0))
def test_correlation_cost_is_finite_and_matches_the_formula(level, q):
    got = float(bcdp._correlation_cost(level, q))
    assert math.isfinite(got) and 0.0 <= got <= level + 1e-12
    if level < 30:
        assert got == pytest.approx(math.log(1 + q * math.exp(level) - q), rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------- defect 6: LDP frequency baseline
def test_ldp_frequency_variance_is_the_rappor_variance():
    eps = np.array([0.5, 1.0, 4.0, np.inf])
    x = np.array([0, 1, 2, 0])
    res = hetero.simulate(x, eps, algorithm="LDP", problem="frequency", k=3, trials=2, rng=0)
    f = 1.0 / (1.0 + np.exp(eps[:3] / 2))
    assert res["info"]["ldp_variance"][:3] == pytest.approx(f * (1 - f) / (1 - 2 * f) ** 2, rel=1e-12)
    assert res["info"]["ldp_variance"][3] == 0.0


def test_rappor_unbiased_bit_has_the_stated_variance():
    """Monte Carlo: the per-bit unbiased estimate (y − f)/(1 − 2f) has variance f(1 − f)/(1 − 2f)²
    for either true bit (no extra 0.25). 200 000 draws: relative SE of a variance ≈ 0.3 %; tol 2 %."""
    rng = np.random.default_rng(11)
    for eps in (0.5, 2.0):
        f = 1.0 / (1.0 + math.exp(eps / 2))
        for bit in (0.0, 1.0):
            flip = rng.random(200_000) < f
            y = np.where(flip, 1.0 - bit, bit)
            unb = (y - f) / (1 - 2 * f)
            assert unb.mean() == pytest.approx(bit, abs=0.02 / (1 - 2 * f))
            assert unb.var() == pytest.approx(f * (1 - f) / (1 - 2 * f) ** 2, rel=0.02)


# ---------------------------------------------------------------- defect 7: bounded Laplace
def test_bounded_laplace_b_is_the_smallest_solution():
    b = mechanisms.bounded_laplace_b(sensitivity=1, eps=0.01, delta=0.999999, lower=0, upper=100)
    assert b == pytest.approx(0.07615, rel=1e-3)


@given(eps=st.floats(0.01, 5.0), delta=st.floats(0.0, 0.999999), width=st.floats(1.5, 200.0))
def test_bounded_laplace_b_satisfies_theorem_26_and_nothing_smaller_does(eps, delta, width):
    b = mechanisms.bounded_laplace_b(sensitivity=1, eps=eps, delta=delta, lower=0, upper=width)

    def g(bb):
        dC = mechanisms.bounded_laplace_C(1.0, b=bb, lower=0, upper=width) / mechanisms.bounded_laplace_C(
            0.0, b=bb, lower=0, upper=width
        )
        return bb * (eps - math.log(dC) - math.log1p(-delta)) - 1.0

    assert g(b * (1 + 1e-9)) >= -1e-9
    for frac in (0.5, 0.9, 0.99, 0.999):
        assert g(b * frac) < 0


# ---------------------------------------------------------------- found by the fuzz module
def test_gaussian_renyi_keeps_relative_accuracy_for_huge_groups():
    """Algorithm 2 at x = 1e12: D_α(N(x, r²x²) ‖ N(x+1, r²(x+1)²)) ≈ α(1 + r²)/(2r²x²) (first order in
    1/x). The old log(s2/s1) + log(s2²/s_α²)/(2(α−1)) form cancelled to round-off (7e-17 instead of
    1.35e-21) and reported a false violation of the paper's claim at α = 1 + 1e-6."""
    from hetdp_core.per_group import zcdp

    x, r = 1e12, 0.2
    for a in (1.000001, 2.0, 100.0):
        d = float(zcdp.renyi_gaussian(alpha=a, mu1=x, s1=r * x, mu2=x + 1, s2=r * (x + 1)))
        assert d == pytest.approx(a * (1 + r * r) / (2 * r * r * x * x), rel=1e-3)
    assert zcdp.algorithm2_violation_orders(x=x, r=r).first is None


def test_zcdp_level_below_the_accepted_range_is_refused_not_overflowed(capsys):
    """ρ = 1e-320 made σ infinite and Algorithm 1's quadrature planner crash (ValueError on NaN)."""
    code, _, err = run(
        ["zcdp", "renyi", "--algorithm", "1", "--x", "3", "--r", "0.2", "--rho", "1e-320", "--alpha", "2"], capsys
    )
    assert code == 2 and err.startswith("hetdp: error: rho must be in [1e-06, 1e+06]") and err.count("\n") == 1


def test_tradeoff_curve_orders_outputs_by_log_likelihood_ratio():
    """p1/p0 overflowed for a denormal p0 (every such output tied at inf); the lab figure then
    called exp(δ) with δ ≈ 737 (OverflowError) for Example 1 at a = 1e-320."""
    from hetdp_core.per_feature.bcdp_exact import tradeoff_curve
    from hetdp_ui.folders import figures_module

    hypothesis_tests_figure = figures_module("BCDP_guarantee_lab").hypothesis_tests_figure

    p0 = np.array([1e-310, 1e-320, 1.0 - 1e-310])  # ratios 2.5e309 and 5e319: both inf in linear space
    p1 = np.array([0.25, 0.5, 0.25])
    alpha, beta = tradeoff_curve(p0, p1)
    assert np.all(np.diff(alpha) >= 0) and np.all(np.diff(beta) <= 0)
    assert beta[1] == pytest.approx(0.5) and beta[2] == pytest.approx(0.25)  # largest ratio first
    assert len(hypothesis_tests_figure(None, None, alpha, beta, 737.0).data) == 4


def test_ball_lstsq_with_a_singular_matrix_and_b_in_its_range():
    """Perfectly correlated features (regression page, q = 1): A is singular, the unconstrained
    minimisers form a line, and brentq failed with 'f(a) and f(b) must have different signs'."""
    from hetdp_core.per_feature.regression import ball_lstsq

    A = np.array([[1.0, 1.0], [1.0, 1.0]])
    b = np.array([0.5, 0.5])  # in the range of A: minimisers θ1 + θ2 = 0.5
    theta = ball_lstsq(A, b, radius=5.0)
    assert theta == pytest.approx([0.25, 0.25])  # the least-norm minimiser
    theta = ball_lstsq(A, b, radius=0.1)  # the ball cuts the line: boundary solution
    assert np.linalg.norm(theta) == pytest.approx(0.1)


def test_scenario_number_beyond_float_range_is_an_input_error():
    from hetdp_core.framework.scenario import InputError
    from hetdp_core.scenarios import get

    with pytest.raises(InputError, match=r"n \(data points\) must be in \[2, 1e\+06\]; got a 400-digit number"):
        get("DP_SGD_schedules").SCENARIO.from_query({"n": "1" * 400})


def test_dpsgd_divergence_is_reported_not_shown_as_null(capsys):
    """A custom learning rate of 10 (the page allows up to 10) makes every method diverge for the
    mean; the distances used to overflow to NaN (null in JSON, with no explanation)."""
    code = main(["run", "DP_SGD_schedules", "--query", "lr=custom&custom=10&trials=5&steps=200", "--json"])
    out, err = capsys.readouterr()
    doc = strict_json(out)
    assert code == 0 and "RuntimeWarning" not in err
    assert len(doc["notes"]) == 1 and doc["notes"][0].startswith("Diverged") and "GD (full gradient)" in doc["notes"][0]
    last = [r for r in doc["tables"]["dpsgd_trajectories"] if r["h"] == 200]
    assert all(r["median"] is not None and r["median"] > 1e100 for r in last)


def test_dpsgd_default_has_no_divergence_note(capsys):
    code = main(["run", "DP_SGD_schedules", "--query", "trials=5&steps=200", "--json"])
    assert code == 0 and strict_json(capsys.readouterr().out)["notes"] == []


_ENTRY = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 5e-324, 1.0, 2.0, math.inf, -math.inf, math.nan]),
)


@given(
    values=st.lists(_ENTRY, min_size=1, max_size=12),
    lo=st.one_of(st.none(), st.sampled_from([0.0, 1e-6, 1.0, -1.0])),
    hi=st.one_of(st.none(), st.sampled_from([1.0, 1e6, 0.0])),
    lo_open=st.booleans(),
    hi_open=st.booleans(),
    allow_inf=st.booleans(),
)
def test_check_vector_fast_path_accepts_exactly_what_the_entry_checks_accept(
    values, lo, hi, lo_open, hi_open, allow_inf
):
    """check_vector's min/max shortcut (_within) returns early only for vectors the entry-by-entry
    checks accept; every other vector still gets the entry checks and their message."""
    from unittest import mock

    from hetdp_core.framework import _validate
    from hetdp_core.framework._validate import InputError, check_vector

    kw = dict(lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open, allow_inf=allow_inf)
    arr = np.array(values, dtype=float)
    with mock.patch.object(_validate, "_within", lambda *a, **k: False):  # the entry checks alone
        try:
            slow = check_vector("x", values, **kw)
        except InputError as exc:
            slow = exc
    if _validate._within(arr, **kw):
        assert isinstance(slow, np.ndarray), f"shortcut accepted {values} that the entry checks refuse: {slow}"
    try:
        fast = check_vector("x", values, **kw)
    except InputError as exc:
        assert isinstance(slow, InputError) and str(exc) == str(slow)
    else:
        assert isinstance(slow, np.ndarray) and np.array_equal(fast, slow)
