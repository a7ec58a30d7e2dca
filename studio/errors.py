"""The studio's own error types. Capability code raises these for bad input; the UI turns them into
gr.Error messages and the CLI into one line and a non-zero exit."""
from __future__ import annotations

import re


class StudioError(ValueError):
    """Bad input or a request the studio cannot honour; the message is shown to the user as it is."""


class InputError(StudioError):
    """The user's input is empty, too long, malformed or out of range."""


def _a(what: str) -> str:
    """'a sentence', 'an option', and a numbered name as it is: 'option 1', 'candidate 3'."""
    if re.search(r"\s\d+$", what):
        return what
    return f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"


def _the(what: str) -> str:
    """'The sentence', and a numbered name as it is: 'Option 1'."""
    return what[:1].upper() + what[1:] if re.search(r"\s\d+$", what) else f"The {what}"


def require_text(text, what: str = "text", max_chars: int = 5000) -> str:
    """Clean and validate one user text: strips NULs and control characters, enforces a length limit."""
    if text is None:
        raise InputError(f"Please enter {_a(what)}.")
    if not isinstance(text, str):
        raise InputError(f"{_the(what)} must be text, not {type(text).__name__}.")
    cleaned = "".join(ch for ch in text if ch in "\n\t" or (ord(ch) >= 32 and ord(ch) != 127))
    cleaned = cleaned.replace("\u200b", "").replace("\ufeff", "").strip()
    if not cleaned:
        raise InputError(f"Please enter {_a(what)}: it is empty.")
    check_length(cleaned, what, max_chars)
    return cleaned


def clean_length(text: str) -> int:
    """The length `require_text` holds against its limit: zero-width characters and surrounding space do not count."""
    return len(str(text or "").replace("\u200b", "").replace("\ufeff", "").strip())


def check_length(text: str, what: str, max_chars: int) -> None:
    """Refuse (never cut) a text over its limit, naming the limit: the API and the page say the same."""
    if clean_length(text) > max_chars:
        raise InputError(f"{_the(what)} is {clean_length(text):,} characters long; the limit is {max_chars:,}. "
                         "Nothing was processed: shorten it and submit again.")


class Stopped(StudioError):
    """A long job was stopped before it finished (a Stop button, or the API's job.cancel())."""

    def __init__(self, what: str = "The job"):
        super().__init__(f"{what} was stopped before it finished.")


def check_stop(should_stop, what: str = "The job") -> None:
    """Raise Stopped when the `should_stop` callable (or None) says so: the poll long capability loops call."""
    if should_stop is not None and should_stop():
        raise Stopped(what)


def parse_options(parser, argv: list[str]):
    """`parser.parse_args(argv)` for a build/train/eval target: bad options become one InputError line (exit 2)
    instead of argparse's usage dump; --help still exits 0."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code:
            raise InputError(f"{parser.prog}: invalid options {' '.join(argv)!r} (see --help)") from None
        raise
