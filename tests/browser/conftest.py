"""Real-browser fixtures: `streamlit run app.py` on 127.0.0.1 and Debian's Chromium via Playwright.

No silent skips: if Chromium or the server cannot start, the tests fail with the reason.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
#: headless Debian Chromium as the tests (and benchmarks/first_chart.py) run it
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


#: this pytest-xdist worker's name ("main" without xdist), for files each worker writes
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
#: every click the worker's server recorded, acted on or dropped (``HETDP_TRACE_CLICKS``, hetdp_ui/actions.py):
#: a failed browser test prints the lines of its time
CLICK_TRACE = ROOT / "tests" / "artifacts" / f"clicks-{WORKER}.log"


def _free_port() -> int:
    """A free port below the kernel's ephemeral range (:func:`benchmarks.load.free_port`: the health check
    cannot connect to itself there)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from load import free_port

    return free_port()


@pytest.fixture(scope="session")
def server(artifacts):
    port = _free_port()
    log = open(artifacts / f"streamlit-{WORKER}.log", "w")  # one per xdist worker: two servers wrote one file
    CLICK_TRACE.write_text("")
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "HETDP_TRACE_CLICKS": str(CLICK_TRACE)}
    from hetdp_ui.serve import start_streamlit

    extra = ("--server.headless", "true", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none")
    try:
        proc = start_streamlit(port, *extra, log=log, env=env)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    url = f"http://127.0.0.1:{port}"
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


#: counts the script runs a page has started (``window.__hetdpRuns``: each time Streamlit's app root turns
#: to 'running') and keeps the last state seen, so a test's wait for the end of a run knows whether its
#: action's run has started yet (tests/browser/test_browser.py: wait_idle)
RUNS_OBSERVER = """
(() => {
  window.__hetdpRuns = 0;
  window.__hetdpState = null;
  window.__hetdpRunAt = -1;  // when the last run started (the page's clock)
  window.__hetdpInputAt = 0;  // when the last input event came (a key, a click, a typed value)
  const look = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app && app.getAttribute('data-test-script-state');
    if (state === 'running' && window.__hetdpState !== 'running') {
      window.__hetdpRuns += 1;
      window.__hetdpRunAt = performance.now();
    }
    window.__hetdpState = state;
  };
  for (const type of ['keydown', 'pointerdown', 'click', 'input', 'change']) {
    window.addEventListener(type, () => { window.__hetdpInputAt = performance.now(); }, true);
  }
  new MutationObserver(look).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['data-test-script-state'],
  });
})();
"""


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"{CHROMIUM} not found: `make test` installs Debian's chromium package "
            "(apt-get install chromium). Browser tests are required."
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        new_context = b.new_context

        def counting_runs(*args, **kwargs):  # every page of every context counts its script runs
            ctx = new_context(*args, **kwargs)
            ctx.add_init_script(RUNS_OBSERVER)
            return ctx

        b.new_context = counting_runs
        yield b
        b.close()


@pytest.fixture(scope="session")
def warm_context(browser):
    """One browser context for the ``page`` of every test of this worker. A context's first page pays for
    loading and compiling Streamlit's frontend (measured: ~1.5 CPU-seconds of Chromium for a fresh
    context, ~0.5 s for a new tab of a context that has loaded it before, whose HTTP and code caches are
    warm): on two cores a fresh context cost each test about a CPU-second more. Each test still gets a new
    tab, so a new Streamlit session, with the context's cookies cleared before it; a test that needs a
    browser of its own (another visitor, offline, a phone) makes its own context. The context's local
    storage (where Streamlit keeps the sidebar's state and the theme) is kept: no test changes either."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield ctx
    ctx.close()


@pytest.fixture
def page(warm_context, artifacts):
    warm_context.clear_cookies()
    pg = warm_context.new_page()
    pg.set_default_timeout(60_000)
    _log_websocket(pg)
    yield pg
    for tab in warm_context.pages:  # the test's tab and any it opened (a link with target=_blank)
        tab.close()


def _log_websocket(pg) -> None:
    """Keep, on the page object, when its websockets sent and received messages (and their sizes): a failed
    test prints them (:func:`_traffic`), so a lost click says whether the browser sent it."""
    import time

    frames = pg._hetdp_frames = []

    def watch(ws):
        ws.on("framesent", lambda p: frames.append((time.time(), "sent", len(p or b""))))
        ws.on("framereceived", lambda p: frames.append((time.time(), "received", len(p or b""))))
        ws.on("close", lambda _ws: frames.append((time.time(), "closed", 0)))

    pg.on("websocket", watch)


def _traffic(pg, since: float) -> str:
    """The page's websocket messages since ``since`` (received ones counted between two sent ones) and the
    server's click trace lines of that time."""
    import time

    lines, received = [], 0
    for t, what, size in getattr(pg, "_hetdp_frames", []):
        if t < since:
            continue
        if what == "received":
            received += 1
            continue
        if received:
            lines.append(f"  … {received} received")
            received = 0
        lines.append(f"  {t - since:7.2f} s {what} {size} B")
    if received:
        lines.append(f"  … {received} received")
    clicks = []
    if CLICK_TRACE.exists():
        for line in CLICK_TRACE.read_text(errors="replace").splitlines():
            try:
                if float(line.split(" ", 1)[0]) >= since:
                    clicks.append("  " + line)
            except ValueError:
                continue
    now = time.time()
    return (
        f"websocket since {now - since:.0f} s ago:\n"
        + ("\n".join(lines[-60:]) or "  (none)")
        + "\nclicks the server traced then:\n"
        + ("\n".join(clicks[-40:]) or "  (none)")
    )


def _what_the_page_showed(pg) -> str:
    """A failed page's address, run state, error and status elements and the start of its text: CI
    keeps only the log, so this is what a flaky failure leaves to read."""
    try:
        shown = pg.evaluate(
            """() => {
                const app = document.querySelector('[data-testid="stApp"]');
                const pick = (sel) => [...document.querySelectorAll(sel)].map(e => e.innerText.slice(0, 400));
                const main = document.querySelector('[data-testid="stMain"]');
                return {
                    state: app && app.getAttribute('data-test-script-state'),
                    runs: window.__hetdpRuns,
                    alerts: pick('[data-testid="stAlert"], [data-testid="stException"], '
                                 + '[data-testid="stStatusWidget"]'),
                    expanders: pick('[data-testid="stExpander"] summary'),
                    text: main ? main.innerText.slice(0, 2500) : null,
                };
            }"""
        )
    except Exception as exc:  # the page or its context is already gone
        return f"(page not readable: {type(exc).__name__})"
    return (
        f"url: {pg.url}\nscript state: {shown['state']} (runs started: {shown['runs']})\nalerts: {shown['alerts']}\n"
        f"expanders: {shown['expanders']}\ntext:\n{shown['text']}"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    pages = []
    if "page" in item.funcargs:
        pages.append(item.funcargs["page"])
    b = item.funcargs.get("browser")
    for ctx in getattr(b, "contexts", []) if b is not None else []:
        pages += [p for p in ctx.pages if p not in pages]
    art = ROOT / "tests" / "artifacts"
    for i, pg in enumerate(pages):
        report.sections.append((f"what browser page {i} showed", _what_the_page_showed(pg)))
        if i == 0:
            report.sections.append(("what the page sent and the server did with clicks", _traffic(pg, call.start)))
        try:
            pg.screenshot(path=str(art / f"failed_{item.name[:80]}_{i}.png"), full_page=True)
        except Exception:  # noqa: S110 — a screenshot is a courtesy; the text above is the record
            pass
