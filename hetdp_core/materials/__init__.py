"""Materials: the works the pages cite, the bundled data sets, and the limits on uploaded files.

* :mod:`~hetdp_core.materials.sources` — the works cited (authors, title, venue, arXiv id).
* :mod:`~hetdp_core.materials.datasets` — bundled data sets, loaded from the installed package.
* :mod:`~hetdp_core.materials.uploads` — limits for uploaded CSV files, checked before any parser reads them.

This package's ``__init__`` imports nothing: importing one module loads only what that module needs.
"""
