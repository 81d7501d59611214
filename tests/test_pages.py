"""Streamlit AppTest for every page: renders without exception, widgets change outputs,
bad input shows a message (never a traceback)."""

import re

import pytest
from conftest import ROOT, each_tab, page_path
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import specs
from hetdp_ui.chart_element import charts as plotly_charts
from hetdp_ui.chart_element import figure_of

BCDP = str(ROOT / "pages" / "feature_privacy" / "page.py")
HOME = str(ROOT / "app.py")
TIMEOUT = 120


def charts(at) -> dict:
    """Plotly figures on the page, by element key suffix order."""
    return [figure_of(c) for c in plotly_charts(at)]


def fresh(path=BCDP, **params) -> AppTest:
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = v
    return at


def assert_clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_home_renders_with_cards_and_glossary():
    at = fresh(HOME).run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "Glossary" in " ".join(s.value for s in at.subheader)
    assert "BCDP" in text and "ζ" in text and "ρ" in text


def _titled_page():
    import streamlit as st

    from hetdp_ui.nav import sidebar_nav

    sidebar_nav("A page")
    st.markdown("after the menu")


def test_a_browsers_first_run_pauses_once_after_the_title_and_nothing_else_does(monkeypatch):
    """The title is the page's first element; a browser's first run of a session pauses after it (so the
    browser paints it before the menu arrives), its later runs do not, and a run without a browser
    (AppTest's own) never pauses."""
    from hetdp_ui import nav

    pauses = []
    monkeypatch.setattr(nav, "_pause_for_paint", lambda: pauses.append(1))
    at = AppTest.from_function(_titled_page).run()
    assert_clean(at)
    assert at.title[0].value == "A page" and pauses == []  # no browser: no pause
    monkeypatch.setattr(nav, "_browser", lambda: True)
    at = AppTest.from_function(_titled_page).run()
    assert at.main.children[0].type == "title" and at.title[0].value == "A page"  # the first element
    assert pauses == [1]
    at.run()
    at.run()
    assert pauses == [1], "a later run of the session paused again"
    # a session whose first run had no title (a class session's page) does not pause on the next page
    at = AppTest.from_function(_untitled_then_titled_page).run()
    assert pauses == [1]
    at.session_state["titled"] = True
    at.run()
    assert at.title[0].value == "A page" and pauses == [1], "a page reached after the first run paused"


def _untitled_then_titled_page():
    import streamlit as st

    from hetdp_ui.nav import sidebar_nav

    sidebar_nav("A page" if st.session_state.get("titled") else None)


def _page_top_page():
    import streamlit as st

    from hetdp_ui.nav import page_top

    page_top("A page", heading=st.session_state.get("heading", "A page"))
    st.markdown("the page")


def test_the_top_of_a_page_is_its_browser_title_then_its_heading_then_the_menu():
    """``page_top``: the browser's title "<title> — hetdp", the page's heading first (its title, another
    one, or none — a class session's page) and the menu after it; every page file starts with it but Home
    and the scenario pages (whose shell calls it)."""
    at = AppTest.from_function(_page_top_page).run()
    assert_clean(at)
    assert at.main.children[0].type == "title" and at.title[0].value == "A page"
    assert at.markdown[-1].value == "the page"
    at.session_state["heading"] = None
    at.run()
    assert not at.title, "a page told to have no heading drew one"
    pages = [f for f in (ROOT / "pages").glob("*/page.py") if "page_shell(" not in f.read_text()]
    assert pages, "no page file found"
    for f in pages:
        text = f.read_text()
        assert "page_top(" in text and "set_page_config" not in text, f"{f}: its top is not page_top"


def test_home_start_links_name_a_real_lesson_preset_and_page():
    """The "new here?" links: each names a page of the app and, where it has one, a bundled lesson or a
    paper preset the page accepts; the footer points to the Documentation page's corrections."""
    from hetdp_core.teaching.lessons import lesson_ids
    from hetdp_ui.nav import docs, file_of, start_links

    for _, _, page, _, query in start_links():
        assert file_of(page)
        if "lesson" in query:
            assert query["lesson"] in lesson_ids()
        if "preset" in query:  # the link opens the preset itself, not Custom
            from hetdp_core.framework.registry import get

            at = fresh(str(ROOT / file_of(page)), **query).run()
            assert_clean(at)
            assert at.sidebar.selectbox(key=f"{get(page).PAGE_SPEC.slug}_preset").value == query["preset"]
    assert "corrections" in docs()
    at = fresh(HOME).run()
    shown = " ".join(m.value for m in at.markdown)
    assert "New here? Start with" in shown and "README" not in " ".join(c.value for c in at.caption)


def test_bcdp_default_renders():
    at = fresh(trials="10", n="2000").run()
    assert_clean(at)
    figs = charts(at)
    assert len(figs) == 3  # c vector, MSE sweep, quantile dotplot (the stage schematic's panel is closed)
    at.session_state["feature_privacy_stages_open"] = True
    at.run()
    assert_clean(at)
    assert len(charts(at)) == 4  # and the stage schematic, drawn once its panel is open
    assert "Every demand holds" in at.success[0].value
    assert any("What question does this answer?" in m.value for m in at.markdown)
    assert at.get("download_button"), "CSV downloads are offered"


def test_q_slider_changes_allocation_and_guarantee():
    at = fresh(trials="5", n="500").run()
    before = (charts(at)[0]["data"][2]["y"], at.success[0].value)
    at.sidebar.slider(key="feature_privacy_q").set_value(0.6).run()
    assert_clean(at)
    after = (charts(at)[0]["data"][2]["y"], at.success[0].value)
    assert before[1] != after[1] and before[0] != after[0]


def test_axis_switch_changes_mse_figure():
    at = fresh(trials="5", n="500").run()
    x_before = charts(at)[1]["data"][1]["x"]
    at.sidebar.selectbox(key="feature_privacy_axis").set_value("f").run()
    assert_clean(at)
    fig = charts(at)[1]
    assert fig["data"][1]["x"] != x_before
    assert "fraction" in fig["layout"]["xaxis"]["title"]["text"]


def test_seed_changes_simulation_but_not_allocation():
    at = fresh(trials="5", n="500").run()
    y0 = charts(at)[1]["data"][1]["y"]
    at.sidebar.number_input(key="feature_privacy_seed").set_value(7).run()
    assert_clean(at)
    assert charts(at)[1]["data"][1]["y"] != y0


def test_preset_figure3_applies_paper_setup():
    at = fresh().run()
    at.sidebar.selectbox(key="feature_privacy_preset").set_value("Figure 3").run()
    assert_clean(at)
    ss = at.session_state
    assert (
        ss["feature_privacy_d"] == 10
        and ss["feature_privacy_k"] == 2
        and ss["feature_privacy_demand"] == 0.2
        and ss["feature_privacy_eps"] == 2.0
    )
    assert ss["feature_privacy_n"] == 10_000 and ss["feature_privacy_axis"] == "q"
    assert any("Figure 3" in i.value for i in at.info)


def test_as_published_toggle_warns_and_changes_curves():
    at = fresh(trials="5", n="500").run()
    y0 = charts(at)[2]["data"][1]["y"]
    at.sidebar.toggle(key="feature_privacy_published").set_value(True).run()
    assert_clean(at)
    assert any("As published" in w.value for w in at.warning)
    assert charts(at)[2]["data"][1]["y"] != y0


def test_as_published_keeps_the_preset_and_its_link():
    """'As published' is a variant of the same figure: the preset's name, and the link, keep saying so;
    a slider the preset sets still makes the view Custom."""
    at = fresh().run()
    at.sidebar.selectbox(key="feature_privacy_preset").set_value("Figure 3").run()
    at.sidebar.toggle(key="feature_privacy_published").set_value(True).run()
    assert_clean(at)
    assert at.sidebar.selectbox(key="feature_privacy_preset").value == "Figure 3"
    assert at.query_params["preset"] == "Figure 3" and at.query_params["published"] in ("true", "True", "1")
    at.sidebar.toggle(key="feature_privacy_published").set_value(False).run()
    assert at.sidebar.selectbox(key="feature_privacy_preset").value == "Figure 3"
    at.sidebar.slider(key="feature_privacy_q").set_value(0.6).run()
    assert at.sidebar.selectbox(key="feature_privacy_preset").value == "Custom"


def test_table_mode_any_order_and_bad_entries():
    at = fresh(mode="Per-feature table", table="2,0.2,inf,2", trials="5", n="500").run()
    assert_clean(at)
    assert len(at.get("data_editor" if at.get("data_editor") else "arrow_data_frame")) >= 1
    # non-numeric entry → clear message, no exception
    at.sidebar.text_input(key="feature_privacy_table").set_value("0.2,abc").run()
    assert not at.exception
    assert any("entry 2 must be a number; got 'abc'" in e.value for e in at.error)
    # negative demand → the core's message
    at.sidebar.text_input(key="feature_privacy_table").set_value("0.2,-1").run()
    assert not at.exception
    assert any("table (δ per feature) entry 2 must be in [0.001" in e.value for e in at.error)


def test_malformed_url_params_are_reported_and_ignored():
    at = fresh(q="abc", n="-4", axis="evil()", points="1,2,x", trials="5").run()
    assert not at.exception
    warns = " ".join(w.value for w in at.warning)
    for name in ("'q'", "'n'", "'axis'", "'points'"):
        assert name in warns
    assert at.session_state["feature_privacy_q"] == 0.1 and at.session_state["feature_privacy_axis"] == "q"


def test_compute_guard_message():
    at = fresh(n="200000", trials="2000").run()
    assert not at.exception
    assert any("compute budget" in e.value and "10 s" in e.value for e in at.error)


def test_url_state_round_trip():
    at = fresh(trials="5", n="500").run()
    at.sidebar.slider(key="feature_privacy_q").set_value(0.35).run()
    assert at.query_params["q"] in ("0.35", ["0.35"])


def test_bounds_overlay_adds_right_axis_traces():
    at = fresh(trials="5", n="500").run()
    n0 = len(charts(at)[1]["data"])
    at.sidebar.checkbox(key="feature_privacy_bounds").check().run()
    assert_clean(at)
    fig = charts(at)[1]
    names = [t.get("name", "") for t in fig["data"]]
    assert len(fig["data"]) == n0 + 2
    assert any("Theorem 2" in nm for nm in names) and any("Corollary 1" in nm for nm in names)
    assert "yaxis2" in fig["layout"]


ZCDP = str(ROOT / "pages" / "groupwise_zcdp" / "page.py")


def test_zcdp_default_renders_and_answers_the_open_question():
    at = fresh(ZCDP).run()
    assert_clean(at)
    assert len(charts(at)) == 6  # incl. the quantile dotplot
    assert any("Numerical answer" in m.value for m in at.markdown)
    assert any("What question does this answer?" in m.value for m in at.markdown)
    assert at.get("download_button")


def test_zcdp_group_and_algorithm_change_outputs():
    at = fresh(ZCDP, mode="List", counts="0,3,10,50,400").run()
    assert_clean(at)
    y0 = charts(at)[2]["data"][0]["y"]
    at.sidebar.selectbox(key="groupwise_zcdp_group").set_value(3).run()  # x = 10: the claim fails
    assert not at.exception
    assert charts(at)[2]["data"][0]["y"] != y0
    assert any("The claim fails" in w.value for w in at.warning)  # a finding about the paper: a warning
    assert any(t.get("name", "").startswith("claim violated") for t in charts(at)[2]["data"])
    at.sidebar.radio(key="groupwise_zcdp_algorithm").set_value(1).run()
    assert_clean(at)
    assert any("α·ρ" in s.value for s in at.success)


def test_zcdp_bad_counts_show_messages():
    at = fresh(ZCDP, mode="List").run()
    for bad, frag in (
        ("1,-2", "entry 2 must be in [0, 1e+09]"),
        ("1,2.5", "whole numbers"),
        ("1,abc", "entry 2 must be a number; got 'abc'"),
    ):
        at.sidebar.text_input(key="groupwise_zcdp_counts").set_value(bad).run()
        assert not at.exception
        assert any(frag in e.value for e in at.error), (bad, [e.value for e in at.error])
    at2 = fresh(ZCDP, rho="-3").run()
    assert not at2.exception and any("'rho' ignored" in w.value for w in at2.warning)


LAB = str(ROOT / "pages" / "bcdp_guarantee_lab" / "page.py")
REG = str(ROOT / "pages" / "private_regression" / "page.py")


def test_lab_example1_sliders_change_levels():
    at = fresh(LAB).run()
    assert_clean(at)
    assert [m.value for m in at.metric][:3] == ["0.6931", "0.6931", "∞"]
    assert not charts(at)  # the first tab has no chart, and only the chosen tab is drawn
    assert [t.label for t in at.tabs][:2] == ["Example 1", "Example 2"]
    at.sidebar.slider(key="bcdp_guarantee_lab_a").set_value(0.2).run()
    assert_clean(at)
    assert at.metric[0].value != "0.6931"


def test_lab_rr_and_test_view_react():
    at = fresh(LAB, tab="Randomized response vs bounds").run()  # a link that names a tab opens it
    assert len(charts(at)) == 1  # the chosen tab's chart only
    rr0 = charts(at)[0]["data"][0]["y"]
    at.sidebar.text_input(key="bcdp_guarantee_lab_rr_c").set_value("0.3,0.3,0.3").run()
    assert_clean(at)
    assert charts(at)[0]["data"][0]["y"] != rr0
    at.session_state["bcdp_guarantee_lab_tab"] = "Hypothesis tests (Theorem 1)"  # the reader chooses a tab
    at.run()
    assert_clean(at)
    assert at.query_params["tab"] in ("Hypothesis tests (Theorem 1)", ["Hypothesis tests (Theorem 1)"])  # its link
    t0 = charts(at)[0]["data"]
    at.sidebar.radio(key="bcdp_guarantee_lab_test_source").set_value("rr").run()
    assert_clean(at)
    assert charts(at)[0]["data"] != t0


def test_back_to_a_page_s_first_tab_opens_it():
    """The first tab has no ``tab=`` in the link, so Back from a named tab to it is an address without
    one: the page opens its first tab and leaves the address as it is."""
    at = fresh(LAB, tab="Randomized response vs bounds").run()
    assert len(charts(at)) == 1
    at.session_state["bcdp_guarantee_lab_tab"] = "Hypothesis tests (Theorem 1)"  # the reader chooses a tab
    at.run()
    del at.query_params["tab"]  # Back, to the address of the first tab
    at.run()
    assert_clean(at)
    assert at.session_state["bcdp_guarantee_lab_tab"] == "Example 1" and not charts(at)
    assert "tab" not in at.query_params
    at.query_params["tab"] = "Randomized response vs bounds"  # Forward again
    at.run()
    assert at.session_state["bcdp_guarantee_lab_tab"] == "Randomized response vs bounds" and len(charts(at)) == 1


def test_an_input_of_another_tab_comes_back_with_its_value_after_reruns_elsewhere():
    """The Mechanism lab's scores sit in their own tab. Shown another tab, the reader moves a sidebar input
    a few times, then comes back: the scores' text box is drawn with its value (the element carries it,
    ``set_value``), not empty — the browser showed an empty box and sent it back as the reader's input."""
    at = fresh(str(page_path("Mechanism_lab")), trials="200", tab="Exponential mechanism").run()
    at.session_state["mechanism_lab_tab"] = "Bounded Laplace"
    at.run()
    for v in (1.01, 1.02, 1.03):  # more runs than the server's values are sent again for (RESEND_RUNS)
        at.sidebar.number_input(key="mechanism_lab_sens").set_value(v).run()
    at.session_state["mechanism_lab_tab"] = "Exponential mechanism"
    at.run()
    box = at.text_input(key="mechanism_lab_scores")
    assert box.proto.set_value and box.proto.value == "15,20,25", (box.proto.set_value, box.proto.value)
    at.run()  # drawn in the run before: the value is the browser's again, not sent once more
    assert not at.text_input(key="mechanism_lab_scores").proto.set_value
    assert_clean(at)


def test_lab_bad_lists_show_message():
    at = fresh(LAB).run()
    at.sidebar.text_input(key="bcdp_guarantee_lab_rr_c").set_value("0.3,x").run()
    assert not at.exception and any("rr_c (RR levels c_i) entry 2 must be a number" in e.value for e in at.error)
    at.sidebar.text_input(key="bcdp_guarantee_lab_rr_c").set_value(",".join(["0.1"] * 11)).run()
    assert not at.exception and any("needs 1 to 10 entries; got 11" in e.value for e in at.error)


def test_regression_default_and_slider():
    at = fresh(REG, trials="3").run()
    assert_clean(at)
    assert len(charts(at)) == 2
    y0 = charts(at)[1]["data"]
    at.sidebar.slider(key="private_regression_demand").set_value(3.0).run()
    assert not at.exception
    assert charts(at)[1]["data"] != y0
    assert any("allocation c" in c.value for c in at.caption)


def test_regression_nonconvex_is_reported():
    at = fresh(REG)
    at.query_params.update({"trials": "2", "n": "1000", "delta": "0.5", "eps": "1.0"})
    at.run()
    assert not at.exception
    assert any("not convex" in w.value for w in at.warning)


MECH = str(ROOT / "pages" / "mechanism_lab" / "page.py")
SGD = str(ROOT / "pages" / "dp_sgd_schedules" / "page.py")


def test_mechanism_lab_renders_and_reacts():
    at = fresh(MECH, trials="500").run()
    assert_clean(at)
    assert len(charts(at)) == 2  # the first tab's: the densities and Example 11's Pareto MSE
    drawn = 2
    for label in [t.label for t in at.tabs][1:]:  # each other tab, chosen in turn, draws its own charts
        at.session_state["mechanism_lab_tab"] = label
        at.run()
        assert_clean(at)
        drawn += len(charts(at))
        if label.startswith("Median"):
            assert any("VIOLATION" in m.value for m in at.markdown)  # Example 12 attack is detected
    assert drawn == 6  # incl. the quantile dotplot
    at.session_state["mechanism_lab_tab"] = "Noise: Laplace, Gaussian, MNM"
    at.run()
    d0 = charts(at)[0]["data"][0]["y"]
    at.sidebar.select_slider(key="mechanism_lab_eps").set_value(2.0).run()
    assert_clean(at)
    assert charts(at)[0]["data"][0]["y"] != d0


def test_mechanism_lab_bad_inputs():
    at = fresh(MECH)
    at.query_params.update({"trials": "200", "scores": "", "bl_q": "20"})
    at.run()
    assert not at.exception and not at.error  # a true value outside [l, u] is moved inside
    assert any("the true value q is now 10, inside the domain" in i.value for i in at.info)
    at2 = fresh(MECH)
    at2.query_params.update({"trials": "200", "eps": "0"})
    at2.run()
    assert not at2.exception and any("'eps' ignored" in w.value for w in at2.warning)


def test_dpsgd_page_kappa_changes_outputs():
    at = fresh(SGD)
    at.query_params.update({"runs": "20", "steps": "1000"})
    at.run()
    assert_clean(at)
    assert len(charts(at)) == 4
    y0 = charts(at)[0]["data"][0]["y"]
    at.sidebar.slider(key="dp_sgd_schedules_kappa").set_value(0.0).run()
    assert_clean(at)
    assert charts(at)[0]["data"][0]["y"] != y0
    assert any("N^1.5" in m.value for m in at.markdown)


def test_dpsgd_page_guard_and_bad_custom():
    at = fresh(SGD)
    at.query_params.update({"runs": "1000", "steps": "50000"})
    at.run()
    assert not at.exception and any("compute size" in e.value for e in at.error)
    at2 = fresh(SGD)
    at2.query_params.update({"lr": "custom", "custom": "0.1,-1", "runs": "10", "steps": "100"})
    at2.run()
    assert not at2.exception and any("'custom' ignored" in w.value for w in at2.warning)


HET = str(ROOT / "pages" / "per_user_privacy" / "page.py")


def test_per_user_default_and_preset():
    at = fresh(HET, trials="40").run()
    assert_clean(at)
    assert len(charts(at)) == 4  # incl. the quantile dotplot
    assert at.get("download_button")
    y0 = charts(at)[0]["data"]
    at.sidebar.selectbox(key="per_user_privacy_preset").set_value(
        "RAND HIE income (mean), high earners more private"
    ).run()
    assert_clean(at)
    assert charts(at)[0]["data"] != y0
    assert any("RAND HIE income" in c.value for c in at.caption)


def test_per_user_widgets_and_bad_input():
    at = fresh(HET)
    at.query_params.update({"trials": "40", "demand": "groups"})
    at.run()
    at.sidebar.text_input(key="per_user_privacy_shares").set_value("0.5,0.6,0.2").run()
    assert not at.exception and any("shares must sum to 1" in e.value for e in at.error)
    at.sidebar.text_input(key="per_user_privacy_shares").set_value("0.3,0.5,0.2").run()
    at.sidebar.text_input(key="per_user_privacy_lows").set_value("0.01,-1,1").run()
    assert not at.exception and any("lows (group ε low) entry 2 must be in" in e.value for e in at.error)
    at2 = fresh(HET)
    at2.query_params.update({"trials": "40", "algs": "CP,EVIL", "beta": "2"})
    at2.run()
    assert not at2.exception
    warns = " ".join(w.value for w in at2.warning)
    assert "'algs' ignored" in warns and "'beta' ignored" in warns


def test_regression_bundled_dataset():
    at = fresh(REG)
    at.query_params.update({"trials": "2", "source": "RAND HIE (real)"})
    at.run()
    assert not at.exception
    assert len(charts(at)) == 2


def test_dpsgd_compares_constant_privacy_schedule():
    at = fresh(SGD)
    at.query_params.update({"runs": "20", "steps": "1000"})
    at.run()
    names = [t.get("name", "") for t in charts(at)[3]["data"]]
    assert any("a_h = 1" in nm for nm in names)


@pytest.mark.parametrize("page", [s.url for s in specs()])
def test_every_plotted_table_can_be_downloaded(page):
    """A CSV download of every plotted table — at least as many downloads as figures."""
    at = AppTest.from_file(str(page_path(page)), default_timeout=TIMEOUT)
    slow = ("Feature_privacy", "Private_regression", "Per_user_privacy")
    at.query_params.update({"trials": "20"} if page in slow else {})
    at.run()
    drawn = 0
    for _tab in each_tab(at):  # a tabbed page draws one tab at a time
        assert_clean(at)
        assert len(at.get("download_button")) >= len(plotly_charts(at)), _tab
        drawn += len(plotly_charts(at))
    assert drawn > 0


PAPER_WORDS = re.compile(r"Theorem|Proposition|Prop \d|Corollary|CDP level|Tables? \d|PAC:")


@pytest.mark.parametrize("path", ["pages/feature_privacy/page.py", "pages/per_user_privacy/page.py"])
def test_labels_captions_and_headings_use_plain_words(path):
    """The papers' numbering (Theorem 2, Prop 4(2), Tables 4/5) stays in the Formulas expanders and the
    docs: no widget label or help, caption, heading or metric outside them uses it."""
    at = AppTest.from_file(str(ROOT / path), default_timeout=180)
    at.query_params.update({"trials": "5", "n": "500"} if "Feature" in path else {"trials": "20"})
    at.run()
    assert not at.exception
    expanders = [e for e in at.expander]
    inside = {id(el) for e in expanders for el in _walk(e)}
    texts = [
        w.label
        for w in [*at.slider, *at.checkbox, *at.selectbox, *at.radio, *at.number_input, *at.text_input, *at.multiselect]
    ]
    texts += [w.help or "" for w in [*at.slider, *at.checkbox, *at.selectbox, *at.radio]]
    texts += [e.value for e in [*at.caption, *at.subheader, *at.header] if id(e) not in inside]
    texts += [m.label for m in at.metric]
    bad = [t for t in texts if PAPER_WORDS.search(t or "")]
    assert not bad, bad


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def test_a_widget_hidden_on_the_last_run_does_not_undo_the_next_move():
    """'As published' hides the projection selector, so Streamlit drops its value; the next slider
    move must stick (it was reverted to the URL's value once) and the projection comes back as it was."""
    at = fresh(trials="5", n="500", projection="none").run()
    at.run().run()  # the values read from the link have been sent again (hetdp_ui.state.RESEND_RUNS)
    at.sidebar.toggle(key="feature_privacy_published").set_value(True).run()
    assert "feature_privacy_projection" not in at.session_state
    at.sidebar.slider(key="feature_privacy_q").set_value(0.35).run()
    assert_clean(at)
    assert at.session_state["feature_privacy_q"] == 0.35 and at.query_params["q"] in ("0.35", ["0.35"])
    at.sidebar.toggle(key="feature_privacy_published").set_value(False).run()
    assert at.session_state["feature_privacy_projection"] == "none" and at.session_state["feature_privacy_q"] == 0.35


def test_values_the_server_set_are_sent_with_the_widgets_again_for_two_runs():
    """A run stopped before Streamlit sent its elements drops them, yet Streamlit believes the browser has
    the values the server set; the browser then shows each widget at its own default (a slider at its
    minimum) and sends that back. So a value set on the server's side (from the link on arrival, a preset)
    goes out with its widget again until two runs have drawn the widgets; a value the reader moves
    is sent as moved, and after the window the widgets carry no value again (Streamlit's own way)."""
    at = fresh(trials="5", n="500", q="0.3").run()

    def sent(at) -> bool:
        return at.sidebar.slider(key="feature_privacy_q").proto.set_value

    assert sent(at)  # arrival: the link's values
    at.run()
    assert sent(at) and at.session_state["feature_privacy_q"] == 0.3  # again: the first run may not have reached
    at.sidebar.slider(key="feature_privacy_q").set_value(0.35).run()
    assert at.session_state["feature_privacy_q"] == 0.35  # the reader's move stands
    at.run()
    assert not sent(at) and at.session_state["feature_privacy_q"] == 0.35
    at.sidebar.selectbox(key="feature_privacy_preset").set_value("Figure 3").run()  # a preset: sent again too
    at.run()
    assert sent(at)


def test_a_stale_query_string_does_not_undo_a_slider_move():
    """Streamlit updates the address asynchronously: a rerun caused by a slider can arrive with the
    query string of an earlier run. The widgets rule then; only a rerun where nothing moved (Back
    or Forward within the page) takes the URL's values."""
    at = fresh(trials="5", n="500").run()
    at.sidebar.slider(key="feature_privacy_q").set_value(0.35).run()
    at.query_params["q"] = "0.1"  # the browser's stale echo
    at.sidebar.slider(key="feature_privacy_q").set_value(0.5).run()  # the user keeps moving
    assert at.session_state["feature_privacy_q"] == 0.5 and at.query_params["q"] in ("0.5", ["0.5"])
    at.query_params["q"] = "0.35"  # Back: the URL changes, no widget moved
    at.run()
    assert_clean(at)
    assert at.session_state["feature_privacy_q"] == 0.35


def test_groupwise_page_states_where_algorithm_2_becomes_infinite():
    """Algorithm 2's claim fails for a small group: the page names the exact orders from which each
    divergence is infinite (x = 10: x²/(2x−1) = 5.263 and (x+1)²/(2x+1) = 5.762)."""
    at = AppTest.from_file(str(page_path("Groupwise_zCDP")), default_timeout=TIMEOUT)
    query = {"algorithm": "2", "trials": "50", "mode": "list", "counts": "10,100", "group": "1", "r": "0.1"}
    at.query_params.update({**query, "alpha_max": "100"})
    at.run()
    assert not at.exception
    warning = next(w.value for w in at.warning if "claim fails" in w.value)
    assert "x²/(2x−1) = 5.263" in warning and "(x+1)²/(2x+1) = 5.762" in warning
