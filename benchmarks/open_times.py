"""No blank screen: how soon a page shows something, the ledger's opening against a bare page, and a
student's Join (``benchmarks/live.py``; issue 51).

One server with the ``make run`` settings (its class database in a temporary folder) and a bare Streamlit
page (one plotly chart) served by the same Streamlit. In Chromium, for every page of the menu (analysis
pages and tools) a fresh browser context opens the page — a new visitor, nothing in the browser's cache —
and the page's own clock gives:

* **first paint** — the browser's first contentful paint (Streamlit's frame and skeleton included);
* **something useful** — the page's title painted (an ``h1`` in the main area), what the reader first
  needs to know the page is there;
* **settled** — the page's run finished (and stayed so for half a second), no skeleton left in its main
  area (a new visitor's browser loads plotly only when the first chart arrives; until then each chart's
  place holds a skeleton) and its charts drawn.

Every page that is not a scenario and draws a chart on opening (the release ledger) is compared, to that
chart, with the bare page opened the same way (a new visitor of a server that has served it before). A
student's *Join*: a session of the first bundled lesson is started in the database, a fresh browser opens
its join link, types a name and clicks *Join*; measured from the click until the lesson panel of the
lesson's first page is painted. Medians of ``repeat``.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.first_chart import CHROMIUM, CHROMIUM_ARGS, _server  # noqa: E402
from benchmarks.load import free_port  # noqa: E402
from benchmarks.slider_step import BARE, script_state  # noqa: E402

#: installed before any page script: the time (the page's clock, ms since the epoch) of the first
#: contentful paint and of the first paint after the main area had a title
PROBE = """
(() => {
  const T = (window.__open = {fcp: null, title: null, lesson: null, chart: null});
  const now = () => performance.timeOrigin + performance.now();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === 'first-contentful-paint') { T.fcp = performance.timeOrigin + e.startTime; }
    }
  }).observe({type: 'paint', buffered: true});
  const seen = (key, selector) => {
    if (T[key] === null && document.querySelector(selector)) {
      T[key] = -1;
      requestAnimationFrame(() => requestAnimationFrame(() => { T[key] = now(); }));
    }
  };
  new MutationObserver(() => {
    seen('title', '[data-testid="stMain"] h1');
    seen('lesson', '.st-key-lesson_panel');
    seen('chart', '[data-testid="stMain"] .js-plotly-plot .main-svg');
  }).observe(document, {subtree: true, childList: true});
})();
"""


def _context(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.add_init_script(PROBE)
    pg = ctx.new_page()
    pg.set_default_timeout(180_000)
    return ctx, pg


def _settled(pg, quiet_s: float = 0.5, timeout_s: float = 180) -> None:
    """Wait until the app's run has finished and it stays so for ``quiet_s``."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if script_state(pg) == "notRunning":
            time.sleep(quiet_s)
            if script_state(pg) == "notRunning":
                return
        time.sleep(0.05)
    raise TimeoutError("the page did not settle")


def cold_open(browser, url: str) -> dict:
    """Seconds from the request to the first contentful paint, to the title painted and to settled."""
    ctx, pg = _context(browser)
    try:
        pg.goto(url, wait_until="commit")  # the page's clock starts with its navigation
        start = pg.evaluate("() => performance.timeOrigin")
        pg.wait_for_function("() => window.__open.title > 0", timeout=180_000)
        _settled(pg)
        # a chart is drawn by plotly after the run has ended, and a new visitor's browser first loads plotly
        # itself: until then the chart's place holds a skeleton (a cached page had settled before its chart
        # existed, so its opening was measured without the chart). Wait for every skeleton to be gone, then
        # for the chart when the page has one
        pg.wait_for_function(
            '() => !document.querySelector(\'[data-testid="stMain"] [data-testid="stSkeleton"]\') '
            '&& (!document.querySelector(\'[data-testid="stMain"] [data-testid="stPlotlyChart"], '
            '[data-testid="stMain"] .hetdp-chart\') '
            "|| window.__open.chart > 0)",
            timeout=180_000,
        )
        done = pg.evaluate("() => performance.timeOrigin + performance.now()")
        t = pg.evaluate("() => window.__open")
        return {
            "first_paint_s": (t["fcp"] - start) / 1000 if t["fcp"] else None,
            "useful_s": (t["title"] - start) / 1000,
            "chart_s": (t["chart"] - start) / 1000 if (t["chart"] or 0) > 0 else None,
            "settled_s": (done - start) / 1000,
        }
    finally:
        ctx.close()


def join(browser, base: str, code: str, name: str) -> float:
    """Seconds from a student's click on *Join* until the lesson is painted on its first page."""
    from hetdp_ui.folders import page_for

    ctx, pg = _context(browser)
    try:
        pg.goto(f"{base}/{page_for('live class').url}?code={code}")
        box = pg.get_by_role("textbox", name=re.compile("your display name"))
        box.fill(name)
        box.press("Tab")
        _settled(pg)
        t0 = pg.evaluate("() => performance.timeOrigin + performance.now()")
        pg.get_by_role("button", name="Join").click()
        pg.wait_for_function("() => window.__open.lesson > 0", timeout=180_000)
        return (pg.evaluate("() => window.__open.lesson") - t0) / 1000
    finally:
        ctx.close()


def _medians(rows: list[dict]) -> dict:
    """The median opening (by its settled time; the slower of the middle two of an even count), whole: its first paint,
    title and settled time belong to one opening, so they stay in order (a median per column mixed
    openings). The chart time is the median of the openings that drew a chart."""
    pick = dict(sorted(rows, key=lambda r: r["settled_s"])[len(rows) // 2])
    charts = [r["chart_s"] for r in rows if r.get("chart_s") is not None]
    if "chart_s" in pick:
        pick["chart_s"] = statistics.median(charts) if charts else None
    return pick


def measure(*, repeat: int = 2) -> dict:
    """Every menu page's opening by a new visitor, and a student's Join (medians of ``repeat``); every page
    that is not a scenario and draws a chart when opened (the release ledger) against the bare page."""
    from playwright.sync_api import sync_playwright

    from hetdp_core.teaching.lessons import bundled_lessons
    from hetdp_ui.classroom.store import ClassStore
    from hetdp_ui.nav import scenario_entries, tools

    data = Path(tempfile.mkdtemp(prefix="hetdp-open-"))
    bare = data / "bare.py"
    bare.write_text(BARE)
    env = {"HETDP_DATA_DIR": str(data / "class")}
    os.environ.update(env)  # the store below and the server share the class database
    app_port, bare_port = free_port(), free_port()
    app = _server(ROOT / "app.py", app_port, env)
    floor = _server(bare, bare_port)
    base = f"http://127.0.0.1:{app_port}"
    out: dict = {"cold_open": {}, "tool_chart_ratio": {}}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            floor_rows = []
            for url in [u for _, _, u, _, _ in scenario_entries() + tools()]:
                rows = []
                for _ in range(repeat):  # alternate with the bare page: the machine's load hits both
                    rows.append(cold_open(browser, f"{base}/{url}"))
                    floor_rows.append(cold_open(browser, f"http://127.0.0.1:{bare_port}/"))
                out["cold_open"][url] = _medians(rows)
            out["bare_open"] = _medians(floor_rows)
            for url in (u for _, _, u, _, _ in tools()):  # a tool page that draws a chart on opening
                chart = out["cold_open"][url]["chart_s"]
                if chart is not None:
                    out["tool_chart_ratio"][url] = chart / out["bare_open"]["chart_s"]
            lesson = bundled_lessons()[0]
            store = ClassStore()
            joins = [join(browser, base, store.start(lesson.id).code, f"student {i}") for i in range(repeat)]
            out["join_s"] = statistics.median(joins)
            browser.close()
    finally:
        for proc in (app, floor):
            proc.terminate()
            proc.wait(30)
    return out


if __name__ == "__main__":
    import json

    print(json.dumps(measure(), indent=2))
