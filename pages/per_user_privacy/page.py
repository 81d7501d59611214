"""Per-user privacy: heterogeneous-DP frequency (HPF) and mean (HPM) estimation."""

import numpy as np
import streamlit as st

from hetdp_core.framework.scenario import InputError, split_list
from hetdp_core.materials.uploads import MAX_UPLOAD_MB
from hetdp_core.reading.words import quantile_share
from hetdp_core.scenarios import per_user_privacy as pu
from hetdp_core.scenarios.per_user_privacy.solve import solve_per_user
from hetdp_ui import actions
from hetdp_ui import common as ui
from hetdp_ui.glossary import glossary_markdown, method_label

with ui.page_shell(pu) as page:
    state = page.state

    ALL_ALGS = list(pu.ALL_ALGS)
    sb = st.sidebar
    state.choice("problem", horizontal=True, on_change=state.mark_custom)
    state.choice("dataset", widget="selectbox", on_change=state.mark_custom)
    upload = None

    def _resize_bins() -> None:
        """Keep one demand per bin when the number of bins changes (k, the dataset or the problem): cut
        the list, or repeat its last value, instead of replacing the page with an input error; a note
        says what changed."""
        need = pu.bins_needed(dataset=state["dataset"], problem=state["problem"], k=state["k"])
        try:
            parts = split_list("ε per bin", st.session_state[state.key("eps_by_bin")])
        except InputError:
            return  # shown by the scenario check below
        if need and parts and len(parts) != need:
            parts = parts[:need] if len(parts) > need else parts + [parts[-1]] * (need - len(parts))
            st.session_state[state.key("eps_by_bin")] = ",".join(parts)
            actions.keep_note(
                state.key("bins_note"),
                f"“ε per bin” now has {need} entries, one per bin (cut, or extended with its last value); "
                "edit it to set each bin's demand.",
            )

    if state["dataset"] == "synthetic":
        state.grid("n", pu.N_OPTIONS)
        if state["problem"] == "frequency":
            state.slider("k", on_change=state.mark_custom)
            state.choice("profile", widget="selectbox")
    elif state["dataset"] == "upload":
        f = sb.file_uploader("CSV (first column; frequencies: bin indices)", type=["csv"], key=state.key("upload"))
        upload = f.getvalue() if f is not None else None
        if upload is None:
            st.info(f"Upload a CSV to use your own data (≤ {MAX_UPLOAD_MB} MB, numeric first column).")
            state.sync_url()
            st.stop()
    state.choice(
        "demand",
        horizontal=True,
        on_change=state.mark_custom,
        help="by value: ε depends on the user's bin (correlated with the data); groups: shares of users with ε ranges",
    )
    if state["demand"] == "by_value":
        _resize_bins()
        state.text("eps_by_bin")
        resized = actions.note(state.key("bins_note"))
        if resized:
            sb.caption(resized)
    else:
        for name in ("shares", "lows", "highs"):
            state.text(name)
    state.choice(
        "setting", horizontal=True, help="uncorrelated: values are randomly re-permuted against the demands every trial"
    )
    state.slider(
        "beta",
        step=0.001,
        help="the 'PAC error' column is the error not exceeded in a share 1 − β of releases (β = 0.05: 95 %)",
    )

    def sync_algorithms():
        st.session_state[state.key("algs")] = ",".join(st.session_state[state.key("alg_select")])

    if (
        state.key("alg_select") not in st.session_state
        or st.session_state.get(f"_{state.prefix}_algs_seen") != state["algs"]
    ):
        st.session_state[state.key("alg_select")] = state["algs"].split(",")  # from the URL / a preset
    sb.multiselect(
        "methods compared",
        ALL_ALGS,
        key=state.key("alg_select"),
        on_change=sync_algorithms,
        format_func=method_label,
        help="full names and one-line explanations: see the glossary on the page",
    )
    st.session_state[f"_{state.prefix}_algs_seen"] = state["algs"]
    state.number("trials", step=20)
    state.choice("solver", horizontal=True)
    state.number("seed")

    if not st.session_state[state.key("alg_select")]:
        st.info("Pick at least one algorithm in the sidebar.")
        st.stop()
    result = page.run(upload=upload)
    scenario, ab = page.scenario, page.plan_a
    desc = result.description
    eps = result.demands
    st.caption(
        f"Data: {desc}. Demands: {np.isinf(eps).sum():,} public users, finite ε from "
        f"{np.min(eps[np.isfinite(eps)]) if np.isfinite(eps).any() else float('nan'):.3g} "
        f"to {np.max(eps[np.isfinite(eps)]) if np.isfinite(eps).any() else float('nan'):.3g}; "
        f"setting: {state['setting']}."
    )

    # what each user gets and the weights come before the simulations (the page's quick part): their charts
    # are drawn first, in their places below the accuracy table, which follows with the releases (with LDP
    # selected, the weights chart waits for the run: LDP's weights are its cvxpy solve)
    st.subheader("How accurate is each method?")
    accuracy = st.container()
    glossary = ui.panel("Glossary: the methods and terms in plain words", key=state.key("glossary_open"))
    with glossary:
        if glossary.open:
            st.markdown(glossary_markdown(ALL_ALGS))
    downloads = st.container()

    c1, c2 = st.columns(2)
    releases = st.container()

    st.subheader("Free privacy: what each user actually gets")
    ui.show_checks(result.checks)
    page.chart("free", plan_a=ab[1] if ab is not None else None)
    st.caption(
        "Below the diagonal = free privacy: the user is protected better than they asked. Every point is on or "
        "below it (ε_eff ≤ ε is a tested invariant)."
    )
    ui.csv_download(result.hetero_weights, "hetero_weights.csv", state.key("dl_w"))
    with c2:
        st.subheader("Weights against demands")
        page.chart("weights", plan_a=ab[1] if ab is not None else None)
        st.caption(
            "The HPF/HPM weights are proportional to ε for strict users and saturate at a common level for "
            "relaxed ones: w_i = min(t ε_i, μ)."
        )

    # ------------------------------------------------------------------ the simulations
    with accuracy:
        table = result.hetero_summary
        pac_col = next(c for c in table.columns if c.startswith("PAC error"))
        best = table[pac_col].idxmin()  # the sentence below names the lowest of this column
        everyday = [
            (
                f"± {100 * v:.2g} percentage points on each bin's share"
                if scenario.problem == "frequency"
                else f"± {v:.3g} on the published mean (data in [0, 1])"
            )
            + f", in {quantile_share(scenario.beta)} of releases"
            for v in table[pac_col]
        ]
        shown = table.round(6).assign(
            method=[method_label(a) for a in table["algorithm"]], **{"in everyday units": everyday}
        )
        st.dataframe(
            shown[["method", "in everyday units", *[c for c in table.columns if c != "algorithm"]]],
            hide_index=True,
            key=state.key("table"),
        )
        st.markdown(
            f"Lowest worst-case (PAC) error here: **{method_label(table.loc[best, 'algorithm'])}**. "
            "Methods for data-dependent demands (CP, CE, CT) suit demands that depend on a person's value; those "
            "for independent demands (UP, UE, UT) suit demands unrelated to it; A makes no assumption. "
            "(This is the comparison of the papers' Tables 4 and 5; the formulas are under 'Formulas'.)"
        )
    with downloads:
        ui.csv_download(result.hetero_summary, "hetero_summary.csv", state.key("dl_table"))
    with c1:
        st.subheader("Error CDFs (simulated)")
        page.chart("cdf", plan_a=ab[1] if ab is not None else None)
        ui.csv_download(
            result.hetero_errors, "hetero_errors.csv", state.key("dl_err"), "Download the error samples (CSV)"
        )
    with releases:
        qd = result.hetero_release_quantiles
        st.markdown(
            f"**Twenty equally likely published values** of the "
            f"{'mean' if scenario.problem == 'mean' else 'histogram'} under {scenario.algs[0]} next to the true "
            f"value (▲ for each bin): each dot is one possible release (quantiles of the {scenario.trials} "
            "simulated releases)."
        )
        page.chart("dotplot")
        if ab is not None:
            page.chart("dotplot", result=ab[1], key=state.key("dotplot_a"), title="plan A")
        ui.csv_download(qd, "hetero_release_quantiles.csv", state.key("dl_dots"))
    page.meaning_panel()

    with st.expander("What privacy do I need for this accuracy?", expanded=ui.solver_open(state.prefix)):
        st.markdown(
            "Scale every finite demand ε_i by one factor (public users stay public) and find the **most "
            "private** scaling at which the chosen algorithm meets your target; then a fresh simulation checks it."
        )
        c1, c2, c3 = st.columns(3)
        solve_alg = c1.selectbox("method", list(scenario.algs), key=state.key("solve_alg"), format_func=method_label)
        measures = {"pac": f"PAC error ({quantile_share(scenario.beta)})", "mse": "MSE"}
        metric = ui.solver_radio(c2, state.key("metric"), "accuracy measure", measures)
        target = ui.solver_target(
            c3,
            state.prefix,
            value=0.01,
            help="in the data's own units: for a histogram the error on each bin's share (0.01 = ± 1 percentage "
            "point), for a mean of values in [0, 1] the error on the mean; MSE targets are squared errors",
        )
        sol = ui.solver_answer(
            state.prefix,
            (scenario.query_string(), solve_alg, metric, target),
            clicked=ui.solver_button(state.prefix),
            compute=lambda progress: solve_per_user(
                scenario, target=target, metric=metric, algorithm=solve_alg, upload=upload, progress=progress
            ),
            label="Finding the most private setting",
        )
        if sol is not None:
            st.success(
                f"{sol.algorithm}: every finite demand × {sol.scale:.3g} — demands "
                + ", ".join(f"{k} → {v:.3g}" for k, v in sol.demands.items())
                + f". {sol.metric.upper()} {sol.error:.4g} {'≤' if sol.error <= sol.target else '>'} {sol.target:g}; "
                "10 % more private gives "
                f"{sol.error_10pct_more_private:.4g}. Precision: the true smallest scaling lies in "
                f"[{sol.scale_low:.3g}, {sol.scale_high:.3g}] (95 %, ± {100 * sol.precision:.1f} %, "
                f"{sol.trials_used:,} simulated releases per evaluation)."
            )
            what = "the share of fresh errors at most the target" if sol.metric == "pac" else "the fresh MSE"
            st.markdown(f"Fresh simulation (new seed): {sol.verdict.words(what)}.")
            ui.setting_button(state, "Use this setting here", "use_solution", ("scenario", sol.scenario_query))
    page.report_button()

    with ui.formulas("Per_user_privacy", "Formulas behind the numbers") as shown:
        if shown:
            st.latex(
                r"\text{HPF: } \tilde p=\sum_i w_ie_{x_i}+Z,\ Z_j\sim\mathrm{Lap}(b),\ "
                r"\hat p=\Pi_\Delta(\tilde p);\qquad "
                r"\text{HPM: } \hat\mu=\mathrm{clip}_{[0,1]}\Big(\sum_i w_ix_i+\mathrm{Lap}(b)\Big)"
            )
            st.latex(
                r"b=\kappa\max_i\frac{w_i}{\varepsilon_i}\ (\kappa=2\text{ freq.},\ 1\text{ mean}),\qquad "
                r"\varepsilon_i^{\rm eff}=\frac{\kappa w_i}{b}\le\varepsilon_i"
            )
            st.latex(
                r"T=\tfrac12\|w-u\|_1,\ E_2=\|w-u\|_2,\ s=\max_i w_i/\varepsilon_i:\quad "
                r"\mathrm{CP}=T+\kappa s\log\tfrac K\beta,\ \ \mathrm{CE}=(T+\kappa H_Ks)^2+\kappa^2S_Ks^2"
            )
            st.latex(
                r"\mathrm{UP}=\min\big(\mathrm{CP},\ E_2\sqrt{\tfrac12\log\tfrac{4K}\beta}+\kappa s\log\tfrac{2K}\beta\big),\ \ "  # noqa: E501 (one LaTeX formula)
                r"\mathrm{UE}=\min\big(\mathrm{CE},\ E_2^2(1+\log 2K)+2\kappa^2s^2(H_K^2+S_K)\big),\ \ "
                r"\mathrm A=\tfrac14E_2^2+2\kappa^2s^2"
            )
            st.latex(
                r"\text{optimum on } w(t)_i=\min(t\varepsilon_i,\mu(t)),\ \textstyle\sum_iw_i=1:\ "
                r"s=t,\ T(t)=\sum_i(1/n-t\varepsilon_i)_+ \ \Rightarrow\ \text{exact }O(n\log n)\text{ search}"
            )
            st.markdown(
                "Baselines: **UNI** w = 1/n; **PROP** w ∝ ε (public users take all the weight); **SM** keeps user i "
                "with probability (e^{ε_i}−1)/(e^t−1), t = max finite ε (the paper's t = max ε would drop everyone "
                "once one user is public), then a homogeneous t-DP estimator; **LDP** ε_i-LDP per user (Laplace / "
                "k-RAPPOR) with weights minimising T² + Σ w_i² v_i."
            )
