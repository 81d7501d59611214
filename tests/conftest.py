"""Shared test configuration."""

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def routed_by_navigation(monkeypatch):
    """AppTest of app.py routing like a server: hetdp_ui.launch tells Streamlit before the port opens
    that app.py routes every page with st.navigation (route_with_navigation_only), so a page in its
    folder (pages/<slug>/page.py) is found on the first run; AppTest builds a new PagesManager per run,
    which would read pages/ as an old-style pages directory again."""
    from streamlit.runtime.pages_manager import PagesManager

    from hetdp_ui.launch import route_with_navigation_only

    init = PagesManager.__init__

    def routed(self, *args, **kwargs):
        init(self, *args, **kwargs)
        route_with_navigation_only()

    monkeypatch.setattr(PagesManager, "__init__", routed)


def page_path(page: str) -> Path:
    """The script of a page by its URL path: ``pages/<slug>/page.py`` (its folder)."""
    return ROOT / "pages" / page.lower() / "page.py"


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

    mod = sys.modules.get("hetdp_ui.execution")
    if mod is not None:
        mod.runs().clear()
    fig = sys.modules.get("hetdp_ui.figcache")
    if fig is not None:
        fig.clear()
    memo = sys.modules.get("hetdp_core.memo")
    if memo is not None:  # the core's memoised parts (sweep points, methods, exact parts)
        memo.clear_memoised()
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


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server the suite starts itself (benchmarks/pgserver.py); no server: the test fails."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from pgserver import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer()
    except PostgresUnavailable as exc:
        pytest.fail(str(exc))
    yield server
    server.remove()


@pytest.fixture(scope="session")
def built_docs_site(tmp_path_factory):
    """The documentation site, built once per test process with warnings as errors (``make docs``)."""
    from hetdp_ui import docsite

    out = tmp_path_factory.mktemp("site")
    done = docsite.build(out)
    assert done.returncode == 0, done.stderr[-3000:]
    return out
