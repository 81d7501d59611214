"""Every CSV file the app and the CLI write comes from one function, :func:`csv_text` (Streamlit-free).

A spreadsheet reads a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a
formula (CSV injection, in OWASP's list), and text that other people typed reaches these files: a
student's name in the class export, a plan's release and group names in the ledger's tables (and any
text from outside that a table carries later). So a text cell or column name that begins with one of
those characters is written the way OWASP recommends, quoted with a leading apostrophe —
``=HYPERLINK("http://x","a")`` becomes ``"'=HYPERLINK(""http://x"",""a"")"`` and ``+1+1`` becomes
``"'+1+1"`` — which a spreadsheet shows as text. A text that holds a carriage return is quoted too (the
csv module leaves it bare with ``\\n`` line ends, and a spreadsheet would start a new row, and so a new
cell, after it).

Numbers stay numbers: a numeric column is written as pandas writes it, and so is a text cell that reads
as one number (what ``float()`` reads, in ASCII without spaces: ``-2.5``, ``-1e-05``, ``-inf``, ``nan``) — the
characters pandas writes for that number in a numeric column, which call no function and open no link — and
a number in a column of mixed values (a class's numeric answers among its choices) is written as the number
it is. Everything else is byte for byte what ``DataFrame.to_csv(index=False)`` writes. Only the files are
defended: the pages show names as typed and the JSON outputs keep the original text.
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["csv_text", "FORMULA_START"]

#: the first characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: one number as ``float()`` reads it, in ASCII and without spaces or underscores (-2.5, -1e-05, -inf, nan)
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?|inf(?:inity)?|nan)", re.ASCII | re.I)


def _defence(value) -> str | None:
    """What a cell needs: ``"'"`` (quoted, with a leading apostrophe) for a text a spreadsheet would read as
    a formula — it begins with a :data:`FORMULA_START` character and is not one number; ``""`` (quoted) for
    another text holding a carriage return, which the csv module leaves unquoted with ``\\n`` line ends and
    a spreadsheet takes for a line break (the text after it would begin a cell); None: as pandas writes it."""
    if not isinstance(value, str):
        return None
    if value.startswith(FORMULA_START) and _NUMBER.fullmatch(value) is None:
        return "'"
    return "" if "\r" in value else None


def csv_text(table: pd.DataFrame) -> str:
    """``table`` as CSV text (no index, ``\\n`` line ends), every text cell and column name that a
    spreadsheet would read as a formula written quoted with a leading apostrophe (OWASP's advice for CSV
    injection) and a text holding a carriage return quoted; numbers and every other cell exactly as
    ``table.to_csv(index=False)`` writes them.

    The cells to defend are marked with a character the file does not otherwise hold; pandas writes the
    table (quoting a marked cell only if its text needs it), then each marked cell is quoted, so every
    other byte is pandas' own.
    """
    if isinstance(table.columns, pd.MultiIndex):
        raise TypeError("csv_text writes one row of column names; flatten the table's columns first.")
    plain = table.to_csv(index=False, lineterminator="\n")
    texts = [j for j, dt in enumerate(table.dtypes) if dt.kind not in "biufcmM"]  # not numbers, bools or times
    cells = {j: [_defence(v) for v in table.iloc[:, j].astype(object)] for j in texts}
    cells = {j: d for j, d in cells.items() if any(x is not None for x in d)}
    header = [_defence(c) for c in table.columns]
    if not cells and all(h is None for h in header):
        return plain
    used = set(plain)
    mark = next(chr(c) for c in range(0xE000, 0x110000) if chr(c) not in used)  # a private-use character

    def wrap(value, defence: str | None):
        return value if defence is None else f"{mark}{defence}{value}{mark}"

    out = table.copy()
    out.columns = [wrap(c, h) for c, h in zip(table.columns, header)]
    for j, defences in cells.items():
        values = table.iloc[:, j].astype(object)
        out.isetitem(j, pd.Series([wrap(v, d) for v, d in zip(values, defences)], index=table.index, dtype=object))
    text = out.to_csv(index=False, lineterminator="\n")
    # pandas wrote a marked cell "<mark>…<mark>" if its text needs quotes, else <mark>…<mark>: both become "…"
    between = re.compile(f'"?{re.escape(mark)}(.*?){re.escape(mark)}"?', re.S)
    return between.sub(lambda g: f'"{g.group(1)}"', text)
