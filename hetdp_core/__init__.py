"""hetdp_core — the numerical core of hetdp: numerics and scenarios, no Streamlit and no plotly.

The core is in rooms, one subpackage per concern (each package's docstring maps its modules):

* :mod:`hetdp_core.framework` — the scenario framework: the registry, scenarios, the constraint vocabulary,
  guarantee checks, the numerics' commands, the memo, validation and the parameter glossary.
* :mod:`hetdp_core.scenarios` — one module per page: its scenario, ``run``, ``summarize``, presets.
* The papers' numerics, one room each: :mod:`hetdp_core.per_feature` (Bayesian Coordinate DP),
  :mod:`hetdp_core.per_user` (heterogeneous per-user DP), :mod:`hetdp_core.per_group` (group-wise zCDP),
  :mod:`hetdp_core.per_iteration` (DP-SGD schedules).
* :mod:`hetdp_core.noise` — mechanisms and privacy profiles (the course's mechanisms, Gaussian DP,
  randomized response, exact profiles, an empirical test).
* :mod:`hetdp_core.accountants` — accounting: privacy-loss distributions, the four accountants, release plans,
  the ledger.
* :mod:`hetdp_core.reading` — reading a level: what it means for a person, attack terms, real deployments,
  solvers, plan A vs plan B, the words of rankings and verdicts.
* :mod:`hetdp_core.teaching` — lessons, answer keys, lesson claims and variants, the class poll.
* :mod:`hetdp_core.materials` — the works cited, bundled data sets, upload limits.

The command line (``hetdp``) and the figures live outside the core, in :mod:`hetdp_ui`. The core's old flat
module paths (``import hetdp_core.<module>``, ``from hetdp_core import <module>``) still import, with a
DeprecationWarning naming the new one (:mod:`hetdp_core._deprecated`).
"""

from hetdp_core import _deprecated

__version__ = "0.1.0"

_deprecated.install()
