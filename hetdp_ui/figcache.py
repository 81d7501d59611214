"""A process-wide memo for figure builders (Streamlit-free).

A warm view — a new session on a view whose results are cached — used to rebuild every plotly
figure (template validation and deep copies: most of the server CPU of a warm view). Builders
decorated with :func:`memo_figure` return the *same* Figure object for equal inputs, so callers
must treat figures as read-only (pages only pass them to ``st.plotly_chart``; the CLI writes them).

Inputs are fingerprinted by content: numbers, strings and tuples by value, numpy arrays and
pandas tables by a hash of their bytes, and scenario results (cached objects of the run cache, staged
ones included) by identity — the entry keeps a reference, so an identity is never reused while its
entry lives.
Anything else disables the memo for that call. Every built figure is finished by
:func:`hetdp_ui.theme.finish` (palette, theme, readable log axes).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib

import numpy as np
import pandas as pd

from hetdp_core.framework.memo import Memo, size_of
from hetdp_ui.theme import finish  # palette, theme and log axes shared by every builder

__all__ = ["memo_figure", "csv_bytes", "summary_text", "figure_json", "by_identity", "clear", "MAX_FIGURES"]

MAX_FIGURES = 512
#: bytes the figure memo may hold (a figure's data plus the inputs it keeps alive)
FIGURE_BYTES = 256 * 2**20
_CACHE = Memo(FIGURE_BYTES, name="figures")


class _NoKey(Exception):
    pass


def _fp(obj):
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return (type(obj).__name__, obj)
    if isinstance(obj, np.generic):
        return ("np", obj.dtype.str, obj.item())
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return ("arr", obj.shape, tuple(_fp(v) for v in obj.ravel().tolist()))
        return (
            "arr",
            obj.shape,
            obj.dtype.str,
            hashlib.blake2b(np.ascontiguousarray(obj).tobytes(), digest_size=16).digest(),
        )
    if isinstance(obj, pd.DataFrame):
        return by_identity(obj, "fingerprint", lambda: _df_fp(obj))
    if isinstance(obj, pd.Series):
        return ("s", str(obj.name), _fp(pd.util.hash_pandas_object(obj, index=True).to_numpy()))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_fp(v) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((_fp(k), _fp(v)) for k, v in obj.items()))
    if getattr(type(obj), "STAGED", False):  # a staged result (hetdp_ui.staged): asking it more would finish it
        return ("result", id(obj))
    if hasattr(obj, "tables_") and hasattr(obj, "scenario"):  # a cached scenario Result
        return ("result", id(obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):  # e.g. the stages of Mechanism 1
        return (type(obj).__qualname__, tuple(_fp(getattr(obj, f.name)) for f in dataclasses.fields(obj)))
    raise _NoKey


def _df_fp(df: pd.DataFrame):
    h = pd.util.hash_pandas_object(df, index=True).to_numpy()
    return ("df", tuple(map(str, df.columns)), tuple(map(str, df.dtypes)), _fp(h))


#: values derived from shared read-only objects (a cached result, its tables), by the object's identity
_DERIVED = Memo(64 * 2**20, size=lambda e: size_of(e[0]) + size_of(e[1]) + 200, name="derived values")


def by_identity(obj, tag: str, compute):
    """``compute()``, memoised on ``obj``'s identity and ``tag``, for objects every session shares and
    none changes: a cached result and its tables (the same rule as :func:`csv_bytes`). The entry
    keeps ``obj`` alive, so its identity is not reused while the entry lives."""
    return _once(_DERIVED, (id(obj), tag), obj, compute)


def _once(memo: Memo, key, obj, compute):
    """``compute()`` memoised in ``memo`` under ``key``, an identity of ``obj``; single flight, so the
    sessions that open a fresh result at the same moment compute it once (the others wait)."""
    entry = memo.get_or_compute(key, lambda: (obj, compute()))
    if entry[0] is obj:
        return entry[1]
    # the key's identity belonged to an object that is gone (its entry was evicted meanwhile)
    value = compute()
    memo.put(key, (obj, value))
    return value


def memo_figure(fn):
    """Memoise a figure builder on the content of its arguments (see the module docstring)."""

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            key = (fn.__module__, fn.__qualname__, _fp(args), _fp(tuple(sorted(kw.items()))))
        except _NoKey:
            return finish(fn(*args, **kw))
        # single flight: the sessions opening one fresh view at once wait for one build of each figure;
        # the entry keeps args and kw, so the identities in the key stay alive with it
        entry = _CACHE.get_or_compute(key, lambda: (_share_to_dict(finish(fn(*args, **kw))), args, kw))
        return entry[0]

    return wrapper


#: the most points of one line a chart is sent with: about two per pixel of a wide chart's plot area
SCREEN_POINTS = 1200
#: per-point values a scatter trace may hold besides x and y; a trace that has any is sent whole
_PER_POINT = ("text", "hovertext", "customdata", "ids", "textposition")


def screen_indices(x: np.ndarray, y: np.ndarray, most: int = SCREEN_POINTS) -> np.ndarray | None:
    """The points of a line (``x`` increasing) a screen can show: in each of ``most // 4`` equal runs of
    points, the first and last and the lowest and highest (min–max decimation: every extreme a pixel
    column would draw is kept, so the drawn envelope is the same), and every point at a round x (one
    significant digit: 1 000, 2·10⁻³), the values a reader (or a lesson's question) asks for and reads by
    hovering. None when the line is short, or not a function of an increasing x."""
    n = y.size
    if n <= most or x.size != n or not np.all(np.diff(x) > 0):
        return None
    k = most // 4  # runs as numpy's array_split cuts them: the first n % k one point longer
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    idx = starts[:, None] + np.arange(sizes[0])[None, :]  # every run at once, the shorter ones padded
    inside = np.arange(sizes[0])[None, :] < sizes[:, None]
    seg = np.where(inside, y[np.minimum(idx, n - 1)], np.nan)
    rows = np.flatnonzero(np.isfinite(seg).any(axis=1))  # the padding is NaN: never finite
    # the first lowest and first highest of each run, NaN skipped (a run with no finite value adds none)
    lo = np.argmin(np.where(np.isnan(seg), np.inf, seg), axis=1)
    hi = np.argmax(np.where(np.isnan(seg), -np.inf, seg), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lead = x / 10.0 ** np.floor(np.log10(np.abs(x)))
        rounds = np.flatnonzero((x == 0) | (np.abs(lead - np.round(lead)) < 1e-9))
    ends = starts + sizes - 1
    return np.unique(np.concatenate([starts, ends, starts[rows] + lo[rows], starts[rows] + hi[rows], rounds]))


def _b64(a: np.ndarray) -> dict:
    """An array as plotly's figure dictionaries hold it (base64 of little-endian float64)."""
    import base64

    return {"dtype": "f8", "bdata": base64.b64encode(np.ascontiguousarray(a, dtype="<f8").tobytes()).decode()}


def _for_screen(fig, built: dict) -> dict:
    """``built`` (``fig``'s dictionary) with every long line sent at the points a screen can show
    (:func:`screen_indices`); ``fig`` itself keeps every point (its chart in words, a report's tables)."""
    data = built.get("data") or []
    for i, tr in enumerate(getattr(fig, "data", ())):
        if tr.type != "scatter" or "markers" in (tr.mode or "lines") or i >= len(data):
            continue
        per_point = [getattr(tr, k, None) for k in _PER_POINT] + [tr.marker.color, tr.marker.size, tr.line.color]
        if any(v is not None and not isinstance(v, (str, int, float)) for v in per_point):
            continue
        try:
            x, y = np.asarray(tr.x, dtype=float), np.asarray(tr.y, dtype=float)
        except (TypeError, ValueError):
            continue
        keep = screen_indices(x, y)
        if keep is not None:
            data[i] = {**data[i], "x": _b64(x[keep]), "y": _b64(y[keep])}
    return built


def _share_to_dict(fig):
    """A memoised figure is read-only and shared, so its plain-dict form is built once too: Streamlit's
    ``plotly_chart`` calls ``to_dict`` every session (a deep copy of every trace and base64 of every
    array: a tenth of a warm view's CPU). Long lines are sent at the points a screen shows
    (:func:`_for_screen`: a browser's redraw of a changed chart costs with its points). plotly's writers
    only read that dict (``to_json`` pops trace uids, which these figures never have); each caller gets
    its own top level, which is what plotly's pickling adds keys to. Set on the instance, past plotly's
    attribute validation."""
    build = getattr(fig, "to_dict", None)
    if build is None:  # not a plotly figure (a test's stand-in)
        return fig
    object.__setattr__(fig, _SHARED, True)
    built: list = []

    def to_dict():
        if not built:
            built.append(_for_screen(fig, build()))
        return dict(built[0])

    object.__setattr__(fig, "to_dict", to_dict)
    return fig


#: set on a memoised (shared) figure: only those have their JSON and words memoised by identity, since
#: a figure built afresh at every run would otherwise be kept alive by the memo, uncounted, until evicted
_SHARED = "_hetdp_shared"


def _shared_once(memo: Memo, fig, compute):
    """``compute()`` memoised on ``fig``'s identity when ``fig`` is shared (:func:`memo_figure`); computed
    each time for a figure of one run, which the memo would keep alive without counting it."""
    if not getattr(fig, _SHARED, False):
        return compute()
    return _once(memo, id(fig), fig, compute)


def clear() -> None:
    _CACHE.clear()
    _JSON.clear()
    _CSV.clear()
    _SUMMARY.clear()
    _DERIVED.clear()


def _fig_size(entry) -> int:
    """A memo entry's bytes: the figure's traces (their arrays) and the inputs it keeps alive."""
    fig, *rest = entry
    data = getattr(fig, "data", ())
    return (
        size_of([getattr(t, "x", None) for t in data] + [getattr(t, "y", None) for t in data]) + size_of(rest) + 20_000
    )


_CACHE = Memo(FIGURE_BYTES, size=_fig_size, name="figures")
_SUMMARY = Memo(16 * 2**20, size=lambda e: size_of(e[1]) + 200, name="chart summaries")


def summary_text(fig) -> str:
    """:func:`hetdp_ui.theme.summarize` of a figure, memoised on the figure's identity when it is
    a memoised figure (shared by every session, so a warm view does not summarise it again)."""
    from hetdp_ui.theme import summarize

    return _shared_once(_SUMMARY, fig, lambda: summarize(fig))


_JSON = Memo(64 * 2**20, size=lambda e: len(e[1]) + 200, name="chart JSON")


def figure_json(fig) -> str:
    """plotly's JSON of ``fig`` as the browser draws it (a memoised figure's long lines at the points a
    screen shows: :func:`_share_to_dict`), memoised on the figure's identity when it is a memoised
    figure (shared by every session, so a warm view sends the JSON it already wrote; a figure built
    afresh by one run is written each time, not kept alive by the memo). A figure made from plotly's dictionary
    form (:func:`hetdp_ui.theme.dict_figure`) is written from that dictionary, as plotly would write it,
    without plotly's objects (their ``to_dict`` deep-copies the figure, its template included)."""
    import plotly.io as pio

    from hetdp_ui.figdict import DICT

    def write() -> str:
        d = getattr(fig, DICT, None)
        if d is None:
            return pio.to_json(fig, validate=False)
        from plotly.io.json import to_json_plotly

        layout = {k: _b64_copy(v) for k, v in d["layout"].items() if k != "template"}
        if "template" in d["layout"]:
            layout["template"] = d["layout"]["template"]
        return to_json_plotly({"data": [_b64_copy(_screen_trace(t)) for t in d["data"]], "layout": layout})

    return _shared_once(_JSON, fig, write)


def _b64_copy(obj):
    """``obj`` with its numpy arrays as plotly writes them for the browser (its own rule and encoding: every
    array value of a dictionary but under the keys plotly skips), copied, not changed in place."""
    from _plotly_utils.utils import is_homogeneous_array, is_skipped_key, to_typed_array_spec

    if isinstance(obj, dict):
        return {
            k: v if is_skipped_key(k) else to_typed_array_spec(v) if is_homogeneous_array(v) else _b64_copy(v)
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return type(obj)(_b64_copy(v) if isinstance(v, (dict, list, tuple)) else v for v in obj)
    return obj


def _screen_trace(tr: dict) -> dict:
    """A trace of a figure's dictionary with a long line at the points a screen shows (the rule of
    :func:`_for_screen`)."""
    if tr.get("type", "scatter") != "scatter" or "markers" in (tr.get("mode") or "lines"):
        return tr
    marker, line = tr.get("marker") or {}, tr.get("line") or {}
    per_point = [tr.get(k) for k in _PER_POINT] + [marker.get("color"), marker.get("size"), line.get("color")]
    if any(v is not None and not isinstance(v, (str, int, float)) for v in per_point):
        return tr
    try:
        x, y = np.asarray(tr.get("x"), dtype=float), np.asarray(tr.get("y"), dtype=float)
    except (TypeError, ValueError):
        return tr
    keep = screen_indices(x, y)
    return tr if keep is None else {**tr, "x": x[keep], "y": y[keep]}


#: CSV bytes of shared tables (the entry keeps its table alive, so both count)
_CSV = Memo(128 * 2**20, size=lambda e: size_of(e[0]) + len(e[1]), name="CSV bytes")


def csv_bytes(df: pd.DataFrame) -> bytes:
    """:func:`hetdp_ui.csvfile.csv_text` of ``df`` as UTF-8, memoised on the table's identity (the tables
    of a cached result are shared by every session; the entry keeps the table alive)."""
    from hetdp_ui.csvfile import csv_text

    return _once(_CSV, id(df), df, lambda: csv_text(df).encode())
