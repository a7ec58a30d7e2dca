"""The similes capability's front door: what the Polish tab, the `polish` and `components` commands and the API call.

- `polish(literal, n, strategies, seed, domain=…, register=…) -> PolishResult`: simile candidates for a literal
  sentence, best first, and how they came (asked, delivered, merged, rejected, the ranking, a shortfall's reason,
  the sentence's likely typos: `spelling`, worded for the user by `spelling_note`).
  It checks every input (the text and its length, n, seed, strategies, domain, register) and raises `InputError`
  with a message for the visitor; the callers pass the inputs on as given.
- `components(sentence) -> dict`: the similes in a sentence with their topic, vehicle, event and property.
- `respelled(literal) -> str | None`: the literal with its likely typos corrected (what `spelling_note` suggests),
  None when it has none; `without_simile(literal) -> str | None`: the literal Polish refuses for the simile it
  already holds, with it cut out ("The sky was as blue as the sea." → "The sky was blue."), None otherwise: the
  sentences the Polish tab offers to polish instead (`offered`: the first of them); `respelled_with_place(literal)`:
  the respelled sentence when it has a place for a simile, offered after a refusal ("The nigth was vry drak.").

The limits and choices below are what the front ends show beside their inputs; the meanings are the texts that say
what the numbers mean. The work itself is in polish.py (the pipeline and its refusals), slots.py (where a
comparison goes), realiser.py, sources.py (the vehicles' sources), polisher.py (its language models), filters.py,
ranking.py (keep and the writer's reread), writer_vehicles.py (the writer source), images.py, retrieval.py, aptness.py
(the keep ranker) and analysis.py (components)."""
from __future__ import annotations

from ..figures.english import Misspelling, corrected, misspellings, spelling_note
from .analysis import MAX_SENTENCE_CHARS, like_with_like_reason
from .analysis import analyse as components
from .analysis import why_no_comparison
from .polish import (DEFAULT_STRATEGIES, KEEP_MEANING, MAX_CHARS, MAX_N, PROPERTY_FIRST, RANKING, SCORE_MEANING,
                     STRATEGIES, WRITER_ORDER, WRITER_POLISHER, WRITER_READS, PolishResult,
                     check_strategies, few_apt_images, holds_simile, polish, respelled_with_place, without_simile)
from .ranking import WRITER_READS_TOP
from .polisher import Candidate
from .writer_vehicles import DOMAINS, REGISTERS

__all__ = ["polish", "PolishResult", "Candidate", "components", "why_no_comparison", "like_with_like_reason",
           "few_apt_images", "check_strategies",
           "MAX_CHARS", "MAX_N", "MAX_SENTENCE_CHARS", "STRATEGIES", "DEFAULT_STRATEGIES", "DOMAINS", "REGISTERS",
           "SCORE_MEANING", "KEEP_MEANING", "RANKING", "PROPERTY_FIRST", "WRITER_ORDER", "WRITER_READS",
           "WRITER_READS_TOP", "WRITER_POLISHER", "Misspelling", "spelling_note",
           "respelled", "without_simile", "respelled_with_place", "offered"]


def respelled(literal: str) -> str | None:
    """`literal` with each likely typo (`english.misspellings`) replaced by its suggestion, or None when it has none
    (or the correction changes nothing)."""
    found = misspellings(literal)
    fixed = corrected(literal, found) if found else None
    return fixed if fixed and fixed != literal else None


def offered(literal: str) -> str | None:
    """The sentence Polish offers to polish instead of `literal`: with its likely typos corrected, else without the
    similes it already holds; None for neither. A corrected sentence that holds a simile its typos hid ("He ran fsat
    lik the wind.") is offered without it, as Polish would refuse it, and not at all where no cut of it is offered."""
    fixed = respelled(literal)
    if fixed is None:
        return without_simile(literal)
    # the cut of a simile the typos hid ("He ran fast."), else none where the corrected sentence is refused for one
    # with no cut offered ("Her eyes were lik stars." → "Her eyes were like stars.")
    return without_simile(fixed) or (None if holds_simile(fixed) else fixed)
