"""Mechanism lab: the catalogue of MAT 4376 lectures 17–20 (SPEC §6)."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hetdp_core import mechanisms as mc
from hetdp_core.dptest import histogram_privacy_test
from hetdp_ui.common import (
    PageState,
    Param,
    cached,
    csv_download,
    log_options,
    log_slider,
    numbers,
    parse_choice,
    parse_float,
    parse_float_list,
    parse_int,
    question,
    show_checks,
    show_input_error,
)
from hetdp_ui.nav import sidebar_nav

st.set_page_config(page_title="Mechanism lab — hetdp", layout="wide")
sidebar_nav()

EPS_GRID = log_options(0.05, 10.0, extra=(0.5, 1.0, 2.0))
DELTA_GRID = [1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1]
PRESETS = {
    "Custom": None,
    "Example 11: Pareto sample mean": dict(eps=0.5, delta=1e-5, n=1000, alpha=3.0, Lambda=50.0),
    "Example 29: election (15, 20, 25)": dict(scores="15,20,25", eps=1.0),
    "Example 22: born on Mars (count 0)": dict(bl_q=0.0, bl_lower=0.0, bl_upper=10.0, eps=1.0, delta=1e-3),
}
state = PageState("mech", presets=PRESETS, params={
    "preset": Param("Custom", parse_choice(list(PRESETS))),
    "eps": Param(0.5, parse_float(0.05, 10.0, allowed=EPS_GRID)),
    "delta": Param(1e-5, parse_float(1e-6, 0.1, allowed=DELTA_GRID)),
    "sens": Param(1.0, parse_float(0.001, 100.0)),
    "n": Param(1000, parse_int(10, 100_000)),
    "alpha": Param(3.0, parse_float(1.1, 10.0)),
    "Lambda": Param(50.0, parse_float(1.5, 1000.0)),
    "m": Param(400, parse_int(1, 99_999)),
    "eps1": Param(0.5, parse_float(0.01, 10.0)), "eps2": Param(0.3, parse_float(0.01, 10.0)),
    "eps3": Param(1.0, parse_float(0.01, 10.0)),
    "med_n": Param(11, parse_int(3, 201)),
    "scores": Param("15,20,25", parse_float_list(-1e6, 1e6, max_len=50)),
    "bl_q": Param(0.0, parse_float(-1e6, 1e6)),
    "bl_lower": Param(0.0, parse_float(-1e6, 1e6)),
    "bl_upper": Param(10.0, parse_float(-1e6, 1e6)),
    "trials": Param(2000, parse_int(100, 50_000)),
    "seed": Param(0, parse_int(0, 2**31 - 1)),
})


@cached(max_entries=32)
def cached_pareto(n, alpha, clip, eps_values, delta, trials, seed):
    return mc.pareto_mse(n=n, alpha=alpha, clip=clip, eps_values=eps_values, delta=delta, trials=trials, seed=seed)


@cached(max_entries=32)
def cached_bounded_b(sens, eps, delta, lower, upper):
    return mc.bounded_laplace_b(sensitivity=sens, eps=eps, delta=delta, lower=lower, upper=upper)


st.title("Mechanism lab")
question(
    "Which noise should I add, how much, and what do I get for it? Laplace, Gaussian and the mixed "
    "mechanism side by side; how privacy adds up over several queries; why calibrating noise to the "
    "data's *local* sensitivity leaks, and how smooth sensitivity fixes it; how to keep outputs "
    "realistic with bounded noise; and how to privately pick a winner."
)
state.init()
sb = st.sidebar
sb.selectbox("Preset", list(PRESETS), key=state.key("preset"), on_change=state.apply_preset)
eps = log_slider("ε", EPS_GRID, state.key("eps"))
delta = sb.select_slider("δ", DELTA_GRID, key=state.key("delta"), format_func=lambda v: f"{v:g}")
sb.number_input("sensitivity Δ (noise tab)", 0.001, 100.0, key=state.key("sens"))
sb.number_input("trials (simulations)", 100, 50_000, step=100, key=state.key("trials"))
sb.number_input("seed", 0, 2**31 - 1, key=state.key("seed"))
state.sync_url()
seed, trials = int(state["seed"]), int(state["trials"])

t1, t2, t3, t4, t5 = st.tabs(["Noise: Laplace, Gaussian, MNM", "Composition (Example 8)",
                              "Median: local vs smooth sensitivity", "Bounded Laplace", "Exponential mechanism"])

with t1:
    sens = state["sens"]
    z = np.linspace(-6 * sens / eps * 2, 6 * sens / eps * 2, 600)
    fig = go.Figure()
    rows = []
    for mech in ("laplace", "gaussian", "mnm"):
        try:
            dens = mc.noise_density(z, mech, sensitivity=sens, eps=eps, delta=delta)
            var = mc.noise_variance(mech, sensitivity=sens, eps=eps, delta=delta)
        except ValueError as exc:
            rows.append({"mechanism": mech, "variance": np.nan, "note": str(exc)})
            continue
        fig.add_trace(go.Scatter(x=z, y=dens, mode="lines", name=f"{mech} (analytic density)",
                                 line={"dash": "dash" if mech == "mnm" else "solid"}))
        rows.append({"mechanism": mech, "variance": var, "note": ""})
    fig.update_layout(template="plotly_white", xaxis_title="added noise", yaxis_title="density",
                      legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
    st.plotly_chart(fig, key="mech_density")
    csv_download(pd.DataFrame({"noise": z, **{tr.name: tr.y for tr in fig.data}}), "mech_noise_densities.csv",
                 "dl_mech_density", "Download the densities (CSV)")
    t0 = mc.mnm_threshold(eps=eps, delta=delta)
    st.caption(f"MNM adds Gaussian noise with σ² = 2(Δ/ε)² when Δ ≤ t0 = √π δ ε/2 = {t0:.3g}, else Laplace: "
               f"here Δ = {sens:g} → {'Gaussian' if sens <= t0 else 'Laplace'} branch. Its variance always equals "
               "Laplace's, far below the Gaussian mechanism's (which needs ε < 1).")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="mech_var_table")
    show_checks(mc.calibration_checks(sensitivity=sens, eps=eps, delta=delta))
    st.markdown("**Example 11 — Pareto sample mean**: data with density α x^{−α−1} (x > 1), clipped to "
                "[0, Λ] so that Δ = Λ/n; MSE of the noisy mean against the population mean α/(α−1).")
    c = st.columns(3)
    c[0].number_input("n", 10, 100_000, key=state.key("n"))
    c[1].slider("Pareto α", 1.1, 10.0, step=0.1, key=state.key("alpha"))
    c[2].number_input("clip Λ", 1.5, 1000.0, key=state.key("Lambda"))
    try:
        pm = cached_pareto(int(state["n"]), state["alpha"], state["Lambda"], tuple(EPS_GRID[::4]), delta,
                           min(trials, 5000), seed)
        figp = go.Figure()
        for mech, g in pm.groupby("mechanism"):
            figp.add_trace(go.Scatter(x=g["eps"], y=g["mse"], mode="lines+markers", name=f"{mech} (simulated MSE)"))
        g0 = pm.groupby("eps")["mse_nonprivate"].first()
        figp.add_trace(go.Scatter(x=g0.index, y=g0.values, mode="lines", name="no privacy (simulated)",
                                  line={"dash": "dot", "color": "#7f7f7f"}))
        figp.update_xaxes(type="log", title="ε")
        figp.update_yaxes(type="log", title="MSE of the noisy mean")
        figp.update_layout(template="plotly_white", legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
        st.plotly_chart(figp, key="mech_pareto")
        csv_download(pm, "mech_pareto_mse.csv", "dl_mech_pareto")
    except (ValueError, TypeError) as exc:
        show_input_error(exc)

with t2:
    c = st.columns(4)
    c[0].number_input("m (first part)", 1, 99_999, key=state.key("m"))
    c[1].number_input("ε1 (mean)", 0.01, 10.0, key=state.key("eps1"))
    c[2].number_input("ε2 (variance)", 0.01, 10.0, key=state.key("eps2"))
    c[3].number_input("ε3 (median)", 0.01, 10.0, key=state.key("eps3"))
    try:
        r = mc.example8(n=int(state["n"]), m=int(state["m"]), Lambda=state["Lambda"], eps1=state["eps1"],
                        eps2=state["eps2"], eps3=state["eps3"])
        tbl = pd.DataFrame({"query": ["mean of x₁..x_m", "variance of x₁..x_m", "median of x_{m+1}..x_n"],
                            "sensitivity": list(r["sensitivity"].values()), "Laplace scale Δ/ε": list(r["scale"].values()),
                            "ε": [state["eps1"], state["eps2"], state["eps3"]]})
        st.dataframe(tbl, hide_index=True, key="mech_comp_table")
        st.success(f"Sequential on the first part: ε1 + ε2 = {r['part1']:.3g}; parallel with the disjoint second "
                   f"part: max(ε1 + ε2, ε3) = **{r['total']:.3g}**-DP overall (n = {int(state['n'])}, Λ = {state['Lambda']:g}).")
        csv_download(tbl, "mech_example8.csv", "dl_mech_comp")
    except (ValueError, TypeError) as exc:
        show_input_error(exc)

with t3:
    st.slider("n (odd) for Example 12", 3, 201, step=2, key=state.key("med_n"))
    d1, d2 = mc.example12_datasets(n=int(state["med_n"]), Lambda=1.0)
    loc1, loc2 = mc.local_sensitivity_median(d1), mc.local_sensitivity_median(d2)
    out1 = mc.local_sensitivity_release(d1, eps=eps, size=trials, rng=seed)
    out2 = mc.local_sensitivity_release(d2, eps=eps, size=trials, rng=seed + 1)
    test = histogram_privacy_test(out1, out2, eps=eps, delta=delta, bins=20)
    rows = []
    for kind in ("laplace", "heavy", "gaussian"):
        r1 = mc.smooth_noise(d1, kind=kind, eps=eps, delta=max(delta, 1e-6), lower=0, upper=1, size=trials, rng=seed + 1)
        r2 = mc.smooth_noise(d2, kind=kind, eps=eps, delta=max(delta, 1e-6), lower=0, upper=1, size=trials, rng=seed + 2)
        tt = histogram_privacy_test(r1["releases"], r2["releases"], eps=eps, delta=delta if kind != "heavy" else 0.0,
                                    bins=20)
        rows.append({"noise": kind, "guarantee": r1["guarantee"], "β": r1["beta"], "S(dataset 1)": r1["S"],
                     "S(dataset 2)": r2["S"], "noise scale": r1["scale"],
                     "mean |error|": float(np.mean(np.abs(r1["releases"] - r1["median"]))),
                     "empirical test": "violation" if tt["violation"] else "no violation found"})
    c1, c2 = st.columns(2)
    with c1:
        fig = go.Figure()
        fig.add_trace(go.Histogram(x=out1, name="dataset 1: median + Lap(local/ε)", opacity=0.6, nbinsx=60))
        fig.add_trace(go.Histogram(x=out2, name="dataset 2 (neighbour): local sensitivity 0 → no noise", opacity=0.6,
                                   nbinsx=60))
        fig.update_layout(barmode="overlay", template="plotly_white", xaxis_title="released median",
                          legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
        st.plotly_chart(fig, key="mech_local")
    with c2:
        st.markdown(f"**Example 12.** Both datasets have median 0 and differ in one person; local sensitivity "
                    f"{loc1:g} vs {loc2:g}. Seeing any non-zero output proves it is dataset 1: "
                    f"the histogram test finds a privacy-loss lower bound of **{test['loss_lower_bound']:.3g}** "
                    f"({'VIOLATION' if test['violation'] else 'no violation'} of ({eps:g}, {delta:g})-DP).")
        st.markdown("**Example 21 / formula (4).** Smooth sensitivity is positive for both datasets, so calibrated "
                    "noise never vanishes:")
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="mech_smooth_table")
    csv_download(pd.DataFrame(rows), "mech_smooth_sensitivity.csv", "dl_mech_smooth")

with t4:
    c = st.columns(3)
    c[0].number_input("true value q", -1e6, 1e6, key=state.key("bl_q"))
    c[1].number_input("domain lower l", -1e6, 1e6, key=state.key("bl_lower"))
    c[2].number_input("domain upper u", -1e6, 1e6, key=state.key("bl_upper"))
    try:
        lo_, up_ = state["bl_lower"], state["bl_upper"]
        if not lo_ <= state["bl_q"] <= up_:
            raise ValueError(f"true value q must lie in the domain [l, u] = [{lo_:g}, {up_:g}]; got {state['bl_q']:g}.")
        b = cached_bounded_b(state["sens"], eps, delta, lo_, up_)
        show_checks(mc.calibration_checks(sensitivity=state["sens"], eps=eps, delta=delta,
                                          bounded=(b, lo_, up_))[-1:])
        v = np.linspace(lo_ - (up_ - lo_) * 0.3, up_ + (up_ - lo_) * 0.3, 800)
        figb = go.Figure()
        figb.add_trace(go.Scatter(x=v, y=mc.bounded_laplace_density(v, q=state["bl_q"], b=b, lower=lo_, upper=up_),
                                  mode="lines", name=f"bounded Laplace, b = {b:.4g} (analytic)"))
        b0 = state["sens"] / eps
        figb.add_trace(go.Scatter(x=v, y=np.exp(-np.abs(v - state["bl_q"]) / b0) / (2 * b0), mode="lines",
                                  name=f"plain Laplace, b = Δ/ε = {b0:.4g}", line={"dash": "dash"}))
        figb.add_vrect(x0=lo_, x1=up_, fillcolor="green", opacity=0.05, line_width=0)
        figb.update_layout(template="plotly_white", xaxis_title="output", yaxis_title="density",
                           legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
        st.plotly_chart(figb, key="mech_bounded")
        csv_download(pd.DataFrame({"output": v, **{tr.name: tr.y for tr in figb.data}}), "mech_bounded_laplace.csv",
                     "dl_mech_bounded", "Download the densities (CSV)")
        share = mc.laplace_outside_share(state["bl_q"], b=b0, lower=lo_, upper=up_, size=trials, rng=seed)
        st.markdown(f"Smallest b satisfying Theorem 26: **{b:.4g}** (plain Laplace: {b0:.4g}). Plain Laplace puts "
                    f"**{share['simulated']:.1%}** of outputs outside [{lo_:g}, {up_:g}] (simulated; exact "
                    f"{share['exact']:.1%}) — e.g. negative counts of people born on Mars (Example 22); the bounded "
                    "mechanism never does.")
    except (ValueError, TypeError) as exc:
        show_input_error(exc)

with t5:
    st.text_input("scores f(x, q) per candidate", key=state.key("scores"))
    try:
        sc = np.array(numbers(state["scores"], "scores"))
        pe = mc.exponential_probabilities(sc, eps=eps)
        pr = mc.report_noisy_max_probabilities(sc, eps=eps)
        w = mc.report_noisy_max_sample(sc, eps=eps, size=trials, rng=seed)
        ex_idx = mc.exponential_sample(sc, eps=eps, size=trials, rng=seed + 1)
        tbl = pd.DataFrame({"candidate": np.arange(1, sc.size + 1), "score": sc, "exponential (exact)": pe,
                            "exponential (simulated)": np.bincount(ex_idx, minlength=sc.size) / trials,
                            "noisy max (exact)": pr, "noisy max (simulated)": np.bincount(w, minlength=sc.size) / trials})
        fig = go.Figure()
        for col in tbl.columns[2:]:
            fig.add_bar(x=tbl["candidate"].astype(str), y=tbl[col], name=col)
        fig.update_layout(barmode="group", template="plotly_white", yaxis_title="probability of being selected",
                          xaxis_title="candidate", legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
        st.plotly_chart(fig, key="mech_exp")
        lb = mc.lemma28_bound(sc, eps=eps, t=np.linspace(0, 5, 11))
        st.dataframe(lb, hide_index=True, key="mech_lemma28")
        st.caption("Lemma 28: P(f(Q) < f* − 2Δ(ln d + t)/ε) ≤ e^{−t} (exact left side for the exponential mechanism).")
        csv_download(tbl, "mech_exponential.csv", "dl_mech_exp")
    except ValueError as exc:
        show_input_error(exc)

with st.expander("Formulas behind the numbers"):
    st.latex(r"\text{Laplace: } f(x)+\mathrm{Lap}(\Delta/\varepsilon),\ \mathrm{Var}=2(\Delta/\varepsilon)^2;\qquad "
             r"\text{Gaussian: } \sigma=c\Delta/\varepsilon,\ c^2>2\ln(1.25/\delta),\ \varepsilon<1")
    st.latex(r"\text{MNM: } N(0,2(\Delta/\varepsilon)^2)\,\mathbb 1\{\Delta\le t_0\}+\mathrm{Lap}(\Delta/\varepsilon)\,"
             r"\mathbb 1\{\Delta>t_0\},\quad t_0=\sqrt\pi\,\delta\varepsilon/2")
    st.latex(r"\text{sequential: }\textstyle\sum_i\varepsilon_i,\qquad \text{parallel: }\max_i\varepsilon_i")
    st.latex(r"\tilde S^*_{f,\beta}(x)=\max_{k}\ e^{-k\beta}\max_{t=0..k+1}(x_{m+t}-x_{m+t-k-1})")
    st.latex(r"\text{bounded Laplace: } b\ge\frac{\Delta}{\varepsilon-\log\Delta C(b)-\log(1-\delta)},\ "
             r"\Delta C=\frac{C_{l+\Delta}}{C_l},\ C_q=1-\tfrac12\big(e^{-(q-l)/b}+e^{-(u-q)/b}\big)")
    st.latex(r"P(Q=q)\propto\exp\Big(\frac{\varepsilon f(x,q)}{2\Delta}\Big);\qquad "
             r"\text{noisy max: }\arg\max_i f(x,q_i)+Z_i,\ Z_i\sim\mathrm{Exp}(\varepsilon/(2\Delta))")
