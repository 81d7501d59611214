"""A page whose one table is whatever the test hands it (tests/test_csv_injection.py): registered like
any page, so the generated table goes through the real ``hetdp run --csv`` and decision package. The
scenario's ``case`` names the table in :data:`TABLES` (a new case per example, so no cached run is
reused). Not collected by pytest (no test_ prefix)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd
import tiny_page

from hetdp_core.framework.scenario import Interval, Result, RunOptions, Scenario, page_run, param
from hetdp_core.reading.meaning import Level

#: the tiny page's declaration under this page's own name, title, menu place and fast query
PAGE_SPEC = dataclasses.replace(
    tiny_page.PAGE_SPEC, url="Csv_probe", title="A CSV probe", order=98, fast_query={"case": "0"}
)
QUESTION = "Does a table with text a spreadsheet would run reach a CSV file defended?"

#: the table of each case
TABLES: dict[int, pd.DataFrame] = {}


@dataclass(frozen=True)
class Probe(Scenario):
    case: int = param(0, Interval(int, 0, 10**9), "case — the table to write")

    PAGE = PAGE_SPEC.url
    TITLE = PAGE_SPEC.title


SCENARIO = Probe
PRESETS = {"First case": Probe()}


def levels(result):
    return [Level("the release", 1.0)]


def summarize(result) -> tuple[str, ...]:
    return (f"case {result.scenario.case}.",)


@page_run
def run(s: Probe, *, options: RunOptions) -> Result:
    return Result(scenario=s, tables_={"probe": TABLES.get(s.case, pd.DataFrame({"x": [1]}))})
