"""What a slider step sends and encodes (issue 51): a large table's CSV is made when its button is
clicked, with the bytes `hetdp run --csv` writes; a long line is sent at the points a screen can show,
while the figure keeps every point (its chart in words, a report's tables)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
import streamlit.testing.v1.app_test as app_test_module
from conftest import page_path
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from hetdp_ui.figcache import SCREEN_POINTS, memo_figure, screen_indices
from hetdp_ui.widgets import DEFERRED_CELLS


def test_a_large_tables_csv_is_made_on_click_with_the_clis_bytes(monkeypatch, tmp_path):
    from hetdp_core.scenarios import get
    from hetdp_ui.cli import main

    managers = []

    class Kept(MediaFileManager):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            managers.append(self)

    monkeypatch.setattr(app_test_module, "MediaFileManager", Kept)
    at = AppTest.from_file(str(page_path("Per_user_privacy")), default_timeout=300).run()
    assert not at.exception, at.exception
    module = get("Per_user_privacy")
    assert module.run(module.SCENARIO()).hetero_weights.size > DEFERRED_CELLS  # the default view's: a large one
    deferred = {b.proto.label: b.proto.deferred_file_id for b in at.get("download_button") if b.proto.deferred_file_id}
    assert "Download hetero_weights.csv" in deferred, sorted(deferred)
    main(["run", "Per_user_privacy", "--csv", str(tmp_path)])
    mgr = managers[-1]
    url = mgr.execute_deferred(deferred["Download hetero_weights.csv"])
    file_id = url.rsplit("/", 1)[-1].split(".")[0]
    assert mgr._storage.get_file(file_id).content == (tmp_path / "hetero_weights.csv").read_bytes()
    eager = [b for b in at.get("download_button") if b.proto.label == "Download hetero_release_quantiles.csv"]
    assert eager and not eager[0].proto.deferred_file_id  # a small table's bytes are there at once


def test_screen_points_keep_every_extreme_of_a_long_line():
    x = np.arange(20_000.0)
    y = np.sin(x / 300) + (x == 12_345) * 5.0  # a spike one point wide
    keep = screen_indices(x, y)
    assert keep.size <= SCREEN_POINTS + 64 and keep[0] == 0 and keep[-1] == x.size - 1
    assert 12_345 in keep and np.isclose(y[keep].max(), y.max()) and np.isclose(y[keep].min(), y.min())
    assert {1000, 2000, 10_000, 7} <= set(keep.tolist())  # round x values, which a reader asks for, are kept
    assert screen_indices(x[:500], y[:500]) is None  # a short line is sent whole
    assert screen_indices(x[::-1], y) is None  # not a function of an increasing x (a band's outline)


@pytest.mark.parametrize("mode", ["lines", "markers"])
def test_a_figure_keeps_its_points_and_sends_a_screens_worth(mode):
    @memo_figure
    def long_line(n: int, mode: str):
        x = np.linspace(0, 1, n)
        return go.Figure(go.Scatter(x=x, y=x**2, mode=mode))

    fig = long_line(5000, mode)
    assert len(fig.data[0].x) == 5000  # what the figure says (its summary, a report) keeps every point
    sent = fig.to_dict()["data"][0]
    import base64

    n_sent = len(base64.b64decode(sent["x"]["bdata"])) // 8
    assert n_sent == (5000 if mode == "markers" else n_sent) and (mode == "markers" or n_sent <= SCREEN_POINTS + 64)


def _screen_indices_run_by_run(x, y, most=SCREEN_POINTS):
    """The decimation as first written, one run of points at a time (the oracle of the vectorised one)."""
    n = y.size
    if n <= most or x.size != n or not np.all(np.diff(x) > 0):
        return None
    keep = set()
    with np.errstate(invalid="ignore"):
        for r in np.array_split(np.arange(n), most // 4):
            seg = y[r]
            keep.update((int(r[0]), int(r[-1])))
            if np.isfinite(seg).any():
                keep.update((int(r[np.nanargmin(seg)]), int(r[np.nanargmax(seg)])))
    with np.errstate(divide="ignore", invalid="ignore"):
        lead = x / 10.0 ** np.floor(np.log10(np.abs(x)))
        keep.update(np.flatnonzero((x == 0) | (np.abs(lead - np.round(lead)) < 1e-9)).tolist())
    return np.array(sorted(keep))


@pytest.mark.parametrize("seed", range(40))
def test_screen_points_are_those_a_run_by_run_scan_keeps(seed):
    """All runs at once keep exactly the points the run-by-run scan kept, with NaN, ±inf, ties, runs with no
    finite value, lengths just above the screen's and far above it."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([SCREEN_POINTS + 1, SCREEN_POINTS + 299, 5_000, 20_011]))
    x = np.cumsum(rng.random(n) + 1e-3) - rng.random() * n * 0.3  # crosses 0: round values of both signs
    y = rng.normal(size=n)
    if seed % 2:
        y = np.round(y)  # ties: the first lowest and highest are kept
    for value, share in ((np.nan, 0.3 * (seed % 3 == 0)), (np.inf, 0.1 * (seed % 5 == 0)), (-np.inf, 0.1)):
        y[rng.random(n) < share] = value
    if seed % 7 == 0:
        y[: n // 3] = np.nan  # whole runs without a finite value
    expect, got = _screen_indices_run_by_run(x, y), screen_indices(x, y)
    assert expect is not None and got is not None and got.tolist() == expect.tolist()
