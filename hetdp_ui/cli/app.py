"""``hetdp app``: serve the dashboard from this install."""

from __future__ import annotations

import sys
from pathlib import Path

from hetdp_ui.cli._common import CliError


def app_script() -> Path:
    """The dashboard's main script: the installed copy (package ``hetdp_app``, shipped in the wheel with
    the page files, docs and Streamlit settings) or, in a checkout, the repository's ``app.py``."""
    from hetdp_ui.folders import app_root, installed_app

    return (installed_app() or app_root()) / "app.py"


def cmd_app(a) -> int:
    """``hetdp app``: serve the dashboard with the production settings (from an install or a checkout)."""
    if not 1 <= a.port <= 65535:
        raise CliError(f"--port must be in [1, 65535]; got {a.port}.")
    script = app_script()
    if not script.is_file():
        raise CliError(f"the dashboard's files were not found next to the package ({script}); reinstall hetdp.")
    cmd = [
        sys.executable,
        "-m",
        "hetdp_ui.launch",
        "run",
        str(script),
        "--server.port",
        str(a.port),
        "--server.address",
        a.address,
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
    ]
    print(f"hetdp app: serving {script.parent} on http://{a.address}:{a.port} (Ctrl-C stops it)", flush=True)
    import os

    from hetdp_ui.cli import BLAS_DEFAULTS

    for var in BLAS_DEFAULTS:  # the CLI's one-BLAS-thread default is for its own commands, not the server
        os.environ.pop(var, None)
    os.chdir(script.parent)  # Streamlit reads .streamlit/config.toml from here
    os.execv(sys.executable, cmd)  # the server replaces this process: a signal to it stops the server
    return 0  # pragma: no cover


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    app_ = sub.add_parser("app", help="serve the dashboard (production settings) from this install")
    app_.add_argument("--port", type=int, default=8501)
    app_.add_argument("--address", default="localhost", help="address to listen on (0.0.0.0: every interface)")
    app_.set_defaults(func=cmd_app)
