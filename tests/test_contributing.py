"""docs/contributing.md's "Adding a page, step by step", followed literally: the four files it prints
(the core module and the page's folder)
are written into a copy of the app, and the new page is then found everywhere the guide promises —
the menu, the docs (app and site), `hetdp run/solve/report/notebook`, the fork server's preload list,
the load tool, the page itself in AppTest and the fuzz test of its URL parameters — with no other file
edited."""

import os
import re
import shutil
import subprocess
import sys
import textwrap

from conftest import ROOT

GUIDE = (ROOT / "docs" / "contributing.md").read_text()


def steps() -> dict[str, str]:
    """path → file text, from the guide's numbered steps (the first `path` and code block of each)."""
    section = GUIDE.split("## Adding a page, step by step", 1)[1].split("\nThen `make test`", 1)[0]
    out = {}
    for step in re.split(r"\n\*\*\d\. ", section)[1:]:
        path = re.search(r"`([\w/.-]+\.(?:py|md))`", step).group(1)
        out[path] = re.search(r"```\w*\n(.*?)\n```\n", step, re.S).group(1) + "\n"
    return out


CHECK = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from hetdp_core import registry
    from hetdp_ui import docsite, limits, nav
    from hetdp_ui.cli import main

    root = Path.cwd()
    assert registry.__file__.startswith(str(root)), registry.__file__  # the copy, not the checkout
    assert "Coin_flip" in registry.pages(), list(registry.pages())
    assert ("pages/coin_flip/page.py", "Coin flip", "Coin_flip") == nav.scenario_entries()[-1][:3]  # the menu
    assert nav.docs()["coin_flip"] == "Coin flip" and "(../pages/coin_flip/guide.md)" in docsite.index_block()
    assert nav.doc_file("coin_flip") == root / "pages" / "coin_flip" / "guide.md"
    assert "hetdp_core.scenarios.coin_flip" in limits.preload()
    assert main(["run", "coin-flip", "--query", "eps=2&trials=50", "--json"]) == 0
    assert main(["solve", "Coin_flip", "--target", "0.1"]) == 2  # no solver: one line, exit 2
    assert main(["report", "Coin_flip", "--query", "trials=50", "--out", "r.html"]) == 0
    assert "Error of the estimated share against ε" in Path("r.html").read_text()  # the folder's figure
    assert main(["notebook", "Coin_flip", "--query", "trials=50", "--out", "n.ipynb"]) == 0
    assert json.loads(Path("n.ipynb").read_text())["cells"]
    sys.path.insert(0, str(root / "benchmarks"))
    import load
    assert "Coin_flip" in load.PAGES, (load.__file__, load.PAGES)

    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file("pages/coin_flip/page.py", default_timeout=120).run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert at.title[0].value == "Coin flip" and "In short" in " ".join(m.value for m in at.markdown)
    at.slider(key="coin_flip_eps").set_value(3.0).run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert at.query_params["eps"] in (["3"], "3"), dict(at.query_params)
    assert len(at.get("plotly_chart")) == 1  # the folder's one figure
    print("FOUND EVERYWHERE")
    """
)


def test_the_guide_prints_the_core_module_and_the_folder():
    files = steps()
    assert list(files) == [
        "hetdp_core/scenarios/coin_flip.py",
        "pages/coin_flip/page.py",
        "pages/coin_flip/figures.py",
        "pages/coin_flip/guide.md",
    ]
    assert "PAGE_SPEC = PageSpec(" in files["hetdp_core/scenarios/coin_flip.py"]


def test_following_the_guide_adds_a_page_everywhere(tmp_path):
    app = tmp_path / "app"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "artifacts")
    for name in ("hetdp_core", "hetdp_ui", "pages", "docs", "data", "benchmarks", "tests", ".streamlit"):
        shutil.copytree(ROOT / name, app / name, ignore=ignore)
    shutil.copy(ROOT / "app.py", app / "app.py")
    before = {p: p.read_bytes() for p in app.rglob("*") if p.is_file()}
    for path, text in steps().items():
        assert not (app / path).exists(), path
        (app / path).parent.mkdir(parents=True, exist_ok=True)
        (app / path).write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(app), "HETDP_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=app, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "FOUND EVERYWHERE" in done.stdout, done.stdout[-2000:] + done.stderr[-4000:]
    # the fuzz test of URL parameters takes the new page too (its list of pages is the registry)
    fuzz = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_fuzz.py", "-k", "Coin_flip"],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert fuzz.returncode == 0 and "1 passed" in fuzz.stdout, fuzz.stdout[-3000:] + fuzz.stderr[-2000:]
    after = {p: p.read_bytes() for p in app.rglob("*") if p.is_file() and p in before}
    assert after == before  # nothing else was edited (docs/README.md's generated table is `make docs`'s)

    # the documentation site builds with the new guide (strict) and lists it
    site = subprocess.run(
        [sys.executable, "-m", "hetdp_ui.docsite", "--out", str(tmp_path / "site")],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert site.returncode == 0, site.stderr[-3000:]
    assert 'href="coin_flip.html"' in (tmp_path / "site" / "index.html").read_text()
    assert (tmp_path / "site" / "api" / "hetdp_core.scenarios.coin_flip.html").exists()
