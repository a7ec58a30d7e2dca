"""What Polish drops or merges among its realised candidates: a literal comparison (the subject's own kind), a phrase
with no image, an image that suits the opposite adjective, near duplicates."""
from __future__ import annotations

import re

from ..figures.antonyms import load_antonyms
from ..figures.components import Simile
from ..figures.irony import find_ironies, opposite_in_kb
from ..figures.lm_features import shared
from ..figures.manner import manner_adjective, probe
from ..figures.nouns import kind_of, known_noun, same_image
from ..models import ModelUnavailable, get_registry
from .polisher import Candidate
from .realiser import WORD, is_clause


#: a vehicle this close to the sentence's subject (cosine of the offline embedder, all-MiniLM-L6-v2) and this far
#: above the sentence's median vehicle is a literal comparison and dropped (`like_with_like`)
#: why: docs/experiments.md#polish-like-with-like
LIKE_WITH_LIKE = 0.6
LIKE_WITH_LIKE_GAP = 0.2


#: an "as ADJ as V" candidate is dropped when the polisher finds V at least this many nats likelier after one of ADJ's
#: antonyms than after ADJ ("as heavy as a feather", "as cold as a furnace": HAUSER's ironic-simile margin,
#: studio/figures/irony.py)
#: why: docs/experiments.md#polish-opposite-margin
OPPOSITE_MARGIN = 2.5
#: a "like V" candidate of a sentence with a manner adverb whose adjective has an antonym ("walked slowly") is dropped
#: when the polisher finds V at least this many nats likelier in "It was as ANTONYM as V." than in "It was as ADJ as
#: V." ("…walked slowly … like an arrow"). Chosen on our blind reads' train literals (the smallest margin that drops
#: no usable candidate there), checked on dev: docs/experiments.md#polish-opposite-adverb
ADVERB_OPPOSITE_MARGIN = 0.0


def like_with_like(rows, doc, kb) -> set[int]:
    """Indices of the rows whose vehicle is the same kind of thing as the sentence's subject ("the kids ran …
    like a bunch of children", "the lake was still … like a pond"): a literal comparison, not a simile. The
    embedder's cosine of the subject's lemma and the vehicle's head must reach LIKE_WITH_LIKE and stand
    LIKE_WITH_LIKE_GAP above the median over this sentence's vehicles (a model whose vectors all look alike, such
    as the tiny profile's, drops nothing). Nothing is dropped without a noun subject or an embedder."""
    return {i for i, s in enumerate(like_with_like_scores(rows, doc, kb))
            if s is not None and s[0] >= LIKE_WITH_LIKE and s[1] >= LIKE_WITH_LIKE_GAP}


_IMAGE_POS = {"NOUN", "PROPN", "PRON", "NUM"}


def no_image(rows, docs) -> set[int]:
    """Indices of the rows (`docs`: their sentences parsed, one each) whose inserted phrase holds a nationality, a
    religious or a political group by the parser's entity recogniser (NORP: "like an Asian", "as proud as a German"):
    a people is no vehicle; or whose vehicle has no noun ("as sour as stale": an adjective is no image), or a common
    noun English does not have (`known_noun`: "as salty as a hucklehead", "as noisy as wot"; names, "a Ferrari", are
    not asked about). "as if" clauses are kept."""
    out = set()
    for i, (r, doc) in enumerate(zip(rows, docs)):
        lo, hi = r["offset"], r["offset"] + len(r["phrase"])
        if any(e.label_ == "NORP" and lo <= e.start_char < hi for e in doc.ents):
            out.add(i)
            continue
        tokens = _vehicle_tokens(r, doc)
        if tokens is not None and (not any(t.pos_ in _IMAGE_POS for t in tokens) or not all(
                known_noun(t.text) or known_noun(t.lemma_) for t in tokens if t.pos_ == "NOUN")):
            out.add(i)
    return out


def _vehicle_tokens(row, doc) -> list | None:
    """The tokens of a row's vehicle noun phrase in its parsed sentence, or None (an "as if" clause, no vehicle)."""
    vehicle, hi = row.get("vehicle", ""), row["offset"] + len(row["phrase"])
    if not vehicle or is_clause(vehicle) or not row["phrase"].endswith(vehicle):
        return None
    return [t for t in doc if hi - len(vehicle) <= t.idx < hi]


def image_noun(tokens):
    """The noun a vehicle's tokens picture: their head, or its "of" complement's noun when it has one ("a chorus of
    birds" pictures birds; the detector's like-with-like rule leaves such a vehicle to its weights instead, so
    Components may still call "The crows called like a chorus of birds." a simile); None for no tokens."""
    inside = {t.i for t in tokens}
    head = next((t for t in tokens if t.head.i not in inside or t.head.i == t.i), None)
    of = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "of"), None) if head is not None else None
    complement = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
    return complement if complement is not None and complement.i in inside else head


def of_the_topic_kind(rows, docs, doc) -> set[int]:
    """Indices of the rows (`docs`: their sentences parsed; `doc`: the literal's) whose image noun (`image_noun`)
    names, by WordNet's first senses (`nouns.kind_of`), the noun subject of the literal's sentence it goes into ("The
    baby cried like an infant") or a thing that subject is a kind of ("The crows called like a chorus of birds", "The
    toddler shrieked like a little kid", "The goldfish darted like an animal"): a literal comparison, not an image.
    A grander kind of the subject is kept ("The bird sang like a nightingale" is the image a kind of the subject).
    Rule PK, chosen on the blind reads' dev lists: docs/experiments.md#polish-topic-kind"""
    from .aptness import noun_subject

    sentences = list(doc.sents)
    out = set()
    for i, (r, parsed) in enumerate(zip(rows, docs)):
        tokens = _vehicle_tokens(r, parsed)
        image = image_noun(tokens) if tokens else None
        at = r["slot"].start  # where the phrase goes into the literal
        sentence = next((s for s in sentences if s.start_char <= at <= s.end_char), None)
        subject = noun_subject(sentence) if image is not None and sentence is not None else None
        if image is not None and image.pos_ == "NOUN" and subject is not None and subject.pos_ == "NOUN" \
                and kind_of(subject.lemma_, image.lemma_) in ("same", "narrower"):
            out.add(i)
    return out


def like_with_like_scores(rows, doc, kb) -> list[tuple[float, float] | None]:
    """Per row ({"vehicle": …}): (cosine of the subject's lemma and the vehicle's head, that cosine minus the median
    over the rows' distinct heads), or None (an "as if" clause, no noun subject, fewer than 3 heads, no embedder)."""
    import numpy as np

    from .aptness import noun_subject

    subject = noun_subject(doc)
    heads = [None if is_clause(r["vehicle"]) else
             (kb.head(r["vehicle"]) or r["vehicle"].split()[-1].lower()) for r in rows]
    words = sorted({h for h in heads if h})
    if subject is None or len(words) < 3:
        return [None] * len(rows)
    try:
        embedder = get_registry().get("embedder")
    except ModelUnavailable:
        return [None] * len(rows)
    vectors = embedder.encode([subject.lemma_.lower()] + words)
    sims = dict(zip(words, (vectors[1:] @ vectors[0]).tolist()))
    median = float(np.median(list(sims.values())))
    return [None if h is None else (sims[h], sims[h] - median) for h in heads]


_AS_ADJ_AS = re.compile(r"as (\w+) as ")


def opposite_images(lm, candidates) -> set[int]:
    """Indices of the "as ADJ as V" candidates whose vehicle the lm finds at least OPPOSITE_MARGIN nats likelier after
    an antonym of ADJ than after ADJ: "His backpack was as heavy as a feather." (HAUSER's ironic-simile margin)."""
    antonyms, items = load_antonyms(), []
    for i, c in enumerate(candidates):
        m = _AS_ADJ_AS.match(c.phrase)
        if not m or m.group(1).lower() not in antonyms or not c.phrase.endswith(c.vehicle):
            continue
        o, v = c.offset, c.offset + len(c.phrase) - len(c.vehicle)
        spans = {"comparator": (o, o + m.end() - 1), "property": (o + 3, o + 3 + len(m.group(1))),
                 "vehicle": (v, v + len(c.vehicle))}
        items.append((i, (0, c.sentence, [Simile(None, c.vehicle, None, "as ... as", m.group(1), spans)])))
    if not items:
        return set()
    found = find_ironies(shared(lm), [item for _, item in items], antonyms, margin=OPPOSITE_MARGIN)
    return {i for (i, _), hit in zip(items, found) if hit is not None}


_LIKE = re.compile(r"like (.+?)[.!?]*$")


def opposite_manner(lm, candidates, literal: str) -> set[int]:
    """Indices of the "like V" candidates whose vehicle suits the opposite of the sentence's manner adverb: V at least
    ADVERB_OPPOSITE_MARGIN nats likelier after "It was as ANTONYM as" than after "It was as ADJ as" ("The train
    moved slowly up the hill like a falcon.")."""
    antonyms = load_antonyms()
    adjective = manner_adjective(literal, antonyms)
    if adjective is None:
        return set()
    items = []
    for i, c in enumerate(candidates):
        m = _LIKE.fullmatch(c.phrase) if c.kind == "verb" else None
        if not m:
            continue
        items.append((i, (0, *probe(adjective, m.group(1)))))
    if not items:
        return set()
    found = find_ironies(shared(lm), [item for _, item in items], antonyms, margin=ADVERB_OPPOSITE_MARGIN)
    return {i for (i, _), hit in zip(items, found) if hit is not None}


# an "as ADJ as V" or a manner adverb's "like V" candidate is also dropped when the simile KB knows V for an antonym
# of ADJ (`irony.opposite_in_kb`: "…walked slowly … like a deer": the KB's deer is fast; the polisher finds deer no
# likelier after "fast")
# why: docs/experiments.md#polish-opposite-in-kb
def opposite_kb_images(kb, candidates, literal: str) -> set[int]:
    """Indices of the "as ADJ as V" candidates, and of the "like V" candidates of a sentence with a manner adverb,
    whose vehicle the simile KB knows for the opposite of ADJ (`opposite_in_kb`). The antonyms alone: their also-see
    words mix senses ("soft" → "tough" dropped "He spoke softly like a lamb.").
    Why: docs/experiments.md#polish-opposite-also-see"""
    antonyms = load_antonyms()
    manner = manner_adjective(literal, antonyms)
    out = set()
    for i, c in enumerate(candidates):
        if c.kind == "adjective":
            adjective = c.cue
        elif c.kind == "verb" and manner and _LIKE.fullmatch(c.phrase):
            adjective = manner
        else:
            continue
        if opposite_in_kb(kb, adjective, c.vehicle, antonyms):
            out.add(i)
    return out


def _vehicle_key(vehicle: str, kb) -> str:
    if is_clause(vehicle):
        return re.sub(r"\W+", " ", vehicle.lower())
    return kb.lemma(kb.head(vehicle)) if kb.head(vehicle) else vehicle.lower()


MAX_VARIANTS = 1  # members of a near-duplicate group that are scored (the rest are merged unscored)


def merge_near_duplicates(rows, kb):
    """Near duplicates — the same vehicle head ("a boy", "a little boy"; or one vehicle at two slots), or the same
    words written apart or together ("sea water", "seawater"; "ice-cream") — form one group, of which the first
    MAX_VARIANTS proposals are scored and the best kept; returns (groups, merged)."""
    groups: dict[str, list] = {}
    spelt: dict[str, str] = {}  # the vehicle's letters without articles, spaces and hyphens -> its group
    for r in rows:
        letters = re.sub(r"[\s-]+", "", re.sub(r"^(?:a|an|the)\s+", "", r["vehicle"].lower()))
        groups.setdefault(spelt.setdefault(letters, _vehicle_key(r["vehicle"], kb)), []).append(r)
    out = [members[:MAX_VARIANTS] for members in groups.values()]
    return out, sum(len(m) - 1 for m in groups.values())


_DETERMINERS = {"a", "an", "the", "some", "any", "my", "your", "his", "her", "its", "our", "their", "this", "that",
                "these", "those", "old", "little", "big", "great", "very", "one", "two"}


def modifiers(vehicle: str, kb) -> set[str]:
    """The content words of a vehicle before its head noun ("a mournful sigh" → {"mournful"}; "a bag of sand" →
    set()); "as if" clauses have none. Two vehicles sharing one are near duplicates of one image pattern
    ("a mournful sigh", "a mournful cry")."""
    if is_clause(vehicle):
        return set()
    words = WORD.findall(vehicle.lower())
    head = kb.head(vehicle) if kb is not None else (words[-1] if words else "")
    out = set()
    for w in words:
        if w == head or (kb is not None and kb.lemma(w) == head) or w in ("of", "in", "on", "with"):
            break
        if w not in _DETERMINERS and len(w) > 2:
            out.add(w)
    return out


def distinct_images(ranked: list[Candidate], kb) -> tuple[list[Candidate], int]:
    """Best first, a candidate is kept unless a better one already has its vehicle head, a head that names the same
    image by WordNet ("a tomb" after "a grave", `nouns.same_image`), or shares a modifier with it (near duplicates);
    returns (kept, merged). Why: docs/experiments.md#polish-same-image"""
    kept, heads, mods, merged = [], set(), set(), 0
    for c in ranked:
        head, own = _vehicle_key(c.vehicle, kb), modifiers(c.vehicle, kb)
        if head in heads or own & mods or any(same_image(head, h) for h in heads):
            merged += 1
            continue
        kept.append(c)
        heads.add(head)
        mods |= own
    return kept, merged
