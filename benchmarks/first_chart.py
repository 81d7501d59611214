"""Time to the first chart in Chromium, against a bare Streamlit page (``make bench``).

For every page: a fresh server (``hetdp_ui.launch``, the ``make run`` settings) is started, one browser
opens the page (the *first visitor*: nothing computed, nothing cached) and the time from the request to
the first plotly chart drawn (its SVG in the page) is measured; then a new browser context opens the
same link (the *next visitor*: the run and the figures are cached). The floor is the same two times for
a bare Streamlit page that draws one plotly chart, served by the same Streamlit (a second server from
the same installation, started the same way) in the same run — so the ratios do not depend on how busy
the machine is.

    python benchmarks/first_chart.py [--pages URL_PATH,URL_PATH] [--repeat 3]

Prints and writes benchmarks/results/first_chart.json: per page the median first / next times and their
ratios to the bare page's — the median of every bare opening of the run, alternated with the pages'
(targets: first ≤ 3×, next ≤ 1.5×).
"""

from __future__ import annotations

import argparse
import json
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load import free_port  # noqa: E402
from hetdp_core.framework.registry import specs  # noqa: E402

# the browser tests' own Chromium and flags (tests/ is not a package: another installed one takes the name)
_BROWSER = runpy.run_path(str(ROOT / "tests" / "browser" / "conftest.py"))
CHROMIUM, CHROMIUM_ARGS = _BROWSER["CHROMIUM"], _BROWSER["CHROMIUM_ARGS"]

BARE = """
import plotly.graph_objects as go
import streamlit as st

st.title("A bare page")
st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))
"""


def keep_result(name: str, out: dict) -> dict:
    """Write ``out`` to ``benchmarks/results/<name>.json`` (the last run of a tool; not recorded) and return it."""
    res = ROOT / "benchmarks" / "results"
    res.mkdir(exist_ok=True)
    (res / f"{name}.json").write_text(json.dumps(out, indent=2))
    return out


def _server(script: Path, port: int, env: dict | None = None, args: tuple = ()) -> subprocess.Popen:
    """``script`` served with the ``make run`` settings on ``port`` (``env``: variables added to this
    process's environment; ``args``: Streamlit options that override them), once it answers."""
    import os

    from hetdp_ui.serve import _healthy

    cmd = [sys.executable, "-m", "hetdp_ui.launch", "run", str(script), "--server.port", str(port)]
    cmd += ["--server.address", "127.0.0.1", "--server.headless", "true", *args]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        if _healthy(f"http://127.0.0.1:{port}"):
            return proc
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"server for {script} did not start")


#: the page's first chart is drawn — or, for a view without a chart (the guarantee lab's first tab), its run
#: is over and its first answer (a metric or a table) is there
FIRST_ANSWER = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return false;
  if (main.querySelector('.js-plotly-plot .main-svg')) return true;
  const app = document.querySelector('[data-testid="stApp"]');
  // a chart's element that its script has not drawn into yet, or a placeholder still loading, is no answer
  return app.getAttribute('data-test-script-state') === 'notRunning'
    && !main.querySelector('.hetdp-chart, [data-testid="stPlotlyChart"], [data-testid^="stBidiComponent"]')
    && !main.querySelector('[data-testid="stSkeleton"]')
    && !!main.querySelector('[data-testid="stMetric"], [data-testid="stDataFrame"]');
}"""


def _first_chart(browser, url: str) -> float:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_function(FIRST_ANSWER, timeout=180_000)
    seconds = time.perf_counter() - t0
    ctx.close()
    return seconds


def measure(browser, script: Path, path: str) -> tuple[float, float]:
    """(first visitor, next visitor) seconds to the first chart on a freshly started server."""
    port = free_port()
    proc = _server(script, port)
    try:
        url = f"http://127.0.0.1:{port}/{path}"
        return _first_chart(browser, url), _first_chart(browser, url)
    finally:
        proc.terminate()
        proc.wait(30)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", default=",".join(s.url for s in specs()))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    bare = Path(tempfile.mkdtemp(prefix="hetdp-bare-")) / "bare.py"
    bare.write_text(BARE)
    out: dict = {}
    floor_first, floor_next = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for page in a.pages.split(","):
            firsts, nexts, bare_f, bare_n = [], [], [], []
            for _ in range(a.repeat):  # the page and the floor alternate: the machine's load hits both
                f, n = measure(browser, ROOT / "app.py", page)
                bf, bn = measure(browser, bare, "")
                firsts.append(f)
                nexts.append(n)
                bare_f.append(bf)
                bare_n.append(bn)
            floor_first += bare_f
            floor_next += bare_n
            out[page] = {
                "first_s": statistics.median(firsts),
                "next_s": statistics.median(nexts),
                "bare_first_s": statistics.median(bare_f),
                "bare_next_s": statistics.median(bare_n),
            }
            print(f"{page:22s} first {out[page]['first_s']:.2f} s, next {out[page]['next_s']:.2f} s", flush=True)
        browser.close()
    # the ratios against the floor of the whole run: the median of every bare-page opening (a page's own two
    # or three alternating openings, each 1.6–2.1 s under load, once put one page at 1.78× and the others at
    # 1.32–1.47× with its own next visitor as fast as theirs); a page's own floor stays in its row
    first_floor, next_floor = statistics.median(floor_first), statistics.median(floor_next)
    for page, row in out.items():
        row["floor_first_s"], row["floor_next_s"] = first_floor, next_floor
        row["first_ratio"] = row["first_s"] / first_floor
        row["next_ratio"] = row["next_s"] / next_floor
        print(f"{page:22s} first {row['first_ratio']:.2f}×, next {row['next_ratio']:.2f}× the bare page's", flush=True)
    print(f"floor (bare page, median of {len(floor_first)}): first {first_floor:.2f} s, next {next_floor:.2f} s")
    return keep_result("first_chart", out)


if __name__ == "__main__":
    main()
