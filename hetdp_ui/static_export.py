"""Static images of plotly figures (kaleido) in a child process that is stopped after a time limit.

Kaleido draws each figure in a headless Chromium that it starts and talks to over a pipe. Its own
timeout covers drawing one figure, not a browser that dies or stops answering while kaleido waits for
it: a test run once hung there for good (the Chromium gone, kaleido's event loop waiting on its pipe).
So :func:`write_images` runs the export as ``python -m hetdp_ui.static_export JOBS.json`` in a process
group of its own and, when the limit passes, kills the group — the child and its Chromium — and raises
:class:`StaticExportError`. The figures reach the child as plotly JSON written by this process (never
a pickle), each with the file it goes to.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from hetdp_ui.processes import process_tree

#: the time a static export may take: a start (Python, plotly, kaleido and its Chromium) plus a
#: share per figure, both several times what a loaded 2-core machine needs (about 3 s + 1 s each)
START_S, PER_FIGURE_S = 60.0, 20.0


class StaticExportError(RuntimeError):
    """The static export failed or did not finish within its time limit (nothing about the input)."""


def limit_for(n_figures: int) -> float:
    """Seconds allowed for exporting ``n_figures`` figures."""
    return START_S + PER_FIGURE_S * n_figures


def write_images(jobs: list[tuple[object, Path]], *, fmt: str, width: int, height: int, timeout: float | None = None):
    """Write each ``(figure, path)`` of ``jobs`` as a ``fmt`` image (png or svg) of ``width`` × ``height``
    pixels, in a child process killed with its Chromium after ``timeout`` seconds (default
    :func:`limit_for`). Raises :class:`StaticExportError` on a timeout or a failed export."""
    timeout = limit_for(len(jobs)) if timeout is None else timeout
    spec = [{"figure": fig.to_json(), "path": str(path)} for fig, path in jobs]
    with tempfile.TemporaryDirectory(prefix="hetdp-static-") as tmp:
        job_file = Path(tmp) / "jobs.json"
        job_file.write_text(json.dumps({"format": fmt, "width": width, "height": height, "figures": spec}))
        proc = subprocess.Popen(
            [sys.executable, "-m", "hetdp_ui.static_export", str(job_file)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: the kill below reaches kaleido's Chromium too
        )
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:  # the group is killed below, as after any export
            raise StaticExportError(
                f"the static export did not finish within {timeout:g} s and was stopped (kaleido's Chromium "
                "stopped answering, or the machine is overloaded); try again, or export fewer figures."
            ) from None
        finally:
            _kill_group(proc)  # whatever the child left behind (a Chromium kaleido did not close)
    if proc.returncode != 0:
        tail = " ".join(err.decode(errors="replace").strip().splitlines()[-3:])
        raise StaticExportError(f"the static export failed (exit {proc.returncode}): {tail}")


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the child's process group and every descendant of the child: kaleido starts its Chromium
    through a wrapper in a session of its own (choreographer), which the group kill does not reach — one
    outlived a stopped export. Everything is stopped first (SIGSTOP: the group, then each descendant found,
    until no new one appears), so nothing can start another process between reading the tree and the
    kill: a wrapper started just after the tree was read outlived the kill once, beside a CPU hog. The
    descendants are read before the kill (after it, they belong to init)."""
    _signal_group(proc.pid, signal.SIGSTOP)
    seen: set[int] = set()
    while new := set(process_tree(proc.pid)[1:]) - seen:
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        seen |= new
    _signal_group(proc.pid, signal.SIGKILL)
    for pid in seen:
        _signal(pid, signal.SIGKILL)
    proc.wait()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv: list[str] | None = None) -> int:
    """The child: read the jobs file and write every figure with kaleido."""
    import plotly.io as pio

    (job_file,) = sys.argv[1:] if argv is None else argv
    jobs = json.loads(Path(job_file).read_text())
    figures = [pio.from_json(job["figure"], skip_invalid=True) for job in jobs["figures"]]
    # plotly's batch export: one kaleido browser draws every figure (write_image per figure started a
    # Chromium for each, ~4 s apiece here)
    pio.write_images(
        figures,
        [job["path"] for job in jobs["figures"]],
        format=jobs["format"],
        width=jobs["width"],
        height=jobs["height"],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
