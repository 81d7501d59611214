"""DP-SGD schedules: learning-rate and privacy schedules."""

import streamlit as st

from hetdp_core.per_iteration import dpsgd as sg
from hetdp_core.scenarios import dp_sgd_schedules as ds
from hetdp_ui import common as ui

with ui.page_shell(ds) as page:
    state = page.state
    sb = st.sidebar
    state.choice("lr", widget="selectbox", on_change=state.mark_custom)
    state.number("gamma0", step=0.01)
    if state["lr"] == "poly":
        state.slider("rho", step=0.05, on_change=state.mark_custom)
    elif state["lr"] == "step":
        state.number("step_every")
        state.slider("factor", step=0.05)
    elif state["lr"] == "custom":
        state.text("custom")
    state.choice("priv", horizontal=True, on_change=state.mark_custom)
    if state["priv"] == "power":
        state.slider("kappa", step=0.05, on_change=state.mark_custom)
    state.slider("eps", step=0.05)
    state.choice("problem", horizontal=True)
    if state["problem"] == "mean":
        state.slider("Lambda", step=0.5)
    else:
        state.slider("lam", step=0.05)
    state.grid("steps", ds.STEP_OPTIONS)
    state.number("trials", step=5)
    state.check("compare")
    state.number("seed")

    result = page.run()
    scenario = page.scenario
    sens, target = result.sensitivity, result.target
    kappa = scenario.used_kappa
    ui.show_checks(result.checks)
    c1, c2 = st.columns(2)
    with c1:
        st.subheader("Noise scale θ_h and per-release guarantee")
        page.chart("theta")
        ui.csv_download(
            result.dpsgd_schedule, "dpsgd_schedule.csv", state.key("dl_theta"), "Download the schedule (CSV)"
        )
    with c2:
        st.subheader("Where the privacy term vanishes: 2κ + ρ > 2")
        page.chart("region")
        ui.csv_download(result.dpsgd_region, "dpsgd_region.csv", state.key("dl_region"), "Download the region (CSV)")
        if state["lr"] != "poly":
            st.caption("The (ρ, κ) criterion is for γ_h = γ0 (1+h)^−ρ; choose that schedule to place your point.")
        else:
            st.dataframe(
                result.dpsgd_region.iloc[[0]][["your_rho", "your_kappa", "2κ + ρ", "your_point_converges"]],
                hide_index=True,
                key=state.key("your_point"),
                column_config={
                    "your_rho": "your ρ",
                    "your_kappa": "your κ",
                    "your_point_converges": st.column_config.CheckboxColumn("in the region (2κ + ρ > 2)"),
                },
            )

    st.subheader("Bound terms of (11) vs N (C = 1: shapes)")
    bt, slopes = result.dpsgd_bound_terms, result.slopes
    page.chart("bound_terms")
    pred = (
        f"; the lecture predicts A3 ∝ N^(2−ρ−2κ) = N^{2 - state['rho'] - 2 * kappa:.3g}"
        if state["lr"] == "poly"
        else ""
    )
    st.markdown(
        "Fitted log–log slopes (upper half of the log range of N): "
        + ", ".join(f"{k}: **{v:.3g}**" for k, v in slopes.items())
        + pred
        + ". (The prediction assumes 2 − 2ρ − 2κ > −1; below that the sum Σγ²θ² converges or grows like log N.)"
    )
    ui.csv_download(result.dpsgd_bound_terms, "dpsgd_bound_terms.csv", state.key("dl_bounds"))

    st.subheader(
        "Simulated trajectories: "
        + ("Example 33 (mean of Exp data)" if state["problem"] == "mean" else "Example 34 (ridge)")
    )
    with st.container():  # however many notes, one element here: the elements below keep their places
        for note in result.notes:  # e.g. a learning rate so large that the iteration diverges (simulated)
            st.warning(note)
    page.chart("trajectories")
    st.caption(
        f"Batch size 1, standard Laplace noise scaled by θ_h; gradient sensitivity Δ = {sens:g} "
        + (
            "(2Λ for data clipped to [0, Λ])."
            if state["problem"] == "mean"
            else f"(ℓ1 bound 4(1 + 2R) for data in [−1,1]² and β kept in [−R, R]², R = {sg.RIDGE_RADIUS:g})."
        )
        + f" β* = ({', '.join(f'{v:.4g}' for v in target)})."
    )
    ui.csv_download(result.dpsgd_trajectories, "dpsgd_trajectories.csv", state.key("dl_traj"))

    page.meaning_and_report()

    with ui.formulas("DP_SGD_schedules") as shown:
        if shown:
            st.latex(
                r"\beta^{(h)}=\beta^{(h-1)}-\gamma_{h-1}\big(\nabla L_{\Omega_h}(\beta^{(h-1)})+\theta_hZ_h\big),\quad Z_h\sim\mathrm{Lap}(0,1)^p"  # noqa: E501 (one LaTeX formula)
            )
            st.latex(
                r"\theta_1=\frac{\Delta}{\varepsilon},\qquad \theta_h=\frac1{a_h}\Big(\frac{\sum_{j=0}^{h-2}\gamma_j}{\gamma_{h-1}}+1\Big)"  # noqa: E501 (one LaTeX formula)
                r"\frac{\Delta}{\varepsilon}\quad\Rightarrow\quad "
                r"\text{release } h \text{ is } \varepsilon a_h\text{-DP}"
            )
            st.latex(
                r"\mathbb E[f(\bar\beta^{(N)})-f^*]\le"
                r"\underbrace{\frac{\|\beta^{(0)}-\hat\beta_*\|^2}{\sum\gamma_j}}_{A_1}"
                r"+\underbrace{C\frac{\sum\gamma_j^2}{\sum\gamma_j}}_{A_2}+\underbrace{C\frac{\sum\gamma_j^2\theta_j^2}{\sum\gamma_j}}_{A_3}"
            )
            st.latex(
                r"\gamma_h=(1+h)^{-\rho},\ a_h=h^\kappa:\quad A_3\approx N^{2-\rho-2\kappa}\to0\iff 2\kappa+\rho>2"
            )
