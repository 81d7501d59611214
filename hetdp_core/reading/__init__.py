"""Reading a level: what a privacy level means for a person, and the words that state it.

* :mod:`~hetdp_core.reading.meaning` — an attacker's worst-case belief (posterior bounds).
* :mod:`~hetdp_core.reading.risk` — risk in attack terms (hypothesis tests on one person).
* :mod:`~hetdp_core.reading.deployments` — real deployments' levels, to place a view's levels among them.
* :mod:`~hetdp_core.reading.solve` — what privacy an accuracy needs (solvers for three pages).
* :mod:`~hetdp_core.reading.intervals` — the solvers' confidence intervals of a simulated statistic.
* :mod:`~hetdp_core.reading.compare` — plan A vs plan B: two scenarios' key numbers side by side.
* :mod:`~hetdp_core.reading.words` — the sentences of rankings and verdicts, one formatter per quantity.
* ``_rounding`` — numbers rounded on the safe side.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
