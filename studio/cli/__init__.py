"""`python -m studio`: one entry point; each capability adds its subcommands in its own module.

Each capability lists its command modules in studio/capabilities.py. A command module exposes `register(subparsers)`, which adds a parser whose `func(args)` returns a
JSON-able result (printed with --json) and, optionally, sets `render` to a function that turns the result
into human-readable text. Grouped commands (`build`, `train`, `eval`) dispatch to targets listed in
`studio.cli.groups.TARGETS`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ..atomic import jsonable
from ..capabilities import command_modules
from ..errors import StudioError
from ..models import ConfigError, ModelUnavailable, UnknownRole
from ..settings import export

#: command modules, each with register(subparsers): the studio's own and each capability's (studio/capabilities.py)
COMMAND_MODULES = command_modules()

EXIT_BAD_INPUT, EXIT_MODEL_UNAVAILABLE = 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise StudioError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = _Parser(prog="python -m studio", description="Figurative Language Studio command line.")
    parser.add_argument("--profile", choices=["auto", "hub", "offline", "tiny"], help="model profile (STUDIO_PROFILE)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def add_json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def emit(result, args) -> None:
    """Print a command's result: its `render` (the text for a reader), or with --json its JSON (a typed result's
    `to_dict()`)."""
    render = getattr(args, "render", None)
    if getattr(args, "json", False) or render is None:
        data = result.to_dict() if hasattr(result, "to_dict") else result
        print(json.dumps(data, indent=2, ensure_ascii=False, default=jsonable))
    else:
        print(render(result))


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _not_utf8(argv: list[str]) -> str | None:
    """What to say of the first argument that is not UTF-8 text (Python keeps such bytes as lone surrogates, which
    every model's tokenizer then refused with a traceback), or None."""
    for number, arg in enumerate(argv, start=1):
        if os.path.exists(arg):  # a file's name in the system's own bytes (--batch, --out) is no text to read
            continue
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            byte = ord(arg[exc.start]) - 0xDC00 if "\udc80" <= arg[exc.start] <= "\udcff" else None
            where = f"byte 0x{byte:02x}" if byte is not None else "a character"
            return (f"argument {number} is not UTF-8 text ({where} at column {exc.start + 1}): give the text in "
                    "UTF-8 (iconv -f latin1 -t utf-8 converts a Latin-1 file)")
    return None


def _unquoted(message: str) -> str:
    """An exception's message without the quotes str(KeyError) puts around it; a message that merely ends in a quote
    ("invalid int value: 'abc'") keeps it."""
    if len(message) > 1 and message[0] == message[-1] and message[0] in "'\"":
        return message[1:-1]
    return message


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if (problem := _not_utf8(argv)) is not None:
        return _fail(problem, EXIT_BAD_INPUT)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.profile:
            export("STUDIO_PROFILE", args.profile)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        result = args.func(args)
        if result is not None:
            emit(result, args)
        return int(getattr(args, "exit_code", 0) or 0)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except (StudioError, ConfigError, UnknownRole) as exc:
        return _fail(_unquoted(str(exc)), EXIT_BAD_INPUT)
    except ModelUnavailable as exc:
        return _fail(exc.message, EXIT_MODEL_UNAVAILABLE)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:
        return 0
