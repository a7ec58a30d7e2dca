"""A "like" simile that stands for a manner adverb ("walked very slowly" → "walked like a snail").

`manner_adjective` finds a sentence's manner adverb with an antonym ("slowly" → "slow"); `stand_in` finds a
candidate that replaces that adverb, in place, with a "like" simile; `probe` is the plain "as ADJ as V" sentence on
which the irony check reads whether the vehicle suits the adjective or its antonym. Polish uses the first and the
last to keep "like a falcon" out of a slow train's list; the HAUSER scorer uses all three, so that "walked like a
snail" after "walked very slowly" is read as what it replaces, not as a sentence that dropped a word.
why: docs/experiments.md#hauser-manner-stand-in
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .components import Simile

#: "-ly" words that say how much or how sure, not how: never a manner ("really" → "real", "likely" → "like")
NOT_MANNER = {"really", "truly", "likely", "only", "nearly", "simply", "merely", "fairly", "hardly", "barely",
              "mostly", "entirely", "completely", "totally", "fully", "extremely", "highly", "rarely", "usually",
              "finally", "actually", "certainly", "clearly", "probably", "possibly", "early", "daily", "partly",
              "largely", "utterly", "absolutely", "perfectly", "exactly", "particularly", "especially", "equally"}

#: words that may stand before a manner adverb and go with it ("very slowly", "so very quietly")
_DEGREE = r"(?:(?:very|really|so|quite|extremely|incredibly|terribly|rather|too|pretty|awfully|most|more)\s+)*"
_WORDS = re.compile(r"[a-z0-9']+")
_ANY_CASE_WORDS = re.compile(_WORDS.pattern, re.IGNORECASE)
#: words that open a clause of their own after an image, not words about it ("…like a snail and fell asleep")
_JOINERS = {"and", "but", "or", "so", "then", "yet", "while", "because", "until", "before", "after", "when"}
#: what ends a sentence or a clause, or opens a bracket, between an image and the literal's next words
_BOUNDARY = re.compile(r"[.;:!?()\[\]…]")


def _adverb_adjective(word: str, antonyms: dict) -> str | None:
    w = word.lower()
    if not w.endswith("ly") or w in NOT_MANNER:
        return None
    for adjective in (w[:-2], w[:-3] + "y" if w.endswith("ily") else None, w[:-2] + "le",
                      w[:-4] if w.endswith("ally") else None):
        if adjective and adjective in antonyms:
            return adjective
    return None


def manner_adjective(literal: str, antonyms: dict) -> str | None:
    """The adjective of the sentence's first "-ly" manner adverb with an antonym in the antonym table: "slowly" →
    "slow", "happily" → "happy", "loudly" → "loud" (WordNet lists none for "quick" or "gentle"); None when there is
    none."""
    for word in re.findall(r"[A-Za-z]+", literal):
        if (adjective := _adverb_adjective(word, antonyms)) is not None:
            return adjective
    return None


@dataclass(frozen=True)
class StandIn:
    """A "like V" simile in the place of the literal's manner adverb."""
    adverb: str     # the words of the literal it replaces ("very slowly")
    adjective: str  # the adverb's adjective ("slow")
    reading: str    # the candidate with the simile read as those words ("The old man walked very slowly …")

    def to_dict(self) -> dict:
        return asdict(self)


def stand_in(literal: str, candidate: str, simile: Simile | None, antonyms: dict) -> StandIn | None:
    """The manner adverb a "like V" simile replaces in place — the candidate without the simile's words (comparator to
    vehicle) is the literal without the adverb and the degree words before it, word for word — or None: "The old man
    walked like a snail to the door." for "The old man walked very slowly to the door." stands for "very slowly",
    and so does "…walked like a snail with its shell on its back to the door." (words about the image after it, the
    reading without them); "…walked very slowly like a snail…" (the adverb kept), "…like a snail and fell to the
    door." (a clause of its own) and a rewrite in other words do not."""
    if simile is None or simile.comparator != "like" or "vehicle" not in simile.spans:
        return None
    start, end = simile.spans["comparator"][0], simile.spans["vehicle"][1]
    before = _WORDS.findall(candidate[:start].lower())
    after = list(_ANY_CASE_WORDS.finditer(candidate[end:]))
    for match in re.finditer(rf"\b{_DEGREE}([A-Za-z]+ly)\b", literal, flags=re.IGNORECASE):
        adjective = _adverb_adjective(match.group(1), antonyms)
        if adjective is None:
            continue
        wanted = _WORDS.findall((literal[:match.start()] + " " + literal[match.end():]).lower())
        # the words after the vehicle that describe the image ("like a tortoise carrying its house on its back") go
        # with the simile when the literal's own words follow them; a clause ("and fell"), a sentence's end or a
        # bracket among them is not the image's
        for cut in range(len(after) + 1):
            said = candidate[end:end + after[cut - 1].end()] if cut else ""
            if cut and (after[cut - 1].group().lower() in _JOINERS or _BOUNDARY.search(said)):
                break
            if before + [m.group().lower() for m in after[cut:]] == wanted:
                adverb = match.group().strip()
                if match.start() == 0 and start > 0:  # "Slowly, the old man…": no capital inside the sentence
                    adverb = adverb[:1].lower() + adverb[1:]
                rest = candidate[end + (after[cut - 1].end() if cut else 0):]
                if cut:  # the describing words set off by commas take their comma with them
                    rest = re.sub(r"^\s*,(?=\s*\w)", "", rest)
                return StandIn(match.group().strip(), adjective, candidate[:start] + adverb + rest)
    return None


def probe(adjective: str, vehicle: str) -> tuple[str, list[Simile]]:
    """"It was as ADJ as V." with its simile, for the irony check: V likelier after an antonym of ADJ than after ADJ
    means the image suits the opposite of the adverb ("slow" and "a cheetah")."""
    text = f"It was as {adjective} as {vehicle}."
    p, v = len("It was as "), len(f"It was as {adjective} as ")
    spans = {"comparator": (7, 9), "property": (p, p + len(adjective)), "vehicle": (v, v + len(vehicle))}
    return text, [Simile(None, vehicle, None, "as ... as", adjective, spans)]
