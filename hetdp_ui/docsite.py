"""The documentation site: each page's guide (``pages/<slug>/guide.md``) and ``docs/*.md`` (the same
Markdown the app's Documentation page shows) plus pages generated here — the index of pages and the list
of sources from the registry, the command-line reference from the parser, the API reference from the
core's docstrings — built by MkDocs with the Material theme. ``make docs`` also brings the generated
blocks of docs/README.md (pages, topics, sources) and of the README (sources) up to date; a test checks
both.

``python -m hetdp_ui.docsite [--out DIR]`` (``make docs``) writes a static site that opens from disk
without a server or the internet (relative links, no web fonts, no script from elsewhere, formulas
rendered to MathML at build time). Its search works from disk too: Material's offline plugin writes the
search index as a script (``search/search_index.js``) and runs the search worker in an iframe through
the ``iframe-worker`` shim, which the build takes from the npm registry once (``npm pack``, its hash
checked) and ships beside the pages instead of loading it from a CDN. The build is strict: a broken
link, a docstring griffe cannot read or a formula that does not convert fails it.

MkDocs and its plugins are the ``docs`` extra (not needed by ``make run``); the shim needs ``npm``.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import io
import logging
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from contextlib import redirect_stdout
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SITE = ROOT / "build" / "site"

#: the Web Worker shim for pages opened from disk, by the Material theme's author (npm package
#: ``iframe-worker``, MIT): the offline plugin would load it from a CDN, so the build ships this copy
IFRAME_WORKER = ("iframe-worker", "1.0.4", "e8e412dbcfea9b7e31b5ffa288d7b6035915e714c542f4176a0cdbe262fc9609")
#: where the site ships it; the name says "iframe-worker", which tells the offline plugin it is present
SHIM = "assets/javascripts/iframe-worker-shim.js"
NPM_CACHE = ROOT / "build" / "npm"

_MATH = re.compile(r'<(span|div) class="arithmatex">\\[(\[](.*?)\\[)\]]</\1>', re.S)


# ---------------------------------------------------------------------------------------------- hooks
def on_page_content(page_html: str, **_) -> str:
    """MkDocs hook: formulas (``$…$``, ``$$…$$``, kept intact by pymdownx.arithmatex) → MathML, which
    browsers draw without a script. A formula latex2mathml cannot convert is a warning (an error
    under ``--strict``)."""
    from latex2mathml.converter import convert

    def one(m: re.Match) -> str:
        tex = html.unescape(m.group(2))
        try:
            return convert(tex, display="block" if m.group(1) == "div" else "inline")
        except Exception as exc:  # noqa: BLE001 — the converter raises many types; all mean "cannot"
            logging.getLogger("mkdocs.hooks.hetdp_math").warning("formula not converted: %r (%s)", tex, exc)
            return m.group(0)

    return _MATH.sub(one, page_html)


# -------------------------------------------------------------------------------------- generated pages
_BEGIN = "<!-- begin: generated from the registry by `make docs` (hetdp_ui/docsite.py); a test checks it -->"
_END = "<!-- end -->"
#: the README's generated block: the list of sources
_README_BEGIN = (
    "<!-- begin: generated from the pages' sources by `make docs` (hetdp_ui/docsite.py); a test checks it -->"
)


def guided_pages() -> list:
    """Every page with a guide in its folder, in menu order: the scenario pages (from the registry), then the
    other pages (their ``page.toml``) — each with ``slug``, ``title``, ``summary`` and ``url``."""
    from hetdp_core.framework.registry import specs
    from hetdp_ui.folders import tool_pages

    return [*specs(), *(t for t in tool_pages() if t.guide)]


def index_block(*, site: bool = False) -> str:
    """The table of pages (from the registry and the other pages' folders) and the list of the other
    topics, for docs/README.md: a page's guide is linked in its folder (``../pages/<slug>/guide.md``), or on
    the site, where every guide sits beside the topics, as ``<slug>.md``."""
    from hetdp_ui.nav import OTHER_DOCS

    link = (lambda s: f"{s.slug}.md") if site else (lambda s: f"../pages/{s.slug}/guide.md")
    rows = "\n".join(f"| [{s.title}]({link(s)}) | {s.summary} | `/{s.url}` |" for s in guided_pages())
    other = "\n".join(f"- [{title}]({name}.md)" for name, title in OTHER_DOCS.items())
    return (
        f"## Pages\n\n| page | its question | in the app |\n|---|---|---|\n{rows}\n\n## Other topics\n\n{other}\n"
        f"\n## Sources\n\n{sources_block()}"
    )


def sources_block() -> str:
    """The works the pages are built on, one citation a line, from the pages' specs
    (:func:`hetdp_core.framework.registry.cited_sources`)."""
    from hetdp_core.framework.registry import cited_sources

    return "".join(f"- {src.citation()}.\n" for src, _ in cited_sources())


def _with_block(text: str, begin: str, body: str) -> str:
    """``text`` with the block after its line ``begin`` (up to the next ``<!-- end -->``) replaced by ``body``."""
    head, found, rest = text.partition(begin)
    if not found:
        raise ValueError(f"the generated block's first line is missing: {begin}")
    _, _, tail = rest.partition(_END)
    return f"{head}{begin}\n{body}{_END}{tail}"


def index_text(text: str | None = None, *, site: bool = False) -> str:
    """docs/README.md with its generated block brought up to date (``site``: with the site's links)."""
    text = (DOCS / "README.md").read_text(encoding="utf-8") if text is None else text
    return _with_block(text, _BEGIN, index_block(site=site))


def readme_text(text: str | None = None) -> str:
    """The repository's README.md with its generated list of sources brought up to date."""
    text = (ROOT / "README.md").read_text(encoding="utf-8") if text is None else text
    return _with_block(text, _README_BEGIN, sources_block())


def index_page() -> str:
    """The site's home: docs/README.md with the generated block and links to the references."""
    refs = "- [Command-line reference](cli.md)\n- [API reference](api/index.md)\n"
    return index_text(site=True).replace(_END, f"\n## Reference\n\n{refs}{_END}")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(
        (a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)),  # noqa: SLF001
        {},
    )


def cli_page() -> str:
    """The command-line reference: every command's ``--help``, from the parser itself."""
    from hetdp_ui.cli import build_parser

    out = [
        "# Command-line reference",
        "",
        "Generated from `hetdp`'s own parser (`hetdp COMMAND --help` prints the same). Examples and the "
        "exit codes: [Command line](command-line.md).",
        "",
    ]

    def walk(prefix: str, parser: argparse.ArgumentParser, depth: int) -> None:
        for name, child in _subcommands(parser).items():
            out.extend([f"{'#' * depth} `{prefix} {name}`", "", "```text", child.format_help().rstrip(), "```", ""])
            walk(f"{prefix} {name}", child, min(depth + 1, 4))

    # argparse wraps to the terminal's width: a fixed one keeps the page stable (and is undone after)
    with mock.patch.dict(os.environ, {"COLUMNS": "100"}):
        root = build_parser()
        out.extend(["```text", root.format_help().rstrip(), "```", ""])
        walk("hetdp", root, 2)
    return "\n".join(out)


def api_modules() -> list[str]:
    """The public modules of :mod:`hetdp_core` (a leading underscore marks a private one)."""
    import hetdp_core

    return sorted(
        m.name
        for m in pkgutil.walk_packages(hetdp_core.__path__, "hetdp_core.")
        if not any(part.startswith("_") for part in m.name.split("."))
    )


def api_pages() -> dict[str, str]:
    """``api/<module>.md`` per core module (mkdocstrings renders the numpydoc) and an index."""
    mods = api_modules()
    pages = {f"api/{m}.md": f"# `{m}`\n\n::: {m}\n" for m in mods}
    rows = "\n".join(f"- [`{m}`]({m}.md)" for m in mods)
    pages["api/index.md"] = (
        "# API reference\n\n`hetdp_core` is the numerics and the scenarios, importable without Streamlit or "
        "plotly. Each page's question is a scenario (`hetdp_core.scenarios.<page>`) with one `run`.\n\n"
        f"{rows}\n"
    )
    return pages


def config(src: Path) -> str:
    """mkdocs.yml for a staging folder ``src`` (generated: the navigation comes from the registry)."""
    from hetdp_ui.nav import OTHER_DOCS

    pages = "\n".join(f"      - '{s.title}': {s.slug}.md" for s in guided_pages())
    guides = "\n".join(f"      - '{t}': {n}.md" for n, t in OTHER_DOCS.items())
    api = "\n".join(f"      - {m}: api/{m}.md" for m in api_modules())
    return f"""site_name: hetdp — privacy that is not one number
docs_dir: {src / "md"}
use_directory_urls: false
strict: true
theme:
  name: material
  font: false
  features: [navigation.sections, search.highlight]
extra:
  polyfills: [{SHIM}]
plugins:
  - search
  - offline
  - mkdocstrings:
      handlers:
        python:
          paths: [{ROOT}]
          options:
            docstring_style: numpy
            show_source: false
            show_root_heading: false
            members_order: source
            filters: ["!^_"]
hooks:
  - {Path(__file__).resolve()}
markdown_extensions:
  - tables
  - admonition
  - attr_list
  - toc:
      permalink: true
  - pymdownx.arithmatex:
      generic: true
  - pymdownx.superfences
nav:
  - Home: index.md
  - Pages:
{pages}
  - Guides:
{guides}
  - Reference:
      - Command line: cli.md
      - API: api/index.md
{api}
validation:
  omitted_files: warn
  absolute_links: warn
  unrecognized_links: warn
"""


def iframe_worker_shim() -> bytes:
    """The ``iframe-worker`` shim's script (``shim/index.js`` of the npm package), fetched once into
    build/npm/ by ``npm pack`` (the npm registry, the ordinary client) and checked against its SHA-256."""
    name, version, sha256 = IFRAME_WORKER
    cached = NPM_CACHE / f"{name}-{version}.js"
    if not cached.exists():
        NPM_CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="hetdp-npm-") as tmp:
            try:
                done = subprocess.run(
                    ["npm", "pack", f"{name}@{version}", "--pack-destination", tmp, "--silent"],
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
            except FileNotFoundError as exc:
                raise RuntimeError(
                    "the documentation site's offline search needs npm (Debian: apt-get install npm)"
                ) from exc
            if done.returncode != 0:
                raise RuntimeError(f"npm pack {name}@{version} failed: {done.stderr[-2000:]}")
            with tarfile.open(Path(tmp) / f"{name}-{version}.tgz") as tgz:
                script = tgz.extractfile("package/shim/index.js").read()
            partial = cached.with_suffix(f".{os.getpid()}.part")  # two test processes may fetch at once
            partial.write_bytes(script)
            partial.replace(cached)
    script = cached.read_bytes()
    if hashlib.sha256(script).hexdigest() != sha256:
        raise RuntimeError(f"{cached} is not {name} {version} (SHA-256 differs): delete it and build again")
    return script


def stage(src: Path) -> Path:
    """Write the site's sources into ``src``: each page's guide as ``<slug>.md``, docs/*.md as they are, the
    generated pages, mkdocs.yml."""
    from hetdp_ui.nav import doc_file

    md = src / "md"
    (md / "api").mkdir(parents=True)
    for s in guided_pages():
        shutil.copy(doc_file(s.slug), md / f"{s.slug}.md")
    for f in DOCS.glob("*.md"):
        if f.name != "README.md":
            shutil.copy(f, md / f.name)
    shutil.copytree(DOCS / "images", md / "images")
    (md / SHIM).parent.mkdir(parents=True)
    (md / SHIM).write_bytes(iframe_worker_shim())
    with redirect_stdout(io.StringIO()):
        generated = {"index.md": index_page(), "cli.md": cli_page(), **api_pages()}
    for name, text in generated.items():
        (md / name).write_text(text, encoding="utf-8")
    (src / "mkdocs.yml").write_text(config(src), encoding="utf-8")
    return src / "mkdocs.yml"


def build(out: Path = SITE) -> subprocess.CompletedProcess:
    """Build the site into ``out`` with warnings as errors; returns the finished mkdocs process."""
    with tempfile.TemporaryDirectory(prefix="hetdp-docs-") as tmp:
        cfg = stage(Path(tmp))
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-f", str(cfg), "-d", str(out.resolve())],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hetdp_ui.docsite", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=SITE, help=f"where the site goes (default {SITE.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    for path, fresh, what in (
        (DOCS / "README.md", index_text(), "the table of pages, the topics and the sources"),
        (ROOT / "README.md", readme_text(), "the list of sources"),
    ):
        if path.read_text(encoding="utf-8") != fresh:
            path.write_text(fresh, encoding="utf-8")
            print(f"updated {what} in {path.relative_to(ROOT)}")
    done = build(args.out)
    sys.stderr.write(done.stderr)
    if done.returncode == 0:
        print(f"documentation site: {args.out / 'index.html'}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
