"""How the benchmark tables write a number: seconds, ratios, targets, a Markdown table, the machine line
(shared by :mod:`benchmarks.tables` and :mod:`benchmarks.tables_live`)."""

from __future__ import annotations

import re


def _title(page: str) -> str:
    """A page's title from the registry (``My_page``, ``1_My_page``); other pages (the
    lessons, the docs) by their file name."""
    page = re.sub(r"^\d+_", "", page)
    try:
        from hetdp_core.framework.registry import get

        return get(page).PAGE_SPEC.title
    except ValueError:  # not a scenario page (InputError is a ValueError)
        return page.replace("_", " ")


def _s(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f} s"


def _x(x: float | None) -> str:
    return "—" if x is None else f"{x:.3g}×"


def _target(x: float | None, limit: float, unit: str = "×") -> str:
    """Whether a measured value meets its target (shown, met or not)."""
    if x is None:
        return ""
    return f" (target ≤ {limit:g}{unit}: {'met' if x <= limit else '**not met**'})"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _machine(data: dict) -> str:
    m = data.get("machine") or {}
    cpus = m.get("cpus", data.get("machine_cpus"))
    extra = f", Python {m['python']}" if "python" in m else ""
    return f"*Recorded on a machine with {cpus} CPUs{extra}, {data.get('recorded', 'date unknown')}.*"


def _pages_of(data: dict, prefix: str, suffix: str) -> dict[str, float]:
    pat = re.compile(rf"^{re.escape(prefix)}(.+){re.escape(suffix)}$")
    return {m.group(1): v for k, v in data.items() if (m := pat.match(k))}
