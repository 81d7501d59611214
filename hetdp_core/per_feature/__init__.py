"""Per-feature privacy levels: Bayesian Coordinate DP (Aliakbarpour, Chaudhuri, Courtade, Fallah, Jordan,
*Enhancing Feature-Specific Data Protection via Bayesian Coordinate Differential Privacy*, arXiv:2410.18404).

* :mod:`~hetdp_core.per_feature.bcdp` — privacy allocation, guarantees and error bounds.
* :mod:`~hetdp_core.per_feature.bcdp_exact` — exact BCDP on finite examples (Examples 1–2, Theorem 1).
* :mod:`~hetdp_core.per_feature.bcdp_sim` — Monte Carlo experiments of the mean estimators.
* :mod:`~hetdp_core.per_feature.mmean` — Mechanism 1 (M_mean), its server and the LDP baseline.
* :mod:`~hetdp_core.per_feature.duchi` — the LDP channel of Duchi, Jordan & Wainwright (Mechanism 3).
* :mod:`~hetdp_core.per_feature.regression` — private least squares (Algorithm 2).

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
