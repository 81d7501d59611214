"""Every lesson question can be answered, and every claim its step makes can be read, from what the step
shows (AppTest of each step's page); the lesson panel says which table answers the step.

A question's key, and each claim's key (``[[steps.claims]]``, :mod:`hetdp_core.teaching.lesson_claims`), names
cells of the step's download tables. Each cell it names must be on the screen of that step, in one of
three ways:

* a shown table (``st.dataframe``/``st.table``) has a row holding the key's selector values and the
  cell's value (numbers within 10⁻³ relative; a table may show labels, e.g. "Adaptive (A)" for "A");
* a chart has a point at the selector values (on the x axis, or in the trace's name) whose value is
  the cell's value, inside the chart's visible axis range (a curve that runs off the top of the chart
  cannot be read — lesson 1's exact MSE could not);
* a text on the page (a metric, a sentence) states the value (3 significant digits, or ∞).

Boolean columns (``all(...)``, yes/no questions) must be in a shown table under their own name. The
hint must not send the student to a table the page does not show.
"""

from __future__ import annotations

import base64
import math
import re

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from hetdp_core.framework.registry import get
from hetdp_core.teaching.lesson_keys import _cell_match, _scalar, parse_key
from hetdp_core.teaching.lessons import bundled_lessons, step_scenario
from hetdp_ui.chart_element import charts, figure_of

STEPS = [(lesson, i, step) for lesson in bundled_lessons() for i, step in enumerate(lesson.steps, 1)]


def _keys(step) -> list[str]:
    """The keys whose cells the step must show: its question's, then its claims'."""
    q = step.question
    return ([q.key] if q is not None and q.key else []) + [c.holds for c in step.claims.claims]


def _arr(v) -> np.ndarray:
    """A plotly JSON array: a list, or plotly's typed {dtype, bdata[, shape]}."""
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return a.reshape(v["shape"]) if "shape" in v else a
    return np.asarray(v if v is not None else [], dtype=object)


def _num(x) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        t = str(x).strip()
        return math.inf if t in ("∞", "inf", "+∞") else None
    return v


def _close(a, b) -> bool:
    a, b = _num(a), _num(b)
    if a is None or b is None:
        return False
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-9)


def _selects(cell, value: str) -> bool:
    """A shown cell matches a key's selector value: numerically, or as text (also "Name (value)")."""
    if _num(value) is not None and _num(cell) is not None:
        return _close(cell, value)
    text = str(cell).strip()
    return text == value or text.endswith(f"({value})")


def _names(header, value: str) -> bool:
    """A column header names a selector value ("α = 5" for alpha = 5)."""
    return bool(re.search(rf"(^|[^\d.]){re.escape(value)}([^\d.]|$)", str(header)))


def _in_table(df: pd.DataFrame, where, value) -> bool:
    """A row holding every selector value (in its cells, or in the header of the value's column, as in a
    wide table with one column per α) and the value."""
    df = df.reset_index()
    for _, row in df.iterrows():
        for col, cell in row.items():
            if _close(cell, value) and all(
                _names(col, v) or any(_selects(c, v) for k, c in row.items() if k != col) for _, v in where
            ):
                return True
    return False


def _in_view(value: float, axis: dict) -> bool:
    rng = axis.get("range")
    if not rng or axis.get("autorange") is True:
        return True  # plotly shows every point
    lo, hi = sorted(_num(r) for r in rng)
    if axis.get("type") == "log":
        return value > 0 and lo <= math.log10(value) <= hi
    return lo <= value <= hi


def _in_chart(fig: dict, where, value: float) -> bool:
    layout = fig.get("layout", {})
    for tr in fig.get("data", []):
        name = str(tr.get("name", ""))
        x, y = _arr(tr.get("x")), _arr(tr.get("y"))
        yaxis = layout.get("yaxis" + str(tr.get("yaxis", "y"))[1:], layout.get("yaxis", {}))
        on_x = [v for _, v in where if not re.search(rf"(^|[^\d.]){re.escape(v)}([^\d.]|$)", name)]
        text = _arr(tr.get("text")) if isinstance(tr.get("text"), list | dict) else []
        for i in range(min(len(x), len(y))):
            if not all(_selects(x[i], v) for v in on_x) or not _in_view(float(y[i]), yaxis):
                continue
            if _close(y[i], value):
                return True
            if i < len(text) and _num(text[i]) is not None and math.isclose(_num(text[i]), value, rel_tol=5e-3):
                return True  # a point at the chart's edge labelled with the value (▲ 121)
    return False


def _cells(term, tables) -> list:
    df = tables[term.table]
    mask = pd.Series(True, index=df.index)
    for c, v in term.where:
        mask &= _cell_match(df[c], v)
    return [_scalar(v) for v in df.loc[mask, term.column]]


def _ratio_in_chart(key, tables, figs) -> bool:
    """Both terms of a ratio (or a comparison) on one chart at the same scale c (a chart may plot n·w_i for
    w_i): the ratio is read there. Each scale c comes from a point of the denominator and must place the
    numerator too."""
    num, den = (float(np.mean(_cells(t, tables))) for t in key.terms)
    for fig in figs:
        for tr in fig.get("data", []):
            x, y = _arr(tr.get("x")), _arr(tr.get("y"))
            for i in range(min(len(x), len(y))):
                if den and all(_selects(x[i], v) for _, v in key.terms[1].where) and _num(y[i]):
                    c = float(y[i]) / den
                    if _in_chart(fig, key.terms[0].where, num * c):
                        return True
    return False


def _texts(at) -> list[str]:
    """The page's texts, but not the charts' summaries in words (a range of values is not a reading)."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption if not c.value.startswith("Chart in words")]
    out += [f"{m.label} {m.value}" for m in at.metric]
    out += [e.value for kind in ("success", "info", "warning") for e in getattr(at, kind)]
    return out


def _in_text(texts, value) -> bool:
    v = _num(value)
    if v is None:
        return False
    if math.isinf(v):
        return any("∞" in t for t in texts)
    forms = {f"{v:.3g}", f"{v:.4g}", f"{v:.2f}", f"{v:.3f}", f"{v:g}"}
    return any(re.search(rf"(^|[^\d.]){re.escape(f)}([^\d]|$)", t) for t in texts for f in forms)


def _shown_tables(at) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe] + [t.value for t in at.table]


def _figures(at) -> list[dict]:
    return [figure_of(c) for c in charts(at)]


@pytest.mark.parametrize("lesson,i,step", STEPS, ids=[f"{ls.id}-step{i}" for ls, i, _ in STEPS])
def test_every_question_is_answerable_from_its_step(lesson, i, step):
    spec = get(step.page).PAGE_SPEC
    at = AppTest.from_file(str(ROOT / spec.file), default_timeout=300)
    at.query_params.update({"lesson": lesson.id, "step": str(i)})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    tables = get(step.page).run(step_scenario(step)).tables()  # what the key reads
    shown, figs, texts = _shown_tables(at), _figures(at), _texts(at)
    by = step.claims.answered_by
    if step.question is not None and step.question.key:  # the panel says which table answers the step
        assert by is not None and any(by.sentence() in c.value for c in at.caption), f"{lesson.id} step {i}"
    for k in _keys(step):
        _assert_on_screen(parse_key(k), tables, shown, figs, texts, f"{lesson.id} step {i}")
    # what the step's text names on the page (an expander, a tab, a heading, a button) is there, by that name
    labels = " ".join(" ".join(_labels(at)).split())
    for name in _named(step.text):
        assert name in labels, f"{lesson.id} step {i}: the text names *{name}*, which this page does not show"
    hint = (step.question.hint if step.question is not None else "") or ""
    for name in re.findall(r"table \"([^\"]+)\"|\"([a-z_]+)\" table", hint):
        named = next(n for n in name if n)
        assert named not in tables or any(named in str(d.columns) for d in shown), f"hint names {named!r}"


def _named(text: str) -> list[str]:
    """The page elements a step's text names in italics: a title (capitalised, or of three words or more;
    "*any*" is emphasis, not a name)."""
    out = []
    for m in re.findall(r"(?<![*\w])\*([^*\n]+?)\*(?![*\w])", " ".join(text.split())):
        if m[0].isupper() or len(m.split()) >= 3:
            out.append(m)
    return out


def _labels(at) -> list[str]:
    """Every name the page shows: headings, expanders, tabs, buttons, metrics and its texts."""
    out = [e.label for e in at.expander] + [t.label for t in at.tabs] + [b.label for b in at.button]
    out += [h.value for kind in ("title", "header", "subheader") for h in getattr(at, kind)]
    return out + [m.label for m in at.metric] + _texts(at)


def _assert_on_screen(key, tables, shown, figs, texts, where: str) -> None:
    """Every cell ``key`` reads is on the screen (a table row, a chart point in view, or a text)."""
    if key.op in ("/", "<", ">") and _ratio_in_chart(key, tables, figs):
        return  # both terms read off one chart on the same scale (n·w_i)
    for term in key.terms:
        cells = _cells(term, tables)
        what = f"{where}: {term.table}{list(term.where)}.{term.column}"
        if term.agg in ("all", "any") or all(isinstance(c, bool) for c in cells):
            assert any(term.column in d.columns for d in shown), f"{what}: a yes/no column the step does not show"
            continue
        for value in cells:
            assert (
                any(_in_table(d, term.where, value) for d in shown)
                or any(_in_chart(f, term.where, value) for f in figs)
                or _in_text(texts, value)
            ), f"{what} = {value!r} is not on the screen (no table row, chart point in view, or text states it)"
