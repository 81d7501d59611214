"""The core's parameter glossary and the numpydoc sections built from it.

One name per concept: each parameter name means one thing across :mod:`hetdp_core`, so its
description is written once, here (``module:name`` or ``module.function:name`` where a module uses
the name for something of its own). :func:`document` adds a numpydoc ``Parameters`` and ``Returns``
section to every public function of a module (its ``__all__``) from this glossary, the function's
signature and its summary; ``help()``, Sphinx and the notebooks show them. A parameter missing from
the glossary is a warning at import that names it and the row to add (the module still imports, so one
missing row never takes its importers down), it is listed in :data:`UNDOCUMENTED`, and
``tests/test_architecture.py`` fails on it and checks every public function's sections.
"""

from __future__ import annotations

import inspect
import re
import textwrap
import warnings

__all__ = ["PARAMETERS", "UNDOCUMENTED", "document"]

#: one row per parameter, ``name | numpydoc type | description`` (an indented line continues the row
#: above); a name ``module:name`` or ``module.function:name`` overrides the plain name there (module
#: paths without ``hetdp_core.``)
_TABLE = """
eps | float or array_like | Privacy level ε (an ε-DP or ε-LDP level; per user or per level where an array is
    accepted).
delta | float | The δ of an (ε, δ) guarantee (probability with which the ε bound may fail).
rng | numpy.random.Generator, int or None | Random stream, or a seed for one (never the global numpy state).
sensitivity | float | Sensitivity Δ of the released statistic.
q | float | Correlation bound q ∈ [0, 1] between features (the BCDP prior's mixing weight).
n | int | Number of users (data points).
trials | int | Number of independent Monte Carlo repetitions.
rho | float | Level ρ of ρ-zCDP.
r | float | Relative error r of the group-wise algorithms.
b | float | Laplace scale b.
name | str | Name of the parameter, used in error messages.
fpr | float | The attack's false-positive rate α (people wrongly flagged).
k | int | Number of bins of the histogram (frequency problem).
scale | {'unbiased', 'paper'} | Duchi channel constant: the unbiased one, or the paper's printed (2×) one.
problem | {'frequency', 'mean'} | The estimation problem: a histogram of k bins, or a mean of values in [0, 1].
alpha | float or array_like | Rényi order(s) α > 1.
algorithm | str | Name of the algorithm.
prior | float | The attacker's prior probability p of the sensitive fact.
size | int | Number of draws (numpy's word).
value | Any | The value to check.
d | int | Number of features (dimension).
lower | float | Lower end l of the data domain.
upper | float | Upper end u of the data domain.
mech | numpy.ndarray | A finite mechanism: array of shape (k_1, …, k_d, |Y|) of output probabilities per input.
beta | float | β of the PAC error: the error is the (1 − β)-quantile.
options | RunOptions or None | How the run is carried out (budget, executor, progress, upload); None: the page's
    defaults.
values | array_like | The sweep points (values of the swept quantity).
c | array_like | Privacy allocation c: the per-coordinate CDP levels.
c_sorted | array_like | Privacy allocation c sorted in non-decreasing order (Mechanism 1's stage order).
radius | float | Radius R of the parameter ball Θ.
counts | array_like | Group counts (non-negative whole numbers).
lo | float or None | Smallest accepted value (None: no lower limit).
hi | float or None | Largest accepted value (None: no upper limit).
what | str | What the parameter is, in words, for error messages.
seed | int | Root seed; each point or method derives its own stream from it.
data | array_like or bytes | The data.
kappa | float | Exponent κ of the privacy schedule a_h = h^κ.
Lambda | float | Clipping level Λ.
level | float | LDP level of the Duchi et al. channel.
v | array_like | Values.
w | array_like | Per-user weights (summing to 1).
target_tpr | float | Target: the most an attack may catch at the false-positive rate (its TPR).
scores | array_like | Score f(q) of each candidate.
projection | {'box', 'ball', 'none'} | Projection of the estimate: clip to [−1, 1]^d, onto the ℓ2 ball, or none.
page | str or module | A page: its URL path (any case) or its scenario module.
target | float | The accuracy target.
steps | int | Number of gradient steps (iterations).
variant | str | Weighting variant (CP, CE, UP, UE, A, CT, UT).
path | str or path-like | Path of the file.
zeta | float or None | Share ζ ∈ (0, 1] of the strictest budget kept for the coordinate itself; None: (1 + q)/2.
a | array_like | Privacy schedule a_h.
axis | str | The swept quantity.
result | Result | A page run's result.
schedule | str | Learning-rate schedule.
gamma0 | float | Initial learning rate γ0.
decay | float | Decay rate λ of the inverse learning-rate schedule.
kind | str | Kind of noise or schedule.
gammas | array_like | Learning rates γ_0 … γ_{N−1}.
thetas | array_like | Noise scales θ_1 … θ_N.
noise | float | Standard deviation of the label noise.
text | str or bytes | TOML text.
plan | Plan | A release plan.
budget | Budget or float or None | The compute budget (None: no limit).
mechanism | {'laplace', 'gaussian', 'mnm'} | The noise added.
sigma | float | Standard deviation σ of the Gaussian noise.
theta | array_like | Regression coefficients θ.
mu | float or array_like | Gaussian level μ = Δ/σ (μ-GDP).
fine | float | Refinement factor of the quadrature grid (1: the default resolution).
lo_open | bool | Whether ``lo`` itself is excluded.
hi_open | bool | Whether ``hi`` itself is excluded.
allow_inf | bool | Whether +∞ is accepted.
shape | tuple | Expected shape (None entries: any size).
tol | float | Tolerance of the iteration.
p0 | array_like | Output distribution under the null hypothesis.
p1 | array_like | Output distribution under the alternative.
limit | int | Largest accepted number of random numbers drawn.
baseline_projection | {'box', 'ball', 'none'} | Projection of the min-δ LDP baseline's estimate.
max_cells | int | Largest number of random numbers a sweep may draw.
progress | callable or None | Called with (fraction done, label) as the work advances.
labels | list of str or None | Names of the levels or entries, in order.
inputs | dict or None | The inputs the check was computed from (shown with a failure).
lam | float | Ridge penalty λ (Example 34).
bins | int | Number of bins.
m | int | Size of the first part of the data (Example 8).
solver | {'fast', 'cvxpy'} | Weight solver: the exact fast one, or cvxpy.
levels_of | callable or None | Reads a linked app view's privacy levels, a list of Level (default: :func:`view_levels`).
link | str | An app view: a full address, ``/Page?query`` or ``Page?query``.
id | str | Identifier of the lesson (its file name without ``.toml``).
key | str | A key naming one value of a run's tables: ``table[column=value].column`` or an aggregate of a column.
bounded | tuple of (float, float, float) or None | The bounded Laplace's (b, lower, upper), to include it.
pareto_index | float | Tail index α of the Pareto data (Example 11).
eps_list | array_like | The levels ε_i of the composed queries.
gamma | float | Tail exponent γ ≥ 2 of the heavy-tailed noise.
per_coordinate | bool | Return the MSE of each coordinate instead of their sum.
A | numpy.ndarray | Symmetric positive semi-definite matrix of the quadratic.
eps_grid | array_like | Grid of ε values of a privacy profile.
delta_grid | array_like | δ(ε) of the profile at each grid value.
extra | Any | Extra values or spec fields.
spec | Spec | What the parameter accepts.
upload | bytes or None | An uploaded CSV (untrusted), for ``source = upload``.
metric | str | Accuracy measure.
curves | RenyiCurves | Rényi divergences of one group in both directions, with the claimed budget.
alpha_max | float | Largest Rényi order checked.
choices | iterable of str | The accepted values.
length | int or None | Required length (None: any).
min_length | int | Smallest accepted length.
max_length | int or None | Largest accepted length (None: no limit).
ldp | float | LDP level of the mechanism.
demanded | array_like | Demanded level δ_i of each coordinate.
guaranteed | array_like | Guaranteed level δ'_i of each coordinate.
ldp_level | float | The LDP level delivered.
max_iter | int | Largest number of iterations.
i | int | Index of the coordinate (0-based).
mech1 | numpy.ndarray | The first finite mechanism.
mech2 | numpy.ndarray | The second finite mechanism, on the same inputs.
kernel | numpy.ndarray | Stochastic matrix K of shape (|Y|, |Z|) applied to the outputs.
copies | int | Number of independent runs of the mechanism (1 or 2).
qs | array_like | Correlation values q.
max_outputs | int | Largest number of outputs enumerated.
cells | int | Random numbers the work would draw.
data_q | float or None | Correlation of the simulated data (default: ``q``).
f | float | Fraction of sensitive features.
demand | float | One demanded level, the paper's δ (e.g. of the sensitive features).
demand_sensitive | float | Demand of the sensitive features (two-group sweeps).
alloc | Allocation | A privacy allocation (Theorem 2).
bound | float or array_like | The bound that provably holds.
rel | float | Relative tolerance.
abs_tol | float | Absolute tolerance.
checks | list of Check | Guarantee checks.
numbers_a | dict | Plan A's key numbers (name → value).
numbers_b | dict | Plan B's key numbers (name → value).
traj | numpy.ndarray | Trajectories, shape (runs, steps + 1, dimension).
points | int | Largest number of steps shown.
step_every | int | Steps between two decays of the step schedule.
factor | float | Decay factor of the step schedule.
custom | array_like or None | Custom learning rates (the last one repeats).
dist0 | float | Initial distance ‖β^(0) − β*‖.
C | float | The bound's constant.
N | array_like | Numbers of iterations.
start_fraction | float | Fraction of the log-range of N left out before the fit.
override | float or None | An explicit sensitivity (at least the example's own); None: the example's own.
slope | float | Slope β1 of the linear model.
intercept | float | Intercept β0 of the linear model.
method | {'dpsgd', 'sgd', 'gd'} | DP-SGD, plain SGD or full-gradient GD.
sample_x | array_like | Outputs of the mechanism on the first input.
sample_y | array_like | Outputs of the mechanism on the neighbouring input.
edges | array_like or None | Histogram bin edges (default: equal-width over both samples).
eps_eff | array_like | Effective level ε_eff,i each user gets.
weights | array_like | Per-user weights.
weights_ | array_like | Per-user weights.
setting | {'correlated', 'uncorrelated'} | Whether the demands depend on the values or are re-permuted every trial.
sm_threshold | {'max_finite', 'max'} | Threshold of the SM baseline: the largest finite demand, or the paper's
    largest demand.
errors | array_like | Errors, one per trial.
profile | {'uniform', 'peaked', 'skewed'} | Shape of the bin frequencies.
eps_by_bin | array_like | Demanded ε per bin (or per value bin).
shares | array_like | Share of users in each group (sums to 1).
lows | array_like | Smallest ε of each group (∞: public).
highs | array_like | Largest ε of each group (∞: public).
column | str or None | Column to read (default: the first numeric one).
max_rows | int | Largest number of data rows read.
records | iterable of mapping | Table rows, one release each.
groups | iterable of str | Group names, including groups no release names yet.
release | Release | A release of the plan.
events | list | The composed releases' privacy events.
rtol | float | Relative tolerance of the solution.
tables | dict | A run's download tables (name → DataFrame).
where | str | Where the key is written, for messages.
lesson | Lesson | A lesson.
runs | dict or None | Results already computed, shared between calls (filled in).
step | Step | One step of a lesson.
highest | float | The highest posterior the attacker can reach.
levels | list of Level | A page's privacy levels (:class:`hetdp_core.reading.meaning.Level`).
profiles | list of dict or None | Exact privacy profiles already computed.
z | array_like | Noise values.
clip | float | Clipping level Λ.
eps_values | array_like | The levels ε to evaluate.
eps1 | float | ε of the mean query (Example 8).
eps2 | float | ε of the variance query (Example 8).
eps3 | float | ε of the median query (Example 8).
t | array_like | Values t ≥ 0 of the tail bound.
obj | Any | The value to measure.
_depth | int | Recursion depth (internal).
est | numpy.ndarray | Estimates, shape (…, d).
mode | {'box', 'ball', 'none'} | Projection.
exact_delta | float | The exact δ(ε) of the noise drawn.
stated_delta | float | The δ stated to the user.
module | module | A scenario module (see :class:`ScenarioPage`).
copy1 | numpy.ndarray | Each user's first privatised copy, shape (n, d).
copy2 | numpy.ndarray or None | The second independent copy (None: the naive single-copy plug-in).
rates | array_like | Step sizes, relative to the smoothness.
theta0 | array_like or None | Starting point (default: 0).
k_sensitive | int | Number of sensitive features (at ``demand``).
descent | Any | Projected gradient descent settings passed on to :func:`fit` (radius, schedule, gamma0, steps, rho,
    decay).
tpr | float | True-positive rate of the attack.
default | Any | The field's default value.
constraint | Constraint | What the field accepts.
label | str | The field's name in plain words.
per_decade | int | Grid points per decade.
scenario | Scenario | A page's scenario.
cost | Cost or None | A cost estimated otherwise (default: ``scenario.estimate()``).
run | callable | The page's run function.
memo.memoised:max_bytes | int | Bytes the memo may hold (by :func:`size_of`), least recently used out first.
memo.memoised:name | str | The memo's name (in its messages).
memo.memoised:key | callable or None | ``key(*args, **kw)``: what the value depends on (default: every argument).
memo.content_key:value | Any | A function's argument.
quick | callable | The page's quick part: ``quick(scenario, *, options)`` returning a partial result.
scenario.partial_result:cls | type | The page's result class (a :class:`Result` subclass).
scenario.partial_result:known | Any | The fields the quick part computed, by name.
scenario.partial_result:pending | tuple of str | The fields the page's run computes (left :data:`PENDING`).
meaning | Meaning or None | What a view's levels mean for a person (default: the result's ``meaning``).
priv | str or None | Privacy schedule kind (default: the scenario's).
statistic | {'median', 'mean'} | Statistic of the simulated errors compared with the target.
check_trials | int | Releases simulated afresh to check the answer.
epsilon | float | A privacy level ε (``inf``: no protection).
names | sequence of str | Names of the levels (features, groups, …).
epsilons | array_like | Privacy levels ε, one per name in ``names``.
placements | sequence of Placement | Levels placed among real deployments (:func:`place`).
who | str | What the level protects, as the sentence names it (e.g. "the sensitive feature").
releases | int | Simulated releases per evaluated level.
limits | CsvLimits | The limits the CSV must respect.
mu1 | float | Mean of the first Gaussian.
s1 | float | Standard deviation of the first Gaussian.
mu2 | float | Mean of the second Gaussian.
s2 | float | Standard deviation of the second Gaussian.
y | array_like | Output values.
neighbours | tuple of float | Neighbouring counts whose densities are evaluated on the same grid.
xn | float | The neighbouring count.
samples | int | Number of Monte Carlo samples.
total | int | Total number of people.
sizes | array_like | Group sizes.
alphas | array_like | Rényi orders α.
df | DataFrame | A (size, alpha, loss[, error]) table.
rel_tol | float | Relative tolerance of a rise.
x | array_like | The data.
s | Scenario | The page's scenario.
_validate:values | array_like | The values to check.
_validate:value | Any | The value to check.
_validate:name | str | Name of the parameter, used in error messages.
demands | array_like | Demanded level of each coordinate, the paper's δ_i (∞: no extra demand).
bcdp:eps | float | Global LDP level ε of the whole record.
bcdp:q | float or array_like | Correlation bound q (one, or one per coordinate).
bcdp:n | int | Number of users.
bcdp:k | int | Number of sensitive features.
bcdp:d | int | Number of features.
bcdp_exact:prior | numpy.ndarray | A finite prior over the inputs: array of shape (k_1, …, k_d).
bcdp_exact:c | array_like or float | Randomized-response levels per coordinate.
bcdp_exact:q | float | Correlation q of the prior.
bcdp_exact:a | float | P(M = 1 given x = (0, 0)) (Example 1).
bcdp_exact:b | float | P(M = 1 given x = (1, 0)) (Example 1).
bcdp_exact:d | int | Number of binary coordinates.
bcdp_sim:x | numpy.ndarray or None | Users' data, shape (n, d) in [−1, 1]; None: drawn from the q-mixture prior.
bcdp_sim:eps | float | Global LDP level ε.
bcdp_sim:k | int | Number of sensitive features.
bcdp_sim:q | float or None | Correlation bound q.
bcdp_sim:value | float | The sweep point's value.
checks:name | str | What is checked, in words.
checks:value | float or array_like | The number(s) shown as a guarantee.
checks:labels | list of str or None | Names of the entries.
compare:page | module | The page's scenario module.
datasets:name | str | File name in the bundled data.
dpsgd:data | numpy.ndarray | The example's data.
dpsgd:target | array_like | The minimiser β* the runs approach.
dpsgd:methods | list of MethodRuns | The methods simulated together: kind, noise scales θ_h, runs, generator.
dpsgd:schedule | {'constant', 'poly', 'step', 'custom', 'inverse'} | Learning-rate schedule.
dpsgd:kind | {'constant', 'power'} | Privacy schedule: a_h = 1, or a_h = h^κ.
dpsgd:problem | {'mean', 'ridge'} | Example 33 (clipped mean) or Example 34 (ridge regression).
dpsgd:eps | float | Base level ε: release h is (ε·a_h)-DP.
dpsgd:n | int | Number of data points.
dpsgd:rho | float or array_like | Learning-rate decay exponent ρ.
dpsgd:kappa | float or array_like | Privacy decay exponent κ.
dpsgd:values | array_like | Values to fit, one per N.
dpsgd:noise | float | Standard deviation of the noise of Example 34.
dpsgd:radius | float | Radius R of the parameter domain (ridge).
dptest:eps | float | The ε tested.
dptest:delta | float | The δ tested.
dptest:alpha | float | Significance level of the confidence intervals.
duchi:v | array_like | Vectors to privatise, shape (n, m), each of ℓ2 norm ≤ r.
duchi:r | float | Radius r of the input ball.
duchi:m | int | Dimension of the vectors.
duchi:k | int | Number of child generators.
duchi:rng | numpy.random.Generator | The parent random stream.
hetero:demands | array_like | Every user's demanded level ε_i (∞: public, no demand).
hetero:x | array_like | Every user's value: a bin in 0..k−1 (frequency) or a number in [0, 1] (mean).
hetero:algorithm | str | Algorithm: a weighting variant, UNI, PROP, SM or LDP.
hetero:kappa | float | Sensitivity constant κ of the problem (2 for frequencies, 1 for means).
hetero:b | float | Laplace noise scale b.
hetero:v | array_like | Rows to project onto the simplex.
hetero:data | bytes | The uploaded CSV (untrusted).
hetero:n | int | Number of users.
hetero:path | str or path-like | Path of the RAND HIE person file.
ledger:delta | float | The δ at which the totals are reported.
accounting:accountant | {'basic', 'zcdp', 'rdp', 'pld'} | The accountant that composes the events.
accounting:events | tuple of Event | What each release spends on one group, with its repeats.
accounting:delta | float | The δ at which ε is read.
ledger:budget | float or None | A budget ε per group, to mark groups over it.
plan:text | str or bytes | TOML text of the plan.
lessons:text | str or bytes | TOML text of the lesson.
lessons:path | str or path-like | Path of the lesson file.
lessons:budget | Budget or None | Compute budget of each run (default: the page's).
meaning:eps | float or array_like | Privacy level(s) ε.
meaning:labels | mapping | Field name → its display label, in the order of the columns.
meaning:row | dataclass | A typed row (its fields are read by name).
meaning:max_levels | int | Largest number of levels drawn (the first ones).
meaning:delta | float or None | δ of (ε, δ) levels (None or 0: pure ε).
mechanisms:x | array_like | The data (a sample of values).
mechanisms:q | float or array_like | The true value q (centre of the noise).
mechanisms:value | float | The true value released.
mechanisms:n | int | Number of data points.
mechanisms:v | array_like | Output values.
mechanisms:kind | {'laplace', 'heavy', 'gaussian'} | Noise of the smooth-sensitivity release.
mechanisms:beta | float | Smoothness β of the smooth sensitivity.
mechanisms:seed | int | Root seed of the simulation.
memo:obj | Any | The value to measure.
memo:store | SharedStore or None | The store to install (None removes it).
mmean:x | numpy.ndarray | Users' data, shape (n, d) in [−1, 1], coordinates in stage order.
mmean:level | float | LDP level of the baseline's single stage (min δ).
mmean:radius | float or None | Radius of the ball (default: √d).
profiles:name | str | What the profile is of, in words.
profiles:inputs | dict or None | The inputs, shown with a failure.
profiles:b | float | Laplace scale b.
profiles:loss | array_like | Values ℓ of the privacy loss.
profiles:eps0 | float | The loss bound ε₀ = Δ/b of the Laplace noise (+∞: no protection).
registry:page | str | A page's URL path (any case, ``-`` for ``_``, or a URL).
regression:x | array_like | Data, shape (n, d): features then the label last, in [−1, 1].
regression:b | numpy.ndarray | Linear term b of the quadratic.
regression:demands | array_like | Demanded level of each coordinate, the label last.
regression:theta | array_like | Regression coefficients θ (the true ones for simulated data).
regression:data | bytes | The uploaded CSV (untrusted).
regression:path | str or path-like | Path of the RAND HIE person file.
regression:schedule | {'constant', 'poly', 'inverse'} | Learning-rate schedule.
regression:values | array_like | Values of n or ε to sweep.
regression:axis | {'n', 'eps'} | Sweep the number of users or the privacy level.
regression:q | float | Correlation bound q between features.
risk:alpha | array_like | False-positive rates α ∈ [0, 1] at which the curve is evaluated.
risk:eps | float or array_like | Privacy level(s) ε.
risk:delta | float or array_like | The δ of each (ε, δ) level.
risk:kind | {'eps', 'zcdp'} | What the setting is: an ε-DP level, or the ρ of ρ-zCDP Gaussian noise.
risk:page | module | The page's scenario module.
constraints:name | str | The parameter's name (in messages).
constraints:value | Any | URL text or a Python value.
constraints:text | str | A comma-separated list.
constraints:rules | tuple of Rule | A scenario's rules between fields (its ``RULES``), repaired in order.
constraints:values | Mapping | Field name → value (a page's widget values).
scenario:lo | float | Smallest grid value.
scenario:hi | float | Largest grid value.
scenario:budget | Budget or None | The request's compute budget (None: no limit).
scenario:prior | float or None | The attacker's prior (default: the scenario's).
scenario:what | str | What a download table holds, in a few words.
scenario:optional | bool | Whether some views do not have the table (its value is then None).
solve:s | Scenario | The page's scenario.
solve:metric | str | Accuracy measure of one release: ``mse`` or ``q95``.
uploads:data | bytes | The uploaded CSV (untrusted).
zcdp:x | float | The group's count.
zcdp:algorithm | {1, 2} | Algorithm 1 (Gaussian then relative rounding) or Algorithm 2.
zcdp:alpha | float or array_like | Rényi order(s) α > 1.
zcdp:s | float | Zipf exponent s.
zcdp:k | int | Number of groups.
zcdp:y | array_like | Output values.
zcdp:sigma | float | Standard deviation σ of the Gaussian step.
regression:rho | float | Decay exponent ρ of the ``poly`` learning-rate schedule.
bcdp_sim.sweep:kwargs | Any | The arguments of :func:`sweep_points`.
constraints.param:extra | Any | Other fields of the :class:`Spec`, e.g. other accepted spellings ``synonyms``.
scenario.log_grid:extra | iterable of float | Values added to the grid.
bcdp_exact.example1:c | float | P(M = 1 given x = (1, 1)) (Example 1).
uploads:what | str | What the file is, in words, for error messages.
uploads:usecols | list of int or None | Positions of the columns to read (None: all).
uploads:too_many | str | Advice added to the error when the file has more than ``max_rows`` rows.
mechanisms.pareto_mse:n | int | Number of data points.
registry.register:module | module | The page's scenario module (it must satisfy :class:`ScenarioPage`).
registry.hook:name | str | One of the declared optional parts of a page module (:data:`HOOKS`).
poll:eps | float | Privacy level ε of the randomized response (each report is ε-local-DP).
poll:truth | array_like of bool | The true yes/no answers (never stored: only their randomized reports are).
poll:yes | int | Number of reports that said yes.
poll:n | int | Number of reports.
poll:z | float | Normal quantile of the interval (1.96 for 95 %).
rr:share | float or array_like | Share ȳ of the reports that said yes (or the probability λ that a report does).
rr:n | int | Number of reports.
"""


def _rows(table: str):
    row = ""
    for line in table.strip().splitlines():
        if line.startswith("    "):
            row += " " + line.strip()
            continue
        if row:
            yield row
        row = line
    yield row


#: parameter name → (numpydoc type, description), read from the table above
PARAMETERS: dict[str, tuple[str, str]] = {
    key: (kind, text) for key, kind, text in (row.split(" | ", 2) for row in _rows(_TABLE))
}

_TYPES = {
    "np.ndarray": "numpy.ndarray",
    "pd.DataFrame": "pandas.DataFrame",
    "np.random.Generator": "numpy.random.Generator",
}
_WIDTH = 96


def _type(annotation) -> str | None:
    if annotation is inspect.Signature.empty:
        return None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    for a, b in _TYPES.items():
        text = text.replace(a, b)
    return text.replace("sc.", "").replace(" | None", " or None").replace(" | ", " or ")


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, width=_WIDTH, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)


def _first_sentence(doc: str) -> str:
    text = " ".join(doc.strip().split("\n\n")[0].split())
    m = re.search(r"(?<!e\.g)(?<!i\.e)(?<!cf)\.(\s|$)", text)
    return text[: m.start() + 1] if m else text


#: the parameters :func:`document` found missing from the glossary: (module, function, parameter)
UNDOCUMENTED: list[tuple[str, str, str]] = []


def missing_row_message(module: str, function: str, name: str) -> str:
    """What to do about a parameter missing from the glossary, in one sentence."""
    return (
        f"parameter {name!r} of {function} (module {module!r} of hetdp_core) is not in the core's parameter "
        f"glossary: add a row "
        f"'{name} | <numpydoc type> | <what it is>' to the module's GLOSSARY (a page's core module) or to the table "
        f"in hetdp_core/framework/_doc.py (as '{module}:{name}' if the name means something of its own there)"
    )


def _describe(module: str, function: str, name: str) -> tuple[str, str]:
    for key in (f"{module}.{function}:{name}", f"{module}:{name}", name):
        if key in PARAMETERS:
            return PARAMETERS[key]
    if (module, function, name) not in UNDOCUMENTED:
        UNDOCUMENTED.append((module, function, name))
        warnings.warn(missing_row_message(module, function, name), stacklevel=4)
    return "Any", "(not described yet: missing from the glossary)"


def _sections(fn, module: str) -> str:
    """The numpydoc ``Parameters`` and ``Returns`` sections of ``fn`` (a function of ``module``)."""
    sig = inspect.signature(fn)
    lines = []
    if sig.parameters:
        lines += ["Parameters", "----------"]
        for p in sig.parameters.values():
            kind, text = _describe(module, fn.__name__, p.name)
            kind = _type(p.annotation) or kind
            label = f"**{p.name}" if p.kind is p.VAR_KEYWORD else p.name
            if p.kind is not p.VAR_KEYWORD and p.default is not p.empty:
                if p.default is None:
                    kind = kind if "None" in kind else f"{kind} or None"
                elif len(repr(p.default)) < 30:
                    kind = f"{kind}, default {p.default!r}"
            lines += [f"{label} : {kind}", *_wrap(text)]
    returns = _type(sig.return_annotation)
    if returns != "None":
        lines += ["", "Returns", "-------", returns or "Any", *_wrap(_first_sentence(inspect.getdoc(fn) or ""))]
    return "\n".join(lines)


#: module → the key of its rows in the glossary (``<key>:<name>``), recorded by :func:`document`
KEYS: dict[str, str] = {}


def glossary_key(module: str, key: str | None = None) -> str:
    """The key of ``module``'s rows in the glossary: its name in its room (``hetdp_core.reading.meaning`` →
    ``meaning``), a page's core module its path below the core (``scenarios.<slug>``), or ``key``
    (the ``GLOSSARY_KEY`` of a part of one source's numerics, which shares that source's rows)."""
    if key:
        return key
    parts = module.split(".")[1:]
    return ".".join(parts[1:] if len(parts) > 1 and parts[0] != "scenarios" else parts)


def document(namespace: dict) -> None:
    """Add the numpydoc sections to every public function of a module (``document(globals())`` at
    the module's end); a function whose docstring already has them is left as it is.

    Parameters
    ----------
    namespace : dict
        The module's globals: its ``__name__``, ``__all__``, functions and optionally ``GLOSSARY``, rows
        of the table above for names that mean something of its own there, and ``GLOSSARY_KEY``, the key
        of its rows when it is one part of a source's numerics (see :func:`glossary_key`).

    Warns
    -----
    UserWarning
        A parameter of a public function is not in the glossary (named, with the row to add; also kept in
        :data:`UNDOCUMENTED`).
    """
    module = glossary_key(namespace["__name__"], namespace.get("GLOSSARY_KEY"))
    KEYS[namespace["__name__"]] = module
    own = namespace.get("GLOSSARY")  # a module's own rows (a page's core module keeps its own)
    if own:
        PARAMETERS.update({f"{module}:{k}": (kind, text) for k, kind, text in (r.split(" | ", 2) for r in _rows(own))})
    for name in namespace.get("__all__", ()):
        fn = namespace.get(name)
        if not inspect.isfunction(fn) or fn.__module__ != namespace["__name__"]:
            continue
        inner = inspect.unwrap(fn)
        doc = inspect.cleandoc(inner.__doc__ or "")
        if "\nParameters\n----------\n" in doc:
            continue
        full = f"{doc}\n\n{_sections(inner, module)}"
        for f in {fn, inner}:
            f.__doc__ = full
