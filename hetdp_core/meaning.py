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

from ._doc import document
from ._validate import InputError
from .constraints import DELTA, Interval

__all__ = [
    "posterior_bounds",
    "zcdp_to_eps",
    "Meaning",
    "meaning",
    "in_words",
    "Level",
    "level_table",
    "meaning_table",
    "compact_names",
]


#: the ranges this module's functions accept (the constraint vocabulary: hetdp_core.constraints)
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
    d = DELTA.check("delta", delta, what=" (failure probability)")
    return r + 2.0 * np.sqrt(r * np.log(1.0 / d))


@dataclass(frozen=True)
class Meaning:
    """Posterior bounds per labelled level, for one prior."""

    labels: tuple
    eps: np.ndarray
    prior: float
    lowest: np.ndarray
    highest: np.ndarray
    delta: float | None = None  # set when the levels hold except with probability δ

    def rows(self) -> list[dict]:
        return [
            {
                "level": lab,
                "eps": float(e),
                "prior": self.prior,
                "posterior_low": float(lo),
                "posterior_high": float(hi),
                "sentence": in_words(e, self.prior, hi, self.delta),
            }
            for lab, e, lo, hi in zip(self.labels, self.eps, self.lowest, self.highest)
        ]


def meaning(*, labels, eps, prior: float, delta: float | None = None) -> Meaning:
    """:class:`Meaning` of the levels ``eps`` named by ``labels`` for an attacker with ``prior``."""
    e = np.atleast_1d(np.asarray(eps, dtype=float))
    labels = tuple(str(x) for x in labels)
    if len(labels) != e.size:
        raise InputError(f"labels has {len(labels)} entries but eps has {e.size}; give one label per level.")
    lo, hi = posterior_bounds(eps=e, prior=prior)
    return Meaning(labels, e, float(prior), lo, hi, delta)


def compact_names(names) -> str:
    """Levels that say the same, named in one phrase: "x1", "x1, x2, x3", or "x3, x4, …, x10 (8 levels)"."""
    names = [str(n) for n in names]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{names[0]}, {names[1]}, …, {names[-1]} ({len(names)} levels)"


def round_up(x: float, digits: int = 3) -> float:
    """``x`` rounded *up* to ``digits`` significant digits: an upper bound shown rounded stays an
    upper bound (2.6724 % is shown as 2.68 %, never 2.67 %)."""
    x = float(x)
    if x <= 0 or not np.isfinite(x):
        return x
    e = int(np.floor(np.log10(x))) - digits + 1
    q = x / 10.0**e
    r = np.ceil(q - 1e-9 * q) * 10.0**e  # a value already on the grid stays
    return float(f"{r:.{digits}g}") if float(f"{r:.{digits}g}") >= x * (1 - 1e-12) else r


def _pct(x: float, *, up: bool = False) -> str:
    v = 100.0 * x
    if up:
        v = round_up(v, 3) if v < 99.95 else min(round_up(v, 4), 100.0)
    return f"{v:.3g} %" if v < 99.95 else ("100 %" if v >= 100.0 else f"{v:.4g} %")


def in_words(eps: float, prior: float, highest: float, delta: float | None = None) -> str:
    """One plain sentence, e.g. "an attacker who thought 1 % now thinks at most 2.68 %" (upper bounds
    and probabilities of failure rounded up, so the sentence never overstates protection)."""
    if not np.isfinite(eps):
        return f"no protection: an attacker who thought {_pct(prior)} can become certain"
    tail = "" if delta is None else f" (except with probability {round_up(delta, 3):g})"
    return f"an attacker who thought {_pct(prior)} now thinks at most {_pct(highest, up=True)}{tail}"


@dataclass(frozen=True)
class Level:
    """One privacy level a page states (its scenario module's ``levels(result)`` returns a list of them).

    ``name`` says what the level is about (a feature, a group of users, a release); ``demanded`` is the
    privacy-loss bound asked for, an ε (BCDP's per-feature δ_i are such bounds too); ``delivered`` what
    the mechanism guarantees (BCDP's δ'_i including what correlated features leak, per-user ε_eff),
    ``delivered_by`` the algorithm that delivers it; ``any_attacker`` a level that bounds every attacker
    where ``demanded``/``delivered`` hold only under a model's assumptions (BCDP: the LDP level c_d);
    ``delta`` the δ of an (ε, δ) level (0: pure); ``gaussian_mu`` μ = Δ/σ of Gaussian noise, whose exact
    trade-off curve gives the risk; ``users`` how many people the level is about."""

    name: str
    demanded: float
    delivered: float | None = None
    delivered_by: str | None = None
    any_attacker: float | None = None
    delta: float | None = None
    gaussian_mu: float | None = None
    users: int | None = None


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


def level_table(levels):
    """The levels as a table with display labels (a column for each field some level has)."""
    import pandas as pd

    levels = list(levels)
    bad = [type(v).__name__ for v in levels if not isinstance(v, Level)]
    if bad:
        raise InputError(f"levels must be Level objects (hetdp_core.meaning.Level); got {bad[0]}.")
    cols = {
        label: [getattr(v, f) for v in levels]
        for f, label in LEVEL_COLUMNS.items()
        if f in ("name", "demanded") or any(getattr(v, f) is not None for v in levels)
    }
    return pd.DataFrame(cols)


def meaning_table(levels, *, prior: float, delta: float | None = None, fpr: float = 0.01):
    """The page's levels (a list of :class:`Level`) read as an attacker's worst-case posterior and risk,
    as a table with display labels (:func:`level_table`'s columns and what follows).

    Adds ``posterior ≤ (demanded)``, ``posterior ≤ (delivered)`` and a plain sentence for the delivered
    (else demanded) level. A level's ``delta`` (or ``delta`` here, for every level) marks (ε, δ)
    levels: the bound then holds except on outputs of total probability δ, and the sentence says so.

    A level's ``any_attacker`` marks levels that hold only *under a model's assumptions* (BCDP's
    δ_i bound attackers whose belief about the other features follows the prior with correlation
    ≤ q, Definition 4 and Theorem 1 of the BCDP paper); it is the level that bounds every
    attacker (the LDP level delivered). The table then adds ``posterior ≤ (any attacker)`` and the
    sentence states both, in plain words.

    Beside the posterior, the risk in attack terms (:mod:`hetdp_core.risk`) at false-positive rate
    ``fpr``: ``attack TPR ≤`` (the most an attack catches at that rate) and ``max advantage``
    (TPR − FPR at its worst), from the (ε, δ) trade-off curve of the basis level, or from the exact
    Gaussian curve where a level has ``gaussian_mu`` (noise Δ/σ); with an ``any_attacker`` level
    also ``attack TPR ≤ (any attacker)``; and ``risk in words``."""
    df = level_table(levels)
    from .risk import FPR_RANGE, advantage_eps_delta, advantage_gaussian, risk_in_words, tpr_eps_delta, tpr_gaussian

    fpr = Interval(float, FPR_RANGE[0], FPR_RANGE[1]).check("fpr", fpr, what=" (the attack's false-positive rate)")
    if df.empty:  # a page with no valid level to state
        return df.assign(**{"posterior ≤ (demanded)": [], "in words": []})
    _, hi_d = posterior_bounds(eps=df["demanded level"].to_numpy(float), prior=prior)
    df["posterior ≤ (demanded)"] = hi_d
    basis = "demanded level"
    if "delivered level" in df:
        _, hi_g = posterior_bounds(eps=df["delivered level"].to_numpy(float), prior=prior)
        df["posterior ≤ (delivered)"] = hi_g
        basis = "delivered level"
    _, hi = posterior_bounds(eps=df[basis].to_numpy(float), prior=prior)
    deltas = df["δ"].to_numpy(float) if "δ" in df else np.full(len(df), np.nan if delta is None else delta)
    words = [
        in_words(e, prior, h, None if not (dl > 0) else float(dl))
        for e, h, dl in zip(df[basis].to_numpy(float), hi, deltas)
    ]
    if "any-attacker level" in df:
        _, hi_any = posterior_bounds(eps=df["any-attacker level"].to_numpy(float), prior=prior)
        df["posterior ≤ (any attacker)"] = hi_any
        words = [
            f"under the model's assumptions (the attacker's beliefs about the other features follow "
            f"the model, correlation ≤ q), {w}; an attacker who knows more (any attacker): "
            + (f"at most {_pct(h, up=True)}" if np.isfinite(e) else "no protection")
            for w, h, e in zip(words, hi_any, df["any-attacker level"].to_numpy(float))
        ]
    df["in words"] = words
    # risk in attack terms: the exact Gaussian curve where the noise is Gaussian, else the (ε, δ) curve
    d0 = np.where(np.isnan(deltas), 0.0, deltas)
    tpr = tpr_eps_delta(eps=df[basis].to_numpy(float), delta=d0, fpr=fpr)
    adv = advantage_eps_delta(eps=df[basis].to_numpy(float), delta=d0)
    if "μ (Gaussian)" in df:
        mu = df["μ (Gaussian)"].to_numpy(float)
        g = ~np.isnan(mu)
        tpr = np.where(g, tpr_gaussian(mu=np.where(g, mu, 0.0), fpr=fpr), tpr)
        adv = np.where(g, advantage_gaussian(mu=np.where(g, mu, 0.0)), adv)
    df["attack FPR"] = fpr
    df["attack TPR ≤"] = tpr
    df["max advantage"] = adv
    risk = [risk_in_words(t, fpr) for t in tpr]
    if "any-attacker level" in df:
        tpr_any = tpr_eps_delta(eps=df["any-attacker level"].to_numpy(float), fpr=fpr)
        df["attack TPR ≤ (any attacker)"] = tpr_any
        risk = [
            f"under the model's assumptions, {r}; an attacker who knows more (any attacker): at most {_pct(t, up=True)}"
            for r, t in zip(risk, tpr_any)
        ]
    df["risk in words"] = risk
    return df


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


def tradeoff_curves(table, *, points: int = 101, max_levels: int = 12):
    """The trade-off curves a meaning table's levels allow (the most an attack catches at each
    false-positive rate; :mod:`hetdp_core.risk`), long format ``level, attack FPR, attack TPR ≤``,
    one curve per level (the first ``max_levels``): the exact Gaussian curve where the table has
    ``μ (Gaussian)``, else the (ε, δ) curve of the delivered (else demanded) level."""
    import pandas as pd

    from .risk import tradeoff_eps_delta, tradeoff_gaussian

    alpha = np.concatenate([[0.0], np.logspace(-4, 0, points - 1)])
    basis = "delivered level" if "delivered level" in table else "demanded level"
    rows = []
    for _, r in table.head(max_levels).iterrows():
        mu = r.get("μ (Gaussian)", np.nan)
        if mu is not None and not np.isnan(mu):
            f = tradeoff_gaussian(alpha, mu=float(mu))
        else:
            d = r.get("δ", 0.0)
            f = tradeoff_eps_delta(alpha, eps=float(r[basis]), delta=0.0 if d is None or np.isnan(d) else float(d))
        rows.append(pd.DataFrame({"level": r["level"], "attack FPR": alpha, "attack TPR ≤": 1.0 - f}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["level", "attack FPR", "attack TPR ≤"])


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core._doc)
