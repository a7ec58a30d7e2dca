"""What a narrative must be wherever the studio reads one (Continue, its judge, Proverbs): text within
MAX_NARRATIVE_CHARS, English, of MIN_NARRATIVE_WORDS words or more; and the notice of its likely typos. Each
capability says in its own words what a too-short narrative is too short for."""
from __future__ import annotations

from ..errors import require_text
from ..textspans import word_count
from .english import misspellings, refuse_non_english, spelling_note

MAX_NARRATIVE_CHARS = 4000
#: a story to continue, to judge a continuation of, or to sum up in a proverb: "<b>x</b>" or "Hello." carries none
MIN_NARRATIVE_WORDS = 3


def clean_narrative(text, what: str = "narrative") -> str:
    """The text cleaned (`require_text`, within MAX_NARRATIVE_CHARS), or an InputError when it is empty, too long or
    not English; `what` names it in the message ("narrative on line 3 to compare")."""
    narrative = require_text(text, what, MAX_NARRATIVE_CHARS)
    refuse_non_english(narrative, what)
    return narrative


def too_few_words(narrative: str) -> int | None:
    """The narrative's word count when it is under MIN_NARRATIVE_WORDS, else None."""
    words = word_count(narrative)
    return words if words < MIN_NARRATIVE_WORDS else None


def spelling_notice(narrative: str) -> str:
    """A notice of the narrative's likely typos ("" for none; `english.misspellings`): the models read it as typed."""
    return spelling_note(narrative, misspellings(narrative), what="story")
