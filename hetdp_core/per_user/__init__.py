"""Per-user privacy levels: heterogeneous DP for means and frequencies (S. Chaudhuri, T. A. Courtade, *Empirical
Mean and Frequency Estimation Under Heterogeneous Privacy: A Worst-Case Analysis*, arXiv:2407.11274).

* :mod:`~hetdp_core.per_user.hetero` — the overview, the releases, the simulation and the data; it re-exports
  the names of the two parts below (``from hetdp_core.per_user.hetero import weights`` works).
* :mod:`~hetdp_core.per_user.objectives` — the demands, effective levels, the seven weight objectives and the
  checks of a set of weights.
* :mod:`~hetdp_core.per_user.solver` — the optimal weights: the fast exact solver, cvxpy's, the baselines'.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
