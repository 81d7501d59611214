"""Plan A vs plan B: pin the current view, change it, compare; both plans in the URL."""

import math

import pytest
from conftest import ROOT, page_path
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import specs
from hetdp_core.reading.compare import compare
from hetdp_core.scenarios import get
from hetdp_ui.chart_element import charts, spec_of

CASES = [
    ("Feature_privacy", "feature_privacy", {"trials": "5", "n": "500"}, ("slider", "feature_privacy_q", 0.5)),
    ("Per_user_privacy", "per_user_privacy", {"trials": "20"}, ("slider", "per_user_privacy_beta", 0.2)),
]


@pytest.mark.parametrize("spec", specs(), ids=lambda s: s.url)
def test_every_page_offers_plan_a_vs_plan_b(spec):
    """Every registered page pins a plan A and compares it with the current view (its own key
    numbers, or those of its spec's key tables): move sidebar sliders to their other end until a
    quantity is in both plans."""
    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=180)
    at.query_params.update(dict(spec.fast_query))
    at.run()
    at.button(key=f"{spec.slug}_pin_set").click().run()
    assert at.query_params.get("pin")
    candidates = [
        w.key
        for w in [*at.sidebar.slider, *at.sidebar.number_input]
        if (w.key or "").startswith(spec.slug + "_")
        and w.key[len(spec.slug) + 1 :] not in ("n", "trials", "runs", "steps", "seed", "k")
    ]
    diff = None
    for key in candidates:  # a move that keeps some quantity in both plans (k changes the groups)
        s = next(w for w in [*at.sidebar.slider, *at.sidebar.number_input] if w.key == key)
        s.set_value(s.max if s.value != s.max else s.min).run()
        assert not at.exception, [e.value for e in at.exception]
        table = _ab_table(at)
        assert table is not None and len(table) >= 1, spec.url
        diff = table.dropna(subset=["B − A"])
        if len(diff):
            break
    assert diff is not None and len(diff) >= 1, spec.url
    assert (diff["B − A"] - (diff["plan B"] - diff["plan A"])).abs().max() < 1e-12


def _page(name):
    return AppTest.from_file(str(page_path(name)), default_timeout=120)


def _ab_table(at):
    tables = [d.value for d in at.dataframe if "plan A" in d.value.columns]
    return tables[0] if tables else None


@pytest.mark.parametrize("page,key,query,change", CASES, ids=[c[0] for c in CASES])
def test_pin_change_and_compare(page, key, query, change):
    at = _page(page)
    at.query_params.update(query)
    at.run()
    assert _ab_table(at) is None
    at.button(key=f"{key}_pin_set").click().run()
    pin = at.query_params.get("pin")
    assert pin and "seed=" in pin  # plan A lives in the URL
    kind, wkey, value = change
    getattr(at, kind)(key=wkey).set_value(value).run()
    assert not at.exception and not at.error
    table = _ab_table(at)
    assert table is not None and len(table) >= 3
    diff = table.dropna(subset=["B − A"])
    assert (diff["B − A"] - (diff["plan B"] - diff["plan A"])).abs().max() < 1e-12
    assert (diff["B − A"].abs() > 0).any()  # the change shows
    overlaid = [c for c in charts(at) if "plan A" in spec_of(c)]
    assert len(overlaid) >= (3 if page == "Feature_privacy" else 4)  # the figures show plan A too
    # a shared link with both plans opens the same comparison in a new session
    fresh = _page(page)
    fresh.query_params.update({**{k: str(v) for k, v in at.query_params.items()}})
    fresh.run()
    assert not fresh.exception
    t2 = _ab_table(fresh)
    assert t2 is not None and t2["quantity"].tolist() == table["quantity"].tolist()
    # unpin
    at.button(key=f"{key}_pin_clear").click().run()
    assert _ab_table(at) is None and "pin" not in at.query_params


@pytest.mark.parametrize("page,key,query,change", CASES, ids=[c[0] for c in CASES])
def test_malformed_pin_is_ignored_with_a_message_and_the_view_is_kept(page, key, query, change):
    at = _page(page)
    at.query_params.update({**query, "pin": "trials=abc&n=-5"})
    at.run()
    assert not at.exception and not at.error
    assert any("URL parameter 'pin' (plan A) ignored" in w.value and "unchanged" in w.value for w in at.warning)
    assert _ab_table(at) is None and at.query_params.get("trials") == query["trials"]


def test_compare_table_handles_quantities_in_one_plan_only():
    t = compare({"a": 1.0, "b": 2.0}, {"b": 3.0, "c": 4.0})
    assert t["quantity"].tolist() == ["a", "b", "c"]
    assert t.loc[1, "B − A"] == 1.0 and math.isnan(t.loc[0, "B − A"]) and math.isnan(t.loc[2, "plan A"])


def test_key_numbers_name_guarantees_and_accuracy():
    fp = get("Feature_privacy")
    nums = fp.key_numbers(fp.run(fp.SCENARIO.from_query({"trials": "5", "n": "500"})))
    assert "LDP level delivered c_d" in nums and any(k.startswith("guaranteed δ'") for k in nums)
    assert any(k.startswith("median squared error") for k in nums)
    # in everyday units too: a squared error T over d features is ± √(T/d) on each feature's mean
    for k, v in nums.items():
        if k.startswith("median squared error"):
            typical = nums[k.replace("median squared error", "typical error of one feature's mean (± √(T/d))")]
            assert typical == pytest.approx(math.sqrt(v / 10))
    fd = fp.run(fp.SCENARIO.from_query({"trials": "5", "n": "500", "axis": "d", "points": "5,20"}))
    nd = fp.key_numbers(fd)
    for d in (5, 20):
        t = next(v for k, v in nd.items() if k.startswith("median squared error") and k.endswith(f"d = {d}"))
        e = next(v for k, v in nd.items() if k.startswith("typical error") and k.endswith(f"d = {d}"))
        assert e == pytest.approx(math.sqrt(t / d))
