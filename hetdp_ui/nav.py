"""One registry of the app's pages and a sidebar menu that looks the same however a page is reached.

Streamlit ignores the legacy ``pages/`` directory only after some session has run ``st.navigation``
in app.py; the first deep link after a server start runs the page file directly with file-derived
labels. So Streamlit's own menu is hidden (``position="hidden"``) and every page draws this menu,
whose links work in both modes (the url paths equal the file-derived ones).
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

#: The home page object when app.py routes with st.navigation (set by app.py on every run);
#: in legacy mode the home page is the file app.py itself.
HOME: list = []

#: (file, title, url path, icon, question answered) — in menu order.
PAGES = [
    ("pages/1_Feature_privacy.py", "Feature privacy (BCDP)", "Feature_privacy", ":material/tune:",
     "Some features of my record are more sensitive than others. If I protect them more and the rest "
     "less, how much accuracy do I gain over protecting everything at the strictest level — and how "
     "does correlation between features eat into that gain?"),
    ("pages/2_BCDP_guarantee_lab.py", "BCDP guarantee lab", "BCDP_guarantee_lab", ":material/science:",
     "What exactly does a per-feature guarantee promise? Exact answers on small examples: a mechanism "
     "private per feature but not per record, composition that fails, and how loose the bounds are."),
    ("pages/3_Private_regression.py", "Private regression (BCDP)", "Private_regression", ":material/show_chart:",
     "Can least squares be learned when every user randomises their own record, with stricter privacy "
     "for some features — and how many users does it take?"),
    ("pages/4_Per_user_privacy.py", "Per-user privacy", "Per_user_privacy", ":material/person:",
     "Each person chose their own ε — what histogram or average can we publish, how accurate is it, "
     "and who pays for it?"),
    ("pages/5_Groupwise_zCDP.py", "Group-wise zCDP", "Groupwise_zCDP", ":material/groups:",
     "Counts are released with the same relative error for every group. Is a bigger group really "
     "better protected — and does the published privacy claim hold in both directions?"),
    ("pages/6_Mechanism_lab.py", "Mechanism lab", "Mechanism_lab", ":material/casino:",
     "Which noise, how much, and what does it buy? Laplace, Gaussian, mixed noise, composition, smooth "
     "sensitivity, bounded Laplace and the exponential mechanism, side by side."),
    ("pages/7_DP_SGD_schedules.py", "DP-SGD schedules", "DP_SGD_schedules", ":material/timeline:",
     "How must learning-rate and privacy schedules change over the iterations for private SGD to "
     "stay private and still converge?"),
]

#: pages that are not scenarios: a path through the pages, and the project's own documentation
TOOLS = [
    ("pages/8_Lessons.py", "Lessons", "Lessons", ":material/school:",
     "Step-by-step lessons through the pages, with questions whose answers the app computes."),
    ("pages/9_Docs.py", "Documentation", "Docs", ":material/menu_book:",
     "The formulas each page uses, the corrections to the papers, and how each is tested."),
]

#: page URL path → page file (scenario pages and tools)
FILES = {u: f for f, _, u, _, _ in PAGES + TOOLS}


def sidebar_nav() -> None:
    """The app's menu at the top of the sidebar. A link Streamlit cannot resolve in the current
    mode (a page file run on its own, e.g. by AppTest) is left out rather than failing the page."""
    st.html(_CSS)
    targets = [(HOME[0] if HOME else "app.py", "Home", ":material/home:")]
    targets += [(file, title, icon) for file, title, _, icon, _ in PAGES + TOOLS]
    with st.sidebar:
        for target, label, icon in targets:
            try:
                st.page_link(target, label=label, icon=icon)
            except StreamlitPageNotFoundError:
                pass
        st.divider()


#: documentation topics (docs/<name>.md) in menu order: name → title
DOCS = {
    "feature-privacy": "Feature privacy (BCDP)",
    "bcdp-guarantee-lab": "BCDP guarantee lab",
    "private-regression": "Private regression (BCDP)",
    "per-user-privacy": "Per-user privacy",
    "groupwise-zcdp": "Group-wise zCDP",
    "mechanism-lab": "Mechanism lab",
    "dp-sgd-schedules": "DP-SGD schedules",
    "privacy-levels": "What a privacy level means; guarantee checks",
    "corrections": "Corrections to the papers",
    "lessons": "Writing a lesson",
    "accessibility": "Look and accessibility",
}

#: each scenario page's documentation topic
PAGE_DOCS = {u: u.lower().replace("_", "-") for _, _, u, _, _ in PAGES}


def doc_link(topic: str, label: str = "Full notes: formulas, corrections to the papers, how it is tested") -> None:
    """A link to a documentation topic (``PAGE_DOCS[page]`` or a key of :data:`DOCS`), opened in the
    app's Documentation page; a plain link where Streamlit cannot resolve pages (a page file run on
    its own). Inside a lesson the topic opens in a new tab, so the side trip keeps the student's
    lesson, step and sliders where they were (no Back button needed)."""
    query = {"topic": PAGE_DOCS.get(topic, topic)}
    if st.query_params.get("lesson"):
        from urllib.parse import urlencode

        st.link_button(label + " (opens in a new tab)", f"Docs?{urlencode(query)}", icon=":material/menu_book:")
        return
    app_link("Docs", label, icon=":material/menu_book:", query_params=query)


def app_link(page: str, label: str, *, icon: str, query_params: dict) -> None:
    """A keyboard-focusable link to a page of the app (URL path ``page``) with a query string; a plain
    Markdown link where Streamlit cannot resolve pages (a page file run on its own, e.g. by AppTest)."""
    from urllib.parse import urlencode

    try:
        st.page_link(FILES[page], label=label, icon=icon, query_params=query_params)
    except StreamlitPageNotFoundError:
        st.markdown(f"[{label}](/{page}?{urlencode(query_params)})")


def open_page(page: str, query_params: dict) -> None:
    """Switch to a page of the app (URL path ``page``) with a query string; where Streamlit cannot
    switch pages (a page file run on its own, e.g. by AppTest) show the link to open instead."""
    from urllib.parse import urlencode

    from streamlit.errors import StreamlitAPIException

    try:
        st.switch_page(FILES[page], query_params=query_params)
    except StreamlitAPIException:
        st.info(f"Open [{page}](/{page}?{urlencode(query_params)}) to start.")


#: Streamlit's caption grey (60 % opacity on a grey text) is below the WCAG AA contrast ratio for small text
#: (axe-core: color-contrast); every page draws captions a little darker.
_CSS = """<style>
[data-testid="stCaptionContainer"] { opacity: 1; color: rgba(49, 51, 63, 0.75); }
/* a chart's plotly toolbar appears on hover only: hidden buttons are out of the keyboard's tab order
   (8 tab stops per chart otherwise) and do not cover the axis labels */
.js-plotly-plot .modebar-container { visibility: hidden; }
.js-plotly-plot:hover .modebar-container { visibility: visible; }
</style>"""
