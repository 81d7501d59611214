"""Mechanisms and privacy profiles: the noise a release adds and what it costs in (ε, δ).

* :mod:`~hetdp_core.noise.mechanisms` — the course's mechanism catalogue (MAT 4376 lectures 17–20): the
  overview, exact profiles, releases, composition; it re-exports the names of its parts
  :mod:`~hetdp_core.noise.calibration` (Laplace, Gaussian, MNM scales), :mod:`~hetdp_core.noise.median`
  (smooth sensitivity), :mod:`~hetdp_core.noise.bounded_laplace` and :mod:`~hetdp_core.noise.selection`
  (exponential mechanism, report-noisy-max).
* :mod:`~hetdp_core.noise.gdp` — Gaussian noise in closed form (μ-GDP, δ(ε) and its inverses).
* :mod:`~hetdp_core.noise.rr` — randomized response.
* :mod:`~hetdp_core.noise.profiles` — exact privacy profiles and the Laplace privacy loss.
* :mod:`~hetdp_core.noise.dptest` — an empirical privacy-loss test on neighbouring inputs.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
