"""Release ledger: what a whole plan of releases costs each group of people."""

import re
from importlib import resources

import pandas as pd
import streamlit as st

from hetdp_core.ledger import (
    ACCOUNTANTS,
    BUDGET_RANGE,
    MECHANISMS,
    NOISE_RANGE,
    ledger,
    parse_plan,
    plan_from_records,
    plan_toml,
)
from hetdp_core.scenario import InputError
from hetdp_ui.common import chart, csv_download, show_input_error
from hetdp_ui.ledger_figures import spend_figure, totals_figure
from hetdp_ui.nav import doc_link, sidebar_nav

st.set_page_config(
    page_title="Release ledger — hetdp", page_icon="🔒", layout="wide", initial_sidebar_state="auto"
)  # an emoji icon is inlined: no font server
sidebar_nav()

DELTAS = [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3]
#: a plan is kept in the link while its TOML text is at most this long
MAX_LINK_PLAN = 1500
EXAMPLE = "census-and-survey.toml"


def example_text() -> str:
    return (resources.files("hetdp_core.data") / "plans" / EXAMPLE).read_text(encoding="utf-8")


def rows_of(plan) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "name": r.name,
                "mechanism": r.mechanism,
                "noise": r.noise,
                "repeat": r.repeat,
                "groups": ", ".join(r.groups),
            }
            for r in plan.releases
        ]
    )


st.title("Release ledger")
st.markdown(
    "**The question.** An agency, a hospital or a course project never publishes one statistic: it "
    "publishes a *plan* — counts for everyone, finer tables for a subgroup, a model. **What does the "
    "whole plan cost each person, and is that acceptable?** Each row below is one release: its noise "
    "(Gaussian σ or Laplace b, in units of the sensitivity Δ), how often it is published and whom it "
    "touches. The ledger adds up, for every group, the releases that touch it — by four accountants "
    "side by side, from the simple sum to the tight privacy-loss distribution."
)

doc_link("release-ledger", "The formulas of the four accountants, and how they are tested")

# ------------------------------------------------------------------ the plan: URL, file or example
qp = st.query_params
if "ledger_rows" not in st.session_state:
    source, text = "example", example_text()
    if qp.get("plan"):
        source, text = "link", qp.get("plan")
    try:
        plan0 = parse_plan(text)
    except InputError as exc:
        st.warning(f"URL parameter 'plan' ignored: {exc} The example plan is shown instead.")
        plan0 = parse_plan(example_text())
    st.session_state["ledger_rows"] = rows_of(plan0)
    st.session_state["ledger_groups"] = ", ".join(plan0.groups)

sb = st.sidebar
up = sb.file_uploader(
    "load a plan (TOML)",
    type=["toml"],
    key="ledger_upload",
    help="[[release]] tables: name, mechanism, noise, repeat, groups — see the README",
)
if up is not None and st.session_state.get("_ledger_loaded") != up.file_id:
    st.session_state["_ledger_loaded"] = up.file_id
    try:
        loaded = parse_plan(up.getvalue())
        st.session_state["ledger_rows"] = rows_of(loaded)
        st.session_state["ledger_groups"] = ", ".join(loaded.groups)
        st.session_state["ledger_editor_version"] = st.session_state.get("ledger_editor_version", 0) + 1
    except InputError as exc:
        st.warning(f"The file was not loaded (the current plan is kept): {exc}")
delta0 = next((d for d in DELTAS if qp.get("delta") in (repr(d), str(d), f"{d:.0e}")), 1e-6)
delta = sb.select_slider(
    "δ at which every total is read", DELTAS, value=delta0, format_func=lambda d: f"{d:.0e}", key="ledger_delta"
)
use_budget = sb.checkbox("compare with a budget", value=bool(qp.get("budget")), key="ledger_use_budget")
budget = None
if use_budget:
    raw_budget = qp.get("budget", "")
    b0 = float(raw_budget) if re.fullmatch(r"\d+(\.\d*)?([eE][+-]?\d+)?", raw_budget) else 3.0
    budget = sb.number_input(
        "budget: the ε the plan may spend per group",
        min_value=BUDGET_RANGE[0],
        max_value=BUDGET_RANGE[1],
        value=min(max(b0, BUDGET_RANGE[0]), BUDGET_RANGE[1]),
        step=0.5,
        key="ledger_budget",
    )

groups_text = st.text_input(
    'groups of people (comma-separated; a release\'s "all" means everyone)', key="ledger_groups"
)
edited = st.data_editor(
    st.session_state["ledger_rows"],
    num_rows="dynamic",
    width="stretch",
    key=f"ledger_editor_{st.session_state.get('ledger_editor_version', 0)}",
    column_config={
        "name": st.column_config.TextColumn("release", required=True, max_chars=80),
        "mechanism": st.column_config.SelectboxColumn("noise", options=list(MECHANISMS), required=True),
        "noise": st.column_config.NumberColumn(
            "σ/Δ or b/Δ", min_value=NOISE_RANGE[0], max_value=NOISE_RANGE[1], format="%.4g", required=True
        ),
        "repeat": st.column_config.NumberColumn("repeat", min_value=1, step=1, format="%d"),
        "groups": st.column_config.TextColumn("whom it touches", help="group names, comma-separated; all = everyone"),
    },
)

# ------------------------------------------------------------------ the ledger
try:
    plan = plan_from_records(edited.to_dict(orient="records"), groups=[g for g in groups_text.split(",") if g.strip()])
    result = ledger(plan, delta=delta, budget=budget)
except InputError as exc:
    show_input_error(exc)
    st.caption("Your rows are kept: fix the one named above.")
    st.stop()

toml_text = plan_toml(plan)
want = {"delta": repr(delta), **({"budget": repr(budget)} if budget is not None else {})}
if len(toml_text) <= MAX_LINK_PLAN:
    want["plan"] = toml_text
if {k: qp.get(k) for k in ("plan", "delta", "budget")} != {k: want.get(k) for k in ("plan", "delta", "budget")}:
    for k in ("plan", "delta", "budget"):
        if k in want:
            qp[k] = want[k]
        elif k in qp:
            del qp[k]
if len(toml_text) > MAX_LINK_PLAN:
    st.caption("This plan is too long for the link: download its TOML file to share it.")

totals = pd.DataFrame(result.totals)
wide = totals.pivot(index="group", columns="accountant", values="epsilon")[list(ACCOUNTANTS)].reset_index()
st.subheader("Total privacy loss per group")
st.dataframe(wide.round(4), hide_index=True, key="ledger_wide")
tight = {r["group"]: r for r in result.totals if r["accountant"] == "pld"}
worst = max(tight.values(), key=lambda r: r["epsilon"])
who = "everyone" if worst["group"] == "all" else worst["group"]
st.markdown(
    f"**Who pays most:** {who} — ε = {worst['epsilon']:.3g} at δ = {delta:.0e} over "
    f"{worst['releases']} releases (tight accountant). For a person in that group, the whole plan changes "
    f"an attacker's odds about them by at most a factor e^ε ≈ {min(2.718281828 ** worst['epsilon'], 1e12):.3g}, "
    f"except with probability δ."
)
if budget is not None:
    over = [r for r in tight.values() if r["over budget"]]
    if over:
        st.warning(
            "Over budget (tight accountant): "
            + "; ".join(f"{r['group']} spends {r['epsilon']:.3g} > {budget:g}" for r in over)
            + ". Add noise, publish less often, or touch fewer people."
        )
    else:
        left = min(r["reserve"] for r in tight.values())
        st.success(f"Within budget for every group; the smallest reserve left for the next release is ε = {left:.3g}.")
c1, c2 = st.columns(2)
with c1:
    chart(totals_figure(result.totals, budget=budget), key="ledger_totals_fig")
with c2:
    chart(spend_figure(result.spend), key="ledger_spend_fig")
st.caption(
    "The four accountants are all valid upper bounds on each group's (ε, δ); the privacy-loss "
    "distribution (PLD, Google's dp-accounting) is the tightest. Basic composition adds each release's ε "
    "(δ split over the Gaussian releases); zCDP adds ρ and converts once; Rényi DP (dp-accounting) "
    "composes over orders."
)
d1, d2, d3 = st.columns(3)
with d1:
    st.download_button(
        "Download the plan (TOML)",
        toml_text.encode(),
        file_name="plan.toml",
        mime="application/toml",
        key="ledger_dl_toml",
    )
with d2:
    csv_download(totals, "ledger.csv", "ledger_dl_totals")
with d3:
    csv_download(pd.DataFrame(result.spend), "ledger_spend.csv", "ledger_dl_spend")
st.caption(
    "The same numbers from a terminal: `hetdp ledger --plan plan.toml --delta "
    f"{delta:.0e}" + (f" --budget {budget:g}" if budget is not None else "") + " --json`."
)
