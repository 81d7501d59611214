"""No input breaks a page or the server. Generated malformed URL parameters and widget
values for every page (AppTest), generated CLI arguments, and hostile CSV uploads. Bounded so that
`make test` stays quick; HETDP_HYPOTHESIS=thorough runs many more examples."""

import re
import tracemalloc
from urllib.parse import quote

import pytest
from conftest import ROOT, page_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import specs
from hetdp_core.framework.scenario import PAGE_BUDGET, InputError
from hetdp_core.scenarios import get, pages
from hetdp_ui.cli import main

NASTY = [
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e308",
    "-1e308",
    "1e-320",
    ",,,",
    "abc",
    "1,2,x",
    "0,0,0",
    "1" * 400,
    "x" * 3000,
    "٣",
    "1;rm -rf /",
    "%00",
    "\x00",
    "99999999999999999999",
    "0.5",
    "3",
    "1," * 1000,
    "true",
    "[1, 2]",
    "{'a': 1}",
    "__import__('os')",
    "0x10",
    "1_000",
    "+5",
    ".5",
    "5.",
    "1e3",
    "-0",
    "2.5",
    "1000000",
]
MAX_PEAK = PAGE_BUDGET.bytes
EXAMPLES = max(4, settings.default.max_examples // 12)


def field_names(page: str) -> set[str]:
    mod = get(page)
    names = set(mod.SCENARIO.specs())
    names |= {sp.label for sp in mod.SCENARIO.specs().values() if sp.label}
    return names | set(mod.SCENARIO.ALIASES)


def assert_no_crash(at, page: str, keys) -> None:
    assert not at.exception, [e.value for e in at.exception]
    texts = [e.value for e in at.error] + [w.value for w in at.warning]
    for t in texts:
        assert "Traceback" not in t
        named = any(n in t for n in field_names(page) | set(keys)) or "compute budget" in t
        assert named, f"message does not name an input: {t!r}"


def values_for(page: str):
    specs = get(page).SCENARIO.specs()
    bounds = []
    for sp in specs.values():
        if sp.lo is not None:
            bounds += [repr(sp.lo - 1), repr(sp.lo)]
        if sp.hi is not None:
            bounds += [repr(sp.hi), repr(sp.hi * 10 + 1)]
        bounds += list(sp.choices)
    return st.sampled_from(NASTY + bounds)


@pytest.mark.parametrize("page", sorted(pages()))
def test_fuzzed_url_parameters(page):
    keys = sorted(get(page).SCENARIO.specs()) + ["preset"] + sorted(get(page).SCENARIO.ALIASES)

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(keys), values_for(page), min_size=1, max_size=3))
    def check(params):
        at = AppTest.from_file(str(page_path(page)), default_timeout=120)
        for k, v in params.items():
            at.query_params[k] = v
        tracemalloc.start()
        try:
            at.run()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert_no_crash(at, page, params)
        assert peak < MAX_PEAK, f"peak memory {peak / 2**20:.0f} MiB for {params}"

    check()


#: the view of each page that shows its text inputs (typed lists), from its spec (the regression page has none)
TEXT_VIEWS = {s.url: dict(s.text_view) for s in specs() if s.text_view is not None}


def open_view(page: str) -> AppTest:
    at = AppTest.from_file(str(page_path(page)), default_timeout=120)
    for k, v in TEXT_VIEWS[page].items():
        at.query_params[k] = v
    return at.run()


@pytest.mark.parametrize("page", sorted(TEXT_VIEWS))
def test_fuzzed_text_widgets(page):
    """Every text input of the page (the typed lists) with generated malformed text."""
    keys = [t.key for t in open_view(page).text_input]
    assert keys, f"{page}: the view {TEXT_VIEWS[page]} shows no text input"

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(keys), st.sampled_from(NASTY))
    def check(key, value):
        at = open_view(page)
        at.text_input(key=key).set_value(value).run()
        assert_no_crash(at, page, [key.split("_", 1)[-1]])

    check()


def test_every_page_with_text_inputs_is_fuzzed():
    """A page whose spec declares no text view really has no text input in any view."""
    for s in specs():
        if s.text_view is None:
            src = (ROOT / s.file).read_text()
            assert "text_input" not in src and "text_area" not in src, s.url
    assert len(TEXT_VIEWS) >= 6


CLI_PAGES = sorted(pages())


@settings(
    max_examples=max(30, settings.default.max_examples),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(page=st.sampled_from(CLI_PAGES), data=st.data())
def test_fuzzed_cli_run(page, data, capsys):
    keys = sorted(get(page).SCENARIO.specs())
    params = data.draw(st.dictionaries(st.sampled_from(keys), values_for(page), min_size=1, max_size=2))
    query = "&".join(f"{k}={quote(v)}" for k, v in params.items())
    code = main(["run", page, "--query", query])  # any non-input exception fails the test
    out, err = capsys.readouterr()
    assert code in (0, 1, 2)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("hetdp: error: ") and "Traceback" not in err


SUBCOMMANDS = [
    ["zcdp", "renyi", "--algorithm", "1", "--x", "{v}", "--r", "0.2", "--rho", "1", "--alpha", "2"],
    ["zcdp", "renyi", "--algorithm", "2", "--x", "10", "--r", "{v}", "--rho", "1", "--alpha", "2"],
    ["zcdp", "renyi", "--algorithm", "1", "--x", "3", "--r", "0.2", "--rho", "{v}", "--alpha", "2"],
    ["bcdp", "c-vector", "--delta", "{v}", "--eps", "2", "--q", "0.3"],
    ["bcdp", "c-vector", "--delta", "0.2,2", "--eps", "{v}", "--q", "0.3"],
    ["hetero", "weights", "--problem", "mean", "--variant", "CP", "--eps", "{v}"],
    ["sgd", "theta", "--eps", "{v}", "--steps", "10"],
    ["mech", "bounded-laplace", "--eps", "{v}", "--delta", "0.01", "--lower", "0", "--upper", "10"],
]
SAFE_NASTY = [v for v in NASTY if v not in ("1" * 400, "1," * 1000)]


@settings(
    max_examples=max(30, settings.default.max_examples),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(cmd=st.sampled_from(SUBCOMMANDS), value=st.sampled_from(SAFE_NASTY))
def test_fuzzed_cli_subcommands(cmd, value, capsys):
    argv = [a.replace("{v}", value) for a in cmd]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: malformed flags exit 2
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, 1, 2)
    if code == 2:
        assert "Traceback" not in err and err.count("\n") == 1 and "error: " in err, err
    else:  # an accepted value gives real numbers
        assert not re.search(r"\bnan\b", out, re.IGNORECASE), out


UPLOADS = {
    "empty": b"",
    "header only": b"a,b\n",
    "text cells": b"a,b\nx,y\nz,w\n",
    "NaN and inf": b"a,b\nnan,1\ninf,2\n1,2\n",
    "one column": b"a\n1\n2\n3\n",
    "10^6 columns": (",".join(f"c{i}" for i in range(10**6)) + "\n" + ",".join(["1"] * 10**6)).encode(),
    "binary junk": bytes(range(256)) * 400,
    "one giant line": b"1," * 5_000_000,
    "too many rows": b"a,b\n" + b"1,2\n" * 1_000_001,
    "latin-1 header": "é,b\n1,2\n".encode("latin-1"),
    "quotes": b'"a","b"\n"1","2"\n"3","4"\n',
}


@pytest.mark.parametrize("name", sorted(UPLOADS))
def test_hostile_uploads_give_clear_messages_fast(name):
    import time

    from hetdp_core.per_feature.regression import load_regression_csv
    from hetdp_core.per_user.hetero import parse_data_csv

    for parse in (parse_data_csv, load_regression_csv):
        t0 = time.perf_counter()
        tracemalloc.start()
        try:
            parse(UPLOADS[name])
        except InputError as exc:
            assert str(exc) and "Traceback" not in str(exc)
        finally:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        assert time.perf_counter() - t0 < 5.0 and peak < 256 * 2**20, (name, parse.__name__)


def test_cli_upload_goes_through_the_same_checks(tmp_path, capsys):
    f = tmp_path / "wide.csv"
    f.write_bytes(UPLOADS["10^6 columns"])
    code = main(["run", "Private_regression", "--query", "source=upload", "--data", str(f)])
    err = capsys.readouterr().err
    assert code == 2 and "header line is longer" in err
