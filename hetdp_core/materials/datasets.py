"""Bundled data sets, loaded from the installed package (works from a wheel, from any directory).

The source files live in the repository's ``data/`` folder; ``pyproject.toml`` installs that folder
as the package ``hetdp_core.data`` (see data/README.md for provenance).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..framework._doc import document

__all__ = ["RANDHIE", "data_bytes", "data_path", "SOURCES", "SOURCE_SYNONYMS"]

#: where a page's data comes from (identifier → label in plain words): simulated, the bundled RAND
#: HIE extract, or the user's uploaded CSV
SOURCES = {"synthetic": "synthetic", "randhie": "RAND HIE (real)", "upload": "upload"}
#: other spellings accepted in links
SOURCE_SYNONYMS = (("rand-hie", "randhie"),)

RANDHIE = "randhie_persons.csv"


def data_bytes(name: str = RANDHIE) -> bytes:
    """The bytes of a bundled data file."""
    try:
        return resources.files("hetdp_core.data").joinpath(name).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        # running from a source checkout that was not installed: the repository's data/ folder
        return (Path(__file__).resolve().parents[1] / "data" / name).read_bytes()


def data_path(name: str = RANDHIE):
    """A readable path-like object for a bundled data file (``pandas.read_csv`` accepts it)."""
    import io

    return io.BytesIO(data_bytes(name))


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
