"""A plotly chart the browser redraws in place (Streamlit's custom components; no Streamlit-side figure
validation).

``st.plotly_chart`` gives a chart a new element identity whenever its figure changes, so at every slider
step the browser unmounts each changed chart and mounts a new one: plotly draws it from scratch, and
Streamlit's frontend then hands it to plotly again (its theme applied to a copy, the size it measured,
plotly's own update event) — about 90 ms of Chromium's main thread per chart and step on a 2-core machine,
against 20–30 ms for one ``Plotly.react`` of the same figure (measured with ``benchmarks/slider_step.py``'s
probe and Chromium's ``Performance.getMetrics``: six Group-wise zCDP figures, a step 0.43–0.67 s with
``st.plotly_chart``, 0.18–0.20 s drawn in place). Here every chart is an element of one custom component
(``st.components.v2``) keyed by the page's chart key, so its identity survives a new figure: the
component's script receives the figure and calls ``Plotly.react`` on the same ``<div>``, which redraws
what changed.

plotly.js itself is the file the installed plotly package ships (``plotly/package_data/plotly.min.js``,
the version plotly.py's JSON is written for), served by Streamlit from that folder (a ``components.v1``
declaration that is never drawn: Streamlit serves a declared component's folder at
``component/<name>/``) and loaded once per browser tab. The figure goes as plotly's JSON (numbers as
base64 typed arrays, long lines at the points a screen shows: :func:`hetdp_ui.figcache.figure_json`).

The chart takes the app's body font, and its text colour where the figure sets none (a finished figure
sets its own); everything else is the figure's own (the white
template every builder sets, :func:`hetdp_ui.theme.finish`), as in reports and static exports.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import streamlit as st

__all__ = ["plotly_element", "CHART_CLASS", "COMPONENT", "charts", "figure_of", "spec_of"]

#: the component's name (every chart is one of its elements)
COMPONENT = "hetdp.plotly_chart"

#: the class of every chart's ``<div>`` (plotly adds its own ``js-plotly-plot``); tests and benchmarks find
#: charts by it
CHART_CLASS = "hetdp-chart"

#: the component's script: load plotly.js once per tab, then ``Plotly.react`` the figure on the element's
#: own ``<div>`` (a newer figure that arrives while plotly.js loads wins); a resize of the column redraws
#: the chart at its width; a failure is said in the chart's place
_SCRIPT = """
const ASSET = %(asset)s;
const CONFIG = {displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d", "sendDataToCloud"]};
function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__hetdpPlotly) {
    window.__hetdpPlotly = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = new URL(ASSET, document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => { window.__hetdpPlotly = undefined; reject(new Error("plotly.js did not load")); };
      document.head.appendChild(s);
    });
  }
  return window.__hetdpPlotly;
}
export default function (component) {
  const { data, parentElement } = component;
  let gd = parentElement.querySelector(":scope > ." + %(cls)s);
  if (!gd) {
    gd = document.createElement("div");
    gd.className = %(cls)s;
    gd.style.width = "100%%";
    parentElement.appendChild(gd);
  }
  const fig = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  const layout = fig.layout || {};
  gd.style.minHeight = (layout.height || 450) + "px";
  const css = getComputedStyle(gd);
  layout.font = Object.assign({family: css.fontFamily, color: css.color}, layout.font || {});
  const turn = (gd.__hetdpTurn = (gd.__hetdpTurn || 0) + 1);
  gd.__hetdpGone = false;  // drawn here again (a chart that left and came back)
  plotly().then((Plotly) => {
    // a newer figure is on its way, or the chart left the page while plotly.js loaded
    if (turn !== gd.__hetdpTurn || gd.__hetdpGone) return;
    if (gd.__hetdpFailed) { gd.textContent = ""; gd.__hetdpFailed = false; }
    if (!gd.__hetdpResize) {
      let width = gd.clientWidth;
      gd.__hetdpResize = new ResizeObserver(() => {
        if (gd.clientWidth !== width && gd._fullLayout) { width = gd.clientWidth; Plotly.Plots.resize(gd); }
      });
      gd.__hetdpResize.observe(gd);
    }
    return Plotly.react(gd, fig.data || [], layout, CONFIG);
  }).catch((err) => {
    if (window.Plotly) window.Plotly.purge(gd);
    gd.__hetdpFailed = true;  // the next figure starts from an empty div
    gd.textContent = "This chart could not be drawn (" + err.message + "); its numbers are in the CSV below.";
  });
  // called before the next figure is drawn here (the div stays) and when the chart leaves the page (the
  // div goes): only then are plotly's listeners and the size observer let go
  return () => setTimeout(() => {
    if (gd.isConnected) return;
    gd.__hetdpGone = true;
    if (gd.__hetdpResize) { gd.__hetdpResize.disconnect(); gd.__hetdpResize = null; }
    if (window.Plotly) window.Plotly.purge(gd);
  }, 0);
}
"""


@functools.cache
def _plotly_folder() -> str:
    import plotly

    folder = Path(plotly.__file__).parent / "package_data"
    if not (folder / "plotly.min.js").is_file():
        raise FileNotFoundError(f"plotly.js is missing from the plotly package ({folder / 'plotly.min.js'})")
    return str(folder)


def _asset_url() -> str:
    """Declares (each run: a new runtime has an empty registry) the folder of plotly.js as a v1 component
    Streamlit serves, and returns its file's address relative to the app's base URL."""
    from streamlit.components import v1

    declared = v1.declare_component("plotly_js", path=_plotly_folder())
    return f"component/{declared.name}/plotly.min.js"


@functools.cache
def _component():
    asset = _asset_url()
    script = _SCRIPT % {"asset": json.dumps(asset), "cls": json.dumps(CHART_CLASS)}
    return st.components.v2.component(COMPONENT, js=script, isolate_styles=False)


def plotly_element(figure_json: str, *, key: str) -> None:
    """Draw a figure given as plotly's JSON (:func:`hetdp_ui.figcache.figure_json`) as the chart ``key``
    of this page: the same key at the next run redraws the same chart in place."""
    _asset_url()  # the registry of a new runtime (AppTest makes one per test) learns the folder too
    _component()(data=figure_json.encode(), key=key)


def charts(at) -> list:
    """The charts of an AppTest run (its :func:`plotly_element` elements, in page order)."""
    return [e for e in at.get("bidi_component") if e.proto.component_name == COMPONENT]


def spec_of(element) -> str:
    """The plotly JSON an AppTest chart element carries."""
    proto = element.proto
    return proto.bytes.decode() if proto.WhichOneof("data") == "bytes" else proto.json


def figure_of(element) -> dict:
    """The figure an AppTest chart element carries, as a dict (tests read charts through it)."""
    return json.loads(spec_of(element))
