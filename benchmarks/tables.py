"""The benchmark tables of ``docs/benchmarks.md``, written by ``make bench`` and ``make load``.

Each full run records what it measured in ``benchmarks/recorded/<name>.json`` (kept in git: the
numbers behind the documentation) and rewrites its own table in ``docs/benchmarks.md`` between the
markers ``<!-- begin: written by <name> -->`` and ``<!-- end: <name> -->``. Nobody types these tables:
``tests/test_benchmark_tables.py`` renders every block again from its recorded run and fails when the
page differs (a hand edit, or a run recorded without its table).

Names: ``bench`` (``benchmarks/run.py``), ``live`` (``benchmarks/live.py``, whose table README.md shows too:
its performance table, between the same markers), ``load`` (``benchmarks/load.py`` on one server), ``load-k1``
and ``load-k2`` (the same through nginx with one and two workers), ``faults`` (``benchmarks/faults.py``),
``class``, ``rush`` and ``two-machines`` (``benchmarks/class_load.py`` and its scenarios); the rush also
writes the capacity block of ``docs/operations.md``. ``python -m benchmarks.tables`` rewrites every block
from the recorded runs (after a change of this module's layout).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from benchmarks.table_format import _machine, _pages_of, _s, _table, _target, _title, _x
from benchmarks.tables_live import render_live, render_live_readme

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "benchmarks" / "recorded"
DOC = ROOT / "docs" / "benchmarks.md"


# ------------------------------------------------------------------ make bench
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


# ------------------------------------------------------------------ the rush (class_load.py --scenario rush)
def _rush_row(r: dict) -> list[str]:
    c, st = r.get("class", {}), r.get("class", {}).get("stored", {})
    what = (
        f"{r['db']}, {c.get('students')} students, 2 workers, one killed"
        if r.get("scenario") == "rush"
        else f"two machines (1 worker each), {r['db']}, {c.get('students')} students, the second machine killed"
    )
    spread = ", ".join(str(n) for n in c.get("students_arrived_on", {}).values())
    stored = (
        f"{st.get('answers')} of {c.get('expected_answers')}; second attempts {st.get('second_attempts')}; "
        f"out of order {st.get('stored_out_of_order')}"
    )
    return [
        what + (f" (arrived {spread})" if r.get("scenario") == "two-machines" and spread else ""),
        stored,
        str(c.get("locked_out")),
        f"{_s(c.get('join_p95_s'), 1)}",
        f"{_s(c.get('answer_p50_s'))} / {_s(c.get('answer_p95_s'))} ({c.get('answers_said_queued')} said queued)",
        f"{_s(c.get('open_p95_s'), 1)}",
        f"{_s(c.get('refresh_p95_s'))}" + _target(c.get("refresh_p95_s"), 2, " s"),
        f"{c.get('server_cpu_s')} s in {c.get('seconds')} s",
        "every promise held" if all(r.get("promises", {}).values()) else "**a promise failed**",
    ]


def render_rush(rush: list | None, two: list | None) -> str:
    runs = [*(rush or []), *(two or [])]
    head = _machine(runs[0] if runs else {})
    load = [_load_average(r.get("class", {}).get("load_average")) for r in runs]
    header = [
        "run (arrive 10 s, think 1–4 s)",
        "answers stored",
        "locked out",
        "join p95",
        "answer p50 / p95",
        "page open p95",
        "live view refresh p95",
        "server CPU",
        "promises",
    ]
    head += f" *The machine's 1-minute load average during each run: {'; '.join(load)}.*"
    return head + "\n\n" + _table(header, [_rush_row(r) for r in runs])


def _load_average(la: dict | None) -> str:
    return "—" if not la else f"{la['mean']:.1f} (at most {la['max']:.1f})"


def render_capacity(rush: list) -> str:
    """The operations guide's capacity sentence, from the recorded rush (one per database)."""
    lines = []
    for r in rush:
        cap = r.get("capacity", {})
        lines.append(
            f"- **{r['db']}**: a student cost the server {cap.get('server_cpu_s_per_student')} CPU-seconds through "
            f"the lesson ({r['class']['students']} students; a worker killed and restarted"
            + (", and the database server's own processes," if r.get("cpu_counts_database") else "")
            + " included); at the rush's "
            f"pace a student thinks {cap.get('thinking_s_per_student')} s in all, so **one core serves about "
            f"{cap.get('students_per_core')} students** without a queue."
        )
    return _machine(rush[0] if rush else {}) + "\n\n" + "\n".join(lines)


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
    "rush": _from(render_rush, "rush", "two-machines"),
    "capacity": _from(render_capacity, "rush"),
}

#: which blocks a recorded run feeds
BLOCKS_OF = {
    "bench": ("bench",),
    "live": ("live",),
    "load": ("load",),
    "load-k1": ("load-nginx",),
    "load-k2": ("load-nginx",),
    "faults": ("faults",),
    "class": ("class",),
    "rush": ("rush", "capacity"),
    "two-machines": ("rush",),
}

#: the page a block is on (docs/benchmarks.md unless named here)
DOC_OF = {"capacity": ROOT / "docs" / "operations.md"}


#: the README's blocks: its performance table, from the live run
README = ROOT / "README.md"


def _live_readme() -> str | None:
    """README's performance block: the live pages' run (none recorded: no block), then a live class."""
    live = _read("live")
    return None if live is None else render_live_readme(live, _read("class"), _read("rush"))


README_RENDER: dict[str, Callable[[], str | None]] = {"live": _live_readme}


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


def record(name: str, data, *, doc: Path | None = None) -> None:
    """Keep a full run's results in ``benchmarks/recorded/<name>.json`` and rewrite its tables (each on its
    page, :data:`DOC_OF`; ``doc``: one page for all of them)."""
    import datetime

    if isinstance(data, dict):
        data = {**data, "recorded": datetime.date.today().isoformat()}
    elif data:
        data = [{**data[0], "recorded": datetime.date.today().isoformat()}, *data[1:]]
    RECORDED.mkdir(parents=True, exist_ok=True)
    (RECORDED / f"{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    for block in BLOCKS_OF[name]:
        text = RENDER[block]()
        if text is not None:
            page = doc or DOC_OF.get(block, DOC)
            write_block(block, text, page)
            print(f"wrote {RECORDED / (name + '.json')} and its table in {page}")
    if doc in (None, DOC):  # the README's blocks read several runs (the live pages, then a class): all again
        for block, render in README_RENDER.items():
            text = render()
            if text is not None:
                write_block(block, text, README)
                print(f"wrote its table in {README}")


def main() -> None:
    for block, render in RENDER.items():
        text = render()
        if text is not None:
            write_block(block, text, DOC_OF.get(block, DOC))
            print(f"rewrote block {block}")
    for block, render in README_RENDER.items():
        text = render()
        if text is not None:
            write_block(block, text, README)
            print(f"rewrote README block {block}")


if __name__ == "__main__":
    main()
