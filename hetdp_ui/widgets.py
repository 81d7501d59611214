"""Widgets and output elements shared by the pages: log and grid sliders, editable lists, solver inputs,
charts with their text summary, CSV downloads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from hetdp_core.framework.scenario import InputError, Spec, check_value, log_grid
from hetdp_ui.figcache import by_identity, csv_bytes
from hetdp_ui.timing import part


def show_input_error(exc: Exception) -> None:
    """Show a validation error from the core as a readable message (no traceback)."""
    st.error(f"Input problem: {exc}")


def shared_arrow(table: pd.DataFrame, tag: str, shown: Callable[[], pd.DataFrame]):
    """The Arrow form of ``shown()`` (a view of ``table``: rounded, some columns dropped), built once
    per shared table: ``st.dataframe`` otherwise converts the same pandas table to Arrow every
    session (a twentieth of a warm view's CPU). Streamlit shows an Arrow table as it shows the
    pandas one it came from (no index: every table here hides it)."""
    import pyarrow as pa

    return by_identity(table, f"arrow {tag}", lambda: pa.Table.from_pandas(shown(), preserve_index=False))


def mark_solver(prefix: str) -> None:
    """``on_change`` of a solver's inputs: keep its expander open."""
    st.session_state[f"{prefix}_target_touched"] = True


def log_options(lo: float, hi: float, per_decade: int = 12, extra: Sequence[float] = ()) -> list[float]:
    """Log-spaced slider grid from lo to hi (rounded to 3 significant digits), plus ``extra``."""
    return list(log_grid(lo, hi, per_decade, extra))


#: a table of more cells than this is written as CSV when its button is clicked (Streamlit's deferred
#: download), not at every run: the per-user weights of 10⁵ users cost a slider step half a second
DEFERRED_CELLS = 50_000


def csv_download(df: pd.DataFrame, filename: str, key: str, label: str | None = None) -> None:
    """A CSV download of ``df`` (the same bytes as ``hetdp run --csv``: :func:`hetdp_ui.figcache.csv_bytes`);
    a large table's bytes are made when the button is clicked (:data:`DEFERRED_CELLS`)."""
    data = (lambda: csv_bytes(df)) if df.size > DEFERRED_CELLS else csv_bytes(df)
    with part("serialisation"):
        st.download_button(label or f"Download {filename}", data, file_name=filename, mime="text/csv", key=key)


def list_editor(state_key: str, *, item: str, column: str) -> list[float] | None:
    """A comma-separated list kept in ``st.session_state[state_key]`` (so it can live in the URL and in a
    text box), shown as an editable table (cells edited, rows added and deleted). Returns the parsed
    numbers, or None after showing an error when the list does not parse (validation of values is the
    core's).

    The table writes the list back in its ``on_change`` callback, which Streamlit runs before the next
    script run: setting the text box's value after the box was drawn in this run raised
    StreamlitWidgetAlreadyInstantiatedError (the page crashed on every edit). The table's rows are the
    list as it was when the table was built, and its key stays the same while edits come from it, so
    its edits accumulate and the focus stays in the table; a change from elsewhere (the text box, a
    preset, a link), or a table whose edits Streamlit dropped (it was not drawn on a run), builds a new
    table from the list as it is."""
    text = st.session_state[state_key]
    spec = Spec("floats", allow_inf=True, min_len=0, max_len=10**4)
    try:
        vals = check_value(column, spec, text)
    except InputError as exc:
        show_input_error(exc)
        return None
    mine, base_key, ver_key = f"{state_key}_editor_wrote", f"{state_key}_editor_base", f"{state_key}_editor_version"

    def table_key() -> str:
        return f"{state_key}_editor_{st.session_state.get(ver_key, 0)}"

    # a new table when the list changed elsewhere, or when the table's edits are gone: Streamlit drops a
    # widget's state after a run that did not draw it (another mode, a closed tab), and the table drawn
    # again from the old base showed the list as it was before those edits — and the next edit wrote
    # that old list back over the text box
    if table_key() not in st.session_state or text not in (st.session_state.get(mine), st.session_state.get(base_key)):
        st.session_state[base_key] = text
        st.session_state[ver_key] = st.session_state.get(ver_key, 0) + 1
    base = list(check_value(column, spec, st.session_state[base_key]))
    key = table_key()

    def write_back() -> None:
        new = _edited_list(base, st.session_state[key], column)
        st.session_state[state_key] = st.session_state[mine] = ",".join(_fmt_number(v) for v in new)

    table = pd.DataFrame({item: [f"{item}{i + 1}" for i in range(len(base))], column: base})
    st.data_editor(
        table,
        key=key,
        num_rows="dynamic",
        disabled=[item],
        hide_index=True,
        on_change=write_back,
        width="stretch",
        height="content" if len(base) <= 30 else "auto",  # a short list whole, a long one scrolls
    )
    return vals


def _fmt_number(v: float) -> str:
    return "inf" if v == float("inf") else f"{float(v):.15g}"


def _edited_list(base: list[float], delta: dict, column: str) -> list[float]:
    """The list after a data editor's edits (its session value: edited_rows, added_rows, deleted_rows,
    row positions of the table it was given). Cells left empty (a new row not yet filled) are left out."""
    rows: list[float | None] = list(base)
    for pos, change in (delta.get("edited_rows") or {}).items():
        if column in change:
            rows[int(pos)] = change[column]
    rows += [r.get(column) for r in delta.get("added_rows") or []]
    gone = {int(i) for i in delta.get("deleted_rows") or []}
    out = []
    for i, v in enumerate(rows):
        if i in gone or v is None or (isinstance(v, float) and v != v):
            continue
        out.append(float(v))
    return out


def target_tpr_input(key: str, fpr: float, **kw) -> float:
    """The "solve from a target risk" input (a meaning panel's, the ledger's): the highest acceptable
    attack TPR, typed in per cent like the false-positive rate beside it (it was typed as 0.0400 next
    to a slider showing "1 %"), within :data:`hetdp_core.reading.risk.TPR_RANGE`. Returns a rate in [0, 1]."""
    from hetdp_core.reading.risk import TPR_RANGE

    return (
        st.number_input(
            "solve from a target risk: highest acceptable attack TPR (%)",
            min_value=100 * TPR_RANGE[0],
            max_value=100 * TPR_RANGE[1],
            value=min(max(5.0, 200 * fpr), 100 * TPR_RANGE[1]),
            step=0.5,
            format="%.2f",
            key=key,
            **kw,
        )
        / 100.0
    )


def solver_radio(column, key: str, label: str, options: dict) -> str:
    """A solver's choice (identifier → label in plain words), one row of radio buttons."""
    return column.radio(label, list(options), key=key, horizontal=True, format_func=options.get)


def solver_target(column, prefix: str, *, label: str = "target", value: float, help: str | None = None) -> float:
    """A solver's target (the core's accepted range, 4 significant digits); typing one keeps the
    solver's expander open (:func:`mark_solver`)."""
    from hetdp_core.reading.solve import TARGET_MAX, TARGET_MIN

    return column.number_input(
        label,
        min_value=TARGET_MIN,
        max_value=TARGET_MAX,
        value=value,
        format="%.4g",
        key=f"{prefix}_target",
        help=help,
        on_change=mark_solver,
        args=(prefix,),
    )


def table_with_download(table, name: str, key: str, caption: str, *, decimals: int | None = None) -> None:
    """A result table (shown rounded to ``decimals``), what it says in words and its CSV download
    (``<name>.csv``, the run's exact numbers)."""
    with part("serialisation"):
        st.dataframe(
            shared_arrow(table, f"rounded {decimals}", lambda: table if decimals is None else table.round(decimals)),
            hide_index=True,
            key=key,
        )
    st.caption(caption)
    csv_download(table, f"{name}.csv", f"dl_{key}")


def chart(fig, *, key: str) -> None:
    """A plotly chart (redrawn in place when its figure changes: :mod:`hetdp_ui.chart_element`) with its
    text summary under it (what is plotted, each series and the range of its values, from the figure's own
    data). The data tables are the page's CSV downloads."""
    from hetdp_ui.chart_element import plotly_element
    from hetdp_ui.figcache import figure_json, summary_text

    with part("serialisation"):
        plotly_element(figure_json(fig), key=key)
    text = summary_text(fig)
    if text:
        st.caption("Chart in words: " + text)
