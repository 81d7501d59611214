"""hetdp_core — the numerical core of hetdp: numerics and scenarios, no Streamlit and no plotly.

* Pages: :mod:`~hetdp_core.registry` (one :class:`~hetdp_core.registry.PageSpec` per page),
  :mod:`~hetdp_core.scenario` (typed scenarios, constraints, ``RunOptions``, results) and one module
  per page in :mod:`hetdp_core.scenarios` (its scenario, ``run``, ``summarize``, presets).
* Mechanisms and guarantees: :mod:`~hetdp_core.bcdp`, :mod:`~hetdp_core.bcdp_exact`,
  :mod:`~hetdp_core.duchi`, :mod:`~hetdp_core.mmean`, :mod:`~hetdp_core.bcdp_sim`,
  :mod:`~hetdp_core.regression`, :mod:`~hetdp_core.hetero`, :mod:`~hetdp_core.zcdp`,
  :mod:`~hetdp_core.dpsgd`, :mod:`~hetdp_core.mechanisms`, :mod:`~hetdp_core.profiles` (exact privacy
  profiles), :mod:`~hetdp_core.checks`, :mod:`~hetdp_core.dptest`.
* Reading a level: :mod:`~hetdp_core.meaning` (posterior bounds), :mod:`~hetdp_core.risk` (attack
  terms), :mod:`~hetdp_core.ledger` (a plan of releases), :mod:`~hetdp_core.solve` (privacy for an
  accuracy), :mod:`~hetdp_core.compare` (plan A vs plan B), :mod:`~hetdp_core.words` (the sentences
  of rankings and verdicts, one formatter per quantity).
* Support: :mod:`~hetdp_core.lessons` (with :mod:`~hetdp_core.lesson_claims`), :mod:`~hetdp_core.datasets`,
  :mod:`~hetdp_core.uploads`, :mod:`~hetdp_core.memo`, :mod:`~hetdp_core.sources`.

The command line (``hetdp``) and the figures live outside the core, in :mod:`hetdp_ui`.
"""

__version__ = "0.1.0"
