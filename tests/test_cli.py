"""The hetdp command line: JSON contract, exit codes, one-line errors."""

import math
import os
import subprocess
import sys

import pytest
from conftest import strict_json

from hetdp_ui.cli import main

HETDP = [sys.executable, "-m", "hetdp_ui.cli"]


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_c_vector_json_shape_and_user_order(capsys):
    code, out, err = run(["bcdp", "c-vector", "--delta", "2,0.2,inf,2", "--eps", "2", "--q", "0.3", "--json"], capsys)
    assert code == 0 and err == ""
    d = strict_json(out)
    assert set(d) >= {"c", "ldp_level", "guarantee"}
    assert len(d["c"]) == 4 and d["c"][1] < d["c"][0] == d["c"][3]
    assert [g["demand"] for g in d["guarantee"]] == [2.0, 0.2, None, 2.0]  # strict JSON: ∞ is null …
    assert d["non_finite"]["/guarantee/2/demand"] == "+Infinity"  # … and says what it was
    assert all(g["ok"] and g["guaranteed"] <= (g["demand"] or math.inf) + 1e-9 for g in d["guarantee"])


def test_c_vector_text_output(capsys):
    code, out, _ = run(["bcdp", "c-vector", "--delta", "0.2,2", "--eps", "2", "--q", "0"], capsys)
    assert code == 0 and "pass" in out and "zeta" in out


def test_mse_json_shape(capsys):
    code, out, _ = run(
        [
            "bcdp",
            "mse",
            "--n",
            "500",
            "--d",
            "3",
            "--eps",
            "2",
            "--delta",
            "0.2,2,2",
            "--q",
            "0.1,1",
            "--trials",
            "7",
            "--seed",
            "3",
            "--json",
        ],
        capsys,
    )
    assert code == 0
    d = strict_json(out)
    assert d["params"]["n"] == 500 and len(d["results"]) == 2
    for r in d["results"]:
        assert {"q", "seconds", "mmean", "baseline"} <= set(r)
        for k in ("mmean", "baseline"):
            assert len(r[k]["errors"]) == 7
            assert r[k]["q25"] <= r[k]["median"] <= r[k]["q75"]


def test_mse_is_reproducible_by_seed(capsys):
    args = [
        "bcdp",
        "mse",
        "--n",
        "300",
        "--eps",
        "1",
        "--delta",
        "0.3,1",
        "--q",
        "0.2",
        "--trials",
        "5",
        "--seed",
        "9",
        "--json",
    ]
    a = strict_json(run(args, capsys)[1])["results"][0]["mmean"]["errors"]
    b = strict_json(run(args, capsys)[1])["results"][0]["mmean"]["errors"]
    assert a == b


def test_reproduce_writes_csv_and_html(tmp_path, capsys):
    code, out, _ = run(["reproduce", "fig4a", "--out", str(tmp_path), "--n", "300", "--trials", "5", "--json"], capsys)
    assert code == 0
    info = strict_json(out)
    names = {p.split("/")[-1] for p in info["files"]}
    assert {"fig4a_published.html", "fig4a_published_summary.csv", "fig4a_published_errors.csv"} <= names
    html = (tmp_path / "fig4a_published.html").read_text()
    assert "plotly" in html.lower() and len(html) > 100_000  # standalone (plotly.js inlined)


CORE_BAD = [
    (
        ["bcdp", "c-vector", "--delta", "0.2,-1", "--eps", "2", "--q", "0.1"],
        "demands (per-feature demands δ_i) entry 2 must be in (0, 700]",
    ),
    (
        ["bcdp", "c-vector", "--delta", "0.2,nan", "--eps", "2", "--q", "0.1"],
        "demands (per-feature demands δ_i) entry 2 must be a number; got NaN",
    ),
    (
        ["bcdp", "c-vector", "--delta", "0.2,abc", "--eps", "2", "--q", "0.1"],
        "demands (per-feature demands δ_i) entry 2 must be a number; got 'abc'",
    ),
    (["bcdp", "c-vector", "--delta", "0.2", "--eps", "2", "--q", "1.5"], "q (correlation bound q) must be in [0, 1]"),
    (["bcdp", "c-vector", "--delta", "0.2", "--eps", "2", "--q", "0.5", "--zeta", "0"], "must be in (0, 1]; got 0"),
    (["bcdp", "c-vector", "--delta", "0.2", "--eps", "inf", "--q", "0.5"], "eps (global LDP level ε) must be finite"),
    (
        ["bcdp", "mse", "--n", "100", "--d", "3", "--eps", "2", "--delta", "0.2,2", "--q", "0.1"],
        "d is 3 but demands has 2 entries",
    ),
    (
        ["bcdp", "mse", "--n", "100", "--eps", "2", "--delta", "0.2,2", "--q", "0.1", "--trials", "0"],
        "trials (Monte Carlo trials) must be in [1, ",
    ),
    (
        [
            "bcdp",
            "mse",
            "--n",
            "200000",
            "--eps",
            "2",
            "--delta",
            ",".join(["0.2"] * 60),
            "--q",
            "0.1",
            "--trials",
            "100000",
        ],
        "compute size",
    ),
]


def test_installed_entry_point_and_argparse_errors():
    """Through a real process: malformed flags exit 2 (argparse), no traceback."""
    p = subprocess.run(HETDP + ["bcdp", "c-vector", "--delta"], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    p = subprocess.run(
        HETDP + ["bcdp", "c-vector", "--delta", "0.2", "--eps", "x", "--q", "0"], capture_output=True, text=True
    )
    assert p.returncode == 2 and "eps (global LDP level ε) must be a number" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run(
        HETDP + ["bcdp", "c-vector", "--delta", "0.2,0.1", "--eps", "1", "--q", "0", "--json"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0 and strict_json(p.stdout)["all_ok"] is True


def test_zcdp_renyi_json_contract(capsys):
    code, out, _ = run(
        ["zcdp", "renyi", "--algorithm", "2", "--x", "10", "--r", "0.1", "--rho", "1", "--alpha", "1.5,2,6", "--json"],
        capsys,
    )
    assert code == 0
    d = strict_json(out)
    assert {"alpha", "up", "down", "claimed"} <= set(d)
    assert d["alpha"] == [1.5, 2.0, 6.0] and d["down"][2] is None  # an infinite divergence: null …
    assert d["non_finite"]["/down/2"] == "+Infinity"  # … with what it was
    assert d["violated"][0] is True and d["holds"] is False


def test_zcdp_renyi_algorithm1_and_release(capsys):
    code, out, _ = run(
        ["zcdp", "renyi", "--algorithm", "1", "--x", "3", "--r", "0.2", "--rho", "0.5", "--alpha", "2,5", "--json"],
        capsys,
    )
    d = strict_json(out)
    assert code == 0 and d["holds"] and all(u <= c for u, c in zip(d["up"], d["claimed"]))
    code, out, _ = run(
        [
            "zcdp",
            "release",
            "--counts",
            "0,3,50",
            "--algorithm",
            "2",
            "--r",
            "0.2",
            "--rho",
            "0.5",
            "--trials",
            "4",
            "--seed",
            "1",
            "--json",
        ],
        capsys,
    )
    d = strict_json(out)
    assert code == 0 and len(d["released"]) == 4 and len(d["released"][0]) == 3
    assert d["released"][0][0] == 0.0  # Algorithm 2 adds no noise to x = 0


@pytest.mark.parametrize(
    "args,fragment",
    [
        (
            ["zcdp", "renyi", "--algorithm", "2", "--x", "-1", "--r", "0.1", "--rho", "1", "--alpha", "2"],
            "x (the group's count) must be in [0, inf)",
        ),
        (
            ["zcdp", "renyi", "--algorithm", "2", "--x", "1.5", "--r", "0.1", "--rho", "1", "--alpha", "2"],
            "whole numbers",
        ),
        (
            ["zcdp", "renyi", "--algorithm", "1", "--x", "3", "--r", "0.1", "--rho", "0", "--alpha", "2"],
            "rho (zCDP level ρ, σ² = 1/(2ρ)) must be in (0, inf)",
        ),
        (
            ["zcdp", "renyi", "--algorithm", "2", "--x", "3", "--r", "0", "--rho", "1", "--alpha", "2"],
            "r (relative error r) must be in (0",
        ),
        (
            ["zcdp", "renyi", "--algorithm", "2", "--x", "3", "--r", "0.1", "--rho", "1", "--alpha", "1"],
            "alpha (Rényi orders α) entry 1 must be in (1, inf)",
        ),
        (["zcdp", "release", "--counts", "1,2.5", "--algorithm", "1", "--r", "0.1", "--rho", "1"], "whole numbers"),
    ],
)
def test_zcdp_bad_input(args, fragment, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == "" and fragment in err and err.count("\n") == 1


def test_bcdp_exact_cli(capsys):
    code, out, _ = run(["bcdp", "exact", "--example", "1", "--json"], capsys)
    d = strict_json(out)
    assert code == 0 and d["bcdp"] == pytest.approx([math.log(2)] * 2) and d["ldp"] is None
    assert d["non_finite"]["/ldp"] == "+Infinity"
    code, out, _ = run(["bcdp", "exact", "--example", "2", "--json"], capsys)
    d = strict_json(out)
    assert d["one_copy"]["bcdp"][0] == 0 and d["two_copies"]["bcdp"][0] is None
    assert d["non_finite"]["/two_copies/bcdp/0"] == "+Infinity"
    code, out, _ = run(["bcdp", "exact", "--example", "rr", "--rr-c", "0.3,0.3", "--q", "0,1", "--json"], capsys)
    rows = strict_json(out)["rows"]
    assert code == 0 and all(r["exact"] <= r["prop4"] + 1e-9 <= r["prop3"] + 2e-9 for r in rows)


def test_regression_cli_is_the_page_run(capsys):
    """``hetdp regression`` builds the Private-regression page's query: same rows as ``hetdp run``."""
    args = ["--delta", "6", "--eps", "8", "--q", "0", "--trials", "2", "--n", "1000", "--axis", "eps"]
    code, out, _ = run(["regression", *args, "--json"], capsys)
    d = strict_json(out)
    assert code == 0 and {r["method"] for r in d["rows"]} >= {"naive single copy"}
    query = "delta=6&eps=8&q=0&trials=2&n=1000&axis=eps"
    assert d["link"].startswith("/Private_regression?")
    code, out, _ = run(["run", "Private_regression", "--query", query, "--json"], capsys)
    page_rows = strict_json(out)["tables"]["regression_excess_risk"]
    assert code == 0 and page_rows == d["rows"]


LAB_BAD = [
    (["bcdp", "exact", "--example", "1", "--a", "1.5"], "a (P(M = 1 given x = (0, 0)), Example 1) must be in [0, 1]"),
    (
        ["bcdp", "exact", "--example", "rr", "--rr-c", ",".join(["0.1"] * 11)],
        "rr_c (RR levels per coordinate) needs 1 to 10 entries",
    ),
    (["regression", "--gamma0", "0"], "gamma0 (γ0) must be in [0.01, 1.99]"),
    (["regression", "--values", "1"], "--values was removed: the sweep points are the page's grids"),
    (["regression", "--theta", "0.5,-0.3"], "--theta was removed"),
]


def test_sgd_theta_json_contract(capsys):
    code, out, _ = run(
        [
            "sgd",
            "theta",
            "--rho",
            "0.5",
            "--kappa",
            "0.8",
            "--eps",
            "2",
            "--sensitivity",
            "3",
            "--steps",
            "4",
            "--json",
        ],
        capsys,
    )
    d = strict_json(out)
    assert code == 0 and d["h"] == [1, 2, 3, 4] and d["theta"][0] == pytest.approx(1.5)
    assert d["eps_release"] == pytest.approx([2 * h**0.8 for h in (1, 2, 3, 4)])


def test_sgd_run_and_mech_cli(capsys):
    code, out, _ = run(["sgd", "run", "--kappa", "1.0", "--steps", "500", "--runs", "10", "--json"], capsys)
    d = strict_json(out)
    assert code == 0 and len(d["errors"]) == 10 and d["converges_in_theory"] is True
    code, out, _ = run(["mech", "exponential", "--scores", "15,20,25", "--eps", "1", "--json"], capsys)
    d = strict_json(out)
    assert sum(d["exponential"]) == pytest.approx(1) and sum(d["report_noisy_max"]) == pytest.approx(1)
    code, out, _ = run(
        ["mech", "bounded-laplace", "--lower", "0", "--upper", "10", "--delta", "0.001", "--json"], capsys
    )
    assert strict_json(out)["b"] > 1.0


SGD_MECH_BAD = [
    (["sgd", "theta", "--rho", "0"], "rho must be in (0, 1]"),
    (["sgd", "theta", "--kappa", "-1"], "kappa (privacy schedule a_h = h^κ, 0 for constant) must be in"),
    (["sgd", "theta", "--eps", "0"], "eps (privacy level ε) must be in [1e-06"),
    (["sgd", "run", "--Lambda", "0"], "Lambda (clip Λ) must be in [0.5, 50]"),
    (["mech", "release", "--mechanism", "gaussian", "--eps", "0.5", "--delta", "2"], "must be in [0, 1); got 2"),
    (["mech", "exponential", "--scores", ""], "scores (scores of the candidates) needs 1 to"),
]


def test_hetero_weights_json_contract(capsys):
    code, out, _ = run(
        [
            "hetero",
            "weights",
            "--problem",
            "frequency",
            "--variant",
            "A",
            "--eps",
            "0.1,0.5,2,inf",
            "--k",
            "5",
            "--json",
        ],
        capsys,
    )
    d = strict_json(out)
    assert code == 0 and {"weights", "b", "eps_eff", "objective", "solver"} <= set(d)
    assert sum(d["weights"]) == pytest.approx(1) and d["solver"] == "fast"
    assert all(e <= x * (1 + 1e-9) for e, x in zip(d["eps_eff"], [0.1, 0.5, 2, math.inf]))


def test_hetero_weights_file_and_cvxpy(tmp_path, capsys):
    f = tmp_path / "eps.txt"
    f.write_text("0.1\n0.5\n2\n")
    code, out, _ = run(
        ["hetero", "weights", "--problem", "mean", "--variant", "CP", "--eps", f"@{f}", "--solver", "cvxpy", "--json"],
        capsys,
    )
    d = strict_json(out)
    assert code == 0 and len(d["weights"]) == 3 and d["solver"] == "cvxpy"


def test_hetero_run_json(capsys):
    code, out, _ = run(
        ["hetero", "run", "--n", "1000", "--trials", "20", "--algorithms", "CP,UNI,SM", "--json"], capsys
    )
    d = strict_json(out)
    assert code == 0 and [r["algorithm"] for r in d["results"]] == ["CP", "UNI", "SM"]
    assert all(len(r["errors"]) == 20 for r in d["results"])


HETERO_BAD = [
    (
        ["hetero", "weights", "--problem", "mean", "--variant", "A", "--eps", "0.1,-1"],
        "demands (per-user demands ε_i) entry 2 must be in [1e-06, inf]",
    ),
    (["hetero", "weights", "--problem", "mean", "--variant", "A", "--eps", "@/nonexistent"], "not found"),
    (
        ["hetero", "weights", "--problem", "frequency", "--variant", "A", "--eps", "1", "--k", "1"],
        "k (number of bins k of the frequency problem) must be in [2, ",
    ),
    (
        ["hetero", "weights", "--problem", "mean", "--variant", "A", "--eps", "1", "--beta", "1"],
        "beta (failure probability β) must be in (0, 1)",
    ),
    (
        ["hetero", "run", "--eps-by-bin", "", "--shares", "0.5,0.6", "--lows", "0.1,1", "--highs", "1,2"],
        "shares must sum to 1",
    ),
]


def test_cli_figure_names_match_the_presets():
    """The CLI lists the figure names without importing the simulations (fast start-up)."""
    from hetdp_core.per_feature.bcdp_sim import PRESETS
    from hetdp_ui.cli import FIGURES

    assert tuple(sorted(PRESETS)) == FIGURES


@pytest.mark.parametrize("args,fragment", CORE_BAD + LAB_BAD + SGD_MECH_BAD + HETERO_BAD)
def test_bad_input_exit_2_one_line(args, fragment, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("hetdp: error:") and fragment in err
    assert "Traceback" not in err


def test_the_cli_starts_no_blas_threads_unless_asked_and_hetdp_app_gives_the_server_the_users_environment(
    monkeypatch, tmp_path
):
    """The command line sets one BLAS thread before numpy loads (its simulations use their own chunk
    threads; OpenBLAS's would only spin), keeps a count the user set, and ``hetdp app`` removes its
    default again so the server runs with the user's environment, as under ``make run``."""
    probe = "import os, hetdp_ui.cli, numpy; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"
    out = subprocess.run(
        [sys.executable, "-c", probe], env={**env, "OPENBLAS_NUM_THREADS": "3"}, capture_output=True, text=True
    )
    assert out.stdout.strip() == "3"

    import hetdp_ui.cli as cli_pkg

    seen = {}

    def fake_execv(exe, cmd):
        seen["env"] = dict(os.environ)
        seen["cmd"] = cmd
        raise SystemExit(0)

    monkeypatch.setattr(cli_pkg, "BLAS_DEFAULTS", ("OPENBLAS_NUM_THREADS",))
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # the user's own setting stays
    monkeypatch.setattr("os.execv", fake_execv)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        main(["app", "--port", "8599"])
    assert "OPENBLAS_NUM_THREADS" not in seen["env"] and seen["env"]["OMP_NUM_THREADS"] == "2"
    assert seen["cmd"][1:4] == ["-m", "hetdp_ui.launch", "run"]  # streamlit run, after the warm-up


def test_the_hetdp_command_keeps_freed_memory_and_a_called_main_changes_nothing(monkeypatch):
    """``hetdp`` (main with no argv: the process's own command line) sets the allocator of a short-lived
    process, as the server's run children do; main called with a list (tests, scripts) leaves the calling
    process's allocator alone."""
    import hetdp_ui.allocator as allocator

    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append(1) or True)
    assert main(["bcdp", "c-vector", "--delta", "1,2", "--eps", "2", "--q", "0.5"]) == 0
    assert calls == []
    monkeypatch.setattr(sys, "argv", ["hetdp", "bcdp", "c-vector", "--delta", "1,2", "--eps", "2", "--q", "0.5"])
    assert main() == 0
    assert calls == [1]


def test_a_closed_pipe_is_a_normal_end():
    """`hetdp … --json | head -c 120`: the reader closes the pipe early; the command ends quietly with
    exit code 0 (it printed "hetdp: error: cannot use: Broken pipe." and exited 2)."""
    import subprocess
    import sys

    args = ["bcdp", "mse", "--n", "100", "--eps", "2", "--delta", "0.2,2", "--q", "0.5", "--trials", "100000"]
    p = subprocess.Popen(  # 3 MB of JSON, far beyond a pipe's buffer
        [sys.executable, "-m", "hetdp_ui.cli", *args, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    head = p.stdout.read(120)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(60) == 0 and head.startswith(b"{") and err == "", err
