"""The app's menu: its entries (every page, from the registry and the other pages' folders), the home
page's first steps, the documentation topics and links between pages, and a sidebar menu that looks the
same however a page is reached. Nothing here lists pages: the registry (:mod:`hetdp_core.framework.registry`) and
the folders (:mod:`hetdp_ui.folders`) do.

app.py routes every page with ``st.navigation`` (each page's script is ``pages/<slug>/page.py``,
:mod:`hetdp_ui.folders`; the servers tell Streamlit so before the port opens,
:func:`hetdp_ui.launch.route_with_navigation_only`). Streamlit's own menu is hidden
(``position="hidden"``) and every page draws this menu, whose links also work where a page script is
run on its own (AppTest).
"""

from __future__ import annotations

import time

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from hetdp_core._deprecated import moved
from hetdp_ui import streamlit_fix

streamlit_fix.install()  # before any page's first widget callback (see that module)

__getattr__ = moved(__name__, {"pages": "hetdp_ui.nav:scenario_entries"})

#: The home page object when app.py routes with st.navigation (set by app.py on every run);
#: in legacy mode the home page is the file app.py itself.
HOME: list = []


def scenario_entries() -> list[tuple[str, str, str, str, str]]:
    """The menu entries of the scenario pages: (file, title, url path, icon, one-line summary), in menu
    order — from the registry (:mod:`hetdp_core.framework.registry`, whose ``pages()`` maps URL paths to their
    modules), where each page is declared once."""
    from hetdp_core.framework.registry import specs

    return [(s.file, s.title, s.url, s.icon, s.summary) for s in specs()]


def tools() -> list[tuple[str, str, str, str, str]]:
    """(file, title, url path, icon, one-line summary) of every page that is not a scenario (lessons, the
    release ledger, the class, the documentation), in menu order — from each one's folder
    (``pages/<slug>/page.toml``, :func:`hetdp_ui.folders.tool_pages`)."""
    from hetdp_ui.folders import tool_pages

    return [(t.file, t.title, t.url, t.icon, t.summary) for t in tool_pages()]


def start_links() -> list[tuple[str, str, str, str, dict]]:
    """The home page's "New here? start with…": (who, what they get, page, label, query), one first step per
    kind of user, each declared by its page (``pages/<slug>/start.toml``, :func:`hetdp_ui.folders.first_steps`),
    with a preset's values in its query (a link naming a preset but other values would open as Custom)."""
    from hetdp_core.framework.registry import get
    from hetdp_ui.folders import first_steps

    out = []
    for step in first_steps():
        who, what, page, label, query = step.who, step.what, step.page, step.label, dict(step.query)
        if "preset" in query:
            query = {**get(page).PRESETS[query["preset"]].to_query(), **query}
        out.append((who, what, page, label, query))
    return out


def file_of(url: str) -> str:
    """The page file of a URL path (a scenario page or another page)."""
    return {u: f for f, _, u, _, _ in scenario_entries() + tools()}[url]


#: how long a browser session's first run pauses after the page's title (:func:`sidebar_nav`)
TITLE_PAINT_PAUSE_S = 0.1
#: session key: this session's first run has drawn its title and paused
_TITLE_PAINTED = "_hetdp_title_painted"


def _browser() -> bool:
    """Whether a browser asked for this run: every browser's user agent begins ``Mozilla/``; AppTest's
    runs carry none and the load tool's virtual users say they are Python (they paint nothing)."""
    return (st.context.headers.get("User-Agent") or "").startswith("Mozilla/")


def _pause_for_paint() -> None:
    time.sleep(TITLE_PAINT_PAUSE_S)


def sidebar_nav(title: str | None = None) -> None:
    """The page's ``title`` (when given) and the app's menu at the top of the sidebar. A link Streamlit
    cannot resolve in the current mode (a page file run on its own, e.g. by AppTest) is left out rather
    than failing the page. First, the clicks still pending on other pages are dropped
    (:func:`hetdp_ui.actions.expire`).

    The title comes first, and when the session's first run has one and a browser asked for it, the run
    then pauses :data:`TITLE_PAINT_PAUSE_S`: a new visitor's browser received the title together with the
    menu's links and the inputs, and painted it only with them. With the pause it paints the title alone,
    0.19–0.33 s sooner (cold opens A/B with ``benchmarks/open_times.py``'s probe: Feature privacy 1.54 →
    1.21 s, Per-user privacy 1.43 → 1.24 s, medians of four; a bare page's title 1.16 s in the same run);
    the first chart comes about as soon. Only the session's first run may pause (a run without a title, as
    a class session's page, uses that turn up: a page reached from it does not pause), and never without
    a browser (AppTest, the load tool's virtual users)."""
    from hetdp_ui.actions import expire

    first = _TITLE_PAINTED not in st.session_state
    if first:
        st.session_state[_TITLE_PAINTED] = True
    if title is not None:
        st.title(title)
        if first and _browser():
            _pause_for_paint()
    expire()
    st.html(_CSS)
    targets = [(HOME[0] if HOME else "app.py", "Home", ":material/home:")]
    targets += [(file, title, icon) for file, title, _, icon, _ in scenario_entries() + tools()]
    with st.sidebar:
        for target, label, icon in targets:
            try:
                st.page_link(target, label=label, icon=icon)
            except StreamlitPageNotFoundError:
                pass
        st.divider()


#: said of a page's heading to :func:`page_top`: the same as its browser title
SAME = object()


def page_top(title: str, *, heading: str | None | object = SAME) -> None:
    """The top of a page: the browser's title "<title> — hetdp" with the emoji icon (inlined: no font
    server) and the wide layout, then the page's ``heading`` (its title unless told otherwise; None: no
    heading, as a class session's page, whose title needs the session looked up) and the menu
    (:func:`sidebar_nav`)."""
    st.set_page_config(page_title=f"{title} — hetdp", page_icon="🔒", layout="wide", initial_sidebar_state="auto")
    sidebar_nav(title if heading is SAME else heading)


#: documentation topics that are not a page's (docs/<name>.md): name → title; a page's topic is its slug
#: and its guide is pages/<slug>/guide.md
OTHER_DOCS = {
    "meetings": "Using hetdp in a meeting",
    "privacy-levels": "What a privacy level means; guarantee checks",
    "deployments": "Your levels among real deployments",
    "corrections": "Corrections to the papers",
    "teaching": "Teaching with hetdp",
    "command-line": "Command line",
    "operations": "Serving and operating hetdp",
    "benchmarks": "Benchmarks",
    "contributing": "Contributing: adding a page",
    "accessibility": "Look and accessibility",
}


def docs() -> dict[str, str]:
    """Every documentation topic in menu order: each page's guide (its slug: the scenario pages from the
    registry, then the other pages whose folder has a guide), then the other topics."""
    from hetdp_core.framework.registry import specs
    from hetdp_ui.folders import tool_pages

    guides = {s.slug: s.title for s in specs()} | {t.slug: t.title for t in tool_pages() if t.guide}
    return {**guides, **OTHER_DOCS}


def page_doc(url: str) -> str | None:
    """The documentation topic of a page with a guide, by its URL path (None for other names)."""
    slug = url.lower()
    return slug if slug in docs() and slug not in OTHER_DOCS and url != slug else None


def topic_name(raw: str) -> str | None:
    """The topic a ``?topic=`` value names, or None: a topic's own name, or a page's guide by its older name
    (its slug with ``-`` for ``_``, the name before the page's guide moved into its folder)."""
    topics = docs()
    if raw in topics:
        return raw
    slug = raw.replace("-", "_").lower()
    return slug if slug in topics and slug not in OTHER_DOCS else None


def doc_file(topic: str):
    """The Markdown file of a topic: a page's ``pages/<slug>/guide.md``, else ``docs/<topic>.md``."""
    from hetdp_ui.folders import app_root

    if topic in OTHER_DOCS:
        return app_root() / "docs" / f"{topic}.md"
    return app_root() / "pages" / topic / "guide.md"


def doc_link(topic: str, label: str = "Full notes: formulas, corrections to the papers, how it is tested") -> None:
    """A link to a documentation topic (a page's URL path or a topic of :func:`docs`), opened in the
    app's Documentation page; a plain link where Streamlit cannot resolve pages (a page file run on
    its own). Inside a lesson the topic opens in a new tab, so the side trip keeps the student's
    lesson, step and sliders where they were (no Back button needed)."""
    from hetdp_ui.folders import DOCUMENTATION, page_for

    query, docs_page = {"topic": page_doc(topic) or topic}, page_for(DOCUMENTATION)
    if st.query_params.get("lesson"):
        from urllib.parse import urlencode

        st.link_button(label + " (opens in a new tab)", f"{docs_page.url}?{urlencode(query)}", icon=docs_page.icon)
        return
    app_link(docs_page.url, label, icon=docs_page.icon, query_params=query)


def app_link(page: str, label: str, *, icon: str, query_params: dict) -> None:
    """A keyboard-focusable link to a page of the app (URL path ``page``) with a query string; a plain
    Markdown link where Streamlit cannot resolve pages (a page file run on its own, e.g. by AppTest)."""
    from urllib.parse import urlencode

    try:
        st.page_link(file_of(page), label=label, icon=icon, query_params=query_params)
    except StreamlitPageNotFoundError:
        st.markdown(f"[{label}](/{page}?{urlencode(query_params)})")


def open_page(page: str, query_params: dict) -> None:
    """Switch to a page of the app (URL path ``page``) with a query string; where Streamlit cannot
    switch pages (a page file run on its own, e.g. by AppTest) show the link to open instead."""
    from urllib.parse import urlencode

    from streamlit.errors import StreamlitAPIException

    try:
        st.switch_page(file_of(page), query_params=query_params)
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
