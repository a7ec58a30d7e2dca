"""Reading candidate lists the way people paste or upload them: one per line, or a CSV with literal,candidate."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from ..errors import InputError
from ..textspans import shorten
from .scorer import MAX_CANDIDATES, check_group

MAX_CSV_BYTES = 1_000_000
MAX_CSV_ROWS = 5_000


def candidates_from_lines(text: str | None) -> list[str]:
    lines = [line.strip() for line in (text or "").splitlines()]
    return [line for line in lines if line]


def groups_from_csv(path: str | Path) -> list[tuple[str, list[str]]]:
    """(literal, candidates) per distinct literal, in file order; the header must name `literal` and `candidate`."""
    path = Path(path)
    size = path.stat().st_size
    if size == 0:
        raise InputError("The CSV file is empty.")
    if size > MAX_CSV_BYTES:
        raise InputError(f"The CSV file is larger than {MAX_CSV_BYTES // 1000} kB.")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("The CSV file is not UTF-8 text.") from None
    if "\x00" in text:  # valid UTF-8 can still be a binary file; csv would fail on the NULs anyway
        raise InputError("The CSV file holds binary data (NUL bytes), not text.")
    try:
        return _groups(csv.DictReader(io.StringIO(text), delimiter=_delimiter(text), skipinitialspace=True))
    except csv.Error as exc:  # e.g. a field over csv.field_size_limit()
        raise InputError(f"The CSV file is malformed: {exc}.") from None


def _delimiter(text: str) -> str:
    """The separator whose header names both columns: a comma, or the semicolon or tab of a spreadsheet's export in
    many locales ("literal;candidate"); a comma when none does (the header's message then says what is missing)."""
    header = text.split("\n", 1)[0]
    for sep in (",", ";", "\t"):
        names = next(csv.reader([header], delimiter=sep, skipinitialspace=True), [])
        if {"literal", "candidate"} <= {n.strip().lower() for n in names}:
            return sep
    return ","


def _groups(reader: csv.DictReader) -> list[tuple[str, list[str]]]:
    fields = [(f or "").strip().lower() for f in (reader.fieldnames or [])]
    if "literal" not in fields or "candidate" not in fields:
        raise InputError(f"The CSV needs the columns literal and candidate (separated by commas, semicolons or tabs); "
                         f"its header is {','.join(fields) or 'empty'}.")
    reader.fieldnames = fields
    groups: dict[str, list[str]] = {}
    lines: dict[str, list[int]] = {}  # where each candidate's row starts in the file, for a message that finds it
    start = reader.line_num + 1
    for number, row in enumerate(reader, start=1):
        if number > MAX_CSV_ROWS:
            raise InputError(f"The CSV has more than {MAX_CSV_ROWS:,} rows; split it or use "
                             "`python -m studio score --batch`.")
        literal, candidate = _cell(row.get("literal")), _cell(row.get("candidate"))
        if literal and candidate:
            groups.setdefault(literal, []).append(candidate)
            lines.setdefault(literal, []).append(start)
        start = reader.line_num + 1
    if not groups:
        raise InputError("The CSV has no row with both a literal sentence and a candidate.")
    for literal, candidates in groups.items():
        if len(candidates) > MAX_CANDIDATES:
            raise InputError(f"The literal sentence “{shorten(literal, 60)}” has {len(candidates)} candidates in the "
                             f"CSV; the limit is {MAX_CANDIDATES} per literal sentence. Nothing was scored.")
        try:
            check_group(literal, candidates, [f"candidate on line {n} of the CSV" for n in lines[literal]])
        except InputError as exc:
            raise InputError(f"{exc} Nothing was scored.") from None
    return list(groups.items())


def _cell(value) -> str:
    # a row with more cells than the header puts the extras in a list under the None key, never here
    return value.strip() if isinstance(value, str) else ""
