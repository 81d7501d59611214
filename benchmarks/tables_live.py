"""The tables of ``make bench-live`` (:mod:`benchmarks.live`): a slider step, the first visible answer and
the server's parts against a bare Streamlit page, every page's opening, the ledger's opening and a student's
Join; the README's short performance table from the same run."""

from __future__ import annotations

from benchmarks.table_format import _machine, _pages_of, _s, _table, _target, _title, _x

# ------------------------------------------------------------------ make bench-live
#: the targets of a live page (issue 51), each a ratio to its floor in the same run
LIVE_TARGETS = {
    "step": 3.0,
    "first_answer": 1.5,
    "first_chart": 3.0,
    "next_chart": 1.5,
    "solve": 2.0,
    "useful_s": 1.0,
    "ledger": 2.0,
    "join_s": 2.0,
}


def _load(data: dict) -> str:
    la = data.get("load_average") or {}
    fmt = lambda v: "—" if not v else " / ".join(f"{x:.2f}" for x in v)  # noqa: E731
    return f"load average (1 / 5 / 15 min) before the run {fmt(la.get('before'))}, after {fmt(la.get('after'))}"


def _ms(x: float | None) -> str:
    return "—" if x is None else f"{1000 * x:.0f}"


def _live_rows(data: dict) -> list[list[str]]:
    rows = []
    charts = data.get("first_chart") or {}
    for page, r in (data.get("pages") or {}).items():
        c = charts.get(page) or {}
        server = " / ".join(_ms(r.get(k)) for k in ("run_s", "figures_s", "serialisation_s", "panels_s"))
        rows.append(
            [
                _title(page),
                f"{_s(r.get('step_s'))}: {_x(r.get('step_ratio'))}{_target(r.get('step_ratio'), LIVE_TARGETS['step'])}",
                f"{_s(r.get('first_answer_s'))}: {_x(r.get('first_answer_ratio'))}"
                f"{_target(r.get('first_answer_ratio'), LIVE_TARGETS['first_answer'])}",
                server,
                _ms(r.get("browser_s")),
                "—" if r.get("bytes") is None else f"{r['bytes'] / 1e3:.0f} kB",
                f"{_x(c.get('first_ratio'))} / {_x(c.get('next_ratio'))}",
            ]
        )
    return rows


def _live_context(data: dict) -> list[str]:
    """The floors, the solve and RNG-floor ratios and the load, as lines under the table."""
    g = data.get
    bare = g("bare") or {}
    lines = [
        f"Floor: the same step on a bare Streamlit page (one sidebar slider, one plotly chart of 2 000 points) "
        f"served by the same Streamlit in the same run: {_s(bare.get('step_s'))} (median of {bare.get('steps', '—')})."
    ]
    solve = g("solve") or {}
    for name in sorted(_pages_of(solve, "solve_", "_ratio")):
        lines.append(
            f"`hetdp solve` {name.replace('_', ' ')}: {_x(solve.get(f'solve_{name}_ratio'))} the CPU of viewing the "
            f"page{_target(solve.get(f'solve_{name}_ratio'), LIVE_TARGETS['solve'])}."
        )
    rng = g("rng_floor") or {}
    if rng:
        lines.append(
            f"Simulations against the RNG floor (Figure-3 subset through the CLI against one thread making its "
            f"random numbers): wall {_x(rng.get('fig3_subset_wall_ratio'))}, "
            f"CPU {_x(rng.get('fig3_subset_cpu_ratio'))}."
        )
    lines.append(_load(data).capitalize() + " (2 cores; other jobs share the machine).")
    return lines


def _open_table(data: dict) -> str:
    """Every menu page opened by a new visitor: first paint, title painted (target 1 s), settled."""
    o = data.get("open") or {}
    rows = [
        [
            _title(page),
            _s(r.get("first_paint_s")),
            _s(r.get("useful_s")) + _target(r.get("useful_s"), LIVE_TARGETS["useful_s"], " s"),
            _s(r.get("settled_s")),
        ]
        for page, r in (o.get("cold_open") or {}).items()
    ]
    bare = o.get("bare_open") or {}
    rows.append(["a bare Streamlit page (floor)", _s(bare.get("first_paint_s")), _s(bare.get("useful_s")), "—"])
    return _table(["page opened by a new visitor", "first paint", "title painted", "settled"], rows)


def _open_lines(data: dict) -> list[str]:
    o = data.get("open") or {}
    if not o:
        return []
    bare = (o.get("bare_open") or {}).get("chart_s")
    lines = [
        f"{_title(page)} opens to its first chart in {_s(o['cold_open'][page].get('chart_s'))}: {_x(ratio)} the "
        f"bare page's {_s(bare)}{_target(ratio, LIVE_TARGETS['ledger'])}."
        for page, ratio in (o.get("tool_chart_ratio") or {}).items()
    ]
    return lines + [
        f"A student's *Join* shows the lesson {_s(o.get('join_s'))} after the click"
        f"{_target(o.get('join_s'), LIVE_TARGETS['join_s'], ' s')}."
    ]


def render_live(data: dict) -> str:
    header = [
        "page (default view)",
        "slider step: × bare page",
        "first visible answer: × bare page",
        "server ms: run / figures / serialisation / panels",
        "browser ms",
        "received",
        "first chart × bare: first / next visitor",
    ]
    text = (
        _machine(data)
        + "\n\n"
        + _table(header, _live_rows(data))
        + "\n\n"
        + "\n".join(f"- {line}" for line in [*_live_context(data), *_open_lines(data)])
    )
    return text + ("\n\n" + _open_table(data) if data.get("open") else "")


def _short(x: float | None, limit: float) -> str:
    """A ratio for README: bold when it misses its target."""
    return "—" if x is None else (f"{x:.3g}×" if x <= limit else f"**{x:.3g}×**")


def _open_summary(data: dict) -> list[str]:
    """README's line on opening pages: the slowest title, the pages that are not scenarios, a Join."""
    o = data.get("open") or {}
    cold = o.get("cold_open") or {}
    if not cold:
        return []
    worst = max(cold, key=lambda p: cold[p]["useful_s"])
    useful, t = cold[worst]["useful_s"], LIVE_TARGETS
    mark = lambda ok, v: v if ok else f"**{v}**"  # noqa: E731
    tools = "".join(
        f"; {_title(p)} opens in {_short(r, t['ledger'])} a bare page's time"
        for p, r in (o.get("tool_chart_ratio") or {}).items()
    )
    return [
        f"Opening a page, every title is painted within {mark(useful <= t['useful_s'], _s(useful))} ({_title(worst)}; "
        f"a bare page {_s((o.get('bare_open') or {}).get('useful_s'))}){tools}; a student's Join shows the lesson "
        f"in {mark((o.get('join_s') or 99) <= t['join_s'], _s(o.get('join_s')))}."
    ]


def render_class_readme(runs: list | None, rush: list | None) -> str:
    """README's sentence on a live class, from the recorded class loads (200 students) and rush (300)."""

    def said(r: dict) -> str:
        c, st = r.get("class", {}), r.get("class", {}).get("stored", {})
        held = "" if all(r.get("promises", {}).values()) else " (**a promise failed**)"
        return (
            f"{r['db']}: {st.get('answers')} of {c.get('expected_answers')} answers stored once, live view "
            f"refresh p95 {_s(c.get('refresh_p95_s'))}{held}"
        )

    parts = []
    killed = [r for r in runs or [] if r.get("fault") == "kill" and "class" in r]
    if killed:
        parts.append(
            f"A class of {killed[0]['class'].get('students')} students through {_workers(killed[0])}, one killed: "
            + "; ".join(said(r) for r in killed)
            + "."
        )
    if rush:
        locked = sum(int(r.get("class", {}).get("locked_out") or 0) for r in rush)
        parts.append(
            f"A rush of {rush[0]['class'].get('students')} arriving{_arrive(rush[0])}, a worker killed: "
            + "; ".join(said(r) for r in rush)
            + f"; {locked} locked out."
        )
    return " ".join(parts)


def _workers(r: dict) -> str:
    """ "two workers": a run's worker count in words."""
    n = r.get("workers")
    return {1: "one worker", 2: "two workers", 3: "three workers", 4: "four workers"}.get(n, f"{n} workers")


def _arrive(r: dict) -> str:
    """ " in 10 s": the seconds over which a run's students arrived (none said for a run that kept none)."""
    s = r.get("arrive_s")
    return "" if s is None else f" in {float(s):g} s"


def render_live_readme(data: dict, runs: list | None = None, rush: list | None = None) -> str:
    """README's short form: per page the step and first answer against the bare page, and the load; then a
    live class (:func:`render_class_readme`)."""
    t, charts = LIVE_TARGETS, data.get("first_chart") or {}
    rows = [
        [
            _title(page),
            f"{_s(r.get('step_s'))} ({_short(r.get('step_ratio'), t['step'])})",
            f"{_s(r.get('first_answer_s'))} ({_short(r.get('first_answer_ratio'), t['first_answer'])})",
            f"{_short((charts.get(page) or {}).get('first_ratio'), t['first_chart'])} / "
            f"{_short((charts.get(page) or {}).get('next_ratio'), t['next_chart'])}",
        ]
        for page, r in (data.get("pages") or {}).items()
    ]
    bare = (data.get("bare") or {}).get("step_s")
    return (
        _table(["page", "slider step (× bare page)", "first answer (× bare page)", "first chart: first / next"], rows)
        + "\n\n"
        + "".join(f"{line} " for line in _open_summary(data))
        + f"*{data.get('recorded', 'date unknown')}, 2 cores: bare page's step {_s(bare)}; {_load(data)}. "
        "Targets ≤ 3×, ≤ 1.5×, ≤ 3× / ≤ 1.5× (bold: missed). `make bench-live` re-records it.*"
        + (f" {said} (`make load`.)" if (said := render_class_readme(runs, rush)) else "")
    )
