"""What a narrative must be for Continue and for the judge: English, within MAX_NARRATIVE_CHARS, a sentence or
more (`figures.narrative`, which Proverbs asks too)."""
from __future__ import annotations

from ..errors import InputError
from ..figures.narrative import MAX_NARRATIVE_CHARS, MIN_NARRATIVE_WORDS, clean_narrative, too_few_words

__all__ = ["MAX_NARRATIVE_CHARS", "check_story", "require_story"]


def require_story(narrative) -> str:
    """The narrative cleaned (`require_text`), or an InputError when it is empty, too long, not English or too
    short to continue: the check of Continue and of the judge."""
    raw = clean_narrative(narrative)
    _enough_words(raw, "to continue")
    return raw


def check_story(raw: str, purpose: str = "to continue") -> None:
    """An InputError when a cleaned narrative is not English or too short to continue (`purpose`: what it is too
    short for, as the message says it)."""
    clean_narrative(raw)
    _enough_words(raw, purpose)


def _enough_words(raw: str, purpose: str) -> None:
    if (words := too_few_words(raw)) is not None:
        raise InputError(f"The narrative is too short {purpose} ({words} word{'s' if words != 1 else ''}): tell a "
                         f"story of a sentence or more, ending in an idiom or a simile (at least "
                         f"{MIN_NARRATIVE_WORDS} words).")
