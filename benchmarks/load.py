"""Load tool: N virtual users that speak Streamlit's own websocket protocol (``make load``).

Each virtual user opens ``/_stcore/stream`` (subprotocol ``streamlit``), sends one ``BackMsg``
``rerun_script`` with the page name and the page's query string — exactly what a browser sends
when a link is opened — and reads ``ForwardMsg``s until ``script_finished``. It records the latency,
exceptions (``exception`` elements), error alerts and charts received.

Without ``--url`` the tool starts its own server with the production settings of ``make run``
(``.streamlit/config.toml``: no file watcher, no run-on-save) on a free port and can therefore also
measure the server's CPU time per view (from ``/proc/<pid>/stat``).

    python benchmarks/load.py                       # the standard suite; writes results/load.json
    python benchmarks/load.py --users 50 --page PAGE --distinct
    python benchmarks/load.py --url http://127.0.0.1:8080 --users 50   # any running server
    python benchmarks/load.py --workers 2          # k workers behind nginx (make serve WORKERS=2)

Scenarios of the standard suite:
* warm view: per page, the server CPU of one new session on a view whose results are cached
  (median of 10 sequential sessions after one warm-up);
* 50 users opening one cached link at once (p50/p95/max latency, errors, exceptions);
* 50 users with 50 different scenarios at once (distinct seeds: nothing is cached);
the pages of the crowds are those whose ``pages/<slug>/bench.toml`` asks for one (benchmarks/workloads.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from hetdp_core.framework.registry import pages as _pages  # noqa: E402  (the app's one list of pages)
from hetdp_ui.chart_element import COMPONENT as CHART_COMPONENT  # noqa: E402  (every chart's element)
from hetdp_ui.processes import process_tree  # noqa: E402

PAGES = tuple(_pages())
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class View:
    """What one virtual user saw."""

    seconds: float = 0.0
    finished: bool = False
    status: str = ""
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    charts: int = 0
    messages: int = 0
    failure: str = ""


async def open_view(url: str, page: str, query: str, *, timeout: float = 300.0) -> View:
    """One browser session opening ``url/page?query``: connect, request the run, read to the end."""
    view = View()
    t0 = time.perf_counter()
    try:
        async with Browser(url) as browser:
            run = await browser.run(page, query, timeout=timeout)
    except (Disconnected, OSError, TimeoutError, websockets.WebSocketException) as exc:
        view.failure = f"{type(exc).__name__}: {exc}"[:300]
    else:
        view.messages, view.charts, view.status = run.messages, run.charts, run.status
        view.exceptions, view.errors = run.exceptions, run.errors
        view.finished = run.status == "FINISHED_SUCCESSFULLY"
        if run.status == "PAGE_NOT_FOUND":
            view.failure = f"page not found: {page}"
    view.seconds = time.perf_counter() - t0
    return view


# ---------------------------------------------- a browser session with widgets (make load's class run)
class Disconnected(Exception):
    """The websocket closed (its worker died)."""


@dataclass
class Run:
    seconds: float
    status: str = ""
    #: key → (widget id, element type, id of the fragment it is drawn in or "")
    widgets: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    query: str | None = None
    auto_rerun: str | None = None
    charts: int = 0
    messages: int = 0

    def has(self, text: str) -> bool:
        return any(text in t for t in self.texts)


class Browser:
    """One browser session: one websocket, reruns with widget states, elements read back. ``cookie``: the
    browser's route cookie (``make serve``'s nginx keeps a browser that sends one on one worker);
    ``worker``: the worker that answered (nginx's ``X-Hetdp-Worker``), when through nginx."""

    def __init__(self, url: str, cookie: str | None = None):
        self.ws_url = url.replace("http://", "ws://").rstrip("/") + "/_stcore/stream"
        self.ws, self.cookie, self.worker = None, cookie, None
        #: each page's script hash by its URL path, as the server's navigation message lists them: a browser
        #: sends the hash of the page it shows with every rerun (a click's callback is matched to its page
        #: by it: hetdp_ui.actions), and so does this client once it has learned it
        self.page_hashes: dict[str, str] = {}

    async def __aenter__(self):
        try:
            self.ws = await websockets.connect(
                self.ws_url,
                subprotocols=["streamlit"],
                max_size=None,
                open_timeout=30,
                ping_interval=None,
                additional_headers={"Cookie": f"hetdp_route={self.cookie}"} if self.cookie else None,
            )
        except (OSError, websockets.WebSocketException) as exc:  # refused, or a 502 while every worker restarts
            raise Disconnected(str(exc)) from None
        self.worker = self.ws.response.headers.get("X-Hetdp-Worker")
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def send(self, page: str, query: str, widgets=(), *, fragment: str | None = None, auto: bool = False):
        """Send a rerun (a link opened, widgets changed, a button clicked) without reading the answer."""
        states = WidgetStates(widgets=[WidgetState(id=i, **v) for i, v in widgets])
        back = BackMsg(
            rerun_script=ClientState(
                query_string=query,
                page_name=page,
                page_script_hash=self.page_hashes.get(page, ""),
                widget_states=states,
                fragment_id=fragment or "",
                is_auto_rerun=auto,
            )
        )
        try:
            await self.ws.send(back.SerializeToString())
        except (OSError, websockets.WebSocketException) as exc:
            raise Disconnected(str(exc)) from None

    async def run(
        self, page: str, query: str, widgets=(), *, fragment: str | None = None, auto: bool = False, timeout=180.0
    ) -> Run:
        t0 = time.perf_counter()
        run = Run(0.0)
        await self.send(page, query, widgets, fragment=fragment, auto=auto)
        try:
            async with asyncio.timeout(timeout):
                while True:
                    msg = ForwardMsg()
                    msg.ParseFromString(await self.ws.recv())
                    run.messages += 1
                    kind = msg.WhichOneof("type")
                    if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                        _element(run, msg.delta.new_element, msg.delta.fragment_id)
                    elif kind == "navigation":
                        self.page_hashes.update({p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages})
                    elif kind == "page_info_changed":
                        run.query = msg.page_info_changed.query_string
                    elif kind == "auto_rerun":
                        run.auto_rerun = msg.auto_rerun.fragment_id
                    elif kind == "page_not_found":
                        run.status = "PAGE_NOT_FOUND"
                        break
                    elif kind == "script_finished":
                        status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
                        if status in ("FINISHED_EARLY_FOR_RERUN",):
                            continue
                        run.status = status
                        break
        except (OSError, websockets.WebSocketException) as exc:
            raise Disconnected(str(exc)) from None
        run.seconds = time.perf_counter() - t0
        return run


def _element(run: Run, el, fragment: str = "") -> None:
    t = el.WhichOneof("type")
    if t == "exception":
        run.exceptions.append(f"{el.exception.type}: {el.exception.message}"[:300])
    elif t == "alert":
        run.texts.append(el.alert.body)
        if el.alert.format == el.alert.ERROR:
            run.errors.append(el.alert.body[:300])
    elif t == "markdown":
        run.texts.append(el.markdown.body)
    elif t == "plotly_chart" or (t == "bidi_component" and el.bidi_component.component_name == CHART_COMPONENT):
        run.charts += 1
    elif t in ("button", "text_input", "number_input", "radio", "slider"):
        wid = getattr(el, t).id
        key = wid.split("-", 2)[2] if wid.startswith("$$ID-") and wid.count("-") >= 2 else wid
        run.widgets[key] = (wid, t, fragment)


def arun(coro):
    """``asyncio.run`` that also works where an event loop is already running in this thread (e.g.
    next to Playwright's sync API in the test session): then the loop runs in a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    import threading

    box: dict = {}

    def go() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            box["error"] = exc

    # a daemon thread, joined once: a test's timeout interrupts the join and fails the test, leaving a stuck
    # loop behind (an executor's exit would wait for it again, and hold the whole suite)
    th = threading.Thread(target=go, name="load-arun", daemon=True)
    th.start()
    th.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


async def crowd(url: str, page: str, queries: list[str]) -> list[View]:
    """All users at once (one query each)."""
    return list(await asyncio.gather(*(open_view(url, page, q) for q in queries)))


def percentile(values, q: float) -> float | None:
    """The nearest-rank ``q`` quantile of ``values`` (rounded to the millisecond), None for none."""
    v = sorted(values)
    return round(v[min(len(v) - 1, int(round(q * (len(v) - 1))))], 3) if v else None


def summary(views: list[View]) -> dict:
    lat = [v.seconds for v in views]
    return {
        "users": len(views),
        "p50_s": percentile(lat, 0.5),
        "p95_s": percentile(lat, 0.95),
        "max_s": round(max(lat), 3),
        "finished": sum(v.finished for v in views),
        "failures": sum(bool(v.failure) for v in views),
        "exceptions": sum(len(v.exceptions) for v in views),
        "error_alerts": sum(len(v.errors) for v in views),
        "first_problem": next(
            (v.failure or (v.exceptions or v.errors)[0] for v in views if v.failure or v.exceptions or v.errors), None
        ),
    }


# ------------------------------------------------------------------ a server with `make run` settings
def _ephemeral_low() -> int:
    """The first of the kernel's ephemeral ports (the source ports it gives outgoing connections)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default range starts here


def free_port(span: int = 8) -> int:
    """A port of 127.0.0.1 that is free now, with the ``span`` ports after it (a stack's workers listen on
    port+1 …), below the kernel's ephemeral range. A port handed out by the kernel (``bind(0)``) lies in
    that range: a health check polling it before the server listens can be given that very port as its
    own source port and connect to itself, so it reads its own request back as the answer (a full run's
    class-load test failed so, on ``BadStatusLine('GET /_stcore/health HTTP/1.1')``) — and while it is
    connected there, the server cannot take the port."""
    import random

    hi = _ephemeral_low() - span - 1
    for _ in range(200):
        base = random.randint(10_000, max(hi, 10_001))
        try:
            for p in range(base, base + span + 1):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue  # taken (or just let go, in TIME_WAIT): another
        return base
    raise RuntimeError(f"no {span + 1} free ports in a row on 127.0.0.1 below {hi + span + 1}")


def start_server(port: int) -> subprocess.Popen:
    from hetdp_ui.serve import start_streamlit

    try:
        return start_streamlit(port)
    except RuntimeError as exc:
        raise SystemExit(f"load: {exc}") from None


def cpu_seconds(pid) -> float:
    """User + system CPU of a process (or a list of processes) and their threads (Linux /proc)."""
    if isinstance(pid, (list, tuple)):
        return sum(cpu_seconds(p) for p in pid)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def tree_cpu_seconds(pid) -> float:
    """User + system CPU of a process tree: every live descendant's own time plus what its reaped
    children used (the run limiter computes in child processes of a fork server)."""
    if isinstance(pid, (list, tuple)):
        return sum(tree_cpu_seconds(p) for p in pid)
    total = 0
    for p in process_tree(pid):
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15])  # utime, stime, cutime, cstime
    return total / TICKS


def tree_rss(pid: int) -> int:
    """Resident memory (bytes) of a process and all its descendants (Linux /proc)."""
    total = 0
    for p in process_tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Sampler:
    """``with Sampler(take, every) as s: …`` calls ``take()`` every ``every`` seconds in a thread while the
    block runs (once at its start); ``s.samples`` holds what it returned."""

    def __init__(self, take, every: float):
        import threading

        self.take, self.every, self.samples, self._stop = take, every, [], threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while True:
            self.samples.append(self.take())
            if self._stop.wait(self.every):
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(10)
        return False


class PeakRSS(Sampler):
    """``with PeakRSS(pid) as m: …`` samples :func:`tree_rss` every 0.1 s; ``m.peak`` is the largest
    resident memory (bytes) of the process and its children seen during the block."""

    def __init__(self, pid: int):
        super().__init__(lambda: tree_rss(pid), 0.1)

    @property
    def peak(self) -> int:
        return max(self.samples, default=0)


class LoadAverage(Sampler):
    """``with LoadAverage() as la: …`` samples the machine's 1-minute load average every 5 s during the
    block; ``la.summary()`` is its mean and largest value (how shared a shared machine was while a run
    measured), or None when nothing was sampled."""

    def __init__(self, every: float = 5.0):
        super().__init__(lambda: os.getloadavg()[0], every)

    def summary(self) -> dict | None:
        s = self.samples
        return {"mean": round(sum(s) / len(s), 2), "max": round(max(s), 2)} if s else None


def _sequential_views(url: str, page: str, queries: list[str], *, cpu, settle: float):
    """Open ``queries`` one after another; per view the CPU ``cpu()`` rose by (read ``settle`` seconds
    after the view finished) and its wall time. Returns (costs, walls, problem or None)."""
    costs, walls = [], []
    for q in queries:
        c0 = cpu()
        v = arun(open_view(url, page, q))
        time.sleep(settle)
        costs.append(cpu() - c0)
        walls.append(v.seconds)
        if v.failure or v.exceptions:
            return costs, walls, v.failure or v.exceptions[0]
    return costs, walls, None


def warm_view_cpu(url: str, pid: int, page: str, query: str = "", repeats: int = 10) -> dict:
    """Server CPU of one new session on a cached view: median over ``repeats`` sequential sessions."""
    first = arun(open_view(url, page, query))  # computes and caches the results
    # 0.05 s: let the session finish its bookkeeping
    costs, walls, problem = _sequential_views(url, page, [query] * repeats, cpu=lambda: cpu_seconds(pid), settle=0.05)
    if problem:
        return {"page": page, "problem": problem}
    return {
        "page": page,
        "cold_s": round(first.seconds, 3),
        "warm_cpu_s": round(statistics.median(costs), 3),
        "warm_wall_s": round(statistics.median(walls), 3),
        "charts": first.charts,
    }


def cold_view_cpu(url: str, pid, page: str, repeats: int = 3) -> dict:
    """Server CPU (its computing children included) of one session on a view nothing has computed
    yet: the page's default scenario with a seed not seen before, after one view of the page has
    loaded its modules. Median over ``repeats`` sequential sessions."""
    import dataclasses

    fields = dataclasses.fields(_pages()[page].SCENARIO)
    if "seed" in {f.name for f in fields}:
        vary = [f"seed={7000 + i}" for i in range(repeats)]
    else:  # a deterministic page: vary its first numeric setting instead (prior and fpr only word the risk)
        num = next(f for f in fields if f.type in ("float", float) and f.name not in ("prior", "fpr"))
        vary = [f"{num.name}={num.default * (1 + 0.01 * (i + 1)):g}" for i in range(repeats)]
    arun(open_view(url, page, ""))  # imports and caches of the page itself, not of a scenario
    # 0.3 s: let the session finish and the run's child be reaped (its CPU is counted then)
    costs, walls, problem = _sequential_views(url, page, vary, cpu=lambda: tree_cpu_seconds(pid), settle=0.3)
    if problem:
        return {"page": page, "problem": problem}
    return {
        "page": page,
        "cold_cpu_s": round(statistics.median(costs), 3),
        "cold_wall_s": round(statistics.median(walls), 3),
    }


def standard_suite(url: str, pid, users: int) -> dict:
    out: dict = {"users": users}
    if pid is not None:
        for kind, measure in (("warm", warm_view_cpu), ("cold", cold_view_cpu)):
            out[f"{kind}_view"] = [measure(url, pid, p) for p in PAGES]
            for r in out[f"{kind}_view"]:
                extra = f"cold {r.get('cold_s', '-')} s " if kind == "warm" else ""
                print(
                    f"{kind} view {r['page']:20s} cpu {r.get(f'{kind}_cpu_s', '-')} s  wall "
                    f"{r.get(f'{kind}_wall_s', '-')} s  {extra}{r.get('problem', '')}",
                    flush=True,
                )
    from workloads import workloads

    work = workloads()  # each page's own crowds (pages/<slug>/bench.toml)
    for page, query in work.same_link:
        arun(open_view(url, page, query))  # cached link
        s = summary(arun(crowd(url, page, [query] * users)))
        out[f"same_link_{page}"] = s
        print(f"{users} users, one cached link, {page}: {s}", flush=True)
    for page in work.distinct:
        s = summary(arun(crowd(url, page, [f"seed={1000 + i}" for i in range(users)])))
        out[f"distinct_{page}"] = s
        print(f"{users} users, {users} different scenarios, {page}: {s}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="an already running server (default: start one with `make run` settings)")
    ap.add_argument("--users", type=int, default=50)
    ap.add_argument("--page", choices=PAGES, help="one crowd on this page instead of the standard suite")
    ap.add_argument("--query", default="", help="the page's query string, e.g. 'q=0.3&n=5000'")
    ap.add_argument("--distinct", action="store_true", help="every user a different scenario (seed=1000+i)")
    ap.add_argument(
        "--workers",
        type=int,
        default=0,
        help="start k workers behind nginx (make serve WORKERS=k) instead of one server",
    )
    ap.add_argument("--cold", action="store_true", help="only the cold-view CPU of each page (or of --page)")
    ap.add_argument("--out", default=None, help="JSON results (default benchmarks/results/load[-kN].json)")
    a = ap.parse_args(argv)
    if a.users < 1:
        ap.error("--users must be at least 1")
    proc = stack = None
    pids = None
    url = a.url
    if url is None and a.workers:
        sys.path.insert(0, str(ROOT))
        from hetdp_ui.serve import Stack

        stack = Stack(workers=a.workers, port=free_port()).start()
        url, pids = stack.url, stack.pids
    elif url is None:
        port = free_port()
        proc = start_server(port)
        url, pids = f"http://127.0.0.1:{port}", proc.pid
    out = a.out or str(ROOT / "benchmarks" / "results" / (f"load-k{a.workers}.json" if a.workers else "load.json"))
    try:
        if a.cold:
            rows = [cold_view_cpu(url, pids, p) for p in ([a.page] if a.page else PAGES)]
            print(json.dumps(rows, indent=2))
            return 0
        if a.page:
            qs = [
                ("&".join(x for x in (a.query, f"seed={1000 + i}") if x)) if a.distinct else a.query
                for i in range(a.users)
            ]
            c0 = tree_cpu_seconds(pids) if pids is not None else None
            result = summary(arun(crowd(url, a.page, qs)))
            if c0 is not None:  # the server's CPU for the whole crowd, its computing children included
                result["server_cpu_s"] = round(tree_cpu_seconds(pids) - c0, 2)
            print(json.dumps(result, indent=2))
        else:
            result = standard_suite(url, pids, a.users)
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(
                json.dumps(
                    {
                        "machine_cpus": os.cpu_count(),
                        "workers": a.workers or 1,
                        "through_nginx": bool(a.workers),
                        **result,
                    },
                    indent=2,
                )
            )
            print(f"wrote {out}")
            if a.url is None and a.workers in (0, 1, 2):  # the standard runs of `make load` write their tables
                from benchmarks.tables import record

                record(f"load-k{a.workers}" if a.workers else "load", json.loads(Path(out).read_text()))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        if stack is not None:
            stack.stop()
    bad = (
        result.get("failures", 0) + result.get("exceptions", 0)
        if a.page
        else sum(v.get("failures", 0) + v.get("exceptions", 0) for v in result.values() if isinstance(v, dict))
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
