"""The Release ledger page (AppTest): the example plan's totals, a plan from the link, a bad plan in
the link or the editor (a message naming the release and field, the rows kept), the budget warning,
and the page's CSV equal to `hetdp ledger --csv` for the same plan."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from hetdp_core.accountants.ledger import ledger, parse_plan
from hetdp_ui.chart_element import charts, figure_of

PAGE = str(ROOT / "pages" / "release_ledger" / "page.py")
SMALL = '[[release]]\nname = "counts"\nmechanism = "gaussian"\nnoise = 2.0\nrepeat = 3\ngroups = ["all"]\n'


def _open(**query):
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query)
    return at.run()


def _wide(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "pld" in d.value.columns)


def test_the_example_plan_shows_every_group_and_accountant():
    at = _open()
    assert not at.exception and not at.error
    wide = _wide(at)
    assert set(wide["group"]) == {"residents", "survey participants"}
    expect = ledger(parse_plan((ROOT / "data" / "plans" / "census-and-survey.toml").read_text()), delta=1e-6)
    pld = {r.group: r.epsilon for r in expect.totals if r.accountant == "pld"}
    for _, row in wide.iterrows():
        assert row["pld"] == pytest.approx(pld[row["group"]], abs=1e-4)
    assert any("Who pays most:** survey participants" in m.value for m in at.markdown)
    assert len(charts(at)) == 4  # totals, spend, the deployments strip, the trade-off curves
    assert (
        parse_plan(at.query_params["plan"][0] if isinstance(at.query_params["plan"], list) else at.query_params["plan"])
        is not None
    )  # the plan is in the link


def test_the_words_and_the_chart_mark_the_headline_the_same_way():
    """The page says how the totals chart marks each group's headline (figures.HEADLINE_MARK), and the chart
    draws exactly that: a black outline on the headline accountant's bar of each group and on no other bar,
    and a legend entry with the same words."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ledger_figures", ROOT / "pages" / "release_ledger" / "figures.py")
    figs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figs)
    at = _open()
    assert any(f"the headline (the bar {figs.HEADLINE_MARK})" in c.value for c in at.caption)
    assert not any("◆" in m.value for m in [*at.caption, *at.markdown])  # no mark the chart does not draw
    totals = next(figure_of(c) for c in charts(at) if figure_of(c)["layout"]["title"]["text"].startswith("Total"))
    expect = ledger(parse_plan((ROOT / "data" / "plans" / "census-and-survey.toml").read_text()), delta=1e-6)
    head = {h.group: figs.ACCOUNTANT_LABELS[h.accountant] for h in expect.headline}
    bars = [t for t in totals["data"] if t["type"] == "bar"]
    for bar in bars:
        widths = bar["marker"]["line"]["width"]
        assert bar["marker"]["line"]["color"] == "black"
        for group, width in zip(bar["x"], widths):
            assert (width > 0) == (head[group] == bar["name"]), (group, bar["name"], width)
    assert sum(w > 0 for bar in bars for w in bar["marker"]["line"]["width"]) == len(head)
    assert any(str(t.get("name", "")).startswith(figs.HEADLINE_MARK) for t in totals["data"])


def test_every_number_of_the_ledgers_result_table_is_in_its_csvs():
    """The table of totals by group shows nothing its CSVs (``hetdp ledger --csv``) do not carry."""
    from test_page_cli_agreement import numbers_not_downloadable

    at = _open()
    expect = ledger(parse_plan((ROOT / "data" / "plans" / "census-and-survey.toml").read_text()), delta=1e-6)
    csvs = {name: pd.DataFrame(rows) for name, rows in expect.tables().items()}
    assert not numbers_not_downloadable([_wide(at)], csvs)


def test_a_plan_from_the_link_and_its_totals_change_with_delta_and_budget():
    at = _open(plan=SMALL, delta="1e-06")
    wide = _wide(at)
    assert list(wide["group"]) == ["all"]
    first = float(wide["pld"].iloc[0])
    at.sidebar.select_slider(key="ledger_delta").set_value(1e-3).run()
    assert float(_wide(at)["pld"].iloc[0]) < first  # a larger δ, a smaller ε
    at.sidebar.checkbox(key="ledger_use_budget").check().run()
    at.sidebar.number_input(key="ledger_budget").set_value(0.5).run()
    assert any("Over budget" in w.value for w in at.warning)
    at.sidebar.number_input(key="ledger_budget").set_value(50.0).run()
    assert any("Within budget" in s.value for s in at.success)
    assert at.query_params["budget"] in ("50.0", ["50.0"])


@pytest.mark.parametrize(
    "bad,match",
    [
        (SMALL.replace("gaussian", "exponential"), "release 1 ('counts'): mechanism must be one of"),
        (SMALL.replace("repeat = 3", "repeat = 0"), "release 1 ('counts'): repeat must be"),
        ("[[release]\n", "not valid TOML"),
    ],
)
def test_a_bad_plan_in_the_link_is_named_and_the_example_shown(bad, match):
    at = _open(plan=bad)
    assert not at.exception
    assert any(match in w.value and "URL parameter 'plan' ignored" in w.value for w in at.warning)
    assert set(_wide(at)["group"]) == {"residents", "survey participants"}


def test_a_group_named_nowhere_keeps_the_rows_and_names_the_release():
    at = _open(plan=SMALL.replace('groups = ["all"]', 'groups = ["kids"]'))
    at.text_input(key="ledger_groups").set_value("adults").run()
    assert not at.exception
    assert any("release 1 ('counts'): group 'kids' is named nowhere" in e.value for e in at.error)
    assert any("Your rows are kept" in c.value for c in at.caption)


def test_page_and_cli_give_the_same_ledger(tmp_path, monkeypatch):
    import streamlit.testing.v1.app_test as app_test_module
    from test_page_cli_agreement import _Capture

    from hetdp_ui.cli import main

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Capture)
    _Capture.files = {}
    at = _open(plan=SMALL, delta="1e-05")
    assert not at.exception
    plan_file = tmp_path / "plan.toml"
    plan_file.write_bytes(_Capture.files["plan.toml"])  # the page's TOML download
    assert main(["ledger", "--plan", str(plan_file), "--delta", "1e-05", "--csv", str(tmp_path / "o")]) == 0
    assert _Capture.files["ledger.csv"] == (tmp_path / "o" / "ledger.csv").read_bytes()


def test_risk_in_attack_terms_and_the_false_positive_rate_in_the_link():
    at = _open(plan=SMALL, delta="1e-06")
    from hetdp_core.reading.risk import tpr_gaussian

    assert any(h.value == "In attack terms" for h in at.subheader)
    exact = float(tpr_gaussian(mu=3**0.5 / 2.0, fpr=0.01)[0])  # 3 releases of σ = 2: μ = √3/2
    line = next(m.value for m in at.markdown if m.value.startswith("- **everyone**"))
    shown = float(line.split("catches at most ")[1].split(" %")[0]) / 100
    assert exact <= shown <= exact + 3e-3  # rounded up, from the tight profile
    at.sidebar.select_slider(key="ledger_fpr").set_value(0.1).run()
    assert at.query_params["fpr"] in ("0.1", ["0.1"])
    line = next(m.value for m in at.markdown if m.value.startswith("- **everyone**"))
    assert "wrongly flagging 1 in 10 people" in line


def test_solve_from_a_target_risk_and_use_the_plan():
    at = _open(plan=SMALL, delta="1e-06")
    before = float(_wide(at)["pld"].iloc[0])
    at.number_input(key="ledger_target_tpr").set_value(3.0).run()
    at.button(key="ledger_solve").click().run()
    assert not at.exception
    msg = next(s.value for s in at.success if "Multiply the noise" in s.value)
    factor = float(msg.split("**")[1])
    assert factor > 1  # a 3 % risk at FPR 1 % needs more noise than σ = 2 three times
    at.button(key="ledger_use_solution").click().run()
    assert not at.exception
    after = float(_wide(at)["pld"].iloc[0])
    assert after < before
    assert parse_plan(
        at.query_params["plan"] if isinstance(at.query_params["plan"], str) else at.query_params["plan"][0]
    ).releases[0].noise == pytest.approx(2.0 * factor, rel=1e-3)  # noqa: E501


def test_a_link_release_in_the_plan_spends_its_views_level():
    linked = '[[release]]\nname = "counts"\nlink = "Groupwise_zCDP?algorithm=1&rho=0.5&trials=50"\nrepeat = 3\n'
    at = _open(plan=linked, delta="1e-06")
    assert not at.exception and not at.error
    own = _open(plan=SMALL.replace("noise = 2.0", "noise = 1.0"), delta="1e-06")  # σ = 1/√(2ρ) = 1
    assert float(_wide(at)["pld"].iloc[0]) == pytest.approx(float(_wide(own)["pld"].iloc[0]), abs=1e-12)
    editor = next(d.value for d in at.dataframe if "link" in getattr(d.value, "columns", []))
    assert editor["link"].iloc[0].startswith("Groupwise_zCDP?") and editor["mechanism"].iloc[0] == "link"


def test_report_and_notebook_buttons():
    at = _open(plan=SMALL)
    labels = [b.label for b in at.get("download_button")]
    assert "Download a report (HTML)" in labels and "Download a notebook (Jupyter)" in labels


def test_a_target_below_the_false_positive_rate_is_explained():
    at = _open(plan=SMALL)
    at.number_input(key="ledger_target_tpr").set_value(0.5).run()
    at.button(key="ledger_solve").click().run()
    assert not at.exception and not at.error
    assert any("Choose a target above the false-positive rate (1 %)" in w.value for w in at.warning)


EXTREME = (
    '[[release]]\nname = "tiny gaussian"\nmechanism = "gaussian"\nnoise = 0.001\nrepeat = 100000\n'
    '[[release]]\nname = "tiny laplace"\nmechanism = "laplace"\nnoise = 0.001\nrepeat = 1\ngroups = ["b"]\n'
    '[[release]]\nname = "many"\nmechanism = "gaussian"\nnoise = 200\nrepeat = 100000\ngroups = ["a"]\n'
)


def test_an_extreme_plan_answers_with_the_tightest_bound_and_names_its_accountant():
    """Plans at the edges of the format (noise 10⁻³ repeated 10⁵ times, a pure ε = 1000 release): the page
    shows finite totals, each group's headline (the smallest valid bound) and which accountant gave it;
    the budget verdict reads the headline."""
    at = _open(plan=EXTREME, delta="1e-06", budget="1000")
    assert not at.exception and not at.error
    wide = _wide(at)
    assert set(wide["group"]) == {"a", "b"}
    for _, row in wide.iterrows():
        bounds = [row[a] for a in ("basic", "zcdp", "rdp", "pld")]
        assert row["headline ε"] == pytest.approx(min(bounds), rel=1e-4) and row["by"] in (
            "basic",
            "zcdp",
            "rdp",
            "pld",
        )
    heads = [c.value for c in at.caption if "headline ε" in c.value]
    assert len(heads) == 2 and all("the smallest valid bound, by " in h for h in heads)
    assert any("exact: every release Gaussian" in h for h in heads)  # group a: all Gaussian, μ-GDP
    over = [w.value for w in at.warning if "Over budget (judged by each group's headline" in w.value]
    assert len(over) == 1 and "a spends" in over[0] and "b spends" in over[0] and "(by " in over[0]


@pytest.mark.parametrize(
    "bad,match",
    [
        (SMALL.replace('name = "counts"', 'name = "a\\u0007b"'), "name must be one line of plain text"),
        (SMALL.replace('groups = ["all"]', 'groups = ["x\\ny"]'), "group names must be one line of plain text"),
        ("release = [" + "{a=" * 3000 + "1" + "}" * 3000 + "]\n", "nests tables or arrays too deeply"),
    ],
    ids=["control character", "line break", "3000 levels"],
)
def test_hostile_plans_in_the_link_are_named_not_tracebacks(bad, match):
    at = _open(plan=bad)
    assert not at.exception
    assert any(match in w.value for w in at.warning)


def test_plan_a_vs_plan_b_on_the_ledger_page_and_in_the_cli(tmp_path, capsys):
    """Pin the plan, make it noisier: the A/B table shows each group's headline ε, risk and reserve for
    both and the link keeps plan A; `hetdp ledger --pin A --plan B` prints the same numbers."""
    import json
    from urllib.parse import parse_qsl

    from hetdp_ui.cli import main

    at = _open(plan=SMALL, budget="3.0")
    at.button(key="ledger_pin_set").click().run()
    pin = at.query_params["pin"]
    pin = pin[0] if isinstance(pin, list) else pin
    assert parse_plan(dict(parse_qsl(pin))["plan"]).releases[0].noise == 2.0
    rows = at.session_state["ledger_rows"].copy()
    rows.loc[0, "noise"] = 4.0
    at.session_state["ledger_rows"] = rows
    at.session_state["ledger_editor_version"] = 7  # a new editor over the changed rows, as "Use this plan" does
    at.run()
    assert not at.exception and not at.error
    ab = next(d.value for d in at.dataframe if "plan A" in d.value.columns).set_index("quantity")
    head = "all: headline ε"
    assert ab.loc[head, "plan B"] < ab.loc[head, "plan A"]  # more noise, less spent
    assert ab.loc["all: reserve against the budget", "B − A"] > 0
    a_file, b_file = tmp_path / "a.toml", tmp_path / "b.toml"
    a_file.write_text(SMALL)
    b_file.write_text(SMALL.replace("noise = 2.0", "noise = 4.0"))
    main(["ledger", "--plan", str(b_file), "--pin", str(a_file), "--budget", "3", "--json"])
    cli = {r["quantity"]: r for r in json.loads(capsys.readouterr().out)["plan_a_vs_b"]}
    for q in ab.index:
        assert cli[q]["plan A"] == pytest.approx(ab.loc[q, "plan A"])
        assert cli[q]["plan B"] == pytest.approx(ab.loc[q, "plan B"])
    at.button(key="ledger_pin_clear").click().run()
    assert "pin" not in at.query_params and not any("plan A" in d.value.columns for d in at.dataframe)


@pytest.mark.parametrize(
    "pin, match",
    [
        ("plan=x&delta=abc", "delta of the pinned plan must be a number; got 'abc'"),
        ("plan=%5B%5Brelease%5D%5D", "URL parameter 'pin' \\(plan A\\) ignored"),
        ("p" * 170_000, "the pinned plan is 170000 characters long"),
    ],
)
def test_a_malformed_pinned_plan_is_ignored_with_a_message(pin, match):
    import re

    at = _open(plan=SMALL, pin=pin)
    assert not at.exception and not at.error
    assert any(re.search(match, w.value) for w in at.warning), [w.value for w in at.warning]
    assert "pin" not in at.query_params and not any("plan A" in d.value.columns for d in at.dataframe)


def test_a_bundled_plan_opens_from_the_picker_and_the_decision_package_links_to_the_decided_plan(tmp_path):
    """The issue: a user had to upload a TOML file from a checkout, and the package's README opened the
    default plan. Now the bundled plans are in a picker, and the README's link reopens the decided one."""
    import io
    import re
    import zipfile
    from urllib.parse import parse_qs, urlparse

    from hetdp_ui.folders import folder_module

    at = _open()
    picker = at.sidebar.selectbox(key="ledger_bundled")
    assert picker.options == ["Census counts and a survey", "A course project with per-user levels"]
    picker.set_value("course-project.toml").run()
    assert not at.exception and not at.error
    assert set(_wide(at)["group"]) == {"careful", "others"}
    course = parse_plan((ROOT / "data" / "plans" / "course-project.toml").read_text())
    linked = at.query_params["plan"]
    assert parse_plan(linked[0] if isinstance(linked, list) else linked) == course  # the link keeps it
    downloads = folder_module("release_ledger", "downloads")
    result = ledger(course, delta=1e-5, budget=4.0, fpr=0.05)
    package = downloads.ledger_package(result, app_url="https://hetdp.example.edu/", execute=False)
    readme = zipfile.ZipFile(io.BytesIO(package)).read("README.md").decode()
    (link,) = re.findall(r"In the app: <([^>]+)>", readme)
    assert link.startswith("https://hetdp.example.edu/Release_ledger?")
    q = {k: v[0] for k, v in parse_qs(urlparse(link).query).items()}
    assert parse_plan(q["plan"]) == course and (q["delta"], q["budget"], q["fpr"]) == ("1e-05", "4.0", "0.05")
    assert link == downloads.reopen_link(result, app_url="https://hetdp.example.edu/")  # the report's link too
    reopened = _open(**q)  # the link opens the decided plan, not the page's default
    assert set(_wide(reopened)["group"]) == {"careful", "others"} and not reopened.error
