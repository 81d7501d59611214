"""Teaching: lessons an instructor writes as TOML, their computed answers, and the class poll.

* :mod:`~hetdp_core.teaching.lessons` — a lesson: a path through the pages.
* :mod:`~hetdp_core.teaching.lesson_keys` — answer keys: the table cell where the core computes an answer.
* :mod:`~hetdp_core.teaching.lesson_claims` — what a step's words claim about the numbers, checked.
* :mod:`~hetdp_core.teaching.lesson_variants` — per-student variants of number questions.
* :mod:`~hetdp_core.teaching.poll` — a private class poll by randomized response.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
