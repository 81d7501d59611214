"""Mechanism lab: the catalogue of MAT 4376 lectures 17–20."""

import streamlit as st

from hetdp_core.framework.scenario import adapt
from hetdp_core.reading.solve import solve_mechanisms
from hetdp_core.scenarios import mechanism_lab as ml
from hetdp_ui import common as ui

with ui.page_shell(ml) as page:
    state = page.state

    def _adapt() -> None:
        """Inputs that bound each other adapt instead of failing (before the widgets are drawn): the
        scenario's own rules (``MechanismLab.RULES``, which its validate() checks) repair the inputs —
        the bounded-Laplace domain widens to hold the sensitivity, q stays in it, Example 8's m stays
        below n — and a note says what moved."""
        ss, k = st.session_state, state.key
        names = tuple(ml.SCENARIO.specs())  # the rules read the fields they bound
        values, notes = adapt(ml.SCENARIO.RULES, {n: ss[k(n)] for n in names})
        if notes:
            for n in names:
                if values[n] != ss[k(n)]:
                    ss[k(n)] = values[n]
            st.info("Adapted to your last change: " + "; ".join(notes) + ".")

    _adapt()

    EPS_GRID, DELTA_GRID = list(ml.EPS_GRID), list(ml.DELTA_GRID)
    sb = st.sidebar
    eps = state.grid("eps", EPS_GRID, log=True)
    delta = state.grid("delta", DELTA_GRID, log=True)
    state.number("sens")
    state.number("trials", step=100)
    state.number("seed")
    state.sync_url()
    # only the chosen tab is drawn: a slider step draws one tab's charts, not five tabs' hidden ones (the
    # inputs of the other tabs come back from the URL)
    t1, t2, t3, t4, t5 = ui.tabs(
        [
            "Noise: Laplace, Gaussian, MNM",
            "Composition (Example 8)",
            "Median: local vs smooth sensitivity",
            "Bounded Laplace",
            "Exponential mechanism",
        ],
        key=state.key("tab"),
    )
    # the shown tab's widgets first (they belong to the scenario), then the one computation
    if t1.open:
        with t1:
            noise_area = st.container()
            c = st.columns(3)
            state.number("n", where=c[0])
            state.slider("pareto_index", where=c[1], step=0.1)
            state.number("Lambda", where=c[2])
            pareto_area = st.container()
    if t2.open:
        with t2:
            c = st.columns(4)
            state.number("m", where=c[0])
            state.number("eps1", where=c[1])
            state.number("eps2", where=c[2])
            state.number("eps3", where=c[3])
    if t3.open:
        with t3:
            state.slider("med_n", where=st, step=2)
    if t4.open:
        with t4:
            c = st.columns(3)
            state.number("bl_q", where=c[0])
            state.number("bl_lower", where=c[1])
            state.number("bl_upper", where=c[2])
    if t5.open:
        with t5:
            state.text("scores", where=st)
    result = page.run()
    scenario = page.scenario
    sens, eps, delta = scenario.sens, scenario.eps, scenario.delta

    if t1.open:
        with noise_area:
            dens = result.mech_noise_densities
            page.chart("density")
            ui.csv_download(dens, "mech_noise_densities.csv", state.key("dl_density"), "Download the densities (CSV)")
            t0 = result.mnm_threshold
            kind, scale = result.mnm_branch
            st.warning(
                f"**Erratum (Theorem 10 as printed).** The printed mixed noise mechanism adds N(0, 2(Δ/ε)²) when "
                f"Δ ≤ t0 = √π δ ε/2 (here t0 = {t0:.3g}). That Gaussian is *not* (ε, δ)-DP: its privacy depends "
                f"only on Δ/σ = ε/√2, so no condition on Δ can fix it — at ε = {eps:g} its exact δ(ε) is "
                f"**{result.mnm_printed_delta:.3g}**, not ≤ δ = {delta:g}. hetdp's MNM uses the smallest Gaussian "
                "σ whose exact privacy profile meets (ε, δ) when that noise has a lower variance than Laplace, and "
                f"Laplace otherwise: here the **{kind}** branch, scale {scale:.4g}."
            )
            st.dataframe(result.mech_variances, hide_index=True, key=state.key("var_table"))
            ui.csv_download(result.mech_variances, "mech_variances.csv", state.key("dl_variances"))
            st.markdown(
                "**Exact privacy profile of every noise drawn** (checked before any claim is shown): δ(ε) is the "
                "exact hockey-stick divergence at the stated ε; P(loss > ε) is the probability that an output "
                "moves an attacker's belief further than the pure-ε bound."
            )
            st.dataframe(result.mech_privacy_profiles, hide_index=True, key=state.key("profiles_table"))
            ui.csv_download(result.mech_privacy_profiles, "mech_privacy_profiles.csv", state.key("dl_profiles"))
            ui.show_checks([c for c in result.checks if not c.name.startswith("bounded")])
            st.markdown(
                "**Example 11 — Pareto sample mean**: data with density α x^{−α−1} (x > 1), clipped to "
                "[0, Λ] so that Δ = Λ/n; MSE of the noisy mean against the population mean α/(α−1)."
            )
    if t1.open:
        with pareto_area:
            pm = result.mech_pareto_mse
            page.chart("pareto")
            ui.csv_download(pm, "mech_pareto_mse.csv", state.key("dl_pareto"))

    if t2.open:
        with t2:
            r = result.example8
            st.dataframe(result.mech_example8, hide_index=True, key=state.key("comp_table"))
            st.success(
                f"Sequential on the first part: ε1 + ε2 = {r.part1:.3g}; parallel with the disjoint second "
                f"part: max(ε1 + ε2, ε3) = **{r.total:.3g}**-DP overall (n = {scenario.n}, Λ = {scenario.Lambda:g})."
            )
            ui.csv_download(result.mech_example8, "mech_example8.csv", state.key("dl_comp"))

    if t3.open:
        with t3:
            out1, out2 = result.local
            loc1, loc2 = result.local_sensitivity
            test = result.local_test
            c1, c2 = st.columns(2)
            with c1:
                page.chart("local")
            with c2:
                st.markdown(
                    f"**Example 12.** Both datasets have median 0 and differ in one person; local sensitivity "
                    f"{loc1:g} vs {loc2:g}. Seeing any non-zero output proves it is dataset 1: "
                    f"the histogram test finds a privacy-loss lower bound of **{test.loss_lower_bound:.3g}** "
                    f"({'VIOLATION' if test.violation else 'no violation'} of ({eps:g}, {delta:g})-DP)."
                )
                st.markdown(
                    "**Example 21 / formula (4).** Smooth sensitivity is positive for both datasets, so calibrated "
                    "noise never vanishes:"
                )
            st.dataframe(result.mech_smooth_sensitivity, hide_index=True, key=state.key("smooth_table"))
            ui.csv_download(result.mech_smooth_sensitivity, "mech_smooth_sensitivity.csv", state.key("dl_smooth"))

    if t4.open:
        with t4:
            b, b0, share = result.b, result.b0, result.share
            lo_, up_ = scenario.bl_lower, scenario.bl_upper
            ui.show_checks([c for c in result.checks if c.name.startswith("bounded")])
            bl = result.mech_bounded_laplace
            page.chart("bounded")
            ui.csv_download(bl, "mech_bounded_laplace.csv", state.key("dl_bounded"), "Download the densities (CSV)")
            st.markdown(
                f"Smallest b satisfying Theorem 26: **{b:.4g}** (plain Laplace: {b0:.4g}). Plain Laplace puts "
                f"**{share.simulated:.1%}** of outputs outside [{lo_:g}, {up_:g}] (simulated; exact "
                f"{share.exact:.1%}) — e.g. negative counts of people born on Mars (Example 22); the bounded "
                "mechanism never does."
            )
            qd = result.mech_release_quantiles
            st.markdown(
                f"**Twenty equally likely releases** of the true value q = {scenario.bl_q:g} under each mechanism "
                f"(ε = {scenario.eps:g}, Δ = {scenario.sens:g}"
                + f", δ = {scenario.delta:g}): each dot is one possible published number "
                "(a quantile dotplot; analytic quantiles)."
                + ("" if scenario.eps < 1 else " The Gaussian row is absent: its calibration (Theorem 5) needs ε < 1.")
            )
            page.chart("dotplot")
            ui.csv_download(qd, "mech_release_quantiles.csv", state.key("dl_dots"))

    if t5.open:
        with t5:
            tbl = result.mech_exponential
            page.chart("exponential")
            st.dataframe(result.mech_lemma28, hide_index=True, key=state.key("lemma28"))
            ui.csv_download(result.mech_lemma28, "mech_lemma28.csv", state.key("dl_lemma28"))
            st.caption(
                "Lemma 28: P(f(Q) < f* − 2Δ(ln d + t)/ε) ≤ e^{−t} (exact left side for the exponential mechanism)."
            )
            ui.csv_download(tbl, "mech_exponential.csv", state.key("dl_exp"))

    page.meaning_and_report()

    with st.expander("What privacy do I need for this accuracy?", expanded=ui.solver_open(state.prefix)):
        st.markdown(
            f"The most private ε (smallest, within the page's range) at which each mechanism's single release "
            f"meets your target, for sensitivity Δ = {scenario.sens:g} and δ = {scenario.delta:g}; each answer is "
            "checked by fresh simulated releases."
        )
        c1, c2 = st.columns(2)
        metric = ui.solver_radio(
            c1,
            state.key("metric"),
            "accuracy measure",
            {"mse": "expected squared error", "q95": "95 % of errors below"},
        )
        target = ui.solver_target(c2, state.prefix, value=1.0)
        sols = ui.solver_answer(
            state.prefix,
            (scenario.query_string(), target, metric),
            clicked=ui.solver_button(state.prefix, "Find the most private ε"),
            compute=lambda progress: solve_mechanisms(scenario, target=target, metric=metric),
            label="Finding the most private ε",
        )
        for r in sols or ():
            if r.eps is None:
                st.markdown(f"- **{r.mechanism}**: no ε in range — {r.reason}.")
            else:
                st.markdown(
                    f"- **{r.mechanism}**: ε = {r.eps:.4g} gives {r.error:.4g} (analytic); fresh "
                    f"simulation {r.simulated:.4g}"
                    + (f" ± {r.simulated_se:.2g}" if r.simulated_se else "")
                    + (
                        f"; 10 % more private gives {r.error_10pct_more_private:.4g}"
                        if r.error_10pct_more_private is not None
                        else ""
                    )
                    + (f" ({r.reason})" if r.reason else "")
                )

    with ui.formulas("Mechanism_lab", "Formulas behind the numbers") as shown:
        if shown:
            st.latex(
                r"\text{Laplace: } f(x)+\mathrm{Lap}(\Delta/\varepsilon),\ \mathrm{Var}=2(\Delta/\varepsilon)^2;\qquad "
                r"\text{Gaussian: } \sigma=c\Delta/\varepsilon,\ c^2>2\ln(1.25/\delta),\ \varepsilon<1"
            )
            st.latex(
                r"\text{MNM (corrected): } N(0,\sigma_{\varepsilon,\delta}^2)\ \text{if}\ \sigma_{\varepsilon,\delta}^2"
                r"<2(\Delta/\varepsilon)^2,\ \text{else}\ \mathrm{Lap}(\Delta/\varepsilon);\quad "
                r"\sigma_{\varepsilon,\delta}="
                r"\min\{\sigma:\delta_\sigma(\varepsilon)\le\delta\}"
            )
            st.latex(
                r"\delta_\sigma(\varepsilon)=\Phi\Big(\frac{\Delta}{2\sigma}-\frac{\varepsilon\sigma}{\Delta}\Big)"
                r"-e^{\varepsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma}-\frac{\varepsilon\sigma}{\Delta}\Big)"
            )
            st.latex(r"\text{sequential: }\textstyle\sum_i\varepsilon_i,\qquad \text{parallel: }\max_i\varepsilon_i")
            st.latex(r"\tilde S^*_{f,\beta}(x)=\max_{k}\ e^{-k\beta}\max_{t=0..k+1}(x_{m+t}-x_{m+t-k-1})")
            st.latex(
                r"\text{bounded Laplace: } b\ge\frac{\Delta}{\varepsilon-\log\Delta C(b)-\log(1-\delta)},\ "
                r"\Delta C=\frac{C_{l+\Delta}}{C_l},\ C_q=1-\tfrac12\big(e^{-(q-l)/b}+e^{-(u-q)/b}\big)"
            )
            st.latex(
                r"P(Q=q)\propto\exp\Big(\frac{\varepsilon f(x,q)}{2\Delta}\Big);\qquad "
                r"\text{noisy max: }\arg\max_i f(x,q_i)+Z_i,\ Z_i\sim\mathrm{Exp}(\varepsilon/(2\Delta))"
            )
