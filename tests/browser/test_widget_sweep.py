"""The widget sweep in Chromium: every page is used the way a person uses it, widget type by widget type.

* sliders: the first three sidebar sliders moved one after another (where the group-wise zCDP crash
  appeared);
* every editable table: one cell edited with the mouse (double-click, type, Enter) and one with the
  keyboard (arrows, Enter, type, Enter), a row added and filled in, a row deleted — the edit is kept
  and no error element appears (editing a cell crashed two pages: nothing had edited one);
* every text input: typed into and confirmed with Enter;
* one of every other input type on the page (number input, checkbox, toggle, radio, selectbox,
  multiselect), changed and changed back.

Every view's widget types must be covered here or listed in UNSWEPT with the reason. Screenshots
under tests/artifacts/.
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from hetdp_core.framework.registry import specs
from hetdp_core.scenarios import get
from hetdp_ui.nav import scenario_entries, tools

from .test_browser import ERROR_SELECTORS, assert_no_errors, wait_idle
from .test_first_session import _block_outside

pytestmark = pytest.mark.browser

#: every page in its cheap view and in the view that shows its text boxes and tables (its spec's
#: ``fast_query`` and ``text_view``; they appear only in some modes), then the other pages of the menu (the
#: Class page's inputs are typed into by tests/browser/test_class_browser.py)
VIEWS = [
    ("Home", ""),
    *(
        (s.url, q)
        for s in specs()
        for q in dict.fromkeys([urlencode(s.fast_query), urlencode({**s.fast_query, **(s.text_view or {})})])
    ),
    *((url, "") for _, _, url, _, _ in tools() if url != "Class"),
]

#: widget types swept here (Streamlit's data-testid of the element)
SWEPT = {
    "stSlider",
    "stDataFrame",  # editable tables (with an "Add row" button); read-only tables are not inputs
    "stTextInput",
    "stNumberInput",
    "stCheckbox",
    "stRadio",
    "stSelectbox",
    "stMultiSelect",
}
#: widget types not swept here, and why
UNSWEPT = {
    "stFileUploader": "uploads are tested with real files: test_browser.py (hostile CSVs) and the ledger's TOML",
    "stButton": "each button's action has its own test (pin plan A, solve, lesson navigation, use this plan)",
    "stDownloadButton": "downloads are opened and checked in test_browser.py and test_ledger_browser.py",
    "stPageLink": "the menu's links: test_first_session.py follows them (back after a side trip)",
    "stLinkButton": "a link to the documentation in a new tab: test_first_session.py",
    "stExpander": "not an input; opened where a test needs its content",
    "stTabs": "not an input; the sweep opens every tab to reach the widgets inside",
}
WIDGETS = sorted(SWEPT | set(UNSWEPT))
#: the page's Preset selectbox is not swept here: a preset loads a paper-scale scenario (minutes in a
#: browser); tests/test_widget_sweep.py (AppTest) sets every preset of every page
PRESET = "Preset"


#: every chart element of the page has been drawn: a chart's script draws it once plotly.js has loaded,
#: which a new visitor's browser does when its first chart arrives — seconds after the run is over on a
#: loaded machine (a full run found the guarantee lab's only chart, the meaning panel's deployments strip,
#: not yet drawn: "no chart drawn")
CHARTS_DRAWN = (
    "() => [...document.querySelectorAll('.hetdp-chart, [data-testid^=\"stBidiComponent\"]')]"
    ".every((c) => c.querySelector('.main-svg'))"
)


def _idle(page):
    """The run is over and drawn: no 'running' status, no placeholder skeleton left (both in ``IDLE``),
    every chart drawn (``CHARTS_DRAWN``)."""
    wait_idle(page, timeout=120_000)
    page.wait_for_function(CHARTS_DRAWN, timeout=120_000)


def _clean(page, what: str):
    errs = page.locator(ERROR_SELECTORS)
    assert errs.count() == 0, (what, [errs.nth(i).inner_text()[:300] for i in range(errs.count())])


# ------------------------------------------------------------------ sliders
@pytest.mark.parametrize("path", [p[2] for p in scenario_entries()])
def test_first_sidebar_sliders_one_after_another(page, server, artifacts, path):
    """Move each of the first three sidebar sliders one step, in turn: no exception, no error box
    (an info or warning note is fine), the charts drawn anew from the new values and the view's link
    carrying them, and no request leaves the server."""
    blocked = _block_outside(page, server)
    sp = get(path).SCENARIO.specs()
    page.goto(f"{server}/{path}?trials={int(sp['trials'].lo)}" if "trials" in sp else f"{server}/{path}")

    def sliders():
        return page.locator('[data-testid="stSidebar"]').get_by_role("slider")

    sliders().first.wait_for()
    _idle(page)
    # a reader opens every panel of the page (on screen: not in a tab that is not shown) …
    closed = page.locator('[data-testid="stExpander"] details:not([open]) > summary:visible')
    for _ in range(closed.count()):
        closed.first.click()
        page.wait_for_timeout(150)
    _idle(page)
    opened = _open_panels(page)
    assert opened, f"{path}: no panel to open"
    n = min(sliders().count(), 3)
    assert n >= 1
    charts, metrics, link = _charts(page), _metrics(page), page.url
    assert json.loads(charts), f"{path}: no chart drawn"
    for i in range(n):
        sliders().nth(i).focus()
        page.keyboard.press("ArrowRight")
        _idle(page)
        assert_no_errors(page)
    # what the sliders drive is drawn anew: a chart, or where the view's only charts do not depend on
    # them (the guarantee lab's Example 1: its answer is a table of probabilities and its levels; the
    # meaning panel's strip places the translator's levels), its metrics and tables
    # (a table's cells and a chart's drawing follow the run by a few frames: asked until they change, 30 s)
    if path in METRICS_VIEW:
        assert _changed(page, _metrics, metrics), f"{path}: the sliders moved and no metric or table changed"
    else:
        assert _changed(page, _charts, charts), f"{path}: the sliders moved and no chart changed"
    assert page.url != link, f"{path}: the sliders moved and the link stayed {link}"
    # then another widget, which is where the group-wise zCDP crash appeared
    sliders().first.focus()
    page.keyboard.press("ArrowLeft")
    _idle(page)
    assert_no_errors(page)
    # … and they are still open: a run that computed drew an element more than a cached one, which moved
    # every element after it, so Streamlit drew them anew — the panels closed at each slider step
    assert _open_panels(page) == opened, (path, opened, _open_panels(page))
    page.screenshot(path=str(artifacts / f"sliders_{path}.png"), full_page=True)
    assert blocked == [], blocked


#: pages whose default view's first sidebar sliders drive metrics, not a chart
METRICS_VIEW = {"BCDP_guarantee_lab"}


def _changed(page, read, before, timeout_s: float = 30.0) -> bool:
    """Whether ``read(page)`` comes to differ from ``before`` within ``timeout_s`` (asked every 0.2 s)."""
    deadline = time.monotonic() + timeout_s
    while read(page) == before:
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(200)
    return True


def _metrics(page) -> list:
    """The values of the page's metrics and the cells of its tables, as shown (a table is a canvas: its
    cells read from the grid's accessible table, :class:`Grid`)."""
    tables = page.locator('[data-testid="stDataFrame"]:visible')
    cells = [sorted(Grid(page, tables.nth(i)).cells().items()) for i in range(tables.count())]
    return [page.locator('[data-testid="stMetricValue"]').all_inner_texts(), cells]


def _charts(page) -> str:
    """What every chart drawn on the page shows (plotly's own: its traces' x, y and z, and the lines and
    labels its layout draws — a level is a line on the deployments strip, whose points stay), as JSON."""
    return page.evaluate(
        "() => JSON.stringify([...document.querySelectorAll('.js-plotly-plot')].map(p => ["
        "(p.data || []).map(t => [t.x, t.y, t.z]),"
        "((p.layout || {}).shapes || []).map(s => [s.x0, s.x1, s.y0, s.y1]),"
        "((p.layout || {}).annotations || []).map(a => [a.x, a.y, a.text])]))"
    )


def _open_panels(page) -> list[str]:
    """The titles of the page's open expanders."""
    return page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"stExpander\"] details[open] > summary')]"
        ".map(s => (s.querySelector('[data-testid=\"stMarkdownContainer\"]') || s).innerText.trim())"
    )


# ------------------------------------------------------------------ editable tables
class Grid:
    """An editable table (Streamlit's data editor, a canvas): cells are read from its accessible table
    (``glide-cell-<col>-<row>``, ``aria-readonly``); cells are reached by the mouse on the canvas
    (rows 35 px high under a 35 px header) or by the keyboard."""

    ROW = 35

    def __init__(self, page, element):
        self.page, self.el = page, element

    def canvas(self):
        return self.el.locator('[data-testid="data-grid-canvas"]').bounding_box()

    def cells(self) -> dict[tuple[int, int], tuple[str, bool]]:
        """The cells of the grid's accessible table, once it has any (a grid drawn anew fills it a few frames
        after the run is over; at most 30 s, then what is there)."""
        try:
            self.page.wait_for_function(
                "e => e.querySelector('[data-testid^=\"glide-cell-\"]')", arg=self.el.element_handle(), timeout=30_000
            )
        except PlaywrightTimeout:
            pass  # an empty table: no cell to wait for
        raw = self.el.evaluate(
            "e => [...e.querySelectorAll('[data-testid^=\"glide-cell-\"]')].map(c => "
            "[c.getAttribute('data-testid'), c.textContent, c.getAttribute('aria-readonly') === 'true'])"
        )
        out = {}
        for tid, text, readonly in raw:
            _, _, col, row = tid.split("-")
            out[int(col), int(row)] = (text, readonly)
        return out

    def rows(self) -> int:
        return 1 + max((r for _, r in self.cells()), default=-1)

    def selected(self) -> tuple[int, int] | None:
        tid = self.el.evaluate(
            'e => { const c = e.querySelector(\'[data-testid^="glide-cell-"][aria-selected="true"]\');'
            " return c && c.getAttribute('data-testid'); }"
        )
        if not tid:
            return None
        _, _, col, row = tid.split("-")
        return int(col), int(row)

    def y(self, row: int) -> float:
        return self.canvas()["y"] + self.ROW * (row + 1) + self.ROW / 2

    def editable_x(self, row: int) -> tuple[float, int]:
        """(x on the canvas, column) of the first editable cell of ``row``, found by clicking along it."""
        box = self.canvas()
        for dx in range(20, int(box["width"]) - 5, 20):
            self.page.mouse.click(box["x"] + dx, self.y(row))
            self.page.wait_for_timeout(120)
            sel = self.selected()
            if sel and sel[1] == row and not self.cells().get(sel, ("", True))[1]:
                return box["x"] + dx, sel[0]
        raise AssertionError(f"no editable cell in row {row}")


def _new_value(text: str) -> str:
    """A value a person might type instead of ``text``: a nearby number, or a longer name."""
    try:
        x = float(text)
    except ValueError:
        return (text + " b").strip() if text else "new release"
    return str(int(x) + 1) if x.is_integer() else f"{x * 1.5:.3g}"


#: the table's cell editor (Glide's overlay input) has the keyboard
_EDITING = "() => !!document.activeElement && document.activeElement.classList.contains('gdg-input')"


def _settle_editor(page, *, want: bool):
    """Wait (up to 30 s under load) until the cell editor is open (``want``) or closed."""
    page.wait_for_function(_EDITING if want else f"() => !({_EDITING})()", timeout=30_000)


def _open_selected_cell(page):
    """Open the selected cell's editor with Enter, unless a click on the selected cell already opened it."""
    page.wait_for_timeout(300)
    if not page.evaluate(_EDITING):
        page.keyboard.press("Enter")


def _type_and_enter(page, value: str):
    """Replace the open editor's text with ``value`` and confirm with Enter. The editor is waited for,
    not assumed: under load a fixed pause let the keys reach the grid before the editor had opened."""
    _settle_editor(page, want=True)
    page.keyboard.press("Control+a")
    page.keyboard.type(value)
    page.wait_for_timeout(200)
    page.keyboard.press("Enter")
    _settle_editor(page, want=False)


def _keyboard_edit(page, grid: Grid, x: float, col: int, value: str) -> None:
    """Type ``value`` into cell (``col``, 1) with the keyboard: click the cell above it (at ``x``),
    ArrowDown, Enter, type, Enter. A click on the selected cell opens its editor, sometimes only after a
    moment under load (then the arrow went into the editor): an open editor is closed with Escape (no
    change) and the arrow pressed again."""
    below = (
        f"e => {{ const c = e.querySelector('[data-testid=\"glide-cell-{col}-1\"]');"
        " return c && c.getAttribute('aria-selected') === 'true'; }"
    )
    page.mouse.click(x, grid.y(0))
    for _ in range(5):
        page.wait_for_timeout(400)
        if page.evaluate(_EDITING):
            page.keyboard.press("Escape")
            _settle_editor(page, want=False)
            continue
        page.keyboard.press("ArrowDown")
        try:
            page.wait_for_function(below, arg=grid.el.element_handle(), timeout=6_000)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError(f"cell ({col}, 1) could not be selected with the keyboard")
    page.keyboard.press("Enter")
    _type_and_enter(page, value)
    _idle(page)


def _sweep_grid(page, grid: Grid, where: str):
    before = grid.cells()
    rows = grid.rows()
    # one cell by mouse
    x, col = grid.editable_x(0)
    value = _new_value(before[col, 0][0])
    page.mouse.dblclick(x, grid.y(0))
    _type_and_enter(page, value)
    _idle(page)
    _clean(page, f"{where}: mouse edit of cell ({col}, 0)")
    assert grid.cells()[col, 0][0] == value, (where, "mouse edit not kept", grid.cells()[col, 0], value)
    # one cell by keyboard: select the cell below, Enter opens it
    if rows > 1:
        value = _new_value(grid.cells()[col, 1][0])
        _keyboard_edit(page, grid, x, col, value)
        _clean(page, f"{where}: keyboard edit of cell ({col}, 1)")
        assert grid.cells()[col, 1][0] == value, (where, "keyboard edit not kept", grid.cells()[col, 1], value)
    # a row added and filled in
    grid.el.hover()
    grid.el.get_by_role("button", name="Add row").click()
    _idle(page)
    _clean(page, f"{where}: row added")
    assert grid.rows() == rows + 1, (where, "no row added")
    page.mouse.click(x, grid.y(rows))
    _open_selected_cell(page)
    value = _new_value(before[col, 0][0])
    _type_and_enter(page, value)
    _idle(page)
    _clean(page, f"{where}: new row filled in")
    assert grid.cells()[col, rows][0] == value, (
        where,
        "the new row's first value was lost",
        list(grid.cells().items()),
    )
    # and deleted again: select it by its row marker, Delete
    page.mouse.click(grid.canvas()["x"] + 12, grid.y(rows))
    page.wait_for_timeout(200)
    page.keyboard.press("Delete")
    _idle(page)
    _clean(page, f"{where}: row deleted")
    assert grid.rows() == rows, (where, "row not deleted", grid.rows(), rows)


# ------------------------------------------------------------------ the other inputs
def _sweep_text_inputs(page, where: str) -> int:
    boxes = page.locator('[data-testid="stTextInput"] input:visible')
    for i in range(boxes.count()):
        box = boxes.nth(i)
        old = box.input_value()
        box.click()
        page.keyboard.press("End")
        page.keyboard.type(" ")  # a change every list and name reader accepts
        page.keyboard.press("Enter")
        _idle(page)
        _clean(page, f"{where}: typed into text input {i} ({old!r})")
        assert boxes.nth(i).input_value().strip() == old.strip(), (where, "typed text not kept")
    return boxes.count()


def _shown(page, testid: str, reveal, expected: bool):
    """The visible widgets of one type; where the page showed one before (``expected``), wait for a
    rerun still being drawn (under load the page may redraw a tab or expander a few seconds late)."""
    loc = page.locator(f'[data-testid="{testid}"]:visible')
    for _ in range(20 if expected else 0):  # up to 20 s: two suites share two cores in make test
        if loc.count():
            break
        page.wait_for_timeout(1000)
        _idle(page)
        reveal()
    return loc


def _sweep_one_of_each(page, where: str, reveal, present: set[str] = frozenset()) -> set[str]:
    """One input of every other type, changed and changed back; ``reveal()`` shows the current tab and
    opens the expanders again (a rerun may draw them anew: first tab, closed); ``present``: the types this
    tab showed before the sweep."""
    done = set()
    reveal()
    num = page.locator('[data-testid="stNumberInput"] input:visible')
    if num.count():
        box = num.first
        old = box.input_value()
        box.click()
        page.keyboard.press("Control+a")
        page.keyboard.type(old)
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        _idle(page)
        _clean(page, f"{where}: number input up one step")
        done.add("stNumberInput")
    reveal()  # the number's rerun may have drawn the tabs anew
    boxes = _shown(page, "stCheckbox", reveal, "stCheckbox" in present)
    if boxes.count():
        label = boxes.first.inner_text() or boxes.first.get_by_role("checkbox").get_attribute("aria-label")
        for turn in ("on/off", "back"):
            reveal()  # the click's rerun may have drawn its tab or expander anew
            box = page.locator('[data-testid="stCheckbox"]:visible').filter(has_text=label or "")
            box = box if (label and box.count()) else page.locator('[data-testid="stCheckbox"]:visible')
            box.first.get_by_role("checkbox").click(force=True)  # the input is visually hidden in its label
            _idle(page)
            _clean(page, f"{where}: checkbox {label!r} clicked ({turn})")
        done.add("stCheckbox")
    reveal()
    radios = _shown(page, "stRadio", reveal, "stRadio" in present)
    for i in range(radios.count()):
        group = radios.nth(i).get_by_role("radiogroup")
        name = group.get_attribute("aria-label")
        options = group.get_by_role("radio")
        if options.count() >= 2:
            now = next(j for j in range(options.count()) if options.nth(j).is_checked())
            for j in ((now + 1) % options.count(), now):  # another option, then back
                reveal()
                page.get_by_role("radiogroup", name=name).first.get_by_role("radio").nth(j).click(force=True)
                _idle(page)
                _clean(page, f"{where}: radio {name!r} option {j}")
            done.add("stRadio")
            break
    reveal()
    selects = page.locator('[data-testid="stSelectbox"]:visible')
    for i in range(selects.count() - 1, -1, -1):  # the last one: the first is the page's preset
        sel = selects.nth(i)
        if PRESET in sel.inner_text():
            continue
        sel.get_by_role("combobox").click()
        page.keyboard.press("ArrowDown")  # opens the list
        page.wait_for_timeout(300)
        opts = page.get_by_role("option")
        if opts.count() >= 2:
            opts.nth(1).click()
            _idle(page)
            _clean(page, f"{where}: selectbox option 2")
            done.add("stSelectbox")
            break
        page.keyboard.press("Escape")
    reveal()
    multi = _shown(page, "stMultiSelect", reveal, "stMultiSelect" in present)
    if multi.count():
        box = multi.first.get_by_role("combobox")
        # the selected options' tags (this Streamlit's multiselect marks them data-tag; the older
        # data-baseweb="tag" matched nothing, so the step could only ever remove one)
        tags = multi.first.locator('[data-testid="stMultiSelectTagsContainer"] [data-tag]')
        before = tags.count()
        opts = page.get_by_role("option").filter(has_not_text="Select all")  # one option, not every one
        for _ in range(3):  # the list may not open while a rerun redraws the box: try again once it is drawn
            box.click()
            page.wait_for_timeout(200)
            if opts.count():
                break
            page.keyboard.press("Escape")
            _idle(page)
        if not opts.count():  # nothing was added, so nothing is taken back
            return done
        opts.first.click()  # one more option
        _idle(page)
        _clean(page, f"{where}: multiselect: one option added")
        # the edit is kept: the option's tag is there once the rerun has drawn the box again (under load
        # the box is briefly redrawn without its tags)
        expect(tags).to_have_count(before + 1, timeout=60_000)
        box.click()
        page.keyboard.press("Backspace")  # and the added one removed again (only after an add: a removal
        page.keyboard.press("Escape")  # without one, once per tab, emptied the box on a loaded machine)
        _idle(page)
        _clean(page, f"{where}: multiselect: one option removed")
        expect(tags).to_have_count(before, timeout=60_000)
        done.add("stMultiSelect")
    return done


#: the inputs this sweep uses, as a selector: a closed expander is opened when it holds one
_INPUTS = ", ".join(f'[data-testid="{w}"]' for w in sorted(SWEPT))


def _open_expanders(page):
    """Open every closed expander of the page that holds an input (widgets inside them are swept too), or
    holds nothing yet (a panel drawn only while open, as the meaning panel: what it holds is unknown).
    Streamlit draws a closed expander's content, hidden, so what it holds is known before it is opened;
    one holding only text, formulas or charts stays closed (opening every one, and waiting for a run that
    an opening does not start, took a third of a sweep)."""
    # only expanders on screen: one inside a tab not shown cannot be clicked (and is opened when its tab is)
    closed = page.locator('[data-testid="stExpander"] details:not([open])')
    closed = (
        closed.filter(has=page.locator(_INPUTS))
        .or_(closed.filter(has_not=page.locator('[data-testid="stElementContainer"]')))
        .locator(":scope > summary:visible")
    )
    opened = 0
    for _ in range(closed.count()):
        if not closed.count():
            break
        closed.first.click()
        opened += 1
        page.wait_for_timeout(150)
    if opened:
        _idle(page)


def _reveal(page, t: int):
    if _tabs(page).count() > t:
        _tabs(page).nth(t).click()
        page.wait_for_timeout(200)
    _open_expanders(page)


def _tabs(page):
    return page.locator('[data-testid="stMain"] [role="tab"]')


#: pages whose inputs sit in tabs, by their number of tabs: each is swept in two tests (the first tabs,
#: then the rest), so no sweep runs a minute on its own and the two workers share them
TABBED = {"BCDP_guarantee_lab": 5, "Mechanism_lab": 5}


def _parts(path: str) -> list[tuple[int, ...] | None]:
    n = TABBED.get(path)
    return [None] if n is None else [tuple(range(0, (n + 1) // 2)), tuple(range((n + 1) // 2, n))]


#: the views (a tabbed page's in two parts) in two halves, one per test file (this one and
#: test_widget_sweep_second_half.py): the whole sweep on one worker was the last ~3 minutes of `make test`
SWEEPS = [(p, q, part) for p, q in VIEWS for part in _parts(p)]
FIRST_HALF, SECOND_HALF = SWEEPS[0::2], SWEEPS[1::2]


def view_ids(views) -> list[str]:
    def one(p, q, part):
        tabs = "" if part is None else f" tabs {part[0] + 1}-{part[-1] + 1}"
        return (f"{p}?{q}" if q else p) + tabs

    return [one(*v) for v in views]


@pytest.mark.parametrize("path,query,tabs", FIRST_HALF, ids=view_ids(FIRST_HALF))
def test_every_table_and_text_input_and_one_of_every_other_input(page, server, artifacts, path, query, tabs):
    sweep_view(page, server, artifacts, path, query, tabs)


def sweep_view(page, server, artifacts, path, query, tabs=None):
    """Open one view and use every table, every text input and one input of every other type (of the
    tabs numbered in ``tabs`` only, where given: a part of a tabbed page, :data:`TABBED`)."""
    blocked = _block_outside(page, server)
    page.goto(f"{server}/{'' if path == 'Home' else path}{'?' + query if query else ''}")
    page.locator("h1").first.wait_for()
    _idle(page)
    _clean(page, f"{path}: opened")
    stray = {
        t
        for t in page.evaluate(
            "() => [...new Set([...document.querySelectorAll('[data-testid^=\"st\"]')]"
            ".map(e => e.getAttribute('data-testid')))]"
        )
        if t.endswith(("Input", "Select", "Selectbox", "Slider", "Picker", "Uploader", "Editor", "Toggle"))
        and not t.startswith(tuple(WIDGETS))  # a part of a known widget (the uploader's drop zone, …)
    }
    assert not stray, f"{path}: widget types neither swept nor justified in UNSWEPT: {sorted(stray)}"
    shown_tabs = _tabs(page).count()
    if path in TABBED:
        assert shown_tabs == TABBED[path], f"{path}: {shown_tabs} tabs, TABBED says {TABBED[path]}"
    grids = texts = 0
    done: set[str] = set()
    seen: set[str] = set()
    for t in range(max(1, shown_tabs)):
        if tabs is not None and t not in tabs:
            continue
        if _tabs(page).count():
            _tabs(page).nth(t).click()
            page.wait_for_timeout(300)
        _open_expanders(page)
        here = {w for w in WIDGETS if page.locator(f'[data-testid="{w}"]:visible').count()}
        seen |= here
        if page.locator('[data-testid="stSelectbox"]:visible').filter(has_not_text="Preset").count() == 0:
            seen.discard("stSelectbox")  # only the page's Preset: see PRESET
        for i in range(page.locator('[data-testid="stDataFrame"]:visible').count()):
            if i >= page.locator('[data-testid="stDataFrame"]:visible').count():
                break  # a rerun drew fewer tables
            el = page.locator('[data-testid="stDataFrame"]:visible').nth(i)
            el.hover()
            page.wait_for_timeout(400)  # the table's toolbar fades in
            if el.get_by_role("button", name="Add row").count():
                _sweep_grid(page, Grid(page, el), f"{path} table {i}")
                grids += 1
        texts += _sweep_text_inputs(page, f"{path} tab {t}")
        done |= _sweep_one_of_each(page, f"{path} tab {t}", lambda t=t: _reveal(page, t), here)
    assert_no_errors(page)
    part = "" if tabs is None else f"_tabs{tabs[0] + 1}-{tabs[-1] + 1}"
    page.screenshot(
        path=str(artifacts / f"sweep_{path}{'_' + re.sub(r'[^a-z]+', '_', query) if query else ''}{part}.png")
    )
    if path in ("Release_ledger",) or "mode=table" in query or "mode=list" in query:
        assert grids >= 1, f"{path}: the editable table was not found"
    assert blocked == [], blocked
    missing = seen & (SWEPT - {"stSlider", "stDataFrame", "stTextInput"}) - done
    assert not missing, f"{path}: present but not swept: {sorted(missing)}"


def test_a_table_edit_survives_leaving_list_mode_and_coming_back(page, server, artifacts):
    """Group sizes edited in the table, then the Zipf generator and back to the list: the table shows the
    edited list (it showed the list as it was before the edit: Streamlit had dropped the table's edits
    while it was not drawn), and the next edit adds to it instead of writing the old list back."""
    page.goto(f"{server}/Groupwise_zCDP?algorithm=1&trials=50&mode=list&counts=10,20,30")
    grid = Grid(page, page.locator('[data-testid="stDataFrame"]').first)
    grid.el.wait_for()
    _idle(page)
    text = page.locator('[data-testid="stSidebar"] [data-testid="stTextInput"] input')
    x, col = grid.editable_x(0)
    page.mouse.dblclick(x, grid.y(0))
    _type_and_enter(page, "11")
    _idle(page)
    expect(text).to_have_value("11,20,30", timeout=60_000)
    mode = page.get_by_role("radiogroup").first.get_by_role("radio")
    for option in (0, 1):  # the Zipf generator (no table), then the list again
        mode.nth(option).click(force=True)
        _idle(page)
    grid = Grid(page, page.locator('[data-testid="stDataFrame"]').first)
    grid.el.wait_for()
    _idle(page)
    assert [grid.cells()[col, r][0] for r in range(3)] == ["11", "20", "30"], grid.cells()
    x, col = grid.editable_x(0)
    _keyboard_edit(page, grid, x, col, "21")
    expect(text).to_have_value("11,21,30", timeout=60_000)
    _clean(page, "group sizes edited after a mode change")
    page.screenshot(path=str(artifacts / "table_after_mode_change.png"), full_page=True)
