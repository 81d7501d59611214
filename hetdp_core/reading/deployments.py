"""Real deployments' privacy levels, to place a view's levels among them.

The data (``data/deployments.csv``) are 22 deployments' parameters as recorded in the public data of the
Differential Privacy Deployments Registry (see ``data/README.md`` for provenance): model (central or
local), unit of privacy, period, ε, δ, ρ and notes. Where a row states only a zCDP level ρ, its ε is
computed here at :data:`RHO_DELTA` by :func:`zcdp_epsilon`.

The conversion (Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy",
NeurIPS 2020, arXiv:2004.00010, Proposition 12 applied to Rényi DP of order α equal to αρ): a ρ-zCDP
mechanism is (ε, δ)-DP for

    ε(δ) = inf over α > 1 of  αρ + log((α − 1)/α) − (log δ + log α)/(α − 1),

tighter than Bun and Steinke's ρ + 2√(ρ log(1/δ)) and valid for every ρ-zCDP mechanism (not only Gaussian
noise, whose exact level would be lower). It agrees with dp-accounting's Rényi conversion of the same
curve to 10⁻³ relative and is never above it (tested). For rows that state both, it gives ρ = 2.56 →
17.16 at δ = 10⁻¹⁰ where the Census published 17.14, and ρ = 0.07 → 2.39 where it published 2.47: the
rows' stated ε is what is shown; the conversion is used only where a row states ρ alone.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass, replace
from importlib import resources

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import DELTA, Interval
from .meaning import compact_names

__all__ = [
    "CAVEAT",
    "RHO_DELTA",
    "MODELS",
    "Deployment",
    "Placement",
    "deployments",
    "place",
    "place_levels",
    "placement_of",
    "placement_rows",
    "zcdp_epsilon",
]

#: the δ at which a row that states only ρ is converted to ε (the Census's δ)
RHO_DELTA = 1e-10
#: where the noise is added: by a curator to a statistic, or by each person to their own report
MODELS = ("central", "local")


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_RHO = Interval(float, 0.0, 1e6, closed="right")
_EPSILON = Interval(float, 0.0, None, allow_inf=True)


def zcdp_epsilon(*, rho: float, delta: float) -> float:
    """The smallest ε for which every ρ-zCDP mechanism is (ε, δ)-DP by the Canonne–Kamath–Steinke
    conversion (module docstring), minimised over the order α numerically (bounded scalar search on
    log(α − 1), which is unimodal here)."""
    from scipy.optimize import minimize_scalar

    rho = _RHO.check("rho", rho, what=" (a zCDP level)")
    delta = DELTA.check("delta", delta)
    log_delta = math.log(delta)

    def eps(t: float) -> float:
        a = 1.0 + math.exp(t)
        return a * rho + math.log1p(-1.0 / a) - (log_delta + math.log(a)) / (a - 1.0)

    res = minimize_scalar(eps, bounds=(-20.0, 20.0), method="bounded", options={"xatol": 1e-10})
    return max(0.0, float(min(res.fun, eps(-20.0), eps(20.0))))


@dataclass(frozen=True)
class Deployment:
    """One deployment: ``epsilon`` is the stated ε, or the ε converted from ``rho`` at ``delta`` (then
    ``converted`` is true and ``delta`` is :data:`RHO_DELTA`)."""

    name: str
    organisation: str
    model: str
    unit: str
    period: str
    epsilon: float
    delta: float | None
    rho: float | None
    converted: bool
    note: str
    source: str

    @property
    def per(self) -> str:
        """Whom and for how long one ε protects, each said once: "per user", "per user, per quarter-day",
        "per user-day" (a unit that names its period, "user-day" or "… per day", is not followed by it)."""
        period = self.period.removeprefix("per ").strip()
        said = self.period == "one release" or self.unit.endswith((f"-{period}", f" per {period}"))
        return f"per {self.unit}" + ("" if said else f", {self.period}")

    @property
    def label(self) -> str:
        """ "Google's COVID-19 Community Mobility Reports: ε = 2.64 per user-day" (a local deployment says
        so: "…: local ε = 2 per event, per day")."""
        how = f" (from ρ = {self.rho:g} at δ = {self.delta:.0e})" if self.converted else ""
        local = "local " if self.model == "local" else ""
        return f"{self.organisation}'s {self.name}: {local}ε = {self.epsilon:.3g} {self.per}{how}"


def _num(text: str) -> float | None:
    return float(text) if text.strip() else None


@functools.cache
def deployments() -> tuple[Deployment, ...]:
    """Every shipped deployment with an ε (stated, or converted from ρ), smallest ε first."""
    path = resources.files("hetdp_core.data") / "deployments.csv"
    out = []
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            eps, delta, rho = _num(row["epsilon"]), _num(row["delta"]), _num(row["rho"])
            converted = eps is None
            if converted:
                if rho is None:
                    continue
                eps, delta = zcdp_epsilon(rho=rho, delta=RHO_DELTA), RHO_DELTA
            out.append(
                Deployment(
                    name=row["deployment"].strip(),
                    organisation=row["organisation"].strip(),
                    model=row["model"].strip(),
                    unit=row["unit_of_privacy"].strip(),
                    period=row["period"].strip(),
                    epsilon=float(eps),
                    delta=delta,
                    rho=rho,
                    converted=converted,
                    note=row["note"].strip(),
                    source=row["source"].strip(),
                )
            )
    return tuple(sorted(out, key=lambda d: d.epsilon))


#: said wherever deployments are shown: the numbers are not directly comparable
CAVEAT = (
    "Units and periods differ: a per-day level for a device repeats every day, a per-release level for a "
    "person does not, and a local level protects each report on its own — so these are landmarks, not "
    "equivalents. Levels converted from zCDP are at δ = 10⁻¹⁰."
)


@dataclass(frozen=True)
class Placement:
    """Where one level lies among the deployments: its nearest neighbours below and above (None at an
    end), a plain sentence, and a caution where the evidence warrants one."""

    level: str
    epsilon: float
    below: Deployment | None
    above: Deployment | None
    sentence: str
    caution: str
    #: the level's name alone ("x1, x2"; the level itself where none was given), for a label on a chart
    name: str = ""


def place(epsilon: float, *, who: str | None = None, model: str | None = None) -> Placement:
    """Place ``epsilon`` among :func:`deployments` of the same ``model`` (``"central"`` or ``"local"``;
    None: among all): the closest deployment at or below it and the closest above it; a caution when a
    central level is above every central deployment that protects a person for a whole release (the
    strongest unit and period in the data), phrased by that evidence."""
    epsilon = _EPSILON.check("epsilon", epsilon, what=" (a privacy level)")
    if model not in (None, *MODELS):
        raise InputError(f"model must be one of {', '.join(MODELS)} or None; got {model!r}.")
    deps = tuple(d for d in deployments() if model is None or d.model == model)
    kind = "" if model is None else f"{model} "
    who = who or f"ε = {epsilon:.3g}"
    subject = who if "ε" in who else f"{who} (ε = {epsilon:.3g})"
    below = next((d for d in reversed(deps) if d.epsilon <= epsilon), None)
    above = next((d for d in deps if d.epsilon > epsilon), None)
    if below is None:
        sentence = f"{subject} is below every {kind}deployment here (the lowest: {above.label})"
    elif above is None:
        none = " gives no protection, and" if math.isinf(epsilon) else ""
        sentence = f"{subject}{none} is above every {kind}deployment here (the highest: {below.label})"
    elif math.isclose(below.epsilon, epsilon, rel_tol=1e-9):
        sentence = f"{subject} is at the level of {below.label}"
    else:
        sentence = f"{subject} lies between {below.label} and {above.label}"
    person = [d for d in deps if d.model == "central" and d.unit == "person" and d.period == "one release"]
    caution = ""
    if person and epsilon > max(d.epsilon for d in person):
        top = max(person, key=lambda d: d.epsilon)
        caution = (
            f"Above every central deployment here that protects a person for a whole release (the highest: "
            f"{top.label})."
        )
    return Placement(who, epsilon, below, above, sentence + ".", caution)


def place_levels(
    names, epsilons, *, model: str | None = "central", unit: str | None = None, what: str = "ε"
) -> tuple[Placement, ...]:
    """:func:`place` for a view's levels (names and ε) of one ``model``: levels with the same ε share one
    placement, named compactly ("x3, x4, …, x10 (8 levels)") with the level, its model and its ``unit``
    ("x1 at central ε = 0.2 per person"; ``what`` names the level: "any-attacker ε"); levels without
    protection (ε = ∞) are left out."""
    groups: dict[float, list[str]] = {}
    for name, eps in zip(names, epsilons):
        eps = float(eps)
        if math.isfinite(eps):
            groups.setdefault(float(f"{eps:.6g}"), []).append(str(name))
    kind = "" if model is None else f"{model} "
    per = "" if not unit else f" per {unit}"
    return tuple(
        replace(
            place(eps, who=f"{compact_names(names)} at {kind}{what} = {eps:.3g}{per}", model=model),
            name=compact_names(names),
        )
        for eps, names in sorted(groups.items())
    )


def placement_of(levels) -> tuple[Placement, ...]:
    """The placements of a view's levels (a list of :class:`hetdp_core.reading.meaning.Level`, e.g.
    :func:`hetdp_core.framework.scenario.levels_of`), like with like: a central level by what it guarantees (its
    delivered ε where it has one, else the demanded ε) among central deployments; a local level among
    local deployments, by its any-attacker level where it has one (a deployment's local ε bounds every
    attacker; a per-feature level holds only under a model's assumptions), with its unit. Empty without
    levels."""
    levels = list(levels or ())
    out = []
    for kind in dict.fromkeys((v.model, v.unit, _placed(v)[1]) for v in levels):
        mine = [v for v in levels if (v.model, v.unit, _placed(v)[1]) == kind]
        out += place_levels(
            [v.name for v in mine], [_placed(v)[0] for v in mine], model=kind[0], unit=kind[1], what=kind[2]
        )
    return tuple(out)


def _placed(v) -> tuple[float, str]:
    """The ε a level is placed by, and its name: a local level's any-attacker level where it has one,
    else what is delivered, else what is demanded."""
    if v.model == "local" and v.any_attacker is not None:
        return float(v.any_attacker), "any-attacker ε"
    return float(v.demanded if v.delivered is None else v.delivered), "ε"


def placement_rows(placements) -> list[dict]:
    """JSON-ready rows: level, ε, the neighbours below and above, the sentence, any caution."""
    return [
        {
            "level": p.level,
            "epsilon": p.epsilon,
            "below": p.below.label if p.below else None,
            "above": p.above.label if p.above else None,
            "sentence": p.sentence,
            "caution": p.caution or None,
        }
        for p in placements
    ]


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
model | {'central', 'local'} or None | Where the noise is added (a curator, or each person's own report): the
    deployments a level is placed among (None: all).
unit | str or None | What one level protects ("user's record"), said with the level.
what | str | The level's name in the sentence ("ε", "any-attacker ε").
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
