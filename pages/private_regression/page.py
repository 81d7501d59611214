"""Private regression with BCDP — Algorithm 2."""

import streamlit as st

from hetdp_core.materials.uploads import MAX_UPLOAD_MB
from hetdp_core.scenarios import private_regression as pr
from hetdp_ui import common as ui

with ui.page_shell(pr) as page:
    state = page.state

    N_GRID = list(pr.N_GRID)
    sb = st.sidebar
    state.choice(
        "source",
        horizontal=True,
        on_change=state.mark_custom,
        help="RAND HIE: income ~ age + chronic-disease index (data/README.md)",
    )
    upload = None
    if state["source"] == "upload":
        up = sb.file_uploader(
            "your data (CSV, label last)",
            type=["csv"],
            key=state.key("upload"),
            help=f"Numeric columns with a header; each column is rescaled to [-1, 1]. At most {MAX_UPLOAD_MB} MB.",
        )
        upload = up.getvalue() if up is not None else None
        if upload is None:
            st.info("Upload a CSV (numeric columns, label last) to fit your own data.")
    data = upload if state["source"] == "upload" else (b"" if state["source"] != "synthetic" else None)
    if data is None:
        state.slider("features", on_change=state.mark_custom)
        state.slider("noise", step=0.05)
    state.slider("q", step=0.05, on_change=state.mark_custom)
    state.slider("k", on_change=state.mark_custom)
    state.slider("demand", step=0.1, on_change=state.mark_custom)
    state.slider("eps", step=0.1, on_change=state.mark_custom)
    state.slider("radius", step=0.1)
    state.choice("schedule", widget="selectbox", on_change=state.mark_custom)
    state.slider("gamma0", step=0.01, on_change=state.mark_custom)
    if state["schedule"] == "poly":
        state.slider("rho", step=0.05)
    if state["schedule"] == "inverse":
        state.slider("decay", step=0.001)
    state.slider("steps", step=10)
    state.choice("axis", horizontal=True)
    state.grid("n", N_GRID)
    state.number("trials")
    state.number("seed")

    if state["source"] == "upload" and upload is None:
        st.stop()
    result = page.run(upload=upload)
    with st.container():  # however many notes, one element here (see the warnings below)
        for note in result.notes:
            (st.warning if note.startswith("Assumption 1 does not hold") else st.caption)(note)

    # the guarantee first: it is exact and computed before the fits (the quick part), which follow
    st.subheader("Per-feature guarantee under the data's own correlation")
    ui.table_with_download(
        result.regression_guarantee,
        "regression_guarantee",
        state.key("guarantee"),
        "The per-feature levels of BCDP need Assumption 1: given one feature, the others (and the label) "
        "may differ by at most q in total variation. On synthetic data the correlation is measured exactly; "
        "Proposition 4 then gives δ'_i = min(c_i + log(1 + q_i e^{c_d} − q_i), c_d). Whatever the data, the "
        "LDP level c_d bounds any attacker.",
    )

    st.subheader("One private fit: distance to the non-private optimum along gradient descent")
    ref = result.reference
    page.chart("trajectory")
    ui.csv_download(
        result.regression_trajectory, "regression_trajectory.csv", state.key("dl_traj"), "Download the trajectory (CSV)"
    )
    with st.container():  # however many warnings, one element here: the elements below keep their places
        for w in result.warnings:
            st.warning(w)
    alloc = result.allocation
    st.caption(
        f"Non-private reference: {ref.message}, θ* = ({', '.join(f'{v:.3g}' for v in ref.theta)}). "
        "Steps are γ_h / L with L the largest eigenvalue of the server's Â. Theorem 2 allocation c = ("
        + ", ".join(f"{v:.3g}" for v in alloc.c)
        + f") for (features…, label); LDP level c_d = "
        f"{alloc.ldp_level:.3g} — ε only matters once correlation no longer caps c_d below it."
    )

    st.subheader(f"Excess risk vs {'number of users' if state['axis'] == 'n' else 'ε'}")
    table = result.regression_excess_risk
    page.chart("excess_risk")
    stopped = table.groupby("method")["nonconvex"].sum()
    st.caption(
        "Simulated: median and 25–75 % band over the runs where f̂ was convex. Runs stopped because f̂ "
        "was not convex: " + ", ".join(f"{m}: {int(v)}" for m, v in stopped.items()) + ". "
        "The naive single-copy plug-in is always convex but biased: its excess risk does not vanish "
        "with n."
    )
    ui.csv_download(result.regression_excess_risk, "regression_excess_risk.csv", state.key("dl_risk"))

    page.meaning_and_report()

    with ui.formulas("Private_regression") as shown:
        if shown:
            st.markdown(
                "Each user sends two independent copies $\\hat x^{(i,1)},\\hat x^{(i,2)}=M_{mean}(x^{(i)}, c/2)$ "
                "(Mechanism 1 without projection, so each copy is unbiased); the server minimises"
            )
            st.latex(
                r"\hat f(\theta)=\frac1{2n}\sum_i\Big(\theta^\top\hat z^{(i,1)}\hat z^{(i,2)\top}\theta"
                r"-2\theta^\top\hat l^{(i,1)}\hat z^{(i,2)}\Big),\qquad "
                r"\mathbb E\,\nabla\hat f(\theta)=\nabla f(\theta)"
            )
            st.markdown("by projected gradient descent over $\\Theta=\\{\\|\\theta\\|\\le R\\}$:")
            st.latex(
                r"\theta_{h+1}=\Pi_\Theta\big(\theta_h-\tfrac{\gamma_h}{L}\nabla\hat f(\theta_h)\big),\quad "
                r"\gamma_h\in\{\gamma_0,\ \gamma_0(1+h)^{-\rho},\ \gamma_0/(1+\lambda h)\}"
            )
            st.markdown(
                "Naive plug-in: one copy at c, $\\frac1n\\sum\\hat z\\hat z^\\top$ whose mean adds the channel's noise "
                "covariance. min-δ LDP: the same two-copy estimator with every coordinate at min δ. Excess risk "
                "$f(\\hat\\theta)-f^*$ on the non-private data; Theorem 3 bounds it by"
            )
            st.latex(
                r"\max_{\theta\in\Theta}(\|\theta\|^2+\|\theta\|)"
                r"\Big(\frac{\log d}{\sqrt n}(r^2+rd)\wedge d\Big),\quad "
                r"r^2=\sum_i\frac1{\sum_{k\le i}(c_k-c_{k-1})^2/(d-k+1)}"
            )
