"""How live the pages are, in one run and one command (``make bench-live``; ``make bench`` runs it too).

Every ratio is taken against a floor measured in the same run, so the run can be repeated on a busy
machine and compared; the load average (``os.getloadavg``, what ``uptime`` prints) is recorded before
and after the run beside them:

* a **slider step** on every analysis page's default view, and its **first visible answer**, against
  the same step on a bare Streamlit page (``benchmarks/slider_step.py``: Chromium, a production-settings
  server, the server's parts and the browser's);
* the **first chart** of every page, for the first and the next visitor, against a bare page
  (``benchmarks/first_chart.py``);
* a **solve** against viewing its page (``benchmarks/run.py``: ``hetdp solve`` vs ``hetdp run``, CPU);
* the **simulations against the RNG floor** (the Figure-3 subset through the CLI against a process making
  its random numbers on one thread);
* **no blank screen** (``benchmarks/open_times.py``): every menu page opened by a new visitor — its first
  paint and its title painted —, the release ledger's opening against a bare page's, a student's *Join*
  until the lesson is painted.

    python benchmarks/live.py [--pages URL,URL] [--steps 5] [--rounds 2] [--record]

``--record`` keeps the run in ``benchmarks/recorded/live.json`` and rewrites its table in
docs/benchmarks.md and README.md's performance table (:mod:`benchmarks.tables`).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # run.py's own imports (workloads)

from hetdp_core.framework.registry import specs  # noqa: E402


def measure(pages: list[str], *, steps: int, rounds: int, reuse: dict | None = None) -> dict:
    """Everything :mod:`benchmarks.live` records, measured now; ``reuse`` (``make bench``'s results)
    supplies the first-chart, solve and RNG-floor ratios that run measured already."""
    from benchmarks import slider_step

    reuse = reuse or {}
    out: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "load_average": {"before": [round(v, 2) for v in os.getloadavg()]},
    }
    import run as bench

    # the command-line parts first (a few minutes, no browser): a failure there stops the run early
    out["solve"] = reuse.get("solve") or bench.solve_vs_view()
    out["rng_floor"] = reuse.get("rng_floor") or bench.fig3_subset_vs_floor()
    out.update(slider_step.measure(pages, steps=steps, rounds=rounds))
    if "first_chart" in reuse:
        out["first_chart"] = reuse["first_chart"]
    else:
        from benchmarks.first_chart import main as first_chart

        out["first_chart"] = first_chart(["--pages", ",".join(pages), "--repeat", str(max(rounds, 2))])
    from benchmarks.open_times import measure as open_times

    out["open"] = open_times(repeat=max(rounds, 2))
    out["load_average"]["after"] = [round(v, 2) for v in os.getloadavg()]
    return out


def main(argv=None, *, reuse: dict | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", default=",".join(s.url for s in specs()))
    ap.add_argument("--steps", type=int, default=5, help="slider steps per page and round")
    ap.add_argument("--rounds", type=int, default=2, help="page and bare page alternate this many times")
    ap.add_argument("--record", action="store_true", help="keep the run and rewrite its tables")
    a = ap.parse_args(argv)
    from benchmarks.first_chart import keep_result

    out = keep_result("live", measure(a.pages.split(","), steps=a.steps, rounds=a.rounds, reuse=reuse))
    from benchmarks.tables import render_live

    print(render_live(out))
    if a.record:
        from benchmarks.tables import record

        record("live", out)
    return out


if __name__ == "__main__":
    main()
