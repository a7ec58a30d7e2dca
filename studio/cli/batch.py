"""JSONL batches, the one way every `--batch IN.jsonl --out OUT.jsonl` command reads and writes them.

- The paths are checked before any work: the input exists and is no folder (a pipe, `/dev/stdin`, is fine), the
  output is no folder, not the input, and opens for writing (a run of minutes once ended in a traceback because the
  folder of --out was a file); a missing folder is made.
- Each line is read on its own: a blank line is skipped; a line that is not UTF-8 text, not JSON or not what the
  command takes is said on stderr as "line N: …", counted, and the others go on (a Latin-1 "café" was read as
  "caf\ufffd" and written without a word).
- Each result carries the "line" number of the input it answers and is written as soon as it is made (to stdout
  without --out), so that a long run that stops keeps the lines it finished; a device or a link given as --out is
  written through, not replaced.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterator

from ..errors import InputError, StudioError
from ..wording import counted


def source_path(source: str) -> Path:
    src = Path(source)
    if not src.exists():
        raise InputError(f"--batch file not found: {source}")
    if src.is_dir():
        raise InputError(f"--batch must be a file, and {source} is a folder")
    return src


def out_path(out: str, source: Path) -> Path:
    """`out` checked before any work: not a folder, not the input, and under a folder that exists or can be made."""
    dest = Path(out)
    if dest.is_dir():
        raise InputError(f"--out must be a file name, and {out} is a folder")
    if dest.exists() and source.is_file() and os.path.samefile(dest, source):
        raise InputError("--out must differ from --batch")
    folder = dest.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"--out cannot be written: {folder} is a file, not a folder")
    return dest


class Batch:
    """One batch: `records()` yields (line number, JSON value) of the lines that parse, `fail` says a line's problem,
    `add` writes a line's result, `finish()` closes the output and returns the summary."""

    def __init__(self, source: str, out: str | None, *, out_required: bool = True):
        self.source = source_path(source)
        if out is None and out_required:
            raise InputError("--batch needs --out OUT.jsonl")
        self.out = out_path(out, self.source) if out is not None else None
        self.written = self.failed = 0
        self._fh = sys.stdout if self.out is None else self._open(self.out)

    @staticmethod
    def _open(dest: Path):
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            return open(dest, "w", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"--out cannot be written: {exc.strerror} ({dest})") from None

    def records(self) -> Iterator[tuple[int, object]]:
        try:
            fh = open(self.source, "rb")
        except OSError as exc:
            raise InputError(f"cannot read {self.source}: {exc.strerror}") from None
        with fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    self.fail(number, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}): "
                                      "save the file as UTF-8")
                    continue
                try:
                    yield number, json.loads(text)
                except json.JSONDecodeError as exc:
                    self.fail(number, f"not valid JSON ({exc.msg}, column {exc.colno})")

    def fail(self, number: int, problem) -> None:
        print(f"line {number}: {problem}", file=sys.stderr)
        self.failed += 1

    def add(self, number: int, result: dict) -> None:
        self._fh.write(json.dumps({"line": number, **result}, ensure_ascii=False) + "\n")
        self._fh.flush()
        self.written += 1

    def finish(self, args=None) -> dict:
        if self._fh is not sys.stdout:
            self._fh.close()
        if not self.written and not self.failed:
            print(f"note: {self.source} holds no line to process", file=sys.stderr)
        if args is not None:
            args.exit_code = 1 if self.failed else 0
        return {"batch": str(self.source), "out": str(self.out) if self.out else None, "written": self.written,
                "failed": self.failed}


def summary_line(result: dict, what: str) -> str:
    """The one line a batch ends with: how many results (`what`, singular) were written where, and how many lines
    failed."""
    where = result["out"] or "standard output"
    return (f"{counted(result['written'], what)} written to {where} (each with its input's \"line\" number); "
            f"{counted(result['failed'], 'line')} failed" + (", said above" if result["failed"] else ""))


def run_jsonl(source: str, out: str | None, field: str, handle: Callable[..., dict], args=None,
              options: tuple[str, ...] = ()) -> dict:
    """A batch whose lines are {field: text, and any of `options`}: each text through `handle(text, **the line's
    options)`; a line with another field fails, naming the fields it may hold (a "seeds" for "seed" was ignored)."""
    batch = Batch(source, out)
    for number, record in batch.records():
        try:
            if not isinstance(record, dict) or not isinstance(record.get(field), str):
                raise InputError(f'expected an object with a text field "{field}"')
            unknown = sorted(set(record) - {field, *options})
            if unknown:
                raise InputError(f"unknown field(s) {', '.join(unknown)}: a line holds \"{field}\""
                                 + (f" and may hold {', '.join(options)}" if options else " only"))
            batch.add(number, handle(record[field], **{k: record[k] for k in options if k in record}))
        except StudioError as exc:
            batch.fail(number, exc)
    return batch.finish(args)


def single_or_batch(args, text: str | None, field: str, handle: Callable[..., dict], usage: str,
                    options: tuple[str, ...] = ()) -> dict:
    """The one-text / `--batch in.jsonl --out out.jsonl` dispatch shared by the simile commands; a batch line's
    `options` override the command's own."""
    if args.batch:
        if text:
            raise InputError(f"give either a {field} or --batch, not both")
        return run_jsonl(args.batch, args.out, field, handle, args, options)
    if text is None:
        raise InputError(usage)
    return handle(text)
