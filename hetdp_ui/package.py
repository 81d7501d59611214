"""A decision in one download: a zip with everything needed to read, check and re-run one view or one
release plan (``hetdp package`` and every page's "Download the decision" button).

Contents: ``README.md`` (what was decided, the link, how to re-run it), ``report.html`` (the page's
report), ``notebook.ipynb`` (the view's notebook, executed when nbclient and a Python kernel are
installed — the ``package`` extra — otherwise unexecuted, as its README says), ``recompute.py`` (a plain
script that recomputes the key tables and prints them as JSON, the numbers ``hetdp run --json`` gives),
``tables/*.csv`` (every table) and ``scenario.toml`` or ``plan.toml`` (the question itself). A release
plan's package is built in the ledger's folder (its ``downloads.py``) from this module's
shared parts: :func:`add_entry`, :func:`execute_notebook`, :func:`readme_text`, :func:`placement_lines`.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import platform
import zipfile

__all__ = ["page_package", "add_entry", "execute_notebook", "readme_text", "placement_lines"]

#: a zip entry's timestamp: fixed (the date the package was made is in its README, once)
_STAMP = (2020, 1, 1, 0, 0, 0)


def add_entry(z: zipfile.ZipFile, name: str, data: str | bytes) -> None:
    """Write one file into the package: text as UTF-8, with a fixed timestamp (equal packages, equal bytes)."""
    info = zipfile.ZipInfo(name, date_time=_STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data.encode("utf-8") if isinstance(data, str) else data)


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these characters)."""
    return json.dumps(value, ensure_ascii=False)


def execute_notebook(nb) -> tuple[object, str]:
    """(the notebook executed in a fresh kernel, how) — or unexecuted with the reason when nbclient or a
    kernel is not installed (the ``package`` extra)."""
    try:
        from nbclient import NotebookClient
    except ImportError:
        return nb, "not executed here (install hetdp's `package` extra for an executed notebook): run all cells"
    import tempfile

    from jupyter_client.manager import KernelManager

    with tempfile.TemporaryDirectory(prefix="hetdp-package-") as cwd:
        # Unix sockets in this folder, not TCP ports: a port found free may be taken before the kernel binds it
        km = KernelManager(kernel_name="python3", transport="ipc", ip=f"{cwd}/kernel")
        # nbclient shuts down only a kernel it made itself: one handed to it stays alive after the run
        # unless asked (cleanup_kc). A server that built decision packages kept one idle kernel process
        # per package (seen in a CI run: four, 7-10 minutes after their packages were made)
        client = NotebookClient(
            nb, km=km, timeout=600, resources={"metadata": {"path": cwd}}, shutdown_kernel="immediate"
        )
        client.execute(cleanup_kc=True)
    return nb, "executed when the package was made (outputs included)"


def _recompute_script(page: str, query: str, keys: list[str]) -> str:
    return f'''"""Recompute the key tables of the hetdp view {page} and print them as JSON (the numbers of
`hetdp run {page} --query '{query}' --json`); the tables are also written to recomputed/*.csv.
Needs hetdp installed in this Python."""

import json
import math
from pathlib import Path
from urllib.parse import parse_qs

from hetdp_core.scenarios import get
from hetdp_ui.csvfile import csv_text  # the app's CSV writer (a cell a spreadsheet would run is defended)


def plain(value):
    """JSON as `hetdp run --json` writes it: numpy numbers as numbers, NaN and infinities as null."""
    if isinstance(value, dict):
        return {{k: plain(v) for k, v in value.items()}}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


PAGE = {page!r}
QUERY = {query!r}
KEY_TABLES = {json.dumps(keys)}

page = get(PAGE)
scenario = page.SCENARIO.from_query(parse_qs(QUERY, keep_blank_values=True))
result = page.run(scenario)
tables = result.tables()
out = Path(__file__).resolve().parent / "recomputed"
out.mkdir(exist_ok=True)
for name, df in tables.items():
    (out / f"{{name}}.csv").write_text(csv_text(df), encoding="utf-8", newline="")
for check in result.checks:
    assert check.holds, f"numerical failure: {{check.name}}"
print(json.dumps(plain({{k: tables[k].to_dict(orient="records") for k in KEY_TABLES if k in tables}}), allow_nan=False))
'''


def readme_text(
    *, title: str, question: str, summary: list[str], link: str, rerun: list[str], extra: list[str], how_nb: str
) -> str:
    """The package's README.md: what was decided (``summary``), ``extra`` sections, the link that reopens it,
    how to re-run it (``rerun``) and what the package holds (``how_nb``: whether its notebook was executed)."""
    import hetdp_core

    today = _dt.date.today().isoformat()
    lines = [
        f"# Decision record: {title}",
        "",
        f"Made with hetdp {hetdp_core.__version__} on {today} (Python {platform.python_version()}).",
        "",
        f"**The question.** {question}",
        "",
        "## What was decided",
        "",
        *[f"- {line.replace('**', '')}" for line in summary],
        "",
        *extra,
        "## Reopen and re-run it",
        "",
        f"- In the app: <{link}>",
        *[f"- {r}" for r in rerun],
        "",
        "Anyone with hetdp installed can re-run it: every number is computed from the scenario with a fixed "
        "seed, so the same version gives the same numbers.",
        "",
        "## In this package",
        "",
        "- `report.html` — the report (opens offline; print it to PDF)",
        f"- `notebook.ipynb` — the notebook of this view, {how_nb}",
        "- `recompute.py` — a plain script: recomputes the key tables and prints them as JSON",
        "- `tables/*.csv` — every table",
        "- `scenario.toml` or `plan.toml` — the question itself",
        "",
    ]
    return "\n".join(lines)


def placement_lines(placed) -> list[str]:
    """A README's section placing the levels among real deployments (none when nothing is placed)."""
    from hetdp_core.reading.deployments import CAVEAT

    if not placed:
        return []
    return ["## Among real deployments", "", *[f"- {p.sentence} {p.caution}".rstrip() for p in placed], "", CAVEAT, ""]


def page_package(page: str, query: str, *, app_url: str = "http://localhost:8501", execute: bool = True) -> bytes:
    """The decision package of one view: ``page`` at ``query`` (its URL query string)."""
    from urllib.parse import parse_qs

    from hetdp_core.framework.scenario import in_short, levels_of
    from hetdp_core.reading.deployments import placement_of
    from hetdp_core.scenarios import get, page_name
    from hetdp_ui.csvfile import csv_text
    from hetdp_ui.notebook import notebook_bytes, page_notebook
    from hetdp_ui.report import build_report

    page = page_name(page)
    mod = get(page)
    scenario = mod.SCENARIO.from_query(parse_qs(query.lstrip("?"), keep_blank_values=True))
    q = scenario.query_string()
    result = mod.run(scenario)
    tables = result.tables()
    keys = [*mod.PAGE_SPEC.key_tables, "privacy_meaning"]
    link = f"{app_url.rstrip('/')}/{page}?{q}"
    nb, how_nb = page_notebook(page, q, app_url=app_url), "not executed"
    if execute:
        nb, how_nb = execute_notebook(nb)
    toml = "\n".join(
        [f"page = {_toml_string(page)}", f"query = {_toml_string(q)}", "", "[scenario]"]
        + [f"{k} = {_toml_string(v)}" for k, v in scenario.to_query().items()]
    )
    readme = readme_text(
        title=mod.PAGE_SPEC.title,
        question=mod.QUESTION,
        summary=list(in_short(result)),
        link=link,
        rerun=[
            f"On the command line: `hetdp run {page} --query '{q}' --json`",
            "With Python: `python recompute.py` (prints the key tables as JSON)",
        ],
        extra=placement_lines(placement_of(levels_of(result))),
        how_nb=how_nb,
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        add_entry(z, "README.md", readme)
        add_entry(z, "report.html", build_report(page, scenario, result, app_url=app_url))
        add_entry(z, "notebook.ipynb", notebook_bytes(nb))
        add_entry(z, "recompute.py", _recompute_script(page, q, keys))
        add_entry(z, "scenario.toml", toml + "\n")
        for name, df in tables.items():
            add_entry(z, f"tables/{name}.csv", csv_text(df))
    return buf.getvalue()
