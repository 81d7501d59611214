"""Limits for uploaded CSV files (untrusted input), checked from the raw bytes — size, the header
line and the line count — *before* any parser reads the body, so a hostile file (10⁶ columns, binary
junk, a single giant line) costs milliseconds, not minutes and gigabytes."""

from __future__ import annotations

from dataclasses import dataclass

from ..framework._doc import document
from ..framework._validate import InputError

__all__ = ["CsvLimits", "check_csv_bytes", "read_csv", "REGRESSION_LIMITS", "PER_USER_LIMITS", "MAX_UPLOAD_MB", "MB"]

#: the upload limit, in one unit: Streamlit's megabyte (2²⁰ bytes), which its file uploader
#: (``max_upload_size``) and ``server.maxUploadSize`` in .streamlit/config.toml count in (a test checks
#: the config file against this constant)
MAX_UPLOAD_MB = 20
MB = 2**20


@dataclass(frozen=True)
class CsvLimits:
    max_bytes: int = MAX_UPLOAD_MB * MB
    max_rows: int = 1_000_000
    max_cols: int = 21
    max_cells: int = 20_000_000
    max_header_chars: int = 100_000


REGRESSION_LIMITS = CsvLimits(max_cols=21)
PER_USER_LIMITS = CsvLimits(max_cols=1000)


def check_csv_bytes(data, limits: CsvLimits, *, what: str = "the CSV") -> tuple[int, int]:
    """(data rows, columns) of a CSV, from its bytes, or InputError naming the limit it breaks."""
    if not isinstance(data, bytes | bytearray):
        raise InputError(f"{what} must be the file's bytes; got {type(data).__name__}.")
    if len(data) > limits.max_bytes:
        raise InputError(
            f"{what} is {len(data) / MB:.1f} MB, over the {limits.max_bytes / MB:.0f} MB upload "
            "limit. Upload a smaller file (a sample of the rows)."
        )
    if not data.strip():
        raise InputError(f"{what} is empty. Upload a file with a header row and numbers below it.")
    if b"\n" not in data and b"\r" in data:  # classic Mac line ends (CR only): count them as lines
        data = bytes(data).replace(b"\r", b"\n")
    if b"\x00" in data[:65536]:
        raise InputError(f"{what} is not a text CSV (it contains binary data). Upload comma-separated numbers.")
    end = data.find(b"\n", 0, limits.max_header_chars + 1)
    if end < 0 and len(data) > limits.max_header_chars:
        raise InputError(
            f"{what}: the header line is longer than {limits.max_header_chars:,} characters. "
            "Upload a CSV with fewer columns."
        )
    header = bytes(data[: end if end >= 0 else len(data)])
    try:
        header.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{what}: the header line is not UTF-8 text. Save the file as a UTF-8 CSV.") from None
    cols = header.count(b",") + 1
    if cols > limits.max_cols:
        raise InputError(
            f"{what} has {cols:,} columns; at most {limits.max_cols:,} are accepted. Keep the columns you need."
        )
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    rows = max(lines - 1, 0)
    if rows > limits.max_rows:
        raise InputError(f"{what} has {rows:,} data rows; at most {limits.max_rows:,} are accepted. Use a sample.")
    if rows * cols > limits.max_cells:
        raise InputError(
            f"{what} has {rows:,} × {cols:,} = {rows * cols:,} cells; at most {limits.max_cells:,} are "
            "accepted. Use fewer rows or columns."
        )
    return rows, cols


def read_csv(data, *, max_rows: int, usecols: list[int] | None = None, too_many: str = ""):
    """The CSV's table (pandas), after :func:`check_csv_bytes`: at most ``max_rows`` rows are read (more
    is an :class:`InputError`, with ``too_many`` as its advice), ``usecols`` the column positions to keep;
    a file the parser cannot read is an :class:`InputError`, never a parser's traceback."""
    import io

    import pandas as pd

    try:
        df = pd.read_csv(io.BytesIO(bytes(data)), nrows=max_rows + 1, usecols=usecols)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(
            f"the file is not a readable CSV ({type(exc).__name__}). Upload comma-separated numbers with a header row."
        ) from None
    if len(df) > max_rows:
        raise InputError(f"the CSV has more than {max_rows:,} rows.{' ' + too_many if too_many else ''}")
    return df


document(globals())  # numpydoc sections from the core's parameter glossary (hetdp_core.framework._doc)
