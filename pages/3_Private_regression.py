"""Private regression with BCDP — Algorithm 2 (SPEC §3)."""

from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from hetdp_core import regression as rg
from hetdp_ui.common import (
    PageState,
    Param,
    Progress,
    cached,
    csv_download,
    parse_choice,
    parse_float,
    parse_int,
    question,
    show_input_error,
)
from hetdp_ui.lab_figures import excess_risk_figure, trajectory_figure
from hetdp_ui.nav import sidebar_nav

st.set_page_config(page_title="Private regression (BCDP) — hetdp", layout="wide")
sidebar_nav()

N_GRID = [1000, 3000, 10_000, 30_000, 100_000]
DATA = Path(__file__).resolve().parents[1] / "data" / "randhie_persons.csv"
EPS_GRID = [1.0, 2.0, 4.0, 8.0, 16.0]
THETA = np.array([0.5, -0.3, 0.2, 0.1, -0.1, 0.05])
PRESETS = {
    "Custom": None,
    "Theorem 3 setting: 2 features, label last": dict(features=2, k=1, delta=2.0, eps=8.0, q=0.1, axis="n",
                                                      schedule="constant", gamma0=1.0),
    "Loose privacy: Algorithm 2 converges": dict(features=2, k=1, delta=6.0, eps=8.0, q=0.0, axis="n",
                                                 schedule="constant", gamma0=1.0),
    "Decaying learning rate γ0 (1+h)^−ρ": dict(schedule="poly", gamma0=1.5, rho=0.5),
}

state = PageState("reg", presets=PRESETS, params={
    "preset": Param("Custom", parse_choice(list(PRESETS))),
    "source": Param("synthetic", parse_choice(["synthetic", "RAND HIE (real)", "upload"])),
    "features": Param(2, parse_int(1, 6)),
    "noise": Param(0.1, parse_float(0.0, 1.0)),
    "q": Param(0.1, parse_float(0.0, 1.0)),
    "k": Param(1, parse_int(0, 6)),
    "delta": Param(2.0, parse_float(0.1, 20.0)),
    "eps": Param(8.0, parse_float(0.1, 20.0)),
    "radius": Param(1.0, parse_float(0.1, 10.0)),
    "schedule": Param("constant", parse_choice(list(rg.SCHEDULES))),
    "gamma0": Param(1.0, parse_float(0.01, 1.99)),
    "rho": Param(0.5, parse_float(0.05, 1.0)),
    "lam": Param(0.05, parse_float(0.001, 10.0)),
    "steps": Param(200, parse_int(10, 2000)),
    "axis": Param("n", parse_choice(["n", "eps"])),
    "n": Param(30_000, parse_int(1000, 100_000)),
    "trials": Param(6, parse_int(2, 40)),
    "seed": Param(0, parse_int(0, 2**31 - 1)),
})


@cached(max_entries=64)
def cached_sweep(axis, values, n, theta, noise, q, k, delta, eps, radius, schedule, gamma0, steps, rho, lam,
                 trials, seed, data):
    x = None if data is None else rg.load_regression_csv(data)
    return rg.excess_risk_sweep(axis=axis, values=values, n=n, theta=theta, noise=noise, q=q, k_sensitive=k,
                                delta=delta, eps=eps, radius=radius, schedule=schedule, gamma0=gamma0,
                                steps=steps, rho=rho, lam=lam, trials=trials, seed=seed, x=x)


@cached(max_entries=32)
def cached_fit(n, theta, noise, q, k, delta, eps, radius, schedule, gamma0, steps, rho, lam, seed, data):
    if data is None:
        x = rg.regression_data(n=n, theta=theta, noise=noise, q=q, rng=seed)
    else:
        x = rg.load_regression_csv(data)
    d = x.shape[1]
    dem = [delta] * k + [eps] * (d - 1 - k) + [eps]
    return rg.fit(x=x, delta=dem, eps=eps, q=q, radius=radius, schedule=schedule, gamma0=gamma0, steps=steps,
                  rho=rho, lam=lam, trials=1, rng=seed + 1)


st.title("Private regression (BCDP)")
question(
    "Can a server fit a least-squares model when every user randomises their own record, with "
    "stricter privacy for some features? Algorithm 2 has every user send *two* independent noisy "
    "copies, so that products of copies give an unbiased gradient. How fast does the fit approach "
    "the non-private one as the number of users grows — and what goes wrong with one copy, or with "
    "protecting everything at the strictest level?"
)
state.init()
sb = st.sidebar
sb.selectbox("Preset", list(PRESETS), key=state.key("preset"), on_change=state.apply_preset)
sb.radio("data", ["synthetic", "RAND HIE (real)", "upload"], key=state.key("source"), horizontal=True,
         on_change=state.mark_custom, help="RAND HIE: income ~ age + chronic-disease index (data/README.md)")
data = None
if state["source"] == "RAND HIE (real)":
    data = rg.randhie_regression_bytes(DATA)
elif state["source"] == "upload":
    upload = sb.file_uploader("your data (CSV, label last)", type=["csv"], key="reg_upload",
                              help="Numeric columns with a header; each column is rescaled to [-1, 1]. At most 20 MB.")
    data = upload.getvalue() if upload is not None else None
    if data is None:
        st.info("Upload a CSV (numeric columns, label last) to fit your own data.")
if data is None:
    sb.slider("features (label is the extra, last coordinate)", 1, 6, key=state.key("features"), on_change=state.mark_custom)
    sb.slider("label noise", 0.0, 1.0, step=0.05, key=state.key("noise"))
sb.slider("q — correlation between features", 0.0, 1.0, step=0.05, key=state.key("q"), on_change=state.mark_custom)
feat = state["features"] if data is None else None
sb.slider("sensitive features (demand δ)", 0, 6, key=state.key("k"), on_change=state.mark_custom)
sb.slider("δ — demand of sensitive features", 0.1, 20.0, step=0.1, key=state.key("delta"), on_change=state.mark_custom)
sb.slider("ε — global LDP level (other features and label)", 0.1, 20.0, step=0.1, key=state.key("eps"),
          on_change=state.mark_custom)
sb.slider("R — radius of Θ", 0.1, 10.0, step=0.1, key=state.key("radius"))
sb.selectbox("learning-rate schedule", list(rg.SCHEDULES), key=state.key("schedule"), on_change=state.mark_custom,
             format_func={"constant": "constant γ0", "poly": "γ0 (1+h)^−ρ", "inverse": "γ0 / (1+λh)"}.get)
sb.slider("γ0 (in units of 1/L)", 0.01, 1.99, step=0.01, key=state.key("gamma0"), on_change=state.mark_custom)
if state["schedule"] == "poly":
    sb.slider("ρ", 0.05, 1.0, step=0.05, key=state.key("rho"))
if state["schedule"] == "inverse":
    sb.slider("λ", 0.001, 10.0, step=0.001, key=state.key("lam"))
sb.slider("gradient steps", 10, 2000, step=10, key=state.key("steps"))
sb.radio("excess risk against", ["n", "eps"], key=state.key("axis"), horizontal=True,
         format_func={"n": "users n", "eps": "ε"}.get)
sb.select_slider("n (trajectory; users when sweeping ε)", N_GRID, key=state.key("n"))
sb.number_input("trials per point", 2, 40, key=state.key("trials"))
sb.number_input("seed", 0, 2**31 - 1, key=state.key("seed"))
state.sync_url()

theta = tuple(THETA[: state["features"]]) if data is None else (0.0,)
try:
    n_feat = state["features"] if data is None else rg.load_regression_csv(data).shape[1] - 1
except (ValueError, TypeError) as exc:
    show_input_error(exc)
    st.stop()
k = min(state["k"], n_feat)
if k < state["k"]:
    st.caption(f"The data have {n_feat} feature(s): {k} of them carry the sensitive demand δ.")
common = dict(theta=theta, noise=state["noise"], q=state["q"], k=k, delta=state["delta"], eps=state["eps"],
              radius=state["radius"], schedule=state["schedule"], gamma0=state["gamma0"], steps=int(state["steps"]),
              rho=state["rho"], lam=state["lam"])
try:
    res = cached_fit(state["n"], **common, seed=int(state["seed"]), data=data)
except (ValueError, TypeError) as exc:
    show_input_error(exc)
    st.stop()

st.subheader("One private fit: distance to the non-private optimum along gradient descent")
ref = res["_reference"][0]
trajs = {m: runs[0].trajectory for m, runs in res.items() if not m.startswith("_")}
st.plotly_chart(trajectory_figure(trajs, ref.theta), key="reg_traj")
csv_download(pd.DataFrame({m: np.linalg.norm(tr - ref.theta, axis=1) for m, tr in trajs.items() if tr is not None}
                          ).rename_axis("step").reset_index(), "regression_trajectory.csv", "dl_reg_traj",
             "Download the trajectory (CSV)")
for m, runs in res.items():
    if m.startswith("_"):
        continue
    r = runs[0]
    if not r.convex:
        st.warning(f"**{m}**: {r.message}")
alloc = res["_allocation"]
st.caption(f"Non-private reference: {ref.message}, θ* = ({', '.join(f'{v:.3g}' for v in ref.theta)}). "
           "Steps are γ_h / L with L the largest eigenvalue of the server's Â. Theorem 2 allocation c = ("
           + ", ".join(f"{v:.3g}" for v in alloc.c) + f") for (features…, label); LDP level c_d = "
           f"{alloc.ldp_level:.3g} — ε only matters once correlation no longer caps c_d below it.")

st.subheader(f"Excess risk vs {'number of users' if state['axis'] == 'n' else 'ε'}")
values = tuple(float(v) for v in (N_GRID if state["axis"] == "n" else EPS_GRID))
prog = Progress()
try:
    parts = []
    for j, v in enumerate(values):
        prog(j / len(values), f"{state['axis']} = {v:g}")
        parts.append(cached_sweep(state["axis"], (v,), state["n"], **common, trials=int(state["trials"]),
                                  seed=int(state["seed"]), data=data))
except (ValueError, TypeError) as exc:
    prog.done()
    show_input_error(exc)
    st.stop()
prog.done()
table = pd.concat(parts, ignore_index=True)
st.plotly_chart(excess_risk_figure(table, state["axis"]), key="reg_risk")
stopped = table.groupby("method")["nonconvex"].sum()
st.caption("Simulated: median and 25–75 % band over the runs where f̂ was convex. Runs stopped because f̂ "
           "was not convex: " + ", ".join(f"{m}: {int(v)}" for m, v in stopped.items()) + ". "
           "The naive single-copy plug-in is always convex but biased: its excess risk does not vanish "
           "with n.")
csv_download(table, "regression_excess_risk.csv", "dl_reg_risk")

with st.expander("Formulas behind the curves"):
    st.markdown("Each user sends two independent copies $\\hat x^{(i,1)},\\hat x^{(i,2)}=M_{mean}(x^{(i)}, c/2)$ "
                "(Mechanism 1 without projection, so each copy is unbiased); the server minimises")
    st.latex(r"\hat f(\theta)=\frac1{2n}\sum_i\Big(\theta^\top\hat z^{(i,1)}\hat z^{(i,2)\top}\theta"
             r"-2\theta^\top\hat l^{(i,1)}\hat z^{(i,2)}\Big),\qquad \mathbb E\,\nabla\hat f(\theta)=\nabla f(\theta)")
    st.markdown("by projected gradient descent over $\\Theta=\\{\\|\\theta\\|\\le R\\}$:")
    st.latex(r"\theta_{h+1}=\Pi_\Theta\big(\theta_h-\tfrac{\gamma_h}{L}\nabla\hat f(\theta_h)\big),\quad "
             r"\gamma_h\in\{\gamma_0,\ \gamma_0(1+h)^{-\rho},\ \gamma_0/(1+\lambda h)\}")
    st.markdown("Naive plug-in: one copy at c, $\\frac1n\\sum\\hat z\\hat z^\\top$ whose mean adds the channel's noise "
                "covariance. min-δ LDP: the same two-copy estimator with every coordinate at min δ. Excess risk "
                "$f(\\hat\\theta)-f^*$ on the non-private data; Theorem 3 bounds it by")
    st.latex(r"\max_{\theta\in\Theta}(\|\theta\|^2+\|\theta\|)\Big(\frac{\log d}{\sqrt n}(r^2+rd)\wedge d\Big),\quad "
             r"r^2=\sum_i\frac1{\sum_{k\le i}(c_k-c_{k-1})^2/(d-k+1)}")
