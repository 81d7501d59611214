"""The built wheel works on its own: installed into a clean virtualenv, the CLI runs the bundled
RAND HIE dataset from another directory (the data ship in the wheel as hetdp_core.data)."""

import json
import subprocess
import sys

import pytest
from conftest import ROOT


@pytest.mark.timeout(900)
def test_wheel_in_a_clean_virtualenv_runs_the_bundled_dataset(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True)
    whl = next(wheels.glob("hetdp-*.whl"))
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(whl)], check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(py), "-c", "import hetdp_core, hetdp_core.data as d; print(hetdp_core.__file__); "
                            "print(d.__file__)"], cwd=elsewhere, check=True, capture_output=True, text=True).stdout
    assert str(env_dir) in where and str(ROOT) not in where, where          # the wheel, not the checkout
    out = subprocess.run([str(env_dir / "bin" / "hetdp"), "hetero", "run", "--dataset", "randhie", "--problem",
                          "mean", "--algorithms", "CP,UNI", "--trials", "20", "--json"],
                         cwd=elsewhere, check=True, capture_output=True, text=True).stdout
    res = json.loads(out)
    assert res["params"]["n"] == 5912 and [r["algorithm"] for r in res["results"]] == ["CP", "UNI"]
    out = subprocess.run([str(env_dir / "bin" / "hetdp"), "run", "Per_user_privacy", "--query",
                          "dataset=RAND+HIE+(real)&problem=frequency&eps_by_bin=1,0.5,0.1,0.05&trials=20&algs=CP",
                          "--json"], cwd=elsewhere, check=True, capture_output=True, text=True).stdout
    assert len(json.loads(out)["tables"]["hetero_weights"]) == 5912
    out = subprocess.run([str(env_dir / "bin" / "hetdp"), "lesson", "list"], cwd=elsewhere, check=True,
                         capture_output=True, text=True).stdout
    assert len(out.strip().splitlines()) >= 5 and "lesson=1-bcdp-feature-privacy" in out   # lessons ship too
