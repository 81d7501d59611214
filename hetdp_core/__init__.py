"""hetdp_core — the numerical core of hetdp (no Streamlit here).

Modules:
* :mod:`hetdp_core.bcdp` — BCDP privacy allocation, guarantees (Props 3, 4, 6), bounds.
* :mod:`hetdp_core.duchi` — the Duchi et al. LDP channel (Mechanism 3), vectorised.
* :mod:`hetdp_core.mmean` — Mechanism 1 (M_mean), server, baseline, exact MSE.
* :mod:`hetdp_core.bcdp_sim` — Monte Carlo runners, presets, data generator.
* :mod:`hetdp_core.cli` — the ``hetdp`` command line.
"""

__version__ = "0.1.0"
