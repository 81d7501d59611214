"""A release plan: the releases an agency publishes, whom each touches, and how it is read from TOML or
typed rows. :mod:`hetdp_core.accountants.ledger` computes what a plan costs each group and re-exports these names.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.scenario import split_list

__all__ = [
    "MECHANISMS",
    "EVERYONE",
    "Release",
    "Plan",
    "parse_plan",
    "plan_from_records",
    "incomplete_rows",
    "plan_toml",
    "levels_text",
    "link_scenario",
]


MECHANISMS = ("gaussian", "laplace", "link")


#: limits of one plan (each release's composition is computed once per group, repeats are exact)
MAX_RELEASES = 200


MAX_REPEAT = 100_000


MAX_GROUPS = 50


MAX_PLAN_BYTES = 200_000


NOISE_RANGE = (1e-3, 1e4)


#: the ε budget a plan may be compared with
BUDGET_RANGE = (0.01, 1000.0)


EVERYONE = "all"


@dataclass(frozen=True)
class Release:
    """One release of the plan (see the module docstring). A ``link`` release has no mechanism or
    noise of its own: ``link`` is an app view (``Page?query``), ``levels`` maps a group to the row of
    that view's level table it is charged (other groups: every row's largest level)."""

    name: str
    mechanism: str
    noise: float | None
    repeat: int = 1
    groups: tuple[str, ...] = (EVERYONE,)
    link: str | None = None
    levels: tuple[tuple[str, str], ...] = ()

    def touches(self, group: str) -> bool:
        return EVERYONE in self.groups or group in self.groups

    def level_for(self, group: str) -> str | None:
        """The view's level row a link release charges ``group``: the row named for it, else the row
        named for ``"all"``, else None (a level that dominates every row)."""
        rows = dict(self.levels)
        return rows.get(group, rows.get(EVERYONE))


@dataclass(frozen=True)
class Plan:
    releases: tuple[Release, ...]
    groups: tuple[str, ...] = field(default=())

    def group_names(self) -> tuple[str, ...]:
        """The declared groups, else every group a release names, else ("all",)."""
        if self.groups:
            return self.groups
        named = [g for r in self.releases for g in r.groups if g != EVERYONE]
        return tuple(dict.fromkeys(named)) or (EVERYONE,)


def _plain(text: str) -> bool:
    """No control characters (tabs, line breaks, escapes …): a name is one line of a table."""
    import unicodedata

    return not any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text)


def _where(i: int, name: str | None) -> str:
    return f"release {i + 1}" + (f" ({name!r})" if name else "")


def _release(i: int, raw, declared: tuple[str, ...]) -> Release:
    if not isinstance(raw, dict):
        raise InputError(f"{_where(i, None)}: must be a [[release]] table; got {type(raw).__name__}.")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise InputError(f"{_where(i, None)}: name must be a text of 1 to 80 characters; got {name!r:.100}.")
    if not _plain(name):
        raise InputError(
            f"{_where(i, None)}: name must be one line of plain text (no control characters or line breaks); "
            f"got {name!r:.100}. Remove them."
        )
    at = _where(i, name)
    unknown = set(raw) - {"name", "mechanism", "noise", "repeat", "groups", "link", "levels"}
    if unknown:
        raise InputError(
            f"{at}: unknown field(s) {', '.join(sorted(unknown))}; the fields are name, mechanism, "
            "noise, repeat, groups (and link, levels for a view of the app)."
        )
    mech = raw.get("mechanism", "link" if raw.get("link") else None)
    if mech not in MECHANISMS:
        raise InputError(f"{at}: mechanism must be one of {', '.join(MECHANISMS)}; got {mech!r}.")
    link, levels, noise = None, (), None
    if mech == "link":
        link = _link(at, raw.get("link"))
        levels = _levels(at, raw.get("levels", {}))
        if raw.get("noise") is not None:
            raise InputError(f"{at}: noise is stated by the linked view; drop noise or use gaussian/laplace.")
    else:
        if raw.get("link") or raw.get("levels"):
            raise InputError(f'{at}: link and levels belong to mechanism = "link"; got mechanism {mech!r}.')
        noise = raw.get("noise")
        if (
            isinstance(noise, bool)
            or not isinstance(noise, (int, float))
            or not math.isfinite(noise)
            or not NOISE_RANGE[0] <= noise <= NOISE_RANGE[1]
        ):
            raise InputError(
                f"{at}: noise (σ/Δ for gaussian, b/Δ for laplace) must be a number in "
                f"[{NOISE_RANGE[0]:g}, {NOISE_RANGE[1]:g}]; got {noise!r}."
            )
        noise = float(noise)
    repeat = raw.get("repeat", 1)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= MAX_REPEAT:
        raise InputError(f"{at}: repeat must be a whole number from 1 to {MAX_REPEAT:,}; got {repeat!r}.")
    groups = raw.get("groups", [EVERYONE])
    if isinstance(groups, str):
        groups = [groups]
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) and g.strip() for g in groups):
        raise InputError(f'{at}: groups must be a list of group names ("all" = everyone); got {groups!r}.')
    groups = [g.strip() for g in groups]
    bad = next((g for g in groups if not _plain(g) or len(g) > 80), None)
    if bad is not None:
        raise InputError(
            f"{at}: group names must be one line of plain text of at most 80 characters; got {bad!r:.100}. "
            "Remove control characters and line breaks."
        )
    if declared:
        stray = [g for g in groups + [g for g, _ in levels] if g != EVERYONE and g not in declared]
        if stray:
            raise InputError(
                f"{at}: group {stray[0]!r} is named nowhere in the plan's groups "
                f"({', '.join(declared)}); add it there or fix the name."
            )
    if EVERYONE not in groups:
        stray = [g for g, _ in levels if g not in groups]
        if stray:
            raise InputError(
                f"{at}: levels names group {stray[0]!r}, which the release does not touch; add it to groups."
            )
    return Release(
        name=name.strip(),
        mechanism=mech,
        noise=noise,
        repeat=int(repeat),
        groups=tuple(groups),
        link=link,
        levels=levels,
    )


def _link(at: str, raw) -> str:
    """A view of the app as ``Page?query`` (a full app link, ``/Page?query`` or ``Page?query``);
    the page must exist and the query must describe a valid scenario of it."""
    from urllib.parse import urlencode

    if not isinstance(raw, str) or not raw.strip() or len(raw) > 20_000:
        from ..framework.registry import specs

        example = specs()[0].url
        raise InputError(
            f"{at}: link must be an app link: a page's URL path and its query, such as '{example}?prior=0.05'; "
            f"got {raw!r}."
        )
    try:
        scenario = link_scenario(raw.strip())
    except InputError as exc:
        raise InputError(f"{at}: link: {exc}") from None
    from ..framework.scenario import READING

    return f"{scenario.PAGE}?{urlencode({k: v for k, v in scenario.to_query().items() if k not in READING})}"


def link_scenario(link: str):
    """The scenario of an app view ``Page?query`` (a full app link, ``/Page?query`` or ``Page?query``);
    raises :class:`InputError` for an unknown page or a bad query."""
    from urllib.parse import parse_qs, urlsplit

    from ..framework.registry import get

    parts = urlsplit(link)
    return get(parts.path).SCENARIO.from_query(parse_qs(parts.query, keep_blank_values=True))


def _levels(at: str, raw) -> tuple[tuple[str, str], ...]:
    if isinstance(raw, str):  # the editor's text: "group: row | group: row"
        pairs = [p.split(":", 1) for p in raw.split("|") if p.strip()]
        if any(len(p) != 2 for p in pairs):
            raise InputError(f"{at}: levels must read 'group: level row | group: level row'; got {raw!r:.200}.")
        raw = {g.strip(): r.strip() for g, r in pairs}
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() and _plain(k) and _plain(v) for k, v in raw.items()
    ):
        raise InputError(
            f"{at}: levels must map group names to a row of the view's level table (one line of plain text "
            f"each); got {raw!r:.200}."
        )
    return tuple((k.strip(), v.strip()) for k, v in raw.items())


def parse_plan(text: str | bytes) -> Plan:
    """A plan from its TOML text; every problem is an :class:`InputError` naming the release and field."""
    if isinstance(text, bytes):
        if len(text) > MAX_PLAN_BYTES:
            raise InputError(f"plan: the file is {len(text):,} bytes; at most {MAX_PLAN_BYTES:,}.")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("plan: the file is not UTF-8 text (TOML).") from None
    if len(text) > MAX_PLAN_BYTES:
        raise InputError(f"plan: the text is {len(text):,} characters; at most {MAX_PLAN_BYTES:,}.")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"plan: not valid TOML ({exc}).") from None
    except RecursionError:  # tomllib parses nested tables and arrays recursively
        raise InputError(
            "plan: the TOML nests tables or arrays too deeply to read; a plan needs only [[release]] tables "
            "with plain values."
        ) from None
    declared = data.get("groups", [])
    if (
        not isinstance(declared, list)
        or not all(isinstance(g, str) and g.strip() and _plain(g) and len(g) <= 80 for g in declared)
        or len(declared) > MAX_GROUPS
        or EVERYONE in declared
    ):
        raise InputError(
            f"plan: groups must be a list of at most {MAX_GROUPS} group names (one line of plain text of at most "
            f'80 characters each) other than "all"; got {declared!r:.200}.'
        )
    unknown = set(data) - {"release", "groups", "title"}
    if unknown:
        raise InputError(
            f"plan: unknown top-level key(s) {', '.join(sorted(unknown))}; a plan has [[release]] "
            "tables and optionally groups = [...]."
        )
    raw = data.get("release", [])
    if not isinstance(raw, list) or not raw:
        raise InputError("plan: no release; add at least one [[release]] table.")
    return _plan(raw, tuple(g.strip() for g in declared))


def _plan(rows: list, declared: tuple[str, ...]) -> Plan:
    """The plan of validated release ``rows`` (TOML tables or editor rows): at most MAX_RELEASES,
    each checked by :func:`_release`, names unique, at most MAX_GROUPS groups."""
    if len(rows) > MAX_RELEASES:
        raise InputError(
            f"plan: {len(rows):,} releases; at most {MAX_RELEASES} (use repeat for a release published many times)."
        )
    releases = tuple(_release(i, r, declared) for i, r in enumerate(rows))
    names = [r.name for r in releases]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise InputError(
            f"release {names.index(dup, names.index(dup) + 1) + 1} ({dup!r}): name is used twice; "
            "give each release its own name."
        )
    plan = Plan(releases=releases, groups=declared)
    if len(plan.group_names()) > MAX_GROUPS:
        raise InputError(f"plan: {len(plan.group_names())} groups; at most {MAX_GROUPS}.")
    return plan


def incomplete_rows(records) -> tuple[list[dict], list[str]]:
    """Split the editor's rows into those to account and those still being filled in: a row with a name,
    and a link or a mechanism and a noise, counts; a row missing one of those (a new row whose first
    cell was just typed) is left out with a note naming what it still needs, not refused."""
    ready, notes = [], []
    for i, rec in enumerate(records):
        rec = dict(rec)
        filled = {
            k
            for k, v in rec.items()
            if v is not None and not (isinstance(v, float) and math.isnan(v)) and str(v).strip()
        }
        if not filled:
            continue  # an empty new row
        missing = [] if "name" in filled else ["name"]
        mech = rec.get("mechanism") if "mechanism" in filled else None
        if mech == "link" or (mech is None and "link" in filled):
            missing += [] if "link" in filled else ["link"]
        else:
            missing += [k for k in ("mechanism", "noise") if k not in filled]
        if missing:
            name = f" ({rec['name']!r})" if "name" in filled else ""
            notes.append(
                f"row {i + 1}{name} is not complete yet: {', '.join(missing)} still to fill in; it counts once it "
                "has them."
            )
        else:
            ready.append(rec)
    return ready, notes


def plan_from_records(records, *, groups=()) -> Plan:
    """A plan from table rows (the ledger page's editor): each a mapping with name, mechanism, noise,
    repeat and groups (a list, or comma-separated text). Rows with no name and no noise are left
    out (an editor's empty new row); every other problem is an :class:`InputError` naming the row."""
    declared = tuple(g.strip() for g in groups if str(g).strip())
    rows = []
    for rec in records:
        rec = {k: v for k, v in dict(rec).items() if v is not None and not (isinstance(v, float) and math.isnan(v))}
        if not str(rec.get("name", "")).strip() and "noise" not in rec and not rec.get("link"):
            continue
        for k in ("link", "levels"):  # the editor's empty text cells
            if isinstance(rec.get(k), str) and not rec[k].strip():
                del rec[k]
        g = rec.get("groups", EVERYONE)
        if isinstance(g, str):
            g = split_list(f"groups of release {rec.get('name', '?')!r}", g) or [EVERYONE]
        if isinstance(rec.get("repeat"), float) and float(rec["repeat"]).is_integer():
            rec["repeat"] = int(rec["repeat"])
        rows.append({**rec, "groups": list(g)})
    if not rows:
        raise InputError("plan: no release; add at least one row (name, mechanism, noise).")
    return _plan(rows, declared)


def plan_toml(plan: Plan) -> str:
    """The plan as TOML text (the inverse of :func:`parse_plan`)."""
    lines = []
    if plan.groups:
        lines.append("groups = [" + ", ".join(_q(g) for g in plan.groups) + "]\n")
    for r in plan.releases:
        lines += ["[[release]]", f"name = {_q(r.name)}", f"mechanism = {_q(r.mechanism)}"]
        if r.link is not None:
            lines.append(f"link = {_q(r.link)}")
            if r.levels:
                lines.append("levels = { " + ", ".join(f"{_q(g)} = {_q(v)}" for g, v in r.levels) + " }")
        else:
            lines.append(f"noise = {r.noise!r}")
        lines += [f"repeat = {r.repeat}", "groups = [" + ", ".join(_q(g) for g in r.groups) + "]", ""]
    return "\n".join(lines)


def levels_text(release: Release) -> str:
    """A link release's ``levels`` as the editor shows them: ``group: level row | group: level row``."""
    return " | ".join(f"{g}: {v}" for g, v in release.levels)


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
