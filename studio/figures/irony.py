"""Ironic similes: "Her voice was as loud as a whisper." says that the voice was soft.

An NLI model reads the words "as loud as" and calls the simile an entailment of "Her voice was very loud."; what makes
it ironic is the vehicle, which the words alone do not say. The language model knows it: for an "as P as V" (or
"P as V") simile and P's antonyms A (WordNet, `studio/figures/antonyms.py`), the margin

    m = max_A  log P(V | the words before it, with A for P)  −  log P(V | the words before it)

is how much likelier V is as an image of A than of P ("a whisper" after "as soft as" rather than "as loud as":
+5.6 nats with the offline LM). When m ≥ IRONY_MARGIN the simile is read literally, "as loud as a whisper" →
"very soft", and logical consistency is the NLI's verdict on (literal sentence, that reading).

IRONY_MARGIN was fitted on train data with the offline LM; a larger LM (hub profile) has other log-probabilities,
and the margin was not refitted for it.
Why: docs/experiments.md#hauser-irony-margin
"""
from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass

from .components import is_relative_pronoun

#: nats; see the module docstring
IRONY_MARGIN = 4.0
#: nats, the writer's margin beside the small LM's: the smallest of 2, 2.5, …, 4 that reads none of the KB's sincere
#: "as P as V" similes as ironic (the LM's 4.0 reads 1 of 211); either model's reading makes a simile ironic
#: why: docs/experiments.md#hauser-writer-irony
WRITER_IRONY_MARGIN = 3.5
_AS_COMPARATORS = ("as ... as", "ADJ as")
#: words that measure an "as P as" comparison rather than assert P ("twice as tall as", "half as long as")
_MEASURES = {"twice", "thrice", "half", "times", "nearly", "almost", "not", "never", "hardly", "quarter", "third"}


@dataclass(frozen=True)
class Irony:
    property: str
    antonym: str
    margin: float  # nats the vehicle gains after the antonym
    reading: str  # the candidate with its simile read literally ("Her voice was very soft.")

    def to_dict(self) -> dict:
        return {**asdict(self), "margin": round(self.margin, 3)}


#: a vehicle the simile KB knows for an antonym of P at least this plausibly (about one attested instance), and for P
#: less, among its KB_TOP likeliest properties, suits the opposite of P (`opposite_in_kb`)
#: why: docs/experiments.md#polish-opposite-in-kb
KB_OPPOSITE_MIN = 0.9
KB_TOP = 30
#: a negation in the literal sentence ("The crowd was not loud") keeps `states_property` from deciding
_NEGATION = re.compile(r"\b(?:not|never|no|nothing|nobody|none|without|neither|nor)\b|n['’]t\b", re.IGNORECASE)


def states_property(literal: str, irony: Irony) -> bool:
    """Whether the literal sentence itself says the ironic simile's property, unnegated ("SHE IS REALLY FAST!!" for
    "She's as fast as a snail."): read literally ("very slow"), the candidate then says the opposite of the literal, a
    contradiction by construction, which the NLI does not always see (it calls "She is really fast." → "She is very
    slow." an entailment). On FLUTE simile train all 7 such pairs are contradictions; the served NLI sees 2.
    Why: docs/experiments.md#hauser-irony-states-property"""
    return not _NEGATION.search(literal) and _says(literal, irony.property)


#: a negation and the degree words that may stand between it and the adjective it negates ("not very hot")
_NEGATED = r"(?:\bnot|\bnever|n['’]t)\s+"
_DEGREES = r"(?:(?:very|so|too|that|all|particularly|really|quite|especially|terribly|at all)\s+)*"


def negated_reading(literal: str, candidate: str, simile, irony: Irony | None,
                    antonyms: dict) -> tuple[str, str] | None:
    """For a candidate that reads as "very Q" (a sincere "as Q as V" or "Q as V", Q the property it states; an ironic
    one, Q the antonym it is read as) after a literal sentence that negates Q or an antonym of Q: ("contradicts", the
    words) when the literal says "not Q" ("The river was not slow." → "…as slow as a snail"; degree words between
    allowed, "not very slow"), ("agrees", the words) when it says "not A" right before A, an antonym of Q ("…as fast
    as a cheetah"; "not very hot" is no "cold"); None otherwise. The NLI reads "The river was not slow." → "The river
    was very slow." as an entailment. Why: docs/experiments.md#hauser-negated-property"""
    if irony is not None:
        q = irony.antonym
    elif stated_reading(candidate, simile) is not None:
        q = candidate[slice(*simile.spans["property"])]
    else:
        return None
    q, kept = q.lower(), " ".join(candidate.lower().split())
    said = re.search(_NEGATED + _DEGREES + rf"{re.escape(q)}(?![\w-])", literal, re.IGNORECASE)
    if said:
        words = " ".join(said.group(0).split())
        # the candidate keeps the negated words: its simile is of another clause ("The boat was not slow, but the
        # river was as slow as a snail."), and the NLI decides
        return None if words.lower() in kept else ("contradicts", words)
    for a in antonyms.get(q, ()):
        said = re.search(_NEGATED + rf"{re.escape(a)}(?![\w-])", literal, re.IGNORECASE)
        if said:
            words = " ".join(said.group(0).split())
            return None if words.lower() in kept else ("agrees", words)
    return None


def opposite_in_kb(kb, adjective: str, vehicle: str, antonyms: dict) -> str | None:
    """The antonym of `adjective` the simile KB knows `vehicle` for (plausibility at least KB_OPPOSITE_MIN, above the
    adjective's own, among its KB_TOP properties), or None: ("slow", "a deer") → "fast"; a clause ("as if …") has
    none."""
    opposites = antonyms.get(adjective.lower(), ())
    if not opposites or vehicle.lower().startswith(("as if ", "as though ")):
        return None
    props = dict(kb.properties_of_vehicle(vehicle, k=KB_TOP))
    weight, best = max(((props.get(kb.lemma(a), 0.0), a) for a in opposites), default=(0.0, None))
    return best if weight >= KB_OPPOSITE_MIN and weight > props.get(kb.lemma(adjective.lower()), 0.0) else None


def literal_reading(candidate: str, simile, antonym: str) -> str:
    """The candidate with "as P as V" (or "P as V") replaced by "very A", its spaces closed up (a tag read as blanks
    leaves a run of them). V runs on over its own participle or relative clause (`image_end`)."""
    a, b = simile.spans["comparator"][0], image_end(candidate, simile)
    return " ".join((candidate[:a] + "very " + antonym + candidate[b:]).split())


def image_end(candidate: str, simile) -> int:
    """Where the simile's image ends: the vehicle span's end, or, where a participle or a relative pronoun follows it
    straight away, the end of its clause (`_ends_clause`: a comma, semicolon, colon, spaced dash, opening bracket or
    quote, a conjunction before a new subject, else the sentence's last word):
    "as light as a soap bubble drifting over a meadow", "as dark as the inside of a cow that nobody had fed". The
    parser hangs such words on the verb as often as on the image, so its tags are read, not its tree.
    why: docs/experiments.md#hauser-image-end"""
    b = simile.spans["vehicle"][1]
    if not candidate[b:].strip()[:1].isalpha():  # the image ends the sentence or its clause: no parse needed
        return b
    from ..models import get_registry

    doc = _parse(get_registry().get("parser"), candidate)
    after = next((t for t in doc if t.idx >= b), None)
    # "that" opens a relative clause where it is no determiner ("a cow that nobody had fed", not "that evening")
    if after is None or not (after.tag_ in ("VBG", "VBN") or is_relative_pronoun(after)
                             or after.lower_ == "that" and after.tag_ != "DT"):
        return b
    end = b
    for t in doc[after.i:]:
        if t.i > after.i and (t.is_sent_start or _ends_clause(t)):
            break
        if not t.is_punct:
            end = t.idx + len(t)
    return end


#: the marks that end the clause an image's participle or relative clause runs to; an opening bracket or quote (what
#: follows is an aside); a dash only with spaces about it ("well-lit", "10-15" are one word)
_CLAUSE_END = {",", ";", ":", "–", "—", ".", "!", "?", "…", "(", "[", "\"", "“", "‘"}


def _ends_clause(t) -> bool:
    """Whether a token ends the clause an image runs on in: a mark of `_CLAUSE_END`, a spaced dash, or a
    coordinating conjunction before a new subject ("…drifting over a meadow and I carried it home")."""
    if t.text in _CLAUSE_END or t.text == "-" and t.whitespace_ and t.i > 0 and t.nbor(-1).whitespace_:
        return True
    nxt = t.nbor(1) if t.i + 1 < len(t.doc) else None
    return t.tag_ == "CC" and nxt is not None and (nxt.dep_ in ("nsubj", "nsubjpass") or nxt.tag_ == "PRP")


@functools.lru_cache(maxsize=1024)
def _parse(parser, text: str):
    """The parse of a candidate, memoised per parser (a registry that swapped its parser parses again)."""
    return parser(text)


def stated_reading(candidate: str, simile) -> str | None:
    """The candidate with its "as P as V" (or "P as V") simile read as the property it states, "very P" ("The coffee
    was as bitter as regret." → "The coffee was very bitter."); None for a simile of another form."""
    if simile is None or simile.comparator not in _AS_COMPARATORS or "property" not in simile.spans \
            or "vehicle" not in simile.spans:
        return None
    before = candidate[:simile.spans["comparator"][0]].split()
    if before and before[-1].lower() in _MEASURES:  # "twice as sweet as honey" is no "very sweet"
        return None
    pa, pb = simile.spans["property"]
    return literal_reading(candidate, simile, candidate[pa:pb])


def contrast_contexts(candidate: str, simile, antonyms: dict) -> list[tuple[str, str]]:
    """(antonym, the words before the vehicle with the antonym for the property) for a simile whose property has
    antonyms; [] for any other simile."""
    if simile is None or simile.comparator not in _AS_COMPARATORS or "property" not in simile.spans:
        return []
    pa, pb = simile.spans["property"]
    prop = candidate[pa:pb].lower()
    va = simile.spans["vehicle"][0]
    return [(a, " ".join((candidate[:pa] + a + candidate[pb:va]).split())) for a in antonyms.get(prop, ())]


def find_served_ironies(lm, writer, items, antonyms: dict) -> list[Irony | None]:
    """The served check: item by item, the irony the small LM (`IRONY_MARGIN`) or the writer (`WRITER_IRONY_MARGIN`;
    None: not served) finds, the larger margin's when both do. `lm`, `writer`: their memoising `LMFeatures`."""
    by_lm = find_ironies(lm, items, antonyms)
    if writer is None:
        return by_lm
    by_writer = find_ironies(writer, items, antonyms, WRITER_IRONY_MARGIN)
    return [b if a is None else a if b is None or a.margin >= b.margin else b for a, b in zip(by_lm, by_writer)]


def find_ironies(features, items, antonyms: dict, margin: float | None = None) -> list[Irony | None]:
    """One Irony (or None) per (group, candidate, similes) item, for its first simile with a vehicle; `features`
    is the LM's memoising `LMFeatures`; `margin` defaults to IRONY_MARGIN."""
    margin = IRONY_MARGIN if margin is None else margin
    out = []
    for plan in _antonym_gains(features, items, antonyms, reach=margin):
        if plan is None:
            out.append(None)
            continue
        candidate, s, gains = plan
        best, gain = max(gains.items(), key=lambda x: x[1])
        prop = candidate[slice(*s.spans["property"])]
        out.append(Irony(prop, best, gain, literal_reading(candidate, s, best)) if gain >= margin else None)
    return out


def _antonym_gains(features, items, antonyms: dict, only=None, reach: float | None = None) -> list:
    """Per (group, candidate, similes) item, None or (candidate, its first simile, {antonym A: log P(V | the words
    before V with A for P) − log P(V | the words before V)}) for the antonyms of its stated property P (those in
    `only`'s entry for the item when given); one memoised LM call for all. With `reach`, only the gains that could
    reach it are asked for: a log-probability is at most 0, so a gain is at most −log P(V | the words before V), and
    an item whose vehicle the memo already holds as likelier than e^−reach in its own sentence (the writer's, from
    its fits) gets None without its antonyms' contexts being run. Only memoised values prune: a pass of its own would
    change what shares the others' passes, and llama.cpp rounds a log-probability by up to 0.2 nats with that."""
    from .lm_features import contexts, first_vehicle

    plans = []
    for k, (group, candidate, similes) in enumerate(items):
        s = first_vehicle(similes)
        alts = [(a, alt) for a, alt in contrast_contexts(candidate, s, antonyms) if only is None or a in only[k]]
        if not alts:
            plans.append(None)
            continue
        before, _, vehicle = contexts(candidate, s)
        plans.append((group, candidate, s, before, vehicle, alts))
    if reach is not None:
        own = features.known([(p[0], p[3], p[4]) for p in plans if p is not None])
        plans = [p if p is not None and own.get((p[0], p[3], p[4]), -reach) <= -reach else None for p in plans]
    asks = [ask for p in plans if p is not None
            for ask in [(p[0], p[3], p[4])] + [(p[0], alt, p[4]) for _, alt in p[5]]]
    values = dict(zip(asks, features.in_context(asks))) if asks else {}
    out = []
    for plan in plans:
        if plan is None:
            out.append(None)
            continue
        group, candidate, s, before, vehicle, alts = plan
        base = values[(group, before, vehicle)]
        out.append((candidate, s, {a: values[(group, alt, vehicle)] - base for a, alt in alts}))
    return out


def stated_opposites(literal: str, prop: str, antonyms: dict, predicated: dict | None = None) -> list[str]:
    """The antonyms of `prop` the literal sentence itself says, unnegated, when it does not say `prop` too ("quiet"
    for "noisy" in "The old house was very quiet at night."). `predicated`: {prop: words} of `antonyms`' that count
    only when the sentence says them of its subject ("The room was very loud."): WordNet's also-see words, whose
    sense an attributive use does not fix ("The tough old dog …" is no opposite of "as soft as a cloud")."""
    if _NEGATION.search(literal) or _says(literal, prop):
        return []
    only_said_of = set((predicated or {}).get(prop.lower(), ()))
    return [a for a in antonyms.get(prop.lower(), ())
            if (_predicates(literal, a) if a in only_said_of else _says(literal, a))]


#: a linking verb and the degree words that may stand between it and its adjective
_PREDICATING = (r"\b(?:is|was|were|are|am|be|been|being|seems?|seemed|looks?|looked|feels?|felt|sounds?|sounded|"
                r"becomes?|became|gets?|got|grew|grows?|remains?|remained|stays?|stayed)\s+(?:(?:very|so|really|"
                r"quite|extremely|incredibly|too|rather|pretty|terribly|awfully|all)\s+)*")


def _predicates(text: str, word: str) -> bool:
    return re.search(_PREDICATING + rf"{re.escape(word.lower())}(?![\w-])", text.lower()) is not None


def _says(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])", text.lower()) is not None


def find_served_opposites(lm, writer, items, literals: list[str], antonyms: dict,
                          ironies: list[Irony | None], predicated: dict | None = None) -> list[str | None]:
    """Per item, the antonym A of its sincere "as P as V" simile's property that the literal sentence says, or None:
    "The old house was as noisy as a rock concert at night." after "…was very quiet at night." → "quiet". Sincere: not
    read as ironic (`ironies`), and V no likelier after A than after P for the small LM nor for the writer (a rock
    concert: −2.5 and −6.1 nats), which is what keeps out the ironic similes both margins miss ("as sweet as a lemon"
    after "…was sour": +1.4 and +1.1). The simile then says the opposite of the sentence's own word, a contradiction
    by construction. Needs the writer (None: nothing is found): the small LM alone finds "a rock" no likelier after
    "dull" than after "sharp". `antonyms`: what a sentence may say against P (antonyms.load_opposites: the plain
    antonyms and WordNet's also-see words of their senses, "loud" for "quiet"); `predicated`: those of them that
    count only when said of the subject (antonyms.load_also_see, `stated_opposites`).
    Why: docs/experiments.md#hauser-stated-opposite, #hauser-also-see-opposites"""
    if writer is None:
        return [None] * len(items)
    from .lm_features import first_vehicle

    only = []
    for (_, candidate, similes), literal, irony in zip(items, literals, ironies):
        s = first_vehicle(similes)
        ok = irony is None and stated_reading(candidate, s) is not None \
            and not _NEGATION.search(candidate[:s.spans["comparator"][0]])  # "…wasn't as noisy as…" agrees
        only.append(stated_opposites(literal, candidate[slice(*s.spans["property"])], antonyms, predicated)
                    if ok else [])
    by_lm, by_writer = _antonym_gains(lm, items, antonyms, only), _antonym_gains(writer, items, antonyms, only)
    out = []
    for a, b in zip(by_lm, by_writer):
        found = [x for x in (a[2] if a else {}) if a[2][x] <= 0 and b is not None and b[2].get(x, 1.0) <= 0]
        out.append(found[0] if found else None)
    return out
