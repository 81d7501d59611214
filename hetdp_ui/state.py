"""A page's state: its widgets' session values, read from and written back to the URL (untrusted input:
each value parsed by a strict parser, checked by the scenario's own constraint, ignored with a warning when
invalid), and the scenario built from them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from hetdp_core.framework.scenario import MAX_QUERY_VALUE, READING, InputError, Scenario, Spec, check_value, dump_value

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


def grid_options(grid: Sequence[float], key: str) -> list:
    """A slider's grid plus the current value of ``key`` when it is off the grid (a shared link or
    the CLI may hold any value within the parameter's bounds; the slider shows it instead of moving
    it)."""
    cur = st.session_state.get(key)
    opts = set(grid)
    if isinstance(cur, (int, float)) and not isinstance(cur, bool):
        opts.add(cur)
    return sorted(opts)


def parse_choice(options: Sequence[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise UrlValueError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


#: session key: the prefix of the scenario page whose script ran last (entering another page reads its URL)
_CURRENT_PAGE = "_hetdp_current_page"

#: how many runs that draw the page's widgets (and write the URL: :meth:`PageState.sync_url`) a value the
#: server set (from the URL, a preset, a lesson step, a solver's answer) is sent to the browser again:
#: see :meth:`PageState._send_again`
RESEND_RUNS = 2


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
        # this page's run count, for :meth:`_drawing` (which widgets the previous run drew)
        self.run_no = st.session_state[f"_{self.prefix}_run"] = st.session_state.get(f"_{self.prefix}_run", 0) + 1
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
                    self._set_by_server([name])
                    try:
                        st.session_state[k] = p.parse(here[name]) if here[name] is not None else p.default
                    except UrlValueError:
                        st.session_state[k] = p.default
        else:
            self._set_by_server(self.params)
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
        self._send_again()
        for msg in problems:
            st.warning(msg)
        return problems

    def _set_by_server(self, names) -> None:
        """Note values this run sets on the server's side, for :meth:`_send_again`."""
        unsent = st.session_state.setdefault(f"_{self.prefix}_unsent", {})
        for name in names:
            unsent[name] = RESEND_RUNS

    def _send_again(self) -> None:
        """Send the values the server set in the last few runs to the browser again (before the widgets).

        A widget's value set on the server's side (this page's values read from a link on arrival, a
        preset, a lesson step) reaches the browser with the widget's element. When a newer request stops
        that run before Streamlit has sent its elements (a click and a key at once, a loaded machine),
        Streamlit drops the unsent elements, yet believes the browser has the values; the next run's
        widgets then carry no value, the browser shows each widget at its own default (a slider at its
        minimum, a text box empty) and sends that back as the reader's input (seen in the browser tests
        on a loaded machine: every input of the guarantee lab at its minimum after a navigation). A value
        assigned again in a run is sent with that run's element, so each such value is assigned again
        in the runs that follow, until :data:`RESEND_RUNS` of them have drawn the widgets (:meth:`sync_url`,
        right after them). A value the reader changed in the meantime is the one assigned."""
        for name in st.session_state.get(f"_{self.prefix}_unsent", {}):
            k = self.key(name)
            if k in st.session_state:
                st.session_state[k] = st.session_state[k]

    def _drawing(self, name: str) -> str:
        """The session key of the widget ``name`` about to be drawn; its value is sent with it when the
        page's previous run did not draw it (a closed tab's or panel's input, or a run stopped before it).

        Such a widget's value lives in the session as a plain value (Streamlit dropped the widget's state,
        :meth:`init` put the value back). Once :meth:`_send_again`'s runs are over, a widget drawn again
        would carry no value, and the browser would show its own default — an empty text box, seen in the
        browser sweep after a sidebar change on another tab of the Mechanism lab — and send that back as
        the reader's input. Assigned again in the run that draws it, the value goes with the element."""
        k = self.key(name)
        drawn = st.session_state.setdefault(f"_{self.prefix}_drawn", {})
        run_no = getattr(self, "run_no", None)
        if run_no is not None and drawn.get(name) != run_no - 1 and k in st.session_state:
            st.session_state[k] = st.session_state[k]
        if run_no is not None:
            drawn[name] = run_no
        return k

    def _sent(self) -> None:
        """A run drew the widgets: one fewer run in which the server's values are sent again."""
        unsent = st.session_state.get(f"_{self.prefix}_unsent", {})
        for name in list(unsent):
            unsent[name] -= 1
            if unsent[name] <= 0:
                del unsent[name]

    def sync_url(self) -> None:
        """Write every parameter's current value to the URL query string (not on a run that read the
        URL: see :meth:`init`)."""
        self._sent()
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
        self._set_by_server(n for n in values if n in self.params)

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
    parsed by the field's own :class:`~hetdp_core.framework.scenario.Spec` (the bounds a URL value is parsed
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
        return cls(page.PAGE_SPEC.slug, page.SCENARIO, presets=page.PRESETS, ui=view)

    def spec(self, name: str) -> Spec:
        return self.cls.specs()[name]

    def apply_scenario(self, scenario: Scenario) -> None:
        """Callback: set every widget to ``scenario`` (e.g. the accuracy solver's answer)."""
        self.apply(self.session_values(scenario))
        if "preset" in self.params:
            st.session_state[self.key("preset")] = "Custom"

    def _bounds(self, name: str, hi=None):
        sp = self.spec(name)
        if sp.lo_open or sp.hi_open:  # a widget's range is closed: narrow the field to a closed range
            raise AssertionError(f"{name}: a widget cannot show the open range of {sp}; declare a closed one")
        cast = int if sp.kind == "int" else float
        return cast(sp.lo), cast(sp.hi if hi is None else hi)

    def slider(self, name: str, *, where=None, hi=None, **kw):
        """A slider whose range and label are the field's own (its Spec's bounds and ``shown`` label: one
        declaration per input; a URL value is parsed with the same bounds, so no link can put the
        widget out of range). ``hi`` narrows
        the upper end where it depends on another widget (e.g. k ≤ d)."""
        lo, top = self._bounds(name, hi)
        return (where or st.sidebar).slider(
            self.spec(name).shown, lo, top, key=self._drawing(name), **self._shown(name, kw)
        )

    def number(self, name: str, *, where=None, **kw):
        """A number input whose range and label are the field's own (see :meth:`slider`)."""
        lo, hi = self._bounds(name)
        return (where or st.sidebar).number_input(
            self.spec(name).shown, lo, hi, key=self._drawing(name), **self._shown(name, kw)
        )

    def _shown(self, name: str, kw: dict) -> dict:
        """A number widget shows its value as the link holds it: a fraction with every digit it has
        (``%g``: 0.055 is shown 0.055, as ``beta=0.055`` in the link and 0.055 in the sentences), not
        Streamlit's two decimals (0.06)."""
        return kw if self.spec(name).kind == "int" else {"format": "%g", **kw}

    def choice(self, name: str, *, widget: str = "radio", where=None, options=None, **kw):
        """A radio (or ``widget="selectbox"``) over the field's own choices, or over ``options``: those
        of them this view offers (for a number field, the values it offers, e.g. coordinates 1…d):
        identifiers in the session and the URL, the Spec's plain-words labels on screen. Every option
        must be one the field accepts (checked here: a programming error, not input)."""
        sp = self.spec(name)
        offered = list(sp.choices) if options is None else list(options)
        bad = [o for o in offered if not sp.admits(o)]
        if bad or not offered:
            raise AssertionError(f"{name}: options {bad or offered} are not values the field accepts ({sp.accepts()})")
        draw = getattr(where or st.sidebar, widget)
        kw.setdefault("format_func", sp.label_of)  # a number field's options may say more (``group 3``)
        return draw(sp.shown, offered, key=self._drawing(name), **kw)

    def grid(self, name: str, options, *, where=None, log: bool = False, percent: bool = False, **kw):
        """A select-slider over a grid of the field's values, labelled by the field; the current value
        joins the grid when a link holds one off it. Every grid point must lie in the field's range
        (checked here: a programming error, not input). ``log``: a log-spaced grid (ε, ρ, δ; Streamlit
        has no log slider) shown compactly (``0.05``, ``1e-05``); ``percent``: probabilities in per cent."""
        sp = self.spec(name)
        bad = [v for v in options if not sp.admits(v)]
        if bad:
            raise AssertionError(f"{name}: grid points {bad[:3]} lie outside the field's range {sp.accepts()}")
        key = self._drawing(name)
        if percent:
            kw["format_func"] = lambda v: f"{100 * v:g} %"
        elif log:
            kw["format_func"] = lambda v: f"{v:g}"
        return (where or st.sidebar).select_slider(sp.shown, options=grid_options(options, key), key=key, **kw)

    def check(self, name: str, *, where=None, widget: str = "checkbox", **kw):
        """A checkbox (or ``widget="toggle"``) for a yes/no field, labelled by the field."""
        return getattr(where or st.sidebar, widget)(self.spec(name).shown, key=self._drawing(name), **kw)

    def text(self, name: str, *, where=None, **kw):
        """A text input for a field typed as text (a list of numbers, comma-separated), labelled by the
        field; the field's parser reads it (the same as a link's value)."""
        return (where or st.sidebar).text_input(self.spec(name).shown, key=self._drawing(name), **kw)

    def session_values(self, scenario: Scenario) -> dict:
        return {n: self._session_form(sp, getattr(scenario, n)) for n, sp in scenario.specs().items()}

    def scenario(self, **override) -> Scenario:
        """The scenario the widgets describe (raises InputError, naming the field, if invalid)."""
        vals = {n: st.session_state[self.key(n)] for n in self.cls.specs()}
        vals.update(override)
        return self.cls(**vals)
