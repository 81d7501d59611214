"""``hetdp run PAGE``: the page's scenario and run; every table it offers."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

from hetdp_core.framework._validate import InputError
from hetdp_core.framework.scenario import Budget, RunOptions, in_short
from hetdp_ui.cli._common import (
    CliError,
    _dump,
    _executor,
    _last,
    _query_of,
    _scenario_verb,
    budget,
    output_dir,
    run_view,
    write_atomic,
)


def _upload(a, page: str, mod) -> bytes | None:
    """``--data FILE``: the CSV's bytes, for a page that takes one, within the upload limit."""
    from hetdp_core.materials.uploads import MAX_UPLOAD_MB, MB

    if a.data and not mod.PAGE_SPEC.upload:
        from hetdp_core.framework.registry import specs

        raise CliError(
            f"--data: {page} takes no data file (pages that do: "
            f"{', '.join(s.url for s in specs() if s.upload)}). Drop --data."
        )
    if not a.data:
        return None
    path = Path(a.data)
    if not path.is_file():
        raise CliError(f"--data: file {path} not found. Give the path of a CSV file.")
    if path.stat().st_size > MAX_UPLOAD_MB * MB:
        raise CliError(f"--data: {path} is larger than {MAX_UPLOAD_MB} MB, the upload limit. Use a smaller file.")
    return path.read_bytes()


def _plan_a_tables(mod, pin: str, limit, result) -> dict:
    """A pinned plan A's tables (``plan_a_*``) and the A/B comparison, as the page shows them."""
    from urllib.parse import parse_qsl

    from hetdp_core.framework.scenario import MAX_PIN_LENGTH

    if len(pin) > MAX_PIN_LENGTH:  # the page's limit for the same parameter
        raise CliError(f"pin (plan A) is {len(pin)} characters long; at most {MAX_PIN_LENGTH}.")
    try:
        plan_a = mod.SCENARIO.from_query(dict(parse_qsl(pin, keep_blank_values=True)))
    except InputError as exc:
        raise CliError(f"pin (plan A in the link) is not a valid scenario: {exc}") from None
    result_a = mod.run(plan_a, options=RunOptions(budget=limit))
    from hetdp_core.reading.compare import compare, key_numbers

    return {
        "plan_a_vs_b": compare(key_numbers(mod, result_a), key_numbers(mod, result)),
        **{f"plan_a_{name}": df for name, df in result_a.tables().items()},
    }


def cmd_run(a) -> int:
    """``hetdp run PAGE --query …``: the page's scenario and run; its download tables as JSON or CSV."""
    from hetdp_core.scenarios import get

    page, query = _query_of(a)
    mod = get(page)
    scenario = mod.SCENARIO.from_query(query)
    limit = budget(a.budget)
    if a.max_cells:  # the budget's limit on random numbers drawn, checked against the page's estimate
        limit = dataclasses.replace(limit or Budget(seconds=math.inf, bytes=2**62), name="custom", cells=a.max_cells)
    upload = _upload(a, page, mod)
    with _executor(a) as executor:
        options = RunOptions(budget=limit, executor=executor, upload=upload)
        result = run_view(scenario, options, limited=a.budget == "page")  # the page's limits, while it runs
    tables = result.tables()  # privacy_meaning included (the scenario's prior)
    pin = _last(query.get("pin"))
    if pin:  # plan A vs plan B, as the page shows it for a pinned link
        tables.update(_plan_a_tables(mod, pin, limit, result))
    if _last(query.get("lesson")):
        print(
            f"note: the link is at lesson {_last(query.get('lesson'))!r}, step {_last(query.get('step')) or '1'}; "
            "the numbers are those of the view it shows (`hetdp lesson key` checks the lesson's answers).",
            file=sys.stderr,
        )
    if a.csv:
        from hetdp_ui.csvfile import csv_text

        out = output_dir(a.csv, what="--csv")
        for name, df in tables.items():
            write_atomic(out / f"{name}.csv", csv_text(df), what="--csv")
    if a.json or not a.csv:
        from hetdp_core.framework.scenario import levels_of
        from hetdp_core.reading.deployments import CAVEAT, placement_of, placement_rows

        payload = {
            "page": page,
            "query": scenario.to_query(),
            "link": f"/{page}?{scenario.query_string()}",
            "tables": {name: df.to_dict(orient="records") for name, df in tables.items()},
            "summary": [line.replace("**", "") for line in in_short(result)],
            "checks": [c.to_dict() for c in result.checks],
            "notes": list(result.notes),
            "placement": placement_rows(placement_of(levels_of(result))),
            "placement_caveat": CAVEAT,
        }
        if a.json:
            print(_dump(payload))
        else:
            for line in in_short(result):
                print(line.replace("**", ""))
            print(
                f"{page}: {len(tables)} tables "
                f"({', '.join(f'{n} {df.shape[0]}x{df.shape[1]}' for n, df in tables.items())}); "
                f"checks: {'all hold' if all(c.holds for c in result.checks) else 'NUMERICAL FAILURE'}. "
                "Use --json or --csv DIR for the numbers."
            )
    elif a.csv:
        print(f"wrote {len(tables)} CSV files to {a.csv}")
    return 0 if all(c.holds for c in result.checks) else 1


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    run = _scenario_verb(sub, "run", "run a page's scenario: every table the page offers, as JSON or CSV", prior=True)
    run.add_argument("--json", action="store_true", help="print the tables as JSON")
    run.add_argument("--csv", default=None, metavar="DIR", help="write one CSV per table into DIR")
    run.add_argument("--data", default=None, metavar="FILE", help="CSV file for pages whose source is 'upload'")
    run.add_argument(
        "--max-cells", type=int, default=None, help="compute budget in random numbers (default: the page's budget)"
    )
    run.set_defaults(func=cmd_run)
