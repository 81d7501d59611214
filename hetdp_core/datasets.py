"""Bundled data sets, loaded from the installed package (works from a wheel, from any directory).

The source files live in the repository's ``data/`` folder; ``pyproject.toml`` installs that folder
as the package ``hetdp_core.data`` (see data/README.md for provenance).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["RANDHIE", "data_bytes", "data_path"]

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
