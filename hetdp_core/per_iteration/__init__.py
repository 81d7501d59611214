"""Per-iteration schedules: DP-SGD with learning-rate and privacy schedules (MAT 4376, Theorems 36–37).

* :mod:`~hetdp_core.per_iteration.dpsgd` — the schedules, the runs and their error bounds.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
