"""A page's quick part (the ``quick`` hook: what the app shows before the simulations, issue 51) is its run's
own: every field it computed equals the run's on the default view, the example view and every preset,
and the run leaves no field PENDING. A staged result serves the quick part without running the
simulations, and runs them the first time anything else is read."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from hetdp_core.framework.registry import hook, pages
from hetdp_core.framework.scenario import PENDING, pending_fields

QUICK = {url: m for url, m in pages().items() if hook(m, "quick") is not None}


def same(a, b) -> bool:
    """Equal values, NaN equal to NaN: tables, arrays, dataclasses, containers, numbers."""
    if isinstance(a, pd.DataFrame) or isinstance(b, pd.DataFrame):
        return isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame) and a.equals(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and (
            np.array_equal(a, b, equal_nan=a.dtype.kind == "f") if a.dtype.kind in "fiub" else (a == b).all()
        )
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _views(module):
    spec = module.PAGE_SPEC
    from urllib.parse import parse_qsl

    yield "default", module.SCENARIO()
    yield "example", module.SCENARIO.from_query(dict(parse_qsl(spec.example_query)))
    yield from module.PRESETS.items()


def test_the_pages_with_a_quick_part():
    """Every analysis page shows its quick part first (Group-wise zCDP's is all but its costly part:
    Algorithm 1's divergences over the group sizes)."""
    assert set(QUICK) == {
        "Feature_privacy",
        "Per_user_privacy",
        "Groupwise_zCDP",
        "BCDP_guarantee_lab",
        "Private_regression",
        "Mechanism_lab",
        "DP_SGD_schedules",
    }


@pytest.mark.parametrize("url", sorted(QUICK))
def test_the_quick_part_is_the_runs_own(url):
    module = QUICK[url]
    for label, s in _views(module):
        q, r = module.quick(s), module.run(s)
        assert pending_fields(r) == (), (url, label)
        computed = [f.name for f in dataclasses.fields(q) if getattr(q, f.name) is not PENDING]
        assert "checks" in computed or "checks" in pending_fields(q)
        for name in computed:
            assert same(getattr(q, name), getattr(r, name)), f"{url} ({label}): quick's {name} differs from the run's"
        assert pending_fields(q), f"{url}: a quick part that computes everything is the run"


def test_a_quick_part_refuses_what_the_run_refuses():
    from hetdp_core.framework.scenario import InputError
    from hetdp_core.scenarios import feature_privacy as fp

    huge = fp.SCENARIO(n=200_000, trials=2000, points=tuple(np.linspace(0, 1, 30)))
    with pytest.raises(InputError, match="compute budget"):
        fp.quick(huge)
    with pytest.raises(TypeError, match="needs a FeaturePrivacy"):
        fp.quick(QUICK["Mechanism_lab"].SCENARIO())


def test_a_per_user_quick_part_refuses_a_histogram_of_one_bin_as_the_run_does():
    """A frequency upload whose values are all one bin (k = 1) is refused by the quick part, before any
    chart is drawn from weights for two bins — also with only the baselines selected, whose weights
    never look at k."""
    from hetdp_core.framework.scenario import InputError, RunOptions
    from hetdp_core.scenarios import per_user_privacy as pu

    one_bin = b"bin\n" + b"0\n" * 50
    for algs in (("CP", "UNI"), ("UNI", "PROP", "SM")):
        s = pu.SCENARIO(dataset="upload", problem="frequency", demand="groups", algs=algs, trials=20)
        for step in (pu.quick, pu.run):
            with pytest.raises(InputError, match="k .*number of bins"):
                step(s, options=RunOptions(upload=one_bin))


def test_a_per_user_view_computes_its_quick_part_once_for_the_quick_part_and_the_run(monkeypatch):
    """The app computes a view's quick part and then its run, which begins with the same part: the
    weights are solved once for both (the second is the memo's), and the run's result is the one computed
    without the memo; an upload's quick part is computed each time (its bytes are not kept)."""
    from hetdp_core.framework.memo import clear_memoised
    from hetdp_core.framework.scenario import RunOptions
    from hetdp_core.per_user import hetero as ht
    from hetdp_core.scenarios import per_user_privacy as pu

    solved = []
    weights = ht.weights
    monkeypatch.setattr(ht, "weights", lambda *a, **kw: solved.append(kw["algorithm"]) or weights(*a, **kw))
    s = pu.SCENARIO(trials=20, n=20_000)
    methods = [a for a in s.algs if a in ht.WEIGHTED]
    q = pu.quick(s, options=RunOptions())
    r = pu.run(s, options=RunOptions())
    assert solved == methods
    assert same(q.weightings, r.weightings) and same(q.hetero_weights, r.hetero_weights)
    clear_memoised()
    alone = pu.run(s, options=RunOptions())
    assert solved == methods * 2
    assert same(alone, r)
    upload = b"bin\n" + b"".join(b"%d\n" % (i % 4) for i in range(200))
    u = dataclasses.replace(s, dataset="upload", n=1000)
    for _ in range(2):
        pu.quick(u, options=RunOptions(upload=upload))
    assert solved == methods * 4


@pytest.mark.parametrize("view", ["default", "Synthetic mean, groups with 1 % public users"])
def test_the_per_user_run_simulates_as_without_the_quick_parts_weights(view):
    """The run hands each weighted method the weights its quick part computed; its releases are those
    the simulation draws when it computes the weights itself (the numbers of the page before its quick
    part)."""
    from hetdp_core.per_user import hetero as ht
    from hetdp_core.scenarios import per_user_privacy as pu

    s = pu.SCENARIO(trials=30) if view == "default" else dataclasses.replace(pu.PRESETS[view], trials=30)
    r = pu.run(s)
    x, k, _ = pu.load_data(s)
    assert set(r.weightings) == {a for a in s.algs if a in ht.WEIGHTED} != set()
    for alg in s.algs:
        errors, alone = pu._one((alg, None), s=s, x=x, demands=s.demands(x), k=k)  # no weights handed in
        assert np.array_equal(r.hetero_errors[alg].to_numpy(), errors), alg
        assert np.array_equal(np.asarray(r.infos[alg].estimates), np.asarray(alone.estimates)), alg


def test_a_partial_result_names_every_field_once():
    from hetdp_core.framework.scenario import partial_result
    from hetdp_core.scenarios import feature_privacy as fp

    s = fp.SCENARIO()
    with pytest.raises(TypeError, match="neither"):
        partial_result(fp.FeaturePrivacyResult, s, pending=("bcdp_mse_summary",))
    with pytest.raises(TypeError, match="unknown"):
        partial_result(fp.FeaturePrivacyResult, s, pending=("no_such_field",))


def test_a_staged_result_serves_its_quick_part_and_finishes_once():
    from hetdp_core.scenarios import feature_privacy as fp
    from hetdp_ui.figcache import _fp
    from hetdp_ui.staged import Staged

    s = fp.SCENARIO(trials=5, n=500)
    calls = []

    def finish():
        calls.append(1)
        return fp.run(s)

    staged = Staged(fp.quick(s), finish)
    assert staged.alloc is staged.quick.alloc and staged.meaning is staged.quick.meaning
    assert _fp(staged) == ("result", id(staged)) and not calls  # the figure memo does not finish it
    assert not staged.done
    summary = staged.bcdp_mse_summary  # a simulated field: the run, once
    assert calls == [1] and staged.done and isinstance(summary, pd.DataFrame)
    assert "bcdp_mse_summary" in staged.tables() and calls == [1]  # methods are the run's
    assert same(staged.full().bcdp_guarantee, staged.bcdp_guarantee)


def test_a_memo_keeps_a_staged_result_without_finishing_it_and_counts_its_run_once_here():
    """The run cache keeps one staged result per view (``runs().staged``). Its size count asked the result
    for ``nbytes`` and ``memory_usage``, which once started the whole simulation as it was stored —
    defeating the quick part for every view not yet computed. A name the result class lacks now raises
    AttributeError at once; the memo counts the quick part, then the whole run once it is here."""
    from hetdp_core.framework.memo import Memo, size_of
    from hetdp_core.scenarios import feature_privacy as fp
    from hetdp_ui.staged import Staged

    s = fp.SCENARIO(trials=5, n=500)
    calls, memo = [], Memo(2**30)

    def finish():
        calls.append(1)
        return fp.run(s)

    staged = memo.get_or_compute("view", lambda: Staged(fp.quick(s), finish, on_full=lambda x: memo.put("view", x)))
    assert not calls and not staged.done, "storing the staged result ran the simulation"
    for name in ("nbytes", "memory_usage", "columns", "dtype", "no_such_field"):
        assert not hasattr(staged, name)
    assert not calls
    quick_bytes = memo.bytes
    assert 0 < quick_bytes < size_of(staged.quick) + 10_000
    staged.bcdp_mse_summary  # noqa: B018 — a simulated field: the whole run
    assert calls == [1] and memo.bytes == size_of(staged) > quick_bytes + size_of(staged.full()) // 2


def test_small_runs_execute_in_process_and_large_ones_in_their_child():
    from hetdp_core.framework.scenario import LARGE_BUDGET, Cost
    from hetdp_ui.limits import IN_PROCESS, in_process

    assert in_process(Cost(seconds=0.5, bytes=10 * 2**20))
    assert not in_process(Cost(seconds=IN_PROCESS.seconds * 1.01, bytes=1))
    assert not in_process(Cost(seconds=0.1, bytes=IN_PROCESS.bytes + 1))
    assert not in_process(Cost(seconds=0.1, bytes=1), budget=None)  # no budget: the caller runs it itself
    assert in_process(Cost(seconds=0.1, bytes=1), budget=LARGE_BUDGET)


def test_a_costly_quick_part_is_not_computed_outside_the_limits(monkeypatch):
    """A quick part runs in the script's thread, outside the admission queue and the child's limits: the
    app computes it first only when its cost (the ``quick_cost`` hook: the BCDP lab's enumeration, 4^d
    cells) is small enough to run in-process; otherwise the view runs whole through the limits."""
    from hetdp_core.framework.scenario import Budget
    from hetdp_core.scenarios import bcdp_guarantee_lab as lab
    from hetdp_core.scenarios import feature_privacy as fp
    from hetdp_ui import execution, limits

    big = lab.SCENARIO(rr_c=(0.3,) * 10, test_source="rr")
    assert execution.quick_first(lab.SCENARIO()) and execution.quick_first(big)  # ≤ 1 s: in-process
    assert lab.quick_cost(big).seconds <= big.estimate().seconds
    monkeypatch.setattr(limits, "IN_PROCESS", Budget(seconds=0.5, bytes=2**30, name="in-process"))
    assert not execution.quick_first(big)  # 4^10 × 21 q values × 3e-8 s: 0.66 s estimated
    assert execution.quick_first(lab.SCENARIO()) and execution.quick_first(fp.SCENARIO(trials=2000, n=100_000))


def test_a_tables_size_is_its_buffers_without_pandas_memory_usage():
    """size_of sizes a table from its column types and buffers (pandas' memory_usage cost 0.6 ms a table,
    at every put of a cached run): numbers, pandas' Arrow text and categories exactly as pandas' deep count,
    a column of Python objects or Python strings estimated from a sample, never below its pointers."""
    import numpy as np
    import pandas as pd

    from hetdp_core.framework.memo import size_of

    df = pd.DataFrame(
        {
            "x": np.arange(300.0),
            "n": np.arange(300),
            "method": ["M_mean (BCDP)", "min-δ LDP", "UNI"] * 100,
            "c": pd.Categorical(["a", "b", "c"] * 100),
            "ok": np.ones(300, bool),
        },
        index=pd.Index(np.arange(300) * 2),
    )
    assert size_of(df) == int(df.memory_usage(deep=True, index=True).sum())
    objects = pd.DataFrame({"o": pd.Series([(1, 2), {"a": 1}, "text"] * 50, dtype=object)})
    exact = int(objects.memory_usage(deep=True, index=True).sum())
    assert 8 * 150 < size_of(objects) and 0.5 * exact < size_of(objects) < 3 * exact
    text = pd.DataFrame({"t": pd.array(["a longer piece of text"] * 200, dtype="string[python]")})
    exact = int(text.memory_usage(deep=True, index=True).sum())
    assert 0.5 * exact < size_of(text) < 3 * exact
    assert size_of(pd.DataFrame()) > 0 and size_of(df.iloc[:0]) >= 0


def test_a_frozen_result_is_sized_once_while_it_lives_and_afresh_after():
    """size_of keeps a frozen dataclass's size by identity while the object lives (every memo that keeps
    something derived from a result sizes it again at every put); a new object, even one that takes a
    dead one's identity, is sized afresh, and a mutable dataclass is never kept."""
    import dataclasses
    import gc

    from hetdp_core.framework import memo

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: object

    @dataclasses.dataclass
    class Loose:
        a: object

    one = Frozen(np.zeros(1000))
    assert memo.size_of(one) == memo.size_of(Frozen(np.zeros(1000))) > 8000
    assert id(one) in memo._FROZEN_SIZES
    key = id(one)
    del one
    gc.collect()
    assert key not in memo._FROZEN_SIZES  # gone with its object
    assert memo.size_of(Frozen(np.zeros(10))) < 1000  # sized, not read from a dead object's entry
    # counted first deep inside a container, where the depth limit cuts the count short, then by itself: in full
    deep = Frozen(Frozen(np.zeros(1000)))
    assert memo.size_of([[[[deep]]]]) < 8000 < memo.size_of(deep) == memo.size_of(Frozen(Frozen(np.zeros(1000))))
    loose = Loose(np.zeros(1000))
    first = memo.size_of(loose)
    loose.a = np.zeros(10)
    assert memo.size_of(loose) < first and id(loose) not in memo._FROZEN_SIZES
