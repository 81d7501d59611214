"""Shared test configuration."""

import glob
import os
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"

settings.register_profile("hetdp", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# HETDP_HYPOTHESIS=thorough: many more examples, for shaking out edge cases locally
settings.register_profile("thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HETDP_HYPOTHESIS", "hetdp"))

# the class database of every page, AppTest and server the tests start: a fresh folder, never the
# user's ~/.local/share/hetdp (a test that needs its own database sets HETDP_DATABASE_URL)
os.environ["HETDP_DATA_DIR"] = tempfile.mkdtemp(prefix="hetdp-test-data-")
os.environ.pop("HETDP_DATABASE_URL", None)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def pytest_collection_modifyitems(config, items):
    """Browser tests are never silently skipped in CI (HETDP_REQUIRE_BROWSER=1)."""
    os.environ.setdefault("HETDP_ROOT", str(ROOT))


@pytest.fixture(autouse=True)
def _fresh_run_cache():
    """Each test starts with an empty process-wide run cache (pages share it across sessions)."""
    import sys

    mod = sys.modules.get("hetdp_ui.common")
    if mod is not None:
        mod.RUNS.clear()
    fig = sys.modules.get("hetdp_ui.figcache")
    if fig is not None:
        fig.clear()
    yield


@pytest.fixture
def forked_runs(monkeypatch):
    """Page runs go to a limited child process (hetdp_ui.limits); a test that patches the core must
    have that child forked from this process (the app's fork server would not see the patch)."""
    import multiprocessing as mp

    from hetdp_ui import limits

    monkeypatch.setattr(limits, "_context", lambda start="forkserver": mp.get_context("fork"))


def strict_json(text: str):
    """Parse JSON as RFC 8259 defines it: NaN, Infinity and -Infinity are not JSON (jq and JavaScript's
    JSON.parse reject them), so a CLI output carrying one fails the test."""
    import json

    def refuse(constant):
        raise AssertionError(f"not strict JSON: {constant} in the output")

    return json.loads(text, parse_constant=refuse)


# ---------------------------------------------------------------- a real PostgreSQL server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A PostgreSQL server of its own: ``initdb`` in a temporary folder, ``pg_ctl start`` on a free
    port (as the ``postgres`` user when the tests run as root: PostgreSQL refuses to run as root)."""

    def __init__(self):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not found:
            pytest.fail(
                "PostgreSQL not found (/usr/lib/postgresql/*/bin/pg_ctl): `make test` installs Debian's "
                "postgresql package. Database tests are required."
            )
        self.bin = Path(found[-1]).parent
        self.dir = Path(tempfile.mkdtemp(prefix="hetdp-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.getuid() == 0:
            import pwd

            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        self.start()
        self._n = 0

    def _run(self, tool: str, *args: str) -> None:
        out = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            pytest.fail(f"{tool} {' '.join(args)} failed: {out.stderr.strip() or out.stdout.strip()}")

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.dir / "log"), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database on this server; returns its URL."""
        import psycopg

        self._n += 1
        name = f"t{os.getpid()}_{self._n}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def postgres():
    server = PostgresServer()
    yield server
    try:
        server.stop("immediate")
    finally:
        import shutil

        shutil.rmtree(server.dir, ignore_errors=True)
