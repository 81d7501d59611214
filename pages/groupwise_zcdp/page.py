"""Group-wise zCDP lab: privacy that depends on the size of your group."""

import numpy as np
import streamlit as st

from hetdp_core.framework.scenario import InputError
from hetdp_core.per_group import zcdp
from hetdp_core.scenarios import groupwise_zcdp as gz
from hetdp_ui import common as ui

with ui.page_shell(gz) as page:
    state = page.state

    RHO_GRID, ALPHA_MAX_GRID = list(gz.RHO_GRID), list(gz.ALPHA_MAX_GRID)

    sb = st.sidebar
    state.choice("mode", horizontal=True, on_change=state.mark_custom)
    if state["mode"] == "zipf":
        state.slider("k", on_change=state.mark_custom)
        state.number("total", step=100, on_change=state.mark_custom)
        state.slider("s", step=0.1, on_change=state.mark_custom)
    else:
        state.text("counts", on_change=state.mark_custom)
    state.grid("rho", RHO_GRID, log=True)
    state.slider("r", step=0.01, on_change=state.mark_custom)
    state.choice(
        "algorithm",
        options=[1, 2],
        horizontal=True,
        format_func={1: "1: Gaussian, then relative noise", 2: "2: relative noise only"}.get,
    )
    state.grid("alpha_max", ALPHA_MAX_GRID)
    state.number("trials", step=100)
    state.number("seed", step=1)

    # ------------------------------------------------------------------ the one computation
    try:
        if state["mode"] == "list":
            with st.expander("Group sizes (editable table)", expanded=True):
                if ui.list_editor(state.key("counts"), item="group", column="count") is None:
                    state.sync_url()
                    st.stop()
        counts = state.scenario(group=1).group_counts()  # validates every field
    except InputError as exc:
        ui.show_input_error(exc)
        state.sync_url()
        st.stop()
    try:  # a value the browser sent back in another form is reset, not fatal
        group = int(st.session_state[state.key("group")])
    except (TypeError, ValueError):
        group = 1
    st.session_state[state.key("group")] = group if 1 <= group <= counts.size else 1
    # labels must not depend on the counts: when k changes the browser keeps the old label, and a label
    # that no longer matches an option came back as a string (it crashed the page)
    state.choice("group", widget="selectbox", options=range(1, counts.size + 1), format_func=lambda g: f"group {g}")
    sb.caption(
        f"group {st.session_state[state.key('group')]} has "
        f"x = {counts[st.session_state[state.key('group')] - 1]:g} people"
    )
    result = page.run()
    scenario = page.scenario
    algorithm, rho, r = scenario.algorithm, scenario.rho, scenario.r
    stats, claim, x_sel = result.zcdp_releases, result.claim, result.x_sel

    # ------------------------------------------------------------------ releases
    c1, c2 = st.columns(2)
    with c1:
        st.subheader("Released vs true counts")
        page.chart("release")
    with c2:
        st.subheader("Relative error vs the bound")
        page.chart("relative_error")
    ui.csv_download(result.zcdp_releases, "zcdp_releases.csv", state.key("dl_release"))

    # ------------------------------------------------------------------ D_alpha for one group
    st.subheader(f"Privacy loss of group {state['group']} (x = {x_sel:g}) in both directions")
    reference = zcdp.claim_reference(algorithm)
    page.chart("renyi")
    if claim.unresolved:
        st.warning(
            "Numerical limit, not a finding: D_α could not be resolved to the tolerance "
            f"({zcdp.ALG1_REL_TOL:g} relative, two resolutions compared) for α = "
            + ", ".join(f"{v:.3g}" for v in claim.unresolved[:8])
            + (" …" if len(claim.unresolved) > 8 else "")
            + "; those points are left out of the plot."
        )
    if algorithm == 1:
        ui.show_checks(result.checks)
    if algorithm == 1 and claim.bound_violation:
        pass  # reported by ui.show_checks as a numerical failure
    elif claim.holds:
        st.success(f"On α ∈ (1, {state['alpha_max']:g}] both directions stay below {reference}.")
    else:
        parts = []
        for d, label in (("up", "D_α(M(x)‖M(x±1))"), ("down", "D_α(M(x±1)‖M(x))")):
            if claim.first_violation(d) is not None:
                parts.append(
                    f"{label} exceeds it from α ≈ {claim.first_violation(d):.3g}"
                    + (" and becomes infinite" if claim.infinite(d) else "")
                )
        inf = claim.alpha_infinite
        where = []
        if inf is not None and inf.up_minus is not None:
            where.append(f"D_α(M(x)‖M(x−1)) for α ≥ x²/(2x−1) = {inf.up_minus:.4g}")
        if inf is not None and inf.down_plus is not None:
            where.append(f"D_α(M(x+1)‖M(x)) for α ≥ (x+1)²/(2x+1) = {inf.down_plus:.4g}")
        st.warning(  # a finding about the paper's claim, not an error of the page
            "The claim fails for this group: "
            + "; ".join(parts)
            + "."
            + (" Infinite exactly: " + "; ".join(where) + "." if where else "")
        )
    i_sel = state["group"] - 1
    c2 = result.at2
    loss2 = float(np.maximum(c2.up, c2.down)[0])  # NaN if unresolved
    acc_sel = float(stats["bound"].iloc[i_sel])
    st.markdown(
        f"**In plain words.** Group {state['group']} has {x_sel:g} people. Its released count is off by "
        f"{float(stats['mean_abs_error'].iloc[i_sel]):.3g} on average (bound {acc_sel:.3g}). "
        + (
            f"It is promised a privacy loss of at most α·v + ξ = {float(c2.claimed[0]):.3g} "
            f"at α = 2 and actually faces {loss2:.3g}"
            if algorithm == 2
            else (
                f"Its loss at α = 2 is {loss2:.3g}, "
                if np.isfinite(loss2)
                else "Its loss at α = 2 could not be resolved numerically; it is "
            )
            + f"below the ρ-zCDP guarantee 2ρ = {2 * rho:.3g} that every group has"
        )
        + (
            "; the promise holds for every order shown."
            if claim.holds
            else "; the promise is broken for some orders (above)."
        )
    )
    ui.csv_download(result.zcdp_renyi_curve, "zcdp_renyi_curve.csv", state.key("dl_curve"))

    st.markdown(
        f"**Twenty equally likely published counts** of group {state['group']} (true count {x_sel:g}) under "
        f"each algorithm (ρ = {rho:g}, r = {r:g}): each dot is one possible release (quantiles of 100 000 "
        "simulated releases)."
    )
    page.chart("dotplot")
    ui.csv_download(result.zcdp_release_quantiles, "zcdp_release_quantiles.csv", state.key("dl_dots"))

    # ------------------------------------------------------------------ budgets and summary
    c3, c4 = st.columns(2)
    with c3:
        st.subheader("Claimed budgets vs group size (Algorithm 2)")
        bud = result.zcdp_claimed_budgets
        page.chart("budgets")
        ui.csv_download(bud, "zcdp_claimed_budgets.csv", state.key("dl_budget"), "Download the budgets (CSV)")
    with c4:
        st.subheader("What each group is promised and gets")
        if result.summary_skipped:
            st.warning(
                f"The per-group summary for Algorithm 1 is numerical; shown for up to "
                f"{gz.MAX_ALG1_SUMMARY} groups (you have {counts.size})."
            )
        else:
            st.dataframe(result.zcdp_group_summary, hide_index=True, key=state.key("summary"))
            ui.csv_download(result.zcdp_group_summary, "zcdp_group_summary.csv", state.key("dl_summary"))

    # ------------------------------------------------------------------ the open question
    st.subheader("Open question: is Algorithm 1's loss non-increasing in the group size?")
    scan = result.zcdp_loss_vs_size
    page.chart("loss_vs_size")
    answer = []
    for al, m in result.monotonicity.items():
        if m.non_increasing:
            answer.append(f"α = {al:g}: **yes**, non-increasing over the sizes shown")
        else:
            lo, hi = m.first_rise
            answer.append(
                f"α = {al:g}: **no** — it rises between x = {lo:g} and x = {hi:g}"
                + (f", non-increasing from x = {m.from_size:g} on" if m.from_size is not None else "")
            )
    st.markdown(f"Numerical answer for ρ = {rho:g}, r = {r:g}: " + "; ".join(answer) + ".")
    numbers = ui.panel(
        "The numbers behind the chart", key=state.key("numbers_open"), expanded=bool(st.query_params.get("lesson"))
    )
    with numbers:
        if numbers.open:
            wide = scan.pivot(index="size", columns="alpha", values="loss")
            wide.columns = [f"α = {a:g}" for a in wide.columns]
            st.dataframe(wide.reset_index(), hide_index=True, key=state.key("scan_numbers"))
            st.caption("The worst-direction D_α per group size x (the chart draws x at x + 1 on its log axis).")
    unresolved_sizes = sorted(set(scan.loc[scan["loss"].isna(), "size"]))
    if unresolved_sizes:
        st.warning(
            "Numerical limit: the loss could not be resolved to the tolerance at x = "
            + ", ".join(f"{v:g}" for v in unresolved_sizes)
            + "; those sizes are left out of the answer."
        )
    st.caption(
        "Algorithm 1 has no closed form: D_α is computed numerically. The densities are replaced by "
        "finite mixtures that are themselves post-processings of a Gaussian step (so they keep the αρ bound), "
        "the Rényi integral is taken on a fixed grid with log-sum-exp, and every value is computed at two "
        "resolutions: a rise counts only when it exceeds both error estimates. Empty groups (x = 0) are "
        "compared with x = 1 only."
    )
    ui.csv_download(result.zcdp_loss_vs_size, "zcdp_loss_vs_size.csv", state.key("dl_scan"))

    page.meaning_and_report(
        empty_note="Algorithm 2's per-group claim does not hold (see the checks above), so no level is stated; "
        "switch to Algorithm 1, which is ρ-zCDP for every group."
    )

    with ui.formulas("Groupwise_zCDP") as shown:
        if shown:
            st.markdown(
                "**Algorithm 1**: $X_i\\sim N(x_i,\\sigma^2)$, $Y_i\\sim N(X_i,(rX_i)^2)$, $\\sigma^2=1/(2\\rho)$; "
                "**Algorithm 2**: $X_i\\sim N(x_i,(rx_i)^2)$. Accuracy bounds (analytic):"
            )
            st.latex(r"\mathbb E|Y_i-x_i|\le r x_i+\sigma\sqrt{1+r^2}\qquad \mathbb E|X_i-x_i|\le r x_i")
            st.markdown(
                "**Rényi divergence of Gaussians** ($s_\\alpha^2=\\alpha s_2^2+(1-\\alpha)s_1^2$; $+\\infty$ if $s_\\alpha^2\\le0$):"  # noqa: E501 (one LaTeX formula)
            )
            st.latex(
                r"D_\alpha(N(\mu_1,s_1^2)\|N(\mu_2,s_2^2))=\log\frac{s_2}{s_1}+\frac{\log(s_2^2/s_\alpha^2)}{2(\alpha-1)}"
                r"+\frac{\alpha(\mu_1-\mu_2)^2}{2s_\alpha^2}"
            )
            st.markdown(
                "**Claimed budgets for Algorithm 2** (paper), to hold in *both* directions for neighbours x ± 1:"
            )
            st.latex(
                r"D_\alpha\le\alpha\,v(D)_i+\xi(D)_i,\quad v(D)_i=\frac1{2r^2x_i^2},\quad "
                r"\xi(D)_i=2\log\Big(1+\frac1{x_i}\Big)"
            )
            st.markdown(
                "The reverse direction against x+1 has $s_\\alpha^2\\le 0$, hence $D_\\alpha=\\infty$, exactly when "
                "$\\alpha\\ge (x+1)^2/(2x+1)$. **Algorithm 1, numerically**, with $U=1+rZ$:"
            )
            st.latex(
                r"f_Y(y)=\int\varphi(z)\,N\big(y;\,x(1+rz),\,\sigma^2(1+rz)^2\big)\,dz,\qquad "
                r"D_\alpha(f\|g)=\frac1{\alpha-1}\log\int f^\alpha g^{1-\alpha}\,dy"
            )
            st.markdown(
                "Algorithm 1 is a post-processing of the Gaussian mechanism $X$, so $D_\\alpha\\le\\alpha\\rho$ "
                "for every group; the question is whether it is smaller for larger groups."
            )
