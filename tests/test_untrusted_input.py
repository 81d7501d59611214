"""Every hostile input that used to reach the user as a traceback or exhaust
the machine now gives a clear message naming the input — on the page (AppTest) and in the CLI."""

import json
import time
import tracemalloc

import pytest
from conftest import page_path
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.scenario import PAGE_BUDGET
from hetdp_ui.cli import main


def page_run(page: str, query: dict, text: dict | None = None) -> tuple[AppTest, float, int]:
    """Run a page with URL parameters (and then typed text); returns (app, seconds, peak bytes)."""
    at = AppTest.from_file(str(page_path(page)), default_timeout=120)
    at.query_params.update(query)
    t0 = time.perf_counter()
    tracemalloc.start()
    try:
        at.run()
        for key, value in (text or {}).items():
            at.text_input(key=key).set_value(value).run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return at, time.perf_counter() - t0, peak


def messages(at) -> str:
    assert not at.exception, [e.value for e in at.exception]
    return " | ".join([e.value for e in at.error] + [w.value for w in at.warning])


# ------------------------------------------------------------------ Feature privacy
def test_feature_privacy_repeated_sweep_points():
    at, _, _ = page_run("Feature_privacy", {"trials": "5", "n": "500"}, {"feature_privacy_points": "0,0,0"})
    assert "sweep points" in messages(at) and "distinct" in messages(at)
    at, _, _ = page_run("Feature_privacy", {"trials": "5", "n": "500", "points": "0,0,0"})
    assert "points (sweep points) must be distinct" in messages(at)


def test_feature_privacy_denormal_table_entry():
    at, _, _ = page_run(
        "Feature_privacy", {"mode": "Per-feature table", "trials": "5", "n": "500"}, {"feature_privacy_table": "1e-320"}
    )
    assert "table (δ per feature) entry 1 must be in [0.001, 700]" in messages(at)


# ------------------------------------------------------------------ BCDP guarantee lab
@pytest.mark.parametrize("value", ["0.01", "50"])
def test_lab_translator_eps_outside_the_slider(value):
    at, _, _ = page_run("BCDP_guarantee_lab", {"tr_eps": value})
    msg = messages(at)
    assert "URL parameter 'tr_eps' ignored" in msg and "[0.1, 20]" in msg
    from hetdp_core.scenarios import get

    assert at.slider(key="bcdp_guarantee_lab_tr_eps").value == get("BCDP_guarantee_lab").SCENARIO.defaults()["tr_eps"]


RR_TEXT = [
    "",
    "nan",
    "inf",
    "-1",
    "1e308",
    ",,,",
    ",".join(["1"] * 11),
    ",".join(["1"] * 5000),
    "abc",
    "1,,2",
    "-inf",
    "11",
    "1e-320,1",
    "1;2",
    "[1, 2]",
]


@pytest.mark.parametrize("value", RR_TEXT, ids=[v[:12] or "empty" for v in RR_TEXT])
def test_lab_randomized_response_levels_text(value):
    at, _, _ = page_run("BCDP_guarantee_lab", {}, {"bcdp_guarantee_lab_rr_c": value})
    msg = messages(at)
    if value == "1e-320,1":  # a denormal level is a valid level (≥ 0)
        return
    assert "RR levels" in msg, msg


# ------------------------------------------------------------------ Group-wise zCDP
@pytest.mark.parametrize("value", ["51", "200"])
def test_zcdp_group_count_above_the_slider(value):
    at, _, _ = page_run("Groupwise_zCDP", {"k": value, "trials": "50"})
    msg = messages(at)
    assert "URL parameter 'k' ignored" in msg and "[1, 50]" in msg
    assert at.slider(key="groupwise_zcdp_k").value <= 50


@pytest.mark.parametrize("algorithm", ["1", "2"])
@pytest.mark.parametrize("value", ["1e300", "1e308"])
def test_zcdp_huge_counts(algorithm, value):
    at, _, _ = page_run(
        "Groupwise_zCDP", {"mode": "List", "algorithm": algorithm, "trials": "50"}, {"groupwise_zcdp_counts": value}
    )
    msg = messages(at)
    assert "counts per group" in msg and "1e+09" in msg, msg


# ------------------------------------------------------------------ Mechanism lab
def test_mechanism_lab_even_median_size():
    at, _, _ = page_run("Mechanism_lab", {"med_n": "4"})
    msg = messages(at)
    assert "med_n" in msg and "odd" in msg, msg


def test_mechanism_lab_huge_simulation_is_refused_within_the_budget():
    at, secs, peak = page_run("Mechanism_lab", {"n": "100000", "trials": "50000"})
    msg = messages(at)
    assert "compute budget" in msg and "n" in msg and "trials" in msg, msg
    assert secs < 10 and peak < PAGE_BUDGET.bytes  # was 44 s and 7.9 GB


def test_mechanism_lab_5000_scores_is_refused_fast():
    at, secs, _ = page_run(
        "Mechanism_lab", {"tab": "Exponential mechanism"}, {"mechanism_lab_scores": ",".join(["1"] * 5000)}
    )
    msg = messages(at)
    assert "scores" in msg, msg
    assert secs < 15  # was 112 s


# ------------------------------------------------------------------ Per-user privacy
def test_per_user_cvxpy_at_200000_users_is_refused():
    at, secs, _ = page_run("Per_user_privacy", {"solver": "cvxpy", "n": "200000", "trials": "20"})
    msg = messages(at)
    assert "compute budget" in msg and "cvxpy" in msg, msg
    assert secs < 10  # was 36 s


# ------------------------------------------------------------------ CLI
def cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("algorithm", ["1", "2"])
def test_cli_zcdp_huge_rho(algorithm, capsys):
    code, _, err = cli(
        ["zcdp", "renyi", "--algorithm", algorithm, "--x", "10", "--r", "0.2", "--rho", "1e308", "--alpha", "2"], capsys
    )
    assert code == 2 and err.count("\n") == 1 and err.startswith("hetdp: error: rho must be in")


@pytest.mark.parametrize("algorithm", ["1", "2"])
def test_cli_zcdp_huge_group(algorithm, capsys):
    code, _, err = cli(
        ["zcdp", "renyi", "--algorithm", algorithm, "--x", "1e308", "--r", "0.2", "--rho", "1", "--alpha", "2"], capsys
    )
    assert code == 2 and err.count("\n") == 1 and "x" in err and "1e+12" in err and "Traceback" not in err


def test_cli_regression_json_says_why_a_value_is_null(capsys):
    """When f̂ is not convex every run stops: strict JSON (null, never NaN) and the reason."""
    code, out, _ = cli(
        ["run", "Private_regression", "--query", "k=6&delta=0.1&eps=0.1&trials=2&n=1000&steps=20", "--json"], capsys
    )
    doc = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    rows = doc["tables"]["regression_excess_risk"]
    nulls = [r for r in rows if r["median"] is None]
    assert nulls, "this setting should stop some runs (f̂ not convex)"
    assert all("not convex" in r["reason"] for r in nulls)
    assert all(r["reason"] is None for r in rows if r["median"] is not None)
