"""The scenario framework: what a page's question is, how it is validated, run, cached and documented.

* :mod:`~hetdp_core.framework.registry` — one :class:`~hetdp_core.framework.registry.PageSpec` per page; the
  page modules are found in :mod:`hetdp_core.scenarios`, no list is kept.
* :mod:`~hetdp_core.framework.scenario` — typed scenarios (the URL query string is their serialization),
  ``RunOptions``, results and their tables.
* :mod:`~hetdp_core.framework.constraints` — the constraint vocabulary a scenario's fields are declared with.
* :mod:`~hetdp_core.framework.checks` — every number shown as a guarantee checked against a provable bound.
* :mod:`~hetdp_core.framework.commands` — the numerics' own ``hetdp`` commands.
* :mod:`~hetdp_core.framework.memo` — the one bounded memo behind every cache.
* ``_validate`` (InputError and the low-level checks) and ``_doc`` (the parameter glossary and the numpydoc
  sections built from it).

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
