"""The ``hetdp`` command line. ``--json`` prints JSON on stdout.

Bad input exits with code 2 and one line on stderr naming the parameter; never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from hetdp_core._validate import InputError
from hetdp_ui.dask_exec import ClusterError

# Heavy modules (pandas, scipy, cvxpy, the simulations) are imported inside the commands that use
# them, so `hetdp --help` and `hetdp bcdp c-vector` start fast (numpy only).

BUDGET_NAMES = ("large", "none", "page")
#: names of hetdp_core.bcdp_sim.PRESETS (a test keeps them equal; listed here to keep start-up light)
FIGURES = ("fig3", "fig4a", "fig4b")


@contextlib.contextmanager
def _executor(a):
    """Dask when ``--dask`` is given (``local`` or a scheduler address), else None (threads)."""
    if not getattr(a, "dask", None):
        yield None
        return
    from hetdp_ui.dask_exec import dask_executor

    with dask_executor(a.dask) as ex:
        yield ex


def budget(name: str):
    """The compute budget called ``name`` (``none``: no limit)."""
    from hetdp_core.scenario import LARGE_BUDGET, PAGE_BUDGET

    return {"page": PAGE_BUDGET, "large": LARGE_BUDGET, "none": None}[name]


class CliError(InputError):
    """A user-input problem found while parsing the command line."""


def _no_file_above(out: Path, what: str) -> None:
    """Refuse a path with a file among its parents (it cannot be created)."""
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise CliError(f"{what}: {parent} is a file, so {out} cannot be created under it.")


def output_path(path: str | Path, *, what: str, suffixes: tuple = ()) -> Path:
    """Check an output file's path before any work: a suffix from ``suffixes``, not a directory, no
    parent that is a file; parents are created. Raises :class:`CliError` naming the problem."""
    out = Path(path)
    if suffixes and out.suffix.lower() not in suffixes:
        raise CliError(f"{what} must name a {'/'.join(suffixes)} file; got {out}.")
    if out.is_dir():
        raise CliError(f"{what}: {out} is a directory; give a file name inside it.")
    _no_file_above(out, what)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{what}: cannot create the folder {out.parent}: {exc.strerror or exc}.") from None
    return out


def output_dir(path: str | Path, *, what: str) -> Path:
    """An output folder: created if missing; a file in its place is refused."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise CliError(f"{what}: {out} is a file; give a folder (it is created if missing).")
    _no_file_above(out, what)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{what}: cannot create the folder {out}: {exc.strerror or exc}.") from None
    return out


def write_atomic(path: Path, data: str | bytes, *, what: str) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, then rename it over
    ``path``: a full disk or a crash leaves the old file intact and no truncated file."""
    import os
    import tempfile

    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CliError(f"{what}: cannot write in {path.parent}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CliError(
            f"{what}: cannot write {path}: {exc.strerror or exc}. The previous file, if any, is unchanged."
        ) from None


def parse_list(text: str, name: str) -> list[float]:
    """Parse ``"0.2,0.2,inf"`` (or ``@file`` with numbers separated by commas/whitespace)."""
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise CliError(f"{name}: file {path} not found. Give @path to an existing text file.")
        if path.stat().st_size > 50_000_000:
            raise CliError(f"{name}: file {path} is larger than 50 MB. Use a smaller file.")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise CliError(f"{name}: file {path} is not UTF-8 text. Save it as plain UTF-8 numbers.") from None
        text = text.replace("\n", ",").replace(" ", ",").replace("\t", ",")
    out = []
    for tok in (t.strip() for t in text.split(",")):
        if not tok:
            continue
        try:
            out.append(float(tok))
        except ValueError:
            raise CliError(
                f"{name}: could not read {tok!r} as a number. Use numbers separated by commas, e.g. 0.2,0.2,inf."
            ) from None
    if not out:
        raise CliError(f"{name}: empty list. Give at least one number.")
    return out


def _no_nan(obj):
    """NaN ("no value": unresolved, not computed) becomes null; ±Infinity stays."""
    if isinstance(obj, float):
        return None if math.isnan(obj) else obj
    if isinstance(obj, dict):
        return {k: _no_nan(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_no_nan(v) for v in obj]
    return obj


def _dump(obj) -> str:
    return json.dumps(_no_nan(obj), indent=None, allow_nan=True)


def _errors_block(errs: np.ndarray) -> dict:
    q25, med, q75 = np.quantile(errs, [0.25, 0.5, 0.75])
    return {
        "errors": errs.tolist(),
        "median": float(med),
        "q25": float(q25),
        "q75": float(q75),
        "mean": float(errs.mean()),
    }


def app_script() -> Path:
    """The dashboard's main script: the installed copy (package ``hetdp_app``, shipped in the wheel with
    the page files, docs and Streamlit settings) or, in a checkout, the repository's ``app.py``."""
    import importlib.util

    spec = importlib.util.find_spec("hetdp_app")
    for d in [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []:
        if (d / "app.py").is_file() and (d / "pages").is_dir():
            return d / "app.py"
    return Path(__file__).resolve().parents[1] / "app.py"


def cmd_app(a) -> int:
    """``hetdp app``: serve the dashboard with the production settings (from an install or a checkout)."""
    if not 1 <= a.port <= 65535:
        raise CliError(f"--port must be in [1, 65535]; got {a.port}.")
    script = app_script()
    if not script.is_file():
        raise CliError(f"the dashboard's files were not found next to the package ({script}); reinstall hetdp.")
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.port",
        str(a.port),
        "--server.address",
        a.address,
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
    ]
    print(f"hetdp app: serving {script.parent} on http://{a.address}:{a.port} (Ctrl-C stops it)", flush=True)
    import os

    os.chdir(script.parent)  # Streamlit reads .streamlit/config.toml from here
    os.execv(sys.executable, cmd)  # the server replaces this process: a signal to it stops the server
    return 0  # pragma: no cover


def cmd_meaning(a) -> int:
    """``hetdp meaning``: the attacker's worst-case posterior for levels ε (or ρ-zCDP at δ)."""
    from hetdp_core.meaning import meaning_table, zcdp_to_eps

    levels = parse_list(a.eps, "--eps")
    eps = zcdp_to_eps(rho=levels, delta=a.delta) if a.zcdp else levels
    import pandas as pd

    lv = pd.DataFrame({"level": [f"{'ρ' if a.zcdp else 'ε'} = {v:g}" for v in levels], "demanded ε": eps})
    table = meaning_table(lv, prior=a.prior, delta=a.delta if a.zcdp else None, fpr=a.fpr)
    solved = None
    if a.target_tpr is not None:
        from hetdp_core.risk import eps_for_tpr, mu_for_tpr

        mu = mu_for_tpr(target_tpr=a.target_tpr, fpr=a.fpr)
        solved = {
            "target_tpr": a.target_tpr,
            "fpr": a.fpr,
            "largest_eps": eps_for_tpr(target_tpr=a.target_tpr, fpr=a.fpr),
            "largest_mu": mu,
            "smallest_sigma_over_sensitivity": 1.0 / mu,
        }
    if a.json:
        print(_dump({"prior": a.prior, "fpr": a.fpr, "rows": table.to_dict(orient="records"), "solve": solved}))
    else:
        for lev, words, risk, adv in zip(
            table["level"], table["in words"], table["risk in words"], table["max advantage"]
        ):
            print(f"{lev}: {words}; {risk}; maximal advantage {adv:.3g}")
        if solved:
            print(
                f"to keep the attack TPR at FPR {a.fpr:g} at or below {a.target_tpr:g}: "
                f"ε ≤ {solved['largest_eps']:.4g} (pure DP), or Gaussian noise "
                f"σ/Δ ≥ {solved['smallest_sigma_over_sensitivity']:.4g}"
            )
    return 0


def cmd_c_vector(a) -> int:
    from hetdp_core.bcdp import mechanism_guarantee, privacy_allocation

    delta = parse_list(a.delta, "--delta")
    alloc = privacy_allocation(delta=delta, eps=a.eps, q=a.q, zeta=a.zeta)
    g = mechanism_guarantee(alloc)
    chk = g.check
    out = {
        "c": alloc.c.tolist(),
        "ldp_level": alloc.ldp_level,
        "zeta": alloc.zeta,
        "guarantee": [
            {"delta": float(dl), "guaranteed": float(gd), "ok": bool(ok)}
            for dl, gd, ok in zip(chk.demanded, chk.guaranteed, chk.ok)
        ],
        "all_ok": chk.all_ok,
    }
    if a.json:
        print(_dump(out))
    else:
        print(f"zeta = {alloc.zeta:.4g}; LDP level delivered c_d = {alloc.ldp_level:.6g} (ε = {alloc.eps:g})")
        cols = [
            "feature",
            "budget c_i",
            "demanded δ",
            "guaranteed δ'",
            "slack",
            "pass",
            "bound from the whole-record level",
            "bound from composition",
        ]
        rows = [
            [
                f"x{i + 1}",
                *(f"{v:.6g}" for v in (alloc.c[i], chk.demanded[i], chk.guaranteed[i], chk.slack[i])),
                "pass" if chk.ok[i] else "FAIL",
                f"{g.prop4_ldp[i]:.6g}",
                f"{g.prop4_composition[i]:.6g}",
            ]
            for i in range(alloc.c.size)
        ]
        widths = [max(len(c), *(len(r[j]) for r in rows)) for j, c in enumerate(cols)]
        for r in [cols, *rows]:
            print(" ".join(v.rjust(w) for v, w in zip(r, widths)))
    return 0 if out["all_ok"] else 1


def cmd_mse(a) -> int:
    from hetdp_core.bcdp_sim import point_rng, run_point

    delta = parse_list(a.delta, "--delta")
    if a.d is not None and a.d != len(delta):
        raise CliError(f"--d is {a.d} but --delta has {len(delta)} entries; give one demand per feature.")
    qs = parse_list(a.q, "--q")
    results = []
    for q in qs:
        rng = point_rng(a.seed, q)  # same numbers as the page's sweep point at this q
        res = run_point(
            n=a.n,
            delta=delta,
            eps=a.eps,
            q=q,
            zeta=a.zeta,
            trials=a.trials,
            rng=rng,
            projection=a.projection,
            baseline_projection=a.baseline_projection,
            scale=a.duchi_scale,
        )
        results.append(
            {
                "q": q,
                "seconds": res.seconds,
                "c": res.allocation.c.tolist(),
                "ldp_level": res.allocation.ldp_level,
                "mmean": {**_errors_block(res.errors_mmean), "exact_mse_no_projection": res.exact_mmean},
                "baseline": {
                    **_errors_block(res.errors_baseline),
                    "level": res.baseline_level,
                    "exact_mse_no_projection": res.exact_baseline,
                },
            }
        )
    params = {
        "n": a.n,
        "d": len(delta),
        "eps": a.eps,
        "delta": delta,
        "q": qs,
        "zeta": a.zeta,
        "trials": a.trials,
        "seed": a.seed,
        "duchi_scale": a.duchi_scale,
        "projection": a.projection,
        "baseline_projection": a.baseline_projection,
    }
    if a.json:
        print(_dump({"params": params, "results": results}))
    else:
        print(f"{'q':>6} {'M_mean median':>14} {'[q25, q75]':>24} {'min-δ LDP median':>17} {'[q25, q75]':>24} {'s':>6}")
        for r in results:
            m, b = r["mmean"], r["baseline"]
            print(
                f"{r['q']:6.3g} {m['median']:14.5g} [{m['q25']:10.4g}, {m['q75']:10.4g}] "
                f"{b['median']:17.5g} [{b['q25']:10.4g}, {b['q75']:10.4g}] {r['seconds']:6.2f}"
            )
    return 0


def cmd_reproduce(a) -> int:
    """A paper figure through the Feature-privacy scenario (``paper_preset``) and its run — the same
    computation as the page's preset and ``hetdp run``; the individual switches ``--duchi-scale``,
    ``--projection`` and ``--baseline-projection`` (combinations the page does not offer) run the
    sweep directly."""
    from hetdp_core.bcdp_sim import MAX_CELLS_CLI, PRESETS, sweep
    from hetdp_core.scenarios import feature_privacy as fp
    from hetdp_ui.figures import mse_sweep_figure  # plotly only, no Streamlit

    key = a.figure
    p = PRESETS[key]
    published = a.variant == "published"
    n = a.n or p.n
    trials = a.trials or p.trials
    q = p.q if a.q is None else a.q
    out = output_dir(a.out, what="--out")
    t0 = time.perf_counter()
    if a.duchi_scale is None and a.projection is None and a.baseline_projection is None:
        s = fp.paper_preset(key, variant=a.variant, trials=trials, n=n, q=q, seed=a.seed)
        with _executor(a) as executor:
            tabs = fp.run(s, max_cells=MAX_CELLS_CLI, budget=budget(a.budget), executor=executor).tables()
        summary, errors = tabs["bcdp_mse_summary"], tabs["bcdp_mse_errors"]
    else:
        scale = a.duchi_scale or ("paper" if published else "unbiased")
        projection = a.projection or ("ball" if published else "box")
        baseline_projection = a.baseline_projection or ("none" if published else "box")
        kw = dict(
            eps=p.eps,
            q=q,
            n=n,
            trials=trials,
            seed=a.seed,
            projection=projection,
            baseline_projection=baseline_projection,
            scale=scale,
        )
        if p.axis == "q":
            delta = [p.delta] * p.k + [p.eps] * (p.d - p.k)
            summary, errors = sweep(axis="q", values=p.values, delta=delta, **kw)
        elif p.axis == "d":
            summary, errors = sweep(axis="d", values=p.values, f=p.k_fraction, delta_sensitive=p.delta, **kw)
        else:
            summary, errors = sweep(axis="f", values=p.values, d=p.d, delta_sensitive=p.delta, **kw)
    secs = time.perf_counter() - t0
    stem = f"{key}_{a.variant}"
    write_atomic(out / f"{stem}_summary.csv", summary.to_csv(index=False), what="--out")
    write_atomic(out / f"{stem}_errors.csv", errors.to_csv(index=False), what="--out")
    # a short title with a wrapped subtitle: one long line was cut off at about 1 100 px
    variant = (
        "as published (printed Duchi constant, ball projection,<br>baseline unprojected)"
        if published
        else "corrected (unbiased Duchi constant)"
    )
    label = f"{p.name}<br><sup>{variant}; n = {n}, T = {trials}, q = {q if p.axis != 'q' else 'swept'}</sup>"
    fig = mse_sweep_figure(summary, p.axis, show_exact=not published, title=label)
    write_atomic(out / f"{stem}.html", fig.to_html(include_plotlyjs=True, full_html=True), what="--out")
    info = {
        "figure": key,
        "variant": a.variant,
        "seconds": secs,
        "files": sorted(str(f) for f in out.glob(f"{stem}*")),
        "note": p.note,
        "summary": summary.drop(columns=["seconds"], errors="ignore").to_dict(orient="records"),
    }
    if a.json:
        print(_dump(info))
    else:
        print(f"{p.name}: {secs:.1f} s; wrote {', '.join(info['files'])}")
        print(summary[[p.axis, "method", "median", "q25", "q75"]].to_string(index=False))
    return 0


def cmd_zcdp_renyi(a) -> int:
    from hetdp_core import zcdp

    alphas = parse_list(a.alpha, "--alpha")
    c = zcdp.renyi_curves(algorithm=a.algorithm, x=a.x, rho=a.rho, r=a.r, alpha=alphas)
    rep = zcdp.check_claim(c)
    out = {
        "alpha": c.alpha.tolist(),
        "up": c.up.tolist(),
        "down": c.down.tolist(),
        "claimed": c.claimed.tolist(),
        "violated": c.violated.tolist(),
        "reference": "alpha*v+xi (paper's claim)" if a.algorithm == 2 else "alpha*rho (post-processing)",
        **rep,
    }
    if a.algorithm == 2:
        out["violation_orders"] = zcdp.algorithm2_violation_orders(x=a.x, r=a.r)
    if rep["unresolved"]:
        out["note"] = (
            f"D_alpha could not be resolved to the numerical tolerance ({zcdp.ALG1_REL_TOL:g} relative) "
            f"for alpha = {', '.join(f'{v:g}' for v in rep['unresolved'])}; those entries are null."
        )
    if a.json:
        print(_dump(out))
    else:
        print(f"Algorithm {a.algorithm}, x = {a.x:g}, rho = {a.rho:g}, r = {a.r:g}; reference: {out['reference']}")
        print(f"{'alpha':>8} {'up':>12} {'down':>12} {'claimed':>12}  ok")
        for al, u, d, cl, bad in zip(c.alpha, c.up, c.down, c.claimed, c.violated):
            if math.isnan(u) or math.isnan(d):
                print(f"{al:8.4g} {'unresolved':>12} {'unresolved':>12} {cl:12.6g}  numerical tolerance not met")
                continue
            print(f"{al:8.4g} {u:12.6g} {d:12.6g} {cl:12.6g}  {'VIOLATED' if bad else 'ok'}")
        if a.algorithm == 2:
            inf = rep["alpha_infinite"]
            print(
                "infinite from alpha: "
                + ", ".join(f"{k} {v:.6g}" for k, v in inf.items() if k != "first" and v is not None)
                + "; first violation of the claim: "
                + (f"alpha = {out['violation_orders']['first']:.6g}" if out["violation_orders"]["first"] else "none")
            )
        if "note" in out:
            print(out["note"])
    return 0


def cmd_zcdp_release(a) -> int:
    from hetdp_core import zcdp

    counts = parse_list(a.counts, "--counts")
    Y = zcdp.release(counts, rho=a.rho, r=a.r, algorithm=a.algorithm, trials=a.trials, rng=a.seed)
    bound = zcdp.accuracy_bound(counts, rho=a.rho, r=a.r, algorithm=a.algorithm)
    err = np.abs(Y - np.asarray(counts))
    out = {
        "counts": counts,
        "released": Y.tolist(),
        "mean": Y.mean(axis=0).tolist(),
        "mean_abs_error": err.mean(axis=0).tolist(),
        "accuracy_bound": bound.tolist(),
    }
    if a.json:
        print(_dump(out))
    else:
        print(f"{'count':>10} {'mean release':>14} {'E|err|':>10} {'bound':>10}")
        for c, m, e, b in zip(counts, out["mean"], out["mean_abs_error"], bound):
            print(f"{c:10g} {m:14.6g} {e:10.4g} {b:10.4g}")
    return 0


def _report_dict(rep) -> dict:
    return {"bcdp": rep.bcdp.tolist(), "cdp": rep.cdp.tolist(), "ldp": rep.ldp, "tv": rep.tv.tolist()}


def cmd_exact(a) -> int:
    from hetdp_core import bcdp_exact as ex

    if a.example == "1":
        prior, mech = ex.example1(a=a.a, b=a.b, c=a.c)
        out = {
            "example": 1,
            "a": a.a,
            "b": a.b,
            "c": a.c,
            **_report_dict(ex.exact_report(prior, mech)),
            "p_one": mech[..., 1].tolist(),
        }
    elif a.example == "2":
        prior, one = ex.example2(copies=1)
        _, two = ex.example2(copies=2)
        xor = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
        out = {
            "example": 2,
            "one_copy": _report_dict(ex.exact_report(prior, one)),
            "two_copies": _report_dict(ex.exact_report(prior, two)),
            "post_processed_xor": _report_dict(ex.exact_report(prior, ex.post_process(one, xor))),
        }
    else:
        c = parse_list(a.rr_c, "--rr-c")
        qs = parse_list(a.q, "--q")
        df = ex.rr_sweep(c=c, qs=qs)
        out = {"example": "rr", "c": c, "rows": df.to_dict(orient="records")}
    if a.json:
        print(_dump(out))
    else:
        print(json.dumps(_no_nan(out), indent=2, allow_nan=True))
    return 0


def cmd_regression(a) -> int:
    from hetdp_core.regression import excess_risk_sweep

    theta = parse_list(a.theta, "--theta")
    values = parse_list(a.values, "--values")
    df = excess_risk_sweep(
        axis=a.axis,
        values=values,
        n=a.n,
        theta=theta,
        noise=a.noise,
        q=a.q,
        k_sensitive=a.k,
        delta=a.delta,
        eps=a.eps,
        radius=a.radius,
        schedule=a.schedule,
        gamma0=a.gamma0,
        steps=a.steps,
        rho=a.rho,
        decay=a.decay,
        trials=a.trials,
        seed=a.seed,
    )
    rows = df.to_dict(orient="records")  # a point without a value: null and the core's reason
    if a.json:
        print(_dump({"axis": a.axis, "rows": rows}))
    else:
        print(df.to_string(index=False, float_format=lambda v: f"{v:.5g}", na_rep="no value"))
    return 0


def _sgd_schedules(a, sensitivity: float):
    from hetdp_core import dpsgd as sg

    g = sg.learning_rates(
        schedule=a.schedule,
        steps=a.steps,
        gamma0=a.gamma0,
        rho=a.rho,
        custom=parse_list(a.custom, "--custom") if a.custom else None,
    )
    av = sg.privacy_schedule(kind="constant" if a.kappa == 0 else "power", steps=a.steps, kappa=a.kappa)
    th = sg.theta(gammas=g, a=av, sensitivity=sensitivity, eps=a.eps)
    return g, av, th


def cmd_sgd_theta(a) -> int:
    g, av, th = _sgd_schedules(a, 1.0 if a.sensitivity is None else a.sensitivity)
    out = {
        "h": list(range(1, a.steps + 1)),
        "theta": th.tolist(),
        "eps_release": (a.eps * av).tolist(),
        "gamma": g.tolist(),
        "sensitivity": 1.0 if a.sensitivity is None else a.sensitivity,
    }
    if a.json:
        print(_dump(out))
    else:
        for h, t, e in list(zip(out["h"], out["theta"], out["eps_release"]))[:20]:
            print(f"h={h:5d}  theta={t:12.6g}  release is {e:.4g}-DP")
        if a.steps > 20:
            print(f"... ({a.steps} steps; use --json for all)")
    return 0


def cmd_sgd_run(a) -> int:
    """Alias of ``hetdp run DP_SGD_schedules``: the page's scenario, seeds and gradient sensitivity."""
    from hetdp_core import dpsgd as sg
    from hetdp_core.scenarios import dp_sgd_schedules as ds

    if a.schedule == "custom" and not a.custom:
        raise CliError("--schedule custom needs --custom, e.g. --custom 0.1,0.05,0.02.")
    s = ds.DpSgdSchedules(
        lr=a.schedule,
        gamma0=a.gamma0,
        rho=a.rho,
        custom=parse_list(a.custom, "--custom") if a.custom else ds.DpSgdSchedules().custom,
        priv="constant" if a.kappa == 0 else "power",
        kappa=a.kappa,
        eps=a.eps,
        problem=a.problem,
        Lambda=a.Lambda,
        lam=a.lam,
        steps=a.steps,
        trials=a.trials,
        compare=a.method != "dpsgd",
        n=a.n,
        seed=a.seed,
    )
    sens = sg.checked_sensitivity(problem=a.problem, Lambda=a.Lambda, override=a.sensitivity)
    if sens != sg.gradient_sensitivity(problem=a.problem, Lambda=a.Lambda):
        g, _, th = _sgd_schedules(a, sens)  # a larger, explicit sensitivity: recalibrate
        x, target = ds.data(s)
        traj = sg.simulate(
            problem=a.problem,
            data=x,
            gammas=g,
            thetas=th,
            trials=a.trials,
            method=a.method,
            lam=a.lam,
            rng=np.random.default_rng([a.seed, 1 + ds.METHODS.index(_METHOD[a.method])]),
        )
        err = np.linalg.norm(traj[:, -1, :] - target, axis=1)
    else:
        s_res = ds.run(s, budget=budget(a.budget))
        target = s_res.values["target"]
        err = s_res.values["final_errors"][_METHOD[a.method]]
    q25, med, q75 = np.quantile(err, [0.25, 0.5, 0.75])
    out = {
        "problem": a.problem,
        "method": a.method,
        "target": np.asarray(target).tolist(),
        "final_error": {"median": float(med), "q25": float(q25), "q75": float(q75)},
        "errors": err.tolist(),
        "converges_in_theory": bool(sg.region(a.rho, a.kappa)) if a.schedule == "poly" else None,
        "sensitivity": sens,
        "link": f"/{s.PAGE}?{s.query_string()}",
    }
    print(
        _dump(out)
        if a.json
        else f"{a.method} on {a.problem}: final |beta - beta*| median {med:.4g} "
        f"[{q25:.4g}, {q75:.4g}] over {a.trials} runs"
    )
    return 0


_METHOD = {"dpsgd": "DP-SGD", "sgd": "SGD (no noise)", "gd": "GD (full gradient)"}


def cmd_mech(a) -> int:
    from hetdp_core import mechanisms as mc

    if a.what == "release":
        out = {
            "releases": mc.release(
                a.value, a.mechanism, sensitivity=a.sensitivity, eps=a.eps, delta=a.delta, size=a.size, rng=a.seed
            ).tolist(),
            "noise_variance": mc.noise_variance(a.mechanism, sensitivity=a.sensitivity, eps=a.eps, delta=a.delta),
        }
    elif a.what == "bounded-laplace":
        b = mc.bounded_laplace_b(sensitivity=a.sensitivity, eps=a.eps, delta=a.delta, lower=a.lower, upper=a.upper)
        out = {"b": b, "plain_laplace_b": a.sensitivity / a.eps}
    elif a.what == "exponential":
        sc = parse_list(a.scores, "--scores")
        out = {
            "scores": sc,
            "exponential": mc.exponential_probabilities(sc, eps=a.eps, sensitivity=a.sensitivity).tolist(),
            "report_noisy_max": mc.report_noisy_max_probabilities(sc, eps=a.eps, sensitivity=a.sensitivity).tolist(),
        }
    else:
        data = parse_list(a.data, "--data")
        r = mc.smooth_noise(
            data, kind=a.kind, eps=a.eps, delta=a.delta, lower=a.lower, upper=a.upper, size=a.size, rng=a.seed
        )
        out = {
            "median": r["median"],
            "local_sensitivity": mc.local_sensitivity_median(data),
            "smooth_sensitivity": r["S"],
            "beta": r["beta"],
            "scale": r["scale"],
            "guarantee": r["guarantee"],
            "releases": r["releases"].tolist(),
        }
    print(_dump(out) if a.json else json.dumps(_no_nan(out), indent=2, allow_nan=True))
    return 0


def cmd_hetero_weights(a) -> int:
    from hetdp_core import hetero as ht

    eps = parse_list(a.eps, "--eps")
    w = ht.weights(eps, algorithm=a.variant, problem=a.problem, k=a.k, beta=a.beta, solver=a.solver)
    out = {
        "weights": w.weights.tolist(),
        "b": w.b,
        "eps_eff": w.eps_eff.tolist(),
        "objective": w.objective,
        "solver": w.solver,
        "t": w.t,
        "note": w.note,
        "bias_bound": ht.bias_bound(w.weights),
    }
    if a.json:
        print(_dump(out))
    else:
        print(
            f"{a.variant} ({w.solver}): b = {w.b:.6g}, objective = {w.objective:.6g}, "
            f"bias bound T = {out['bias_bound']:.4g}"
        )
        for e, wi, ee in list(zip(eps, w.weights, w.eps_eff))[:30]:
            print(f"  eps = {e:<10g} w = {wi:.6g}  eps_eff = {ee:.6g}")
    return 0


def cmd_hetero_run(a) -> int:
    """Alias of ``hetdp run Per_user_privacy``: the page's scenario and seeds."""
    from hetdp_core.scenarios import per_user_privacy as pu

    algs = tuple(s.strip().upper() for s in a.algorithms.split(",") if s.strip())
    s = pu.PerUserPrivacy(
        problem=a.problem,
        dataset="RAND HIE (real)" if a.dataset == "randhie" else "synthetic",
        n=a.n,
        k=a.k,
        demand="by value" if a.eps_by_bin else "groups",
        eps_by_bin=a.eps_by_bin or "1",
        shares=a.shares,
        lows=a.lows,
        highs=a.highs,
        setting=a.setting,
        beta=a.beta,
        algs=algs,
        trials=a.trials,
        solver=a.solver,
        sm_threshold=a.sm_threshold,
        seed=a.seed,
    )
    res = pu.run(s, budget=budget(a.budget))
    errs, infos = res.tables()["hetero_errors"], res.values["infos"]
    results = []
    for alg in algs:
        e = errs[alg].to_numpy()
        results.append({"algorithm": alg, "errors": e.tolist(), **ht_summarize(e, a.beta), "b": infos[alg].get("b")})
    out = {
        "params": {
            "problem": a.problem,
            "dataset": a.dataset,
            "n": int(res.values["eps"].size),
            "k": res.values["k"],
            "setting": a.setting,
            "beta": a.beta,
            "trials": a.trials,
            "seed": a.seed,
        },
        "results": results,
        "link": f"/{s.PAGE}?{s.query_string()}",
    }
    if a.json:
        print(_dump(out))
    else:
        for r in results:
            print(f"{r['algorithm']:>5}: PAC({1 - a.beta:.0%}) = {r['pac']:.5g}   MSE = {r['mse']:.4g}")
    return 0


def ht_summarize(errors, beta):
    from hetdp_core import hetero as ht

    return ht.summarize(errors, beta=beta)


def _last(v):
    """The last value of a query parameter (parse_qs gives lists), or None."""
    if isinstance(v, (list, tuple)):
        return v[-1] if v else None
    return v


def _query_of(a) -> tuple[str, dict]:
    """(page, query mapping) from ``PAGE``, ``--query`` and ``--url``."""
    from urllib.parse import parse_qs, urlsplit

    from hetdp_core.scenarios import get, page_name

    page, query = a.page, {}
    if a.url:
        parts = urlsplit(a.url)
        if parts.path.strip("/"):
            url_page = page_name(parts.path)
            if page and page_name(page) != url_page:
                raise CliError(f"PAGE {page!r} does not match the page of --url ({url_page}); give one of them.")
            page = url_page
        query.update(parse_qs(parts.query, keep_blank_values=True))
    if a.query:
        query.update(parse_qs(a.query.lstrip("?"), keep_blank_values=True))
    if getattr(a, "prior", None) is not None:  # --prior sets the scenario's prior, as prior=… in the link does
        query["prior"] = [repr(float(a.prior))]
    if not page:
        raise CliError("give PAGE (e.g. Feature_privacy) or an app link with --url.")
    page = page_name(page)
    for item in getattr(a, "set", None) or []:  # --set NAME=VALUE, checked against the scenario's fields
        cls = get(page).SCENARIO
        name, eq, value = item.partition("=")
        name = cls.ALIASES.get(name.strip(), name.strip())
        if not eq or name not in cls.specs():
            raise CliError(
                f"--set {item[:60]!r}: give NAME=VALUE with NAME one of {page}'s inputs: {', '.join(cls.specs())}."
            )
        query[name] = [value]
    return page, query


def cmd_solve(a) -> int:
    """``hetdp solve PAGE --query … --target T``: the most private setting that meets T, by the solver
    the page's spec names."""
    from hetdp_core.registry import get, specs

    page, query = _query_of(a)
    solver = get(page).PAGE_SPEC.solver
    if solver is None:
        raise CliError(
            f"PAGE: {page} has no accuracy solver; solvers exist for {', '.join(s.url for s in specs() if s.solver)}."
        )
    return SOLVERS[solver](a, page, get(page).SCENARIO.from_query(query))


def _solve_mechanisms(a, page, s) -> int:
    import dataclasses

    from hetdp_core.solve import solve_mechanisms

    sols = solve_mechanisms(s, target=a.target, metric=a.metric)
    if a.json:
        print(_dump({"metric": a.metric, "target": a.target, "rows": [dataclasses.asdict(r) for r in sols]}))
    else:
        for r in sols:
            print(
                f"{r.mechanism:9s} "
                + (
                    f"ε = {r.eps:.4g}: {a.metric} {r.error:.4g} (simulated {r.simulated:.4g}) {r.reason}"
                    if r.eps is not None
                    else f"no ε in range: {r.reason}"
                )
            )
    return 0


def _print_solution(a, page: str, sol, text) -> int:
    """A scaling solver's answer: JSON (with the link that opens it), or ``text(link)``; exit code 1
    when the fresh check misses the target."""
    import dataclasses
    from urllib.parse import urlencode

    link = f"/{page}?{urlencode(sol.scenario_query)}"
    print(_dump({**dataclasses.asdict(sol), "link": link}) if a.json else text(link))
    return 0 if sol.meets_target else 1


def _solve_per_user(a, page, s) -> int:
    from hetdp_core.solve import solve_per_user

    sol = solve_per_user(s, target=a.target, metric="pac" if a.metric == "q95" else a.metric, algorithm=a.algorithm)
    return _print_solution(
        a,
        page,
        sol,
        lambda link: (
            f"{sol.algorithm}: every finite demand × {sol.scale:.4g} meets {sol.metric} ≤ {sol.target:g} "
            f"({sol.error:.4g}; 10 % more private: {sol.error_10pct_more_private:.4g}); 95 % interval of the "
            f"smallest scaling [{sol.scale_low:.4g}, {sol.scale_high:.4g}] (± {100 * sol.precision:.1f} %, "
            f"{sol.trials_used} trials); fresh check {sol.check_error:.4g} — "
            f"{'meets' if sol.meets_target else 'MISSES'} the target\nlink: {link}"
        ),
    )


def _solve_feature(a, page, s) -> int:
    from hetdp_core.solve import solve_feature_privacy

    sol = solve_feature_privacy(s, target=a.target, check_trials=a.check_trials, statistic=a.statistic)
    return _print_solution(
        a,
        page,
        sol,
        lambda link: (
            f"most private scaling whose {sol.statistic} ‖x̂ − x̄‖² (projection {sol.projection}) is ≤ {sol.target:g}: "
            f"{sol.scale:.4g}× the levels (ε = {sol.eps:.4g}, δ = {', '.join(f'{v:.4g}' for v in sol.delta)}; "
            f"scan resolution ×{sol.grid_ratio:.3g})\n"
            f"simulated {sol.statistic} {sol.error:.4g} (10 % more private: {sol.error_10pct_more_private:.4g}); fresh "
            f"simulation ({sol.check_trials} releases): {sol.check:.4g}, 95 % interval [{sol.check_low:.4g}, "
            f"{sol.check_high:.4g}] — {'meets' if sol.meets_target else 'MISSES'} the target\nlink: {link}"
        ),
    )


#: a page spec's ``solver`` name → the CLI's printer of that solver
SOLVERS = {"mechanisms": _solve_mechanisms, "per_user": _solve_per_user, "feature": _solve_feature}


def cmd_report(a) -> int:
    """``hetdp report PAGE --query … --out FILE.html``: the same standalone report as the page's button."""
    from hetdp_core.meaning import posterior_bounds
    from hetdp_core.scenarios import get
    from hetdp_ui.report import build_report

    page, query = _query_of(a)
    if a.prior is not None:
        posterior_bounds(eps=1.0, prior=a.prior)  # validates --prior before the run
    out = output_path(a.out, what="--out", suffixes=(".html", ".htm"))
    if a.static:
        output_dir(a.static, what="--static")
    mod = get(page)
    scenario = mod.SCENARIO.from_query(query)
    with _executor(a) as executor:
        result = mod.run(scenario, executor=executor, budget=budget(a.budget))
    write_atomic(out, build_report(page, scenario, result, app_url=a.app_url), what="--out")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, opens offline)")
    if a.static:
        from hetdp_ui.report import write_static

        paths = write_static(page, scenario, result, out_dir=a.static, fmt=a.format)
        print(f"wrote {len(paths)} {a.format.upper()} figures to {a.static}")
    return 0 if all(c.holds for c in result.checks) else 1


def cmd_run(a) -> int:
    """``hetdp run PAGE --query …``: the page's scenario and run; its download tables as JSON or CSV."""
    from hetdp_core.scenarios import get

    page, query = _query_of(a)
    mod = get(page)
    scenario = mod.SCENARIO.from_query(query)
    import inspect

    accepts = inspect.signature(mod.run).parameters
    kw = {"budget": budget(a.budget)}
    if a.max_cells and "max_cells" not in accepts:
        raise CliError(f"--max-cells applies to pages with a simulation-size limit; {page} has none. Drop --max-cells.")
    if a.data and not mod.PAGE_SPEC.upload:
        from hetdp_core.registry import specs

        raise CliError(
            f"--data: {page} takes no data file (pages that do: "
            f"{', '.join(s.url for s in specs() if s.upload)}). Drop --data."
        )
    if a.max_cells:
        kw["max_cells"] = a.max_cells
    elif page == "Feature_privacy" and a.budget != "page":
        from hetdp_core.bcdp_sim import MAX_CELLS_CLI

        kw["max_cells"] = MAX_CELLS_CLI if a.budget == "large" else 10**18
    if a.data:
        path = Path(a.data)
        if not path.is_file():
            raise CliError(f"--data: file {path} not found. Give the path of a CSV file.")
        if path.stat().st_size > 20 * 2**20:
            raise CliError(f"--data: {path} is larger than 20 MB, the upload limit. Use a smaller file.")
        kw["upload"] = path.read_bytes()
    with _executor(a) as executor:
        if executor is None and a.budget == "page":  # the page's limits, enforced while it runs
            from hetdp_ui.limits import run_limited

            result = run_limited(page, scenario, start="fork", **kw)
        else:
            result = mod.run(scenario, executor=executor, **kw)
    tables = result.tables()  # privacy_meaning included (the scenario's prior)
    pin = _last(query.get("pin"))
    if pin:  # plan A vs plan B, as the page shows it for a pinned link
        from urllib.parse import parse_qsl

        from hetdp_core.scenario import MAX_PIN_LENGTH

        if len(pin) > MAX_PIN_LENGTH:  # the page's limit for the same parameter
            raise CliError(f"pin (plan A) is {len(pin)} characters long; at most {MAX_PIN_LENGTH}.")
        try:
            plan_a = mod.SCENARIO.from_query(dict(parse_qsl(pin, keep_blank_values=True)))
        except InputError as exc:
            raise CliError(f"pin (plan A in the link) is not a valid scenario: {exc}") from None
        result_a = mod.run(plan_a, budget=kw["budget"])
        from hetdp_core.compare import compare, key_numbers

        tables["plan_a_vs_b"] = compare(key_numbers(mod, result_a), key_numbers(mod, result))
        tables.update({f"plan_a_{name}": df for name, df in result_a.tables().items()})
    if _last(query.get("lesson")):
        print(
            f"note: the link is at lesson {_last(query.get('lesson'))!r}, step {_last(query.get('step')) or '1'}; "
            "the numbers are those of the view it shows (`hetdp lesson key` checks the lesson's answers).",
            file=sys.stderr,
        )
    if a.csv:
        out = output_dir(a.csv, what="--csv")
        for name, df in tables.items():
            write_atomic(out / f"{name}.csv", df.to_csv(index=False), what="--csv")
    if a.json or not a.csv:
        payload = {
            "page": page,
            "query": scenario.to_query(),
            "link": f"/{page}?{scenario.query_string()}",
            "tables": {name: df.to_dict(orient="records") for name, df in tables.items()},
            "checks": [c.to_dict() for c in result.checks],
            "notes": list(result.notes),
        }
        if a.json:
            print(_dump(payload))
        else:
            print(
                f"{page}: {len(tables)} tables "
                f"({', '.join(f'{n} {df.shape[0]}x{df.shape[1]}' for n, df in tables.items())}); "
                f"checks: {'all hold' if all(c.holds for c in result.checks) else 'NUMERICAL FAILURE'}. "
                "Use --json or --csv DIR for the numbers."
            )
    elif a.csv:
        print(f"wrote {len(tables)} CSV files to {a.csv}")
    return 0 if all(c.holds for c in result.checks) else 1


def cmd_lesson_check(a) -> int:
    """``hetdp lesson check FILE…``: schema, every step's page and query, every answer against the core.
    Exit 0 when every file is valid and every answer agrees, 1 when an answer disagrees, 2 for an
    invalid file (the message names the lesson, step, field, rule and fix)."""
    from hetdp_core.lessons import check_lesson, load_lesson

    worst, runs = 0, {}
    for path in a.files:
        try:
            lesson = load_lesson(path)
            checks = check_lesson(lesson, budget=budget(a.budget), runs=runs)
        except InputError as exc:
            print(f"{path}: INVALID: {' '.join(str(exc).split())}")
            worst = 2
            continue
        bad = [c for c in checks if c.status == "wrong"]
        print(
            f"{path}: {lesson.title!r} — {len(checks)} steps, "
            f"{sum(c.status == 'ok' for c in checks)} answers agree with the core"
            + (f", {len(bad)} DISAGREE" if bad else "")
        )
        for c in checks:
            print(f"  step {c.step} ({c.page}): {c.status}: {c.message}")
        if bad:
            worst = max(worst, 1)
    return worst


def cmd_lesson_list(a) -> int:
    """``hetdp lesson list``: the bundled lessons and their app links."""
    from urllib.parse import urlencode

    from hetdp_core.lessons import bundled_lessons

    for lesson in bundled_lessons():
        first = lesson.steps[0]
        link = f"/{first.page}?{urlencode({'lesson': lesson.id, 'step': 1})}" + (
            f"&{first.query}" if first.query else ""
        )
        print(f"{lesson.id}: {lesson.title} ({len(lesson.steps)} steps) — {link}")
    return 0


def cmd_lesson_key(a) -> int:
    """``hetdp lesson key PAGE --query Q --key K``: the value an answer key names (for lesson authors)."""
    from hetdp_core.lessons import evaluate_key
    from hetdp_core.scenarios import get

    page, query = _query_of(a)
    mod = get(page)
    result = mod.run(mod.SCENARIO.from_query(query), budget=budget(a.budget))
    value = evaluate_key(a.key, result.tables(), where="--key")
    print(value if not isinstance(value, bool) else ("yes" if value else "no"))
    return 0


class OneLineParser(argparse.ArgumentParser):
    """argparse prints the whole usage block before a malformed-flag error; we print one line
    naming the flag and where to find the usage (subparsers inherit this class)."""

    def error(self, message: str):
        msg = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {msg} (see '{self.prog} --help')\n")


def cmd_ledger(a) -> int:
    """``hetdp ledger --plan FILE.toml --delta D``: what the whole plan costs each group, by four accountants."""
    from hetdp_core.ledger import ledger, parse_plan

    path = Path(a.plan)
    if not path.is_file():
        raise CliError(
            f"--plan: file {path} not found. Give a plan file (TOML), e.g. data/plans/census-and-survey.toml."
        )
    plan = parse_plan(path.read_bytes())
    result = ledger(plan, delta=a.delta, budget=a.budget, fpr=a.fpr, levels_of=_limited_levels)
    solved = None
    if a.target_tpr is not None:
        from hetdp_core.ledger import plan_toml, solve_noise

        sol = solve_noise(plan, fpr=a.fpr, target_tpr=a.target_tpr, levels_of=_limited_levels)
        solved = {
            "factor": sol.factor,
            "worst_group": sol.worst_group,
            "tpr": sol.tpr,
            "fpr": sol.fpr,
            "target_tpr": sol.target_tpr,
            "plan": plan_toml(sol.plan),
        }
    if a.report:
        from hetdp_ui.report import build_ledger_report

        out = output_path(a.report, what="--report", suffixes=(".html", ".htm"))
        write_atomic(out, build_ledger_report(result), what="--report")
        print(f"wrote {out}", file=sys.stderr)
    if a.notebook:
        from hetdp_ui.notebook import ledger_notebook, notebook_bytes

        out = output_path(a.notebook, what="--notebook", suffixes=(".ipynb",))
        write_atomic(out, notebook_bytes(ledger_notebook(result)), what="--notebook")
        print(f"wrote {out}", file=sys.stderr)
    if a.csv:
        import pandas as pd

        out = output_dir(a.csv, what="--csv")
        write_atomic(out / "ledger.csv", pd.DataFrame(result.totals).to_csv(index=False), what="--csv")
        write_atomic(out / "ledger_spend.csv", pd.DataFrame(result.spend).to_csv(index=False), what="--csv")
    if a.json:
        print(
            _dump(
                {
                    "delta": result.delta,
                    "budget": result.budget,
                    "fpr": result.fpr,
                    "ledger": result.totals,
                    "spend": result.spend,
                    "risk": result.risk,
                    "solve": solved,
                }
            )
        )
    elif not a.csv:
        for row in result.totals:
            extra = (
                f"  reserve {row['reserve']:+.4g}" + ("  OVER BUDGET" if row["over budget"] else "")
                if a.budget is not None
                else ""
            )
            print(
                f"{row['group']:24s} {row['accountant']:6s} ε = {row['epsilon']:.4g} at δ = {row['delta']:.3g}"
                f"  ({row['releases']} releases){extra}"
            )
        for row in result.risk:
            print(f"{row['group']:24s} {row['in words']}; maximal advantage {row['max advantage']:.3g}")
        if solved:
            print(
                f"solve: multiply the noise of the plan's own releases by {solved['factor']:.4g} to keep every "
                f"group's attack TPR at FPR {a.fpr:g} at or below {a.target_tpr:g} (worst: {solved['worst_group']}, "
                f"TPR {solved['tpr']:.4g})"
            )
    return (
        1 if a.budget is not None and any(r["over budget"] and r["accountant"] == "pld" for r in result.totals) else 0
    )


def _limited_levels(link: str):
    """A linked view's level table, its run under the page's limits (memory and time, enforced while
    it runs) — the same reading as the app's."""
    from urllib.parse import parse_qs, urlsplit

    from hetdp_core.scenario import PAGE_BUDGET
    from hetdp_core.scenarios import get
    from hetdp_ui.limits import run_limited

    parts = urlsplit(link)
    page = parts.path
    scenario = get(page).SCENARIO.from_query(parse_qs(parts.query))
    return (
        run_limited(get(page).PAGE_SPEC.url, scenario, budget=PAGE_BUDGET, start="fork").tables().get("privacy_meaning")
    )


def cmd_notebook(a) -> int:
    """``hetdp notebook PAGE --query … --out F.ipynb``: the notebook the page's button gives."""
    from hetdp_ui.notebook import notebook_bytes, page_notebook

    page, query = _query_of(a)
    from urllib.parse import urlencode

    out = output_path(a.out, what="--out", suffixes=(".ipynb",))
    nb = page_notebook(page, urlencode(query, doseq=True), app_url=a.app_url)
    write_atomic(out, notebook_bytes(nb), what="--out")
    print(f"wrote {out} (run it with: jupyter nbconvert --execute --to notebook {out.name})")
    return 0


def _scenario_verb(sub, name: str, help_: str, *, prior: bool = False, dask: bool = True, budget: bool = True):
    """A verb that takes one page's scenario: PAGE (any registered page), --query, --url, --set
    NAME=VALUE (the scenario's own inputs), and optionally --budget, --prior and --dask."""
    ap = sub.add_parser(name, help=help_)
    ap.add_argument(
        "page", nargs="?", default=None, help="page URL path, e.g. Feature_privacy (any case); optional with --url"
    )
    ap.add_argument("--query", default="", help="the page's query string, e.g. 'q=0.3&n=5000&seed=1'")
    ap.add_argument("--url", default=None, help="a full app link (page and query are read from it)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one input of the page's scenario (repeatable; after --query/--url, so it wins), e.g. --set q=0.3",
    )
    if budget:
        ap.add_argument(
            "--budget",
            choices=BUDGET_NAMES,
            default="page",
            help="per-request compute budget: page (the app's: ~10 s, 1 GiB; default), large (1 h, 16 GiB), none",
        )
    if prior:
        ap.add_argument(
            "--prior",
            type=float,
            default=None,
            help="the attacker's prior of the table privacy_meaning (same as prior=… in --query; default 0.01)",
        )
    if dask:
        ap.add_argument(
            "--dask",
            metavar="ADDRESS",
            help="run the sweep points on Dask: 'local' (a LocalCluster of worker processes) or a scheduler "
            "address tcp://host:8786 (needs the [dask] extra)",
        )
    return ap


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="hetdp", description="Heterogeneous differential privacy toolkit.")
    sub = ap.add_subparsers(dest="group", required=True)

    bcdp = sub.add_parser("bcdp", help="feature-specific privacy (BCDP) mean estimation")
    bsub = bcdp.add_subparsers(dest="cmd", required=True)

    cv = bsub.add_parser("c-vector", help="privacy allocation c of Theorem 2 and its guarantee check")
    cv.add_argument("--delta", required=True, help="per-feature demands, e.g. 0.2,0.2,2,inf")
    cv.add_argument("--eps", type=float, required=True, help="global LDP level ε")
    cv.add_argument("--q", type=float, required=True, help="correlation bound q in [0,1]")
    cv.add_argument("--zeta", type=float, default=None, help="ζ in (0,1] (default (1+q)/2)")
    cv.add_argument("--json", action="store_true")
    cv.set_defaults(func=cmd_c_vector)

    ms = bsub.add_parser("mse", help="Monte Carlo squared errors of M_mean and min-δ LDP")
    ms.add_argument("--n", type=int, required=True)
    ms.add_argument("--d", type=int, default=None, help="number of features (= length of --delta)")
    ms.add_argument("--eps", type=float, required=True)
    ms.add_argument("--delta", required=True)
    ms.add_argument("--q", required=True, help="one or more q values, e.g. 0.1,0.5,1")
    ms.add_argument("--zeta", type=float, default=None)
    ms.add_argument("--trials", type=int, default=100)
    ms.add_argument("--seed", type=int, default=0)
    ms.add_argument("--duchi-scale", choices=["unbiased", "paper"], default="unbiased")
    ms.add_argument("--projection", choices=["box", "ball", "none"], default="box")
    ms.add_argument("--baseline-projection", choices=["box", "ball", "none"], default="box")
    ms.add_argument("--json", action="store_true")
    ms.set_defaults(func=cmd_mse)

    zc = sub.add_parser("zcdp", help="group-wise zCDP lab")
    zsub = zc.add_subparsers(dest="cmd", required=True)
    zr = zsub.add_parser("renyi", help="D_alpha in both directions vs the claimed budget")
    zr.add_argument("--algorithm", type=int, choices=[1, 2], required=True)
    zr.add_argument("--x", type=float, required=True, help="group count")
    zr.add_argument("--r", type=float, required=True, help="relative error r")
    zr.add_argument("--rho", type=float, required=True, help="zCDP level rho (sigma^2 = 1/(2 rho))")
    zr.add_argument("--alpha", required=True, help="Renyi orders > 1, e.g. 1.5,2,5,10")
    zr.add_argument("--json", action="store_true")
    zr.set_defaults(func=cmd_zcdp_renyi)
    zl = zsub.add_parser("release", help="release noisy counts")
    zl.add_argument("--counts", required=True, help="group counts, e.g. 0,3,50,400")
    zl.add_argument("--algorithm", type=int, choices=[1, 2], required=True)
    zl.add_argument("--r", type=float, required=True)
    zl.add_argument("--rho", type=float, required=True)
    zl.add_argument("--trials", type=int, default=1)
    zl.add_argument("--seed", type=int, default=0)
    zl.add_argument("--json", action="store_true")
    zl.set_defaults(func=cmd_zcdp_release)

    ex_ = bsub.add_parser("exact", help="exact BCDP/LDP/CDP levels on finite examples")
    ex_.add_argument(
        "--example",
        choices=["1", "2", "rr"],
        required=True,
        help="1: Example 1 (a, b, c); 2: Example 2 (one vs two copies); rr: per-coordinate "
        "randomized response under the q-mixture prior",
    )
    ex_.add_argument("--a", type=float, default=0.5)
    ex_.add_argument("--b", type=float, default=0.5)
    ex_.add_argument("--c", type=float, default=0.5)
    ex_.add_argument("--rr-c", default="0.3,0.3,0.3", help="RR levels per coordinate (d <= 10)")
    ex_.add_argument("--q", default="0,0.25,0.5,0.75,1", help="q values for --example rr")
    ex_.add_argument("--json", action="store_true")
    ex_.set_defaults(func=cmd_exact)

    rg = sub.add_parser("regression", help="private least squares (Algorithm 2) vs baselines")
    rg.add_argument("--axis", choices=["n", "eps"], default="n")
    rg.add_argument("--values", default="1000,10000,100000", help="values of n or eps to sweep")
    rg.add_argument("--n", type=int, default=10_000, help="users (when sweeping eps)")
    rg.add_argument("--theta", default="0.5,-0.3,0.2", help="true coefficients (features = len)")
    rg.add_argument("--noise", type=float, default=0.1)
    rg.add_argument("--q", type=float, default=0.1, help="feature correlation")
    rg.add_argument("--k", type=int, default=1, help="sensitive features (demand --delta)")
    rg.add_argument("--delta", type=float, default=2.0)
    rg.add_argument("--eps", type=float, default=8.0)
    rg.add_argument("--radius", type=float, default=1.0)
    rg.add_argument("--schedule", choices=["constant", "poly", "inverse"], default="constant")
    rg.add_argument("--gamma0", type=float, default=1.0)
    rg.add_argument("--steps", type=int, default=200)
    rg.add_argument("--rho", type=float, default=0.5)
    rg.add_argument(
        "--decay",
        "--lam",
        dest="decay",
        type=float,
        default=0.1,
        help="decay rate λ of the inverse schedule (--lam: old name)",
    )
    rg.add_argument("--trials", type=int, default=10)
    rg.add_argument("--seed", type=int, default=0)
    rg.add_argument("--json", action="store_true")
    rg.set_defaults(func=cmd_regression)

    sgp = sub.add_parser("sgd", help="DP-SGD schedules (Theorems 36-37)")
    ssub = sgp.add_subparsers(dest="cmd", required=True)
    for name, func, hlp in (
        ("theta", cmd_sgd_theta, "noise scales theta_h and per-release guarantees"),
        ("run", cmd_sgd_run, "simulate DP-SGD / SGD / GD on Example 33 or 34"),
    ):
        sp = ssub.add_parser(name, help=hlp)
        sp.add_argument("--schedule", choices=["constant", "poly", "step", "custom"], default="poly")
        sp.add_argument("--rho", type=float, default=0.5, help="learning-rate decay exponent")
        sp.add_argument("--gamma0", type=float, default=0.1)
        sp.add_argument("--custom", default=None, help="custom learning rates, e.g. 0.1,0.05,0.02")
        sp.add_argument("--kappa", type=float, default=0.0, help="privacy schedule a_h = h^kappa (0: constant)")
        sp.add_argument("--eps", type=float, default=1.0)
        sp.add_argument(
            "--sensitivity",
            type=float,
            default=None,
            help="gradient sensitivity Delta (theta: default 1; run: the example's own, "
            "2*Lambda or 4(1+2R); a smaller value is refused)",
        )
        sp.add_argument("--steps", type=int, default=100)
        sp.add_argument("--json", action="store_true")
        sp.set_defaults(func=func)
        if name == "run":
            sp.add_argument("--problem", choices=["mean", "ridge"], default="mean")
            sp.add_argument("--method", choices=["dpsgd", "sgd", "gd"], default="dpsgd")
            sp.add_argument("--n", type=int, default=1000)
            sp.add_argument("--Lambda", type=float, default=5.0, help="clipping level for Example 33")
            sp.add_argument("--lam", type=float, default=0.1, help="ridge penalty for Example 34")
            sp.add_argument(
                "--trials", "--runs", dest="trials", type=int, default=50, help="independent runs (--runs: old name)"
            )
            sp.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
            sp.add_argument("--seed", type=int, default=0)

    mp = sub.add_parser("mech", help="mechanism catalogue (lectures 17-20)")
    mp.add_argument("what", choices=["release", "bounded-laplace", "exponential", "smooth-median"])
    mp.add_argument("--mechanism", choices=["laplace", "gaussian", "mnm"], default="laplace")
    mp.add_argument("--value", type=float, default=0.0)
    mp.add_argument("--sensitivity", type=float, default=1.0)
    mp.add_argument("--eps", type=float, default=1.0)
    mp.add_argument("--delta", type=float, default=1e-5)
    mp.add_argument("--lower", type=float, default=0.0)
    mp.add_argument("--upper", type=float, default=1.0)
    mp.add_argument("--scores", default="15,20,25")
    mp.add_argument("--data", default="0,0,0,0,0,0,1,1,1,1,1")
    mp.add_argument("--kind", choices=["laplace", "heavy", "gaussian"], default="laplace")
    mp.add_argument("--size", type=int, default=5)
    mp.add_argument("--seed", type=int, default=0)
    mp.add_argument("--json", action="store_true")
    mp.set_defaults(func=cmd_mech)

    hp = sub.add_parser("hetero", help="per-user privacy: heterogeneous DP for frequencies and means")
    hsub = hp.add_subparsers(dest="cmd", required=True)
    hw = hsub.add_parser("weights", help="weights, noise scale and effective privacy of one algorithm")
    hw.add_argument("--problem", choices=["frequency", "mean"], required=True)
    hw.add_argument("--variant", choices=["CP", "CE", "UP", "UE", "A", "CT", "UT", "UNI", "PROP"], required=True)
    hw.add_argument("--eps", required=True, help="demands, e.g. 0.1,0.5,inf or @file")
    hw.add_argument("--k", type=int, default=5)
    hw.add_argument("--beta", type=float, default=0.05)
    hw.add_argument("--solver", choices=["fast", "cvxpy"], default="fast")
    hw.add_argument("--json", action="store_true")
    hw.set_defaults(func=cmd_hetero_weights)
    hr = hsub.add_parser("run", help="error samples per algorithm")
    hr.add_argument("--problem", choices=["frequency", "mean"], default="frequency")
    hr.add_argument("--dataset", choices=["synthetic", "randhie"], default="synthetic")
    hr.add_argument("--n", type=int, default=10_000)
    hr.add_argument("--k", type=int, default=5)
    hr.add_argument("--eps-by-bin", default="0.05,0.5,2,0.5,0.05", help="correlated demand per bin ('' for groups)")
    hr.add_argument("--shares", default="0.3,0.5,0.2")
    hr.add_argument("--lows", default="0.01,0.1,1")
    hr.add_argument("--highs", default="0.1,1,5")
    hr.add_argument("--setting", choices=["correlated", "uncorrelated"], default="correlated")
    hr.add_argument("--algorithms", default="CP,CE,UP,UE,A,UNI,PROP,SM,LDP")
    hr.add_argument("--beta", type=float, default=0.05)
    hr.add_argument("--trials", type=int, default=200)
    hr.add_argument("--seed", type=int, default=0)
    hr.add_argument("--solver", choices=["fast", "cvxpy"], default="fast")
    hr.add_argument("--sm-threshold", choices=["max_finite", "max"], default="max_finite")
    hr.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget (see hetdp run)")
    hr.add_argument("--json", action="store_true")
    hr.set_defaults(func=cmd_hetero_run)

    run = _scenario_verb(sub, "run", "run a page's scenario: every table the page offers, as JSON or CSV", prior=True)
    run.add_argument("--json", action="store_true", help="print the tables as JSON")
    run.add_argument("--csv", default=None, metavar="DIR", help="write one CSV per table into DIR")
    run.add_argument("--data", default=None, metavar="FILE", help="CSV file for pages whose source is 'upload'")
    run.add_argument(
        "--max-cells", type=int, default=None, help="compute budget in random numbers (default: the page's budget)"
    )
    run.set_defaults(func=cmd_run)

    sv = _scenario_verb(
        sub, "solve", "what privacy do I need for this accuracy? (pages with a solver)", dask=False, budget=False
    )
    sv.add_argument(
        "--target",
        type=float,
        required=True,
        help="target error: Feature_privacy's squared error ‖x̂ − x̄‖² (see --statistic), the "
        "mechanism lab's error of one release, Per_user_privacy's error (see --metric)",
    )
    sv.add_argument(
        "--check-trials",
        type=int,
        default=400,
        help="Feature_privacy: simulated releases per refinement step and for the fresh check",
    )
    sv.add_argument(
        "--statistic",
        choices=("median", "mean"),
        default="median",
        help="Feature_privacy: the median over releases (the page's plotted curve) or the mean",
    )
    sv.add_argument(
        "--metric",
        choices=("mse", "q95"),
        default="mse",
        help="mse, or q95: Mechanism_lab's 95 %% error quantile / Per_user_privacy's PAC error (the (1-β)-quantile)",
    )
    sv.add_argument(
        "--algorithm", default=None, help="Per_user_privacy: the algorithm to solve for (default: the first)"
    )
    sv.add_argument("--json", action="store_true")
    sv.set_defaults(func=cmd_solve)

    rep_ = _scenario_verb(sub, "report", "a standalone HTML report of a page's scenario (opens offline)", prior=True)
    rep_.add_argument("--out", required=True, help="the HTML file to write")
    rep_.add_argument("--app-url", default="http://localhost:8501", help="base of the link that reopens the view")
    rep_.add_argument("--static", metavar="DIR", help="also write every figure as a static image here (kaleido)")
    rep_.add_argument("--format", choices=("png", "svg"), default="png", help="static image format")
    rep_.set_defaults(func=cmd_report)

    lg = sub.add_parser("ledger", help="a release plan's total privacy loss per group (basic, zCDP, RDP, PLD)")
    lg.add_argument("--plan", required=True, metavar="FILE", help="the plan (TOML): [[release]] tables, see README")
    lg.add_argument("--delta", type=float, default=1e-6, help="the δ at which every total is read (default 1e-6)")
    lg.add_argument("--budget", type=float, default=None, help="the ε the plan may spend: reserve and warnings")
    lg.add_argument("--fpr", type=float, default=0.01, help="the attack false-positive rate of the risk (default 0.01)")
    lg.add_argument(
        "--target-tpr",
        type=float,
        default=None,
        help="solve from a target risk: the smallest noise factor for the plan's own releases keeping every "
        "group's attack TPR at --fpr at or below this",
    )
    lg.add_argument("--json", action="store_true")
    lg.add_argument("--csv", default=None, metavar="DIR", help="write ledger.csv and ledger_spend.csv into DIR")
    lg.add_argument("--report", default=None, metavar="FILE.html", help="write a standalone HTML report of the ledger")
    lg.add_argument(
        "--notebook", default=None, metavar="FILE.ipynb", help="write a Jupyter notebook that recomputes it"
    )
    lg.set_defaults(func=cmd_ledger)

    nbk = _scenario_verb(
        sub,
        "notebook",
        "a Jupyter notebook that recomputes a page's view (runs in a fresh kernel)",
        dask=False,
        budget=False,
    )
    nbk.add_argument("--out", required=True, metavar="FILE.ipynb", help="the notebook to write")
    nbk.add_argument("--app-url", default="http://localhost:8501", help="base of the link back to the view")
    nbk.set_defaults(func=cmd_notebook)

    app_ = sub.add_parser("app", help="serve the dashboard (production settings) from this install")
    app_.add_argument("--port", type=int, default=8501)
    app_.add_argument("--address", default="localhost", help="address to listen on (0.0.0.0: every interface)")
    app_.set_defaults(func=cmd_app)

    mn = sub.add_parser("meaning", help="what a privacy level means: an attacker's worst-case posterior")
    mn.add_argument("--eps", required=True, help="levels, e.g. 0.1,1,2,inf (with --zcdp: zCDP levels ρ)")
    mn.add_argument("--prior", type=float, default=0.01, help="the attacker's prior probability p in (0, 1)")
    mn.add_argument("--zcdp", action="store_true", help="the levels are ρ-zCDP: convert to (ε, δ) first")
    mn.add_argument("--delta", type=float, default=1e-6, help="δ of the zCDP conversion (default 1e-6)")
    mn.add_argument("--fpr", type=float, default=0.01, help="the attack false-positive rate (default 0.01)")
    mn.add_argument(
        "--target-tpr",
        type=float,
        default=None,
        help="solve from a target risk: the largest ε and smallest Gaussian σ/Δ whose attack TPR at --fpr stays "
        "at or below this",
    )
    mn.add_argument("--json", action="store_true")
    mn.set_defaults(func=cmd_meaning)

    ls_ = sub.add_parser(
        "lesson", help="lessons: validate a lesson file, list the bundled ones, evaluate an answer key"
    )
    lsub = ls_.add_subparsers(dest="lesson_cmd", required=True)
    lc = lsub.add_parser(
        "check", help="validate lesson files (schema, pages, queries) and check every answer against the core"
    )
    lc.add_argument("files", nargs="+", metavar="FILE", help="lesson files (.toml)")
    lc.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget of each step's run")
    lc.set_defaults(func=cmd_lesson_check)
    ll = lsub.add_parser("list", help="the bundled lessons and their app links")
    ll.set_defaults(func=cmd_lesson_list)
    lk = lsub.add_parser("key", help="the value an answer key names at a scenario (for lesson authors)")
    lk.add_argument("page", nargs="?", default=None, help="page URL path, e.g. Feature_privacy; optional with --url")
    lk.add_argument("--query", default="", help="the step's query string")
    lk.add_argument("--url", default=None, help="a full app link (page and query are read from it)")
    lk.add_argument("--key", required=True, help="e.g. 'bcdp_guarantee[feature=x1].budget c_i'")
    lk.add_argument("--budget", choices=BUDGET_NAMES, default="page", help="compute budget of the run")
    lk.set_defaults(func=cmd_lesson_key)

    rp = sub.add_parser("reproduce", help="reproduce a paper figure: CSV + standalone HTML")
    rp.add_argument("figure", choices=FIGURES)
    rp.add_argument("--out", required=True, help="output directory")
    rp.add_argument(
        "--variant",
        choices=["published", "corrected"],
        default="published",
        help="published: printed Duchi constant, ball projection, unprojected baseline "
        "(as the authors' code); corrected: unbiased constant, box projection",
    )
    rp.add_argument("--n", type=int, default=None)
    rp.add_argument("--q", type=float, default=None, help="q for fig4a/fig4b (paper text 0.1)")
    rp.add_argument("--trials", type=int, default=None)
    rp.add_argument("--seed", type=int, default=0)
    rp.add_argument("--duchi-scale", choices=["unbiased", "paper"], default=None)
    rp.add_argument("--projection", choices=["box", "ball", "none"], default=None)
    rp.add_argument("--baseline-projection", choices=["box", "ball", "none"], default=None)
    rp.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the sweep points on Dask: 'local' (a LocalCluster of "
        "worker processes) or a scheduler address tcp://host:8786 (needs the [dask] extra)",
    )
    rp.add_argument(
        "--budget",
        choices=BUDGET_NAMES,
        default="large",
        help="compute budget; paper-scale runs need 'large' (the default here)",
    )
    rp.add_argument("--json", action="store_true")
    rp.set_defaults(func=cmd_reproduce)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)  # argparse itself exits 2 on malformed flags
    try:
        return int(args.func(args))
    except InputError as exc:  # only input problems; anything else is a bug
        msg = " ".join(str(exc).split())
        print(f"hetdp: error: {msg}", file=sys.stderr)
        return 2
    except ClusterError as exc:  # the Dask cluster (unreachable, workers dying): exit 3
        print(f"hetdp: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 3
    except OSError as exc:  # a file the user named: unreadable, unwritable, disk full
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"hetdp: error: cannot use{where}: {exc.strerror or exc}.", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
