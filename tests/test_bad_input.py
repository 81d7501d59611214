"""Bad input for every public parameter of the BCDP core: negative, zero, NaN, inf, wrong type,
wrong length. Each must raise ValueError/TypeError whose message names the parameter."""

import math

import numpy as np
import pytest

from hetdp_core.framework._validate import as_generator
from hetdp_core.per_feature import bcdp, bcdp_sim, duchi, mmean

NAN, INF = math.nan, math.inf
D3 = [0.2, 1.0, 2.0]
X = np.array([[0.5, -0.5, 1.0], [0.0, 0.2, -1.0]])
C = [0.1, 0.2, 0.4]

# (callable, good kwargs, parameter, bad value, expected message fragment)
CASES = [
    # privacy_allocation
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [0.2, -1, 2], "demands entries must be > 0"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [0.2, 0, 2], "demands entries must be > 0"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [0.2, NAN, 2], "demands must not contain NaN"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [0.2, -INF], "demands must be finite"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", "0.2,1", "demands must be a list"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [], "demands must have at least 1"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [[0.2, 1]], "demands must be one-dimensional"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "demands", [0.2, "a"], "demands must contain numbers"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "eps", -1, r"eps must be in \[1e-06"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "eps", 0, r"eps must be in \[1e-06"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "eps", NAN, "eps must be a number"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "eps", INF, "eps must be finite"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "eps", "2", "eps must be a real number"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "q", -0.1, r"q must be in \[0, 1\]"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "q", 1.5, r"q must be in \[0, 1\]"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "q", NAN, "q must be a number"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "q", INF, "q must be finite"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "q", None, "q must be a real number"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "zeta", 0, r"zeta must be in \(0, 1\]"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "zeta", -0.5, r"zeta must be in \(0, 1\]"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "zeta", 1.2, r"zeta must be in \(0, 1\]"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "zeta", NAN, "zeta must be a number"),
    (bcdp.privacy_allocation, dict(demands=D3, eps=2, q=0.1), "zeta", True, "zeta must be a real number"),
    # guarantees
    (bcdp.prop4_ldp_guarantee, dict(c=C, q=0.1, ldp=0.4), "c", [0.1, -0.2], "c entries must be >= 0"),
    (bcdp.prop4_ldp_guarantee, dict(c=C, q=0.1, ldp=0.4), "q", [0.1, 0.2], "q must have length 3"),
    (bcdp.prop4_ldp_guarantee, dict(c=C, q=0.1, ldp=0.4), "q", 2.0, r"q must be in \[0, 1\]"),
    (bcdp.prop4_ldp_guarantee, dict(c=C, q=0.1, ldp=0.4), "ldp", -1.0, "ldp must be in"),
    (bcdp.prop4_ldp_guarantee, dict(c=C, q=0.1, ldp=0.4), "ldp", INF, "ldp must be finite"),
    (bcdp.prop4_composition_guarantee, dict(c=C, q=0.1), "c", [NAN], "c must not contain NaN"),
    (bcdp.prop4_composition_guarantee, dict(c=C, q=0.1), "q", [0.1, NAN, 0.1], "q must not contain NaN"),
    (bcdp.prop3_guarantee, dict(eps=1.0, d=3), "eps", -1.0, "eps must be in"),
    (bcdp.prop3_guarantee, dict(eps=1.0, d=3), "d", 0, "d must be >= 1"),
    (bcdp.prop3_guarantee, dict(eps=1.0, d=3), "d", 2.5, "d must be a whole number"),
    (
        bcdp.check_guarantee,
        dict(demanded=D3, guaranteed=C, ldp_level=0.4, eps=2),
        "guaranteed",
        [0.1],
        "guaranteed must have length 3",
    ),
    (
        bcdp.check_guarantee,
        dict(demanded=D3, guaranteed=C, ldp_level=0.4, eps=2),
        "demanded",
        [0, 1, 2],
        "demanded entries must be > 0",
    ),
    (
        bcdp.check_guarantee,
        dict(demanded=D3, guaranteed=C, ldp_level=0.4, eps=2),
        "ldp_level",
        NAN,
        "ldp_level must be a number",
    ),
    (bcdp.check_guarantee, dict(demanded=D3, guaranteed=C, ldp_level=0.4, eps=2), "eps", 0, "eps must be in"),
    (bcdp.prop6_matrix, dict(demands=D3, q=0.1), "demands", [1, -1], "demands entries must be > 0"),
    (bcdp.prop6_matrix, dict(demands=D3, q=0.1), "q", [0.1], "q must have length 3"),
    (bcdp.heuristic_zeta, dict(q=0.5), "q", 3, r"q must be in \[0, 1\]"),
    (bcdp.stage_increments, dict(c_sorted=C), "c_sorted", [0.3, 0.1], "c_sorted must be non-decreasing"),
    (bcdp.stage_increments, dict(c_sorted=C), "c_sorted", [-0.3], "c_sorted entries must be >= 0"),
    (bcdp.mse_bound_thm2, dict(c_sorted=C, n=10), "c_sorted", [0.3, 0.1], "c_sorted must be non-decreasing"),
    (bcdp.mse_bound_thm2, dict(c_sorted=C, n=10), "n", 0, "n must be >= 1"),
    (bcdp.mse_bound_thm2, dict(c_sorted=C, n=10), "n", "10", "n must be an integer"),
    (bcdp.corollary1_bound, dict(d=10, k=2, demand=0.2, eps=2, q=0.1, n=100), "k", 10, "k must satisfy"),
    (bcdp.corollary1_bound, dict(d=10, k=2, demand=0.2, eps=2, q=0.1, n=100), "eps", 0.3, "needs eps > 2"),
    (bcdp.corollary1_bound, dict(d=10, k=2, demand=0.2, eps=2, q=0.1, n=100), "demand", NAN, "demand must be a number"),
    (bcdp.corollary1_bound, dict(d=10, k=2, demand=0.2, eps=2, q=0.1, n=100), "n", -5, "n must be >= 1"),
    (bcdp.translate_demands_to_c, dict(demands=D3, eps=2, q=0.1), "demands", [0.2, NAN], "demands must not contain"),
    (bcdp.translate_demands_to_c, dict(demands=D3, eps=2, q=0.1), "eps", INF, "eps must be finite"),
    (bcdp.translate_demands_to_c, dict(demands=D3, eps=2, q=0.1), "q", -1, r"q must be in \[0, 1\]"),
    # Duchi channel
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "level", 0, r"level must be in \(0"),
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "level", NAN, "level must be a number"),
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "level", INF, "level must be finite"),
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "m", 0, "m must be >= 1"),
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "m", 2.5, "m must be a whole number"),
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "r", -1.0, r"r must be in \(0"),
    (duchi.duchi_B, dict(level=1.0, m=3, r=1.0), "scale", "double", "scale must be one of"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "v", np.array([1.0, 2.0]), "v must be a 2-D array"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "v", np.array([[NAN, 1.0]]), "v must contain finite"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "v", np.array([[3.0, 0.0]]), r"v rows must satisfy"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "level", -1.0, r"level must be in \(0"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "trials", 0, "trials must be >= 1"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "rng", "seed", "rng must be a numpy Generator"),
    (duchi.duchi_channel, dict(v=X, level=1.0, r=2.0), "rng", -3, "rng seed must be >= 0"),
    (duchi.duchi_channel_sum, dict(v=X, level=1.0, r=2.0), "r", 0, r"r must be in \(0"),
    (duchi.duchi_channel_sum, dict(v=X, level=1.0, r=2.0), "scale", None, "scale must be one of"),
    (duchi.spawn, dict(rng=np.random.default_rng(0), k=2), "k", -1, "k must be >= 0"),
    (duchi.bulk_streams, dict(rng=np.random.default_rng(0), k=2), "k", -1, "k must be >= 0"),
    (duchi.bulk_streams, dict(rng=np.random.default_rng(0), k=2), "rng", "seed", "rng must be a numpy Generator"),
    # Mechanism 1
    (mmean.mmean_stages, dict(c_sorted=C), "c_sorted", [0.4, 0.1], "c_sorted must be non-decreasing"),
    (mmean.mmean_stages, dict(c_sorted=C), "c_sorted", [0.0, 0.0], "positive largest entry"),
    (mmean.mmean_stages, dict(c_sorted=C), "c_sorted", [0.1, INF], "c_sorted must be finite"),
    (mmean.mmean_estimate, dict(x=X, c_sorted=C), "x", X * 2, r"x entries must be (<= 1|>= -1)"),
    (mmean.mmean_estimate, dict(x=X, c_sorted=C), "x", X[:, :2], "x must have 3 columns"),
    (mmean.mmean_estimate, dict(x=X, c_sorted=C), "projection", "sphere", "projection must be one of"),
    (mmean.mmean_estimate, dict(x=X, c_sorted=C), "trials", 0, "trials must be >= 1"),
    (mmean.mmean_estimate, dict(x=X, c_sorted=C), "scale", "x", "scale must be one of"),
    (mmean.mmean_release, dict(x=X, c_sorted=C), "trials", -2, "trials must be >= 1"),
    (mmean.mmean_release, dict(x=X, c_sorted=C), "c_sorted", [0.1, 0.2], "x must have 2 columns"),
    (mmean.ldp_baseline_estimate, dict(x=X, level=0.5), "level", 0, r"level must be in \(0"),
    (mmean.ldp_baseline_estimate, dict(x=X, level=0.5), "x", [[NAN, 0, 0]], "x must contain finite"),
    (mmean.exact_mse_mmean, dict(x=X, c_sorted=C), "scale", "huge", "scale must be one of"),
    (mmean.exact_mse_baseline, dict(x=X, level=0.5), "level", NAN, "level must be a number"),
    (mmean.project, dict(est=X, mode="box"), "mode", "cube", "mode must be one of"),
    (mmean.project, dict(est=X, mode="ball"), "radius", -1.0, r"radius must be in \(0"),
    # simulations
    (bcdp_sim.two_group_demands, dict(d=10, k=2, demand=0.2, eps=2), "k", 11, "k must be <= 10"),
    (bcdp_sim.two_group_demands, dict(d=10, k=2, demand=0.2, eps=2), "d", 0, "d must be >= 1"),
    (bcdp_sim.two_group_demands, dict(d=10, k=2, demand=0.2, eps=2), "demand", 0.0, "demand must be in"),
    (bcdp_sim.q_mixture_data, dict(n=10, d=3, q=0.5), "q", 1.1, r"q must be in \[0, 1\]"),
    (bcdp_sim.q_mixture_data, dict(n=10, d=3, q=0.5), "n", 0, "n must be >= 1"),
    (bcdp_sim.simulation_cost, dict(n=10, d=3, trials=5), "trials", 0, "trials must be >= 1"),
    (bcdp_sim.check_cost, dict(cells=10, limit=5), "cells", 10, "compute size"),
    (bcdp_sim.run_point, dict(n=100, demands=D3, eps=2, q=0.1, trials=5), "trials", 0, "trials must be >= 1"),
    (bcdp_sim.run_point, dict(n=100, demands=D3, eps=2, q=0.1, trials=5), "n", 10**9, "n must be <= "),
    (
        bcdp_sim.run_point,
        dict(n=100, demands=D3, eps=2, q=0.1, trials=5),
        "baseline_projection",
        "?",
        "baseline_projection must be one of",
    ),
    (
        bcdp_sim.run_point,
        dict(n=100, demands=D3, eps=2, q=0.1, trials=5),
        "x",
        np.zeros((5, 2)),
        "x must have one column per feature",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0),
        "axis",
        "z",
        "axis must be one of",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0),
        "values",
        [0.1, 2.0],
        r"q values must be in \[0, 1\]",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0),
        "values",
        [],
        "values must have at least 1",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0),
        "seed",
        -1,
        "seed must be >= 0",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0),
        "demands",
        None,
        "needs the demand vector",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0),
        "trials",
        10**7,
        "trials must be <=",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="q", values=[0.1], demands=D3, eps=2, q=0.1, n=100, trials=5, seed=0, max_cells=100_000),
        "n",
        10_000,
        "compute size",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="f", values=[0.1], d=10, eps=2, q=0.1, n=100, trials=5, seed=0),
        "values",
        [0.1, -0.5],
        r"f values must be in \[0, 1\]",
    ),
    (
        bcdp_sim.sweep,
        dict(axis="d", values=[5], eps=2, q=0.1, n=100, trials=5, seed=0),
        "values",
        [5, 2.5],
        "d values must be a whole number",
    ),
]


@pytest.mark.parametrize(
    "func,good,param,bad,match", CASES, ids=[f"{c[0].__name__}-{c[2]}-{i}" for i, c in enumerate(CASES)]
)
def test_bad_input_raises_clear_error(func, good, param, bad, match):
    func(**good) if func not in (bcdp_sim.check_cost,) else None  # the good call works
    kwargs = {**good, param: bad}
    with pytest.raises((ValueError, TypeError), match=match):
        func(**kwargs)


def test_messages_name_value_and_fix():
    with pytest.raises(ValueError) as exc:
        bcdp.privacy_allocation(demands=D3, eps=2, q=1.5)
    msg = str(exc.value)
    assert "q" in msg and "1.5" in msg and "Pass a value" in msg


def test_as_generator_accepts_int_none_generator():
    g = np.random.default_rng(3)
    assert as_generator(g) is g
    assert as_generator(5).integers(1000) == np.random.default_rng(5).integers(1000)
    assert isinstance(as_generator(None), np.random.Generator)
    with pytest.raises(ValueError, match="rng must be"):
        as_generator(1.5)
    with pytest.raises(ValueError, match="rng must be"):
        as_generator(True)
