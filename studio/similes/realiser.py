"""Polish's one realiser: a vehicle written into a slot as English ("as loud as thunder", "like a beehive", never "a
beehives"), the checks that a vehicle phrase is whole and usable, and whether the simile KB attests an adjective's
image."""
from __future__ import annotations

import re

from ..figures.articles import indefinite_article, points
from ..figures.nouns import name_written
from ..offensive import offensive_words
from .slots import Slot


#: an "as ADJ as V" pair is attested when ADJ is among V's ATTESTED_TOP most typical KB properties (`attested`)
#: why: docs/experiments.md#polish-attested-bonus
ATTESTED_TOP = 30
#: sources whose own order ranks their candidates (the keep ranker was fitted on the others' reads)
RANKED_SOURCES = ("images", "writer")
JUNK_HEADS = {"ever", "other", "others", "anyone", "anything", "none", "rest", "your", "yours", "mine", "usual",
              "possible", "one", "thing", "way", "time", "that", "this", "it", "what", "all", "any", "he", "she",
              "they", "you", "i", "we", "him", "her", "them", "us", "me", "his", "their", "something", "someone",
              "somebody", "nothing", "everything", "everyone", "before", "well", "much", "many", "more", "most",
              "such", "same", "hell", "hers", "ours", "theirs", "himself", "herself", "itself", "themselves",
              "myself", "yourself", "ourselves", "yourselves", "oneself"}
_NP_BAD_START = {"if", "though", "when", "that", "which", "who", "and", "but", "or", "to", "is", "was", "are",
                 "were", "be", "been", "it", "he", "she", "they", "i", "you", "we", "in", "on", "at", "with", "for",
                 "of", "by", "from", "as", "like", "not", "so", "very", "too", "had", "has", "have", "do", "did",
                 "does", "would", "could", "should", "will", "can", "may", "might", "must"}
#: a vehicle cut off mid-phrase ends in one of these: "a ball of twine on a", "a bag of"
_NP_BAD_END = {"a", "an", "the", "of", "on", "in", "at", "to", "with", "for", "from", "by", "and", "or", "but", "as",
               "like", "into", "onto", "over", "under", "than", "my", "our", "your", "its", "their", "his"}
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def noun_phrase(vehicle: str, kb=None) -> str:
    """The vehicle as a noun phrase that agrees: the KB's usual surface form, no article before a plural
    ("a beehives" → "beehives"), "a"/"an" by the next word's sound."""
    v = re.sub(r"\s+", " ", vehicle.strip().strip(",;:")).strip()
    if kb is not None:
        norm = kb.normalize(v)
        if kb.has_vehicle(norm) and (norm == v.lower() or (
                v.lower().startswith(("the ", "a ", "an ")) and kb.written_bare(norm))):
            # "thunder" as the KB writes it; "the thunder", "a thunder" → "thunder" when it is written bare; "a
            # maniac" keeps its article (only generated candidates hold it: the KB does not know how it is written)
            v = kb.surface(norm)
    words = v.split()
    if len(words) >= 2 and words[0].lower() in ("a", "an"):
        lowered = [w.lower() for w in words]
        # the number is the head's: "a pack of wolves" keeps its article, "a beehives" loses it
        head = lowered[lowered.index("of", 1) - 1] if "of" in lowered[2:] else lowered[-1]
        if _plural(head) and kb is not None and kb.lemma(head) != head:
            words = words[1:]
        else:
            words[0] = indefinite_article(words[1])
    return " ".join(words)


def with_capitals(vehicle: str) -> str:
    """The vehicle with each name in it as WordNet writes it (`nouns.name_written`: "as wise as solomon" → "as wise as
    Solomon", "a london train" → "a London train", "the fbi" → "the FBI", "new york" → "New York"; a possessive too,
    "methuselah's"), but for a last word right after "a"/"an", a trademark used as a common noun ("a dumpster"); a
    word joined to another ("well-fed") is left.
    why: docs/experiments.md#polish-names-capitalised"""
    words = vehicle.split(" ")
    i = 0
    while i < len(words):
        for size in (2, 1):
            part = words[i:i + size]
            last = part[-1][:-2] if part[-1].endswith("'s") else part[-1]
            bare = [*part[:-1], last]
            if len(part) < size or not all(w.isalpha() and w.islower() for w in bare):
                continue
            written = name_written(" ".join(bare))
            trademark = size == 1 and i == len(words) - 1 and i > 0 and words[i - 1].lower() in ("a", "an")
            if written is None or trademark:
                continue
            words[i:i + size] = written.split(" ")[:-1] + [written.split(" ")[-1] + part[-1][len(last):]]
            i += size - 1
            break
        i += 1
    return " ".join(words)


def _plural(word: str) -> bool:
    w = word.lower()
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous"))


def realise(literal: str, slot: Slot, vehicle: str) -> tuple[str, str, int]:
    """(sentence, phrase, offset of the phrase) with the comparison the slot allows: "as ADJ as NP" for an
    adjective slot, "like NP" for a verb slot; a vehicle that is itself an "as if"/"as though" clause goes in
    as it is at a verb slot."""
    vehicle = vehicle.strip()
    if slot.kind == "adjective":
        phrase = f"as {slot.adjective} as {vehicle}"
    elif is_clause(vehicle):
        phrase = vehicle
    else:
        phrase = f"like {vehicle}"
    before, after = literal[:slot.start].rstrip(), literal[slot.end:]
    if not before:
        phrase = phrase[0].upper() + phrase[1:]
    sep_after = "" if not after or after[0] in ".,;:!?)\"'" or after[0].isspace() else " "
    lead = (f"{before} " if before else "") + slot.lead  # the replaced words' tags whose partners lie beyond them
    return f"{lead}{phrase}{slot.trail}{sep_after}{after}", phrase, len(lead)


_PLAIN = re.compile(r"^[A-Za-z][A-Za-z' -]*$")


def _acceptable(vehicle: str, context: set[str], kb) -> bool:
    if not _PLAIN.match(vehicle):
        return False  # digits, symbols, broken bytes: not a noun phrase
    words = WORD.findall(vehicle.lower())
    if not 1 <= len(words) <= 7:
        return False
    if offensive_words(vehicle, vehicle=True):  # slurs in the KB's 19th-century vehicles; names for peoples
        return False
    if is_clause(vehicle):
        return 3 <= len(words) <= 9
    if words[0] in _NP_BAD_START or points(vehicle) or any(a == b for a, b in zip(words, words[1:])):
        return False  # a bad start ("of the …"), one that points ("my mother"), a stutter ("a freight freight")
    head = words[-1]
    if head in _NP_BAD_END:
        return False  # cut off mid-phrase
    if head in JUNK_HEADS or kb.head(vehicle) in JUNK_HEADS or vehicle.endswith(("'s", "'")):
        return False
    content = {w for w in words if len(w) > 2} - {"the", "and", "like"}
    stems = {w[:4] for w in context if len(w) >= 4}
    # "as foggy as a fog", "as salty as salt": a short word the sentence has with a suffix is a repeat too
    derived = any(len(w) == 3 and any(c.startswith(w) and 3 < len(c) <= 5 for c in context) for w in content)
    return not (content & context) and not derived and not any(len(w) >= 4 and w[:4] in stems for w in content)


def is_clause(vehicle: str) -> bool:
    """An "as if" / "as though" clause (realised as it stands at a verb slot), not a noun phrase."""
    return vehicle.lower().startswith(("as if ", "as though "))


def realise_all(literal, proposals, context, kb):
    """(rows, rejected, repeated): each distinct proposal (a source's vehicle at a slot, as `polish` counts them)
    written into the sentence once; `rejected` counts those not acceptable, `repeated` those whose sentence another
    proposal already wrote (the same line from two sources, or two spellings of one vehicle)."""
    rows, rejected, repeated, seen, asked = [], 0, 0, set(), set()
    for rank, (strategy, slot, vehicle) in enumerate(proposals):
        if (strategy, slot.start, vehicle.lower()) in asked:  # a source's own repeat: not counted as proposed
            continue
        asked.add((strategy, slot.start, vehicle.lower()))
        # the image table's surface is the writer's own choice of article ("a river"): the KB's bare one would undo it
        np_ = vehicle if is_clause(vehicle) else with_capitals(vehicle if strategy == "images"
                                                                 else noun_phrase(vehicle, kb))
        if not _acceptable(np_, context, kb):
            rejected += 1
            continue
        sentence, phrase, offset = realise(literal, slot, np_)
        key = re.sub(r"\W+", " ", sentence.lower()).strip()
        if key in seen:
            repeated += 1
            continue
        seen.add(key)
        rows.append({"strategy": strategy, "slot": slot, "vehicle": np_, "sentence": sentence, "phrase": phrase,
                     "offset": offset, "attested": slot.kind == "adjective" and attested(kb, slot.anchor, np_),
                     "rank": rank if strategy in RANKED_SOURCES else None})
    return rows, rejected, repeated


def attested(kb, adjective: str, vehicle: str) -> bool:
    """Whether the simile KB knows `vehicle` for `adjective`: the adjective's lemma among the vehicle's
    ATTESTED_TOP most typical properties ("as sweet as honey" yes, "as sore as a surgeon" no)."""
    if is_clause(vehicle):
        return False
    return kb.lemma(adjective.lower()) in {p for p, _ in kb.properties_of_vehicle(vehicle, k=ATTESTED_TOP)}
