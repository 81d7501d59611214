"""Per-group budgets: group-wise zCDP (A. Azize, *Open problem: better privacy guarantees for larger groups*,
2023).

* :mod:`~hetdp_core.per_group.zcdp` — the lab's overview, accuracy, Algorithm 2, the Rényi curves and the claim
  check, group sizes; it re-exports the names of the two parts below.
* :mod:`~hetdp_core.per_group.gaussian` — σ from ρ, the release, Rényi divergences of Gaussians, the ranges.
* :mod:`~hetdp_core.per_group.algorithm1` — Algorithm 1's divergence, numerically (quadrature, memoised).

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
