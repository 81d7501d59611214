"""DP-SGD schedules: learning-rate and privacy schedules (SPEC §6, Theorems 36–37)."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from hetdp_core import dpsgd as sg
from hetdp_ui.common import (
    PageState,
    Param,
    Progress,
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
from hetdp_ui.figures import rgba
from hetdp_ui.nav import sidebar_nav

st.set_page_config(page_title="DP-SGD schedules — hetdp", layout="wide")
sidebar_nav()

PRESETS = {
    "Custom": None,
    "Lecture: γ = (1+h)^−½, constant privacy (κ = 0): diverges": dict(lr="poly", rho=0.5, priv="constant", kappa=0.0),
    "Lecture: γ = (1+h)^−½, a_h = h^0.8: converges": dict(lr="poly", rho=0.5, priv="power", kappa=0.8),
    "Constant learning rate (SGD does not converge)": dict(lr="constant", priv="power", kappa=1.0),
}
state = PageState("sgd", presets=PRESETS, params={
    "preset": Param("Custom", parse_choice(list(PRESETS))),
    "lr": Param("poly", parse_choice(list(sg.LR_SCHEDULES))),
    "gamma0": Param(0.1, parse_float(0.001, 2.0)),
    "rho": Param(0.5, parse_float(0.05, 1.0)),
    "step_every": Param(200, parse_int(1, 100_000)),
    "factor": Param(0.5, parse_float(0.05, 1.0)),
    "custom": Param("0.1,0.05,0.02,0.01", parse_float_list(1e-6, 10.0, max_len=1000)),
    "priv": Param("power", parse_choice(["constant", "power"])),
    "kappa": Param(0.8, parse_float(0.0, 3.0)),
    "eps": Param(1.0, parse_float(0.05, 20.0)),
    "problem": Param("mean", parse_choice(["mean", "ridge"])),
    "Lambda": Param(3.0, parse_float(0.5, 50.0)),
    "lam": Param(0.1, parse_float(0.0, 10.0)),
    "steps": Param(2000, parse_int(10, 50_000)),
    "runs": Param(100, parse_int(5, 1000)),
    "compare": Param(True, parse_bool, dump_bool),
    "seed": Param(0, parse_int(0, 2**31 - 1)),
})


@cached(max_entries=64)
def cached_schedules(lr, gamma0, rho, step_every, factor, custom, priv, kappa, eps, sens, steps):
    g = sg.learning_rates(schedule=lr, steps=steps, gamma0=gamma0, rho=rho, step_every=step_every,
                          factor=factor, custom=list(custom) if lr == "custom" else None)
    a = sg.privacy_schedule(kind=priv, steps=steps, kappa=kappa)
    th = sg.theta(gammas=g, a=a, sensitivity=sens, eps=eps)
    return g, a, th


def problem_setup(problem, Lambda, lam, seed):
    """Data, gradient sensitivity and β* for the chosen example (drawn from the seed)."""
    rng = np.random.default_rng([seed, 0])
    if problem == "mean":
        x = sg.example33_data(n=1000, Lambda=Lambda, rng=rng)
    else:
        x = sg.example34_data(n=1000, rng=rng)
    sens = sg.gradient_sensitivity(problem=problem, Lambda=Lambda)
    return x, sens, sg.reference_optimum(problem=problem, data=x, lam=lam)


@cached(max_entries=64)
def cached_method(method, problem, Lambda, lam, lr, gamma0, rho, step_every, factor, custom, priv, kappa, eps, steps,
                  runs, seed):
    """Trajectory bands of one method ("DP-SGD", "DP-SGD, a_h = 1", "SGD (no noise)", "GD (full gradient)")."""
    x, sens, target = problem_setup(problem, Lambda, lam, seed)
    if method == "DP-SGD, a_h = 1":
        priv, kappa = "constant", 0.0
    g, _, th = cached_schedules(lr, gamma0, rho, step_every, factor, custom, priv, kappa, eps, sens, steps)
    kind = {"SGD (no noise)": "sgd", "GD (full gradient)": "gd"}.get(method, "dpsgd")
    traj = sg.simulate(problem=problem, data=x, gammas=g, thetas=th, runs=1 if kind == "gd" else runs, method=kind,
                       lam=lam, rng=np.random.default_rng([seed, 1 + ["DP-SGD", "DP-SGD, a_h = 1", "SGD (no noise)",
                                                                      "GD (full gradient)"].index(method)]))
    return sg.trajectory_bands(traj, target)


st.title("DP-SGD schedules")
question(
    "Private stochastic gradient descent adds noise at every step. How should the learning rate and "
    "the per-step privacy level change over the iterations so that the algorithm stays private *and* "
    "still converges? The lecture's answer: with γ_h = (1+h)^−ρ and a_h = h^κ, the privacy term of the "
    "error bound vanishes exactly when 2κ + ρ > 2 — at the price of a per-release guarantee ε·h^κ that "
    "weakens over time."
)
state.init()
sb = st.sidebar
sb.selectbox("Preset", list(PRESETS), key=state.key("preset"), on_change=state.apply_preset)
sb.selectbox("learning-rate schedule", list(sg.LR_SCHEDULES), key=state.key("lr"), on_change=state.mark_custom,
             format_func={"constant": "constant γ0", "poly": "γ0 (1+h)^−ρ", "step": "step decay",
                          "custom": "custom list"}.get)
sb.number_input("γ0", 0.001, 2.0, step=0.01, key=state.key("gamma0"), format="%.3f")
if state["lr"] == "poly":
    sb.slider("ρ", 0.05, 1.0, step=0.05, key=state.key("rho"), on_change=state.mark_custom)
elif state["lr"] == "step":
    sb.number_input("decay every (steps)", 1, 100_000, key=state.key("step_every"))
    sb.slider("decay factor", 0.05, 1.0, step=0.05, key=state.key("factor"))
elif state["lr"] == "custom":
    sb.text_input("learning rates (repeats the last)", key=state.key("custom"))
sb.radio("privacy schedule a_h", ["constant", "power"], key=state.key("priv"), horizontal=True,
         format_func={"constant": "constant 1", "power": "h^κ"}.get, on_change=state.mark_custom)
if state["priv"] == "power":
    sb.slider("κ", 0.0, 3.0, step=0.05, key=state.key("kappa"), on_change=state.mark_custom)
sb.slider("ε (per-release level ε·a_h)", 0.05, 20.0, step=0.05, key=state.key("eps"))
sb.radio("problem", ["mean", "ridge"], key=state.key("problem"), horizontal=True,
         format_func={"mean": "Example 33: mean", "ridge": "Example 34: ridge"}.get)
if state["problem"] == "mean":
    sb.slider("clip Λ (Exp data in [0, Λ])", 0.5, 50.0, step=0.5, key=state.key("Lambda"))
else:
    sb.slider("ridge λ", 0.0, 10.0, step=0.05, key=state.key("lam"))
sb.select_slider("iterations N", [100, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000], key=state.key("steps"))
sb.number_input("runs", 5, 1000, step=5, key=state.key("runs"))
sb.checkbox("compare with plain SGD and GD", key=state.key("compare"))
sb.number_input("seed", 0, 2**31 - 1, key=state.key("seed"))
state.sync_url()

try:
    custom = tuple(numbers(state["custom"], "custom learning rates"))
    kappa = state["kappa"] if state["priv"] == "power" else 0.0
    if int(state["runs"]) * int(state["steps"]) * (4 if state["compare"] else 2) > 8_000_000:
        raise ValueError(f"compute size: runs × N = {int(state['runs']) * int(state['steps']):,} is too large for "
                         "the page (limit 2e6 with comparisons). Reduce runs or N.")
    methods = ["DP-SGD"] + (["DP-SGD, a_h = 1"] if state["priv"] == "power" and kappa > 0 else []) + (
        ["SGD (no noise)", "GD (full gradient)"] if state["compare"] else [])
    _, sens, target = problem_setup(state["problem"], state["Lambda"], state["lam"], int(state["seed"]))
    prog = Progress()
    sims = {}
    for i, m in enumerate(methods):
        prog(i / len(methods), m)
        sims[m] = cached_method(m, state["problem"], state["Lambda"], state["lam"], state["lr"], state["gamma0"],
                                state["rho"], int(state["step_every"]), state["factor"], custom, state["priv"], kappa,
                                state["eps"], int(state["steps"]), int(state["runs"]), int(state["seed"]))
    prog.done()
    g, a, th = cached_schedules(state["lr"], state["gamma0"], state["rho"], int(state["step_every"]), state["factor"],
                                custom, state["priv"], kappa, state["eps"], sens, int(state["steps"]))
except ValueError as exc:
    show_input_error(exc)
    st.stop()

show_checks(sg.theta_checks(thetas=th, a=a, sensitivity=sens, eps=state["eps"]))
h = np.arange(1, g.size + 1)
c1, c2 = st.columns(2)
with c1:
    st.subheader("Noise scale θ_h and per-release guarantee")
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=h, y=th, mode="lines", name="θ_h (Theorem 36, exact sums)"))
    fig.add_trace(go.Scatter(x=h, y=state["eps"] * a, mode="lines", name="release h is ε·a_h-DP", yaxis="y2",
                             line={"dash": "dash"}))
    fig.update_layout(template="plotly_white", xaxis={"type": "log", "title": "iteration h"},
                      yaxis={"type": "log", "title": "θ_h"},
                      yaxis2={"type": "log", "title": "ε·a_h", "overlaying": "y", "side": "right", "showgrid": False},
                      legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
    st.plotly_chart(fig, key="sgd_theta")
    csv_download(pd.DataFrame({"h": h, "gamma": g, "a": a, "theta": th, "eps_release": state["eps"] * a}),
                 "dpsgd_schedule.csv", "dl_sgd_theta", "Download the schedule (CSV)")
with c2:
    st.subheader("Where the privacy term vanishes: 2κ + ρ > 2")
    rr = np.linspace(0, 1, 101)
    fig2 = go.Figure()
    fig2.add_trace(go.Scatter(x=np.r_[rr, rr[::-1]], y=np.r_[np.maximum(1 - rr / 2, 0), np.full(rr.size, 3.0)],
                              fill="toself", fillcolor=rgba("#2ca02c", 0.2), line={"width": 0},
                              name="2κ + ρ > 2: A3 → 0 (converges)"))
    fig2.add_trace(go.Scatter(x=rr, y=1 - rr / 2, mode="lines", line={"color": "#2ca02c"}, name="2κ + ρ = 2"))
    if state["lr"] == "poly":
        ok = bool(sg.region(state["rho"], kappa))
        fig2.add_trace(go.Scatter(x=[state["rho"]], y=[kappa], mode="markers", name="your (ρ, κ)",
                                  marker={"size": 14, "color": "#1f77b4" if ok else "#d62728", "symbol": "star"}))
    fig2.update_layout(template="plotly_white", xaxis_title="ρ (learning-rate decay)", yaxis_title="κ (privacy decay)",
                       xaxis_range=[0, 1], yaxis_range=[0, 3], legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
    st.plotly_chart(fig2, key="sgd_region")
    csv_download(pd.DataFrame({"rho": rr, "kappa_boundary (2κ+ρ=2)": 1 - rr / 2,
                               "your_rho": state["rho"], "your_kappa": kappa,
                               "your_point_converges": bool(sg.region(state["rho"], kappa))}),
                 "dpsgd_region.csv", "dl_sgd_region", "Download the region (CSV)")
    if state["lr"] != "poly":
        st.caption("The (ρ, κ) criterion is for γ_h = γ0 (1+h)^−ρ; choose that schedule to place your point.")

st.subheader("Bound terms of (11) vs N (C = 1: shapes)")
bt = sg.bound_terms(gammas=g, thetas=th, dist0=float(np.sum(target**2)))
slopes = {}
fig3 = go.Figure()
for col, name in (("A1", "A1 = ‖β0−β*‖²/Σγ"), ("A2", "A2 = Σγ²/Σγ"), ("A3", "A3 = Σγ²θ²/Σγ (privacy)")):
    fig3.add_trace(go.Scatter(x=bt["N"], y=bt[col], mode="lines", name=name))
    try:
        slopes[col] = sg.fitted_slope(bt["N"], bt[col])
    except ValueError:
        slopes[col] = float("nan")
fig3.update_layout(template="plotly_white", xaxis={"type": "log", "title": "N"}, yaxis={"type": "log"},
                   legend={"orientation": "h", "y": -0.25}, margin={"t": 10})
st.plotly_chart(fig3, key="sgd_bounds")
pred = f"; the lecture predicts A3 ∝ N^(2−ρ−2κ) = N^{2 - state['rho'] - 2 * kappa:.3g}" if state["lr"] == "poly" else ""
st.markdown("Fitted log–log slopes (upper half of the log range of N): " + ", ".join(f"{k}: **{v:.3g}**" for k, v in slopes.items()) + pred
            + ". (The prediction assumes 2 − 2ρ − 2κ > −1; below that the sum Σγ²θ² converges or grows like log N.)")
csv_download(bt, "dpsgd_bound_terms.csv", "dl_sgd_bounds")

st.subheader(f"Simulated trajectories: {'Example 33 (mean of Exp data)' if state['problem'] == 'mean' else 'Example 34 (ridge)'}")
colors = {"DP-SGD": "#1f77b4", "DP-SGD, a_h = 1": "#d62728", "SGD (no noise)": "#ff7f0e",
          "GD (full gradient)": "#2ca02c"}
fig4 = go.Figure()
for name, band in sims.items():
    col = colors[name]
    fig4.add_trace(go.Scatter(x=np.r_[band["h"], band["h"][::-1]], y=np.r_[band["q90"], band["q10"][::-1]],
                              fill="toself", fillcolor=rgba(col, 0.15), line={"width": 0}, hoverinfo="skip",
                              name=f"{name}: 10–90 %", showlegend=False))
    fig4.add_trace(go.Scatter(x=band["h"], y=band["median"], mode="lines", line={"color": col},
                              name=f"{name}: median over runs (simulated)"))
fig4.update_layout(template="plotly_white", xaxis={"type": "log", "title": "iteration h"},
                   yaxis={"type": "log", "title": "‖β^(h) − β*‖"}, legend={"orientation": "h", "y": -0.25},
                   margin={"t": 10})
st.plotly_chart(fig4, key="sgd_traj")
st.caption(f"Batch size 1, standard Laplace noise scaled by θ_h; gradient sensitivity Δ = {sens:g} "
           + ("(2Λ for data clipped to [0, Λ])." if state["problem"] == "mean" else
              "(ℓ1 bound for data in [−1,1]² and β kept in [−5, 5]²).")
           + f" β* = ({', '.join(f'{v:.4g}' for v in target)}).")
csv_download(pd.concat([b.assign(method=k) for k, b in sims.items()]), "dpsgd_trajectories.csv", "dl_sgd_traj")

with st.expander("Formulas behind the curves"):
    st.latex(r"\beta^{(h)}=\beta^{(h-1)}-\gamma_{h-1}\big(\nabla L_{\Omega_h}(\beta^{(h-1)})+\theta_hZ_h\big),\quad Z_h\sim\mathrm{Lap}(0,1)^p")
    st.latex(r"\theta_1=\frac{\Delta}{\varepsilon},\qquad \theta_h=\frac1{a_h}\Big(\frac{\sum_{j=0}^{h-2}\gamma_j}{\gamma_{h-1}}+1\Big)"
             r"\frac{\Delta}{\varepsilon}\quad\Rightarrow\quad \text{release } h \text{ is } \varepsilon a_h\text{-DP}")
    st.latex(r"\mathbb E[f(\bar\beta^{(N)})-f^*]\le\underbrace{\frac{\|\beta^{(0)}-\hat\beta_*\|^2}{\sum\gamma_j}}_{A_1}"
             r"+\underbrace{C\frac{\sum\gamma_j^2}{\sum\gamma_j}}_{A_2}+\underbrace{C\frac{\sum\gamma_j^2\theta_j^2}{\sum\gamma_j}}_{A_3}")
    st.latex(r"\gamma_h=(1+h)^{-\rho},\ a_h=h^\kappa:\quad A_3\approx N^{2-\rho-2\kappa}\to0\iff 2\kappa+\rho>2")
