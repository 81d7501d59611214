"""Statistical tests of the Duchi channel and Mechanism 1 (fixed seeds, CI-based tolerances).

Tolerance: |estimate − target| ≤ 4.5 standard errors (see tests/stats.py for the rationale).
The last tests show the checks can fail: the same checks run on deliberately broken channels
must report a violation.
"""

import math

import numpy as np
import pytest
from stats import mean_within_ci, mean_within_known_se

from hetdp_core.per_feature import duchi as duchi_mod
from hetdp_core.per_feature.bcdp import privacy_allocation
from hetdp_core.per_feature.bcdp_sim import q_mixture_data
from hetdp_core.per_feature.duchi import duchi_B, duchi_channel, duchi_channel_sum
from hetdp_core.per_feature.mmean import (
    exact_mse_baseline,
    exact_mse_mmean,
    ldp_baseline_estimate,
    mmean_estimate,
    mmean_release,
)

pytestmark = pytest.mark.statistical

V = np.array(
    [
        [0.9, -0.6, 0.3, 0.0],  # inside the ball of radius 2, various norms
        [0.0, 0.0, 0.0, 0.0],  # zero vector: random direction
        [1.0, 1.0, 1.0, 1.0],
    ]
)  # on the sphere: S = 1 surely
R, ALPHA = 2.0, 1.0


def channel_unbiased(scale="unbiased", seed=11, trials=120_000):
    Z = duchi_channel(V, level=ALPHA, r=R, trials=trials, rng=seed, scale=scale)
    return mean_within_ci(Z, V)


def test_norm_is_exactly_B():
    Z = duchi_channel(V, level=ALPHA, r=R, trials=1000, rng=1)
    B = duchi_B(level=ALPHA, m=4, r=R)
    assert np.allclose(np.linalg.norm(Z, axis=-1), B, rtol=1e-12, atol=0)


def test_paper_constant_is_twice_unbiased():
    for m in (1, 2, 3, 10, 50):
        assert duchi_B(level=0.7, m=m, r=3.0, scale="paper") == pytest.approx(
            2 * duchi_B(level=0.7, m=m, r=3.0), rel=1e-12
        )


def test_unbiased_channel_mean_is_v():
    ok, dev = channel_unbiased()
    assert ok, f"max deviation {dev.max():.2f} SE"


def test_paper_scale_is_detectably_biased_by_two():
    Z = duchi_channel(V, level=ALPHA, r=R, trials=120_000, rng=12, scale="paper")
    ok2, dev2 = mean_within_ci(Z, 2 * V)
    assert ok2, f"E[Z] should be 2v with the printed constant; max dev {dev2.max():.2f} SE"
    ok1, dev1 = mean_within_ci(Z, V)
    nonzero = V != 0
    # expected deviations from v are |v_j| / SE_j = 10.2 to 34.6 SE here (v_j = 0.3 is the smallest); the old
    # threshold of 10 SE sat at the mean of the smallest, so a seed passed it or not by chance. An unbiased
    # channel would give deviations of about 1 SE: 5 SE separates the two with room on both sides.
    assert not ok1 and np.all(dev1[nonzero] > 5), "the printed constant must be visibly biased"


@pytest.mark.parametrize("m", [1, 3, 6])
def test_second_moment_is_isotropic(m):
    rng = np.random.default_rng(5)
    v = rng.uniform(-1, 1, size=(2, m)) / math.sqrt(m)
    B = duchi_B(level=0.5, m=m, r=1.0)
    Z = duchi_channel(v, level=0.5, r=1.0, trials=60_000, rng=6)
    prods = (Z[..., :, None] * Z[..., None, :]).reshape(Z.shape[0], -1)
    ok, dev = mean_within_ci(prods, np.tile((B**2 / m) * np.eye(m), (2, 1, 1)).reshape(-1))
    assert ok, f"E[ZZ^T] != (B^2/m) I: max dev {dev.max():.2f} SE"


def test_sum_path_mean_and_variance():
    rng = np.random.default_rng(3)
    v = rng.uniform(-1, 1, size=(50, 3)) / math.sqrt(3)
    T = 40_000
    S = duchi_channel_sum(v, level=0.8, r=1.0, trials=T, rng=4)
    ok, dev = mean_within_ci(S, v.sum(axis=0))
    assert ok, f"sum path mean: {dev.max():.2f} SE"
    B = duchi_B(level=0.8, m=3, r=1.0)
    var = (B**2 / 3 - v**2).sum(axis=0)
    ok, dev = mean_within_ci((S - v.sum(axis=0)) ** 2, var)
    assert ok, f"sum path variance: {dev.max():.2f} SE"


def test_mmean_release_is_unbiased_per_user():
    x = q_mixture_data(n=4, d=4, q=0.3, rng=2) * np.array([1.0, 0.5, -0.25, 1.0])
    a = privacy_allocation(demands=[0.5, 1.0, 3.0, 3.0], eps=3.0, q=0.3)
    xs = x[:, a.order]
    rel = mmean_release(xs, c_sorted=a.c_sorted, trials=60_000, rng=8)
    ok, dev = mean_within_ci(rel, xs)
    assert ok, f"M_mean per-user release biased: {dev.max():.2f} SE"


@pytest.mark.parametrize("scale", ["unbiased", "paper"])
def test_server_estimate_mean_and_mse_match_closed_form(scale):
    """No projection: E[x̂] = γ x̄ (γ = 1 unbiased), and the Monte Carlo MSE equals the closed form."""
    x = q_mixture_data(n=300, d=5, q=0.2, rng=21)
    a = privacy_allocation(demands=[0.3, 0.3, 2.0, 2.0, 2.0], eps=2.0, q=0.2)
    xs = x[:, a.order]
    T = 20_000
    est = mmean_estimate(xs, c_sorted=a.c_sorted, trials=T, rng=22, projection="none", scale=scale)
    gamma = 1.0 if scale == "unbiased" else 2.0
    per = exact_mse_mmean(xs, c_sorted=a.c_sorted, scale=scale, per_coordinate=True)
    var = per - (gamma - 1) ** 2 * xs.mean(0) ** 2
    ok, dev = mean_within_known_se(est, gamma * xs.mean(0), np.sqrt(var / T))
    assert ok, f"server estimate mean off: {dev.max():.2f} SE"
    err = ((est - xs.mean(0)) ** 2).sum(axis=1)
    ok, dev = mean_within_ci(err, exact_mse_mmean(xs, c_sorted=a.c_sorted, scale=scale))
    assert ok, f"Monte Carlo MSE vs closed form: {float(dev):.2f} SE"


def test_baseline_mse_matches_closed_form():
    x = q_mixture_data(n=500, d=6, q=0.5, rng=31)
    T = 20_000
    est = ldp_baseline_estimate(x, level=0.4, trials=T, rng=32, projection="none")
    err = ((est - x.mean(0)) ** 2).sum(axis=1)
    ok, dev = mean_within_ci(err, exact_mse_baseline(x, level=0.4))
    assert ok, f"baseline MSE vs closed form: {float(dev):.2f} SE"


# ---------------------------------------------------------------- the checks can fail
def test_unbiasedness_check_catches_printed_constant(monkeypatch):
    """A channel that silently uses the printed constant under the 'unbiased' name must fail."""
    real = duchi_mod.duchi_B
    monkeypatch.setattr(duchi_mod, "duchi_B", lambda **kw: real(**{**kw, "scale": "paper"}))
    ok, dev = channel_unbiased()
    assert not ok and dev.max() > 10


def test_unbiasedness_check_catches_ignored_privacy_coin(monkeypatch):
    """A channel whose coin K ignores α (fair coin: E[Z] = 0) must fail."""
    monkeypatch.setattr(duchi_mod, "coin_probability", lambda a: 0.5)
    ok, dev = channel_unbiased()
    assert not ok and dev.max() > 10


def test_mse_check_catches_wrong_variance(monkeypatch):
    """If the simulated channel had a 10% larger radius, the MSE check must fail."""
    x = q_mixture_data(n=300, d=4, q=0.2, rng=41)
    a = privacy_allocation(demands=[0.3, 2.0, 2.0, 2.0], eps=2.0, q=0.2)
    xs = x[:, a.order]
    exact = exact_mse_mmean(xs, c_sorted=a.c_sorted)
    real = duchi_mod.duchi_B
    monkeypatch.setattr(duchi_mod, "duchi_B", lambda **kw: 1.1 * real(**kw))
    est = mmean_estimate(xs, c_sorted=a.c_sorted, trials=20_000, rng=42, projection="none")
    err = ((est - xs.mean(0)) ** 2).sum(axis=1)
    ok, dev = mean_within_ci(err, exact)
    assert not ok and float(dev) > 10


@pytest.mark.parametrize("block", [1, 7_000, 10**9])
def test_summed_channel_does_not_depend_on_its_cache_blocks(monkeypatch, block):
    """The summed channel draws and reduces its normals in cache-sized blocks of trials; a generator
    fills consecutive blocks with the numbers of one large draw and every per-trial operation is the
    same, so any block size gives bit-for-bit the same sums (here 1 normal per block → one trial per
    block, a few trials per block, and the whole chunk at once)."""
    v = np.random.default_rng(11).uniform(-1, 1, (700, 4)) / 2
    monkeypatch.setattr(duchi_mod, "_BLOCK_CELLS", 10**9)
    ref = duchi_channel_sum(v, level=1.3, r=1.0, trials=23, rng=5)
    monkeypatch.setattr(duchi_mod, "_BLOCK_CELLS", block)
    np.testing.assert_array_equal(duchi_channel_sum(v, level=1.3, r=1.0, trials=23, rng=5), ref)


def test_bulk_streams_are_sfc64_children_of_the_callers_seed_sequence():
    """The channel's chunk streams: SFC64 generators seeded by the caller's SeedSequence children, so
    the same seed gives the same streams, the children differ from each other, and a generator
    without a SeedSequence still gets reproducible children from its own stream."""
    a = duchi_mod.bulk_streams(np.random.default_rng(7), 3)
    b = duchi_mod.bulk_streams(np.random.default_rng(7), 3)
    assert all(isinstance(g.bit_generator, np.random.SFC64) for g in a)
    draws = [g.standard_normal(5) for g in a]
    for g, d in zip(b, draws):
        np.testing.assert_array_equal(g.standard_normal(5), d)
    assert not np.array_equal(draws[0], draws[1])
    kids = np.random.default_rng(7).bit_generator.seed_seq.spawn(3)  # the same children spawn() uses
    np.testing.assert_array_equal(np.random.Generator(np.random.SFC64(kids[2])).standard_normal(5), draws[2])

    def legacy():  # seeded the legacy way: no SeedSequence to spawn from
        bg = np.random.MT19937()
        bg._legacy_seeding(3)
        return np.random.Generator(bg)

    x = [g.random(3) for g in duchi_mod.bulk_streams(legacy(), 2)]
    y = [g.random(3) for g in duchi_mod.bulk_streams(legacy(), 2)]
    assert not np.array_equal(x[0], x[1])
    np.testing.assert_array_equal(x, y)


def test_channel_calls_from_many_threads_share_the_pool_and_match_serial_calls():
    """The process-wide chunk pool is shared by concurrent callers (the server's sessions, a threaded
    sweep): each call still gets its own chunks' results, identical to calling it alone."""
    from concurrent.futures import ThreadPoolExecutor

    v = np.random.default_rng(12).uniform(-1, 1, (20_000, 5)) / 3  # work above the split: two chunks
    serial = [duchi_channel_sum(v, level=0.5 + i / 10, r=1.0, trials=8, rng=i) for i in range(6)]
    with ThreadPoolExecutor(6) as ex:
        parallel = list(ex.map(lambda i: duchi_channel_sum(v, level=0.5 + i / 10, r=1.0, trials=8, rng=i), range(6)))
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)
    assert duchi_mod._pool() is duchi_mod._pool()  # one pool per process, started once


@pytest.mark.parametrize("n,m,trials", [(50, 1, 3), (20_000, 5, 8), (700, 3, 1)])
def test_per_user_channel_written_in_place_equals_its_chunks_drawn_apart(n, m, trials):
    """The per-user channel draws every chunk's normals straight into its slice of one array; that is
    the same as drawing each chunk on its own and concatenating (the form it replaced), and
    ``duchi_directions`` is the same draw before the scaling by B."""
    from hetdp_core.per_feature.duchi import duchi_directions

    v = np.random.default_rng(n).uniform(-1, 1, (n, m)) / np.sqrt(m)
    v[0] = 0.0  # a zero row takes the random-direction branch
    U, pS = duchi_mod._prepare(v, 1.0)
    pK = duchi_mod.coin_probability(0.8)
    bounds = duchi_mod._chunks(trials, max(1, (duchi_mod._CHUNK_CELLS // 4) // (n * m)), trials * n * m)
    children = duchi_mod.bulk_streams(np.random.default_rng(9), len(bounds))
    apart = np.concatenate(
        [duchi_mod._oriented_directions(g, U, pS, pK, e - s, np.float64, False) for g, (s, e) in zip(children, bounds)]
    )
    B = duchi_mod.duchi_B(level=0.8, m=m, r=1.0)
    np.testing.assert_array_equal(
        duchi_channel(v, level=0.8, r=1.0, trials=trials, rng=9), B * apart.transpose(0, 2, 1)
    )
    B2, units = duchi_directions(v, level=0.8, r=1.0, trials=trials, rng=9)
    assert B2 == B
    np.testing.assert_array_equal(units, apart)


def test_mmean_release_equals_the_weighted_sum_of_its_stage_channels():
    """M_mean scales each stage's directions into its output without temporaries: the same numbers
    as Σ_j ω_j ⊙ duchi_channel(stage j) in a C-ordered array (the order the products downstream read)."""
    from hetdp_core.per_feature.duchi import spawn
    from hetdp_core.per_feature.mmean import _weights_matrix, mmean_stages

    x = q_mixture_data(n=3000, d=4, q=0.2, rng=3)
    a = privacy_allocation(demands=[0.3, 1.0, 2.0, 2.0], eps=2.0, q=0.2)
    xs = x[:, a.order]
    got = mmean_release(xs, c_sorted=a.c_sorted, trials=5, rng=4)
    stages = mmean_stages(a.c_sorted)
    omega, _ = _weights_matrix(stages, 4)
    want = np.zeros((5, 3000, 4))
    for j, (st, g) in enumerate(zip(stages, spawn(np.random.default_rng(4), len(stages)))):
        Y = duchi_channel(xs[:, st.start :], level=st.level, r=np.sqrt(st.dims), trials=5, rng=g)
        want[:, :, st.start :] += omega[j, st.start :] * Y
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- Box–Muller normals of the summed channel
def _standard_normal_rows(g) -> tuple[bool, str]:
    """Rows of ``g`` (t, m, n) look like independent N(0, 1): every row's KS p-value ≥ 1e-4
    (2·10⁵ values a row), and within 4.5 SE: E[x] = 0, E[x²] = 1, E[x⁴] = 3, E[x_i x_j] = 0 and
    E[x_i² x_j²] = 1 for every pair of rows (the cosine and sine of one pair and different pairs)."""
    from scipy import stats as st

    m = g.shape[1]
    rows = [g[:, i, :].ravel().astype(np.float64) for i in range(m)]
    for i, x in enumerate(rows):
        p = st.kstest(x, "norm").pvalue
        if p < 1e-4:
            return False, f"row {i}: KS p = {p:.2g}"
        for name, val, target in (("x", x, 0.0), ("x^2", x**2, 1.0), ("x^4", x**4, 3.0)):
            ok, dev = mean_within_ci(val, target)
            if not ok:
                return False, f"row {i}: E[{name}] off by {float(dev):.1f} SE"
    for i in range(m):
        for j in range(i + 1, m):
            for name, val, target in (("xy", rows[i] * rows[j], 0.0), ("x2y2", rows[i] ** 2 * rows[j] ** 2, 1.0)):
                ok, dev = mean_within_ci(val, target)
                if not ok:
                    return False, f"rows {i},{j}: E[{name}] off by {float(dev):.1f} SE"
    return True, ""


def _box_muller_block(m, rng):
    g = np.empty((200, m, 1000), dtype=np.float32)
    u = np.empty((200, 2 * ((m + 1) // 2), 1000), dtype=np.float32)
    return duchi_mod._box_muller(rng, g, u)


@pytest.mark.parametrize("m", [1, 2, 5, 10])
def test_box_muller_gives_independent_standard_normals(m):
    """The summed channel's normals (Box–Muller from float32 uniforms, odd m included)."""
    ok, why = _standard_normal_rows(_box_muller_block(m, np.random.Generator(np.random.SFC64(2026))))
    assert ok, why


class _BrokenUniforms:
    """A generator whose uniforms are broken in a stated way, for the power checks below."""

    def __init__(self, how):
        self.g, self.how = np.random.Generator(np.random.SFC64(2026)), how

    def random(self, *, out, dtype):
        self.g.random(out=out, dtype=dtype)
        h = out.shape[1] // 2
        if self.how == "half-range":  # uniforms on [0, 1/2): radii too large, angles in [0, π)
            out *= 0.5
        elif self.how == "shared":  # the angle reuses the radius's uniform: the pair is dependent
            out[:, h:] = out[:, :h]
        elif self.how == "coarse":  # 2⁸ levels instead of 2²⁴: a visibly discrete law
            np.floor(out * 256, out=out)
            out /= 256
        return out


@pytest.mark.parametrize("how", ["half-range", "shared", "coarse"])
def test_normal_checks_catch_broken_uniforms(how):
    ok, _ = _standard_normal_rows(_box_muller_block(4, _BrokenUniforms(how)))
    assert not ok, f"the checks passed normals made from {how} uniforms"
