r"""The release ledger: what a whole plan of releases costs each group of people.

A plan is a list of releases (TOML, one ``[[release]]`` table each): ``name``; ``mechanism`` —
``"gaussian"`` with ``noise`` = σ/Δ (the noise standard deviation in units of the sensitivity) or
``"laplace"`` with ``noise`` = b/Δ; ``repeat`` (how many times it is published, default 1); and
``groups`` (whom it touches; ``"all"`` = everyone). An optional top-level ``groups = [...]`` lists
the plan's groups; a release naming another group is then an error.

For each group, the releases that touch it are composed by four accountants at a chosen δ:

* **basic** (sums): a Laplace release is Δ/b-DP; the plan's δ is split evenly over the group's
  Gaussian releases, each of which spends the exact ε of the Gaussian mechanism at its share of δ
  (its privacy profile, :mod:`hetdp_core.profiles`); ε and δ add up.
* **zcdp**: a Gaussian release is ρ = Δ²/(2σ²)-zCDP, a Laplace release (ε-DP) is ε²/2-zCDP; ρ adds
  up, then ε = ρ + 2√(ρ log(1/δ)) (Bun & Steinke, "Concentrated differential privacy", TCC 2016,
  arXiv:1605.02065, Proposition 1.3).
* **rdp**: Rényi DP of each release, composed over a grid of orders and converted at δ — Google's
  ``dp-accounting`` (``RdpAccountant``).
* **pld**: the privacy-loss distribution of each release, composed numerically and read at δ —
  ``dp-accounting``'s ``PrivacyLossDistribution`` (pessimistic discretisation: a valid upper bound,
  tight to about 10⁻⁴ in ε).

All four are valid upper bounds on the group's (ε, δ); the PLD one is the tightest. ε for the
"add or remove one person" neighbouring relation, as the mechanisms' sensitivities are stated.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field

from ._validate import InputError

__all__ = ["Release", "Plan", "ACCOUNTANTS", "MECHANISMS", "parse_plan", "plan_from_records", "ledger", "plan_toml"]

MECHANISMS = ("gaussian", "laplace")
ACCOUNTANTS = ("basic", "zcdp", "rdp", "pld")
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
    """One release of the plan (see the module docstring)."""

    name: str
    mechanism: str
    noise: float
    repeat: int = 1
    groups: tuple[str, ...] = (EVERYONE,)

    def touches(self, group: str) -> bool:
        return EVERYONE in self.groups or group in self.groups


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


def _where(i: int, name: str | None) -> str:
    return f"release {i + 1}" + (f" ({name!r})" if name else "")


def _release(i: int, raw, declared: tuple[str, ...]) -> Release:
    if not isinstance(raw, dict):
        raise InputError(f"{_where(i, None)}: must be a [[release]] table; got {type(raw).__name__}.")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise InputError(f"{_where(i, None)}: name must be a text of 1 to 80 characters; got {name!r}.")
    at = _where(i, name)
    unknown = set(raw) - {"name", "mechanism", "noise", "repeat", "groups", "link"}
    if unknown:
        raise InputError(
            f"{at}: unknown field(s) {', '.join(sorted(unknown))}; the fields are name, mechanism, "
            "noise, repeat, groups."
        )
    if "link" in raw:
        raise InputError(
            f"{at}: link releases (a view of the app) are not accounted yet; give its mechanism "
            "(gaussian or laplace) and noise instead."
        )
    mech = raw.get("mechanism")
    if mech not in MECHANISMS:
        raise InputError(f"{at}: mechanism must be one of {', '.join(MECHANISMS)}; got {mech!r}.")
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
    repeat = raw.get("repeat", 1)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= MAX_REPEAT:
        raise InputError(f"{at}: repeat must be a whole number from 1 to {MAX_REPEAT:,}; got {repeat!r}.")
    groups = raw.get("groups", [EVERYONE])
    if isinstance(groups, str):
        groups = [groups]
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) and g.strip() for g in groups):
        raise InputError(f'{at}: groups must be a list of group names ("all" = everyone); got {groups!r}.')
    if declared:
        stray = [g for g in groups if g != EVERYONE and g not in declared]
        if stray:
            raise InputError(
                f"{at}: group {stray[0]!r} is named nowhere in the plan's groups "
                f"({', '.join(declared)}); add it there or fix the name."
            )
    return Release(
        name=name.strip(),
        mechanism=mech,
        noise=float(noise),
        repeat=int(repeat),
        groups=tuple(g.strip() for g in groups),
    )


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
    declared = data.get("groups", [])
    if (
        not isinstance(declared, list)
        or not all(isinstance(g, str) and g.strip() for g in declared)
        or len(declared) > MAX_GROUPS
        or EVERYONE in declared
    ):
        raise InputError(
            f'plan: groups must be a list of at most {MAX_GROUPS} group names other than "all"; got {declared!r}.'
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


def plan_from_records(records, *, groups=()) -> Plan:
    """A plan from table rows (the ledger page's editor): each a mapping with name, mechanism, noise,
    repeat and groups (a list, or comma-separated text). Rows with no name and no noise are left
    out (an editor's empty new row); every other problem is an :class:`InputError` naming the row."""
    declared = tuple(g.strip() for g in groups if str(g).strip())
    rows = []
    for rec in records:
        rec = {k: v for k, v in dict(rec).items() if v is not None and not (isinstance(v, float) and math.isnan(v))}
        if not str(rec.get("name", "")).strip() and "noise" not in rec:
            continue
        g = rec.get("groups", EVERYONE)
        if isinstance(g, str):
            g = [x.strip() for x in g.split(",") if x.strip()] or [EVERYONE]
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
        lines += [
            "[[release]]",
            f"name = {_q(r.name)}",
            f"mechanism = {_q(r.mechanism)}",
            f"noise = {r.noise!r}",
            f"repeat = {r.repeat}",
            "groups = [" + ", ".join(_q(g) for g in r.groups) + "]",
            "",
        ]
    return "\n".join(lines)


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ------------------------------------------------------------------ accountants
def _basic(releases, delta: float) -> tuple[float, float]:
    k = sum(r.repeat for r in releases if r.mechanism == "gaussian")
    eps = sum(r.repeat / r.noise for r in releases if r.mechanism == "laplace")
    if k:
        share = delta / k
        for r in releases:
            if r.mechanism == "gaussian":
                eps += r.repeat * _gaussian_eps(r.noise, share)
    return eps, (delta if k else 0.0)


def _gaussian_eps(sigma: float, delta: float) -> float:
    """The smallest ε with δ(ε) ≤ delta for the Gaussian mechanism of noise σ (Δ = 1)."""
    from scipy.optimize import brentq

    from .profiles import gaussian_delta

    if gaussian_delta(eps=0.0, sigma=sigma, sensitivity=1.0) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(eps=hi, sigma=sigma, sensitivity=1.0) > delta:
        hi *= 2.0
        if hi > 1e6:
            return math.inf
    return brentq(lambda e: gaussian_delta(eps=e, sigma=sigma, sensitivity=1.0) - delta, 0.0, hi, xtol=1e-12)


def _zcdp(releases, delta: float) -> tuple[float, float]:
    rho = sum(r.repeat * (1 / (2 * r.noise**2) if r.mechanism == "gaussian" else 0.5 / r.noise**2) for r in releases)
    if rho == 0:
        return 0.0, 0.0
    return rho + 2 * math.sqrt(rho * math.log(1 / delta)), delta


def _events(releases):
    import dp_accounting as dpa

    out = []
    for r in releases:
        ev = (
            dpa.GaussianDpEvent(noise_multiplier=r.noise)
            if r.mechanism == "gaussian"
            else dpa.LaplaceDpEvent(noise_multiplier=r.noise)
        )
        out.append(dpa.SelfComposedDpEvent(ev, r.repeat) if r.repeat > 1 else ev)
    return dpa.ComposedDpEvent(out)


def _rdp(releases, delta: float) -> tuple[float, float]:
    from dp_accounting import rdp

    acc = rdp.RdpAccountant()
    acc.compose(_events(releases))
    return float(acc.get_epsilon(delta)), delta


def _pld(releases, delta: float) -> tuple[float, float]:
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for r in releases:
        one = (
            pld.from_gaussian_mechanism(standard_deviation=r.noise)
            if r.mechanism == "gaussian"
            else pld.from_laplace_mechanism(parameter=r.noise)
        )
        if r.repeat > 1:
            one = one.self_compose(r.repeat)
        total = one if total is None else total.compose(one)
    return float(total.get_epsilon_for_delta(delta)), delta


_ACCOUNT = {"basic": _basic, "zcdp": _zcdp, "rdp": _rdp, "pld": _pld}


@dataclass(frozen=True)
class LedgerResult:
    """``totals``: one row per group and accountant (group, accountant, epsilon, delta, releases,
    budget, reserve, over budget); ``spend``: each release's basic-composition ε per group (what it
    costs that group on its own, repeats included)."""

    plan: Plan
    delta: float
    budget: float | None
    totals: list
    spend: list


def ledger(plan: Plan, *, delta: float, budget: float | None = None) -> LedgerResult:
    """Compose, for each group, the releases that touch it, with each accountant at ``delta``;
    ``budget`` (an ε) gives each row its reserve (budget − ε) and an over-budget flag."""
    from ._validate import check_real

    delta = check_real("delta", delta, lo=1e-15, hi=0.1, what=" (the δ at which every total is read)")
    if budget is not None:
        budget = check_real("budget", budget, lo=0.0, lo_open=True, hi=1e4, what=" (the ε the plan may spend)")
    totals, spend = [], []
    own = {r.name: _basic([r], delta)[0] for r in plan.releases}  # a release's own ε, the same in every group
    for g in plan.group_names():
        rel = [r for r in plan.releases if r.touches(g)]
        for acc in ACCOUNTANTS:
            eps, d = _ACCOUNT[acc](rel, delta) if rel else (0.0, 0.0)
            row = {"group": g, "accountant": acc, "epsilon": eps, "delta": d, "releases": sum(r.repeat for r in rel)}
            if budget is not None:
                row |= {"budget": budget, "reserve": budget - eps, "over budget": bool(eps > budget)}
            totals.append(row)
        for r in rel:
            spend.append(
                {
                    "group": g,
                    "release": r.name,
                    "mechanism": r.mechanism,
                    "repeat": r.repeat,
                    "epsilon (basic)": own[r.name],
                }
            )
    return LedgerResult(plan=plan, delta=delta, budget=budget, totals=totals, spend=spend)
