"""The benchmarks' fixed workloads, each declared by its page in its folder (``pages/<slug>/bench.toml``), so
that no benchmark names a page. Keys of a ``bench.toml`` (all optional):

* ``default_view = true`` — ``make bench`` times this page's default scenario from scratch and its first
  AppTest render (one page says so);
* ``solve_targets = [T, …]`` — ``make bench`` compares the CPU of ``hetdp solve PAGE --target T`` with
  that of viewing the page (``hetdp run PAGE``);
* ``load_same_link = "QUERY"`` — ``make load``: a crowd opening this one cached link of the page;
* ``load_distinct = true`` — ``make load``: a crowd opening the page's default view, each user another
  seed (nothing cached);
* ``fault_heavy_query = "QUERY"`` — the fault runs' heavy users open this view with a different seed
  each (one page says so);
* ``paper_figures = true`` — ``make bench`` times the paper's figures (``fig3``, ``fig4a``, ``fig4b``) at
  full size through this page's ``paper_preset`` hook and its run (one page says so).
"""

from __future__ import annotations

import functools
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

__all__ = ["Workloads", "workloads"]

KEYS = {"default_view", "solve_targets", "load_same_link", "load_distinct", "fault_heavy_query", "paper_figures"}


@dataclass(frozen=True)
class Workloads:
    """Every page's declared workloads: ``default_view`` the page whose default view ``make bench`` times;
    ``solve`` (page, target) pairs; ``same_link`` (page, query) pairs; ``distinct`` pages; ``fault_heavy``
    the (page, query) of the fault runs' heavy users; ``paper_figures`` the page whose paper figures
    ``make bench`` times. Pages by URL path, in menu order."""

    default_view: str
    solve: tuple[tuple[str, float], ...]
    same_link: tuple[tuple[str, str], ...]
    distinct: tuple[str, ...]
    fault_heavy: tuple[str, str]
    paper_figures: str


def _one(found: list, key: str):
    if len(found) != 1:
        raise ValueError(f"exactly one page's bench.toml must set {key}; found {len(found)}: {found}")
    return found[0]


@functools.cache
def workloads(pages: Path = ROOT / "pages") -> Workloads:
    """Read every scenario page's ``bench.toml`` (a key it does not know is an error)."""
    from hetdp_core.framework.registry import specs

    default, solve, same, distinct, heavy, paper = [], [], [], [], [], []
    for spec in specs():
        path = pages / spec.slug / "bench.toml"
        if not path.is_file():
            continue
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if set(data) - KEYS:
            raise ValueError(f"{path}: unknown keys {sorted(set(data) - KEYS)}; the keys are {sorted(KEYS)}")
        if data.get("default_view"):
            default.append(spec.url)
        solve += [(spec.url, float(t)) for t in data.get("solve_targets", ())]
        if "load_same_link" in data:
            same.append((spec.url, str(data["load_same_link"])))
        if data.get("load_distinct"):
            distinct.append(spec.url)
        if "fault_heavy_query" in data:
            heavy.append((spec.url, str(data["fault_heavy_query"])))
        if data.get("paper_figures"):
            paper.append(spec.url)
    return Workloads(
        default_view=_one(default, "default_view"),
        solve=tuple(solve),
        same_link=tuple(same),
        distinct=tuple(distinct),
        fault_heavy=_one(heavy, "fault_heavy_query"),
        paper_figures=_one(paper, "paper_figures"),
    )
