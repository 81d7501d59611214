r"""What a privacy level means for a person: an attacker's worst-case belief.

An attacker believes with prior probability p that a person has the protected attribute (or that
their record is the one in question). After seeing the output of an ε-DP mechanism (or, for a
feature, an output whose level for that feature is ε), Bayes' rule and the likelihood-ratio bound
e^{−ε} ≤ P(y | x) / P(y | x') ≤ e^{ε} give

    p / (p + (1 − p) e^{ε})  ≤  posterior  ≤  e^{ε} p / (1 + (e^{ε} − 1) p).

For (ε, δ) guarantees the same bound holds except on outputs of total probability at most δ; for
ρ-zCDP we use the standard conversion ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ)), δ)-DP (Bun and Steinke,
*Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds*, TCC 2016,
arXiv:1605.02065, Proposition 1.3). Levels ε = ∞ (public data) give the bound 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..framework._doc import document
from ..framework._validate import InputError
from ..framework.constraints import DELTA, Interval
from ..noise.gdp import zcdp_epsilon
from ._rounding import percent, round_up

__all__ = [
    "posterior_bounds",
    "zcdp_to_eps",
    "in_words",
    "Level",
    "LevelMeaning",
    "Meaning",
    "meaning_of",
    "level_table",
    "labelled",
    "meaning_table",
    "TradeoffCurve",
    "tradeoff_curves",
    "compact_names",
]


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.framework.constraints)
_PRIOR = Interval(float, 0.0, 1.0, closed="neither")
_EPS = Interval(float, 0.0, None, allow_inf=True)
_RHO = Interval(float, 0.0, None, allow_inf=True)


def posterior_bounds(*, eps, prior: float) -> tuple[np.ndarray, np.ndarray]:
    """(lowest, highest) posterior an attacker can reach from ``prior`` at level(s) ``eps``."""
    p = _PRIOR.check("prior", prior, what=" (the attacker's prior probability)")
    e = _EPS.check_vector("eps", np.atleast_1d(eps), max_length=100_000, what=" (privacy levels; inf = no protection)")
    with np.errstate(over="ignore", invalid="ignore"):
        # written with e^{−ε} so that large ε (and ε = ∞) give 1 and 0 without overflow
        t = np.exp(-e)
        hi = p / (p + (1.0 - p) * t)
        lo = p * t / (p * t + (1.0 - p))
    return lo, hi


def zcdp_to_eps(*, rho, delta: float) -> np.ndarray:
    """ε with ρ-zCDP ⇒ (ε, δ)-DP: ε = ρ + 2√(ρ ln(1/δ))."""
    r = _RHO.check_vector("rho", np.atleast_1d(rho), max_length=100_000, what=" (zCDP levels)")
    return zcdp_epsilon(r, DELTA.check("delta", delta, what=" (failure probability)"))


#: levels this close (relative) are one level: an effective level computed as κ w_i / b lands a rounding
#: error away from the demand it equals (0.05000000000000001 for 0.05)
SAME_LEVEL_RTOL = 1e-9


def same_exposure(a: tuple, b: tuple) -> bool:
    """Whether two :attr:`LevelMeaning.exposure` keys are equal up to rounding (:data:`SAME_LEVEL_RTOL`):
    levels that print the same and are the same up to the arithmetic are tied, not ranked by it. An
    infinite value (no protection; no any-attacker level) equals only itself."""
    return all(
        x == y or (np.isfinite(x) and np.isfinite(y) and abs(x - y) <= SAME_LEVEL_RTOL * max(abs(x), abs(y)))
        for x, y in zip(a, b)
    )


def compact_names(names) -> str:
    """Levels that say the same, named in one phrase: "x1", "x1, x2, x3", or "x3, x4, …, x10 (8 levels)"."""
    names = [str(n) for n in names]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{names[0]}, {names[1]}, …, {names[-1]} ({len(names)} levels)"


def in_words(eps: float, prior: float, highest: float, delta: float | None = None) -> str:
    """One plain sentence, e.g. "an attacker who thought 1 % now thinks at most 2.68 %" (upper bounds
    and probabilities of failure rounded up, so the sentence never overstates protection)."""
    if not np.isfinite(eps):
        return f"no protection: an attacker who thought {percent(prior)} can become certain"
    tail = "" if delta is None else f" (except with probability {round_up(delta, 3):g})"
    return f"an attacker who thought {percent(prior)} now thinks at most {percent(highest, up=True)}{tail}"


@dataclass(frozen=True)
class Level:
    """One privacy level a page states (its scenario module's ``levels(result)`` returns a list of them).

    ``name`` says what the level is about (a feature, a group of users, a release); ``demanded`` is the
    privacy-loss bound asked for, an ε (BCDP's per-feature δ_i are such bounds too); ``delivered`` what
    the mechanism guarantees (BCDP's δ'_i including what correlated features leak, per-user ε_eff),
    ``delivered_by`` the algorithm that delivers it; ``any_attacker`` a level that bounds every attacker
    where ``demanded``/``delivered`` hold only under a model's assumptions (BCDP: the LDP level c_d);
    ``delta`` the δ of an (ε, δ) level (0: pure); ``gaussian_mu`` μ = Δ/σ of Gaussian noise, whose exact
    trade-off curve gives the risk; ``users`` how many people the level is about. ``model`` says
    where the noise is added — ``"central"`` (a curator releases a noisy statistic) or ``"local"`` (each
    person randomises their own report) — and ``unit`` what one level protects ("user's record"), so a
    level is placed among real deployments of its own kind (:func:`hetdp_core.reading.deployments.placement_of`)."""

    name: str
    demanded: float
    delivered: float | None = None
    delivered_by: str | None = None
    any_attacker: float | None = None
    delta: float | None = None
    gaussian_mu: float | None = None
    users: int | None = None
    model: str = "central"
    unit: str | None = None


#: Level field → its column in the meaning table (labels are applied here, when the table is rendered)
LEVEL_COLUMNS = {
    "name": "level",
    "users": "users",
    "demanded": "demanded level",
    "delivered": "delivered level",
    "delivered_by": "delivered by",
    "any_attacker": "any-attacker level",
    "delta": "δ",
    "gaussian_mu": "μ (Gaussian)",
}


def labelled(row, labels) -> dict:
    """``row``'s fields named in ``labels`` as display label → value, in that order: where a typed row
    becomes a table's or a JSON's row (labels are applied when rendering only)."""
    return {label: getattr(row, name) for name, label in labels.items()}


def level_table(levels):
    """The levels as a table with display labels (a column for each field some level has)."""
    import pandas as pd

    levels = list(levels)
    bad = [type(v).__name__ for v in levels if not isinstance(v, Level)]
    if bad:
        raise InputError(f"levels must be Level objects (hetdp_core.reading.meaning.Level); got {bad[0]}.")
    cols = {
        label: [getattr(v, f) for v in levels]
        for f, label in LEVEL_COLUMNS.items()
        if f in ("name", "demanded") or any(getattr(v, f) is not None for v in levels)
    }
    return pd.DataFrame(cols)


@dataclass(frozen=True)
class LevelMeaning:
    """One :class:`Level` read for a person (:func:`meaning_of`): the attacker's worst-case posterior from
    the prior at the demanded level, at the delivered one and at the level that bounds any attacker (None
    where the level has none), the sentence ``in_words``; and the risk in attack terms at the
    false-positive rate ``attack_fpr``: the most an attack catches (``attack_tpr``, also for any attacker),
    the ``max_advantage`` (TPR − FPR at its worst) and the sentence ``risk_in_words``. ``basis`` is the
    level the sentences and the attack read (the delivered one where the view states it)."""

    level: Level
    basis: float
    posterior_demanded: float
    posterior_delivered: float | None
    posterior_any_attacker: float | None
    in_words: str
    attack_fpr: float
    attack_tpr: float
    max_advantage: float
    attack_tpr_any_attacker: float | None
    risk_in_words: str

    @property
    def bounding_level(self) -> float:
        """The level that bounds this person against the widest class of attackers the view states: the
        any-attacker level where there is one, else the basis (delivered, else demanded) level."""
        return float(self.level.any_attacker if self.level.any_attacker is not None else self.basis)

    @property
    def exposure(self) -> tuple[float, float, float]:
        """How exposed a person is, for ranking levels: the largest level first — the one that bounds
        every attacker the view states (:attr:`bounding_level`, whose posterior is the largest; levels
        rather than posteriors, so that posteriors equal after rounding or capped at 100 % are still
        told apart) — ties broken by the level the sentences read (:attr:`basis`), then by the
        any-attacker level."""
        any_attacker = self.level.any_attacker
        return self.bounding_level, self.basis, -np.inf if any_attacker is None else float(any_attacker)


#: LevelMeaning field → its column in the meaning table, after the level's own (:data:`LEVEL_COLUMNS`);
#: a column appears when some row has the value (labels are applied here, when the table is rendered)
MEANING_COLUMNS = {
    "posterior_demanded": "posterior ≤ (demanded)",
    "posterior_delivered": "posterior ≤ (delivered)",
    "posterior_any_attacker": "posterior ≤ (any attacker)",
    "in_words": "in words",
    "attack_fpr": "attack FPR",
    "attack_tpr": "attack TPR ≤",
    "max_advantage": "max advantage",
    "attack_tpr_any_attacker": "attack TPR ≤ (any attacker)",
    "risk_in_words": "risk in words",
}


@dataclass(frozen=True)
class Meaning:
    """What a view's levels mean for a person (:func:`meaning_of`): one :class:`LevelMeaning` per level,
    for the attacker's ``prior`` and the attack's false-positive rate ``fpr``. :meth:`table` is the
    ``privacy_meaning`` download (display labels applied there only)."""

    rows: tuple[LevelMeaning, ...]
    prior: float
    fpr: float

    def __len__(self) -> int:
        return len(self.rows)

    def most_exposed(self) -> LevelMeaning | None:
        """The level whose person is most exposed (:attr:`LevelMeaning.exposure`: the largest level, ties
        broken by the level the sentences read, then by the any-attacker level; the first of equals), or None."""
        return max(self.rows, key=lambda r: r.exposure) if self.rows else None

    def table(self, *, words: bool = True):
        """The levels and their meaning as a table with display labels: the level's columns
        (:func:`level_table`), then :data:`MEANING_COLUMNS` (those some row has; the two sentences only
        with ``words``). Built once per meaning: the same frame every time, as a stored table would be
        (the app memoises CSV bytes and Arrow tables by the frame's identity)."""
        made = self.__dict__.setdefault("_tables", {})  # a cache beside the fields (not one of them)
        if words not in made:
            made[words] = self._table(words)
        return made[words]

    def _table(self, words: bool):
        import pandas as pd

        df = level_table(r.level for r in self.rows)
        if not self.rows:  # a page with no valid level to state
            return df.assign(**{"posterior ≤ (demanded)": [], "in words": []})
        for name, label in MEANING_COLUMNS.items():
            if not words and name in ("in_words", "risk_in_words"):
                continue
            values = [getattr(r, name) for r in self.rows]
            if any(v is not None for v in values):
                df[label] = pd.Series(values, dtype=object if isinstance(values[0], str) else float)
        return df


def meaning_of(levels, *, prior: float, delta: float | None = None, fpr: float = 0.01) -> Meaning:
    """The page's levels (a list of :class:`Level`) read as an attacker's worst-case posterior and risk.

    Each level's posterior bound from ``prior`` at its demanded level, at its delivered level and at the
    level that bounds any attacker, and a plain sentence for the delivered (else demanded) level — the
    *basis*. A level that does not state a delivered or any-attacker level (where others do) is read by
    what it states. A level's ``delta`` (or ``delta`` here, for every level) marks (ε, δ) levels: the
    bound then holds except on outputs of total probability δ, and the sentence says so.

    A level's ``any_attacker`` marks levels that hold only *under a model's assumptions* (BCDP's
    δ_i bound attackers whose belief about the other features follows the prior with correlation
    ≤ q, Definition 4 and Theorem 1 of the BCDP paper); it is the level that bounds every
    attacker (the LDP level delivered). The sentence then states both, in plain words.

    Beside the posterior, the risk in attack terms (:mod:`hetdp_core.reading.risk`) at false-positive rate
    ``fpr``: the most an attack catches at that rate and the maximal advantage (TPR − FPR at its
    worst), from the (ε, δ) trade-off curve of the basis level, or from the exact Gaussian curve where
    a level has ``gaussian_mu`` (noise Δ/σ); with an ``any_attacker`` level also the any-attacker TPR."""
    from .risk import FPR_RANGE, advantage_eps_delta, advantage_gaussian, risk_in_words, tpr_eps_delta, tpr_gaussian

    levels = list(levels)
    bad = [type(v).__name__ for v in levels if not isinstance(v, Level)]
    if bad:
        raise InputError(f"levels must be Level objects (hetdp_core.reading.meaning.Level); got {bad[0]}.")
    fpr = Interval(float, FPR_RANGE[0], FPR_RANGE[1]).check("fpr", fpr, what=" (the attack's false-positive rate)")
    prior = _PRIOR.check("prior", prior, what=" (the attacker's prior probability)")
    if not levels:
        return Meaning((), prior, fpr)

    demanded, delivered, any_attacker = (_stated(levels, n) for n in ("demanded", "delivered", "any_attacker"))
    basis = demanded if delivered is None else np.where(np.isnan(delivered), demanded, delivered)
    highest = lambda e: posterior_bounds(eps=e, prior=prior)[1]  # noqa: E731
    hi_demanded, hi = highest(demanded), highest(basis)
    hi_delivered, hi_any = _where_stated(highest, delivered), _where_stated(highest, any_attacker)
    deltas = _stated(levels, "delta")
    if deltas is None:
        deltas = np.full(len(levels), np.nan if delta is None else delta)
    words = [in_words(e, prior, h, None if not (dl > 0) else float(dl)) for e, h, dl in zip(basis, hi, deltas)]
    # risk in attack terms: the exact Gaussian curve where the noise is Gaussian, else the (ε, δ) curve
    d0 = np.where(np.isnan(deltas), 0.0, deltas)
    tpr = tpr_eps_delta(eps=basis, delta=d0, fpr=fpr)
    adv = advantage_eps_delta(eps=basis, delta=d0)
    mu = _stated(levels, "gaussian_mu")
    if mu is not None:
        g = ~np.isnan(mu)
        tpr = np.where(g, tpr_gaussian(mu=np.where(g, mu, 0.0), fpr=fpr), tpr)
        adv = np.where(g, advantage_gaussian(mu=np.where(g, mu, 0.0)), adv)
    risk = [risk_in_words(t, fpr) for t in tpr]
    tpr_any = _where_stated(lambda e: tpr_eps_delta(eps=e, fpr=fpr), any_attacker)
    if any_attacker is not None:
        words, risk = _with_any_attacker(words, risk, any_attacker, hi_any, tpr_any)

    def at(a: np.ndarray | None, i: int) -> float | None:
        return None if a is None or np.isnan(a[i]) else float(a[i])

    rows = tuple(
        LevelMeaning(
            level=v,
            basis=float(basis[i]),
            posterior_demanded=float(hi_demanded[i]),
            posterior_delivered=at(hi_delivered, i),
            posterior_any_attacker=at(hi_any, i),
            in_words=words[i],
            attack_fpr=fpr,
            attack_tpr=float(tpr[i]),
            max_advantage=float(adv[i]),
            attack_tpr_any_attacker=at(tpr_any, i),
            risk_in_words=risk[i],
        )
        for i, v in enumerate(levels)
    )
    return Meaning(rows, prior, fpr)


def _stated(levels: list[Level], name: str) -> np.ndarray | None:
    """The levels' field ``name`` as floats (NaN where a level does not state it), None if none does."""
    got = [getattr(v, name) for v in levels]
    return None if all(g is None for g in got) else np.array([np.nan if g is None else g for g in got], float)


def _where_stated(f, eps: np.ndarray | None) -> np.ndarray | None:
    """``f(eps)`` for the levels that state ``eps``; NaN for those that do not; None if none does."""
    if eps is None:
        return None
    out, ok = np.full(eps.shape, np.nan), ~np.isnan(eps)
    out[ok] = f(eps[ok])
    return out


def _with_any_attacker(words, risk, any_attacker, hi_any, tpr_any) -> tuple[list[str], list[str]]:
    """The two sentences of levels that hold under a model's assumptions, with what any attacker can do."""
    words = [
        w
        if np.isnan(e)
        else f"under the model's assumptions (the attacker's beliefs about the other features follow "
        f"the model, correlation ≤ q), {w}; an attacker who knows more (any attacker): "
        + (f"at most {percent(h, up=True)}" if np.isfinite(e) else "no protection")
        for w, h, e in zip(words, hi_any, any_attacker)
    ]
    risk = [
        r
        if np.isnan(t)
        else f"under the model's assumptions, {r}; an attacker who knows more (any attacker): at most "
        f"{percent(t, up=True)}"
        for r, t in zip(risk, tpr_any)
    ]
    return words, risk


def meaning_table(levels, *, prior: float, delta: float | None = None, fpr: float = 0.01):
    """:func:`meaning_of`'s answer as the ``privacy_meaning`` table (display labels)."""
    return meaning_of(levels, prior=prior, delta=delta, fpr=fpr).table()


# ------------------------------------------------------------------ quantile dotplots
#: equally likely released values per row of a quantile dotplot
DOTS = 20
#: the probabilities (i − ½)/DOTS whose quantiles the dots are
DOT_PROBABILITIES = (np.arange(DOTS) + 0.5) / DOTS


def dot_table(rows: dict, truth: dict):
    """The table a quantile dotplot draws: for each row label its DOTS released values (quantiles
    at :data:`DOT_PROBABILITIES`) and the true value, columns ``mechanism, dot, released value,
    true value`` (the pages' ``*_release_quantiles`` tables)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {"mechanism": label, "dot": i + 1, "released value": float(v), "true value": float(truth[label])}
            for label, vals in rows.items()
            for i, v in enumerate(vals)
        ]
    )


@dataclass(frozen=True)
class TradeoffCurve:
    """The most an attack catches (``tpr``, at most) at each false-positive rate ``fpr``, for the level
    (or group) ``name``."""

    name: str
    fpr: tuple[float, ...]
    tpr: tuple[float, ...]


def tradeoff_curves(meaning: Meaning, *, points: int = 101, max_levels: int = 12) -> list[TradeoffCurve]:
    """The trade-off curves a view's levels allow (the most an attack catches at each false-positive
    rate; :mod:`hetdp_core.reading.risk`), one per level (the first ``max_levels``): the exact Gaussian curve
    where the level states μ = Δ/σ, else the (ε, δ) curve of its basis (delivered, else demanded) level."""
    from .risk import tradeoff_eps_delta, tradeoff_gaussian

    alpha = np.concatenate([[0.0], np.logspace(-4, 0, points - 1)])
    out = []
    for r in meaning.rows[:max_levels]:
        mu, d = r.level.gaussian_mu, r.level.delta
        if mu is not None and not np.isnan(mu):
            f = tradeoff_gaussian(alpha, mu=float(mu))
        else:
            f = tradeoff_eps_delta(alpha, eps=r.basis, delta=0.0 if d is None or np.isnan(d) else float(d))
        out.append(TradeoffCurve(r.level.name, tuple(alpha.tolist()), tuple((1.0 - f).tolist())))
    return out


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
