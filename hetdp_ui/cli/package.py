"""``hetdp package``: a decision in one download (zip: README, report, notebook, script, CSV, TOML)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

from hetdp_ui.cli._common import output_path, write_atomic

__all__ = ["cmd_package", "register", "add_packager"]


def _key(page: str | None) -> str:
    return (page or "").strip("/").lower().replace("-", "_")


def cmd_package(a) -> int:
    """``hetdp package PAGE --query … --out F.zip``, or a page that packages its own input (the release
    ledger's ``--plan FILE``, :func:`add_packager`)."""
    out = output_path(a.out, what="--out", suffixes=(".zip",))
    build = a.packagers.get(_key(a.page))
    if build is not None:
        data = build(a)
    else:
        from urllib.parse import urlencode

        from hetdp_ui.cli._common import _query_of
        from hetdp_ui.package import page_package

        page, query = _query_of(a)
        query.pop("pin", None)
        data = page_package(page, urlencode(query, doseq=True), app_url=a.app_url, execute=not a.no_execute)
    write_atomic(out, data, what="--out")
    print(f"wrote {out} ({len(data) / 1e6:.1f} MB): README.md, report.html, notebook.ipynb, recompute.py, tables/")
    return 0


def add_packager(sub, names: Iterable[str], build: Callable[[argparse.Namespace], bytes]) -> argparse.ArgumentParser:
    """Let a page that is not a scenario package its own input: ``hetdp package NAME …`` with NAME one of
    ``names`` (lower case, ``_`` for ``-``) returns ``build(a)``, the zip's bytes. Returns the ``package``
    parser, for the page's own flags (call it from the page folder's ``cli.py``, after :func:`register`)."""
    if "package" not in sub.choices:  # a programming error (a folder's cli.py registered too early), not input
        raise RuntimeError("add_packager: hetdp package is not registered yet; call it after register(sub)")
    pk = sub.choices["package"]
    pk.get_default("packagers").update(dict.fromkeys((_key(n) for n in names), build))
    return pk


def register(sub) -> None:
    """Add this verb's parser to the ``hetdp`` subcommands."""
    pk = sub.add_parser("package", help="a decision in one zip: README, report, notebook, script, CSV tables, TOML")
    pk.add_argument(
        "page", nargs="?", help="the page: its URL path, as in an app link (a page with its own input: see below)"
    )
    pk.add_argument("--query", default=None, help="the view's URL query string")
    pk.add_argument("--url", default=None, help="an app link of the view (instead of PAGE and --query)")
    pk.add_argument("--out", required=True, help="the zip file to write")
    pk.add_argument("--app-url", default="http://localhost:8501", help="base of the links that reopen the view")
    pk.add_argument("--no-execute", action="store_true", help="leave the notebook unexecuted (faster)")
    pk.set_defaults(func=cmd_package, packagers={})
