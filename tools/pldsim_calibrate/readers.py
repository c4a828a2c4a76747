"""Reading the files pldsim-calibrate is given: a file's text, the rows of
a CSV file, a cell as a whole number or a time.  What cannot be read is
Refused, in one line naming the file, the line and what was expected."""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass


class Refused(Exception):
    """A bad command line or input file.  cli.main() prints it as one line and
    exits 2, docs/errors.md's status for bad input; every one is raised
    before the first point runs."""


# The largest file read: the data sets are tens of KiB; this keeps
# /dev/zero or a wrong multi-GiB file from filling the memory.
READ_MAX = 64 << 20

# A number in a cell is plain ASCII decimal: float() and int() also take
# "nan", "inf", "1_000" and other scripts' digits, none of which is a
# measurement anyone wrote.
WHOLE = re.compile(r"[0-9]{1,20}")
DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def shown(cell: str) -> str:
    """A cell quoted for a one-line message: a newline, NUL or other
    control character escaped, a long cell cut."""
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in cell[:40])
    return f"'{text}{'...' if len(cell) > 40 else ''}'"


def read_text(path: str, what: str) -> str:
    """The text of a file (a UTF-8 byte order mark dropped), or Refused
    naming it: missing, unreadable, a directory, too large, not UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read(READ_MAX + 1)
    except OSError as e:
        raise Refused(f"{path}: cannot read it: {e.strerror}; expected {what}") from None
    if len(data) > READ_MAX:
        raise Refused(f"{path}: larger than {READ_MAX >> 20} MiB; expected {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise Refused(f"{path}:{line}: byte 0x{data[e.start]:02x} is not UTF-8 text; "
                      f"expected {what}") from None


def text_lines(text: str) -> list[str]:
    """Lines as the csv module and a text editor count them (LF, CRLF or CR
    ends one; str.splitlines() would also end one at a form feed)."""
    return list(io.StringIO(text, newline=""))


@dataclass
class Row:
    """One row of a CSV file: its cells by column, and the line it ends on."""

    path: str
    line: int
    cells: dict[str, str]

    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def whole(self, col: str, lo: int, hi: int, unit: str = "") -> int:
        cell = self.cells[col]
        if WHOLE.fullmatch(cell) and lo <= int(cell) <= hi:
            return int(cell)
        raise Refused(f"{self.where()}: {col} {shown(cell)}: expected a whole number{unit} "
                      f"from {lo} to {hi}")

    def time(self, col: str, what: str = "a time in us") -> float:
        cell = self.cells[col]
        v = float(cell) if DECIMAL.fullmatch(cell) else math.nan
        if math.isfinite(v) and v > 0:
            return v
        raise Refused(f"{self.where()}: {col} {shown(cell)}: expected {what}, a finite "
                      "number above 0")


def csv_cells(path: str, what: str):
    """(line, cells) of each row of a CSV file that is neither blank nor a
    comment (a line starting with #).  Refused, naming the file and line:
    what the csv module cannot read, and what read_text() refuses."""
    # a comment becomes a blank line, which the reader skips, so that the
    # reader's line numbers stay the file's
    lines = ("\n" if line.startswith("#") else line for line in text_lines(read_text(path, what)))
    reader = csv.reader(lines)
    try:
        for cells in reader:
            if cells:
                yield reader.line_num, cells
    except csv.Error as e:
        raise Refused(f"{path}:{reader.line_num}: {e}; expected {what}") from None


def read_csv(path: str, what: str, columns: tuple[str, ...]) -> list[Row]:
    """The rows of a CSV file whose header holds `columns` (among others);
    blank lines and lines starting with # (the record's comments) are
    skipped.  Refused, naming the file and line: an empty file, a header
    and no rows, a column missing or given twice, a row of another width
    than the header, what the csv module cannot read."""
    header: list[str] | None = None
    header_line = 0
    rows = []
    for line, cells in csv_cells(path, what):
        if header is None:
            header, header_line = cells, line
            for col in columns:
                if col not in header:
                    raise Refused(f"{path}:{header_line}: no column '{col}'; expected a "
                                  f"header with {', '.join(columns)} ({what})")
                if header.count(col) > 1:
                    raise Refused(f"{path}:{header_line}: column '{col}' is given twice; "
                                  f"expected it once ({what})")
        elif len(cells) != len(header):
            raise Refused(f"{path}:{line}: {len(cells)} fields; expected "
                          f"{len(header)}, as the header has")
        else:
            rows.append(Row(path, line, dict(zip(header, cells))))
    if header is None:
        raise Refused(f"{path}: empty; expected {what}")
    if not rows:
        raise Refused(f"{path}:{header_line}: a header and no rows; expected {what}")
    return rows
