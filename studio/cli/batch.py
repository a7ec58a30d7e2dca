"""JSONL batch processing shared by the `components` and `polish` commands: one output line per good input
line, each malformed line reported on stderr with its number."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable

from ..errors import InputError, StudioError


def run_jsonl(source: str, out: str, field: str, handle: Callable[[str], dict]) -> dict:
    src = Path(source)
    if not src.is_file():
        raise InputError(f"--batch file not found: {source}")
    dest = Path(out)
    if dest.resolve() == src.resolve():
        raise InputError("--out must differ from --batch")
    ok = failed = 0
    with open(src, encoding="utf-8", errors="replace") as fin, open(dest, "w", encoding="utf-8") as fout:
        for number, line in enumerate(fin, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict) or not isinstance(record.get(field), str):
                    raise InputError(f'expected an object with a text field "{field}"')
                result = handle(record[field])
            except json.JSONDecodeError as exc:
                print(f"line {number}: not valid JSON ({exc.msg})", file=sys.stderr)
                failed += 1
                continue
            except StudioError as exc:
                print(f"line {number}: {exc}", file=sys.stderr)
                failed += 1
                continue
            fout.write(json.dumps(result, ensure_ascii=False) + "\n")
            ok += 1
    return {"batch": str(src), "out": str(dest), "written": ok, "failed": failed}


def single_or_batch(args, text: str | None, field: str, handle: Callable[[str], dict], usage: str) -> dict:
    """The one-text / `--batch in.jsonl --out out.jsonl` dispatch shared by the simile commands."""
    if args.batch:
        if text:
            raise InputError(f"give either a {field} or --batch, not both")
        if not args.out:
            raise InputError("--batch needs --out OUT.jsonl")
        result = run_jsonl(args.batch, args.out, field, handle)
        args.exit_code = 1 if result["failed"] else 0
        return result
    if text is None:
        raise InputError(usage)
    return handle(text)
