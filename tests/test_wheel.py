"""The built wheel works on its own: installed into a clean virtualenv, the CLI runs the bundled
RAND HIE dataset from another directory (the data ship in the wheel as hetdp_core.data), `hetdp app`
serves the app and a decision package reruns there. The wheel is built and installed once for the file
(a module fixture); each promise is its own test."""

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, strict_json


def _stdout(argv: list, *, cwd) -> str:
    """What a command prints (it must succeed)."""
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the clean virtualenv, a folder outside the checkout): the wheel built once from the checkout and
    installed with its declared dependencies into a new virtualenv; the tests below share it."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheels = tmp / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    whl = next(wheels.glob("hetdp-*.whl"))
    env_dir = tmp / "venv"
    py = env_dir / "bin" / "python"
    # uv (a test extra) resolves and installs the wheel's declared dependencies into a new virtualenv in
    # a few seconds from its cache, where pip took 25-39 s of the suite; pip does the same where uv cannot
    # (no uv, or no index it can reach)
    try:
        uv = [sys.executable, "-m", "uv"]
        subprocess.run([*uv, "venv", "-q", "--python", sys.executable, str(env_dir)], check=True, capture_output=True)
        subprocess.run([*uv, "pip", "install", "-q", "--python", str(py), str(whl)], check=True, capture_output=True)
    except subprocess.CalledProcessError:
        shutil.rmtree(env_dir, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
        # --no-compile: pip does not byte-compile every installed library up front (half of its time)
        pip = [str(py), "-m", "pip", "install", "-q", "--no-compile", str(whl)]
        subprocess.run(pip, check=True, capture_output=True)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return env_dir, elsewhere


def test_the_wheel_installs_hetdp_and_its_data_not_the_checkout(installed):
    env_dir, elsewhere = installed
    where = _stdout(
        [
            str(env_dir / "bin" / "python"),
            "-c",
            "import hetdp_core, hetdp_core.data as d; print(hetdp_core.__file__); print(d.__file__)",
        ],
        cwd=elsewhere,
    )
    assert str(env_dir) in where and str(ROOT) not in where, where  # the wheel, not the checkout


def test_the_installed_cli_runs_the_bundled_dataset(installed):
    env_dir, elsewhere = installed

    def hetdp(*args: str) -> str:  # the installed command, run outside the source tree
        return _stdout([str(env_dir / "bin" / "hetdp"), *args], cwd=elsewhere)

    out = hetdp(
        "hetero",
        "run",
        "--dataset",
        "randhie",
        "--problem",
        "mean",
        "--algorithms",
        "CP,UNI",
        "--trials",
        "20",
        "--json",
    )
    res = strict_json(out)
    assert res["params"]["n"] == 5912 and [r["algorithm"] for r in res["results"]] == ["CP", "UNI"]
    query = "dataset=RAND+HIE+(real)&problem=frequency&eps_by_bin=1,0.5,0.1,0.05&trials=20&algs=CP"
    out = hetdp("run", "Per_user_privacy", "--query", query, "--json")
    assert len(strict_json(out)["tables"]["hetero_weights"]) == 5912
    out = hetdp("lesson", "list")
    assert len(out.strip().splitlines()) >= 5 and "lesson=1-bcdp-feature-privacy" in out  # lessons ship too


def test_hetdp_app_from_the_wheel_serves_the_home_page(installed):
    _hetdp_app_serves_the_home_page(*installed)


def test_a_decision_package_reruns_in_the_clean_environment(installed):
    _a_decision_package_reruns_here(*installed)


def _a_decision_package_reruns_here(env_dir, cwd):
    """The decision package (issue 40) in a fresh environment with only hetdp installed: its script and
    its notebook, run here, give the numbers of `hetdp run` in the checkout."""
    import json
    import zipfile

    from nbclient import NotebookClient  # noqa: F401 — the checkout has it; the venv gets its own below

    query = "trials=5&n=500"
    made = cwd / "made"
    made.mkdir()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "hetdp_ui.cli",
            "package",
            "Feature_privacy",
            "--query",
            query,
            "--out",
            str(made / "d.zip"),
            "--no-execute",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with zipfile.ZipFile(made / "d.zip") as z:
        z.extractall(made)
    want = strict_json(
        _stdout([sys.executable, "-m", "hetdp_ui.cli", "run", "Feature_privacy", "--query", query, "--json"], cwd=ROOT)
    )["tables"]
    got = strict_json(_stdout([str(env_dir / "bin" / "python"), "recompute.py"], cwd=made))
    assert got and set(got) <= set(want) and all(_same(got[k], want[k]) for k in got), sorted(got)
    # the notebook, executed by the fresh environment's own Jupyter runner and kernel
    script = (
        "import json, nbformat\n"
        "from jupyter_client.manager import KernelManager\n"
        "from nbclient import NotebookClient\n"
        "nb = nbformat.read('notebook.ipynb', as_version=4)\n"
        "km = KernelManager(kernel_name='python3', transport='ipc', ip='kernel')\n"  # no TCP port race
        "NotebookClient(nb, km=km, timeout=600).execute()\n"
        "last = nb.cells[-1]\n"
        "print(''.join(o.get('text', '') for o in last.outputs if o.get('name') == 'stdout'))\n"
    )
    out = _stdout([str(env_dir / "bin" / "python"), "-c", script], cwd=made)
    printed = json.loads(out)
    assert all(_same(printed[k], want[k]) for k in got), sorted(printed)


def _same(a, b) -> bool:
    """The same numbers: equal to 12 digits, NaN and null alike, a number printed as a string alike."""
    import math

    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))

    def num(v):
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                return v
        return v

    a, b = num(a), num(b)
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
        nan = lambda v: v is None or (isinstance(v, float) and math.isnan(v))  # noqa: E731
        return nan(a) and nan(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
    return a == b


def _hetdp_app_serves_the_home_page(env_dir, cwd):
    """`hetdp app` from the wheel (the page files, docs and settings ship in it): the server answers
    its health check and serves the app, whose pages are the installed copies."""
    import time
    import urllib.request

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from load import free_port  # below the ephemeral ports: the health check cannot reach itself

    port = free_port()
    proc = subprocess.Popen(
        [str(env_dir / "bin" / "hetdp"), "app", "--port", str(port), "--address", "127.0.0.1"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline, ok = time.time() + 90, False
        while time.time() < deadline and not ok:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    ok = r.status == 200
            except OSError:
                time.sleep(0.5)
            assert proc.poll() is None, proc.stdout.read()
        assert ok, "hetdp app did not become healthy"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            assert r.status == 200 and b'<div id="root">' in r.read()
        # the script it serves is the installed copy, next to its pages
        py = env_dir / "bin" / "python"
        where = _stdout([str(py), "-c", "from hetdp_ui.cli import app_script; print(app_script())"], cwd=cwd).strip()
        assert where.startswith(str(env_dir)) and where.endswith("hetdp_app/app.py"), where
        # the pages that are not scenarios are found by their folders' page.toml, which ship too
        code = "from hetdp_ui.folders import tool_pages; print(','.join(t.url for t in tool_pages()))"
        assert _stdout([str(py), "-c", code], cwd=cwd).strip() == "Lessons,Release_ledger,Class,Docs"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
