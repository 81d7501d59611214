"""``hetdp reproduce``: a figure of the BCDP paper (this page's presets) as CSV and a standalone HTML figure."""

from __future__ import annotations

import time

from hetdp_core.framework.scenario import RunOptions
from hetdp_ui.cli._common import BUDGET_NAMES, FIGURES, _dump, _executor, budget, output_dir, write_atomic


def cmd_reproduce(a) -> int:
    """A paper figure through the Feature-privacy scenario (``paper_preset``) and its run — the same
    computation as the page's preset and ``hetdp run``; the individual switches ``--duchi-scale``,
    ``--projection`` and ``--baseline-projection`` (combinations the page does not offer) run the
    sweep directly."""
    from hetdp_core.per_feature.bcdp_sim import PRESETS, sweep
    from hetdp_core.scenarios import feature_privacy as fp
    from hetdp_ui.csvfile import csv_text
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
            tabs = fp.run(s, options=RunOptions(budget=budget(a.budget), executor=executor)).tables()
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
            demands = [p.demand] * p.k + [p.eps] * (p.d - p.k)
            summary, errors = sweep(axis="q", values=p.values, demands=demands, **kw)
        elif p.axis == "d":
            summary, errors = sweep(axis="d", values=p.values, f=p.k_fraction, demand_sensitive=p.demand, **kw)
        else:
            summary, errors = sweep(axis="f", values=p.values, d=p.d, demand_sensitive=p.demand, **kw)
    secs = time.perf_counter() - t0
    stem = f"{key}_{a.variant}"
    write_atomic(out / f"{stem}_summary.csv", csv_text(summary), what="--out")
    write_atomic(out / f"{stem}_errors.csv", csv_text(errors), what="--out")
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


def register(sub, groups) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands (``groups``: not used)."""
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
