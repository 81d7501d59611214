"""BCDP guarantee lab: exact answers on small examples (SPEC §2)."""

import math

import numpy as np
import pandas as pd
import streamlit as st

from hetdp_core import bcdp_exact as ex
from hetdp_core.bcdp import mse_bound_thm2, privacy_allocation, translate_delta_to_c
from hetdp_ui.common import (
    PageState,
    Param,
    cached,
    csv_download,
    dump_bool,
    numbers,
    parse_bool,
    parse_choice,
    parse_float,
    parse_float_list,
    parse_int,
    question,
    show_checks,
    show_input_error,
)
from hetdp_ui.lab_figures import rr_figure, tradeoff_figure, translator_figure
from hetdp_ui.nav import sidebar_nav

st.set_page_config(page_title="BCDP guarantee lab — hetdp", layout="wide")
sidebar_nav()

PRESETS = {
    "Custom": None,
    "Example 1 at a = b = c = ½ (paper)": dict(a=0.5, b=0.5, c=0.5, test_source="Example 1", test_coord=1),
    "Randomized response, d = 10, c = 0.3": dict(rr_c=",".join(["0.3"] * 10), rr_coord=1, test_source="Randomized response",
                                                 test_q=0.3),
    "Figure 3 demands (translator)": dict(tr_delta="0.2,0.2,2,2,2,2,2,2,2,2", tr_eps=2.0, tr_q=0.1),
}

state = PageState("lab", presets=PRESETS, params={
    "preset": Param("Custom", parse_choice(list(PRESETS))),
    "a": Param(0.5, parse_float(0.0, 1.0)),
    "b": Param(0.5, parse_float(0.0, 1.0)),
    "c": Param(0.5, parse_float(0.0, 1.0)),
    "rr_c": Param("0.2,0.5,0.5,1", parse_float_list(0.0, 10.0, max_len=10)),
    "rr_coord": Param(1, parse_int(1, 10)),
    "test_source": Param("Example 1", parse_choice(["Example 1", "Randomized response"])),
    "test_coord": Param(1, parse_int(1, 10)),
    "test_q": Param(0.3, parse_float(0.0, 1.0)),
    "tr_delta": Param("0.2,0.2,2,2,2,2", parse_float_list(1e-3, 700.0, allow_inf=True, max_len=30)),
    "tr_eps": Param(2.0, parse_float(0.01, 50.0)),
    "tr_q": Param(0.1, parse_float(0.0, 1.0)),
    "all_tests": Param(True, parse_bool, dump_bool),
})


def levels_text(v) -> list[str]:
    return ["∞" if math.isinf(x) else f"{x:.4g}" for x in np.atleast_1d(v)]


@cached(max_entries=64)
def cached_rr(c: tuple, qs: tuple):
    return ex.rr_sweep(c=c, qs=qs)


@cached(max_entries=32)
def cached_translate(delta: tuple, eps: float, q: float):
    return translate_delta_to_c(delta=delta, eps=eps, q=q)


st.title("BCDP guarantee lab")
question(
    "What exactly does a per-feature (Bayesian coordinate) privacy level promise? On small examples "
    "everything can be computed exactly, by listing every input and output. Here you can see a "
    "mechanism that protects each feature but not the record as a whole, a guarantee that breaks "
    "when a mechanism is run twice, how loose the general bounds are under correlation, and what "
    "the guarantee means for someone trying to guess a feature."
)
state.init()
sb = st.sidebar
sb.selectbox("Preset", list(PRESETS), key=state.key("preset"), on_change=state.apply_preset)
sb.markdown("**Example 1**")
for k, lab in (("a", "a = P(M=1 | x1=0, x2=0)"), ("b", "b = P(M=1 | x1=1, x2=0)"), ("c", "c = P(M=1 | x1=1, x2=1)")):
    sb.slider(lab, 0.0, 1.0, step=0.01, key=state.key(k), on_change=state.mark_custom)
sb.markdown("**Randomized response**")
sb.text_input("RR level c_i per coordinate (d ≤ 10)", key=state.key("rr_c"), on_change=state.mark_custom)
sb.markdown("**Hypothesis-test view**")
sb.radio("mechanism", ["Example 1", "Randomized response"], key=state.key("test_source"), horizontal=True)
sb.slider("q for randomized response", 0.0, 1.0, step=0.05, key=state.key("test_q"))
sb.checkbox("show every rejection region (|Y| ≤ 12)", key=state.key("all_tests"))
sb.markdown("**δ → c translator**")
sb.text_input("demands δ (any order, inf allowed)", key=state.key("tr_delta"), on_change=state.mark_custom)
sb.slider("ε (global LDP)", 0.1, 20.0, step=0.1, key=state.key("tr_eps"), on_change=state.mark_custom)
sb.slider("q (translator)", 0.0, 1.0, step=0.01, key=state.key("tr_q"), on_change=state.mark_custom)

try:
    rr_c = np.asarray(numbers(state["rr_c"], "RR levels c_i"))
    tr_delta = np.asarray(numbers(state["tr_delta"], "demands δ"))
except ValueError as exc:
    show_input_error(exc)
    state.sync_url()
    st.stop()
d_rr = max(rr_c.size, 1)
if state["rr_coord"] > d_rr:
    st.session_state[state.key("rr_coord")] = 1
if state["test_coord"] > (2 if state["test_source"] == "Example 1" else d_rr):
    st.session_state[state.key("test_coord")] = 1
sb.selectbox("coordinate for the RR chart", list(range(1, d_rr + 1)), key=state.key("rr_coord"))
sb.selectbox("coordinate for the test view", list(range(1, (2 if state["test_source"] == "Example 1" else d_rr) + 1)),
             key=state.key("test_coord"))
state.sync_url()

tab1, tab2, tab3, tab4, tab5 = st.tabs(["Example 1", "Example 2", "Randomized response vs bounds",
                                        "Hypothesis tests (Theorem 1)", "δ → c translator"])

# ------------------------------------------------------------------ Example 1
with tab1:
    try:
        prior1, mech1 = ex.example1(a=state["a"], b=state["b"], c=state["c"])
        rep1 = ex.exact_report(prior1, mech1)
    except (ValueError, TypeError) as exc:
        show_input_error(exc)
        st.stop()
    st.markdown("x1, x2 are independent fair bits; the mechanism outputs 1 with the probabilities below. "
                "**BCDP can be finite while LDP is infinite**: output 1 rules out x = (0, 1) completely, "
                "yet each feature on its own stays protected.")
    table = pd.DataFrame({"x1 = 0": [state["a"], 0.0], "x1 = 1": [state["b"], state["c"]]}, index=["x2 = 0", "x2 = 1"])
    c1, c2 = st.columns([1, 1])
    with c1:
        st.markdown("P(M = 1 | x)")
        st.dataframe(table, key="lab_ex1_table")
    with c2:
        m = st.columns(3)
        m[0].metric("BCDP δ₁", levels_text(rep1.bcdp[0])[0])
        m[1].metric("BCDP δ₂", levels_text(rep1.bcdp[1])[0])
        m[2].metric("LDP ε", levels_text(rep1.ldp)[0])
        st.caption(f"CDP levels c = ({', '.join(levels_text(rep1.cdp))}); at a = b = c = ½ the paper's "
                   f"(log 2, log 2) = ({math.log(2):.4f}, {math.log(2):.4f}). The paper allows a, b, c ∈ (0, 1], "
                   "but at b = c = 1 (or a = b = 1) output 0 becomes impossible for x₁ = 1 (or x₂ = 0) and "
                   "that feature's δ is ∞ too.")
    ex1 = pd.DataFrame({"coordinate": [1, 2], "bcdp": rep1.bcdp, "cdp": rep1.cdp, "ldp": rep1.ldp})
    csv_download(ex1, "bcdp_example1.csv", "dl_lab_ex1")

# ------------------------------------------------------------------ Example 2
with tab2:
    prior2, one = ex.example2(copies=1)
    _, two = ex.example2(copies=2)
    xor = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])
    rows = []
    for label, mech in (("one run: [x1⊕x2, x3] or [x2, x1⊕x3]", one), ("two independent runs", two),
                        ("one run, post-processed (XOR of its two bits)", ex.post_process(one, xor))):
        r = ex.exact_report(prior2, mech)
        rows.append({"mechanism": label, "δ₁": levels_text(r.bcdp[0])[0], "δ₂": levels_text(r.bcdp[1])[0],
                     "δ₃": levels_text(r.bcdp[2])[0], "LDP ε": levels_text(r.ldp)[0]})
    ex2 = pd.DataFrame(rows)
    st.markdown("x ∈ {0,1}³ uniform. One run reveals **nothing** about x₁ (δ₁ = 0); two independent runs "
                "reveal it completely (δ₁ = ∞): **composition fails** for BCDP. Post-processing one run "
                "never raises δ (Proposition 5).")
    st.dataframe(ex2, hide_index=True, key="lab_ex2_table")
    csv_download(ex2, "bcdp_example2.csv", "dl_lab_ex2")

# ------------------------------------------------------------------ RR vs bounds
with tab3:
    qs = tuple(np.round(np.linspace(0, 1, 21), 3))
    try:
        rr = cached_rr(tuple(rr_c), qs)
    except (ValueError, TypeError) as exc:
        show_input_error(exc)
        rr = None
    if rr is not None:
        st.markdown("Each coordinate i is reported truthfully with probability e^{c_i}/(1+e^{c_i}) "
                    "(c-CDP, Σc-LDP). Data come from the q-mixture prior (eq. 58). The exact BCDP level "
                    "(by enumeration) sits below Proposition 4's bound, which sits below Proposition 3's.")
        show_checks(rr.attrs["checks"])
        st.plotly_chart(rr_figure(rr, state["rr_coord"]), key="lab_rr")
        g = rr[rr.coordinate == state["rr_coord"]]
        gap = (g["prop4"] - g["exact"]).max()
        st.caption(f"Largest gap between Proposition 4 and the exact level for coordinate {state['rr_coord']}: "
                   f"{gap:.3g} (at q = {g.loc[(g['prop4'] - g['exact']).idxmax(), 'q']:g}).")
        csv_download(rr, "bcdp_rr_vs_bounds.csv", "dl_lab_rr")

# ------------------------------------------------------------------ Theorem 1
with tab4:
    if state["test_source"] == "Example 1":
        prior_t, mech_t = prior1, mech1
    else:
        prior_t, mech_t = ex.q_mixture_prior(d=rr_c.size, q=state["test_q"]), ex.randomized_response(rr_c)
    i = state["test_coord"] - 1
    vals, P = ex.conditional_outputs(prior_t, mech_t, i)
    delta_i = ex.bcdp_levels(prior_t, mech_t)[i]
    if P.shape[0] < 2:
        st.info("This coordinate takes a single value with positive probability: nothing to test.")
    else:
        a_np, b_np = ex.tradeoff_curve(P[0], P[1])
        show_all = state["all_tests"] and P.shape[1] <= 12
        a_all, b_all = ex.all_tests(P[0], P[1]) if show_all else (None, None)
        st.markdown(f"An adversary tests H₀: x_{i + 1} = {vals[0]} against H₁: x_{i + 1} = {vals[1]} from the "
                    f"output. Theorem 1: the mechanism is δ_i-BCDP exactly when no test beats the lines "
                    f"e^δ α + β = 1 and α + e^δ β = 1. Here δ_{i + 1} = {levels_text(delta_i)[0]}.")
        st.plotly_chart(tradeoff_figure(a_all, b_all, a_np, b_np, delta_i), key="lab_tests")
        if not show_all and state["all_tests"]:
            st.caption(f"|Y| = {P.shape[1]} > 12: only the optimal boundary is drawn.")
        csv_download(pd.DataFrame({"alpha": a_np, "beta": b_np}), "bcdp_tradeoff.csv", "dl_lab_tests")

# ------------------------------------------------------------------ translator
with tab5:
    try:
        alloc = privacy_allocation(delta=tr_delta, eps=state["tr_eps"], q=state["tr_q"])
        tr = cached_translate(tuple(tr_delta), state["tr_eps"], state["tr_q"])
    except (ValueError, TypeError) as exc:
        show_input_error(exc)
        st.stop()
    names = [f"x{j + 1}" for j in range(tr_delta.size)]
    st.markdown("Two ways to turn demands δ into a budget c for Mechanism 1. **Theorem 2** uses that the "
                "mechanism is c_d-LDP (Proposition 4(2)); **Proposition 6** only uses c-CDP (Proposition "
                "4(1)): the linear constraint A c ≤ 1, solved by cvxpy minimising the Theorem 2 bound.")
    st.plotly_chart(translator_figure(names, alloc.c, tr["c"], tr_delta), key="lab_translator")
    n_ref = 10_000
    cmp = pd.DataFrame({
        "method": ["Theorem 2", "Proposition 6 (cvxpy)"],
        "LDP level": [alloc.ldp_level, float(np.max(tr["c"]))],
        f"bound shape (17) at n = {n_ref:,}": [mse_bound_thm2(c_sorted=alloc.c_sorted, n=n_ref),
                                                 mse_bound_thm2(c_sorted=tr["c_sorted"], n=n_ref)],
    })
    st.dataframe(cmp, hide_index=True, key="lab_translator_table")
    st.caption(f"cvxpy status: {tr['status']} after {tr['iterations']} convex–concave steps. "
               "Proposition 6 is more conservative because it ignores the tighter LDP level.")
    csv_download(pd.DataFrame({"feature": names, "delta": tr_delta, "c_theorem2": alloc.c, "c_prop6": tr["c"]}),
                 "bcdp_translator.csv", "dl_lab_tr")

with st.expander("Formulas behind the numbers"):
    st.latex(r"\delta_i=\max_{y,\,a,\,a'}\log\frac{P(y\mid x_i=a)}{P(y\mid x_i=a')},\qquad "
             r"P(y\mid x_i=a)=\sum_{x_{-i}}\pi(x_{-i}\mid x_i=a)\,P(y\mid x)")
    st.latex(r"\varepsilon_{LDP}=\max_{y,x,x'}\log\frac{P(y|x)}{P(y|x')},\qquad "
             r"q_i=\max_{a,a'}\mathrm{TV}\big(\pi(x_{-i}|x_i=a),\pi(x_{-i}|x_i=a')\big)")
    st.latex(r"\text{Prop. 4: } \delta_i\le\min\Big(c_i+\log\big(1+q_i(e^{\sum_{j\ne i}c_j}-1)\big),\ "
             r"c_i+\log(1+q_ie^{\varepsilon}-q_i),\ \varepsilon\Big),\qquad \text{Prop. 3: }\delta_i\le\varepsilon")
    st.latex(r"\text{Theorem 1: } e^{\delta_i}\alpha+\beta\ge1\ \text{ and }\ \alpha+e^{\delta_i}\beta\ge1\ \text{ for every test}")
    st.latex(r"\text{Prop. 6: } A[i,i]=\frac1{\delta_i},\ A[i,j]=\frac1{\log(1+(e^{\delta_i}-1)/q_i)},\quad A c\le 1")
