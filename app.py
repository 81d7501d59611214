"""hetdp — home page and navigation."""

import textwrap

import streamlit as st

from hetdp_core.framework.registry import cited_sources
from hetdp_ui import nav as _nav
from hetdp_ui.class_queue import in_turn
from hetdp_ui.nav import app_link, doc_link, scenario_entries, sidebar_nav, start_links, tools
from hetdp_ui.timing import script_run


def home() -> None:
    sidebar_nav("hetdp: privacy that is not one number")  # the title first, painted before the menu
    st.markdown("**New here? Start with…**")
    for col, (who, what, page, label, query) in zip(st.columns(3), start_links()):
        with col.container(border=True):
            st.markdown(f"**{who}**")
            app_link(page, label, icon=":material/arrow_forward:", query_params=query)
            st.caption(what)
    st.markdown(
        "Differential privacy is usually described by a single ε. Real privacy choices are rarely that "
        "simple: some **features** of a record are more sensitive than others, some **people** ask for "
        "more protection than others, some **groups** are small and easy to single out, and a training "
        "run spends its budget **over many iterations**. hetdp lets you set those levels with sliders "
        "and see, live, what they cost in accuracy and what is actually guaranteed. Every curve marked "
        "*simulated* is a real simulation of the mechanism; curves marked *analytic* are formulas."
    )

    for heading, entries in (("Pages", scenario_entries()), ("Learn and look up", tools())):
        st.subheader(heading)
        cols = st.columns(2)
        for i, (path, title, _, _, q) in enumerate(entries):
            with cols[i % 2].container(border=True):
                st.page_link(path, label=title, icon=":material/arrow_forward:")
                st.caption(q)

    st.subheader("Glossary")
    st.markdown(
        textwrap.dedent(
            """
    | symbol | meaning |
    |---|---|
    | **ε** (epsilon) | a differential-privacy level: how much one output may change the odds about the protected thing. Smaller = more private; ε = ∞ means no protection asked. |
    | **δ** (delta vector) | in *feature privacy (BCDP)*: the per-feature demand δ_i — the privacy level asked for feature i alone (Bayesian Coordinate DP). Not the δ of (ε, δ)-DP. |
    | **c** | the per-feature budget actually spent by the mechanism (coordinate DP level); chosen so that every demand δ_i still holds. |
    | **q** | correlation bound between features (Assumption 1 of the BCDP paper): the total-variation distance between what the other features look like given two values of one feature. q = 0 independent, q = 1 fully tied. |
    | **ζ** (zeta) | free parameter of the BCDP allocation splitting the most sensitive budget between its own estimate and the correlation cost; default (1+q)/2. |
    | **LDP** | local DP: each user randomises their own data before sending it. |
    | **ρ** (rho) | zero-concentrated DP (zCDP) level: Rényi divergence of order α is at most ρα. |
    | **MSE** | mean squared error ‖x̂ − x̄‖² of an estimate. |
    """
        )
    )
    sources = cited_sources()  # each page names its own (PageSpec.sources)
    st.markdown("**Sources**\n\n" + "\n".join(f"- {s.citation()} — {', '.join(pages)}" for s, pages in sources))
    st.caption("Where a source is wrong we fix it and say so:")
    doc_link("corrections", "Corrections to the papers")


st.set_page_config(
    page_title="hetdp — heterogeneous differential privacy", page_icon="🔒", layout="wide", initial_sidebar_state="auto"
)
home_page = st.Page(home, title="Home", icon=":material/home:", default=True)
_nav.HOME[:] = [home_page]
nav = st.navigation(
    [home_page] + [st.Page(f, title=t, icon=i, url_path=u) for f, t, u, i, _ in scenario_entries() + tools()],
    position="hidden",
)
# make bench's timing of a script run (off unless HETDP_TIMING is set), including a student's wait for
# their turn when the server is saturated (a class's students run in turn)
with script_run(nav.url_path), in_turn(nav.url_path):
    nav.run()
