"""A minimal page for the registry test (tests/test_registry.py): one scenario field, one run, one
table, one stated privacy level. Not collected by pytest (no test_ prefix)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from hetdp_core.framework.registry import PageSpec
from hetdp_core.framework.scenario import Interval, Result, RunOptions, Scenario, page_run, param
from hetdp_core.reading.meaning import Level

PAGE_SPEC = PageSpec(
    url="Tiny_page",
    title="A tiny page",
    icon=":material/star:",
    order=99,
    summary="Does a page declared once appear everywhere?",
    fast_query={"n": "2"},
)
QUESTION = "Does a page declared in one place reach the menu, the CLI, the reports and the docs?"


@dataclass(frozen=True)
class Tiny(Scenario):
    n: int = param(3, Interval(int, 1, 10), "n — rows")
    eps: float = param(1.0, Interval(float, 0.1, 10.0), "ε")

    PAGE = PAGE_SPEC.url
    TITLE = PAGE_SPEC.title


SCENARIO = Tiny
PRESETS = {"Three rows": Tiny()}


def levels(result):
    return [Level("the release", result.scenario.eps)]


def summarize(result) -> tuple[str, ...]:
    return (f"{result.scenario.n} rows at ε = {result.scenario.eps:g}.",)


@page_run
def run(s: Tiny, *, options: RunOptions) -> Result:
    return Result(scenario=s, tables_={"tiny_rows": pd.DataFrame({"row": list(range(s.n)), "eps": s.eps})})
