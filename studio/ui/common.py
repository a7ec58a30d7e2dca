"""What every tab shares: turning the studio's errors into clear messages, and safe text rendering."""
from __future__ import annotations

import functools
import html
import logging

import gradio as gr

from ..errors import StudioError
from ..models import ModelUnavailable, get_registry

log = logging.getLogger("studio.ui")


def guarded(fn):
    """Run an event handler so that bad input and unavailable models become a gr.Error with a clear message,
    and anything unexpected becomes a short apology instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except StudioError as exc:
            raise gr.Error(str(exc), title="Please check the input") from None
        except ModelUnavailable as exc:
            raise gr.Error(exc.message, title=f"{exc.role} model unavailable") from None
        except Exception as exc:  # the server keeps running; the log keeps the traceback
            log.exception("unexpected error in %s", fn.__name__)
            raise gr.Error(f"Something went wrong ({type(exc).__name__}). The error was logged; please try other input.",
                           title="Unexpected error") from None

    return wrapper


def escape(text: str) -> str:
    """User text on its way into Markdown/HTML is always escaped."""
    return html.escape(str(text), quote=True)


def role_notice(*roles: str) -> str:
    """Markdown warning for roles a tab needs that cannot serve in this profile ('' when all can)."""
    registry, lines = get_registry(), []
    for row in registry.status():
        if row["role"] in roles and not row["available"]:
            lines.append(f"⚠️ **{row['role']}** is {row['state']} in the *{registry.profile}* profile: "
                         f"{escape(row['reason'])}. {escape(row['fix'])}")
    return "\n\n".join(lines)


def highlight_pieces(text: str, spans) -> list[tuple[str, str | None]]:
    """A gr.HighlightedText value: `text` cut at labelled (start, end, label) spans. Spans are clamped to the text
    and an overlapping span is dropped (the earlier one wins), so the pieces always re-join to `text`."""
    pieces, cursor = [], 0
    for start, end, label in sorted(spans, key=lambda s: (int(s[0]), int(s[1]))):  # labels may be None: not sortable
        start, end = max(0, int(start)), min(len(text), int(end))
        if start < cursor or end <= start:
            continue
        if start > cursor:
            pieces.append((text[cursor:start], None))
        pieces.append((text[start:end], label))
        cursor = end
    if cursor < len(text):
        pieces.append((text[cursor:], None))
    return pieces
