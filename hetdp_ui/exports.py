"""What a page hands out: its report (HTML), its decision package (zip) and its notebook."""

from __future__ import annotations

import streamlit as st

from hetdp_core.framework.scenario import Scenario


def app_base_url(page: str) -> str:
    """The address this page was opened at, without the page and query (behind a proxy: the address
    the browser used), so a report links back to the server it came from; localhost if unknown."""
    from urllib.parse import urlsplit

    try:
        u = urlsplit(st.context.url or "")
    except Exception:  # noqa: BLE001 — no browser context (AppTest, bare mode)
        return "http://localhost:8501"
    if not u.scheme or not u.netloc:
        return "http://localhost:8501"
    path = u.path.rstrip("/")
    if path.lower().endswith("/" + page.lower()):
        path = path[: -len(page) - 1]
    return f"{u.scheme}://{u.netloc}{path}"


def report_button(page: str, scenario: Scenario, result, *, plan_a=None) -> None:
    """One click: the standalone HTML report (built only when clicked; same builder as
    ``hetdp report``): a decision record with plan A vs plan B when a plan is pinned, linking back to
    the server the page was opened from. The attacker's prior is the scenario's."""
    from hetdp_ui.report import build_report

    base = app_base_url(page)
    st.download_button(
        "Download a report (HTML, opens offline; print it to PDF)",
        data=lambda: build_report(page, scenario, result, app_url=base, plan_a=plan_a).encode(),
        file_name=f"hetdp-{page}-report.html",
        mime="text/html",
        key=f"{page}_report",
        on_click="ignore",
        help="a decision record: the question, a plain summary, plan A vs plan B, "
        "the key results, the guarantees and what they mean, the link that reopens this view, "
        "every figure, versions and seed",
    )
    notebook_button(page, scenario, app_url=base, plan_a=plan_a)
    if any(getattr(scenario, name) == "upload" for name in scenario.specs()):
        st.caption("The decision package is not offered for a view of your own CSV (it would carry your data).")
        return
    from hetdp_ui.package import page_package

    decision_button(
        f"{page}_decision",
        scenario.query_string(),
        lambda: page_package(page, scenario.query_string(), app_url=base),
        file_name=f"hetdp-{page}-decision.zip",
    )


def decision_button(key: str, signature: str, build, *, file_name: str) -> None:
    """ "Download the decision": a zip (:mod:`hetdp_ui.package`) built on request under a status box (it
    executes the notebook: a few seconds), then offered for download; kept for ``signature`` (the view).
    *Prepare* is an action button (:mod:`hetdp_ui.actions`): a rerun that stops the build (or the run
    before the package is offered) builds again for the view that rerun shows."""
    from hetdp_ui.actions import button, pending

    held = st.session_state.get(key)
    if held is not None and held[0] == signature and pending(f"{key}_prepare"):
        pending(f"{key}_prepare").done_when_shown()  # clicked on another view, then back to this one: built
    if held is None or held[0] != signature:
        prepare = button(
            "Prepare the decision (zip: README, report, executed notebook, script, tables)",
            key=f"{key}_prepare",
            help="one download that someone else can read, check and re-run",
        )
        if not prepare:
            return
        built = prepare.results.get("built")
        if built is None or built[0] != signature:
            with st.status(
                "Building the decision package: the report, the notebook run in a fresh kernel, the tables…"
            ) as box:
                prepare.results["built"] = built = (signature, build())
                box.update(label=f"The decision package is ready ({len(built[1]) / 1024:,.0f} KiB).", state="complete")
        st.session_state[key] = held = built
        prepare.done_when_shown()
    st.download_button(
        "Download the decision (zip)",
        data=held[1],
        file_name=file_name,
        mime="application/zip",
        key=f"{key}_download",
        on_click="ignore",
        type="primary",
    )


def notebook_button(page: str, scenario: Scenario, *, app_url: str, plan_a=None) -> None:
    """One click: a Jupyter notebook that recomputes this view with hetdp's public API (built only when
    clicked; the same builder as ``hetdp notebook``). A view of an uploaded CSV reads it from
    ``data.csv`` beside the notebook (the data is not written into the notebook)."""
    from hetdp_ui.notebook import notebook_bytes, page_notebook

    upload = any(getattr(scenario, name) == "upload" for name in scenario.specs())  # a view of the reader's CSV
    st.download_button(
        "Download a notebook (Jupyter, recomputes this view)",
        data=lambda: notebook_bytes(
            page_notebook(
                page,
                scenario.query_string(),
                app_url=app_url,
                upload_file="data.csv" if upload else None,
                pin=plan_a[0].query_string() if plan_a is not None else None,
            )
        ),
        file_name=f"hetdp-{page}.ipynb",
        mime="application/x-ipynb+json",
        key=f"{page}_notebook",
        on_click="ignore",
        help="the scenario from this view's link, the page's run, its tables, checks and figures; runs top to "
        "bottom in a fresh kernel" + ("; put your CSV beside it as data.csv" if upload else ""),
    )
