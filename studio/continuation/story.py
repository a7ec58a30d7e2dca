"""What a narrative must be for Continue and for the judge: English, within MAX_NARRATIVE_CHARS, a sentence or
more."""
from __future__ import annotations

from ..errors import InputError, require_text
from ..figures.english import refuse_non_english
from ..textspans import word_count

MAX_NARRATIVE_CHARS = 4000
#: a story to continue or to judge a continuation of: "<b>x</b>" would get the writer's instructions back as its
#: "continuation" (Proverbs asks the same of its stories)
MIN_NARRATIVE_WORDS = 3


def require_story(narrative) -> str:
    """The narrative cleaned (`require_text`), or an InputError when it is empty, too long, not English or too
    short to continue: the check of Continue and of the judge."""
    raw = require_text(narrative, "narrative", MAX_NARRATIVE_CHARS)
    check_story(raw)
    return raw


def check_story(raw: str, purpose: str = "to continue") -> None:
    """An InputError when a cleaned narrative is not English or too short to continue (`purpose`: what it is too
    short for, as the message says it)."""
    refuse_non_english(raw, "narrative")
    if (words := word_count(raw)) < MIN_NARRATIVE_WORDS:
        raise InputError(f"The narrative is too short {purpose} ({words} word{'s' if words != 1 else ''}): tell a "
                         f"story of a sentence or more, ending in an idiom or a simile (at least "
                         f"{MIN_NARRATIVE_WORDS} words).")
