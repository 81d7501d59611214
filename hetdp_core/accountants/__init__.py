"""Accounting: what a plan of releases costs each group of people.

* :mod:`~hetdp_core.accountants.pld` — a release's events and the privacy-loss distribution.
* :mod:`~hetdp_core.accountants.accounting` — the four accountants (basic, zCDP, Rényi DP, PLD).
* :mod:`~hetdp_core.accountants.plan` — release plans, read from TOML or typed rows.
* :mod:`~hetdp_core.accountants.ledger` — a plan's totals per group.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
