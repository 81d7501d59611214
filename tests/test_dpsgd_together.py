"""DP-SGD's methods simulated together in one step loop give, bit for bit, the trajectories each
method gave in its own loop (the loop below is the one each method ran before, kept as the oracle)."""

import numpy as np
import pytest

from hetdp_core.framework._validate import InputError
from hetdp_core.per_iteration import dpsgd as sg


def _one_method_loop(problem, method, x, g, th, runs, lam, radius, rng):
    """The step loop one method ran on its own (the code before the methods shared a loop)."""
    rng = np.random.default_rng(rng)
    p = 1 if problem == "mean" else 2
    n = x.shape[0]
    beta = np.zeros((runs, p))
    traj = np.empty((runs, g.size + 1, p))
    traj[:, 0] = beta
    with np.errstate(over="ignore", invalid="ignore"):
        for h in range(1, g.size + 1):
            if method == "gd":
                if problem == "mean":
                    grad = -2.0 * (x.mean() - beta)
                else:
                    r = x[:, 0][None, :] - beta[:, :1] - beta[:, 1:] * x[:, 1][None, :]
                    grad = np.column_stack([-r.mean(1), -(x[:, 1][None, :] * r).mean(1) + lam * beta[:, 1]])
            else:
                pick = x[rng.integers(0, n, runs)]
                grad = sg._grad(problem, beta, pick, lam)
            if method == "dpsgd":
                grad = grad + th[h - 1] * rng.laplace(0.0, 1.0, (runs, p))
            beta = beta - g[h - 1] * grad
            if problem == "ridge":
                beta = np.clip(beta, -radius, radius)
            traj[:, h] = beta
    return traj


# (problem, schedule, γ0): stable runs, and for the mean a constant γ = 5, where |1 − 2γ|^h overflows
# to ±inf and then NaN within the 400 steps
@pytest.mark.parametrize(
    "problem,schedule,gamma0",
    [("mean", "poly", 0.1), ("mean", "constant", 5.0), ("ridge", "poly", 0.3), ("ridge", "constant", 5.0)],
)
@pytest.mark.parametrize("seed", [0, 7])
def test_methods_together_are_each_methods_own_loop(problem, schedule, gamma0, seed):
    steps = 400
    data = np.random.default_rng([seed, 0])
    x = sg.example33_data(n=50, Lambda=3.0, rng=data) if problem == "mean" else sg.example34_data(n=50, rng=data)
    g = sg.learning_rates(schedule=schedule, steps=steps, gamma0=gamma0, rho=0.5)
    a = sg.privacy_schedule(kind="power", steps=steps, kappa=0.8)
    sens = sg.checked_sensitivity(problem=problem, Lambda=3.0, override=None)
    th = sg.theta(gammas=g, a=a, sensitivity=sens, eps=1.0)
    th1 = sg.theta(gammas=g, a=np.ones(steps), sensitivity=sens, eps=1.0)
    plan = [("dpsgd", th, 7), ("dpsgd", th1, 5), ("sgd", np.zeros(steps), 700), ("gd", np.zeros(steps), 1)]
    runs = [
        sg.MethodRuns(method=m, thetas=t, trials=k, rng=np.random.default_rng([seed, i]))
        for i, (m, t, k) in enumerate(plan)
    ]
    together = sg.simulate_methods(problem=problem, data=x, gammas=g, methods=runs, lam=0.1)
    assert len(together) == len(plan)
    diverged = False
    for i, ((m, t, k), got) in enumerate(zip(plan, together)):
        want = _one_method_loop(problem, m, x, g, t, k, 0.1, sg.RIDGE_RADIUS, [seed, i])
        assert got.shape == want.shape == (k, steps + 1, 1 if problem == "mean" else 2)
        np.testing.assert_array_equal(got, want)  # NaN where NaN, ±inf where ±inf, every other bit the same
        one = sg.simulate(
            problem=problem,
            data=x,
            gammas=g,
            thetas=t,
            trials=k,
            method=m,
            lam=0.1,
            rng=np.random.default_rng([seed, i]),
        )
        np.testing.assert_array_equal(one, want)
        diverged |= not np.isfinite(want).all()
    assert diverged == (problem == "mean" and gamma0 > 1)  # the overflowing case is really exercised


def test_simulate_methods_refuses_bad_runs():
    g = np.full(10, 0.1)
    x = np.linspace(0, 1, 20)
    with pytest.raises(InputError, match="methods must name at least one method"):
        sg.simulate_methods(problem="mean", data=x, gammas=g, methods=[])
    with pytest.raises(InputError, match="method"):
        sg.simulate_methods(
            problem="mean", data=x, gammas=g, methods=[sg.MethodRuns(method="adam", thetas=g, trials=2, rng=0)]
        )
    with pytest.raises(InputError, match="noise scales"):
        sg.simulate_methods(problem="mean", data=x, gammas=g, methods=[sg.MethodRuns("dpsgd", np.ones(3), 2, 0)])
    with pytest.raises(InputError, match="rng"):
        sg.simulate_methods(problem="mean", data=x, gammas=g, methods=[sg.MethodRuns("dpsgd", g, 2, "seven")])
    with pytest.raises(InputError, match="trials"):
        sg.simulate_methods(problem="mean", data=x, gammas=g, methods=[sg.MethodRuns("dpsgd", g, 0, 0)])


def test_a_memoised_function_serves_what_it_keeps_and_computes_the_rest_together():
    from hetdp_core.framework.memo import memoised

    calls = []

    @memoised(2**20, name="test: squares", key=lambda *, v, rng: (v, rng.bit_generator.state))
    def square(*, v, rng):
        calls.append(v)
        return np.full(3, v * v + rng.random())

    batches = []

    def together(missing):
        batches.append([c["v"] for c in missing])
        return [square.__wrapped__(**c) for c in missing]

    first = square(v=2, rng=np.random.default_rng(1))
    got = square.many([{"v": v, "rng": np.random.default_rng(1)} for v in (1, 2, 3)], together)
    assert batches == [[1, 3]]  # v = 2 was kept: only the others are computed, in one batch
    for v, arr in zip((1, 2, 3), got):
        np.testing.assert_array_equal(arr, square.__wrapped__(v=v, rng=np.random.default_rng(1)))
        assert not arr.flags.writeable  # shared values are read-only, like the single calls'
    np.testing.assert_array_equal(got[1], first)
    again = square.many([{"v": v, "rng": np.random.default_rng(1)} for v in (3, 1)], together)
    assert batches == [[1, 3]]  # all kept now: nothing computed
    assert again[0] is got[2] and again[1] is got[0]
    with pytest.raises(ValueError):  # a batch that returns fewer values than it was asked for
        square.many([{"v": 9, "rng": np.random.default_rng(0)}], lambda missing: [])


def test_calls_without_a_content_key_are_computed_and_not_kept():
    from hetdp_core.framework.memo import memoised

    @memoised(2**20, name="test: opaque", key=lambda *, v: (v,))
    def ident(*, v):
        return v

    batches = []

    def together(missing):
        batches.append(len(missing))
        return [c["v"] for c in missing]

    opaque = object()  # no content key: computed each time, never kept
    assert ident.many([{"v": opaque}, {"v": opaque}], together) == [opaque, opaque]
    assert ident.many([{"v": opaque}], together) == [opaque]
    assert batches == [2, 1] and len(ident.memo) == 0
