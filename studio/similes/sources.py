"""Polish's sources of vehicles (its strategies): the writer polisher's samples (lm), the writer's own images
(writer), the image table (images), BM25 retrieval over the simile KB (retrieval), the KB's vehicles for a property
(property) and its most frequent vehicles (insertion)."""
from __future__ import annotations

import re

from ..models import ModelUnavailable, get_registry
from .polisher import LM_MAX_SAMPLES, prompt
from .realiser import JUNK_HEADS
from .slots import NOT_MANNER, Slot


#: the lm source samples this many times the vehicles it is asked for (+ 6), at most LM_MAX_SAMPLES per slot
#: (WRITER_POLISHER_SAMPLES when the writer polisher proposes), and the polisher's score picks among them
#: why: docs/experiments.md#polish-lm-oversample
LM_OVERSAMPLE = 5
#: an adjective slot's property source offers this many of the KB's vehicles for the adjective (at least)
#: why: docs/experiments.md#polish-attested-bonus
PROPERTY_WANT_ADJECTIVE = 20
_CUT = re.compile(r"[.,;:!?\"\n()]|\s(?:and|but|who|which|that|when|because|while|so|then|until)\b")


def _resumes(rest: str) -> str:
    """What shows that a sample has reached the literal's own text (`rest`): its next word after a space, or that
    word's first sign when it begins with one ("" for no text)."""
    lead = rest.split()[0] if rest.strip() else ""
    return (" " + lead if lead[0].isalnum() else lead[0]) if lead else ""


def _cut(text: str, rest: str) -> str:
    """A sample's vehicle: its text up to where the literal's own text (`rest`) resumes, then up to a `_CUT`."""
    word = _resumes(rest)
    i = text.find(word) if word else -1
    if i >= 0:
        text = text[:i]
    return _CUT.split(text, maxsplit=1)[0].strip()


def _settled(rest: str) -> tuple[str, ...]:
    """Texts after which a sample's `_cut` can no longer change, so its row may stop decoding: the literal's next
    word as the cut finds it (`_resumes`), or a `_CUT` mark that this word does not contain ("\n" ends a row anyway:
    it is `sample_shared`'s stop). Once a row holds the word whole, the cut is at its first occurrence; once it holds
    such a mark, no later text can bring the word's first occurrence or a `_CUT` match before the mark (the word
    would have to span the mark). The vehicles are those of whole rows, up to llama.cpp's arithmetic, which depends
    a little on which rows share a batch (docs/experiments.md#polish-settled-rows)."""
    word = _resumes(rest)
    return tuple(dict.fromkeys(m for m in (word, *'.,;:!?"()') if m and (m == word or m not in word)))


def vehicles_by_lm(lm, trained, literal, slots, seed, want, tick=None,
                   max_samples=LM_MAX_SAMPLES) -> list[tuple[Slot, str]]:
    """The polisher (or the writer polisher) continues "Literal: …\\nSimile: <sentence up to the slot> like" (or
    "as ADJ as") with a vehicle; at most `max_samples` a slot, sampled with the seed, cut where the literal's own text
    resumes. `tick(fraction, what)` after each decoding step, so that progress follows the sampling."""
    chosen = slots[:1] if want <= 8 else slots[:2]  # one slot for 10 candidates: half the decoding
    base = prompt(literal, trained) + " "
    per = min(max_samples, (-(-want // len(chosen)) + 6) * LM_OVERSAMPLE)  # the best source: more samples
    out = []
    for k, slot in enumerate(chosen):
        context = base + literal[:slot.start].rstrip() + " " + slot.opener()
        rest = literal[slot.end:].strip()
        def on_step(done, steps, k=k):
            if tick is not None:
                tick((k + done / steps) / len(chosen), f"proposing {per} comparisons, step {done}/{steps}"
                     + (f" (slot {k + 1}/{len(chosen)})" if len(chosen) > 1 else ""))

        for text in lm.sample_shared(context, per, max_new_tokens=8, top_k=30, temperature=0.8, seed=seed + k,
                                     until=_settled(rest), on_step=on_step):
            text = _cut(text, rest)
            if text and slot.kind == "verb" and text.lower().startswith(("if ", "though ")):
                continue  # "like if …" is not English; the polisher's "as if" comes from its own opener
            if text:
                out.append((slot, text))
    return out


def vehicles_by_writer(literal, slots, seed, domain, register, tick) -> list[tuple[Slot, str]]:
    """The writer's images for the best slot (writer_vehicles.py), best first; `tick(fraction, what)` as they grow."""
    from .writer_vehicles import LISTS, PER_LIST, propose

    slot = slots[0]
    writer = get_registry().get("writer")
    completion = literal[:slot.start].rstrip() + " " + slot.opener()
    grown = [0]

    def on_text(i, text):
        grown[0] += 1
        tick(min(1.0, grown[0] / (LISTS * PER_LIST * 5)), "the writer proposes images")

    return [(slot, v) for v in propose(writer, literal, completion, seed=seed, domain=domain, register=register,
                                       on_text=on_text)]


def _manner_adjectives(verb) -> list[str]:
    """The adjectives a verb's manner adverbs may come from, likeliest first: "limped slowly" → slow, "laughed
    happily" → happy, "spoke gently" → gentle, "waved frantically" → frantic (the table knows which exist)."""
    out = []
    for child in verb.children:
        word = child.lower_
        if child.dep_ == "advmod" and word.endswith("ly") and word not in NOT_MANNER and len(word) > 4:
            out += [word[:-2], word[:-3] + "y", word[:-2] + "le", word[:-4]]
    return list(dict.fromkeys(out))


def vehicles_by_images(slots, doc) -> list[tuple[Slot, str]]:
    """The image table's images (images.py) for the best slot's adjective, or for the adjective of its verb's manner
    adverb ("limped slowly" → slow), in the table's order."""
    from .images import images

    slot = slots[0]
    if slot.kind == "adjective":
        words = [slot.anchor.lower()]
    else:
        verb = next((t for t in doc if t.text == slot.verb and t.pos_ in ("VERB", "AUX")), None)
        words = _manner_adjectives(verb) if verb is not None else []
    for word in dict.fromkeys(words):
        if found := images(word):
            return [(slot, image) for image, *_ in found]
    return []


def vehicles_by_retrieval(kb, slots, doc, want) -> list[tuple[Slot, str]]:
    from .retrieval import search

    out = []
    for slot in slots[:1] if want <= 8 else slots[:2]:
        out += _usable_vehicles(kb, slot, search(kb, slot.words, k=40), want)
    return out


def _usable_vehicles(kb, slot, ranked, want) -> list[tuple[Slot, str]]:
    """The first `want` of the KB's ranked (vehicle, score) that are usable images of at most four words, as written."""
    out = []
    for vehicle, _score in ranked:
        if len(out) >= want:
            break
        if len(vehicle.split()) <= 4 and _usable_vehicle(kb, vehicle):
            out.append((slot, kb.surface(vehicle)))
    return out


def vehicles_by_property(kb, lm, literal, doc, slots, want, adjectives_only=False) -> list[tuple[Slot, str]]:
    """The adjective slot's own adjective, else (unless `adjectives_only`) the event's salient property → the KB's
    vehicles for it."""
    out = []
    adjective = next((s for s in slots if s.kind == "adjective"), None)
    if adjective is not None:
        props, slot = [(adjective.anchor.lower(), 0.0)], adjective
    elif adjectives_only:
        return []
    else:
        props, slot = salient_properties(kb, lm, literal, doc), slots[0]
    pool = 30
    if adjective is not None:
        want = max(want, PROPERTY_WANT_ADJECTIVE)
        pool = max(pool, 2 * want)
    for prop, _ in props[:1] if want <= 8 else props[:2]:
        out += _usable_vehicles(kb, slot, kb.vehicles_for_property(prop, k=pool), want)
    return out


def vehicles_by_insertion(kb, slots, want) -> list[tuple[Slot, str]]:
    common = _frequent_vehicles(kb)
    return [(slots[0], kb.surface(v)) for v in common[:want]]


_FREQUENT: dict[int, tuple[str, ...]] = {}


def _frequent_vehicles(kb) -> tuple[str, ...]:
    if id(kb) not in _FREQUENT:
        ranked = sorted(kb.vehicles(), key=lambda v: (-kb.vehicle_freq(v).value, v))
        _FREQUENT.clear()
        _FREQUENT[id(kb)] = tuple(v for v in ranked if len(v.split()) <= 3 and _usable_vehicle(kb, v))[:60]
    return _FREQUENT[id(kb)]


def salient_properties(kb, lm, literal: str, doc, k: int = 5) -> list[tuple[str, float]]:
    """The property the sentence's event/topic suggests: an explicit adjective if there is one; otherwise the KB
    properties nearest to the event and topic words by the embedder, re-ranked by the lm in context."""
    import numpy as np

    from .retrieval import word_matrix

    explicit = [t.lower_ for t in doc if t.pos_ == "ADJ" and t.dep_ in ("acomp", "oprd")]
    if explicit:
        return [(explicit[0], 0.0)]
    counts = kb.property_counts()
    pool = tuple(p for p, c in sorted(counts.items(), key=lambda x: (-x[1], x[0]))
                 if " " not in p and p.isalpha() and len(p) > 2 and c >= 1.5)[:400]
    cues = [t.lemma_.lower() for t in doc if t.pos_ in ("VERB", "NOUN", "ADJ", "ADV") and t.is_alpha]
    shortlist = list(pool[:15])
    if cues:
        try:
            embedder = get_registry().get("embedder")
            sims = word_matrix(embedder, kb.meta.get("digest", ""), "properties", pool) @ \
                embedder.encode([" ".join(cues)])[0]
            shortlist = [pool[i] for i in np.argsort(-sims)[:8]]
        except ModelUnavailable:
            pass
    subj = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    plural = subj is not None and (subj.tag_ in ("NNS", "NNPS") or subj.lower_ in ("they", "we"))
    context = f"{literal.rstrip('.!?')}, {'they are' if plural else 'it is'} very"
    scores = lm.loglik([context] * len(shortlist), [" " + p for p in shortlist])
    ranked = sorted(((p, lp) for p, (lp, _n) in zip(shortlist, scores)), key=lambda x: -x[1])
    return ranked[:k]


def _usable_vehicle(kb, vehicle: str) -> bool:
    """A vehicle that reads as an image: not a pronoun or quantity word, not a dangling possessive."""
    head = kb.head(vehicle)
    return head.isalpha() and head not in JUNK_HEADS and not vehicle.endswith(("'s", "'"))
