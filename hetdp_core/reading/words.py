"""Words from numbers: the sentences that state a ranking, a comparison or a verdict, each a function of
the typed result it describes, and one formatter per quantity, so that a slider, its link, a sentence,
a table and a chart in words show one value the same way.

Every sentence here is tested against the numbers it cites over random inputs (``tests/test_words.py``):
"most exposed" names the largest level, a target is "met" only when the estimate is within it, a
comparison's direction is the direction of the numbers it states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..framework._doc import document
from ..framework._validate import InputError
from ._rounding import percent as rounded_percent

__all__ = [
    "FORMATS",
    "number",
    "level",
    "share",
    "percent",
    "bound_share",
    "quantile_share",
    "formatted",
    "most_exposed",
    "TargetCheck",
    "target_check",
]


# ---------------------------------------------------------------- one formatter per quantity


def number(x: float) -> str:
    """A measured value (an error, a count, a ratio): 4 significant digits, ``∞`` for infinity."""
    x = float(x)
    if math.isnan(x):
        return "—"
    return ("∞" if x > 0 else "−∞") if math.isinf(x) else f"{x:.4g}"


def level(x: float) -> str:
    """A privacy level (ε, δ_i, ρ): 3 significant digits below 1000, whole numbers from there to 10⁹
    ("2000", not "2e+03"), ``∞`` for no protection."""
    x = float(x)
    if math.isinf(x):
        return "∞"
    return f"{x:.0f}" if 1e3 <= abs(x) < 1e9 else f"{x:.3g}"


def share(x: float) -> str:
    """A share estimated from data (a poll's share of yes): in per cent with one decimal, "73.1 %"."""
    return f"{100 * float(x):.1f} %"


def percent(x: float) -> str:
    """A probability a user sets or reads exactly (1 − β, a prior): in per cent, every digit it has
    (0.945 → "94.5 %", 0.95 → "95 %"), rounded to 10 significant digits against binary noise."""
    return f"{float(f'{100 * float(x):.10g}'):g} %"


def bound_share(x: float) -> str:
    """A probability an attacker's belief can reach at most (a posterior bound, the chance a randomized
    answer is the true one): in per cent, 3 significant digits rounded *up*, as every "at most" sentence
    writes it (0.731059 → "73.2 %"), so one number is never written 73.1 % in one place and 73.2 % in
    another."""
    return rounded_percent(float(x), up=True)


def quantile_share(beta: float) -> str:
    """The share 1 − β of releases in which a PAC error holds ("94.5 %"): :func:`percent` of 1 − β."""
    return percent(1.0 - float(beta))


#: the formatters by name, for a figure's trace that names the quantity it draws (its ``meta``): the chart
#: in words then says the value as the page's sentences and tables do
FORMATS = {"number": number, "level": level, "share": share, "percent": percent, "bound": bound_share}


def formatted(x: float, quantity: str | None = None) -> str:
    """``x`` in the words of its quantity (a name of :data:`FORMATS`; default: :func:`number`)."""
    if quantity is not None and quantity not in FORMATS:
        raise InputError(f"quantity must be one of {', '.join(FORMATS)}; got {quantity!r}.")
    return FORMATS[quantity or "number"](x)


# ---------------------------------------------------------------- rankings


def most_exposed(meaning) -> str | None:
    """ "Most exposed: release h = 2000, at level 2000 — an attacker who …": the level of ``meaning`` (a
    :class:`hetdp_core.reading.meaning.Meaning`) whose person is most exposed — the largest level, ties broken by
    the level the sentence reads, then by the any-attacker level
    (:meth:`~hetdp_core.reading.meaning.Meaning.most_exposed`); levels tied on all three, up to rounding
    (:func:`~hetdp_core.reading.meaning.same_exposure`), are named together. None without levels."""
    worst = None if meaning is None else meaning.most_exposed()
    if worst is None:
        return None
    from .meaning import compact_names, same_exposure

    names = compact_names(r.level.name for r in meaning.rows if same_exposure(r.exposure, worst.exposure))
    v = worst.level
    shown = level(worst.basis)
    any_attacker = (
        "" if v.any_attacker is None or level(v.any_attacker) == shown else f" (any attacker: {level(v.any_attacker)})"
    )
    return f"Most exposed: {names}, at level {shown}{any_attacker} — {worst.in_words}."


# ---------------------------------------------------------------- targets


@dataclass(frozen=True)
class TargetCheck:
    """An estimate, its 95 % interval [``low``, ``high``] and a target it should meet: at most the target
    (an error), or at least it with ``at_least`` (a share that must reach 1 − β). The target is
    :attr:`met` only when the estimate is within it; :meth:`words` says so, or what the interval
    supports."""

    estimate: float
    low: float
    high: float
    target: float
    at_least: bool = False

    def _within(self, x: float) -> bool:
        return x >= self.target if self.at_least else x <= self.target

    @property
    def met(self) -> bool:
        """Whether the estimate is within the target."""
        return self._within(self.estimate)

    @property
    def verdict(self) -> str:
        """ "met" (the whole interval within the target), "met by the estimate" (the interval reaches
        beyond it), "not shown" (the estimate beyond it, the interval reaching within) or "missed"
        (the whole interval beyond it)."""
        lo_in, hi_in = self._within(self.low), self._within(self.high)
        if self.met:
            return "met" if lo_in and hi_in else "met by the estimate"
        return "not shown" if lo_in or hi_in else "missed"

    def words(self, what: str = "the estimate") -> str:
        """The verdict in a sentence: "meets the target: …", or what the interval supports."""
        est, t = number(self.estimate), number(self.target)
        ci = f"95 % interval [{number(self.low)}, {number(self.high)}]"
        side, over = ("at least", "below") if self.at_least else ("at most", "above")
        return {
            "met": f"meets the target: {what} {est} and its whole {ci} are {side} {t}",
            "met by the estimate": f"meets the target by {what} {est} ({side} {t}); its {ci} reaches {over} it, "
            "so the margin is within the simulation's uncertainty",
            "not shown": f"does **not** show the target met: {what} {est} is {over} {t}; its {ci} still reaches "
            "the target, so more releases could tell",
            "missed": f"**misses** the target: {what} {est} and its whole {ci} are {over} {t}",
        }[self.verdict]


def target_check(*, estimate: float, low: float, high: float, target: float, at_least: bool = False) -> TargetCheck:
    """A :class:`TargetCheck` (``low`` ≤ ``estimate`` ≤ ``high`` required, all finite)."""
    vals = [float(v) for v in (estimate, low, high, target)]
    if not all(math.isfinite(v) for v in vals) or not vals[1] <= vals[0] <= vals[2]:
        raise InputError(
            f"target_check needs finite numbers with low ≤ estimate ≤ high; got estimate {estimate!r}, "
            f"interval [{low!r}, {high!r}], target {target!r}."
        )
    return TargetCheck(*vals, at_least=bool(at_least))


#: parameters that mean something of this module's own (rows of hetdp_core.framework._doc's glossary)
GLOSSARY = """
x | float | The value to put in words.
quantity | str or None | The quantity's formatter, a name of FORMATS (None: a measured value).
meaning | Meaning or None | What a view's levels mean for a person (hetdp_core.reading.meaning.meaning_of).
estimate | float | The estimate (a simulated statistic).
low | float | Lower end of the estimate's 95 % confidence interval.
high | float | Upper end of the estimate's 95 % confidence interval.
target | float | The target the estimate should meet.
at_least | bool | The estimate should be at least the target (a share), not at most it (an error).
"""


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
