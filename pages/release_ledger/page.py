"""Release ledger: what a whole plan of releases costs each group of people."""

import math
import re
from importlib import resources
from urllib.parse import parse_qsl, urlencode

import pandas as pd
import streamlit as st

from hetdp_core.accountants.ledger import (
    BUDGET_RANGE,
    MECHANISMS,
    NOISE_RANGE,
    incomplete_rows,
    ledger,
    levels_text,
    link_scenario,
    parse_plan,
    plan_from_records,
    plan_toml,
    solve_noise,
)
from hetdp_core.framework.scenario import FPR_GRID, InputError, split_list
from hetdp_ui.actions import run_ended
from hetdp_ui.common import (
    app_base_url,
    below_fpr,
    chart,
    csv_download,
    decision_button,
    deployments_strip_section,
    pin_section,
    plan_table,
    show_input_error,
    solver_answer,
    solver_button,
    target_tpr_input,
)
from hetdp_ui.folders import figures_of, folder_module
from hetdp_ui.nav import doc_link, page_top
from hetdp_ui.notebook import notebook_bytes
from hetdp_ui.risk_figures import curves_figure

figures = figures_of("release_ledger")  # this folder's figures.py
downloads = folder_module("release_ledger", "downloads")  # its report, notebook and decision package

page_top("Release ledger")  # the title first, painted before the menu

DELTAS = [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3]
#: a plan is kept in the link while its TOML text is at most this long
MAX_LINK_PLAN = 1500
EXAMPLE = "census-and-survey.toml"


def example_text(name: str = EXAMPLE) -> str:
    return (resources.files("hetdp_core.data") / "plans" / name).read_text(encoding="utf-8")


def bundled_plans() -> dict[str, str]:
    """The plans that ship with hetdp (``data/plans/*.toml``): file name → the plan's title."""
    import tomllib

    folder = resources.files("hetdp_core.data") / "plans"
    names = sorted(f.name for f in folder.iterdir() if f.name.endswith(".toml"))
    return {n: str(tomllib.loads(example_text(n)).get("title", n.removesuffix(".toml"))) for n in names}


def load_plan(plan) -> None:
    """Put ``plan`` into the editor (its rows and groups; the editor starts afresh)."""
    st.session_state["ledger_rows"] = rows_of(plan)
    st.session_state["ledger_groups"] = ", ".join(plan.groups)
    st.session_state["ledger_editor_version"] = st.session_state.get("ledger_editor_version", 0) + 1


def _pick_bundled() -> None:
    """``on_change`` of the bundled-plan picker: the chosen plan replaces the one in the editor."""
    name = st.session_state.get("ledger_bundled")
    if name:
        load_plan(parse_plan(example_text(name)))


def rows_of(plan) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "name": r.name,
                "mechanism": r.mechanism,
                "noise": r.noise,
                "repeat": r.repeat,
                "groups": ", ".join(r.groups),
                "link": r.link or "",
                "levels": levels_text(r),
            }
            for r in plan.releases
        ],
        columns=["name", "mechanism", "noise", "repeat", "groups", "link", "levels"],
    )


def use_plan(plan) -> None:
    """``on_click`` of *Use this plan*: the solver's plan becomes the table's rows (a callback: no rerun loses it)."""
    st.session_state["ledger_rows"] = rows_of(plan)
    st.session_state["ledger_editor_version"] = st.session_state.get("ledger_editor_version", 0) + 1


def view_levels_cached(link: str):
    """A linked view's privacy levels through the app's run cache (computed once per link, limited in
    memory and time like any page's run)."""
    from hetdp_core.framework.scenario import levels_of
    from hetdp_ui.common import run_scenario

    return levels_of(run_scenario(link_scenario(link), progress=False))


st.markdown(
    "**The question.** An agency, a hospital or a course project never publishes one statistic: it "
    "publishes a *plan* — counts for everyone, finer tables for a subgroup, a model. **What does the "
    "whole plan cost each person, and is that acceptable?** Each row below is one release: its noise "
    "(Gaussian σ or Laplace b, in units of the sensitivity Δ, or a *link* to one of this app's views, whose "
    "page states the levels it spends), how often it is published and whom it touches. The ledger adds "
    "up, for every group, the releases that touch it — by four accountants side by side, from the simple "
    "sum to the tight privacy-loss distribution — and says what an attacker could do with it all."
)

doc_link("Release_ledger", "The formulas of the four accountants, and how they are tested")

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
plans = bundled_plans()
sb.selectbox(
    "open a plan that ships with hetdp",
    list(plans),
    index=None,
    format_func=lambda n: plans[n],
    placeholder="choose a bundled plan …",
    key="ledger_bundled",
    on_change=_pick_bundled,
    help="the example plans that ship with hetdp: loading one replaces the rows below (keep your own plan "
    "first with *Download the plan (TOML)*, or upload one below)",
)
up = sb.file_uploader(
    "load a plan (TOML)",
    type=["toml"],
    key="ledger_upload",
    help="[[release]] tables: name, mechanism, noise, repeat, groups — see the README",
)
if up is not None and st.session_state.get("_ledger_loaded") != up.file_id:
    st.session_state["_ledger_loaded"] = up.file_id
    try:
        load_plan(parse_plan(up.getvalue()))
    except InputError as exc:
        st.warning(f"The file was not loaded (the current plan is kept): {exc}")
delta0 = next((d for d in DELTAS if qp.get("delta") in (repr(d), str(d), f"{d:.0e}")), 1e-6)
delta = sb.select_slider(
    "δ at which every total is read", DELTAS, value=delta0, format_func=lambda d: f"{d:.0e}", key="ledger_delta"
)
fpr0 = next((f for f in FPR_GRID if qp.get("fpr") in (repr(f), str(f))), 0.01)
fpr = sb.select_slider(
    "attack false-positive rate", FPR_GRID, value=fpr0, format_func=lambda v: f"{100 * v:g} %", key="ledger_fpr"
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
    height="content" if len(st.session_state["ledger_rows"]) <= 30 else "auto",  # a small plan whole
    key=f"ledger_editor_{st.session_state.get('ledger_editor_version', 0)}",
    column_config={
        "name": st.column_config.TextColumn("release", required=True, max_chars=80),
        "mechanism": st.column_config.SelectboxColumn("noise", options=list(MECHANISMS), required=True),
        "noise": st.column_config.NumberColumn(
            "σ/Δ or b/Δ",
            min_value=NOISE_RANGE[0],
            max_value=NOISE_RANGE[1],
            format="%.4g",
            help="gaussian: σ/Δ; laplace: b/Δ; empty for a link",
        ),
        "link": st.column_config.TextColumn(
            "app view (link)",
            help="for mechanism link: a view of this app (its address, or Page?query); its page states the levels",
        ),
        "levels": st.column_config.TextColumn(
            "level row per group",
            help="for a link: 'group: row of the view's level table | …'; other groups pay the view's largest level",
        ),
        "repeat": st.column_config.NumberColumn("repeat", min_value=1, step=1, format="%d"),
        "groups": st.column_config.TextColumn("whom it touches", help="group names, comma-separated; all = everyone"),
    },
)

# ------------------------------------------------------------------ the ledger
ready, incomplete = incomplete_rows(edited.to_dict(orient="records"))
for note in incomplete:  # a row being filled in is left out, not refused
    st.info(note)
try:
    plan = plan_from_records(ready, groups=split_list("groups", groups_text))
    result = ledger(plan, delta=delta, budget=budget, fpr=fpr, levels_of=view_levels_cached)
except InputError as exc:
    show_input_error(exc)
    st.caption("Your rows are kept: fix the one named above.")
    st.stop()

toml_text = plan_toml(plan)
want = {"delta": repr(delta), "fpr": repr(fpr), **({"budget": repr(budget)} if budget is not None else {})}
if len(toml_text) <= MAX_LINK_PLAN:
    want["plan"] = toml_text
URL_KEYS = ("plan", "delta", "fpr", "budget")
if {k: qp.get(k) for k in URL_KEYS} != {k: want.get(k) for k in URL_KEYS}:
    for k in URL_KEYS:
        if k in want:
            qp[k] = want[k]
        elif k in qp:
            del qp[k]
if len(toml_text) > MAX_LINK_PLAN:
    st.caption("This plan is too long for the link: download its TOML file to share it.")

# ------------------------------------------------------------------ plan A vs plan B
# the pinned plan A is its own query string (plan, δ, FPR, budget) in the link's ``pin``, as on the pages


def load_plan_a(raw: str):
    pa = dict(parse_qsl(raw, keep_blank_values=True))
    numbers = {}
    for k in ("delta", "fpr", "budget"):
        if pa.get(k):
            if not re.fullmatch(r"\d+(\.\d*)?([eE][+-]?\d+)?", pa[k]):
                raise InputError(f"{k} of the pinned plan must be a number; got {pa[k][:40]!r}.")
            numbers[k] = float(pa[k])
    return ledger(
        parse_plan(pa.get("plan", "")),
        delta=numbers.get("delta", delta),
        budget=numbers.get("budget"),
        fpr=numbers.get("fpr", fpr),
        levels_of=view_levels_cached,
    )


result_a = pin_section(
    "ledger_pin",
    urlencode(
        {"plan": toml_text, "delta": repr(delta), "fpr": repr(fpr), **({"budget": repr(budget)} if budget else {})}
    ),
    load_plan_a,
    what="plan",
    noun="plan",
    help="then edit the plan: the current one is plan B",
)
if result_a is not None:
    plan_table(result_a.key_numbers(), result.key_numbers(), "ledger")

heads = {h.group: h for h in result.headline}
st.subheader("Total privacy loss per group")
st.dataframe(downloads.totals_by_group(result).round(4), hide_index=True, key="ledger_wide")
for g, h in heads.items():
    st.caption(
        f"**{'everyone' if g == 'all' else g}**: headline ε = {h.epsilon:.4g}, the smallest valid bound, by {h.how}."
    )
worst = max(heads.values(), key=lambda h: h.epsilon)
who = "everyone" if worst.group == "all" else worst.group
odds = f"{math.exp(min(worst.epsilon, 27.6)):.3g}" if worst.epsilon < 27.6 else "more than 10¹²"
st.markdown(
    f"**Who pays most:** {who} — ε = {worst.epsilon:.4g} at δ = {delta:.0e} over "
    f"{worst.releases} releases (the headline: the smallest of the four valid bounds). For a person in that "
    f"group, the whole plan changes an attacker's odds about them by at most a factor e^ε ≈ {odds}, except with "
    "probability δ."
)
if budget is not None:
    over = [h for h in heads.values() if h.over_budget]
    if over:
        st.warning(
            "Over budget (judged by each group's headline, the smallest valid bound): "
            + "; ".join(f"{h.group} spends {h.epsilon:.4g} (by {h.accountant}) > {budget:g}" for h in over)
            + ". Add noise, publish less often, or touch fewer people."
        )
    else:
        left = min(h.reserve for h in heads.values())
        st.success(
            f"Within budget for every group, judged by each group's headline (the smallest valid bound; the "
            f"looser accountants' bars may cross the budget line); the smallest reserve left for the next "
            f"release is ε = {left:.3g}."
        )
c1, c2 = st.columns(2)
with c1:
    chart(figures.totals_figure(result.totals, budget=budget, headline=result.headline), key="ledger_totals_fig")
with c2:
    chart(figures.spend_figure(result.spend), key="ledger_spend_fig")
st.caption(
    "The four accountants are all valid upper bounds on each group's (ε, δ); the headline (the bar "
    f"{figures.HEADLINE_MARK}) is the smallest of them, and the budget, the risk and the solver read it. Basic "
    "composition adds each release's ε (δ split "
    "over the Gaussian releases); zCDP adds ρ and converts once; Rényi DP (dp-accounting) composes over orders; "
    "the privacy-loss distribution is exact when every release is Gaussian (μ-GDP) and otherwise discretised "
    "for an accuracy of 3·10⁻⁴ (relative)."
)
deployments_strip_section(result.placements(), key="ledger_context", what="the groups' headline totals")
# ------------------------------------------------------------------ risk in attack terms
st.subheader("In attack terms")
st.markdown(
    "An attacker tries to tell, from everything the plan publishes, whether a person is the one in "
    f"question. Allowed to wrongly flag {100 * fpr:g} % of the people it is not after, no attack catches "
    "more than the rate below; the *maximal advantage* is the most its hit rate can exceed its false-alarm "
    "rate (0 = a coin toss, 1 = certainty). Exact where every release is Gaussian (Φ(Φ⁻¹(FPR) + μ)); otherwise the "
    "best test against the group's discretised privacy-loss distribution — for Laplace noise that is its exact "
    "trade-off curve, tighter than the pure-ε bound."
)
for r in result.risk:
    who_r = "everyone" if r.group == "all" else r.group
    st.markdown(f"- **{who_r}**: {r.in_words}; maximal advantage {r.max_advantage:.3g}")
r1, r2 = st.columns(2)
with r1:
    chart(
        curves_figure(result.curves, fpr=fpr, title="The whole plan: what an attacker can do", legend="group"),
        key="ledger_curves_fig",
    )
with r2:
    target = target_tpr_input(
        "ledger_target_tpr",
        fpr,
        help="the least noise (one factor for every Gaussian and Laplace release of the plan) that keeps every "
        "group's attack TPR at this false-positive rate at or below the target",
    )
    solve = solver_button("ledger", "Solve")
    if target <= fpr:
        st.warning(below_fpr(fpr))
        if solve:
            solve.finish()  # nothing to solve: the warning says why
    sol = solver_answer(
        "ledger",
        (toml_text, delta, fpr, target),
        clicked=solve if target > fpr else None,
        compute=lambda progress: solve_noise(
            plan, fpr=fpr, target_tpr=target, delta=delta, levels_of=view_levels_cached, progress=progress
        ),
        label="Finding the least noise for the target",
    )
    if sol is not None:
        more = "more" if sol.factor > 1 else "less"
        st.success(
            f"Multiply the noise of every Gaussian and Laplace release by **{sol.factor:.4g}** ({more} noise): then "
            f"the most exposed group ({sol.worst_group}) is caught at most {100 * sol.tpr:.3g} % of the time at "
            f"FPR {100 * fpr:g} %; accuracy falls (or rises) by the same factor in standard deviation."
        )
        st.button("Use this plan", key="ledger_use_solution", on_click=use_plan, args=(sol.plan,))

d0, *dcols = st.columns(4)
with d0:
    st.download_button(
        "Download the plan (TOML)",
        toml_text.encode(),
        file_name="plan.toml",
        mime="application/toml",
        key="ledger_dl_toml",
    )
for col, (name, rows) in zip(dcols, result.tables().items()):
    with col:
        csv_download(pd.DataFrame(rows), f"{name}.csv", f"ledger_dl_{name}")
d4, d5, _ = st.columns(3)
with d4:
    st.download_button(
        "Download a report (HTML)",
        data=lambda: downloads.build_ledger_report(result, app_url=app_base_url("Release_ledger")).encode(),
        file_name="hetdp-ledger-report.html",
        mime="text/html",
        key="ledger_report",
        on_click="ignore",
        help="the plan, the totals by every accountant, the budget, the risk in attack terms, the figures",
    )
with d5:
    st.download_button(
        "Download a notebook (Jupyter)",
        data=lambda: notebook_bytes(downloads.ledger_notebook(result)),
        file_name="hetdp-ledger.ipynb",
        mime="application/x-ipynb+json",
        key="ledger_notebook",
        on_click="ignore",
        help="recomputes this ledger with hetdp's public API; runs top to bottom in a fresh kernel",
    )
decision_button(
    "ledger_decision",
    f"{toml_text}|{delta!r}|{fpr!r}|{budget!r}",
    lambda: downloads.ledger_package(result, app_url=app_base_url("Release_ledger")),
    file_name="hetdp-ledger-decision.zip",
)
st.caption(
    "The same numbers from a terminal: `hetdp ledger --plan plan.toml --delta "
    f"{delta:.0e} --fpr {fpr:g}" + (f" --budget {budget:g}" if budget is not None else "") + " --json`."
)
run_ended()  # the clicks whose answer this run showed (Solve, Prepare the decision) are done (hetdp_ui.actions)
