"""Shared test configuration."""

import os
import sys
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


def open_panels(at) -> None:
    """Open every panel the page has drawn (:func:`hetdp_ui.panels.panel`: drawn only while open) and run it
    again, until no new panel appears (a panel inside another)."""
    from hetdp_ui.panels import PANELS

    opened: set = set()
    for _ in range(3):
        keys = set(at.session_state[PANELS]) if PANELS in at.session_state else set()
        if keys <= opened:
            return
        for key in keys - opened:
            at.session_state[key] = True
        opened |= keys
        at.run()


def each_tab(at):
    """The page of an AppTest drawn once per tab, in order (lazy tabs draw only the chosen one,
    :func:`hetdp_ui.panels.tabs`): yields each tab's label (None for a page without tabs) after opening it
    as a link does (``tab=<label>``). The page has run once before."""
    labels = [t.label for t in at.tabs if t.label]
    if not labels:
        yield None
        return
    for i, label in enumerate(labels):
        if i:
            at.query_params["tab"] = label
            at.run()
        yield label


settings.register_profile("hetdp", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# HETDP_HYPOTHESIS=thorough: many more examples, for shaking out edge cases locally
settings.register_profile("thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# HETDP_HYPOTHESIS=ci (.ci/run): the same examples in every CI run (derandomized: drawn from each test's
# name), so a gate that passed on a commit passes on it again; local runs draw new examples each time and
# find what CI would not (a subnormal draw broke a test's own scaling once: tests/test_bcdp_allocation.py)
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, database=None
)
settings.load_profile(os.environ.get("HETDP_HYPOTHESIS", "hetdp"))

# the class database of every page, AppTest and server the tests start: a fresh folder, never the
# user's ~/.local/share/hetdp (a test that needs its own database sets HETDP_DATABASE_URL)
os.environ["HETDP_DATA_DIR"] = tempfile.mkdtemp(prefix="hetdp-test-data-")
os.environ.pop("HETDP_DATABASE_URL", None)


def _scan_installed_components_once() -> None:
    """Every new ``AppTest`` scans every installed distribution's metadata for Streamlit components
    (``BidiComponentManager.discover_and_register_components``: ~160 packages, 0.5–1 s, most of a small
    page's first AppTest run); the installed packages do not change during a test run, so the scan runs
    once per test process and each AppTest registers its (empty here) result. A server scans once when
    it starts, so the app is not affected."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    manifest_scanner.scan_component_manifests = lambda *a, **k: list(scan(*a, **k))


_scan_installed_components_once()


def _compile_each_script_once() -> None:
    """Every new ``AppTest`` has its own ``ScriptCache``, which parses the page's script, adds Streamlit's
    "magic" to its syntax tree and compiles it again (~0.1 s a page, some 20 s of `make check`'s CPU); a
    server compiles a script once. Streamlit's own compile is kept per test process for each version of a
    script file (its path, inode, size and modification time) and the magic setting, so an edited or
    copied script (tests/test_contributing.py) is compiled afresh; code objects are immutable, so sharing
    one changes nothing a page does."""
    import functools
    import os

    from streamlit import config
    from streamlit.runtime.scriptrunner import script_cache

    compile_ = script_cache.ScriptCache.get_bytecode

    @functools.lru_cache(maxsize=256)
    def compiled(path: str, version: tuple, magic: bool):
        return compile_(script_cache.ScriptCache(), path)

    def get_bytecode(self, script_path: str):
        path = os.path.abspath(script_path)
        st = os.stat(path)
        version = (st.st_ino, st.st_size, st.st_mtime_ns)
        return compiled(path, version, bool(config.get_option("runner.magicEnabled")))

    script_cache.ScriptCache.get_bytecode = get_bytecode


_compile_each_script_once()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Browser tests are never silently skipped in CI (HETDP_REQUIRE_BROWSER=1).

    The order is the one in which `make test`'s two workers (pytest-xdist, ``--dist loadgroup``) start
    tests: the real-browser tests first, then those marked ``slow``, then the rest, each kind in file
    order (a stable sort). xdist hands out a test (or a file's ``xdist_group``, which it starts before
    single tests) to whichever worker is free, so the long tests are spread over both workers and the
    last minute is many short tests instead of one long test begun last."""
    os.environ.setdefault("HETDP_ROOT", str(ROOT))
    for item in items:
        where = item.nodeid.split("[", 1)[0]
        if any(where == s or where.startswith(s + "::") for s in SLOW):
            item.add_marker(pytest.mark.slow)
        group = TOGETHER.get(item.nodeid.split("::", 1)[0])
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=_start_rank)


class _GroupsInEffect:
    """After pytest-xdist has read the ``xdist_group`` marks (``--dist loadgroup``): every grouped test's
    node id carries its group (``…@serving``), else the groups are silently ignored — each worker then
    builds the wheel, the documentation site, the servers and PostgreSQL of a group again (pytest 9.2
    with pytest-xdist 3.8 did so; pyproject pins pytest below 9.2)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if not getattr(config.option, "loadgroup", False):
            return
        lost = [i.nodeid for i in items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
        if lost:
            msg = (
                f"pytest-xdist's --dist loadgroup ignores the test groups with pytest {pytest.__version__} "
                f"({lost[0]} has no @group in its id): install a pytest that pyproject's [test] extra accepts "
                "(make install-test)."
            )
            sys.stderr.write(f"\nhetdp tests: {msg}\n")  # a worker's own error is not what xdist prints
            raise pytest.UsageError(msg)


def pytest_configure(config):
    config.pluginmanager.register(_GroupsInEffect(), "hetdp-groups-in-effect")


def _start_rank(item) -> int:
    return 0 if item.get_closest_marker("browser") else 1 if item.get_closest_marker("slow") else 2


#: the tests `make check` leaves to `make test` (marked ``slow`` here; a test may also carry the mark
#: itself): a file or a test (all its parameters) that starts servers, clusters, kernels or a virtualenv,
#: or took over ~10 s under `make test` — measured with --durations, see docs/contributing.md
SLOW = (
    "tests/test_wheel.py",  # a wheel built and installed into a clean virtualenv
    "tests/test_serving.py",  # Streamlit servers, nginx, a crowd of users
    "tests/test_dask.py",  # a LocalCluster of two worker processes
    "tests/test_class_load.py",  # a class through two workers with a killed worker
    "tests/test_limits.py",  # the fork server, killed and limited children
    "tests/test_notebook.py",  # every notebook executed in a fresh kernel
    "tests/test_package.py",  # decision packages executed in fresh kernels
    "tests/test_contributing.py",  # a copy of the app with a page added
    "tests/test_docsite.py",  # the documentation site built (three times)
    "tests/test_fuzz.py::test_fuzzed_url_parameters",
    "tests/test_fuzz.py::test_fuzzed_cli_run",
    "tests/test_guarantees_exact.py::test_gaussian_and_laplace_profiles_equal_dp_accounting",
    "tests/test_report.py::test_static_figures_with_kaleido",
    "tests/test_report.py::test_a_static_export_whose_chromium_stops_answering_is_stopped_within_its_limit",
    "tests/test_report.py::test_a_failed_static_export_says_why_in_one_line",
    "tests/test_ledger_accuracy.py::test_every_accepted_plan_answers_and_its_headline_is_the_smallest_bound",
    "tests/test_ledger_accuracy.py::test_the_discretised_total_lies_in_an_independent_bracket",
    "tests/test_ledger_accuracy.py::test_random_laplace_and_mixed_groups_lie_in_the_bracket",
    "tests/test_widget_sweep.py::test_every_sidebar_widget_across_its_range",
    "tests/test_ledger.py::test_pld_is_the_tightest_of_the_four",
    "tests/test_class_page.py::test_a_whole_class_session_from_start_to_delete",
    "tests/test_pages.py::test_every_plotted_table_can_be_downloaded",
    "tests/test_untrusted_input.py::test_lab_randomized_response_levels_text",
    "tests/test_untrusted_input.py::test_zcdp_huge_counts",
    # the compute budget's time limits: measured in seconds, they belong to the full run
    "tests/test_untrusted_input.py::test_mechanism_lab_huge_simulation_is_refused_within_the_budget",
    "tests/test_untrusted_input.py::test_mechanism_lab_5000_scores_is_refused_fast",
    "tests/test_untrusted_input.py::test_per_user_cvxpy_at_200000_users_is_refused",
    "tests/test_oracles.py::test_pystatdp_finds_no_counterexample_for_the_project_laplace",
    "tests/test_oracles.py::test_pystatdp_catches_an_overclaimed_laplace",
    "tests/test_oracles.py::test_pystatdp_catches_the_local_sensitivity_median",
    "tests/test_hetero.py::test_located_minimum_equals_the_search_over_every_breakpoint",
    "tests/test_fuzz.py::test_fuzzed_text_widgets",
    "tests/test_page_cli_agreement.py::test_page_and_cli_give_identical_tables",  # the CLI in a subprocess
    "tests/test_report.py::test_cli_report_is_standalone_and_complete",
)

#: files whose tests share an expensive module or session fixture (a server, a cluster, PostgreSQL, the
#: built site or wheel, every page's figures): `--dist loadgroup` keeps each group on one worker, so the
#: fixture is set up once; every other test is handed out on its own
TOGETHER = {
    "tests/test_serving.py": "serving",
    "tests/test_dask.py": "dask",
    "tests/test_wheel.py": "wheel",
    "tests/test_class.py": "postgres",
    "tests/test_class_teach.py": "postgres",
    "tests/test_class_load.py": "class_load",  # one pair of workers for the module
    "tests/test_theme.py": "theme",
    "tests/test_docsite.py": "docsite",
    "tests/browser/test_docsite_browser.py": "docsite",
    # the bundled lessons' answer keys and variants, checked three ways: on one worker the core's memo
    # computes each variant's run once (split over two workers, 40 s of CPU; together 27 s)
    "tests/test_lessons.py": "lessons",
    "tests/test_lesson_variants.py": "lessons",
    "tests/test_lesson_claims.py": "lessons",
}


@pytest.fixture(autouse=True)
def _fresh_run_cache(request):
    """Each test starts with an empty process-wide run cache and figure cache (pages share them across
    sessions), so every page run a test makes is computed and drawn afresh.

    The core's memoised parts (sweep points, methods, exact parts: :func:`hetdp_core.framework.memo.memoised`)
    are kept from test to test: they are deterministic functions of their arguments (seeds included) and
    their values are read-only, so a value computed by an earlier test is the value this test would
    compute (about a fifth of `make check`'s CPU was the same default views simulated again). A test that
    uses ``monkeypatch`` (``forked_runs`` does) starts with them empty too, so a patched core is what
    computes."""
    import sys

    mod = sys.modules.get("hetdp_ui.execution")
    if mod is not None:
        mod.runs().clear()
    fig = sys.modules.get("hetdp_ui.figcache")
    if fig is not None:
        fig.clear()
    memo = sys.modules.get("hetdp_core.framework.memo")
    if memo is not None and "monkeypatch" in request.fixturenames:
        memo.clear_memoised()
    yield


@pytest.fixture
def forked_runs(monkeypatch):
    """Page runs go to a limited child process (hetdp_ui.limits); a test that patches the core must
    have that child forked from this process (the app's fork server would not see the patch)."""
    import multiprocessing as mp

    from hetdp_ui import limits

    monkeypatch.setattr(limits, "_context", lambda start="forkserver": mp.get_context("fork"))


def at_once(n: int, act) -> tuple[list, list]:
    """``act(i)`` for i in range(n) in n threads started together: (the results, the exceptions raised)."""
    import threading

    got, errors = [], []

    def one(i):
        try:
            got.append(act(i))
        except Exception as exc:  # noqa: BLE001 — returned to the test, which asserts on them
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return got, errors


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
