"""Documentation: the project's own notes (docs/*.md), one topic at a time (``?topic=<name>``)."""

import re

import streamlit as st

from hetdp_ui.nav import doc_file, docs, page_top, topic_name

page_top("Documentation")  # the title first, painted before the menu

st.markdown(
    "**What is here?** The formulas each page uses, the corrections to the papers and how each "
    "is tested, what a privacy level means, and how to write a lesson — in the project's own words. "
    "The same pages are the Markdown files in the repository: each page's guide in its folder "
    "(`pages/<page>/guide.md`), the other topics in `docs/`."
)

DOCS = docs()
topics = list(DOCS)
# the URL's topic is read when it is news to this session (a link, Back/Forward); the radio rules
# otherwise, and only a choice made here is written (a write on arrival would be applied by Streamlit
# to the previous page's path and break the Back button)
url_topic = st.query_params.get("topic")
named = topic_name(url_topic or topics[0])  # None: the URL names no topic
if url_topic != st.session_state.get("_docs_url", "") or "docs_topic" not in st.session_state:
    raw = named
    if raw is None:
        st.warning(f"URL parameter 'topic' ignored: it must be one of {', '.join(topics)}; got {url_topic[:40]!r}.")
        raw = topics[0]
    st.session_state["docs_topic"] = raw
    st.session_state["_docs_url"] = url_topic
topic = st.sidebar.radio("Topic", topics, key="docs_topic", format_func=DOCS.get)
if topic != named:
    st.query_params["topic"] = topic
    st.session_state["_docs_url"] = topic

text = doc_file(topic).read_text(encoding="utf-8")
# links between topics ("corrections.md") open the topic in this page
text = re.sub(
    r"\]\(([a-z0-9_-]+)\.md\)", lambda m: f"](/Docs?topic={m.group(1)})" if m.group(1) in DOCS else m.group(0), text
)
st.markdown(text)
st.caption("Sources are cited by authors, title, venue and arXiv identifier on the home page and in each topic.")
