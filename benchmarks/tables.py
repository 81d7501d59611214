"""The benchmark tables of ``docs/benchmarks.md``, written by ``make bench`` and ``make load``.

Each full run records what it measured in ``benchmarks/recorded/<name>.json`` (kept in git: the
numbers behind the documentation) and rewrites its own table in ``docs/benchmarks.md`` between the
markers ``<!-- begin: written by <name> -->`` and ``<!-- end: <name> -->``. Nobody types these tables:
``tests/test_benchmark_tables.py`` renders every block again from its recorded run and fails when the
page differs (a hand edit, or a run recorded without its table).

Names: ``bench`` (``benchmarks/run.py``), ``live`` (``benchmarks/live.py``, whose table README.md shows too:
its performance table, between the same markers), ``load`` (``benchmarks/load.py`` on one server), ``load-k1``
and ``load-k2`` (the same through nginx with one and two workers), ``faults`` (``benchmarks/faults.py``)
and ``class`` (``benchmarks/class_load.py``). ``python -m benchmarks.tables`` rewrites every block
from the recorded runs (after a change of this module's layout).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "benchmarks" / "recorded"
DOC = ROOT / "docs" / "benchmarks.md"


def _title(page: str) -> str:
    """A page's title from the registry (``Coin_flip``, ``1_Coin_flip``); other pages (the
    lessons, the docs) by their file name."""
    page = re.sub(r"^\d+_", "", page)
    try:
        from hetdp_core.registry import get

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


# ------------------------------------------------------------------ make bench
def _pages_of(data: dict, prefix: str, suffix: str) -> dict[str, float]:
    pat = re.compile(rf"^{re.escape(prefix)}(.+){re.escape(suffix)}$")
    return {m.group(1): v for k, v in data.items() if (m := pat.match(k))}


def _bench_rows_per_page(data: dict) -> list[list[str]]:
    """The ledger, solve, first-chart and AppTest rows of the bench table."""
    g = data.get
    rows = []
    for kind in ("gaussian", "laplace", "mixed"):
        if f"ledger_200x1e5_{kind}" in data:
            rows.append(
                [
                    f"Release ledger: 200 {kind} releases × 10⁵ each",
                    _s(g(f"ledger_200x1e5_{kind}")),
                    f"{_x(g(f'ledger_200x1e5_{kind}_pld_vs_previous_ratio'))} the previous PLD accountant",
                ]
            )
    for name in sorted(_pages_of(data, "solve_", "_ratio")):
        rows.append(
            [
                f"`hetdp solve` {name.replace('_', ' ')} against viewing the page, CPU",
                _s(g(f"solve_{name}_cpu")),
                f"{_x(g(f'solve_{name}_ratio'))} the view ({_s(g(f'solve_{name}_view_cpu'))})"
                f"{_target(g(f'solve_{name}_ratio'), 2)}",
            ]
        )
    first = _pages_of(data, "first_chart_", "_first_ratio")
    for page in first:
        nxt = g(f"first_chart_{page}_next_ratio")
        rows.append(
            [
                f"{_title(page)}: opening to the first chart in Chromium",
                "—",
                f"first visitor {_x(first[page])}{_target(first[page], 3)}, next visitor "
                f"{_x(nxt)}{_target(nxt, 1.5)} a bare page",
            ]
        )
    for page, secs in sorted(_pages_of(data, "page_", "_first").items()):
        rows.append(
            [
                f"{_title(page)} page: first render (AppTest, caches cleared) / rerun",
                f"{_s(secs)} / {_s(g(f'page_{page}_rerun'))}",
                "—",
            ]
        )
    return rows


def render_bench(data: dict) -> str:
    g = data.get
    rows = [
        [
            "floors of this run",
            "—",
            f"import numpy {_s(g('floor_import_numpy'), 3)}, one sort of 10⁶ doubles "
            f"{_s(g('floor_sort_1e6'), 4)}, 10⁷ float32 SFC64 normals {_s(g('floor_normals32_1e7'), 3)}",
        ],
        ["`hetdp --help` start", _s(g("cli_start"), 3), f"{_x(g('cli_start_vs_import_numpy_ratio'))} `import numpy`"],
        [
            "Figure 3 subset through the CLI (n = 10 000, d = 10, 60 trials, 5 values of q)",
            _s(g("fig3_subset_cli_wall")),
            f"{_x(g('fig3_subset_wall_ratio'))} the wall time of one thread making the mechanism's draws"
            f"{_target(g('fig3_subset_wall_ratio'), 0.6)}; CPU "
            f"{_x(g('fig3_subset_cpu_ratio'))}; CPU {_x(g('fig3_subset_cpu_vs_uniforms_floor_ratio'))} the "
            "uniforms the channel draws",
        ],
    ]
    if "fig3_full" in data:
        rows.append(
            [
                "Figure 3, full (n = 10 000, d = 10, 1000 trials, 10 values of q, both mechanisms), threads",
                _s(g("fig3_full")),
                f"{_x(g('fig3_full_vs_floor_ratio'))} one thread making its draws; "
                f"{g('fig3_speedup_vs_authors_loop', 0):.0f}× faster than the authors' per-user loop (≈ 80 min)",
            ]
        )
        if "fig3_dask_local" in data:
            rows.append(
                [
                    "the same on a 2-worker Dask `LocalCluster` (`--dask local`)",
                    _s(g("fig3_dask_local")),
                    f"+ {_s(g('dask_local_startup'))} cluster start",
                ]
            )
        rows.append(["Figure 4a / 4b (paper text, T = 100)", f"{_s(g('fig4a_full'))} / {_s(g('fig4b_full'))}", "—"])
    runs = _pages_of(data, "run_cpu_", "_in_normals_1e7")
    cpu = _pages_of(data, "run_cpu_", "")
    for page, units in sorted(runs.items()):
        rows.append([f"{_title(page)}: default run from scratch, CPU", _s(cpu.get(page)), f"{units:.1f} × 10⁷ normals"])
    rows += [
        [
            "Per-user privacy: exact fast weights, 10⁶ users (CP)",
            _s(g("hetero_fast_weights_1e6"), 3),
            f"{g('hetero_fast_weights_1e6_in_sorts', 0):.1f} sorts; in a run child "
            f"{g('hetero_fast_weights_1e6_run_child_in_sorts', 0):.1f} sorts",
        ],
        ["Per-user privacy: cvxpy weights, 10⁴ users", _s(g("hetero_cvxpy_weights_1e4")), "—"],
        [
            "Group-wise zCDP: Algorithm 1 D_α curve, 50 α, worst of x = 0…500",
            _s(g("zcdp_alg1_curve_50_alpha_worst")),
            "—",
        ],
        ["Group-wise zCDP: loss vs group size, 12 sizes × 3 α", _s(g("zcdp_alg1_size_scan")), "—"],
    ]
    rows += _bench_rows_per_page(data)
    return _machine(data) + "\n\n" + _table(["what", "time", "against its floor (same run)"], rows)


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


def render_live_readme(data: dict) -> str:
    """README's short form: per page the step and first answer against the bare page, and the load."""
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
    )


# ------------------------------------------------------------------ make load
def _crowd(s: dict | None) -> str:
    if not s:
        return "—"
    bad = s.get("failures", 0) + s.get("exceptions", 0) + s.get("error_alerts", 0)
    return f"{s['p50_s']:.2f} / {s['p95_s']:.2f} s, {s['finished']}/{s['users']} finished, {bad} errors"


def render_load(data: dict) -> str:
    rows = []
    cold = {r["page"]: r for r in data.get("cold_view", [])}
    for r in data.get("warm_view", []):
        c = cold.get(r["page"], {})
        cold_s = c.get("cold_cpu_s")
        rows.append(
            [
                _title(r["page"]),
                _s(r.get("warm_cpu_s")),
                _s(cold_s) + _target(cold_s, 1, " s"),
                r.get("problem", "") or c.get("problem", "") or "—",
            ]
        )
    views = _table(["page", "server CPU, warm view", "server CPU, cold view (its run included)", "problem"], rows)
    n = data.get("users", 50)
    crowds = _table(
        ["crowd of " + str(n), "p50 / p95, finished, errors"],
        [
            [f"{label}{' (target p95 ≤ 2 s)' if key.startswith('same_') else ''}", _crowd(data.get(key))]
            for label, key in _crowd_keys(data, n)
        ],
    )
    return _machine(data) + "\n\n" + views + "\n\n" + crowds


def _crowd_keys(data: dict, users: int | None) -> list[tuple[str, str]]:
    """(label, key) of the crowds a load run recorded — one cached link per page, then different
    scenarios per page (the pages whose bench.toml asks for them) — labelled by the page's title."""
    many = "different scenarios" if users is None else f"{users} different scenarios"
    return [(f"one cached link, {_title(p)}", f"same_link_{p}") for p in _pages_of(data, "same_link_", "")] + [
        (f"{many}, {_title(p)}", f"distinct_{p}") for p in _pages_of(data, "distinct_", "")
    ]


def render_nginx(k1: dict | None, k2: dict | None) -> str:
    def cell(d, key):
        return _crowd((d or {}).get(key))

    users = (k1 or k2 or {}).get("users", 50)
    rows = [[label, cell(k1, key), cell(k2, key)] for label, key in _crowd_keys({**(k1 or {}), **(k2 or {})}, None)]
    head = _machine(k2 or k1 or {})
    return head + "\n\n" + _table([f"{users} users through nginx: p50 / p95", "k = 1", "k = 2"], rows)


def _kill(k: dict) -> tuple[str, str]:
    rounds = k.get("rounds", [])
    during = ", ".join(f"{r['during_kill']['finished']}/{r['during_kill']['users']}" for r in rounds)
    after = ", ".join(f"{r['right_after']['finished']}/{r['right_after']['users']}" for r in rounds)
    back = ", ".join(f"{r['worker_back_after_s']} s" for r in rounds)
    return (
        f"kill: one of two workers killed (SIGKILL) under a crowd of {k.get('users')}, {len(rounds)} rounds",
        f"finished during the kill {during} (the rest lived in the killed worker); a crowd right after "
        f"{after}; worker back after {back}",
    )


def _heavy(h: dict) -> tuple[str, str]:
    return (
        f"heavy: {h.get('users')} users open different uncached heavy views at once",
        f"peak resident memory {h.get('peak_gib')} GiB (cap {h.get('cap_gib')} GiB); {h.get('finished')} results, "
        f"{h.get('busy')} 'busy'; p95 {h.get('p95_s')} s; {h.get('exceptions')} exceptions",
    )


def _cache(c: dict) -> tuple[str, str]:
    a = c.get("after_corruption", {})
    what = f"cache: all {c.get('corrupted_files')} files of the shared cache truncated or overwritten"
    return what, f"then {a.get('finished')}/{a.get('users')} views finished, {a.get('exceptions')} exceptions"


def render_faults(data: dict) -> str:
    rows = []
    for key, describe in (("kill", _kill), ("heavy", _heavy), ("cache", _cache)):
        if key in data:
            what, measured = describe(data[key])
            rows.append([what, "yes" if data[key].get("ok") else "**no**", measured])
    return _machine(data) + "\n\n" + _table(["fault run", "promise held", "measured"], rows)


def render_class(runs: list) -> str:
    rows = []
    for r in runs:
        if "joins" in r:  # the flood: one client joining one session over and over
            held = all(r.get("promises", {}).values())
            rows.append(
                [
                    f"{r['db']}, a flood: {r['joins']:,} joins of one session from one client",
                    f"{r['stored_students']} students (the cap), {r['refused_as_full']:,} refused",
                    "—",
                    "—",
                    ("every promise held" if held else "**a promise failed**") + f" ({r['seconds']} s)",
                ]
            )
            continue
        c, st = r.get("class", {}), r.get("class", {}).get("stored", {})
        stored = f"{st.get('answers')} of {c.get('expected_answers')}; second attempts {st.get('second_attempts')}"
        ratio = c.get("answer_p95_over_baseline_open_p95")
        held = all(r.get("promises", {}).values())
        rows.append(
            [
                f"{r['db']}, fault: {r['fault']}",
                stored,
                f"{c.get('answer_p95_s')} s" + (f" ({ratio}× the baseline's page-open p95)" if ratio else ""),
                f"{c.get('refresh_p95_s')} s",
                "every promise held" if held else "**a promise failed**",
            ]
        )
    head = _machine(runs[0] if runs else {})
    return (
        head
        + "\n\n"
        + _table(
            ["run (students, 2 workers)", "answers stored", "answer p95", "live view refresh p95", "promises"], rows
        )
    )


# ------------------------------------------------------------------ the blocks and their files
def _read(name: str):
    p = RECORDED / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _from(render: Callable, *names: str) -> Callable[[], str | None]:
    """A block's renderer over its recorded runs (None while none is recorded)."""

    def go():
        data = [_read(n) for n in names]
        return None if all(d is None for d in data) else render(*data)

    return go


RENDER: dict[str, Callable[[], str | None]] = {
    "bench": _from(render_bench, "bench"),
    "live": _from(render_live, "live"),
    "load": _from(render_load, "load"),
    "load-nginx": _from(render_nginx, "load-k1", "load-k2"),
    "faults": _from(render_faults, "faults"),
    "class": _from(render_class, "class"),
}

#: which block a recorded run feeds
BLOCK_OF = {
    "bench": "bench",
    "live": "live",
    "load": "load",
    "load-k1": "load-nginx",
    "load-k2": "load-nginx",
    "faults": "faults",
    "class": "class",
}


#: the README's blocks: its performance table, from the live run
README = ROOT / "README.md"
README_RENDER: dict[str, Callable[[], str | None]] = {"live": _from(render_live_readme, "live")}


def block_re(block: str) -> re.Pattern:
    return re.compile(
        rf"(<!-- begin: written by {re.escape(block)} -->\n)(.*?)(\n<!-- end: {re.escape(block)} -->)", re.S
    )


def write_block(block: str, text: str, doc: Path = DOC) -> None:
    src = doc.read_text()
    pat = block_re(block)
    if not pat.search(src):
        raise SystemExit(
            f"{doc}: no block '{block}' (markers <!-- begin: written by {block} --> … <!-- end: {block} -->)"
        )
    doc.write_text(pat.sub(lambda m: m.group(1) + text + m.group(3), src, count=1))


def record(name: str, data, *, doc: Path = DOC) -> None:
    """Keep a full run's results in ``benchmarks/recorded/<name>.json`` and rewrite its table."""
    import datetime

    if isinstance(data, dict):
        data = {**data, "recorded": datetime.date.today().isoformat()}
    elif data:
        data = [{**data[0], "recorded": datetime.date.today().isoformat()}, *data[1:]]
    RECORDED.mkdir(parents=True, exist_ok=True)
    (RECORDED / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    block = BLOCK_OF[name]
    text = RENDER[block]()
    if text is not None:
        write_block(block, text, doc)
        print(f"wrote {RECORDED / (name + '.json')} and its table in {doc}")
    if block in README_RENDER and doc == DOC:
        write_block(block, README_RENDER[block](), README)
        print(f"wrote its table in {README}")


def main() -> None:
    for block, render in RENDER.items():
        text = render()
        if text is not None:
            write_block(block, text)
            print(f"rewrote block {block}")
    for block, render in README_RENDER.items():
        text = render()
        if text is not None:
            write_block(block, text, README)
            print(f"rewrote README block {block}")


if __name__ == "__main__":
    main()
