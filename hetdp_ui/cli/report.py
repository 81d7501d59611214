"""``hetdp report PAGE``: the page's standalone HTML report."""

from __future__ import annotations

import sys

from hetdp_core.framework.scenario import RunOptions
from hetdp_ui.cli._common import _executor, _query_of, _scenario_verb, budget, output_dir, output_path, write_atomic


def cmd_report(a) -> int:
    """``hetdp report PAGE --query … --out FILE.html``: the same standalone report as the page's button."""
    from hetdp_core.reading.meaning import posterior_bounds
    from hetdp_core.scenarios import get
    from hetdp_ui.report import build_report

    page, query = _query_of(a)
    if a.prior is not None:
        posterior_bounds(eps=1.0, prior=a.prior)  # validates --prior before the run
    out = output_path(a.out, what="--out", suffixes=(".html", ".htm"))
    if a.static:
        output_dir(a.static, what="--static")
    mod = get(page)
    pin = query.pop("pin", None)  # a pinned plan A in the link (--url or --query): the report compares it
    scenario = mod.SCENARIO.from_query(query)
    with _executor(a) as executor:
        options = RunOptions(executor=executor, budget=budget(a.budget))
        result = mod.run(scenario, options=options)
        plan_a = None
        if pin:
            from urllib.parse import parse_qs

            sa = mod.SCENARIO.from_query(parse_qs(pin[-1], keep_blank_values=True))
            plan_a = (sa, mod.run(sa, options=options))
    write_atomic(out, build_report(page, scenario, result, app_url=a.app_url, plan_a=plan_a), what="--out")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, opens offline)")
    if a.static:
        from hetdp_ui.report import write_static
        from hetdp_ui.static_export import StaticExportError

        try:
            paths = write_static(page, scenario, result, out_dir=a.static, fmt=a.format)
        except StaticExportError as exc:  # the machine's Chromium, not the input: exit 3, as a cluster's failure
            print(f"hetdp: error: {exc}", file=sys.stderr)
            return 3
        print(f"wrote {len(paths)} {a.format.upper()} figures to {a.static}")
    return 0 if all(c.holds for c in result.checks) else 1


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    rep_ = _scenario_verb(sub, "report", "a standalone HTML report of a page's scenario (opens offline)", prior=True)
    rep_.add_argument("--out", required=True, help="the HTML file to write")
    rep_.add_argument("--app-url", default="http://localhost:8501", help="base of the link that reopens the view")
    rep_.add_argument("--static", metavar="DIR", help="also write every figure as a static image here (kaleido)")
    rep_.add_argument("--format", choices=("png", "svg"), default="png", help="static image format")
    rep_.set_defaults(func=cmd_report)
