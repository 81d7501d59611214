r"""The release ledger: what a whole plan of releases costs each group of people.

A plan is a list of releases (TOML, one ``[[release]]`` table each): ``name``; ``mechanism`` —
``"gaussian"`` with ``noise`` = σ/Δ (the noise standard deviation in units of the sensitivity),
``"laplace"`` with ``noise`` = b/Δ, or ``"link"`` with ``link`` = a view of the app (``Page?query``)
whose level table (its meaning panel) states what it spends, and optionally ``levels`` = {group =
row of that table} (a group not named, or named by ``"all"``, pays the row named for ``"all"``, else a
level that dominates every row); ``repeat`` (how many times it is published, default 1); and
``groups`` (whom it touches; ``"all"`` = everyone). An optional top-level ``groups = [...]`` lists
the plan's groups; a release naming another group is then an error.

Each release is, for each group, an :class:`~hetdp_core.accountants.pld.Event`: Gaussian or Laplace
noise, a pure ε level or an approximate (ε, δ) level (a view's row: exact Gaussian noise where the
view states μ, else the level that bounds every attacker). For each group the events are composed
by four accountants at a chosen δ (:mod:`hetdp_core.accountants.accounting`): basic composition, zCDP, Rényi DP
(dp-accounting) and the privacy-loss distribution — exact in closed form (μ-GDP) when every release
is Gaussian, else discretised for a stated accuracy. All four are valid upper bounds on the group's
(ε, δ); the group's **headline** is the smallest, with the accountant that gave it, and the budget
verdict, the reserve, the risk and the solver read it. ε for the "add or remove one person"
neighbouring relation, as the mechanisms' sensitivities are stated. The risk in attack terms of each
group (:func:`group_risk`) is the exact Gaussian trade-off curve or the Neyman–Pearson test of the
discretised privacy-loss distribution; :func:`solve_noise` finds the least noise for a target risk.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import Interval
from ..reading.meaning import Level, TradeoffCurve, labelled
from .accounting import ACCOUNTANT_NAMES, ACCOUNTANTS, account
from .plan import (  # noqa: F401 (re-exported: the ledger's callers read a plan from here)
    BUDGET_RANGE,
    EVERYONE,
    MAX_GROUPS,
    MAX_PLAN_BYTES,
    MAX_RELEASES,
    MAX_REPEAT,
    MECHANISMS,
    NOISE_RANGE,
    Plan,
    Release,
    incomplete_rows,
    levels_text,
    link_scenario,
    parse_plan,
    plan_from_records,
    plan_toml,
)
from .pld import Event, compose

__all__ = [
    "Release",
    "Plan",
    "ACCOUNTANTS",
    "MECHANISMS",
    "parse_plan",
    "plan_from_records",
    "incomplete_rows",
    "ledger",
    "GroupRisk",
    "Total",
    "Headline",
    "Spend",
    "plan_toml",
    "levels_text",
    "view_levels",
    "link_scenario",
    "group_risk",
    "group_curve",
    "Event",
    "solve_noise",
    "LedgerResult",
    "NoiseSolution",
]


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_DELTA = Interval(float, 1e-15, 0.1)
_BUDGET = Interval(float, 0.0, 1e4, closed="right")


# ------------------------------------------------------------------ accountants
@dataclass(frozen=True)
class Total:
    """One accountant's total for one group: the group's releases compose to ``epsilon`` at ``delta``
    (``note`` says why an accountant could not bound them); with a ``budget``, the ``reserve`` left
    and whether the group is ``over_budget``. :meth:`row` is its row of the table ``ledger``."""

    group: str
    accountant: str
    epsilon: float
    delta: float
    releases: int
    note: str = ""
    budget: float | None = None

    @property
    def reserve(self) -> float | None:
        """The budget minus the total (None without a budget)."""
        return None if self.budget is None else self.budget - self.epsilon

    @property
    def over_budget(self) -> bool | None:
        """Whether the total exceeds the budget (None without a budget)."""
        return None if self.budget is None else bool(self.epsilon > self.budget)

    def row(self) -> dict:
        """Its row of the table ``ledger`` (``hetdp ledger --json``'s ``ledger``)."""
        return self._row(TOTAL_COLUMNS)

    def _row(self, columns) -> dict:
        return labelled(self, columns | (BUDGET_COLUMNS if self.budget is not None else {}))


@dataclass(frozen=True)
class Headline(Total):
    """A group's headline: the smallest of its accountants' valid totals, and ``how`` it was obtained
    (the accountant's name and its note). :meth:`row` is its row of the table ``ledger_headline``."""

    how: str = ""

    def row(self) -> dict:
        """Its row of the table ``ledger_headline`` (``hetdp ledger --json``'s ``headline``)."""
        return self._row(HEADLINE_COLUMNS)


@dataclass(frozen=True)
class Spend:
    """What one release costs one group on its own: its basic-composition ``epsilon_basic`` (repeats
    included; for a link release, the view's ``level_row`` charged). :meth:`row` is its row of the
    table ``ledger_spend``."""

    group: str
    release: str
    mechanism: str | None
    repeat: int
    level_row: str | None
    epsilon_basic: float

    def row(self) -> dict:
        """Its row of the table ``ledger_spend``."""
        return labelled(self, SPEND_COLUMNS)


#: field → column of the ledger's tables (labels applied when a row is rendered: :meth:`Total.row`)
TOTAL_COLUMNS = {f: f for f in ("group", "accountant", "epsilon", "delta", "releases", "note")}
HEADLINE_COLUMNS = {f: f for f in ("group", "epsilon", "delta", "accountant", "how", "releases")}
BUDGET_COLUMNS = {"budget": "budget", "reserve": "reserve", "over_budget": "over budget"}
SPEND_COLUMNS = {
    "group": "group",
    "release": "release",
    "mechanism": "mechanism",
    "repeat": "repeat",
    "level_row": "level row",
    "epsilon_basic": "epsilon (basic)",
}


def _headline(totals: list[Total]) -> Headline:
    """The group's headline: the smallest of its accountants' valid bounds, and which gave it (an
    accountant that failed numerically gives +∞, never the headline)."""
    best = min(totals, key=lambda t: (t.epsilon, ACCOUNTANTS.index(t.accountant)))
    how = ACCOUNTANT_NAMES[best.accountant] + (f" ({best.note})" if best.note else "")
    return Headline(**{f.name: getattr(best, f.name) for f in fields(Total)}, how=how)


def group_risk(events, *, fpr: float, delta: float, eps: float) -> tuple[float, float]:
    """(attack TPR at ``fpr``, maximal advantage) of a group's composed releases: the exact Gaussian
    curve Φ(Φ⁻¹(α) + μ) when every release is Gaussian, else the Neyman–Pearson test of the discretised
    privacy-loss distribution — whichever is smaller against the (``eps``, ``delta``) curve of the
    group's headline (every one of them is valid, so the smallest is too)."""
    from ..reading.risk import advantage_eps_delta, tpr_eps_delta

    if not events:
        return float(fpr), 0.0
    comp = compose(tuple(events))
    line_tpr = float(tpr_eps_delta(eps=eps, delta=delta, fpr=fpr)[0]) if math.isfinite(eps) else 1.0
    line_adv = float(advantage_eps_delta(eps=eps, delta=delta)[0]) if math.isfinite(eps) else 1.0
    return min(float(comp.tpr([fpr])[0]), line_tpr), min(comp.advantage(), line_adv)


#: the false-positive rates at which a group's trade-off curve is tabulated
CURVE_FPR = (0.0, *[10.0 ** (k / 10.0) for k in range(-40, 1)])


def group_curve(events, *, delta: float, eps: float) -> list[float]:
    """The attack TPR bound at each of :data:`CURVE_FPR` (the group's trade-off curve), as
    :func:`group_risk` reads it."""
    from ..reading.risk import tpr_eps_delta

    if not events:
        return list(CURVE_FPR)
    tpr = compose(tuple(events)).tpr(list(CURVE_FPR))
    if math.isfinite(eps):
        tpr = np.minimum(tpr, [float(tpr_eps_delta(eps=eps, delta=delta, fpr=a)[0]) for a in CURVE_FPR])
    return [float(x) for x in tpr]


# ------------------------------------------------------------------ linked views
def view_levels(link: str) -> list[Level]:
    """The privacy levels (:class:`~hetdp_core.reading.meaning.Level`) an app view ``Page?query`` states: its run
    under the page's budget (the default way a link release is read; the app passes its own cached,
    limited runner)."""
    from ..framework.registry import get
    from ..framework.scenario import levels_of

    scenario = link_scenario(link)
    return levels_of(get(scenario.PAGE).run(scenario))


def _level_event(level: Level, repeat: int, *, exact: bool = True) -> Event:
    """The event of one stated level: Gaussian where the view states μ (``exact``), else the (ε, δ) of
    the level that bounds every attacker (its any-attacker level, else the delivered, else the demanded)."""
    mu = level.gaussian_mu
    if exact and mu is not None and not math.isnan(mu):
        return Event("gaussian", 1.0 / mu if mu > 0 else math.inf, 0.0, repeat, level.name)
    eps = next(e for e in (level.any_attacker, level.delivered, level.demanded) if e is not None)
    d = 0.0 if level.delta is None or math.isnan(level.delta) else float(level.delta)
    return Event("approx" if d > 0 else "pure", float(eps), d, repeat, level.name)


def _largest(levels: list[Level], repeat: int) -> Event:
    """An event that dominates every level: the smallest Gaussian noise if every level is Gaussian, else
    the largest ε with the largest δ."""
    label = "every row's largest level" if len(levels) > 1 else levels[0].name
    evs = [_level_event(v, repeat) for v in levels]
    if all(e.kind == "gaussian" for e in evs):
        return Event("gaussian", min(e.a for e in evs), 0.0, repeat, label)
    evs = [_level_event(v, repeat, exact=False) for v in levels]
    d = max(e.b for e in evs)
    return Event("approx" if d > 0 else "pure", max(e.a for e in evs), d, repeat, label)


def _link_event(release: Release, group: str, levels: list[Level]) -> Event:
    at = f"release {release.name!r}"
    if not levels:
        raise InputError(
            f"{at}: link: the view {release.link} states no privacy level (its page's meaning panel is empty); "
            "link another view or give the release's mechanism and noise."
        )
    want = release.level_for(group)
    if want is None:
        return _largest(levels, release.repeat)
    match = [v for v in levels if v.name == want]
    if not match:
        raise InputError(
            f"{at}: levels: the view has no level row {want!r}; its rows are "
            + "; ".join(repr(v.name) for v in levels[:12])
            + "."
        )
    return _level_event(match[0], release.repeat)


def _events(releases, group: str, levels) -> list[Event]:
    out = []
    for r in releases:
        if r.link is not None:
            out.append(_link_event(r, group, levels[r.link]))
        else:
            out.append(Event(r.mechanism, r.noise, 0.0, r.repeat))
    return out


@dataclass(frozen=True)
class GroupRisk:
    """One group's risk in attack terms from the whole plan: at false-positive rate ``attack_fpr`` no
    attack catches more than ``attack_tpr``; ``max_advantage`` is TPR − FPR at its worst; ``in_words``
    says it in a sentence."""

    group: str
    attack_fpr: float
    attack_tpr: float
    max_advantage: float
    in_words: str


#: GroupRisk field → its key in a row of ``hetdp ledger --json``'s ``risk`` (:meth:`LedgerResult.risk_rows`)
RISK_COLUMNS = {
    "group": "group",
    "attack_fpr": "attack FPR",
    "attack_tpr": "attack TPR ≤",
    "max_advantage": "max advantage",
    "in_words": "in words",
}


@dataclass(frozen=True)
class LedgerResult:
    """``totals``: one row per group and accountant (group, accountant, epsilon, delta, releases, note;
    with a budget also budget, reserve, over budget); ``headline``: per group the smallest of those
    valid bounds and the accountant that gave it (``how``), which the budget verdict, the reserve, the
    risk and the solver read; ``spend``: each release's basic-composition ε per group (what it costs
    that group on its own, repeats included; for a link release the view's level row charged);
    ``risk``: per group, the attack TPR at ``fpr`` and the maximal advantage of the whole plan
    (:class:`GroupRisk`); ``curves``: each group's trade-off curve (:class:`~hetdp_core.reading.meaning.TradeoffCurve`
    named by the group)."""

    plan: Plan
    delta: float
    budget: float | None
    totals: list[Total]
    spend: list[Spend]
    fpr: float = 0.01
    risk: list[GroupRisk] = field(default_factory=list)
    curves: list[TradeoffCurve] = field(default_factory=list)
    headline: list[Headline] = field(default_factory=list)

    def tables(self) -> dict[str, list[dict]]:
        """The ledger's downloadable tables by CSV name, as rows (the page and ``hetdp ledger --csv``
        write the same bytes; ``hetdp ledger --json`` prints them)."""
        return {
            "ledger_headline": [h.row() for h in self.headline],
            "ledger": [t.row() for t in self.totals],
            "ledger_spend": [s.row() for s in self.spend],
        }

    def risk_rows(self) -> list[dict]:
        """Each group's risk as a row (labels: :data:`RISK_COLUMNS`): ``hetdp ledger --json``'s ``risk``."""
        return [labelled(r, RISK_COLUMNS) for r in self.risk]

    def placements(self) -> tuple:
        """Each group's headline ε among real deployments (:func:`hetdp_core.reading.deployments.place_levels`;
        the group ``all`` named "everyone")."""
        from ..reading.deployments import place_levels

        return place_levels(
            ["everyone" if h.group == "all" else h.group for h in self.headline],
            [h.epsilon for h in self.headline],
            unit="person, the whole plan",
        )

    def key_numbers(self) -> dict[str, float]:
        """The numbers plan A vs plan B compares (:func:`hetdp_core.reading.compare.compare`): the reading
        (the δ every total is read at, the attack's FPR, the budget) and per group the headline ε, the
        attack's TPR at the FPR, the maximal advantage, the reserve against the budget and the number of
        releases. A row's name never holds a reading's value: two plans read at different δ compare
        their headlines on one row (and the δ row says that the reading differs), instead of two rows
        each empty on one side."""
        out: dict[str, float] = {"δ at which every total is read": float(self.delta), "attack FPR": float(self.fpr)}
        if self.budget is not None:
            out["budget: the ε the plan may spend per group"] = float(self.budget)
        risk = {r.group: r for r in self.risk}
        for h in self.headline:
            g = h.group
            out[f"{g}: headline ε"] = float(h.epsilon)
            if g in risk:
                out[f"{g}: attack TPR at the FPR"] = risk[g].attack_tpr
                out[f"{g}: maximal advantage"] = risk[g].max_advantage
            if self.budget is not None:
                out[f"{g}: reserve against the budget"] = float(h.reserve)
            out[f"{g}: releases"] = float(h.releases)
        return out


def _view_levels(plan: Plan, levels_of) -> dict[str, list[Level]]:
    """Each linked view's levels, read once per plan."""
    levels = {}
    for r in plan.releases:
        if r.link is not None and r.link not in levels:
            try:
                levels[r.link] = list((levels_of or view_levels)(r.link))
            except InputError as exc:
                raise InputError(f"release {r.name!r}: link: {exc}") from None
    return levels


def _group_totals(g: str, events, delta: float, releases: int) -> tuple[list[Total], Headline]:
    """Every accountant's total for one group, and its headline."""
    totals = []
    for acc in ACCOUNTANTS:
        eps, note = account(acc, events, delta)
        totals.append(Total(g, acc, eps, delta, releases, note))
    return totals, _headline(totals)


def ledger(plan: Plan, *, delta: float, budget: float | None = None, fpr: float = 0.01, levels_of=None) -> LedgerResult:
    """Compose, for each group, the releases that touch it, with each accountant at ``delta``; each
    group's headline is the smallest of the four valid bounds. ``budget`` (an ε) gives each row its
    reserve (budget − ε) and an over-budget flag; ``fpr`` the false-positive rate at which the risk
    in attack terms is read. ``levels_of(link)`` returns a linked view's privacy levels (default
    :func:`view_levels`; the app passes its cached, limited runner)."""
    from ..reading.risk import FPR_RANGE, risk_in_words

    delta = _DELTA.check("delta", delta, what=" (the δ at which every total is read)")
    if budget is not None:
        budget = _BUDGET.check("budget", budget, what=" (the ε the plan may spend)")
    fpr = Interval(float, FPR_RANGE[0], FPR_RANGE[1]).check("fpr", fpr, what=" (the attack's false-positive rate)")
    levels = _view_levels(plan, levels_of)
    totals, heads, spend, risk, curves, own = [], [], [], [], [], {}
    for g in plan.group_names():
        rel = [r for r in plan.releases if r.touches(g)]
        events = _events(rel, g, levels)
        rows, head = _group_totals(g, events, delta, sum(r.repeat for r in rel))
        totals += [replace(t, budget=budget) for t in rows]
        heads.append(replace(head, budget=budget))
        tpr, adv = group_risk(events, fpr=fpr, delta=delta, eps=head.epsilon)
        curve = group_curve(events, delta=delta, eps=head.epsilon)
        curves.append(TradeoffCurve(g, CURVE_FPR, tuple(curve)))
        risk.append(GroupRisk(g, fpr, float(tpr), float(adv), risk_in_words(tpr, fpr)))
        for r, e in zip(rel, events):
            if (r.name, e) not in own:  # a release's own ε: the same in every group it charges alike
                own[r.name, e] = account("basic", [e], delta)[0]
            spend.append(Spend(g, r.name, r.mechanism, r.repeat, e.row, own[r.name, e]))
    return LedgerResult(
        plan=plan,
        delta=delta,
        budget=budget,
        totals=totals,
        spend=spend,
        fpr=fpr,
        risk=risk,
        curves=curves,
        headline=heads,
    )


@dataclass(frozen=True)
class NoiseSolution:
    """The plan's own releases with their noise multiplied by ``factor``: the most accurate such plan
    whose attack TPR at ``fpr`` stays at or below ``target_tpr`` for every group (tight accountant)."""

    factor: float
    plan: Plan
    worst_group: str
    tpr: float
    fpr: float
    target_tpr: float


def solve_noise(
    plan: Plan, *, fpr: float, target_tpr: float, delta: float = 1e-6, levels_of=None, rtol: float = 1e-3, progress=None
) -> NoiseSolution:
    """Solve from a target risk: the smallest factor m by which to multiply the noise of every
    Gaussian and Laplace release (linked views stay as they are) so that every group's attack TPR at
    ``fpr`` is at most ``target_tpr``, the risk read as the ledger reads it at ``delta``
    (:func:`group_risk`). TPR falls as the noise grows, so m is found by bisection on log m (to
    ``rtol``); m < 1 means the plan may use less noise. ``progress(fraction, text)`` hears of each
    step."""
    import dataclasses
    import functools

    from ..reading.risk import _target

    target, fpr = _target(target_tpr, fpr, 0.0)  # the same checks and words as the pages' solver
    delta = _DELTA.check("delta", delta, what=" (the δ at which every total is read)")
    own = [r for r in plan.releases if r.link is None]
    if not own:
        raise InputError("plan: every release is a linked view; there is no noise of the plan's own to solve for.")
    levels = _view_levels(plan, levels_of)

    def scaled(m: float) -> Plan:
        return dataclasses.replace(
            plan,
            releases=tuple(
                r if r.link is not None else dataclasses.replace(r, noise=r.noise * m) for r in plan.releases
            ),
        )

    say = progress or (lambda fraction, text: None)
    asked = [0]

    @functools.cache  # the bracketing below asks some factors twice
    def worst(m: float) -> tuple[float, str]:
        """The largest attack TPR over the groups, from each group's composition alone (exact, or the
        discretised distribution's best test): the ledger's risk is the smaller of that and its
        headline's (ε, δ) curve, so a plan meeting the target here meets it as the ledger reads it."""
        asked[0] += 1
        say(min(0.95, asked[0] / 30), f"composing every group's releases at {m:.4g}× the noise")
        p = scaled(m)
        out = []
        for g in p.group_names():
            ev = _events([r for r in p.releases if r.touches(g)], g, levels)
            out.append((float(compose(tuple(ev)).tpr([fpr])[0]) if ev else fpr, g))
        return max(out)

    lo_noise = min(r.noise for r in own)
    hi_noise = max(r.noise for r in own)
    m_min, m_max = NOISE_RANGE[0] / lo_noise, NOISE_RANGE[1] / hi_noise
    if worst(m_max)[0] > target:
        raise InputError(
            f"target_tpr {target:g} cannot be met: even when the noisiest release has the largest noise allowed "
            f"({NOISE_RANGE[1]:g}), the linked "
            "views or the repeats alone exceed it. Raise the target, or publish less often."
        )
    hi = _smallest_safe_factor(lambda m: worst(m)[0] <= target, m_min, m_max, rtol)
    # the solved plan's noise rounded *up* to 4 significant digits (more noise: the target still holds),
    # so that its TOML reads 8.451, not 8.4508799048945
    solved = dataclasses.replace(
        plan,
        releases=tuple(
            r if r.link is not None else dataclasses.replace(r, noise=min(_ceil4(r.noise * hi), NOISE_RANGE[1]))
            for r in plan.releases
        ),
    )
    tpr, g = _worst_risk(solved, levels, fpr=fpr, delta=delta)
    return NoiseSolution(factor=hi, plan=solved, worst_group=g, tpr=tpr, fpr=fpr, target_tpr=target)


def _smallest_safe_factor(safe, m_min: float, m_max: float, rtol: float) -> float:
    """The smallest factor in [m_min, m_max] (``safe(m_max)`` holds) at which ``safe`` holds, to ``rtol``:
    a bracket [lo, hi] with not safe(lo), safe(hi), from the plan as it is (m = 1), then bisection on log m."""
    lo = hi = min(max(1.0, m_min), m_max)
    if safe(hi):
        while lo > m_min and safe(lo):
            hi, lo = lo, max(lo / 2.0, m_min)
        if safe(lo):  # even the least noise allowed is safe
            hi = lo
    else:
        while not safe(hi):
            lo, hi = hi, min(hi * 2.0, m_max)
    while hi / lo > 1 + rtol:
        mid = math.sqrt(lo * hi)
        if safe(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _worst_risk(plan: Plan, levels, *, fpr: float, delta: float) -> tuple[float, str]:
    """(attack TPR, group) of the plan's most exposed group, the risk read as the ledger reads it."""
    worst = []
    for g in plan.group_names():
        rel = [r for r in plan.releases if r.touches(g)]
        ev = _events(rel, g, levels)
        head = _group_totals(g, ev, delta, sum(r.repeat for r in rel))[1]
        worst.append((group_risk(ev, fpr=fpr, delta=delta, eps=head.epsilon)[0], g))
    return max(worst)


def _ceil4(x: float) -> float:
    """``x`` rounded up to 4 significant digits."""
    e = math.floor(math.log10(x)) - 3
    return float(f"{math.ceil(x / 10.0**e * (1 - 1e-12)) * 10.0**e:.4g}")


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
