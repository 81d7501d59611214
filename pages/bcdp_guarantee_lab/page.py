"""BCDP guarantee lab: exact answers on small examples."""

import math

import pandas as pd
import streamlit as st

from hetdp_core.framework.scenario import InputError
from hetdp_core.scenarios import bcdp_guarantee_lab as lab
from hetdp_ui import common as ui

with ui.page_shell(lab) as page:
    state = page.state

    format_levels = lab.format_levels
    sb = st.sidebar
    sb.markdown("**Example 1**")
    for k in ("a", "b", "c"):
        state.slider(k, step=0.01, on_change=state.mark_custom)
    sb.markdown("**Randomized response**")
    state.text("rr_c", on_change=state.mark_custom)
    sb.markdown("**Hypothesis-test view**")
    state.choice("test_source", horizontal=True)
    state.slider("test_q", step=0.05)
    state.check("all_tests")
    sb.markdown("**δ → c translator**")
    state.text("tr_demands", on_change=state.mark_custom)
    state.slider("tr_eps", step=0.1, on_change=state.mark_custom)
    state.slider("tr_q", step=0.01, on_change=state.mark_custom)

    try:
        d_rr = len(state.scenario(rr_coord=1, test_coord=1).rr_c)  # validates every field
    except InputError as exc:
        ui.show_input_error(exc)
        state.sync_url()
        st.stop()
    if state["rr_coord"] > d_rr:
        st.session_state[state.key("rr_coord")] = 1
    if state["test_coord"] > (2 if state["test_source"] == "example1" else d_rr):
        st.session_state[state.key("test_coord")] = 1
    state.choice("rr_coord", widget="selectbox", options=range(1, d_rr + 1))
    state.choice(
        "test_coord", widget="selectbox", options=range(1, (2 if state["test_source"] == "example1" else d_rr) + 1)
    )

    result = page.run()
    scenario = page.scenario

    # only the chosen tab is drawn (a slider step draws one tab's chart, not five tabs' hidden ones)
    tab1, tab2, tab3, tab4, tab5 = ui.tabs(
        ["Example 1", "Example 2", "Randomized response vs bounds", "Hypothesis tests (Theorem 1)", "δ → c translator"],
        key=state.key("tab"),
    )

    # ------------------------------------------------------------------ Example 1
    if tab1.open:
        with tab1:
            rep1 = result.rep1
            st.markdown(
                "x1, x2 are independent fair bits; the mechanism outputs 1 with the probabilities below. "
                "**BCDP can be finite while LDP is infinite**: output 1 rules out x = (0, 1) completely, "
                "yet each feature on its own stays protected."
            )
            table = pd.DataFrame(
                {"x1 = 0": [state["a"], 0.0], "x1 = 1": [state["b"], state["c"]]}, index=["x2 = 0", "x2 = 1"]
            )
            c1, c2 = st.columns([1, 1])
            with c1:
                st.markdown("P(M = 1 | x)")
                st.dataframe(table, key=state.key("ex1_table"))
            with c2:
                m = st.columns(3)
                m[0].metric("BCDP δ₁", format_levels(rep1.bcdp[0])[0])
                m[1].metric("BCDP δ₂", format_levels(rep1.bcdp[1])[0])
                m[2].metric("LDP ε", format_levels(rep1.ldp)[0])
                st.caption(
                    f"CDP levels c = ({', '.join(format_levels(rep1.cdp))}); at a = b = c = ½ the paper's "
                    f"(log 2, log 2) = ({math.log(2):.4f}, {math.log(2):.4f}). The paper allows a, b, c ∈ (0, 1], "
                    "but at b = c = 1 (or a = b = 1) output 0 becomes impossible for x₁ = 1 (or x₂ = 0) and "
                    "that feature's δ is ∞ too."
                )
            ui.csv_download(result.bcdp_example1, "bcdp_example1.csv", state.key("dl_ex1"))

    # ------------------------------------------------------------------ Example 2
    if tab2.open:
        with tab2:
            ex2 = result.bcdp_example2
            st.markdown(
                "x ∈ {0,1}³ uniform. One run reveals **nothing** about x₁ (δ₁ = 0); two independent runs "
                "reveal it completely (δ₁ = ∞): **composition fails** for BCDP. Post-processing one run "
                "never raises δ (Proposition 5)."
            )
            st.dataframe(ex2, hide_index=True, key=state.key("ex2_table"))
            ui.csv_download(ex2, "bcdp_example2.csv", state.key("dl_ex2"))

    # ------------------------------------------------------------------ RR vs bounds
    if tab3.open:
        with tab3:
            rr = result.bcdp_rr_vs_bounds
            st.markdown(
                "Each coordinate i is reported truthfully with probability e^{c_i}/(1+e^{c_i}) "
                "(c-CDP, Σc-LDP). Data come from the q-mixture prior (eq. 58). The exact BCDP level "
                "(by enumeration) sits below Proposition 4's bound, which sits below Proposition 3's."
            )
            ui.show_checks(result.checks)
            page.chart("rr")
            g = rr[rr.coordinate == state["rr_coord"]]
            gap = (g["prop4"] - g["exact"]).max()
            st.caption(
                f"Largest gap between Proposition 4 and the exact level for coordinate {state['rr_coord']}: "
                f"{gap:.3g} (at q = {g.loc[(g['prop4'] - g['exact']).idxmax(), 'q']:g})."
            )
            numbers = ui.panel(
                "The numbers behind the chart (every coordinate)",
                key=state.key("numbers_open"),
                expanded=bool(st.query_params.get("lesson")),
            )
            with numbers:
                if numbers.open:
                    st.dataframe(rr, hide_index=True, key=state.key("rr_numbers"))
                    st.caption(
                        "within_bound: the exact BCDP level is at most Proposition 4's bound (checked before display)."
                    )
            ui.csv_download(result.bcdp_rr_vs_bounds, "bcdp_rr_vs_bounds.csv", state.key("dl_rr"))

    # ------------------------------------------------------------------ Theorem 1
    if tab4.open:
        with tab4:
            test = result.test
            i, vals, level = scenario.test_coord - 1, test.values, test.level
            if not test.testable:
                st.info("This coordinate takes a single value with positive probability: nothing to test.")
            else:
                a_all = test.all[0]
                st.markdown(
                    f"An adversary tests H₀: x_{i + 1} = {vals[0]} against H₁: x_{i + 1} = {vals[1]} from the "
                    f"output. Theorem 1: the mechanism is δ_i-BCDP exactly when no test beats the lines "
                    f"e^δ α + β = 1 and α + e^δ β = 1. Here δ_{i + 1} = {format_levels(level)[0]}."
                )
                page.chart("tests")
                if a_all is None and state["all_tests"]:
                    st.caption(f"|Y| = {test.outputs} > 12: only the optimal boundary is drawn.")
                ui.csv_download(result.bcdp_tradeoff, "bcdp_tradeoff.csv", state.key("dl_tests"))

    # ------------------------------------------------------------------ translator
    if tab5.open:
        with tab5:
            tr = result.translate
            st.markdown(
                "Two ways to turn demands δ into a budget c for Mechanism 1. **Theorem 2** uses that the "
                "mechanism is c_d-LDP (Proposition 4(2)); **Proposition 6** only uses c-CDP (Proposition "
                "4(1)): the linear constraint A c ≤ 1, solved by cvxpy minimising the Theorem 2 bound."
            )
            page.chart("translator")
            cmp = result.bcdp_translator_levels
            st.dataframe(cmp, hide_index=True, key=state.key("translator_table"))
            ui.csv_download(cmp, "bcdp_translator_levels.csv", state.key("dl_translator_levels"))
            st.caption(
                f"cvxpy status: {tr.status} after {tr.iterations} convex–concave steps. "
                + lab.translator_comparison(result)
            )
            ui.csv_download(result.bcdp_translator, "bcdp_translator.csv", state.key("dl_tr"))

    page.meaning_and_report()

    with ui.formulas("BCDP_guarantee_lab", "Formulas behind the numbers") as shown:
        if shown:
            st.latex(
                r"\delta_i=\max_{y,\,a,\,a'}\log\frac{P(y\mid x_i=a)}{P(y\mid x_i=a')},\qquad "
                r"P(y\mid x_i=a)=\sum_{x_{-i}}\pi(x_{-i}\mid x_i=a)\,P(y\mid x)"
            )
            st.latex(
                r"\varepsilon_{LDP}=\max_{y,x,x'}\log\frac{P(y|x)}{P(y|x')},\qquad "
                r"q_i=\max_{a,a'}\mathrm{TV}\big(\pi(x_{-i}|x_i=a),\pi(x_{-i}|x_i=a')\big)"
            )
            st.latex(
                r"\text{Prop. 4: } \delta_i\le\min\Big(c_i+\log\big(1+q_i(e^{\sum_{j\ne i}c_j}-1)\big),\ "
                r"c_i+\log(1+q_ie^{\varepsilon}-q_i),\ \varepsilon\Big),\qquad \text{Prop. 3: }\delta_i\le\varepsilon"
            )
            st.latex(
                r"\text{Theorem 1: } e^{\delta_i}\alpha+\beta\ge1\ \text{ and }\ \alpha+e^{\delta_i}\beta\ge1\ \text{ for every test}"  # noqa: E501 (one LaTeX formula)
            )
            st.latex(
                r"\text{Prop. 6: } A[i,i]=\frac1{\delta_i},\ A[i,j]=\frac1{\log(1+(e^{\delta_i}-1)/q_i)},\quad A c\le 1"
            )
