"""Helpers every verb shares: output paths, atomic writes, list parsing, JSON, the page-scenario arguments."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
from pathlib import Path

import numpy as np

from hetdp_core.framework._validate import InputError

BUDGET_NAMES = ("large", "none", "page")


#: names of hetdp_core.per_feature.bcdp_sim.PRESETS (a test keeps them equal; listed here to keep start-up light)
FIGURES = ("fig3", "fig4a", "fig4b")


@contextlib.contextmanager
def _executor(a):
    """Dask when ``--dask`` is given (``local`` or a scheduler address), else None (threads)."""
    if not getattr(a, "dask", None):
        yield None
        return
    from hetdp_ui.dask_exec import dask_executor

    with dask_executor(a.dask) as ex:
        yield ex


def budget(name: str):
    """The compute budget called ``name`` (``none``: no limit)."""
    from hetdp_core.framework.scenario import LARGE_BUDGET, PAGE_BUDGET

    return {"page": PAGE_BUDGET, "large": LARGE_BUDGET, "none": None}[name]


def run_view(scenario, options, *, limited: bool):
    """A page's run of ``scenario`` as ``hetdp run`` does it: in a child process held to the page's
    limits while it runs when ``limited`` (and no executor), else here."""
    if limited and options.executor is None:
        from hetdp_ui.limits import run_limited

        return run_limited(scenario.PAGE, scenario, options=options, start="fork")
    from hetdp_core.scenarios import get

    return get(scenario.PAGE).run(scenario, options=options)


def field_flags(parser, page: str, fields: dict[str, str]) -> None:
    """Add one ``--flag`` per scenario field (flag → field) to ``parser``. No default, range or choice
    is copied here: a flag left out takes the page's default, and a value is checked by the field's
    own constraint when the scenario is built (:func:`given_fields`, :func:`view`) — the same rule and
    message as the page's URL. (The page modules are not imported here: ``hetdp --help`` stays fast.)"""
    for flag, name in fields.items():
        parser.add_argument(
            f"--{flag}",
            dest=flag.replace("-", "_"),
            default=None,
            metavar=name.upper(),
            help=f"the {page} page's {name} (left out: the page's default)",
        )


def given_fields(a, fields: dict[str, str]) -> dict[str, str]:
    """The scenario fields whose flags were given (text, checked by the scenario)."""
    out = {}
    for flag, name in fields.items():
        value = getattr(a, flag.replace("-", "_"))
        if value is not None:
            out[name] = value
    return out


def view(page: str, query: dict, a):
    """(scenario, result) of ``page`` at ``query`` (values as text, validated by the page's own
    constraints) under ``--budget``: what the older verbs that alias a page compute."""
    from hetdp_core.framework.scenario import RunOptions
    from hetdp_core.scenarios import get

    scenario = get(page).SCENARIO.from_query({k: str(v) for k, v in query.items()})
    return scenario, run_view(scenario, RunOptions(budget=budget(a.budget)), limited=a.budget == "page")


class CliError(InputError):
    """A user-input problem found while parsing the command line."""


def _no_file_above(out: Path, what: str) -> None:
    """Refuse a path with a file among its parents (it cannot be created)."""
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise CliError(f"{what}: {parent} is a file, so {out} cannot be created under it.")


def output_path(path: str | Path, *, what: str, suffixes: tuple = ()) -> Path:
    """Check an output file's path before any work: a suffix from ``suffixes``, not a directory, no
    parent that is a file; parents are created. Raises :class:`CliError` naming the problem."""
    out = Path(path)
    if suffixes and out.suffix.lower() not in suffixes:
        raise CliError(f"{what} must name a {'/'.join(suffixes)} file; got {out}.")
    if out.is_dir():
        raise CliError(f"{what}: {out} is a directory; give a file name inside it.")
    _no_file_above(out, what)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{what}: cannot create the folder {out.parent}: {exc.strerror or exc}.") from None
    return out


def output_dir(path: str | Path, *, what: str) -> Path:
    """An output folder: created if missing; a file in its place is refused."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise CliError(f"{what}: {out} is a file; give a folder (it is created if missing).")
    _no_file_above(out, what)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{what}: cannot create the folder {out}: {exc.strerror or exc}.") from None
    return out


def write_atomic(path: Path, data: str | bytes, *, what: str) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, then rename it over
    ``path``: a full disk or a crash leaves the old file intact and no truncated file."""
    import os
    import tempfile

    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CliError(f"{what}: cannot write in {path.parent}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CliError(
            f"{what}: cannot write {path}: {exc.strerror or exc}. The previous file, if any, is unchanged."
        ) from None


def parse_list(text: str, name: str) -> list[float]:
    """Parse ``"0.2,0.2,inf"`` (or ``@file`` with numbers separated by commas/whitespace, up to 10⁷ of
    them) with the core's number rules (:func:`hetdp_core.framework.scenario.check_value`); value ranges are the
    core function's to check."""
    from hetdp_core.framework.scenario import Spec, check_value

    return list(check_value(name, Spec("floats", allow_inf=True, max_len=10**7), read_numbers(text, name)))


def read_numbers(text: str, name: str) -> str | np.ndarray:
    """``text`` itself, or for ``@path`` the file's numbers (separated by commas or whitespace) as one
    array, read at once: a text field is limited to 20 000 characters, a file is not. The values are
    the caller's to check (:func:`hetdp_core.framework.scenario.check_value` takes the array as it is)."""
    if not text.startswith("@"):
        return text
    path = Path(text[1:])
    if not path.is_file():
        raise CliError(f"{name}: file {path} not found. Give @path to an existing text file.")
    if path.stat().st_size > 50_000_000:
        raise CliError(f"{name}: file {path} is larger than 50 MB. Use a smaller file.")
    try:
        parts = path.read_text(encoding="utf-8").replace(",", " ").split()
    except UnicodeDecodeError:
        raise CliError(f"{name}: file {path} is not UTF-8 text. Save it as plain UTF-8 numbers.") from None
    try:
        return np.array(parts, dtype=float)
    except ValueError:
        bad = next(i for i, p in enumerate(parts) if not _is_number(p))
        raise CliError(f"{name} entry {bad + 1} must be a number; got {parts[bad][:40]!r}.") from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _no_nan(obj):
    """NaN ("no value": unresolved, not computed) becomes null; ±Infinity stays (for a CSV or a table;
    JSON output goes through :func:`_dump`, which writes no non-finite number)."""
    if isinstance(obj, float):
        return None if math.isnan(obj) else obj
    if isinstance(obj, dict):
        return {k: _no_nan(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_no_nan(v) for v in obj]
    return obj


NON_FINITE = "non_finite"


def _finite(obj, path: str, notes: dict):
    """``obj`` with every NaN and ±Infinity replaced by null, each recorded in ``notes`` under its JSON
    Pointer (RFC 6901) with what it was."""
    if isinstance(obj, float | np.floating):
        x = float(obj)
        if math.isnan(x):
            notes[path] = "NaN: no value (not computed, or unresolved)"
            return None
        if math.isinf(x):
            notes[path] = "+Infinity" if x > 0 else "-Infinity"
            return None
        return x
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, dict):
        return {k: _finite(v, f"{path}/{str(k).replace('~', '~0').replace('/', '~1')}", notes) for k, v in obj.items()}
    if isinstance(obj, list | tuple | np.ndarray):
        return [_finite(v, f"{path}/{i}", notes) for i, v in enumerate(obj)]
    return obj


def _dump(obj, *, indent: int | None = None) -> str:
    """Strict JSON (RFC 8259: no NaN or Infinity, which jq and JavaScript's JSON.parse reject): a
    non-finite number is written as null, and the object gains ``"non_finite"``: {JSON Pointer: what the
    value was} so that nothing is lost."""
    notes: dict[str, str] = {}
    clean = _finite(obj, "", notes)
    if notes:
        if isinstance(clean, dict):
            clean[NON_FINITE] = notes
        else:
            clean = {"value": clean, NON_FINITE: {f"/value{k}": v for k, v in notes.items()}}
    return json.dumps(clean, indent=indent, allow_nan=False)


def _last(v):
    """The last value of a query parameter (parse_qs gives lists), or None."""
    if isinstance(v, (list, tuple)):
        return v[-1] if v else None
    return v


def _query_of(a) -> tuple[str, dict]:
    """(page, query mapping) from ``PAGE``, ``--query`` and ``--url``."""
    from urllib.parse import parse_qs, urlsplit

    from hetdp_core.scenarios import get, page_name

    page, query = a.page, {}
    if a.url:
        parts = urlsplit(a.url)
        if parts.path.strip("/"):
            url_page = page_name(parts.path)
            if page and page_name(page) != url_page:
                raise CliError(f"PAGE {page!r} does not match the page of --url ({url_page}); give one of them.")
            page = url_page
        query.update(parse_qs(parts.query, keep_blank_values=True))
    if a.query:
        query.update(parse_qs(a.query.lstrip("?"), keep_blank_values=True))
    if getattr(a, "prior", None) is not None:  # --prior sets the scenario's prior, as prior=… in the link does
        query["prior"] = [repr(float(a.prior))]
    if not page:
        raise CliError("give PAGE (a page's URL path, as in the app's address) or an app link with --url.")
    page = page_name(page)
    for item in getattr(a, "set", None) or []:  # --set NAME=VALUE, checked against the scenario's fields
        cls = get(page).SCENARIO
        name, eq, value = item.partition("=")
        name = cls.ALIASES.get(name.strip(), name.strip())
        if not eq or name not in cls.specs():
            raise CliError(
                f"--set {item[:60]!r}: give NAME=VALUE with NAME one of {page}'s inputs: {', '.join(cls.specs())}."
            )
        query[name] = [value]
    return page, query


class OneLineParser(argparse.ArgumentParser):
    """argparse prints the whole usage block before a malformed-flag error; we print one line
    naming the flag and where to find the usage (subparsers inherit this class)."""

    def error(self, message: str):
        msg = " ".join(message.split())
        self.exit(2, f"{self.prog}: error: {msg} (see '{self.prog} --help')\n")


def verb_with_commands(sub, name: str, help_: str):
    """An older verb with its own commands (``hetdp bcdp c-vector``, ``hetdp zcdp renyi``): its parser's
    subcommands, one of which must be given."""
    return sub.add_parser(name, help=help_).add_subparsers(dest="cmd", required=True)


def _scenario_verb(sub, name: str, help_: str, *, prior: bool = False, dask: bool = True, budget: bool = True):
    """A verb that takes one page's scenario: PAGE (any registered page), --query, --url, --set
    NAME=VALUE (the scenario's own inputs), and optionally --budget, --prior and --dask."""
    ap = sub.add_parser(name, help=help_)
    ap.add_argument(
        "page", nargs="?", default=None, help="page URL path (as in the app's address, any case); optional with --url"
    )
    ap.add_argument("--query", default="", help="the page's query string, e.g. 'q=0.3&n=5000&seed=1'")
    ap.add_argument("--url", default=None, help="a full app link (page and query are read from it)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one input of the page's scenario (repeatable; after --query/--url, so it wins), e.g. --set q=0.3",
    )
    if budget:
        ap.add_argument(
            "--budget",
            choices=BUDGET_NAMES,
            default="page",
            help="per-request compute budget: page (the app's: ~10 s, 1 GiB; default), large (1 h, 16 GiB), none",
        )
    if prior:
        ap.add_argument(
            "--prior",
            type=float,
            default=None,
            help="the attacker's prior of the table privacy_meaning (same as prior=… in --query; default 0.01)",
        )
    if dask:
        ap.add_argument(
            "--dask",
            metavar="ADDRESS",
            help="run the sweep points on Dask: 'local' (a LocalCluster of worker processes) or a scheduler "
            "address tcp://host:8786 (needs the [dask] extra)",
        )
    return ap


def risk_arguments(ap, *, fpr_help: str, target_help: str) -> None:
    """``--fpr`` (the attack false-positive rate, default 0.01) and ``--target-tpr`` (solve from a target
    risk) — the same two flags on ``hetdp meaning`` and ``hetdp ledger``."""
    ap.add_argument("--fpr", type=float, default=0.01, help=f"{fpr_help} (default 0.01)")
    ap.add_argument("--target-tpr", type=float, default=None, help=f"solve from a target risk: {target_help}")
