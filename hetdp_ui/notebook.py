"""A Jupyter notebook for every view (Streamlit-free): the page's button and ``hetdp notebook PAGE --query …
--out F.ipynb`` (the release ledger's notebook, ``hetdp ledger --notebook F.ipynb``, is built in its folder,
the ledger folder's ``downloads.py``, from :func:`notebook_of`, :data:`INSTALL` and :data:`CHECK`).

The notebook recomputes the view with hetdp's public API — the scenario from its query, the page's
one ``run``, its tables, its guarantee checks and its figures — and runs top to bottom in a fresh
kernel. Its last cell prints the key tables as JSON, the numbers ``hetdp run`` gives for the same
query. Written with ``nbformat`` (Jupyter's own reader/writer of the format, rather than
hand-written JSON).
"""

from __future__ import annotations

import json

__all__ = ["page_notebook", "notebook_of", "notebook_bytes", "INSTALL", "CHECK"]


def notebook_of(cells):
    """A validated notebook of ``cells``: ``("md", text)`` or ``("code", source)`` pairs, in order."""
    import nbformat
    from nbformat import v4

    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [v4.new_markdown_cell(src) if kind == "md" else v4.new_code_cell(src) for kind, src in cells]
    nbformat.validate(nb)
    return nb


def notebook_bytes(nb) -> bytes:
    """The notebook as the bytes of an ``.ipynb`` file."""
    import nbformat

    return nbformat.writes(nb).encode("utf-8")


#: the first cells of every notebook: what it needs, and a clear message when the kernel lacks it
INSTALL = (
    "**Before you run it.** This notebook needs hetdp in the kernel's Python (it is not on PyPI). In a "
    "checkout of hetdp: `make run` once (it creates `.venv` with hetdp), then `.venv/bin/pip install "
    "jupyterlab` and `.venv/bin/jupyter lab` — or `pip install hetdp-*.whl` in your own environment. "
    "Then run all cells (Kernel → Restart and run all)."
)
CHECK = (
    "try:\n"
    "    import hetdp_core\n"
    "except ImportError:  # the kernel's Python has no hetdp\n"
    "    raise SystemExit('hetdp is not installed in this kernel: see the cell above') from None\n"
    "hetdp_core.__version__"
)


def _closing_cells(page: str, keys: list[str]) -> list[tuple[str, str]]:
    """The notebook's last cells: what the levels mean, among real deployments, the figures, and the key
    tables printed as JSON (the numbers of ``hetdp run``)."""
    return [
        (
            "md",
            "## What the levels mean for a person\n\nThe attacker's worst-case posterior from the scenario's "
            "prior, and the risk in attack terms (the most an attack catches at the scenario's false-positive "
            "rate).",
        ),
        ("code", "result.tables().get('privacy_meaning')"),
        (
            "md",
            "## Among real deployments\n\nEach level placed among the privacy levels of real deployments (the "
            "Differential Privacy Deployments Registry's records); units and periods differ, so these are "
            "landmarks, not equivalents. `hetdp context --eps E` gives the same.",
        ),
        (
            "code",
            "from hetdp_core.reading.deployments import CAVEAT, placement_of\n"
            "from hetdp_core.framework.scenario import levels_of\n\n"
            "for p in placement_of(levels_of(result)):\n"
            "    print(p.sentence, p.caution)\n"
            "print(CAVEAT)",
        ),
        ("md", "## Figures"),
        (
            "code",
            "from hetdp_ui.report import report_figures\n\n"
            f"for title, fig in report_figures({page!r}, scenario, result):\n"
            "    fig.update_layout(title=title)\n"
            "    fig.show()",
        ),
        ("md", "## The numbers, as `hetdp run` gives them"),
        (
            "code",
            f"KEY_TABLES = {json.dumps([*keys, 'privacy_meaning'])}\n"
            "tables = result.tables()\n"
            "numbers = {k: tables[k].to_dict(orient='records') for k in KEY_TABLES if k in tables}\n"
            "print(json.dumps(numbers, default=str))  # every digit (NaN printed as NaN)",
        ),
    ]


def page_notebook(
    page: str,
    query: str,
    *,
    app_url: str = "http://localhost:8501",
    upload_file: str | None = None,
    pin: str | None = None,
):
    """The notebook of one view: ``page`` (any registered page) at ``query`` (its URL query string).
    ``upload_file``: for a view of an uploaded CSV, the file name the notebook reads it from (kept
    beside the notebook; the data itself is never written into it). ``pin``: the query string of a
    pinned plan A; the notebook then recomputes it too and compares the two plans, as the page does."""
    from urllib.parse import parse_qs

    import hetdp_core
    from hetdp_core.scenarios import get, page_name

    page = page_name(page)
    mod = get(page)
    scenario = mod.SCENARIO.from_query(parse_qs(query.lstrip("?"), keep_blank_values=True))  # validates
    q = scenario.query_string()
    spec = mod.PAGE_SPEC
    keys = list(spec.key_tables)
    cells = [
        (
            "md",
            f"# {spec.title}\n\n**The question.** {mod.QUESTION}\n\n"
            f"This notebook recomputes the view [{page}]({app_url.rstrip('/')}/{page}?{q}) of the hetdp app "
            f"(hetdp {hetdp_core.__version__}) with its public API: the scenario from the view's query string, "
            "the page's one `run`, its tables, its guarantee checks and its figures. Every number equals "
            f"`hetdp run {page} --query '{q}'`.\n\n{INSTALL}",
        ),
        ("code", CHECK),
        (
            "code",
            "import json\nfrom urllib.parse import parse_qs\n\n"
            "from hetdp_core.scenarios import get\n\n"
            f"page = get({page!r})\n"
            f"QUERY = {q!r}\n"
            "scenario = page.SCENARIO.from_query(parse_qs(QUERY))\n"
            "scenario",
        ),
        (
            "md",
            "## The computation\n\nOne pure `run` of the page's scenario (a fixed seed: the same numbers every time).",
        ),
        (
            "code",
            (
                "from hetdp_core.framework.scenario import RunOptions\n\n"
                f"UPLOAD = open({upload_file!r}, 'rb').read()  # your CSV, beside this notebook\n"
                if upload_file
                else ""
            )
            + (
                "result = page.run(scenario, options=RunOptions(upload=UPLOAD))"
                if upload_file
                else "result = page.run(scenario)"
            )
            + "\nsorted(result.tables())",
        ),
        (
            "md",
            "## Guarantee checks\n\nEvery number shown as a guarantee is checked against the bound that "
            "provably holds.",
        ),
        (
            "code",
            "for check in result.checks:\n    print('holds' if check.holds else 'NUMERICAL FAILURE', '-', check.name)",
        ),
        ("md", "## Key tables"),
        *[("code", f"result.tables()[{k!r}]") for k in keys],
        *_plan_a_cells(mod, pin),
        *_closing_cells(page, keys),
    ]
    return notebook_of(cells)


def _plan_a_cells(mod, pin: str | None) -> list[tuple[str, str]]:
    """Plan A (pinned) vs plan B: plan A's scenario from its query string, its run, and every
    guarantee and accuracy figure of both plans with the difference B − A (the page's A/B table)."""
    from urllib.parse import parse_qs

    if not pin:
        return []
    pin = mod.SCENARIO.from_query(parse_qs(pin.lstrip("?"), keep_blank_values=True)).query_string()  # validates
    return [
        (
            "md",
            "## Plan A (pinned) vs plan B (this view)\n\nThe view had a pinned plan A: it is recomputed the same "
            "way, and every guarantee and accuracy figure of both plans is compared (B − A).",
        ),
        (
            "code",
            "from hetdp_core.reading.compare import compare, key_numbers\n\n"
            f"PLAN_A = {pin!r}\n"
            "scenario_a = page.SCENARIO.from_query(parse_qs(PLAN_A))\n"
            "result_a = page.run(scenario_a)\n"
            "compare(key_numbers(page, result_a), key_numbers(page, result))",
        ),
    ]
