"""Small Streamlit helpers shared by every page: URL state, CSV download, log sliders, progress.

Pattern used by every page (its scenario module registered in :mod:`hetdp_core.registry`)::

    state = ScenarioState.of(fp)   # fields, presets and key prefix from the page's declaration
    state.init()                   # session values ← validated URL query params (bad ones reported)
    ... widgets through state.slider / state.number or with key=state.key(name) ...
    state.sync_url()               # write the current values back to the URL

URL query parameters are untrusted input: each is parsed by a strict parser (no eval), checked by
the same rules as the widget, and ignored with a visible warning when invalid.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from hetdp_core.scenario import (
    MAX_PIN_LENGTH,
    MAX_QUERY_VALUE,
    READING,
    InputError,
    RunOptions,
    Scenario,
    Spec,
    check_value,
    dump_value,
    in_short,
    log_grid,
)
from hetdp_ui.figcache import by_identity, csv_bytes
from hetdp_ui.runcache import ENV as CACHE_ENV
from hetdp_ui.runcache import DiskStore, RunCache, install_shared_memo

#: one limit per input: a URL value may be as long as the core accepts for any parameter (a list typed in
#: a widget reopens from the page's own link); a pinned plan A holds a whole query string
MAX_URL_VALUE = MAX_QUERY_VALUE


class UrlValueError(ValueError):
    """A URL query value that does not parse or is out of range."""


@dataclass(frozen=True)
class Param:
    default: Any
    parse: Callable[[str], Any]
    dump: Callable[[Any], str] = str


def parse_choice(options: Sequence[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise UrlValueError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


#: session key: the prefix of the scenario page whose script ran last (entering another page reads its URL)
_CURRENT_PAGE = "_hetdp_current_page"


class PageState:
    """Session-state defaults, validated URL query params and URL write-back for one page.

    ``presets`` maps a preset name to the values it sets (None = "Custom"); use
    ``on_change=state.apply_preset`` on the preset selector (key ``<prefix>_preset``) and
    ``on_change=state.mark_custom`` on inputs that a preset sets.
    """

    def __init__(self, prefix: str, params: dict[str, Param], presets: dict | None = None):
        self.prefix = prefix
        self.params = params
        self.presets = presets or {}

    def key(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def __getitem__(self, name: str) -> Any:
        return st.session_state[self.key(name)]

    def _url_values(self) -> dict[str, str | None]:
        """This page's parameters as the address bar holds them now (None = absent)."""
        return {name: st.query_params.get(name) for name in self.params}

    def init(self) -> list[str]:
        """Take the page's values from the URL when the URL is news to this session, else keep the
        session's; warn on bad parameters.

        The URL is read when it differs from what this session last read or wrote for this page and
        no widget moved since the last run: on entering the page (a menu link, a shared link, the
        browser's Back or Forward button) a
        parameter the URL omits takes its default, so a URL always means one view. Within the page
        the widgets rule and :meth:`sync_url` writes them back. On a run that read the URL nothing
        is written except on the session's first page (completing the address there is safe): the
        address already says what is shown, and Streamlit applies a query-string write made on a
        page's first run after a page switch to the previous page's path — a bogus history entry
        that broke the Back button after a side trip."""
        problems = []
        here = self._url_values()
        seen = st.session_state.get(f"_{self.prefix}_url")
        before = st.session_state.get(_CURRENT_PAGE)
        entering = before != self.prefix
        st.session_state[_CURRENT_PAGE] = self.prefix
        # a rerun that a widget (or a callback) caused: the browser may still send the query string of
        # an earlier run (Streamlit updates the address asynchronously), so the widgets rule; the URL is
        # news only when nothing moved — a Back/Forward within the page, or another link
        shown = st.session_state.get(f"_{self.prefix}_shown") or {}
        moved = any(
            name in shown
            and self.key(name) in st.session_state
            and p.dump(st.session_state[self.key(name)]) != shown[name]
            for name, p in self.params.items()
        )
        self.read_url = entering or (seen != here and not moved)
        self.hold_url = False
        if not self.read_url:
            # Streamlit drops the value of a widget that was not drawn on the last run (e.g. the
            # projection while 'as published' is on): it comes back as the URL last written has it,
            # without touching the other values (which may hold the change this run is for)
            for name, p in self.params.items():
                k = self.key(name)
                if k not in st.session_state:
                    try:
                        st.session_state[k] = p.parse(here[name]) if here[name] is not None else p.default
                    except UrlValueError:
                        st.session_state[k] = p.default
        else:
            for name, p in self.params.items():
                k = self.key(name)
                raw = here[name]
                if raw is not None:
                    try:
                        if len(raw) > MAX_URL_VALUE:
                            raise UrlValueError(
                                f"it is {len(raw)} characters long; at most {MAX_URL_VALUE} are accepted"
                            )
                        st.session_state[k] = p.parse(raw)
                        continue
                    except UrlValueError as exc:
                        problems.append(
                            f"URL parameter '{name}' ignored: {str(exc).rstrip('.')}. Using the "
                            f"default {p.dump(p.default)}."
                        )
                st.session_state[k] = p.default
            # the address bar is completed (and a dropped bad parameter corrected) only on the session's
            # first page, where no previous page's path can take the write
            self.hold_url = before is not None
            st.session_state[f"_{self.prefix}_url"] = here
        for msg in problems:
            st.warning(msg)
        return problems

    def sync_url(self) -> None:
        """Write every parameter's current value to the URL query string (not on a run that read the
        URL: see :meth:`init`)."""
        want = {name: p.dump(st.session_state[self.key(name)]) for name, p in self.params.items()}
        st.session_state[f"_{self.prefix}_shown"] = want
        if getattr(self, "hold_url", False):
            return
        if self._url_values() != want:
            st.query_params.update(want)
        st.session_state[f"_{self.prefix}_url"] = self._url_values()

    def apply(self, values: dict[str, Any]) -> None:
        """Set several values at once (used by preset callbacks, before widgets are drawn)."""
        for name, v in values.items():
            st.session_state[self.key(name)] = v

    def apply_preset(self) -> None:
        """Callback of the preset selector: set the chosen preset's values."""
        values = self.presets.get(st.session_state[self.key("preset")])
        if values:
            self.apply(values)

    def mark_custom(self) -> None:
        """Callback of inputs that presets set: the page no longer shows a preset."""
        st.session_state[self.key("preset")] = "Custom"


class ScenarioState(PageState):
    """Page state built from a scenario class: one URL parameter and one session value per field,
    parsed by the field's own :class:`~hetdp_core.scenario.Spec` (the bounds a URL value is parsed
    with are the widget's bounds). List fields live in the session as their comma text (a text
    input edits them); every other field as its value. ``ui`` adds page-only parameters (e.g. the
    preset selector); ``presets`` maps names to scenarios."""

    def __init__(
        self,
        prefix: str,
        cls: type[Scenario],
        *,
        presets: dict[str, Scenario] | None = None,
        ui: dict[str, Param] | None = None,
    ):
        self.cls = cls
        self.scenario_presets = dict(presets or {})
        params: dict[str, Param] = {}
        if presets is not None:
            params["preset"] = Param("Custom", parse_choice(["Custom", *presets]))
        for name, spec in cls.specs().items():
            params[name] = Param(
                self._session_form(spec, cls.defaults()[name]), self._parser(name, spec), self._dumper(spec)
            )
        params.update(ui or {})
        super().__init__(
            prefix,
            params,
            presets={  # a preset sets (and its name claims) every field but the scenario's VARIANTS
                k: {f: x for f, x in self.session_values(v).items() if f not in cls.VARIANTS}
                for k, v in self.scenario_presets.items()
            },
        )

    @staticmethod
    def _session_form(spec: Spec, value):
        return dump_value(spec, value) if spec.kind in ("floats", "choices") else value

    @classmethod
    def _parser(cls, name: str, spec: Spec):
        def parse(text: str):
            try:
                return cls._session_form(spec, check_value(name, spec, text))
            except InputError as exc:
                raise UrlValueError(str(exc)) from None

        return parse

    @staticmethod
    def _dumper(spec: Spec):
        return (lambda v: str(v)) if spec.kind in ("floats", "choices", "text") else (lambda v: dump_value(spec, v))

    def init(self) -> list[str]:
        """As :meth:`PageState.init`, reading renamed parameters under their old URL names too."""
        qp = st.query_params
        if any(old in qp for old in self.cls.ALIASES):
            for old, new in self.cls.ALIASES.items():
                if old in qp and new not in qp:
                    qp[new] = qp[old]
                    del qp[old]
        problems = super().init()
        # a preset label must describe the values shown: a link naming a preset but other values is Custom
        name = st.session_state.get(self.key("preset"))
        want = self.presets.get(name) if "preset" in self.params else None
        if want and any(st.session_state.get(self.key(k)) != v for k, v in want.items() if k not in READING):
            st.session_state[self.key("preset")] = "Custom"
        return problems

    @classmethod
    def of(cls, page, *, switches: dict[str, bool] | None = None) -> ScenarioState:
        """The state of a registered page (its scenario module): the scenario class, presets and
        key prefix its ``PAGE_SPEC`` declares, plus display ``switches`` (name → default): on/off
        choices of what the page draws, kept in the URL (``1``/``0``) but not part of the scenario —
        they change no number the run computes."""
        flags = {"1": True, "0": False}

        def parse(text: str) -> bool:
            if text not in flags:
                raise UrlValueError(f"{text!r} is not 1 or 0")
            return flags[text]

        view = {name: Param(default, parse, lambda v: "1" if v else "0") for name, default in (switches or {}).items()}
        return cls(page.PAGE_SPEC.key_prefix, page.SCENARIO, presets=page.PRESETS, ui=view)

    def spec(self, name: str) -> Spec:
        return self.cls.specs()[name]

    def apply_scenario(self, scenario: Scenario) -> None:
        """Callback: set every widget to ``scenario`` (e.g. the accuracy solver's answer)."""
        self.apply(self.session_values(scenario))
        if "preset" in self.params:
            st.session_state[self.key("preset")] = "Custom"

    def _bounds(self, name: str, hi=None):
        sp = self.spec(name)
        cast = int if sp.kind == "int" else float
        return cast(sp.lo), cast(sp.hi if hi is None else hi)

    def slider(self, name: str, label: str, *, where=None, hi=None, **kw):
        """A slider whose range is the field's own Spec bounds (one definition per input: a URL value
        is parsed with the same bounds, so no link can put the widget out of range). ``hi`` narrows
        the upper end where it depends on another widget (e.g. k ≤ d)."""
        lo, top = self._bounds(name, hi)
        return (where or st.sidebar).slider(label, lo, top, key=self.key(name), **kw)

    def number(self, name: str, label: str, *, where=None, **kw):
        """A number input whose range is the field's own Spec bounds (see :meth:`slider`)."""
        lo, hi = self._bounds(name)
        return (where or st.sidebar).number_input(label, lo, hi, key=self.key(name), **kw)

    def choice(self, name: str, label: str, *, widget: str = "radio", where=None, **kw):
        """A radio (or ``widget="selectbox"``) over the field's own choices: identifiers in the session
        and the URL, the Spec's plain-words labels on screen."""
        sp = self.spec(name)
        draw = getattr(where or st.sidebar, widget)
        return draw(label, list(sp.choices), key=self.key(name), format_func=sp.label_of, **kw)

    def session_values(self, scenario: Scenario) -> dict:
        return {n: self._session_form(sp, getattr(scenario, n)) for n, sp in scenario.specs().items()}

    def scenario(self, **override) -> Scenario:
        """The scenario the widgets describe (raises InputError, naming the field, if invalid)."""
        vals = {n: st.session_state[self.key(n)] for n in self.cls.specs()}
        vals.update(override)
        return self.cls(**vals)


def log_options(lo: float, hi: float, per_decade: int = 12, extra: Sequence[float] = ()) -> list[float]:
    """Log-spaced slider grid from lo to hi (rounded to 3 significant digits), plus ``extra``."""
    return list(log_grid(lo, hi, per_decade, extra))


def grid_options(grid: Sequence[float], key: str) -> list:
    """A slider's grid plus the current value of ``key`` when it is off the grid (a shared link or
    the CLI may hold any value within the parameter's bounds; the slider shows it instead of moving
    it)."""
    cur = st.session_state.get(key)
    opts = set(grid)
    if isinstance(cur, (int, float)) and not isinstance(cur, bool):
        opts.add(cur)
    return sorted(opts)


def log_slider(label: str, options: Sequence[float], key: str, help: str | None = None) -> float:
    """A select-slider over a log-spaced grid (Streamlit has no native log slider)."""
    return st.sidebar.select_slider(
        label, options=grid_options(options, key), key=key, help=help, format_func=lambda v: f"{v:g}"
    )


def grid_slider(label: str, options: Sequence, key: str, **kw):
    """``st.sidebar.select_slider`` over a grid that also contains the current value."""
    return st.sidebar.select_slider(label, options=grid_options(options, key), key=key, **kw)


def csv_download(df: pd.DataFrame, filename: str, key: str, label: str | None = None) -> None:
    st.download_button(label or f"Download {filename}", csv_bytes(df), file_name=filename, mime="text/csv", key=key)


def show_input_error(exc: Exception) -> None:
    """Show a validation error from the core as a readable message (no traceback)."""
    st.error(f"Input problem: {exc}")


def show_checks(checks, *, quiet: bool = False) -> bool:
    """Report the guarantee checks the core ran on the numbers shown: each failure as a numerical
    failure with its inputs (st.error); otherwise a one-line caption naming what was verified.
    Returns True when all hold."""
    bad = [c for c in checks if not c.holds]
    for c in bad:
        st.error(c.message())
    if not bad and checks and not quiet:
        st.caption("Verified before display: " + "; ".join(c.name for c in checks) + ".")
    return not bad


def question(text: str) -> None:
    """The page's plain-language 'what question does this answer' paragraph."""
    st.markdown(f"**What question does this answer?** {text}")


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
    preset, a link) builds a new table."""
    text = st.session_state[state_key]
    try:
        vals = check_value(column, Spec("floats", allow_inf=True, min_len=0, max_len=10**4), text)
    except InputError as exc:
        show_input_error(exc)
        return None
    mine, base_key, ver_key = f"{state_key}_editor_wrote", f"{state_key}_editor_base", f"{state_key}_editor_version"
    if text not in (st.session_state.get(mine), st.session_state.get(base_key)):  # changed elsewhere
        st.session_state[base_key] = text
        st.session_state[ver_key] = st.session_state.get(ver_key, 0) + 1
    base = list(
        check_value(column, Spec("floats", allow_inf=True, min_len=0, max_len=10**4), st.session_state[base_key])
    )
    key = f"{state_key}_editor_{st.session_state.get(ver_key, 0)}"

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


def cached(max_entries: int = 64):
    """Decorator for a page's compute wrapper: ``st.cache_data`` with a bounded size and no spinner
    (pages show their own progress bar). Wrap functions of hashable primitives (incl. an int seed)."""
    return st.cache_data(max_entries=max_entries, show_spinner=False)


#: the run cache: bounded in bytes in memory (HETDP_CACHE_MEMORY_MB, default 512) and, with HETDP_CACHE_DIR
#: (``make serve``), shared between workers on disk (HETDP_CACHE_DISK_MB, default 2048)
RUNS = RunCache(
    max_bytes=int(os.environ.get("HETDP_CACHE_MEMORY_MB", "512")) * 2**20,
    disk=DiskStore(os.environ[CACHE_ENV], size_limit=int(os.environ.get("HETDP_CACHE_DISK_MB", "2048")) * 2**20)
    if os.environ.get(CACHE_ENV)
    else None,
)


if st.runtime.exists() or os.environ.get(CACHE_ENV):  # a server (not AppTest or a script importing pages)
    install_shared_memo(create=True)


def run_scenario(scenario: Scenario, *, progress: bool = True, upload: bytes | None = None):
    """The page's one computation: ``run(scenario)`` of its core module, cached process-wide by the
    scenario's query string (and the SHA-256 of an uploaded file), so the same link costs one
    computation however many sessions open it. A miss waits for a computing slot (admission control)
    and runs in a child process limited in memory and time (:mod:`hetdp_ui.limits`); the attacker's
    prior and the attack FPR are not part of the key (only the meaning table depends on them). Shows a
    progress bar while it computes. Raises InputError for bad input."""
    import dataclasses
    import hashlib

    from hetdp_core.scenario import with_meaning
    from hetdp_core.scenarios import get

    digest = None if upload is None else hashlib.sha256(upload).hexdigest()
    asked = scenario
    defaults = type(scenario).defaults()  # the prior and the attack's FPR only change the reading: no recompute
    scenario = dataclasses.replace(scenario, **{k: defaults[k] for k in READING})
    key = (scenario.PAGE, tuple(sorted(scenario.to_query().items())), digest)

    def compute():
        from hetdp_ui.dask_exec import ClusterError, app_executor

        try:
            executor = app_executor()  # Dask when HETDP_DASK names a scheduler, else threads
        except ClusterError as exc:
            st.warning(f"{exc} Computing on this server's own threads instead.")
            executor = None
        bar = Progress() if progress and executor is None else None
        try:
            try:
                if executor is None:  # limits enforced while the run executes, and a queue
                    from hetdp_ui.limits import ADMISSION, run_limited

                    note = st.empty()
                    try:
                        with ADMISSION(
                            on_wait=lambda pos: note.info(
                                f"Waiting for a free computing slot: you are number {pos} in the queue "
                                "(views someone has already computed open at once)."
                            )
                        ):
                            note.empty()
                            return run_limited(scenario.PAGE, scenario, options=RunOptions(progress=bar, upload=upload))
                    finally:
                        note.empty()
                return get(scenario.PAGE).run(
                    scenario, options=RunOptions(progress=bar, executor=executor, upload=upload)
                )
            except ClusterError as exc:  # the scheduler went away mid-sweep: recompute here
                from hetdp_ui.dask_exec import close_app_executor

                close_app_executor()
                st.warning(f"{exc} Computing on this server's own threads instead.")
                return get(scenario.PAGE).run(scenario, options=RunOptions(upload=upload))
        finally:
            if bar is not None:
                bar.done()

    result = RUNS.get_or_compute(key, compute)
    if all(getattr(asked, k) == getattr(scenario, k) for k in READING):
        return result
    return with_meaning(dataclasses.replace(result, scenario=asked))


class Progress:
    """A progress bar callable as ``progress(fraction, text)`` from inside the core."""

    def __init__(self):
        self.bar = st.progress(0.0, text="computing…")

    def __call__(self, frac: float, text: str = "") -> None:
        self.bar.progress(min(max(float(frac), 0.0), 1.0), text=f"computing… {text}")

    def done(self) -> None:
        self.bar.empty()


#: session key of a page's meaning panel's open state (``%`` the page's key prefix)
MEANING_OPEN = "%s_meaning_open"


def meaning_panel(
    result, state: ScenarioState, *, expanded: bool = False, empty_note: str = "This view states no privacy level."
) -> None:
    """What the page's levels mean for a person: the run's ``privacy_meaning`` table (computed by the
    core from the scenario's ``prior``, which is in the URL) and a slider for that prior."""
    from hetdp_core.scenario import PRIOR_GRID

    # drawn only while open (Streamlit's tracked expander): closed, its table, math and bullets cost the
    # browser nothing, which brought Per-user privacy's first chart from 5.9 s to about 4 s; its prior
    # and FPR sliders come back from the URL when it opens again (PageState.init)
    box = st.expander(
        "What does this level mean for a person?", expanded=expanded, key=MEANING_OPEN % state.prefix, on_change="rerun"
    )
    if not box.open:
        return
    with box:
        st.markdown(
            "An attacker who believes with probability *p* that a person has the protected "
            "attribute can, after seeing the output, believe at most "
            "$\\dfrac{e^{\\varepsilon} p}{1 + (e^{\\varepsilon} - 1) p}$ "
            "(and at least $\\dfrac{p}{p + (1-p) e^{\\varepsilon}}$). Upper bounds are rounded up."
        )
        percent_slider("attacker's prior p", PRIOR_GRID, state.key("prior"))
        table = result.tables().get("privacy_meaning")
        if table is None or table.empty:
            st.info(empty_note)
            return
        st.markdown(grouped_bullets(table["level"], table["in words"]))
        risk_panel(table, state)
        st.dataframe(
            shared_arrow(table, "meaning", lambda: table.drop(columns=["in words", "risk in words"])),
            hide_index=True,
            width="stretch",
        )
        csv_download(table, "privacy_meaning.csv", f"{state.prefix}_dl_meaning")
        from hetdp_core.deployments import placement_of

        deployments_strip_section(placement_of(table), key=f"{state.prefix}_context")


def deployments_strip_section(placed, *, key: str, what: str = "these levels") -> None:
    """ "Your levels among real deployments": the strip, one sentence per distinct level, a caution where the
    evidence warrants one, and the caveat about units and periods in the same place."""
    from hetdp_core.deployments import CAVEAT
    from hetdp_ui.context_figures import deployments_strip

    if not placed:
        return
    st.markdown(f"**Your levels among real deployments.** Where {what} lie among levels organisations have used:")
    chart(deployments_strip(placed), key=f"{key}_strip")
    st.markdown("\n".join(f"- {p.sentence}" for p in placed))
    for caution in dict.fromkeys(p.caution for p in placed if p.caution):
        st.warning(caution)
    st.caption(
        CAVEAT + " Data: the Differential Privacy Deployments Registry's public records (22 deployments; "
        "`hetdp context --eps E --all` lists them with their sources)."
    )
    from hetdp_ui.nav import doc_link

    doc_link("deployments", "The data, the ρ → ε conversion and how a level is placed")


def grouped_bullets(levels, words) -> str:
    """Markdown bullets, one per distinct sentence: levels that say the same (ten features at one
    level) share a bullet that names them compactly, instead of ten near-identical bullets."""
    groups: dict[str, list[str]] = {}
    for lev, w in zip(levels, words):
        groups.setdefault(str(w), []).append(str(lev))
    from hetdp_core.meaning import compact_names

    return "\n".join(f"- **{compact_names(levs)}**: {w}" for w, levs in groups.items())


def percent_slider(label: str, grid: Sequence[float], key: str) -> None:
    """A select slider over a grid of probabilities shown in per cent (the prior, the attack FPR)."""
    st.select_slider(label, options=grid_options(grid, key), key=key, format_func=lambda v: f"{100 * v:g} %")


def risk_panel(table, state: ScenarioState) -> None:
    """Risk in attack terms beside the posterior: the attack FPR (a scenario field, in the URL), each
    level's TPR bound and maximal advantage in words, the trade-off curves, and "solve from a target
    risk" (the largest ε / smallest Gaussian noise whose attack TPR stays at or below a target)."""
    from hetdp_core.risk import eps_for_tpr, mu_for_tpr
    from hetdp_core.scenario import FPR_GRID
    from hetdp_ui.risk_figures import tradeoff_figure

    st.markdown(
        "**In attack terms.** An attacker tries to tell, from the output, whether a person is the one in "
        "question. Allowed a false-positive rate (people it wrongly flags), no attack can catch more than "
        "the *true-positive rate* below; the *maximal advantage* is the most its hit rate can exceed its "
        "false-alarm rate (0 = a coin toss, 1 = certainty)."
    )
    percent_slider("attack false-positive rate", FPR_GRID, state.key("fpr"))
    st.markdown(
        grouped_bullets(
            table["level"],
            [f"{w}; maximal advantage {a:.3g}" for w, a in zip(table["risk in words"], table["max advantage"])],
        )
    )
    if (table.get("δ", pd.Series(dtype=float)).fillna(0) > 0).any():
        st.caption(
            "The two answers are different questions. The posterior bound above is a worst case over every output "
            "the release could give, allowed to fail with probability δ; the attack rate here is how often the "
            "best test catches a person at the chosen false-positive rate. For Gaussian noise the worst case is "
            "far from typical (its privacy loss is unbounded but rarely large), so the posterior bound can be "
            "high while the attack rate stays low."
        )
    if st.checkbox("show the trade-off curves", key=f"{state.prefix}_show_tradeoff"):
        chart(tradeoff_figure(table), key=f"{state.prefix}_tradeoff_fig")
    fpr = float(table["attack FPR"].iloc[0])
    c1, c2 = st.columns([1, 2])
    with c1:
        target = target_tpr_input(f"{state.prefix}_target_tpr", fpr)
    with c2:
        if target <= fpr:
            st.caption(below_fpr(fpr))
        else:
            eps = eps_for_tpr(target_tpr=target, fpr=fpr)
            mu = mu_for_tpr(target_tpr=target, fpr=fpr)
            st.markdown(
                f"To keep every attack at FPR {100 * fpr:g} % below TPR {100 * target:g} %: the most accurate "
                f"pure level is **ε = {eps:.3g}**; Gaussian noise needs a standard deviation of at least "
                f"**{1 / mu:.3g} times the sensitivity** (σ/Δ ≥ {1 / mu:.3g})."
            )
            page_setting(state, target=target, fpr=fpr)


def target_tpr_input(key: str, fpr: float, **kw) -> float:
    """The "solve from a target risk" input (a meaning panel's, the ledger's): the highest acceptable
    attack TPR, typed in per cent like the false-positive rate beside it (it was typed as 0.0400 next
    to a slider showing "1 %"), within :data:`hetdp_core.risk.TPR_RANGE`. Returns a rate in [0, 1]."""
    from hetdp_core.risk import TPR_RANGE

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


def below_fpr(fpr: float) -> str:
    """Why a target at or below the false-positive rate cannot be solved for, in plain words."""
    return f"Choose a target above the false-positive rate ({100 * fpr:g} %): a blind guess already catches that many."


def page_setting(state: ScenarioState, *, target: float, fpr: float) -> None:
    """The page's own privacy setting solved from the target risk (its spec's ``risk_field``), and a
    button that sets it (a callback: it runs before the widgets of the next run are drawn)."""
    from hetdp_core.registry import get
    from hetdp_core.risk import page_setting_for_tpr

    page = get(state.cls.PAGE)
    if page.PAGE_SPEC.risk_field is None:
        return
    sol = page_setting_for_tpr(page, target_tpr=target, fpr=fpr)
    st.markdown(
        f"On this page: **{sol['label']} = {sol['value']:g}** — an attack is then caught at most "
        f"{100 * sol['tpr']:.3g} % of the time at FPR {100 * fpr:g} %"
        + (f" ({sol['note']})" if sol["note"] else "")
        + "."
    )

    def use() -> None:
        st.session_state[state.key(sol["field"])] = sol["value"]
        if "preset" in state.params:
            state.mark_custom()

    st.button(f"Use {sol['label']} = {sol['value']:g}", key=f"{state.prefix}_use_risk", on_click=use)


def solver_answer(prefix: str, signature: tuple, *, clicked: bool, compute, label: str):
    """A solver's answer that survives reruns: when ``clicked``, ``compute(progress)`` runs under a status
    box with a progress bar (``progress(fraction, text)``: what is being computed); its answer — or the
    InputError that says why there is none — is kept in the session for ``signature`` (the scenario's
    query and the solver's inputs), so pinning or unpinning plan A, or any other rerun with the same
    question, shows it again. Returns the answer, or None — where the solver found none, after showing
    its InputError (why, and what to change) in place."""
    store = f"{prefix}_solution"
    if clicked:
        with st.status(label + " …", expanded=True) as status:
            bar = st.progress(0.0, text="starting")

            def progress(fraction: float, text: str) -> None:
                bar.progress(min(max(float(fraction), 0.0), 1.0), text=text)

            try:
                answer = compute(progress)
            except InputError as exc:
                answer = exc
                status.update(label=label + ": no answer (see below)", state="complete", expanded=False)
            else:
                status.update(label=label + ": done", state="complete", expanded=False)
        st.session_state[store] = (signature, answer)
    saved = st.session_state.get(store)
    answer = saved[1] if saved and saved[0] == signature else None
    if isinstance(answer, InputError):
        show_input_error(answer)
        return None
    return answer


def solver_open(prefix: str) -> bool:
    """Whether a page's accuracy-solver expander should be open: once the reader types a target or
    presses the button it stays open across reruns (an expander opened by hand would close again when
    typing a target reruns the page)."""
    flag = f"_{prefix}_solver_open"
    if st.session_state.get(f"{prefix}_solve") or st.session_state.get(f"{prefix}_target_touched"):
        st.session_state[flag] = True
    return bool(st.session_state.get(flag))


def mark_solver(prefix: str) -> None:
    """``on_change`` of a solver's inputs: keep its expander open."""
    st.session_state[f"{prefix}_target_touched"] = True


def solver_radio(column, key: str, label: str, options: dict) -> str:
    """A solver's choice (identifier → label in plain words), one row of radio buttons."""
    return column.radio(label, list(options), key=key, horizontal=True, format_func=options.get)


def shared_arrow(table: pd.DataFrame, tag: str, shown: Callable[[], pd.DataFrame]):
    """The Arrow form of ``shown()`` (a view of ``table``: rounded, some columns dropped), built once
    per shared table: ``st.dataframe`` otherwise converts the same pandas table to Arrow every
    session (a twentieth of a warm view's CPU). Streamlit shows an Arrow table as it shows the
    pandas one it came from (no index: every table here hides it)."""
    import pyarrow as pa

    return by_identity(table, f"arrow {tag}", lambda: pa.Table.from_pandas(shown(), preserve_index=False))


def table_with_download(table, name: str, key: str, caption: str, *, decimals: int | None = None) -> None:
    """A result table (shown rounded to ``decimals``), what it says in words and its CSV download
    (``<name>.csv``, the run's exact numbers)."""
    st.dataframe(
        shared_arrow(table, f"rounded {decimals}", lambda: table if decimals is None else table.round(decimals)),
        hide_index=True,
        key=key,
    )
    st.caption(caption)
    csv_download(table, f"{name}.csv", f"dl_{key}")


def solver_target(column, prefix: str, *, label: str = "target", value: float, help: str | None = None) -> float:
    """A solver's target (the core's accepted range, 4 significant digits); typing one keeps the
    solver's expander open (:func:`mark_solver`)."""
    from hetdp_core.solve import TARGET_MAX, TARGET_MIN

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


def meaning_and_report(result, state: ScenarioState, *, plan_a=None, **meaning) -> None:
    """The end of a page's results: what its levels mean for a person (:func:`meaning_panel`, with
    ``meaning`` passed on) and its report button (:func:`report_button`)."""
    meaning_panel(result, state, **meaning)
    report_button(result.scenario.PAGE, result.scenario, result, plan_a=plan_a)


@contextlib.contextmanager
def formulas(page: str, title: str = "Formulas behind the curves"):
    """The page's formulas, in an expander that opens with the link to its documentation topic."""
    from hetdp_ui.nav import doc_link

    with st.expander(title):
        doc_link(page)
        yield


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
    executes the notebook: a few seconds), then offered for download; kept for ``signature`` (the view)."""
    held = st.session_state.get(key)
    if held is None or held[0] != signature:
        if not st.button(
            "Prepare the decision (zip: README, report, executed notebook, script, tables)",
            key=f"{key}_prepare",
            help="one download that someone else can read, check and re-run",
        ):
            return
        with st.status("Building the decision package: the report, the notebook run in a fresh kernel, the tables…"):
            held = (signature, build())
        st.session_state[key] = held
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


def pin_section(key: str, current: str, load, *, what: str, noun: str, help: str):
    """Pin plan A, for any page (the scenario pages' :func:`plan_a`, the release ledger): buttons to pin the
    current ``what`` (its query string ``current``) and unpin it; the pinned string lives in the URL
    (``pin=``) so a shared link opens the same comparison. Returns ``load(pinned string)`` or None. A
    malformed pin (too long, or ``load`` raising InputError) is ignored with a warning naming it; the
    current one (plan B) is never touched."""
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get("pin", "") or ""
    c1, c2 = st.columns(2)
    if c1.button(f"Pin this {what} as plan A", key=f"{key}_set", help=help):
        st.session_state[key] = current
    if st.session_state[key] and c2.button("Unpin plan A", key=f"{key}_clear"):
        st.session_state[key] = ""
    raw, loaded = st.session_state[key], None
    if raw:
        try:
            if len(raw) > MAX_PIN_LENGTH:
                raise InputError(f"the pinned {noun} is {len(raw)} characters long; at most {MAX_PIN_LENGTH}.")
            loaded = load(raw)
        except InputError as exc:
            st.warning(f"URL parameter 'pin' (plan A) ignored: {exc} The current {what} (plan B) is unchanged.")
            st.session_state[key] = raw = ""
    if (st.query_params.get("pin") or "") != raw:
        if raw:
            st.query_params["pin"] = raw
        else:
            del st.query_params["pin"]
    return loaded


def plan_a(state: ScenarioState, scenario: Scenario):
    """Plan A vs plan B on a scenario page (:func:`pin_section`): returns (scenario A, result A) or None."""
    from urllib.parse import parse_qsl

    def load(raw: str):
        a = type(scenario).from_query(dict(parse_qsl(raw, keep_blank_values=True)))
        return a, run_scenario(a, progress=False)

    return pin_section(
        state.key("pin"),
        scenario.query_string(),
        load,
        what="view",
        noun="scenario",
        help="then change the sliders: the current view becomes plan B",
    )


def start_page(page, *, preset_help: str | None = None, switches: dict[str, bool] | None = None) -> ScenarioState:
    """The top of every scenario page, from its declaration (``page`` is its scenario module): the
    browser title and inlined emoji icon (no font server), the menu, the title and question, the
    state read from the URL, the lesson panel and the preset selector. Returns the page's state."""
    from hetdp_ui.lesson_panel import lesson_panel
    from hetdp_ui.limits import start_fork_server_soon
    from hetdp_ui.nav import sidebar_nav

    start_fork_server_soon()  # a server's first view: the run children's fork server imports meanwhile
    spec = page.PAGE_SPEC
    st.set_page_config(page_title=f"{spec.title} — hetdp", page_icon="🔒", layout="wide", initial_sidebar_state="auto")
    sidebar_nav()
    state = ScenarioState.of(page, switches=switches)
    st.title(spec.title)
    question(page.QUESTION)
    state.init()
    lesson_panel(state)
    st.sidebar.selectbox(
        "Preset", ["Custom", *page.PRESETS], key=state.key("preset"), on_change=state.apply_preset, help=preset_help
    )
    return state


def run_page(state: ScenarioState, page, *, upload: bytes | None = None):
    """The bottom of every scenario page's inputs: the scenario built from the widgets (an input error
    is shown and the page stops there — the only place a page catches it), its one run (cached, limited)
    and plan A vs plan B, under the run's summary in a few sentences (the page module's ``summarize``,
    the same lines as the report and ``hetdp run``). Returns (scenario, result, plan A or None)."""
    try:
        scenario = state.scenario()
        result = run_scenario(scenario, upload=upload) if upload is not None else run_scenario(scenario)
    except InputError as exc:
        show_input_error(exc)
        st.stop()
    with st.container(border=True, key=f"{page.PAGE_SPEC.key_prefix}_summary"):
        st.markdown("**In short** — " + " ".join(by_identity(result, "in short", lambda: in_short(result))))
    return scenario, result, plan_section(state, page, scenario, result)


def plan_section(state: ScenarioState, page, scenario: Scenario, result):
    """Plan A vs plan B for any registered page: the pin buttons and, with a pinned plan A, the
    table of the page's key numbers (:func:`hetdp_core.compare.key_numbers`). Returns (scenario A,
    result A) or None, for the report and figure overlays."""
    from hetdp_core.compare import key_numbers

    ab = plan_a(state, scenario)
    if ab is not None:
        plan_table(key_numbers(page, ab[1]), key_numbers(page, result), page.PAGE_SPEC.key_prefix)
    return ab


def plan_table(numbers_a: dict, numbers_b: dict, key: str) -> None:
    """The A/B table: each guarantee and accuracy figure side by side with the difference."""
    from hetdp_core.compare import compare

    table = compare(numbers_a, numbers_b)
    st.markdown(
        "**Plan A (pinned) vs plan B (current view)** — every guarantee and accuracy figure, "
        "with the difference B − A; figures overlay plan A dotted."
    )
    st.dataframe(table, hide_index=True, width="stretch", key=f"{key}_ab_table")
    csv_download(table, "plan_a_vs_b.csv", f"{key}_dl_ab")


def chart(fig, *, key: str, **kw) -> None:
    """A plotly chart with its text summary under it (what is plotted, each series and the range of
    its values, from the figure's own data). The data tables are the page's CSV downloads."""
    from hetdp_ui.figcache import summary_text

    st.plotly_chart(fig, key=key, **kw)
    text = summary_text(fig)
    if text:
        st.caption("Chart in words: " + text)
