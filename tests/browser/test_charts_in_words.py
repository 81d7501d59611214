"""Charts say what they draw, in real Chromium: on every page (and a lesson step whose MSE chart marks
values above its top edge), every "Chart in words" is read from the screen and compared with the data of
the figure drawn above it — each series' count and the range of its *values* (where a trace draws a value
at a position that is not the value, its ``meta`` carries the value), in the quantity's one formatter —
and no two value labels, annotations or titles of a visible chart overlap, judged from their boxes on
screen (:func:`check_charts_in_words`: run on each page by the page-by-page test of
tests/browser/test_accessibility.py, in the same page load as axe). Screenshots of each page go to
tests/artifacts/ (``words_<page>.png``)."""

from __future__ import annotations

import math
from urllib.parse import urlencode

import pytest

from hetdp_core.reading.words import formatted

from .test_browser import assert_no_errors, wait_idle

pytestmark = pytest.mark.browser


def _paths() -> list[tuple[str, str]]:
    """The views whose charts are checked (name, path): every scenario page, the ledger, a lesson step."""
    from hetdp_core.framework.registry import specs

    out = [(s.slug, f"/{s.url}" + (f"?{urlencode(dict(s.fast_query))}" if s.fast_query else "")) for s in specs()]
    return out + [
        ("release_ledger", "/Release_ledger"),
        # lesson 1's view: exact MSEs above the chart, marked ▲ with their values at the top edge
        ("lesson_mse", "/Feature_privacy?lesson=1-bcdp-feature-privacy&step=2"),
    ]


#: every chart on the page with the caption under it, the traces' data (typed arrays as plain arrays),
#: the y axis's labels, and the boxes of the chart's value labels and annotations
READ = """() => {
  const plain = (a) => a == null ? null : (ArrayBuffer.isView(a) ? Array.from(a)
      : Array.isArray(a) ? a.map(plain) : a);
  const out = [];
  for (const el of document.querySelectorAll('.hetdp-chart')) {
    const gd = el;  // the chart's own div (hetdp_ui.chart_element), which plotly draws into
    let box = el.closest('[data-testid="stElementContainer"]') || el;
    let caption = null;
    for (let n = box.nextElementSibling; n; n = n.nextElementSibling) {
      const t = (n.textContent || '').trim();
      if (n.querySelector('.hetdp-chart')) break;
      if (t.startsWith('Chart in words: ')) { caption = t; break; }
    }
    const r = el.getBoundingClientRect();
    const visible = r.width > 0 && r.height > 0 && el.offsetParent !== null;
    const labels = visible ? [...gd.querySelectorAll('.textpoint text, g.annotation-text-g text, .gtitle')]
      .filter(t => (t.textContent || '').trim())
      .map(t => { const b = t.getBoundingClientRect();
                  return {text: t.textContent, x0: b.left, y0: b.top, x1: b.right, y1: b.bottom}; })
      .filter(b => b.x1 > b.x0 && b.y1 > b.y0) : [];
    const ya = (gd.layout && gd.layout.yaxis) || {};
    out.push({
      caption, visible, labels,
      y_labels: !!ya.ticktext && ya.type !== 'log',
      traces: (gd.data || []).map(t => ({
        name: t.name || null, type: t.type || 'scatter', showlegend: t.showlegend === undefined ? null : t.showlegend,
        orientation: t.orientation || null, x: plain(t.x), y: plain(t.y), z: plain(t.z),
        meta: (t.meta && typeof t.meta === 'object' && !Array.isArray(t.meta)) ? plain(t.meta) : null,
      })),
    });
  }
  return out;
}"""


def _values(tr: dict, y_labels: bool) -> tuple[list[float], str | None]:
    """A trace's values as the chart in words must read them: its meta's values, a heatmap's z, the x of
    a histogram or horizontal trace or of rows named on the y axis, else the y (None where not a number)."""
    meta = tr["meta"] or {}
    if "values" in meta:
        vals = meta["values"]
    elif tr["type"] == "heatmap":
        vals = [v for row in (tr["z"] or []) for v in (row if isinstance(row, list) else [row])]
    elif tr["type"] == "histogram" or tr["orientation"] == "h" or y_labels:
        vals = tr["x"]
    else:
        vals = tr["y"]
    out = []
    for v in vals or []:
        try:
            out.append(float("nan") if v is None else float(v))
        except (TypeError, ValueError):
            return [], meta.get("quantity")
    return out, meta.get("quantity")


def expected_series(chart: dict) -> list[str]:
    """What the chart in words must say of each series, from the drawn figure's own data."""
    said = []
    for tr in chart["traces"]:
        if tr["showlegend"] is False and not tr["name"]:
            continue
        name = tr["name"] or tr["type"]
        vals, quantity = _values(tr, chart["y_labels"])
        fin = [v for v in vals if math.isfinite(v)]
        n = len(vals)
        count = f"{n} value{'s' if n != 1 else ''}"
        if fin:
            lo, hi = formatted(min(fin), quantity), formatted(max(fin), quantity)
            rng = lo if min(fin) == max(fin) else f"{lo} to {hi}"
            extra = f", {n - len(fin)} infinite" if n - len(fin) else ""
            said.append(f"{name}: {count}, {rng}{extra}")
        elif n:
            said.append(f"{name}: {count}, none finite")
        else:
            said.append(str(name))
    return said


def overlaps(labels: list[dict], tolerance: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes overlap by more than ``tolerance`` pixels both ways."""
    bad = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            w = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            h = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if w > tolerance and h > tolerance:
                bad.append((a["text"], b["text"]))
    return bad


def test_expected_series_reads_values_not_positions():
    """The reading rule itself: a ▲ drawn at the top edge says its value, a legend-only entry its meta."""
    chart = {
        "y_labels": False,
        "traces": [
            {"name": "m: exact MSE above the chart", "type": "scatter", "showlegend": None, "orientation": None,
             "x": [0.1], "y": [12.5], "z": None, "meta": {"values": [15.03]}},
            {"name": "headline", "type": "scatter", "showlegend": None, "orientation": None,
             "x": [None], "y": [None], "z": None, "meta": {"values": [1.925, 3.175]}},
        ],
    }  # fmt: skip
    assert expected_series(chart) == [
        "m: exact MSE above the chart: 1 value, 15.03",
        "headline: 2 values, 1.925 to 3.175",
    ]
    box = {"x0": 0, "y0": 0, "x1": 10, "y1": 10}
    assert overlaps([{"text": "a", **box}, {"text": "b", **box, "x0": 5, "y0": 5}])
    assert not overlaps([{"text": "a", **box}, {"text": "b", **box, "x0": 10, "x1": 20}])


def check_charts_in_words(page, artifacts, name: str, path: str) -> None:
    """Every chart of the page on screen (the meaning panel opened: its charts are drawn only while open)
    says in words what its figure draws, and no two labels of a visible chart overlap. Called by the
    page-by-page test of tests/browser/test_accessibility.py, which has the page loaded for axe: one page
    load for both checks."""
    meaning = page.get_by_text("What does this level mean for a person?")
    if meaning.count():  # its charts (the trade-off curves, the deployments strip) are drawn only while open
        meaning.first.click()
        wait_idle(page, timeout=180_000)
    page.wait_for_timeout(1500)  # plotly lays out its labels after the element appears
    assert_no_errors(page)
    page.screenshot(path=str(artifacts / f"words_{name}.png"), full_page=True)
    charts = page.evaluate(READ)
    assert charts, f"{path}: no chart found"
    for i, chart in enumerate(charts):
        assert chart["caption"], f"{path}: chart {i} has no 'Chart in words' under it"
        series = chart["caption"].split("Series — ", 1)[1].rstrip(".")
        want = expected_series(chart)
        shown = want[:8]
        for s in shown:
            assert s in series, f"{path}: chart {i} should say {s!r}; it says {chart['caption']!r}"
        if len(want) > 8:
            assert f"and {len(want) - 8} more series" in series
        if chart["visible"] and chart["labels"]:  # a chart with value labels: its picture, to look at
            el = page.locator(".hetdp-chart").nth(i)
            el.scroll_into_view_if_needed()
            el.screenshot(path=str(artifacts / f"words_{name}_chart{i}.png"))
        assert not overlaps(chart["labels"]), f"{path}: chart {i}: overlapping labels {overlaps(chart['labels'])}"


def test_a_slider_its_link_a_sentence_and_a_table_show_one_value(page, server, artifacts):
    """One formatter per quantity: β = 0.055 was shown 0.06 on its slider while the link held 0.055, the
    text said 94 % and the table 94.5 %."""
    page.goto(server + "/Per_user_privacy?trials=20&n=1000&beta=0.055")
    page.locator('[data-testid="stSidebar"]').wait_for()
    wait_idle(page, timeout=180_000)
    assert_no_errors(page)
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="β")
    assert slider.locator('[data-testid="stSliderThumbValue"]').inner_text().strip() == "0.055"
    assert "beta=0.055" in page.url
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "Lowest 94.5 %-quantile error" in main and "94 %" not in main  # (the table is drawn on a canvas)
    slider.screenshot(path=str(artifacts / "words_beta_slider.png"))
