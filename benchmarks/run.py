"""hetdp benchmarks (``make bench``). Prints a table and writes benchmarks/results/latest.json; a full run
(not ``--quick``) also records it in benchmarks/recorded/bench.json and rewrites its table in
docs/benchmarks.md (benchmarks/tables.py).

Measured, not asserted: timed tests are flaky.

* fig3_full — the full Figure 3 configuration: n = 10 000, d = 10, 1000 trials, 10 values of q,
  both mechanisms (the authors' per-user loop takes about 80 minutes on a 2-core machine);
* fig3_dask_local — the same on a Dask LocalCluster of worker processes (``--dask local``), with
  the cluster's start-up time separately (only with the [dask] extra installed);
* fig4a_full / fig4b_full — the Figure 4 configurations of the paper text (T = 100);
* floors, measured in the same run: import of numpy alone, one sort of 10⁶ doubles, 10⁷ float32
  normals and uniforms of the channel's bit generator (SFC64) on one thread, and numpy's default
  PCG64 for reference — every figure is printed next to its floor;
* fig3_subset_* — the Figure-3 subset through the CLI vs two floors: a process making the
  mechanism's draws with numpy's samplers (m float32 standard normals and one uniform per trial and
  user: the issue's floor), and a process making exactly the uniforms the channel draws (its normals
  are Box–Muller transforms of them);
* fig3_full_vs_floor_ratio — full Figure 3's wall time / the single-thread time of its draws
  (below 1: both cores are used); fig3_full_floor_one_thread_pcg64 — the same draws at PCG64's rates;
* run_cpu_<page> — each page's default run from scratch, CPU, also in units of 10⁷ normals;
* page_default_cold — the default view of the page whose bench.toml says default_view (Feature
  privacy: its sweep, n = 10 000, 30 trials, 9 q's), computed from scratch by the core;
* page_default_apptest / page_default_cached — the whole page rendered by Streamlit's AppTest,
  first run and a rerun with the same inputs (cache hit);
* live — ``benchmarks/live.py`` with this run's first charts, solves and RNG floor: slider steps on
  every analysis page against a bare Streamlit page (recorded as ``live``: README's performance table);
* ledger_200x1e5_* — a 200-release plan repeated 10⁵ times: the whole ledger, and its PLD accountant
  against the previous one (dp-accounting's self-composition at a capped step) in the same run.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hetdp_core.framework.registry import hook  # noqa: E402
from hetdp_core.scenarios import get  # noqa: E402

AUTHORS_LOOP_SECONDS = 80 * 60


def zcdp_curves() -> dict:
    """Algorithm 1 D_α curve (50 values of α, both directions, neighbours x ± 1), worst of several
    group sizes; and the page's default loss-vs-size scan."""
    import numpy as np

    from hetdp_core.per_group.zcdp import divergence_vs_size, renyi_curves

    alphas = np.linspace(1.01, 20, 50)
    worst = max(
        timed(lambda x=x: renyi_curves(algorithm=1, x=x, rho=0.5, r=0.2, alpha=alphas)) for x in (0, 2, 5, 15, 50, 500)
    )
    scan = timed(
        lambda: divergence_vs_size(
            sizes=[0, 1, 2, 4, 8, 15, 30, 60, 120, 250, 500, 857], alphas=[2.0, 5.0, 10.0], rho=0.5, r=0.2
        )
    )
    return {"zcdp_alg1_curve_50_alpha_worst": worst, "zcdp_alg1_size_scan": scan}


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def fig(key: str, trials: int | None = None, executor=None) -> float:
    """A paper figure, as published, through the same scenario and run as the page and the CLI (the page
    whose bench.toml says ``paper_figures``: its ``paper_preset`` hook)."""
    from workloads import workloads

    from hetdp_core.framework.scenario import LARGE_BUDGET, RunOptions

    page = get(workloads().paper_figures)
    s = hook(page, "paper_preset")(key, variant="published", trials=trials)
    return timed(lambda: page.run(s, options=RunOptions(budget=LARGE_BUDGET, executor=executor)))


def fig3_dask(trials: int | None = None) -> dict:
    """Figure 3 on a LocalCluster of worker processes (one per core) — the `--dask local` path —
    next to the threaded run; cluster start-up is reported separately."""
    try:
        from hetdp_ui.dask_exec import dask_executor
    except ImportError:
        return {}
    try:
        t0 = time.perf_counter()
        with dask_executor("local") as ex:
            startup = time.perf_counter() - t0
            secs = fig("fig3", trials=trials, executor=ex)
    except Exception as exc:  # noqa: BLE001 — the extra is optional; report why it did not run
        print(f"fig3 on Dask skipped: {exc}")
        return {}
    return {"fig3_dask_local": secs, "dask_local_startup": startup}


def hetero_weights() -> dict:
    """Fast weights for 1 000 000 users (best of 6 calls), cvxpy for 10 000 users."""
    import numpy as np

    from hetdp_core.per_user.hetero import cvxpy_weights, fast_weights

    rng = np.random.default_rng(0)
    big = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 1_000_000))
    # best of 5 after one warm-up call, like the sort floor (best of 5): the first call of a process
    # also pays the allocator's first touch of its 8 MB arrays
    fast = min(timed(lambda: fast_weights(big, variant="CP", problem="frequency", k=20)) for _ in range(6))
    mid = np.exp(rng.uniform(np.log(1e-2), np.log(1e1), 10_000))
    cv = timed(lambda: cvxpy_weights(mid, variant="CP", problem="frequency", k=5))
    return {"hetero_fast_weights_1e6": fast, "hetero_cvxpy_weights_1e4": cv, **_weights_in_run_child()}


#: fast weights and the sort floor in a process set up as the server's run children are (glibc keeps
#: freed memory for the next array: hetdp_ui.limits.keep_freed_memory), best of 6 each
RUN_CHILD_WEIGHTS = """
import json, time, numpy as np
from hetdp_ui.limits import keep_freed_memory
from hetdp_core.per_user.hetero import fast_weights
keep_freed_memory()
rng = np.random.default_rng(0)
big = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), 1_000_000))
x = np.random.default_rng(0).random(1_000_000)
def best(f):
    out = []
    for _ in range(6):
        t0 = time.perf_counter(); f(); out.append(time.perf_counter() - t0)
    return min(out)
w = best(lambda: fast_weights(big, variant="CP", problem="frequency", k=20))
print(json.dumps({"weights": w, "sort": best(lambda: np.sort(x))}))
"""


def _weights_in_run_child() -> dict:
    """Fast weights for 10⁶ users as the server computes them (in a run child's allocator settings),
    next to one sort of 10⁶ doubles in the same process."""
    import subprocess

    r = json.loads(
        subprocess.run(
            [sys.executable, "-c", RUN_CHILD_WEIGHTS], check=True, capture_output=True, cwd=ROOT, text=True
        ).stdout
    )
    return {
        "hetero_fast_weights_1e6_run_child": r["weights"],
        "hetero_run_child_sort_1e6": r["sort"],
        "hetero_fast_weights_1e6_run_child_in_sorts": r["weights"] / r["sort"],
    }


def page_default() -> float:
    """The default scenario of the page whose ``bench.toml`` says ``default_view`` (Feature privacy),
    computed from scratch by its run."""
    from workloads import workloads

    mod = get(workloads().default_view)
    return timed(lambda: mod.run(mod.SCENARIO()))


def page_apptest() -> tuple[float, float]:
    from streamlit.testing.v1 import AppTest
    from workloads import workloads

    at = AppTest.from_file(str(ROOT / get(workloads().default_view).PAGE_SPEC.file), default_timeout=300)
    first = timed(at.run)
    again = timed(at.run)
    return first, again


def all_pages() -> dict:
    """First render of every page with its defaults (fresh AppTest, module caches cleared), and a rerun."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    out = {}
    from hetdp_core.framework.registry import specs
    from hetdp_core.per_group.zcdp import _MEMO as zcdp_memo
    from hetdp_ui.execution import runs
    from hetdp_ui.folders import tool_pages

    scripts = {s.url: ROOT / s.file for s in [*specs(), *tool_pages()]}  # every page's folder
    for name, script in scripts.items():
        st.cache_data.clear()
        runs().clear()
        zcdp_memo.clear()
        at = AppTest.from_file(str(script), default_timeout=300)
        first = timed(at.run)
        out[f"page_{name}_first"] = first
        out[f"page_{name}_rerun"] = timed(at.run)
    return out


# ------------------------------------------------------------------ floors measured in the same run
FIG3_SUBSET = [
    "bcdp",
    "mse",
    "--n",
    "10000",
    "--eps",
    "2",
    "--delta",
    "0.2,0.2,2,2,2,2,2,2,2,2",
    "--q",
    "0.01,0.1,0.3,0.5,0.9",
    "--trials",
    "60",
    "--seed",
    "0",
    "--json",
]


def _child_cpu_wall(argv: list[str], env: dict | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process (user + system, all its threads); ``env``:
    variables added to this process's environment."""
    import resource
    import subprocess

    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall


def _channel_draws(argv: list[str]) -> tuple[list, list]:
    """What the Duchi channel draws for a CLI command, recorded while it runs:

    * the mechanism's demands, as the issue counts them — per (trial, user) m standard normals (float32
      in the summed channel, float64 per user) and one uniform (two when m = 1): (bit generator,
      method, shape, dtype) of one numpy call each, the draws a process would make with numpy's own
      samplers;
    * the calls the channel actually makes on its generators (the summed channel draws only uniforms
      and makes its normals from them by Box–Muller), in order."""
    import contextlib
    import io

    import numpy as np

    from hetdp_core.per_feature import duchi
    from hetdp_ui import cli

    demands: list = []
    calls: list = []

    class Counting:
        def __init__(self, g):
            self.g = g
            self.kind = type(g.bit_generator).__name__

        def random(self, shape=None, dtype=np.float64, out=None):
            calls.append((self.kind, "random", tuple(out.shape if out is not None else shape), str(np.dtype(dtype))))
            return self.g.random(shape, dtype=dtype, out=out)

        def standard_normal(self, shape=None, dtype=np.float64, out=None):
            calls.append(
                (self.kind, "standard_normal", tuple(out.shape if out is not None else shape), str(np.dtype(dtype)))
            )
            return self.g.standard_normal(shape, dtype=dtype, out=out)

    real_streams, real_directions = duchi.bulk_streams, duchi._oriented_directions

    def directions(rng, U, pS, pK, t, dtype, reduce, out=None):
        m, n = U.shape
        kind = rng.kind
        if m > 1:
            demands.append((kind, "standard_normal", (t, m, n), str(np.dtype(dtype))))
        demands.append((kind, "random", (t, n * (1 if m > 1 else 2)), "float64"))
        return real_directions(rng, U, pS, pK, t, dtype, reduce, out)

    duchi.bulk_streams = lambda rng, k: [Counting(g) for g in real_streams(rng, k)]
    duchi._oriented_directions = directions
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cli.main(argv)
    finally:
        duchi.bulk_streams, duchi._oriented_directions = real_streams, real_directions
    return demands, calls


#: the floor process starts no BLAS threads (they would only spin at import: a cheaper floor, as the CLI)
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

#: a floor: import numpy, then make exactly the listed draws (same bit generator, shapes, dtypes)
FLOOR_SCRIPT = """
import json, sys, numpy as np
gens = {}
for kind, method, shape, dtype in json.load(open(sys.argv[1])):
    rng = gens.setdefault(kind, np.random.Generator(getattr(np.random, kind)(0)))
    getattr(rng, method)(tuple(shape), dtype=np.dtype(dtype))
"""


def fig3_subset_vs_floor(pairs: int = 3) -> dict:
    """The Figure-3 subset through the CLI next to two floors, in alternating triples; medians:

    * the floor of the issue: a process that imports numpy and makes the mechanism's draws — m
      standard normals and one uniform per (trial, user) — with numpy's samplers (the channel's bit
      generator, float32 normals as the summed channel needs) on one thread;
    * the uniforms floor: a process making exactly the uniforms the channel draws (its normals come
      from them by Box–Muller, cheaper than numpy's normal sampler): how far the run is from the bit
      generator itself.

    Ratios are CLI / floor, CPU and wall (the floors are single-threaded, so a wall ratio below 1
    means both cores are used)."""
    import statistics
    import tempfile

    import numpy as np

    demands, calls = _channel_draws(FIG3_SUBSET)
    count = lambda draws, method: sum(int(np.prod(s)) for _, m, s, _ in draws if m == method)  # noqa: E731
    files = []
    for draws in (demands, calls):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(draws, f)
        files.append(f.name)
    cli_argv = [sys.executable, "-m", "hetdp_ui.cli", *FIG3_SUBSET]
    cli, floor, bits = [], [], []
    for _ in range(pairs):
        cli.append(_child_cpu_wall(cli_argv))
        floor.append(_child_cpu_wall([sys.executable, "-c", FLOOR_SCRIPT, files[0]], env=ONE_BLAS_THREAD))
        bits.append(_child_cpu_wall([sys.executable, "-c", FLOOR_SCRIPT, files[1]], env=ONE_BLAS_THREAD))
    for name in files:
        os.unlink(name)
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    out = {
        "fig3_subset_normals": count(demands, "standard_normal"),
        "fig3_subset_uniforms": count(demands, "random"),
        "fig3_subset_uniforms_drawn": count(calls, "random"),
        "fig3_subset_cli_cpu": med(cli, 0),
        "fig3_subset_cli_wall": med(cli, 1),
        "fig3_subset_floor_cpu": med(floor, 0),
        "fig3_subset_floor_wall": med(floor, 1),
        "fig3_subset_uniforms_floor_cpu": med(bits, 0),
    }
    out["fig3_subset_cpu_ratio"] = out["fig3_subset_cli_cpu"] / out["fig3_subset_floor_cpu"]
    out["fig3_subset_wall_ratio"] = out["fig3_subset_cli_wall"] / out["fig3_subset_floor_wall"]
    out["fig3_subset_cpu_vs_uniforms_floor_ratio"] = out["fig3_subset_cli_cpu"] / out["fig3_subset_uniforms_floor_cpu"]
    return out


def floors() -> dict:
    """Reference costs on this machine, now: importing numpy alone (a fresh process, wall), one sort
    of 10⁶ doubles, and on one thread 10⁷ draws of the channel's bit generator (SFC64: float32
    normals as the channel draws them, and uniforms) — plus numpy's default PCG64 for reference
    (float64 and float32 normals)."""
    import statistics

    import numpy as np

    imp = statistics.median(
        _child_cpu_wall([sys.executable, "-c", "import numpy"], env=ONE_BLAS_THREAD)[1] for _ in range(3)
    )
    x = np.random.default_rng(0).random(1_000_000)
    sort = min(timed(lambda: np.sort(x)) for _ in range(5))
    pcg = np.random.default_rng(0)
    sfc = np.random.Generator(np.random.SFC64(0))
    best = lambda f: min(timed(f) for _ in range(3))  # noqa: E731
    return {
        "floor_import_numpy": imp,
        "floor_sort_1e6": sort,
        "floor_normals32_1e7": best(lambda: sfc.standard_normal(10_000_000, dtype=np.float32)),
        "floor_uniforms_1e7": best(lambda: sfc.random(10_000_000)),
        "floor_normals_pcg64_1e7": best(lambda: pcg.standard_normal(10_000_000)),
        "floor_normals32_pcg64_1e7": best(lambda: pcg.standard_normal(10_000_000, dtype=np.float32)),
        "floor_uniforms_pcg64_1e7": best(lambda: pcg.random(10_000_000)),
    }


def cli_start() -> dict:
    """``hetdp --help`` in a fresh process next to ``import numpy`` alone (wall, medians of 5)."""
    import statistics

    cli = statistics.median(_child_cpu_wall([sys.executable, "-m", "hetdp_ui.cli", "--help"])[1] for _ in range(5))
    imp = statistics.median(
        _child_cpu_wall([sys.executable, "-c", "import numpy"], env=ONE_BLAS_THREAD)[1] for _ in range(5)
    )
    return {"cli_start": cli, "cli_start_vs_import_numpy_ratio": cli / imp}


def fig3_floor(fl: dict, generator: str = "") -> float:
    """Single-thread seconds of the random numbers full Figure 3 draws (10 values of q, 1000 trials,
    10 000 users), at this run's floor rates of the channel's generator (``generator="_pcg64"``: at
    PCG64's rates, for reference). Draws per (point, trial, user) come from the subset's recorded
    draws (same demands, ε and n), so the floor follows the code: 28 float32 normals (10 + 8 for
    Mechanism 1's two stages, 10 for the baseline) and 3 uniforms (one per channel call)."""
    from hetdp_core.per_feature.bcdp_sim import PRESETS

    arg = lambda flag: FIG3_SUBSET[FIG3_SUBSET.index(flag) + 1]  # noqa: E731
    per = len(arg("--q").split(",")) * int(arg("--trials")) * int(arg("--n"))  # the subset's points × trials × users
    full = PRESETS["fig3"]
    scale = len(full.values) * full.trials * full.n / per
    normals = fl["fig3_subset_normals"] * scale
    uniforms = fl["fig3_subset_uniforms"] * scale
    return (normals * fl[f"floor_normals32{generator}_1e7"] + uniforms * fl[f"floor_uniforms{generator}_1e7"]) / 1e7


def page_runs_cpu() -> dict:
    """CPU seconds (all threads) of each page's default run from scratch (memos cleared), best of 2,
    in units of this run's floor of 10⁷ float32 normals."""
    import resource

    from hetdp_core.per_group import algorithm1
    from hetdp_core.scenarios import pages

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    out = {}
    for name, mod in pages().items():
        best = float("inf")
        for _ in range(2):
            algorithm1._MEMO.clear()
            c0 = cpu()
            mod.run(mod.SCENARIO())
            best = min(best, cpu() - c0)
        out[f"run_cpu_{name}"] = best
    return out


def _previous_pld(events) -> None:
    """The ledger's PLD accountant before the exact Gaussian composition (for the ratio below): every
    release discretised by dp-accounting at a step of the composed loss range / 2·10⁶ (at least 10⁻⁴),
    self-composed and composed by dp-accounting, read at δ and on a 1 260-point ε grid for the risk."""
    import numpy as np
    from dp_accounting.pld import privacy_loss_distribution as pld

    span = 0.0
    for e in events:
        mu = 1.0 / e.a
        span += e.repeat * (2.0 * (mu * mu / 2.0 + 12.0 * mu) if e.kind == "gaussian" else 2.0 / e.a)
    step = max(1e-4, span / 2e6)
    total = None
    for e in events:
        make = pld.from_gaussian_mechanism if e.kind == "gaussian" else pld.from_laplace_mechanism
        one = make(e.a, value_discretization_interval=step)
        one = one.self_compose(e.repeat) if e.repeat > 1 else one
        total = one if total is None else total.compose(one)
    total.get_epsilon_for_delta(1e-6)
    hi = max(float(total.get_epsilon_for_delta(1e-12)), 1.0)
    total.get_delta_for_epsilon(
        np.unique(np.concatenate([np.linspace(0, min(hi, 60), 1200), np.geomspace(1e-4, 1, 60)]))
    )


def ledger_200() -> dict:
    """A 200-release plan, every release repeated 10⁵ times (noise σ/Δ or b/Δ log-uniform in [1, 1000],
    seeded): the whole ledger (four accountants, headline, risk and curve) now, and its PLD accountant
    next to the previous one in the same run (their ratio: the machine's speed cancels)."""
    import numpy as np

    from hetdp_core.accountants import pld
    from hetdp_core.accountants.ledger import Plan, Release, ledger
    from hetdp_core.accountants.pld import Event

    out = {}
    for kind in ("gaussian", "laplace", "mixed"):
        rng = np.random.default_rng(0)
        rel = tuple(
            Release(
                name=f"r{i}",
                mechanism=kind if kind != "mixed" else ("gaussian", "laplace")[i % 2],
                noise=round(float(10 ** rng.uniform(0, 3)), 3),
                repeat=100_000,
            )
            for i in range(200)
        )
        events = tuple(Event(r.mechanism, r.noise, 0.0, r.repeat) for r in rel)
        pld._COMPOSITIONS.clear()
        out[f"ledger_200x1e5_{kind}"] = timed(lambda rel=rel: ledger(Plan(releases=rel), delta=1e-6, fpr=0.01))
        pld._COMPOSITIONS.clear()
        new = timed(lambda events=events: pld.compose(events).epsilon(1e-6))
        old = timed(lambda events=events: _previous_pld(events))
        out[f"ledger_200x1e5_{kind}_pld_vs_previous_ratio"] = new / old
    return out


def solve_vs_view(repeat: int = 3) -> dict:
    """CPU of a solve against the CPU of viewing the same page, both as CLI commands (``hetdp solve …``
    vs ``hetdp run PAGE``), alternating, medians; the issue's target: a solve costs at most 2× its view."""
    import resource
    import statistics

    def cpu(args) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-m", "hetdp_ui.cli", *args], stdout=subprocess.DEVNULL, cwd=ROOT)
        # `hetdp solve` exits 1 when its verdict is "target not met" (a whole solve all the same); 2 is an error
        if done.returncode not in ((0, 1) if args[0] == "solve" else (0,)):
            raise subprocess.CalledProcessError(done.returncode, done.args)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    from workloads import workloads

    # the pages' own cases (pages/<slug>/bench.toml: solve_targets)
    cases = {f"{page.lower()}_target_{t:g}": (page, ["--target", f"{t:g}"]) for page, t in workloads().solve}
    out = {}
    for name, (page, extra) in cases.items():
        views, solves = [], []
        for _ in range(repeat):
            views.append(cpu(["run", page]))
            solves.append(cpu(["solve", page, *extra]))
        out[f"solve_{name}_cpu"] = statistics.median(solves)
        out[f"solve_{name}_view_cpu"] = statistics.median(views)
        out[f"solve_{name}_ratio"] = statistics.median(solves) / statistics.median(views)
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    results = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    }
    results.update(floors())
    results.update(cli_start())
    results.update(fig3_subset_vs_floor())
    for k, v in page_runs_cpu().items():
        results[k] = v
        results[f"{k}_in_normals_1e7"] = v / results["floor_normals32_1e7"]
    results.update(zcdp_curves())
    results.update(ledger_200())
    results.update(hetero_weights())
    results["hetero_fast_weights_1e6_in_sorts"] = results["hetero_fast_weights_1e6"] / results["floor_sort_1e6"]
    results.update(all_pages())
    solve = solve_vs_view()
    results.update(solve)
    if "--zcdp" in sys.argv:
        print(json.dumps(results, indent=2))
        return
    results["page_default_cold"] = page_default()
    first, again = page_apptest()
    results["page_default_apptest"] = first
    results["page_default_cached"] = again
    if quick:
        results["fig3_100_trials"] = fig("fig3", trials=100)
        results["fig3_100_trials_vs_floor_ratio"] = results["fig3_100_trials"] / (fig3_floor(results) / 10)
        results.update({f"{k}_100_trials": v for k, v in fig3_dask(trials=100).items()})
    else:
        results["fig3_full"] = fig("fig3")
        results["fig3_full_floor_one_thread"] = fig3_floor(results)
        results["fig3_full_floor_one_thread_pcg64"] = fig3_floor(results, "_pcg64")
        results["fig3_full_vs_floor_ratio"] = results["fig3_full"] / results["fig3_full_floor_one_thread"]
        results["fig3_speedup_vs_authors_loop"] = AUTHORS_LOOP_SECONDS / results["fig3_full"]
        results.update(fig3_dask())
        results["fig4a_full"] = fig("fig4a")
        results["fig4b_full"] = fig("fig4b")
    charts = None
    if "--no-browser" not in sys.argv:  # time to the first chart in Chromium against a bare Streamlit page
        from benchmarks.first_chart import main as first_chart

        charts = first_chart(["--repeat", "1" if quick else "3"])
        for page, row in charts.items():
            results[f"first_chart_{page}_first_ratio"] = row["first_ratio"]
            results[f"first_chart_{page}_next_ratio"] = row["next_ratio"]
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2))
    if not quick:  # a full run writes docs/benchmarks.md's table (benchmarks/tables.py)
        from benchmarks.tables import record

        record("bench", results)
        if charts is not None:  # and the live page's (README's performance table): slider steps, with the above
            from benchmarks.live import main as live

            rng = {k: v for k, v in results.items() if k.startswith("fig3_subset_")}
            live(["--record"], reuse={"first_chart": charts, "solve": solve, "rng_floor": rng})
    for k, v in results.items():
        if k != "machine":
            unit = (
                "x"
                if ("speedup" in k or "ratio" in k or "_in_" in k)
                else ("" if k.endswith(("normals", "uniforms", "_drawn")) else "s")
            )
            print(f"{k:36s} {v:12.3f} {unit}")
    print(f"machine: {results['machine']}")


if __name__ == "__main__":
    main()
