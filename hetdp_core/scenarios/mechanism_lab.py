"""Mechanism lab: the catalogue of MAT 4376 lectures 17–20.

Question: which noise, how much, and what for? Laplace / Gaussian / mixed noise, composition
(Example 8), local vs smooth sensitivity of the median (Examples 12, 21), bounded Laplace
(Theorem 26, Example 22), and the exponential mechanism vs report-noisy-max (Example 29).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..framework import scenario as sc
from ..framework._doc import document
from ..framework.constraints import DELTA, EPS, SEED, TRIALS, USERS
from ..framework.memo import memoised
from ..framework.registry import PageSpec
from ..framework.scenario import Cost, InputError, Interval, Numbers, Result, Rule, RunOptions, Scenario, param, table
from ..materials.sources import MAT4376_NOTES
from ..noise import mechanisms as mc
from ..noise.dptest import HistogramTest, histogram_privacy_test
from ..reading.meaning import Level

#: this page's one declaration (see hetdp_core.framework.registry): navigation, CLI, reports, docs and tests read it
PAGE_SPEC = PageSpec(
    url="Mechanism_lab",
    title="Mechanism lab",
    icon=":material/casino:",
    order=6,
    summary=(
        "Which noise, how much, and what does it buy? Laplace, Gaussian, mixed noise, "
        "composition, smooth sensitivity, bounded Laplace and the exponential mechanism, side by "
        "side."
    ),
    solver="hetdp_core.reading.solve:solve_mechanism_lab",
    fast_query={"trials": "200"},
    example_query=(
        "eps=0.8&delta=0.001&sens=2&n=500&alpha=2.5&Lambda=20&m=100&med_n=21"
        "&scores=3,1,4,1,5&bl_q=2&bl_lower=0&bl_upper=20&trials=700&seed=6"
    ),
    key_tables=("mech_privacy_profiles", "mech_example8"),
    text_view={"tab": "Exponential mechanism"},  # its typed list (the scores) sits in that tab
    sources=(MAT4376_NOTES,),
    risk_field="eps",
)
EPS_GRID = sc.log_grid(0.05, 10.0, extra=(0.5, 1.0, 2.0))
DELTA_GRID = (1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.1)
PARETO_TRIALS_MAX = 5000


def _widen_domain(v) -> dict:
    """The bounded-Laplace domain [l, u] widened to hold the sensitivity: width max(2Δ, 10 if l ≥ u),
    its upper end at most 10⁶."""
    lo, up, sens = v["bl_lower"], v["bl_upper"], v["sens"]
    width = max(2.0 * sens, 10.0 if not lo < up else 0.0)
    new_up = min(lo + width, 1e6)
    return {"bl_lower": new_up - width, "bl_upper": new_up}


@dataclass(frozen=True)
class MechanismLab(Scenario):
    ALIASES = {"alpha": "pareto_index"}  # renamed: α names a Rényi order or an LDP level elsewhere

    eps: float = param(0.5, EPS.narrow(0.05, 10.0), "ε")
    delta: float = param(1e-5, DELTA.narrow(1e-6, 0.1, closed="both"), "δ")
    sens: float = param(1.0, Interval(float, 0.001, 100.0), "sensitivity Δ", caption="sensitivity Δ (noise tab)")
    n: int = param(1000, USERS.narrow(10, 100_000), "n (Example 11 / 8)", caption="n")
    pareto_index: float = param(3.0, Interval(float, 1.1, 10.0), "Pareto index α", caption="Pareto α")
    Lambda: float = param(50.0, Interval(float, 1.5, 1000.0), "clip Λ")
    m: int = param(400, Interval(int, 1, 99_999), "m (first part, Example 8)", caption="m (first part)")
    eps1: float = param(0.5, EPS.narrow(0.01, 10.0), "ε1 (mean)")
    eps2: float = param(0.3, EPS.narrow(0.01, 10.0), "ε2 (variance)")
    eps3: float = param(1.0, EPS.narrow(0.01, 10.0), "ε3 (median)")
    med_n: int = param(11, Interval(int, 3, 201), "n for Example 12 (odd)", caption="n (odd) for Example 12")
    scores: tuple = param(
        (15, 20, 25),
        Numbers(Interval(float, -1e6, 1e6), max_len=50),
        "scores per candidate",
        caption="scores f(x, q) per candidate",
    )
    bl_q: float = param(0.0, Interval(float, -1e6, 1e6), "true value q")
    bl_lower: float = param(0.0, Interval(float, -1e6, 1e6), "domain lower l")
    bl_upper: float = param(10.0, Interval(float, -1e6, 1e6), "domain upper u")
    trials: int = param(2000, TRIALS.narrow(100, 50_000), "trials (simulations)")
    seed: int = param(0, SEED, "random seed", caption="seed")

    RULES = (  # declared once: validate() raises on a broken one, the page's widgets repair it (adapt)
        Rule(
            "med_n odd",
            holds=lambda v: v["med_n"] % 2 == 1,
            message=lambda v: (
                f"med_n (n for Example 12) must be odd, so that the median is one data point; got "
                f"{v['med_n']}. Use {v['med_n'] + 1}."
            ),
            # no repair: the slider steps by 2 from an odd value; an even n from a link is an error
        ),
        Rule(
            "domain holds the sensitivity",  # l < u and Δ < u − l
            holds=lambda v: v["bl_lower"] < v["bl_upper"] and v["sens"] < v["bl_upper"] - v["bl_lower"],
            message=lambda v: (
                f"bl_lower (domain lower l) must be < bl_upper = {v['bl_upper']:g}; got {v['bl_lower']:g}."
                if not v["bl_lower"] < v["bl_upper"]
                else f"sens (sensitivity Δ) must be smaller than the domain width u − l = "
                f"{v['bl_upper'] - v['bl_lower']:g} for the bounded Laplace; got {v['sens']:g}."
            ),
            repair=_widen_domain,
            note=lambda v: (
                f"the bounded-Laplace domain is now [{v['bl_lower']:g}, {v['bl_upper']:g}], wider than Δ = "
                f"{v['sens']:g}"
            ),
        ),
        Rule(
            "q in the domain",
            holds=lambda v: v["bl_lower"] <= v["bl_q"] <= v["bl_upper"],
            message=lambda v: (
                f"bl_q (true value q) must lie in the domain [l, u] = [{v['bl_lower']:g}, "
                f"{v['bl_upper']:g}]; got {v['bl_q']:g}."
            ),
            repair=lambda v: {"bl_q": min(max(v["bl_q"], v["bl_lower"]), v["bl_upper"])},
            note=lambda v: f"the true value q is now {v['bl_q']:g}, inside the domain",
        ),
        Rule(
            "m < n",
            holds=lambda v: v["m"] < v["n"],
            message=lambda v: f"m (first part, Example 8) must be < n = {v['n']}; got {v['m']}. Lower m or raise n.",
            repair=lambda v: {"m": v["n"] - 1},
            note=lambda v: f"Example 8's first part m is now {v['m']} (< n = {v['n']})",
        ),
    )

    def estimate(self) -> Cost:
        """Measured: the Pareto experiment draws min(trials, 5000) × n values, ≈ 4e-8 s and 17 bytes
        each (10⁸ in 4 s, 1.7 GB); the other tabs draw a few × trials values."""
        cells = min(self.trials, PARETO_TRIALS_MAX) * self.n
        other = self.trials * (self.med_n * 3 + 10 + len(self.scores) * 2)
        return Cost(
            cells=cells + other,
            seconds=cells * 4e-8 + other * 5e-8,
            bytes=cells * 17 + other * 16,
            driver=f"Example 11: min(trials, {PARETO_TRIALS_MAX}) = {min(self.trials, PARETO_TRIALS_MAX):,} × "
            f"n = {self.n:,} Pareto draws",
        )


PRESETS = {
    "Example 11: Pareto sample mean": MechanismLab(eps=0.5, delta=1e-5, n=1000, pareto_index=3.0, Lambda=50.0),
    "Example 29: election (15, 20, 25)": MechanismLab(scores=(15, 20, 25), eps=1.0),
    "Example 22: born on Mars (count 0)": MechanismLab(bl_q=0.0, bl_lower=0.0, bl_upper=10.0, eps=1.0, delta=1e-3),
}


#: number of possible released values in the quantile dotplot
def release_quantiles(s: MechanismLab, *, b_bounded: float) -> pd.DataFrame:
    r"""Twenty equally likely released values of the true value q (the bounded-Laplace tab's
    q, domain and Δ): the quantiles at (i − ½)/20 of each mechanism's release distribution —
    Laplace q + b F⁻¹, Gaussian q + σ Φ⁻¹ (Theorem 5, only for ε < 1), the corrected MNM by its branch, bounded
    Laplace by inverting its CDF on a fine grid. What a quantile dotplot shows a non-expert
    (Nanayakkara et al., PETS 2022)."""
    from scipy import stats

    from ..reading.meaning import DOT_PROBABILITIES as p
    from ..reading.meaning import dot_table

    q, sens, eps, delta = s.bl_q, s.sens, s.eps, s.delta
    rows = {"Laplace": q + stats.laplace.ppf(p) * mc.laplace_scale(sensitivity=sens, eps=eps)}
    if eps < 1:
        rows["Gaussian"] = q + stats.norm.ppf(p) * mc.gaussian_sigma(sensitivity=sens, eps=eps, delta=delta)
    kind, scale = mc.mnm_noise(sensitivity=sens, eps=eps, delta=delta)
    rows["MNM"] = q + (stats.norm.ppf(p) if kind == "gaussian" else stats.laplace.ppf(p)) * scale
    lo_, up_ = s.bl_lower, s.bl_upper
    grid = np.linspace(lo_, up_, 20_001)
    cdf = np.cumsum(mc.bounded_laplace_density(grid, q=q, b=b_bounded, lower=lo_, upper=up_))
    rows["bounded Laplace"] = np.interp(p, cdf / cdf[-1], grid)
    return dot_table(rows, dict.fromkeys(rows, q))


@dataclass(frozen=True, kw_only=True)
class MechanismLabResult(Result):
    """What a Mechanism-lab run computed, beyond its tables.

    Attributes
    ----------
    mnm_threshold : float
        The mixed mechanism's switch point between Laplace and Gaussian noise.
    mnm_branch : tuple of (str, float)
        The branch the mixed mechanism takes here and its noise scale.
    mnm_printed_delta : float
        The δ the printed (uncorrected) rule would deliver.
    example8 : Example8
        Example 8: sensitivities, Laplace scales and the composed level ``total``.
    local : tuple of numpy.ndarray
        Releases of the median of Example 12's two neighbouring data sets under local-sensitivity noise.
    local_sensitivity : tuple of float
        Their local sensitivities.
    local_test : HistogramTest
        The histogram privacy test of those releases.
    b, b0 : float
        The bounded Laplace's scale and the plain Laplace scale Δ/ε.
    share : OutsideShare
        The share of plain-Laplace releases outside the domain: ``exact`` and ``simulated``.
    profiles : tuple of NoiseProfile
        The exact privacy profile of each noise drawn (the rows of ``mech_privacy_profiles``).
    """

    mech_noise_densities: pd.DataFrame = table("the noise densities of the mechanisms")
    mech_pareto_mse: pd.DataFrame = table("the Pareto sample mean's error (Example 11)")
    mech_example8: pd.DataFrame = table("Example 8: the share of outputs outside the interval")
    mech_smooth_sensitivity: pd.DataFrame = table("local vs smooth sensitivity of the median")
    mech_bounded_laplace: pd.DataFrame = table("bounded Laplace: density and its privacy level")
    mech_exponential: pd.DataFrame = table("the exponential mechanism's output probabilities")
    mech_release_quantiles: pd.DataFrame = table("twenty equally likely releases of the true value per mechanism")
    mech_privacy_profiles: pd.DataFrame = table("each mechanism's exact privacy profile δ(ε)")
    mech_variances: pd.DataFrame = table(
        "each noise's variance (or the note why it does not apply, e.g. the Gaussian needs ε < 1)"
    )
    mech_lemma28: pd.DataFrame = table("Lemma 28's bound on the exponential mechanism's loss, per t")

    mnm_threshold: float
    mnm_branch: tuple[str, float]
    mnm_printed_delta: float
    example8: mc.Example8
    local: tuple[np.ndarray, np.ndarray]
    local_sensitivity: tuple[float, float]
    local_test: HistogramTest
    b: float
    b0: float
    share: mc.OutsideShare
    profiles: tuple[mc.NoiseProfile, ...]


def _noise_tables(s: MechanismLab) -> tuple[dict, list[dict]]:
    """Analytic noise densities (columns) and variances of Laplace, Gaussian and MNM; a mechanism whose
    calibration does not apply (the Gaussian needs ε < 1) gets a note instead."""
    eps, delta, sens = s.eps, s.delta, s.sens
    z = np.linspace(-6 * sens / eps * 2, 6 * sens / eps * 2, 600)
    dens, var_rows = {"noise": z}, []
    for mech in ("laplace", "gaussian", "mnm"):
        try:
            d = mc.noise_density(z, mech, sensitivity=sens, eps=eps, delta=delta)
            var = mc.noise_variance(mech, sensitivity=sens, eps=eps, delta=delta)
        except InputError as exc:  # e.g. the Gaussian needs ε < 1: shown as a note
            var_rows.append({"mechanism": mech, "variance": np.nan, "note": str(exc)})
            continue
        dens[f"{mech} (analytic density)"] = d
        var_rows.append({"mechanism": mech, "variance": var, "note": ""})
    return dens, var_rows


def _smooth_table(s: MechanismLab, d1: np.ndarray, d2: np.ndarray) -> pd.DataFrame:
    """The median released with smooth-sensitivity noise (three kinds) on Example 12's two datasets, each
    with an empirical privacy test."""
    eps, delta, trials, seed = s.eps, s.delta, s.trials, s.seed
    rows = []
    for kind in ("laplace", "heavy", "gaussian"):
        r1 = mc.smooth_noise(
            d1, kind=kind, eps=eps, delta=max(delta, 1e-6), lower=0, upper=1, size=trials, rng=seed + 1
        )
        r2 = mc.smooth_noise(
            d2, kind=kind, eps=eps, delta=max(delta, 1e-6), lower=0, upper=1, size=trials, rng=seed + 2
        )
        tt = histogram_privacy_test(
            r1["releases"], r2["releases"], eps=eps, delta=delta if kind != "heavy" else 0.0, bins=20
        )
        rows.append(
            {
                "noise": kind,
                "guarantee": r1["guarantee"],
                "β": r1["beta"],
                "S(dataset 1)": r1["S"],
                "S(dataset 2)": r2["S"],
                "noise scale": r1["scale"],
                "mean |error|": float(np.mean(np.abs(r1["releases"] - r1["median"]))),
                "empirical test": "violation" if tt.violation else "no violation found",
            }
        )
    return pd.DataFrame(rows)


def _exponential_table(s: MechanismLab) -> pd.DataFrame:
    """The exponential mechanism and report-noisy-max on the scores: exact and simulated choice shares."""
    eps, trials, seed = s.eps, s.trials, s.seed
    scores = np.asarray(s.scores, dtype=float)
    w = mc.report_noisy_max_sample(scores, eps=eps, size=trials, rng=seed)
    ex_idx = mc.exponential_sample(scores, eps=eps, size=trials, rng=seed + 1)
    return pd.DataFrame(
        {
            "candidate": np.arange(1, scores.size + 1),
            "score": scores,
            "exponential (exact)": mc.exponential_probabilities(scores, eps=eps),
            "exponential (simulated)": np.bincount(ex_idx, minlength=scores.size) / trials,
            "noisy max (exact)": mc.report_noisy_max_probabilities(scores, eps=eps),
            "noisy max (simulated)": np.bincount(w, minlength=scores.size) / trials,
        }
    )


#: Example 11's Monte Carlo, kept by its inputs (its ε grid is fixed: moving ε does not draw it again)
_pareto_mse = memoised(16 * 2**20, name="Pareto sample means")(mc.pareto_mse)


@sc.page_quick
def quick(s: MechanismLab, *, options: RunOptions) -> MechanismLabResult:
    """The exact part of every tab: noise densities and variances, Example 8's composition, the bounded
    Laplace's density, scale and exact privacy profiles (and their checks), the dotplot's quantiles, the
    mixed mechanism's branch, Lemma 28 — everything but the simulated releases."""
    sc.check_budget(s, options.budget)
    eps, delta, sens = s.eps, s.delta, s.sens
    dens, var_rows = _noise_tables(s)
    r8 = mc.example8(n=s.n, m=s.m, Lambda=s.Lambda, eps1=s.eps1, eps2=s.eps2, eps3=s.eps3)
    ex8 = pd.DataFrame(
        {
            "query": ["mean of x₁..x_m", "variance of x₁..x_m", "median of x_{m+1}..x_n"],
            "sensitivity": list(r8.sensitivity.values()),
            "Laplace scale Δ/ε": list(r8.scale.values()),
            "ε": [s.eps1, s.eps2, s.eps3],
        }
    )
    d1, d2 = mc.example12_datasets(n=s.med_n, Lambda=1.0)
    lo_, up_, q = s.bl_lower, s.bl_upper, s.bl_q
    b = mc.bounded_laplace_b(sensitivity=sens, eps=eps, delta=delta, lower=lo_, upper=up_)
    rows = mc.exact_profiles(sensitivity=sens, eps=eps, delta=delta, bounded=(b, lo_, up_))
    checks = mc.calibration_checks(sensitivity=sens, eps=eps, delta=delta, bounded=(b, lo_, up_), profiles=rows)
    v = np.linspace(lo_ - (up_ - lo_) * 0.3, up_ + (up_ - lo_) * 0.3, 800)
    b0 = sens / eps
    bounded = pd.DataFrame(
        {
            "output": v,
            f"bounded Laplace, b = {b:.4g} (analytic)": mc.bounded_laplace_density(v, q=q, b=b, lower=lo_, upper=up_),
            f"plain Laplace, b = Δ/ε = {b0:.4g}": np.exp(-np.abs(v - q) / b0) / (2 * b0),
        }
    )
    return sc.with_meaning(
        sc.partial_result(
            MechanismLabResult,
            s,
            pending=("mech_pareto_mse", "mech_smooth_sensitivity", "mech_exponential", "local", "local_test", "share"),
            mech_noise_densities=pd.DataFrame(dens),
            mech_example8=ex8,
            mech_bounded_laplace=bounded,
            mech_release_quantiles=release_quantiles(s, b_bounded=b),
            mech_privacy_profiles=pd.DataFrame([r.row() for r in rows]),
            profiles=tuple(rows),
            checks=tuple(checks),
            mech_variances=pd.DataFrame(var_rows),
            mnm_threshold=mc.mnm_threshold(eps=eps, delta=delta),
            mnm_branch=mc.mnm_noise(sensitivity=sens, eps=eps, delta=delta),
            mnm_printed_delta=mc.mnm_printed_delta(sensitivity=sens, eps=eps, delta=delta),
            example8=r8,
            local_sensitivity=(mc.local_sensitivity_median(d1), mc.local_sensitivity_median(d2)),
            b=b,
            b0=b0,
            mech_lemma28=mc.lemma28_bound(np.asarray(s.scores, dtype=float), eps=eps, t=np.linspace(0, 5, 11)),
        )
    )


@sc.page_run
def run(s: MechanismLab, *, options: RunOptions) -> MechanismLabResult:
    """Tables: ``mech_noise_densities``, ``mech_example8``, ``mech_bounded_laplace`` (:func:`quick`),
    ``mech_pareto_mse``, ``mech_smooth_sensitivity``, ``mech_exponential`` (simulated)."""
    q = quick(s, options=options)
    eps, delta, trials, seed = s.eps, s.delta, s.trials, s.seed
    pareto = _pareto_mse(
        n=s.n,
        pareto_index=s.pareto_index,
        clip=s.Lambda,
        eps_values=tuple(EPS_GRID[::4]),
        delta=delta,
        trials=min(trials, PARETO_TRIALS_MAX),
        seed=seed,
    )
    # median: local vs smooth sensitivity
    d1, d2 = mc.example12_datasets(n=s.med_n, Lambda=1.0)
    out1 = mc.local_sensitivity_release(d1, eps=eps, size=trials, rng=seed)
    out2 = mc.local_sensitivity_release(d2, eps=eps, size=trials, rng=seed + 1)
    return dataclasses.replace(
        q,
        mech_pareto_mse=pareto,
        mech_smooth_sensitivity=_smooth_table(s, d1, d2),
        mech_exponential=_exponential_table(s),
        local=(out1, out2),
        local_test=histogram_privacy_test(out1, out2, eps=eps, delta=delta, bins=20),
        share=mc.laplace_outside_share(s.bl_q, b=q.b0, lower=s.bl_lower, upper=s.bl_upper, size=trials, rng=seed),
    )


def levels(result: MechanismLabResult) -> list[Level]:
    """The lab's levels, each read from the exact privacy profile of the noise actually drawn
    (table ``mech_privacy_profiles``): pure ε rows (Laplace, exponential mechanism), one row per
    (ε, δ) noise whose profile meets the stated δ — its δ column is P(privacy loss > ε), the
    probability that the posterior bound is exceeded (at least the hockey-stick δ(ε)) — the bounded
    Laplace's worst-case pure level, and Example 8's composed level max(ε1 + ε2, ε3) (sequential on
    the first part, parallel with the disjoint second part). A noise whose exact δ(ε) exceeds the
    stated δ is never listed (its check reports a numerical failure instead)."""
    s = result.scenario
    out = [Level("Laplace / exponential mechanism (ε-DP)", s.eps, delta=0.0)]
    for r in result.profiles:
        if r.mechanism == "Laplace" or not r.exact_delta <= r.stated_delta * (1 + 1e-9):
            continue
        name = f"{r.mechanism}, {r.noise} ((ε, δ)-DP, exact δ(ε) = {r.exact_delta:.3g})"
        out.append(Level(name, s.eps, delta=float(r.tail)))
        if r.mechanism == "bounded Laplace" and np.isfinite(r.max_loss):
            out.append(Level("bounded Laplace, every output (pure worst-case loss)", float(r.max_loss), delta=0.0))
    total = float(result.example8.total)
    return [*out, Level("Example 8: mean, variance and median together (max(ε1 + ε2, ε3))", total, delta=0.0)]


#: the page's question in plain words (page header and reports)
QUESTION = (
    "Which noise should I add, how much, and what do I get for it? Laplace, Gaussian and the mixed "
    "mechanism side by side; how privacy adds up over several queries; why calibrating noise to the "
    "data's *local* sensitivity leaks, and how smooth sensitivity fixes it; how to keep outputs "
    "realistic with bounded noise; and how to privately pick a winner."
)

SCENARIO = MechanismLab
__all__ = ["MechanismLab", "SCENARIO", "PRESETS", "run", "EPS_GRID", "DELTA_GRID"]


def summarize(result: MechanismLabResult) -> tuple[str, ...]:
    """The lab's main numbers in a few plain sentences (page header, report, ``hetdp run``)."""
    s = result.scenario
    kind, scale = result.mnm_branch
    return (
        f"At ε = {s.eps:g}, δ = {s.delta:g}, Δ = {s.sens:g}: Laplace scale {result.b0:.3g}; the mixed mechanism "
        f"takes the **{kind}** branch (scale {scale:.3g}).",
        f"Example 8 (mean, variance, median) composes to ε = {result.example8.total:.3g}.",
        f"Bounded Laplace on [{s.bl_lower:g}, {s.bl_upper:g}] needs scale b = {result.b:.3g}; plain Laplace puts "
        f"{result.share.exact:.1%} of its releases outside the domain (exact).",
    )


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
