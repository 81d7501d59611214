"""hetdp_core — the numerical core of hetdp: numerics and scenarios, no Streamlit and no plotly.

* The scenario framework: :mod:`~hetdp_core.registry` (one :class:`~hetdp_core.registry.PageSpec` per
  page), :mod:`~hetdp_core.scenario` (typed scenarios, ``RunOptions``, results),
  :mod:`~hetdp_core.constraints` (the constraint vocabulary), :mod:`~hetdp_core.commands` (the numerics'
  own commands) and one module per page in :mod:`hetdp_core.scenarios` (its scenario, ``run``,
  ``summarize``, presets).
* The papers' numerics: BCDP — :mod:`~hetdp_core.bcdp`, :mod:`~hetdp_core.bcdp_exact`,
  :mod:`~hetdp_core.bcdp_sim`, :mod:`~hetdp_core.duchi`, :mod:`~hetdp_core.mmean`,
  :mod:`~hetdp_core.regression`; heterogeneous per-user DP — :mod:`~hetdp_core.hetero`; group-wise
  zCDP — :mod:`~hetdp_core.zcdp`; DP-SGD — :mod:`~hetdp_core.dpsgd`.
* Mechanisms and privacy profiles: :mod:`~hetdp_core.mechanisms`, :mod:`~hetdp_core.gdp` (Gaussian
  noise in closed form), :mod:`~hetdp_core.rr` (randomized response), :mod:`~hetdp_core.profiles`
  (exact privacy profiles), :mod:`~hetdp_core.checks`, :mod:`~hetdp_core.dptest`.
* Accounting: :mod:`~hetdp_core.pld` (a release's events, the privacy-loss distribution),
  :mod:`~hetdp_core.accounting` (the four accountants), :mod:`~hetdp_core.plan` (release plans),
  :mod:`~hetdp_core.ledger` (a plan's totals per group).
* Reading a level: :mod:`~hetdp_core.meaning` (posterior bounds), :mod:`~hetdp_core.risk` (attack
  terms), :mod:`~hetdp_core.deployments` (real deployments' levels), :mod:`~hetdp_core.solve` (privacy
  for an accuracy), :mod:`~hetdp_core.compare` (plan A vs plan B), :mod:`~hetdp_core.words` (the sentences
  of rankings and verdicts, one formatter per quantity).
* Teaching: :mod:`~hetdp_core.lessons` (with :mod:`~hetdp_core.lesson_claims` and
  :mod:`~hetdp_core.lesson_variants`), :mod:`~hetdp_core.lesson_keys`, :mod:`~hetdp_core.poll`.
* Data and support: :mod:`~hetdp_core.sources`, :mod:`~hetdp_core.datasets`, :mod:`~hetdp_core.uploads`,
  :mod:`~hetdp_core.memo`.

The command line (``hetdp``) and the figures live outside the core, in :mod:`hetdp_ui`.
"""

__version__ = "0.1.0"
