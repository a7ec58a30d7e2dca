"""Training pairs for the NLI cross-encoder that teach what a simile's vehicle implies (training only, never served).

From the studio's simile KB (built from train parts only, `python -m studio build kb`) and WordNet's adjective
antonyms (Debian `wordnet-base`: /usr/share/wordnet/data.adj; direct antonyms only — a satellite's head's antonyms
were too loose: "quiet" ↔ "fatty"), for a property P with an antonym A, a vehicle V typical of P and a vehicle W typical of A:

    "The T was very P."  →  "The T was as P as a V."    entailment
    "The T was very A."  →  "The T was as P as a V."    contradiction   (FLUTE's construction)
    "The T was very P."  →  "The T was as P as a W."    contradiction   (an ironic simile: "as loud as a whisper")
    "The T was very P."  →  "The T was like a V."       entailment
    "The T was very P."  →  "The T was like a W."       contradiction

T is a topic the KB pairs with V (or "it"). Seeded; a property and its vehicles are drawn uniformly.
"""
from __future__ import annotations

import random
from collections import defaultdict

from ...figures.articles import with_indefinite_article
from ..similes.antonyms_build import WORDNET_ADJ, wordnet_antonyms  # noqa: F401 (re-exported for training)


def kb_pairs(n: int, seed: int = 0, kb=None, antonyms: dict[str, set[str]] | None = None):
    """About n (premise, hypothesis, label) rows, balanced between entailment and contradiction."""
    from ...figures.kb import load_kb

    kb = kb or load_kb()
    antonyms = antonyms if antonyms is not None else wordnet_antonyms()
    rng = random.Random(seed)
    props = sorted(p for p in kb.properties() if p in antonyms and p.isalpha())
    by_prop = {p: [v for v, _ in kb.vehicles_for_property(p, k=30)] for p in props}
    topics = _topics(kb)
    usable = [(p, a) for p in props for a in sorted(antonyms[p]) if by_prop.get(p) and
              (by_prop.get(a) or [v for v, _ in kb.vehicles_for_property(a, k=30)])]
    if not usable:
        return []
    rows = []
    while len(rows) < n:
        p, a = rng.choice(usable)
        vs = by_prop[p]
        ws = by_prop.get(a) or [v for v, _ in kb.vehicles_for_property(a, k=30)]
        v, w = rng.choice(vs), rng.choice(ws)
        if v == w:
            continue
        the_t = _the_topic(rng.choice(topics.get(v) or ["it"]))
        if the_t is None:
            continue
        sv, sw = _with_article(kb, v), _with_article(kb, w)
        if not (sv and sw):
            continue
        kind = rng.choice((0, 0, 1, 2, 3, 3, 4))  # as many entailments as contradictions
        if kind == 0:
            rows.append((f"{the_t} was very {p}.", f"{the_t} was as {p} as {sv}.", "entailment"))
        elif kind == 1:
            rows.append((f"{the_t} was very {a}.", f"{the_t} was as {p} as {sv}.", "contradiction"))
        elif kind == 2:
            rows.append((f"{the_t} was very {p}.", f"{the_t} was as {p} as {sw}.", "contradiction"))
        elif kind == 3:
            rows.append((f"{the_t} was very {p}.", f"{the_t} was like {sv}.", "entailment"))
        else:
            rows.append((f"{the_t} was very {p}.", f"{the_t} was like {sw}.", "contradiction"))
    return rows


def _topics(kb) -> dict[str, list[str]]:
    """{vehicle: the short topics the KB pairs with it}."""
    topics = defaultdict(list)
    for key in kb._pairs:
        t, v = key.split("\t")
        if t.isascii() and len(t.split()) <= 3:
            topics[v].append(t)
    return topics


def _the_topic(t: str) -> str | None:
    if t in _PRONOUNS:
        return _PRONOUNS[t]
    if t.split()[0] in _SKIP_TOPIC_WORDS:
        return None
    return f"The {t}"


def _with_article(kb, vehicle: str) -> str | None:
    sv = kb.surface(vehicle)
    if not _clean(sv):
        return None
    return sv if sv.split()[0].lower() in ("a", "an", "the") else _article(sv)


_PRONOUNS = {"it": "It", "he": "He", "she": "She", "him": "He", "her": "She", "this": "This", "that": "That"}
_SKIP_TOPIC_WORDS = {"i", "you", "we", "they", "me", "us", "them", "everybody", "everyone", "one", "who", "which",
                     "what", "there", "nothing", "something", "anything", "all", "his", "my", "your", "our", "their"}


def _clean(vehicle: str) -> bool:
    """A vehicle that reads well after "as P as" / "like": no possessive or pronoun start, letters only."""
    first = vehicle.split()[0].lower()
    return first not in _SKIP_TOPIC_WORDS | {"her", "its", "such", "these", "those", "this", "that", "some"} and \
        all(w.replace("-", "").isalpha() for w in vehicle.split())


def _article(noun: str) -> str:
    if noun.endswith("s") and not noun.endswith("ss"):
        return noun  # a plural: "as quiet as mice"
    return with_indefinite_article(noun)
