"""Reading candidate lists the way people paste or upload them: one per line, or a CSV with literal,candidate."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from ..errors import InputError

MAX_CSV_BYTES = 1_000_000


def candidates_from_lines(text: str | None) -> list[str]:
    lines = [line.strip() for line in (text or "").splitlines()]
    return [line for line in lines if line]


def groups_from_csv(path: str | Path) -> list[tuple[str, list[str]]]:
    """(literal, candidates) per distinct literal, in file order; the header must name `literal` and `candidate`."""
    path = Path(path)
    if path.stat().st_size > MAX_CSV_BYTES:
        raise InputError(f"The CSV file is larger than {MAX_CSV_BYTES // 1000} kB.")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("The CSV file is not UTF-8 text.") from None
    reader = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in (reader.fieldnames or [])]
    if "literal" not in fields or "candidate" not in fields:
        raise InputError(f"The CSV needs the columns literal,candidate; its header is {','.join(fields) or 'empty'}.")
    reader.fieldnames = fields
    groups: dict[str, list[str]] = {}
    for row in reader:
        literal, candidate = (row.get("literal") or "").strip(), (row.get("candidate") or "").strip()
        if literal and candidate:
            groups.setdefault(literal, []).append(candidate)
    if not groups:
        raise InputError("The CSV has no row with both a literal sentence and a candidate.")
    return list(groups.items())
