"""A report to take away: one standalone HTML file per scenario (Streamlit-free).

The file opens offline: plotly.js is embedded once, every figure is interactive. It holds the
page's question, the parameter table, the guarantee checks, the figures, what the privacy levels
mean for a person (for a stated prior), the link that reopens the same view in the app, and the
software versions and seed. The page's "Download a report" button and ``hetdp report PAGE --query
… --out FILE.html`` call :func:`build_report` with the same scenario and result. The release ledger's
report is built in its folder (its ``downloads.py``) from this module's stylesheet,
tables and figure blocks.
"""

from __future__ import annotations

import html
import platform

import numpy as np
import plotly
import plotly.graph_objects as go

#: also the parts a tool page's own report is built from (the release ledger's, in its folder):
#: ``CSS``, :func:`html_table`, :func:`figure_html`, :func:`context_html`
__all__ = ["report_figures", "build_report", "write_static", "CSS", "html_table", "figure_html", "context_html"]


def report_figures(page: str, scenario, result, *, placed=None) -> list[tuple[str, go.Figure]]:
    """The report's figures of ``page``: every figure its folder declares (``pages/<slug>/figures.py``,
    the list the page draws from) that this view has, then the trade-off curves of its privacy levels
    when it states any and their places among real deployments (``placed``: already computed by the
    caller, else computed here)."""
    from hetdp_ui.folders import figures

    figs = [
        (f.title_for(scenario, result), f.build(scenario, result)) for f in figures(page) if f.applies(scenario, result)
    ]
    if result.meaning:  # risk in attack terms: every page that states a level
        from hetdp_core.framework.scenario import levels_of
        from hetdp_core.reading.deployments import placement_of
        from hetdp_ui.context_figures import deployments_strip
        from hetdp_ui.risk_figures import tradeoff_figure

        figs.append(
            ("What an attacker can do at each false-positive rate (trade-off curves)", tradeoff_figure(result.meaning))
        )
        placed = placement_of(levels_of(result)) if placed is None else placed
        if placed:
            figs.append(("Your levels among real deployments", deployments_strip(placed)))
    return figs


def context_html(placed) -> list[str]:
    """A report's HTML placing the levels among real deployments: the sentences, the cautions and the
    caveat (nothing when nothing is placed)."""
    from hetdp_core.reading.deployments import CAVEAT

    if not placed:
        return []
    return [
        "<h3>Among real deployments</h3><ul>",
        *(f"<li>{html.escape(p.sentence)}</li>" for p in placed),
        "</ul>",
        *(f"<p><b>{html.escape(c)}</b></p>" for c in dict.fromkeys(p.caution for p in placed if p.caution)),
        f"<p class='small'>{html.escape(CAVEAT)} Data: the Differential Privacy Deployments Registry's public "
        "records.</p>",
    ]


def write_static(page: str, scenario, result, *, out_dir, fmt: str = "png", timeout: float | None = None) -> list:
    """Each report figure as a static PNG or SVG file (kaleido, which drives a headless Chromium;
    optional extra ``[static]``), in a child process stopped after ``timeout`` seconds (default: a
    start plus a share per figure, :func:`hetdp_ui.static_export.limit_for`; raises
    :class:`hetdp_ui.static_export.StaticExportError`). Returns the paths written."""
    from pathlib import Path

    from hetdp_core.framework.scenario import InputError

    if fmt not in ("png", "svg"):
        raise InputError(f"format must be png or svg; got {fmt!r}.")
    try:
        import kaleido  # noqa: F401
    except ImportError:
        raise InputError(
            "static export needs kaleido: pip install 'hetdp[static]' (or .venv/bin/pip install -e '.[static]')."
        ) from None
    from hetdp_ui.static_export import write_images

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = []
    for i, (name, fig) in enumerate(report_figures(page, scenario, result)):
        slug = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")[:50]
        jobs.append((fig, out / f"{page}-{i + 1:02d}-{slug}.{fmt}"))
    write_images(jobs, fmt=fmt, width=1000, height=600, timeout=timeout)
    return [path for _, path in jobs]


def html_table(rows: list[dict], *, digits: int = 5) -> str:
    """Rows (dicts with the same keys) as an HTML table, numbers to ``digits`` significant digits."""
    if not rows:
        return "<p>(none)</p>"
    cols = list(rows[0])

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return f"{v:.{digits}g}"
        return str(v)

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell(r.get(c, '')))}</td>" for c in cols) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5em 0; font-size: .9em; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
a, code { word-break: break-all; }
.ok { color: #1a7f37; } .bad { color: #b42318; font-weight: bold; } .small { color: #555; font-size: .85em; }
.summary { background: #f4f6f8; border-left: 4px solid #0072B2; padding: .6em 1em; }
@media print {
  body { max-width: none; margin: 1cm; font-size: 10.5pt; color: #000; }
  a { color: #000; text-decoration: none; }
  h2 { break-after: avoid; } table, figure, .plotly-graph-div { break-inside: avoid; }
  .modebar, .modebar-container { display: none !important; }
  .summary { border-left: 2pt solid #000; background: none; }
}
"""

#: per page, the tables that carry its main results (shown in the report's "Key results")
#: rows of a key table shown in the report (the CSV downloads and `hetdp run` have them all)
KEY_ROWS = 40


def _value_text(spec, value) -> str:
    """A parameter's value as the page's widget shows it: the label of a choice, yes/no, numbers in %g."""
    if spec.kind == "bool":
        return "yes" if value else "no"
    if spec.kind == "choice":
        return spec.label_of(value)
    if isinstance(value, tuple):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _parameters(scenario) -> list[dict]:
    """The parameters in words: the widget's label, the value, and the URL name in small print."""
    return [
        {"parameter": sp.label or name, "value": _value_text(sp, getattr(scenario, name)), "in the link": name}
        for name, sp in scenario.specs().items()
    ]


def _summary(result, meaning) -> str:
    """The run in short (:func:`hetdp_core.framework.scenario.in_short`, as on the page) and its notes."""
    from hetdp_core.framework.scenario import in_short

    return " ".join([*in_short(result, meaning), *map(str, result.notes)])


def _bold(text: str) -> str:
    """Markdown's inline emphasis as HTML, in already escaped text: **bold**, *italic*, `code` (the page
    texts are written in Markdown; a report showed their asterisks)."""
    import re

    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", text)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)


def figure_html(fig: go.Figure, div_id: str, *, first: bool) -> str:
    """A figure of a report and its summary in words; the first figure carries plotly.js."""
    from hetdp_ui.figcache import summary_text

    return (
        fig.to_html(full_html=False, include_plotlyjs=first, div_id=div_id, config={"displaylogo": False})
        + f"<p class='small'>Chart in words: {html.escape(summary_text(fig))}</p>"
    )


def _plan_a_html(mod, scenario, result, plan_a) -> list[str]:
    """Plan A (pinned) vs plan B: the parameters that differ and every key number side by side."""
    from hetdp_core.reading.compare import compare, key_numbers

    sa, ra = plan_a
    diff = [
        {
            "parameter": sp.label or name,
            "plan A": _value_text(sp, getattr(sa, name)),
            "plan B": _value_text(sp, getattr(scenario, name)),
        }
        for name, sp in scenario.specs().items()
        if getattr(sa, name) != getattr(scenario, name)
    ]
    parts = [
        "<h2>Plan A (pinned) vs plan B (this view)</h2>",
        "<p>What differs between the two plans:</p>",
        html_table(diff),
    ]
    parts += [
        "<p>Every guarantee and accuracy figure of both plans, with the difference B − A:</p>",
        html_table(compare(key_numbers(mod, ra), key_numbers(mod, result)).to_dict(orient="records")),
    ]
    return parts


def _key_results_html(mod, result) -> list[str]:
    """The page's key tables (its spec's ``key_tables``; else its first table), first KEY_ROWS rows each."""
    parts = []
    tables = result.tables()
    keys = [k for k in mod.PAGE_SPEC.key_tables if k in tables] or [k for k in tables if k != "privacy_meaning"][:1]
    if keys:
        parts.append("<h2>Key results</h2>")
        for k in keys:
            df = tables[k]
            note = (
                f" (first {KEY_ROWS} of {len(df)} rows; the CSV download and <code>hetdp run</code> have all)"
                if len(df) > KEY_ROWS
                else ""
            )
            parts += [f"<h3>{html.escape(k)}{note}</h3>", html_table(df.head(KEY_ROWS).to_dict(orient="records"))]
    return parts


def _meaning_html(meaning, prior: float, placed: list) -> list[str]:
    """What the levels mean for a person (posterior, attack terms, the view's levels ``placed`` among real
    deployments), or why none is stated (``meaning`` None)."""
    if not meaning:
        return [
            "<h2>What the privacy levels mean for a person</h2>",
            "<p>This view states no privacy level (for group-wise zCDP: Algorithm 2's per-group claim "
            "does not hold; Algorithm 1 is ρ-zCDP for every group).</p>",
        ]
    return [
        f"<h2>What the privacy levels mean for a person (attacker's prior {100 * prior:g} %)</h2>",
        "<p class='small'>An attacker who believes with probability p that a person has the protected "
        "attribute can, after seeing the output of a level-ε mechanism, believe at most "
        "e<sup>ε</sup>p / (1 + (e<sup>ε</sup> − 1)p) (upper bounds rounded up).</p><ul>",
        *(f"<li><b>{html.escape(r.level.name)}</b>: {html.escape(r.in_words)}</li>" for r in meaning.rows),
        "</ul>",
        f"<h3>In attack terms (false-positive rate {100 * meaning.fpr:g} %)</h3>",
        "<p class='small'>An attacker tries to tell from the output whether a person is the one in question. "
        "At a given false-positive rate (people wrongly flagged) no attack catches more than the "
        "true-positive rate below; the maximal advantage is the most its hit rate can exceed its "
        "false-alarm rate.</p><ul>",
        *(
            f"<li><b>{html.escape(r.level.name)}</b>: {html.escape(r.risk_in_words)}; "
            f"maximal advantage {r.max_advantage:.3g}</li>"
            for r in meaning.rows
        ),
        "</ul>",
        html_table(meaning.table(words=False).to_dict(orient="records")),
        *context_html(placed),
        "<p class='small'>The trade-off curves and the strip of real deployments are the last figures below.</p>",
    ]


def _checks_html(result) -> list[str]:
    """The guarantee checks the run verified: each holds, or is reported as a numerical failure."""
    items = "".join(
        f"<li class='{'ok' if c.holds else 'bad'}'>{'holds' if c.holds else 'NUMERICAL FAILURE'}: "
        f"{html.escape(c.name)}</li>"
        for c in result.checks
    )
    return [
        "<h2>Guarantee checks</h2>",
        "<p class='small'>Every number shown as a guarantee is checked against the bound that provably "
        "holds; a failure would be a numerical failure of this software, not a finding.</p>",
        f"<ul>{items or '<li>(no checks for this view)</li>'}</ul>",
    ]


def build_report(
    page: str, scenario, result, *, prior: float | None = None, app_url: str = "http://localhost:8501", plan_a=None
) -> str:
    """The standalone HTML report of ``scenario`` and its ``result``, written as a decision record:
    the question, a plain summary, plan A vs plan B (``plan_a`` = (scenario, result) of the pinned
    view), the key results, the guarantees and what they mean for a person, how to reopen the view
    (``app_url``: the server the report was downloaded from), the figures and provenance. Printable
    (print CSS: "Save as PDF" gives a clean document). ``prior`` defaults to the scenario's own."""
    import hetdp_core
    from hetdp_core.scenarios import get

    mod = get(page)
    title = mod.PAGE_SPEC.title
    prior = scenario.prior if prior is None else prior
    link = f"{app_url.rstrip('/')}/{page}?{scenario.query_string()}"
    if plan_a is not None:
        from urllib.parse import urlencode

        link += "&" + urlencode({"pin": plan_a[0].query_string()})
    from hetdp_core.framework.registry import hook

    if hook(mod, "levels") is not None:  # the run's own meaning table (computed again only for another prior)
        from hetdp_core.framework.scenario import with_meaning

        res = result if prior == scenario.prior else with_meaning(result, prior)
    else:
        res = None
    meaning = None if res is None else res.meaning  # at the report's prior
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>hetdp report — {html.escape(title)}"
        f"</title><style>{CSS}</style></head><body>",
        f"<h1>hetdp report — {html.escape(title)}</h1>",
        f"<p><b>The question.</b> {_bold(html.escape(mod.QUESTION))}</p>",
        f"<p class='summary'><b>In short.</b> {_bold(html.escape(_summary(result, meaning)))}</p>",
    ]
    if plan_a is not None:
        parts += _plan_a_html(mod, scenario, result, plan_a)
    parts += _key_results_html(mod, result) + _checks_html(result)
    placed = None
    if res is not None:  # the view's levels among real deployments: for the meaning section and the figures
        from hetdp_core.framework.scenario import levels_of
        from hetdp_core.reading.deployments import placement_of

        placed = placement_of(levels_of(result))
        parts += _meaning_html(meaning, prior, placed)
    parts += [
        "<h2>How to reopen this view</h2>",
        f"<p>In the app: <a href='{html.escape(link)}'>{html.escape(link)}</a><br>"
        f"<span class='small'>On the command line: <code>hetdp run {page} --query "
        f"'{html.escape(scenario.query_string())}'</code></span></p>",
        "<h2>Parameters</h2>",
        html_table(_parameters(scenario)),
    ]
    parts.append("<h2>Figures</h2>")
    for i, (name, fig) in enumerate(report_figures(page, scenario, result if res is None else res, placed=placed)):
        parts += [f"<h3>{html.escape(name)}</h3>", figure_html(fig, f"fig{i}", first=i == 0)]
    seed = scenario.to_query().get("seed", "—")
    parts += [
        "<h2>Provenance</h2>",
        f"<p class='small'>hetdp {hetdp_core.__version__}; plotly {plotly.__version__}; numpy {np.__version__}; "
        f"Python {platform.python_version()}. Random seed {html.escape(str(seed))}: the link above reproduces "
        "every number in this report. Simulated curves are real simulations; analytic curves are "
        "labelled analytic.</p>",
        "</body></html>",
    ]
    return "\n".join(parts)
