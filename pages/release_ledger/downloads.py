"""The release ledger's downloads: its report (HTML), its notebook and its decision package (zip) — the
page's buttons, ``hetdp ledger --report/--notebook`` and ``hetdp package release_ledger --plan FILE``.

Streamlit-free; built from :mod:`hetdp_ui.report`'s, :mod:`hetdp_ui.notebook`'s and
:mod:`hetdp_ui.package`'s shared parts (the stylesheet, tables, figures, the package's README and
entries), the same as every scenario page's downloads.
"""

from __future__ import annotations

import html
import io
import platform
import zipfile

import pandas as pd
import plotly

from hetdp_ui import notebook, package, report
from hetdp_ui.csvfile import csv_text
from hetdp_ui.folders import figures_of

__all__ = ["build_ledger_report", "ledger_notebook", "ledger_package"]

figures = figures_of("release_ledger")  # this folder's figures.py

#: the page's question, as its report, notebook and package state it
QUESTION = "What does the whole plan of releases cost each group of people, and is that acceptable?"


def _flags(result) -> str:
    """The ``hetdp ledger`` flags that recompute ``result`` from its plan.toml (δ, FPR, budget if any)."""
    budget = f" --budget {result.budget!r}" if result.budget is not None else ""
    return f"--delta {result.delta!r} --fpr {result.fpr!r}{budget}"


def totals_by_group(result) -> pd.DataFrame:
    """One row per group (in name order): its headline ε and the accountant that gave it, then its total
    under every accountant — the table the page and the report show."""
    from hetdp_core.accountants.ledger import ACCOUNTANTS

    total = {(t.group, t.accountant): t.epsilon for t in result.totals}
    return pd.DataFrame(
        [
            {"group": h.group, "headline ε": h.epsilon, "by": h.accountant}
            | {a: total[h.group, a] for a in ACCOUNTANTS}
            for h in sorted(result.headline, key=lambda h: h.group)
        ]
    )


def _ledger_tables(result):
    """(totals by accountant with the headline, headline per group, the plan's rows) for the report."""
    wide = totals_by_group(result)
    heads = {h.group: h for h in result.headline}
    plan_rows = [
        {
            "release": r.name,
            "noise": r.mechanism if r.link else f"{r.mechanism} {r.noise:g}",
            "view": r.link or "",
            "repeat": r.repeat,
            "whom it touches": ", ".join(r.groups),
        }
        for r in result.plan.releases
    ]
    return wide, heads, plan_rows


def _budget_html(budget: float, heads: dict) -> str:
    """The budget verdict, judged by each group's headline."""
    over = [g for g, h in heads.items() if h.over_budget]
    return (
        f"<p><b>Budget ε = {budget:g}</b> (judged by each group's headline). "
        + (
            f"Over budget: {html.escape(', '.join(over))}."
            if over
            else f"Within budget for every group; smallest reserve {min(h.reserve for h in heads.values()):.3g}."
        )
        + "</p>"
    )


def reopen_link(result, *, app_url: str = "http://localhost:8501") -> str:
    """The app's link that reopens this ledger: the Release ledger with the decided plan (its TOML in
    the link), δ, FPR and budget — what the report and the decision package's README point to."""
    from urllib.parse import urlencode

    from hetdp_core.accountants.ledger import plan_toml

    q = {"delta": repr(result.delta), "fpr": repr(result.fpr), "plan": plan_toml(result.plan)}
    if result.budget is not None:
        q["budget"] = repr(result.budget)
    return f"{app_url.rstrip('/')}/Release_ledger?{urlencode(q)}"


def build_ledger_report(result, *, app_url: str = "http://localhost:8501") -> str:
    """A standalone HTML report of a release ledger (the page's button and ``hetdp ledger --report``):
    the plan, each group's totals by the four accountants, the budget, the risk in attack terms and
    its trade-off curves, who pays what, the plan's TOML and the link that reopens it."""

    import hetdp_core
    from hetdp_core.accountants.ledger import plan_toml
    from hetdp_ui.context_figures import deployments_strip
    from hetdp_ui.risk_figures import curves_figure

    ledger_placed = result.placements()
    toml_text = plan_toml(result.plan)
    link = reopen_link(result, app_url=app_url)
    wide, heads, plan_rows = _ledger_tables(result)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>hetdp report — Release ledger"
        f"</title><style>{report.CSS}</style></head><body>",
        "<h1>hetdp report — Release ledger</h1>",
        f"<p><b>The question.</b> {QUESTION}</p>",
        "<h2>The plan</h2>",
        report.html_table(plan_rows),
        f"<h2>Total privacy loss per group (δ = {result.delta:.0e})</h2>",
        report.html_table(wide.to_dict(orient="records")),
        "<p class='small'>All four accountants are valid upper bounds; each group's headline is the smallest of "
        "them, and the budget verdict and the risk read it.</p><ul>",
        *(
            f"<li><b>{html.escape(g)}</b>: headline ε = {h.epsilon:.4g} by {html.escape(h.how)}.</li>"
            for g, h in heads.items()
        ),
        "</ul>",
    ]
    if result.budget is not None:
        parts.append(_budget_html(result.budget, heads))
    parts += [
        f"<h2>In attack terms (false-positive rate {100 * result.fpr:g} %)</h2><ul>",
        *(
            f"<li><b>{html.escape(r.group)}</b>: {html.escape(r.in_words)}; maximal advantage "
            f"{r.max_advantage:.3g}</li>"
            for r in result.risk
        ),
        "</ul>",
        *report.context_html(ledger_placed),
        report.figure_html(
            figures.totals_figure(result.totals, budget=result.budget, headline=result.headline), "fig0", first=True
        ),
        report.figure_html(figures.spend_figure(result.spend), "fig1", first=False),
        report.figure_html(
            curves_figure(
                result.curves, fpr=result.fpr, title="The whole plan: what an attacker can do", legend="group"
            ),
            "fig2",
            first=False,
        ),
        *([report.figure_html(deployments_strip(ledger_placed), "fig3", first=False)] if ledger_placed else []),
        "<h2>How to reopen this plan</h2>",
        f"<p>In the app: <a href='{html.escape(link)}'>the Release ledger with this plan</a>. On the command line: "
        f"<code>hetdp ledger --plan plan.toml {_flags(result)}</code> with this plan.toml:</p>",
        f"<pre>{html.escape(toml_text)}</pre>",
        f"<p class='small'>hetdp {hetdp_core.__version__}; plotly {plotly.__version__}; Python "
        f"{platform.python_version()}.</p>",
        "</body></html>",
    ]
    return "\n".join(parts)


def ledger_package(result, *, app_url: str = "http://localhost:8501", execute: bool = True) -> bytes:
    """The decision package of a release plan (a :class:`hetdp_core.accountants.ledger.LedgerResult`)."""
    from hetdp_core.accountants.ledger import plan_toml

    toml_text = plan_toml(result.plan)
    flags = _flags(result)
    summary = [
        f"{'everyone' if h.group == 'all' else h.group}: headline ε = {h.epsilon:.4g} at δ = {result.delta:g} "
        f"by {h.how}" + (f"; reserve {h.reserve:+.4g}" if result.budget is not None else "")
        for h in result.headline
    ] + [f"{r.group}: {r.in_words}" for r in result.risk]
    nb, how_nb = ledger_notebook(result), "not executed"
    if execute:
        nb, how_nb = package.execute_notebook(nb)
    placed = result.placements()
    script = f'''"""Recompute the release ledger of plan.toml and print its headline, totals and risk as JSON (the
numbers of `hetdp ledger --plan plan.toml {flags} --json`). Needs hetdp installed in this Python."""

import json
from pathlib import Path

from hetdp_core.accountants.ledger import ledger, parse_plan

plan = parse_plan((Path(__file__).resolve().parent / "plan.toml").read_bytes())
result = ledger(plan, delta={result.delta!r}, budget={result.budget!r}, fpr={result.fpr!r})
tables = result.tables()
numbers = {{"headline": tables["ledger_headline"], "ledger": tables["ledger"], "risk": result.risk_rows()}}
print(json.dumps(numbers, default=float))
'''
    readme = package.readme_text(
        title="Release ledger",
        question=QUESTION,
        summary=summary,
        link=reopen_link(result, app_url=app_url),  # the decided plan, not the page's default
        rerun=[
            f"On the command line: `hetdp ledger --plan plan.toml {flags} --json`",
            "With Python: `python recompute.py`",
        ],
        extra=package.placement_lines(placed),
        how_nb=how_nb,
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        package.add_entry(z, "README.md", readme)
        package.add_entry(z, "report.html", build_ledger_report(result, app_url=app_url))
        package.add_entry(z, "notebook.ipynb", notebook.notebook_bytes(nb))
        package.add_entry(z, "recompute.py", script)
        package.add_entry(z, "plan.toml", toml_text)
        for name, rows in result.tables().items():
            package.add_entry(z, f"tables/{name}.csv", csv_text(pd.DataFrame(rows)))
    return buf.getvalue()


def ledger_notebook(result):
    """The notebook of a release ledger: the plan's TOML, the ledger at the same δ, FPR and budget, its
    tables and figures."""
    import hetdp_core
    from hetdp_core.accountants.ledger import plan_toml

    toml_text = plan_toml(result.plan)
    cells = [
        (
            "md",
            f"# Release ledger\n\n**The question.** {QUESTION}\n\nThis notebook recomputes the ledger with hetdp "
            f"{hetdp_core.__version__}'s public API. Every number equals `hetdp ledger --plan plan.toml "
            f"{_flags(result)} --json` with this plan.\n\n{notebook.INSTALL}",
        ),
        ("code", notebook.CHECK),
        (
            "code",
            "import json\n\nimport pandas as pd\n\nfrom hetdp_core.accountants.ledger import ledger, parse_plan\n\n"
            f"PLAN = {toml_text!r}\n"
            "plan = parse_plan(PLAN)\n"
            f"result = ledger(plan, delta={result.delta!r}, budget={result.budget!r}, fpr={result.fpr!r})",
        ),
        (
            "md",
            "## Total privacy loss per group\n\nEach group's headline is the smallest of the four valid bounds "
            "(and the accountant that gave it); the budget and the risk read it.",
        ),
        (
            "code",
            "tables = result.tables()  # the ledger's tables as rows, by CSV name\n"
            "pd.DataFrame(tables['ledger_headline'])",
        ),
        ("code", "pd.DataFrame(tables['ledger']).pivot(index='group', columns='accountant', values='epsilon')"),
        ("md", "## In attack terms\n\nThe most an attack catches at the chosen false-positive rate, per group."),
        ("code", "pd.DataFrame(result.risk_rows())"),
        ("md", "## Among real deployments\n\nEach group's headline total among real deployments' levels."),
        (
            "code",
            "from hetdp_core.reading.deployments import CAVEAT\n"
            "from hetdp_ui.context_figures import deployments_strip\n\n"
            "placed = result.placements()\n"
            "for p in placed:\n    print(p.sentence, p.caution)\n"
            "print(CAVEAT)\n"
            "deployments_strip(placed).show()",
        ),
        ("md", "## What each release spends, per group"),
        ("code", "pd.DataFrame(tables['ledger_spend'])"),
        ("md", "## Figures"),
        (
            "code",
            "from hetdp_ui.folders import figures_of\n"
            "from hetdp_ui.risk_figures import curves_figure\n\n"
            "ledger = figures_of('release_ledger')  # the ledger page's figures (pages/release_ledger/figures.py)\n"
            "ledger.totals_figure(result.totals, budget=result.budget, headline=result.headline).show()\n"
            "ledger.spend_figure(result.spend).show()\n"
            "curves_figure(result.curves, fpr=result.fpr, title='The whole plan', legend='group').show()",
        ),
        ("md", "## The numbers, as `hetdp ledger --json` gives them"),
        (
            "code",
            "print(json.dumps({'headline': tables['ledger_headline'], 'ledger': tables['ledger'], "
            "'risk': result.risk_rows()}, default=float))",
        ),
    ]
    return notebook.notebook_of(cells)
