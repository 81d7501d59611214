"""The page API: every helper a page uses, by name (``from hetdp_ui import common as ui``).

The helpers live in one module per job — :mod:`hetdp_ui.state` (a page's values ↔ its URL),
:mod:`hetdp_ui.widgets` (sliders, editable lists, charts, downloads), :mod:`hetdp_ui.execution` (the
cached, limited run), :mod:`hetdp_ui.panels` (checks, meaning, solvers, plan A vs B),
:mod:`hetdp_ui.exports` (report, notebook, decision package) and :mod:`hetdp_ui.page` (the life cycle:
:func:`~hetdp_ui.page.page_shell`). Importing this module has no side effect.
"""

from __future__ import annotations

from hetdp_ui.execution import Progress, cached, run_scenario, runs
from hetdp_ui.exports import app_base_url, decision_button, notebook_button, report_button
from hetdp_ui.page import (
    PageShell,
    meaning_and_report,
    page_shell,
    pin_section,
    plan_a,
    plan_section,
    run_page,
    start_page,
)
from hetdp_ui.panels import (
    MEANING_OPEN,
    below_fpr,
    deployments_strip_section,
    formulas,
    grouped_bullets,
    meaning_panel,
    page_setting,
    plan_table,
    question,
    risk_panel,
    setting_button,
    show_checks,
    solver_answer,
    solver_button,
    solver_open,
)
from hetdp_ui.state import MAX_URL_VALUE, PageState, Param, ScenarioState, UrlValueError, grid_options, parse_choice
from hetdp_ui.widgets import (
    chart,
    csv_download,
    list_editor,
    log_options,
    mark_solver,
    shared_arrow,
    show_input_error,
    solver_radio,
    solver_target,
    table_with_download,
    target_tpr_input,
)

__all__ = [
    "MAX_URL_VALUE",
    "MEANING_OPEN",
    "PageShell",
    "PageState",
    "Param",
    "Progress",
    "ScenarioState",
    "UrlValueError",
    "app_base_url",
    "below_fpr",
    "cached",
    "chart",
    "csv_download",
    "decision_button",
    "deployments_strip_section",
    "formulas",
    "grid_options",
    "grouped_bullets",
    "list_editor",
    "log_options",
    "mark_solver",
    "meaning_and_report",
    "meaning_panel",
    "notebook_button",
    "page_setting",
    "page_shell",
    "parse_choice",
    "pin_section",
    "plan_a",
    "plan_section",
    "plan_table",
    "question",
    "report_button",
    "risk_panel",
    "run_page",
    "run_scenario",
    "runs",
    "shared_arrow",
    "show_checks",
    "setting_button",
    "show_input_error",
    "solver_answer",
    "solver_button",
    "solver_open",
    "solver_radio",
    "solver_target",
    "start_page",
    "table_with_download",
    "target_tpr_input",
]
