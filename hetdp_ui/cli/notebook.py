"""``hetdp notebook PAGE``: a Jupyter notebook that recomputes the view."""

from __future__ import annotations

from hetdp_ui.cli._common import _query_of, _scenario_verb, output_path, write_atomic


def cmd_notebook(a) -> int:
    """``hetdp notebook PAGE --query … --out F.ipynb``: the notebook the page's button gives."""
    from hetdp_ui.notebook import notebook_bytes, page_notebook

    page, query = _query_of(a)
    from urllib.parse import urlencode

    pin = query.pop("pin", None)  # a pinned plan A in the link (--url or --query)
    out = output_path(a.out, what="--out", suffixes=(".ipynb",))
    nb = page_notebook(page, urlencode(query, doseq=True), app_url=a.app_url, pin=pin[-1] if pin else None)
    write_atomic(out, notebook_bytes(nb), what="--out")
    print(f"wrote {out} (run it with: jupyter nbconvert --execute --to notebook {out.name})")
    return 0


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    nbk = _scenario_verb(
        sub,
        "notebook",
        "a Jupyter notebook that recomputes a page's view (runs in a fresh kernel)",
        dask=False,
        budget=False,
    )
    nbk.add_argument("--out", required=True, metavar="FILE.ipynb", help="the notebook to write")
    nbk.add_argument("--app-url", default="http://localhost:8501", help="base of the link back to the view")
    nbk.set_defaults(func=cmd_notebook)
