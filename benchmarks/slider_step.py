"""A slider step in Chromium, per analysis page, against a bare Streamlit page (``make bench``).

Two servers with the ``make run`` settings (``hetdp_ui.launch``) serve in the same run: the app, with its
script runs timed (``HETDP_TIMING``, :mod:`hetdp_ui.timing`), and a bare Streamlit page served by the
same Streamlit — one sidebar slider and one plotly chart of 2 000 points that depend on it. For every
analysis page (the registry's scenario pages) one browser opens the page's default view, waits until
it has finished and painted, focuses the first slider of the sidebar and presses ArrowRight ``--steps``
times, each a new value (no cache answers); the bare page the same, alternately, so the machine's load
hits both. Measured in the page (its own clock, which the server's shares on one machine):

* **step** — from the key press until the script run has finished and the browser has painted (two
  animation frames after the run's state turned to *not running*);
* **first answer** — from the key press until the first answer of the main area has been drawn: a chart
  redrawn, or a chart, table, guarantee check or metric refreshed by the run;
* the server's part, from its timing of the same script run: before it started (the slider's
  debounce and the request), the run, figures, serialisation, the panels (the rest of the script),
  and the bytes the browser received over the websocket;
* the browser's part: from the end of the script run to the paint.

Medians over the steps; ratios to the bare page's step. Prints a line per page and writes
``benchmarks/results/slider_step.json``; ``benchmarks/live.py`` records it with the other ratios of a
live page (``make bench-live``). The load average (``os.getloadavg``) is kept before and after.

    python benchmarks/slider_step.py [--pages URL,URL] [--steps 5] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.first_chart import CHROMIUM, CHROMIUM_ARGS, _server, keep_result  # noqa: E402
from benchmarks.load import free_port  # noqa: E402
from hetdp_core.framework.registry import specs  # noqa: E402

#: the floor: one sidebar slider, one plotly chart of 2 000 points depending on it
BARE = """
import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("A bare page")
a = st.sidebar.slider("frequency", 1, 100, 10)
x = np.linspace(0.0, 10.0, 2000)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(a * x / 10.0))))
"""

#: installed before any page script: timestamps (the page's clock, ms since the epoch) of key presses, of
#: answers drawn in the main area (charts, tables, checks, metrics) and of every websocket message's arrival
#: (with its size and the paint that followed it)
PROBE = """
(() => {
  const T = (window.__step = {keys: [], answers: [], msgs: []});
  const now = () => performance.timeOrigin + performance.now();
  const ANSWER = '.js-plotly-plot, [data-testid="stDataFrame"], [data-testid="stAlert"], [data-testid="stMetric"]';
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        const d = ev.data, rec = [now(), d.byteLength ?? d.size ?? d.length ?? 0, null];
        T.msgs.push(rec);  // rec[2]: when the browser had painted after this message
        requestAnimationFrame(() => requestAnimationFrame(() => { rec[2] = now(); }));
      });
    }
  };
  document.addEventListener('keydown', () => T.keys.push(now()), true);
  // the browser's main thread busy (tasks over 50 ms: parsing, React, plotly drawing)
  T.long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) { T.long.push([performance.timeOrigin + e.startTime, e.duration]); }
  }).observe({type: 'longtask', buffered: true});
  // an answer drawn: a chart of the main area redrawn, or a chart, table, check or metric of the main area
  // refreshed by the run (its container no longer stale); kept: when the browser had painted it
  const painted = () => requestAnimationFrame(() => requestAnimationFrame(() => T.answers.push(now())));
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el || !el.closest('[data-testid="stMain"]')) { continue; }
      if (r.type === 'attributes') {
        if (el.getAttribute('data-stale') === 'false' && el.querySelector(ANSWER)) { painted(); break; }
      } else if (el.closest('.js-plotly-plot')) { painted(); break; }
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-stale']});
})();
"""

SLIDER = '[data-testid="stSidebar"] [data-testid="stSlider"] input[type="range"]'

#: a page has opened: its run over, at least one element in its main area, and every chart of it drawn
SETTLED = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]');
  if (!app || !main || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!main.querySelector('[data-testid="stElementContainer"]')) return false;
  if (main.querySelector('[data-testid="stSkeleton"]')) return false;  // an element still loading its code
  // a chart's element counts before its script has made the chart's div
  const charts = main.querySelectorAll('.hetdp-chart, [data-testid="stPlotlyChart"], [data-testid^="stBidiComponent"]');
  return [...charts].every((c) => c.querySelector('.main-svg'));
}"""


def script_state(pg) -> str | None:
    """The app's run state as Streamlit's frontend shows it (``running``, ``notRunning``, …)."""
    return pg.evaluate(
        "() => { const a = document.querySelector('[data-testid=\"stApp\"]'); "
        "return a && a.getAttribute('data-test-script-state'); }"
    )


def _idle(pg, quiet_ms: float = 600, timeout_s: float = 120) -> None:
    """Wait until the app is not running and no websocket message arrived for ``quiet_ms``."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        state = script_state(pg)
        last = pg.evaluate("() => { const m = window.__step.msgs; return m.length ? m[m.length - 1][0] : 0; }")
        now = pg.evaluate("() => performance.timeOrigin + performance.now()")
        if state == "notRunning" and now - last > quiet_ms:
            return
        time.sleep(0.1)
    raise TimeoutError("the page did not settle")


def _open(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.add_init_script(PROBE)
    pg = ctx.new_page()
    pg.set_default_timeout(180_000)
    pg.goto(url)
    # opened: its charts drawn (a new visitor's browser loads plotly.js when the first arrives), or, for a
    # view without one (the guarantee lab's first tab), its run over
    pg.wait_for_function(SETTLED, timeout=180_000)
    _idle(pg)
    return ctx, pg


def _one_step(pg, key: str = "ArrowRight", quiet_ms: float = 500, timeout_s: float = 120) -> dict:
    """Press ``key`` on the focused slider and wait until the run it caused has ended: the app not
    running and no websocket message for ``quiet_ms`` (the run's last message is Streamlit's *script
    finished*). Returns the step's times in the page's clock (ms since the epoch): the key press, the
    last message of the run, the paint after it, the first redraw of a chart, and the bytes received."""
    n_keys = pg.evaluate("() => window.__step.keys.length")
    pg.keyboard.press(key)
    deadline = time.time() + timeout_s
    while True:
        got = pg.evaluate(
            f"""() => {{
                const T = window.__step, t0 = T.keys[{n_keys}], t = performance.timeOrigin + performance.now();
                const app = document.querySelector('[data-testid="stApp"]');
                const msgs = T.msgs.filter(m => m[0] > t0);
                const last = msgs.length ? msgs[msgs.length - 1] : null;
                if (!last || last[2] === null || t - last[0] < {quiet_ms}
                    || app.getAttribute('data-test-script-state') !== 'notRunning') {{ return null; }}
                const answers = T.answers.filter(c => c > t0);
                const busy = T.long.filter(e => e[0] >= t0 && e[0] <= last[2]).reduce((a, e) => a + e[1], 0);
                return {{t0, finished: last[0], painted: last[2], chart: answers.length ? answers[0] : null, busy,
                         bytes: msgs.reduce((s, m) => s + m[1], 0), messages: msgs.length}};
            }}"""
        )
        if got is not None:
            return got
        if time.time() > deadline:
            raise TimeoutError("no script run finished after the key press")
        time.sleep(0.05)


def _server_line(log: Path, after_ms: float) -> dict | None:
    """The server's timing of the first script run that started after ``after_ms`` (ms since the epoch)."""
    if not log.exists():
        return None
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        if rec["start"] * 1000 >= after_ms:
            return rec
    return None


def steps_on(browser, url: str, n: int, log: Path | None) -> list[dict]:
    """``n`` ArrowRight steps on the first sidebar slider of ``url`` (ArrowLeft once it is at its top)."""
    ctx, pg = _open(browser, url)
    try:
        slider = pg.locator(SLIDER).first
        slider.focus()
        out = []
        for _ in range(n):
            now, top = slider.evaluate("e => [e.value, e.max]")
            key = "ArrowLeft" if now == top else "ArrowRight"
            s = _one_step(pg, key)
            time.sleep(0.3)
            rec = {
                "step_s": (s["painted"] - s["t0"]) / 1000,
                "first_answer_s": ((s["chart"] - s["t0"]) / 1000) if s["chart"] else None,
                "browser_s": (s["painted"] - s["finished"]) / 1000,
                "browser_busy_s": s["busy"] / 1000,
                "bytes": s["bytes"],
                "messages": s["messages"],
            }
            line = _server_line(log, s["t0"]) if log is not None else None
            if line is not None:
                rec.update(
                    before_s=line["start"] - s["t0"] / 1000,
                    script_s=line["total"],
                    run_s=line.get("run", 0.0),
                    run_where=line.get("run_where", ""),
                    figures_s=line.get("figures", 0.0),
                    serialisation_s=line.get("serialisation", 0.0),
                    after_s=s["painted"] / 1000 - line["end"],
                )
                rec["panels_s"] = rec["script_s"] - rec["run_s"] - rec["figures_s"] - rec["serialisation_s"]
            out.append(rec)
        return out
    finally:
        ctx.close()


def _median(rows: list[dict], key: str):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summarise(rows: list[dict]) -> dict:
    keys = ("step_s", "first_answer_s", "browser_s", "browser_busy_s", "bytes", "before_s", "script_s", "run_s")
    keys += ("figures_s", "serialisation_s", "panels_s", "after_s")
    out = {k: _median(rows, k) for k in keys}
    out["steps"] = len(rows)
    out["run_where"] = sorted({r.get("run_where", "") for r in rows} - {""})
    return out


def measure(pages: list[str], *, steps: int = 5, rounds: int = 2) -> dict:
    """Slider steps on ``pages`` and on the bare page, alternating, in one run: per page the medians
    (:func:`summarise`), the bare page's median step and both ratios; ``bare`` the floor's own medians.
    Each round has a freshly started app server: a round's steps take the values of the round before,
    which its run cache would answer."""
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="hetdp-step-"))
    bare = tmp / "bare.py"
    bare.write_text(BARE)
    log = tmp / "timing.jsonl"
    bare_port = free_port()
    floor = _server(bare, bare_port)
    rows: dict[str, list] = {p: [] for p in pages}
    floor_rows: dict[str, list] = {p: [] for p in pages}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for _ in range(rounds):
                app_port = free_port()
                app = _server(ROOT / "app.py", app_port, {"HETDP_TIMING": str(log)})
                try:
                    for page in pages:  # page and bare page alternate: the machine's load hits both
                        rows[page] += steps_on(browser, f"http://127.0.0.1:{app_port}/{page}", steps, log)
                        floor_rows[page] += steps_on(browser, f"http://127.0.0.1:{bare_port}/", steps, None)
                finally:
                    app.terminate()
                    app.wait(30)
            browser.close()
    finally:
        floor.terminate()
        floor.wait(30)
    out: dict = {"pages": {}}
    for page in pages:
        row = summarise(rows[page])
        row["bare_step_s"] = _median(floor_rows[page], "step_s")
        row["step_ratio"] = row["step_s"] / row["bare_step_s"]
        fa = row["first_answer_s"]
        row["first_answer_ratio"] = None if fa is None else fa / row["bare_step_s"]
        out["pages"][page] = row
        print(
            f"{page:22s} step {row['step_s']:.2f} s ({row['step_ratio']:.2f}× bare "
            f"{row['bare_step_s']:.2f} s), first answer {fa if fa is not None else float('nan'):.2f} s; "
            f"run {row['run_s'] or 0:.2f} figures {row['figures_s'] or 0:.2f} serialisation "
            f"{row['serialisation_s'] or 0:.2f} panels {row['panels_s'] or 0:.2f} browser {row['browser_s']:.2f} s "
            f"(busy {row['browser_busy_s'] or 0:.2f} s), {(row['bytes'] or 0) / 1e3:.0f} kB",
            flush=True,
        )
    out["bare"] = summarise([r for page in pages for r in floor_rows[page]])
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", default=",".join(s.url for s in specs()))
    ap.add_argument("--steps", type=int, default=5, help="slider steps per page and round (medians over all)")
    ap.add_argument("--rounds", type=int, default=2, help="page and bare page alternate this many times")
    a = ap.parse_args(argv)
    load_before = os.getloadavg()
    out = {"machine": {"cpus": os.cpu_count()}, **measure(a.pages.split(","), steps=a.steps, rounds=a.rounds)}
    out["load_average"] = {"before": list(load_before), "after": list(os.getloadavg())}
    return keep_result("slider_step", out)


if __name__ == "__main__":
    main()
