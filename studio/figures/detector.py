"""The simile detector, built on the extractor.

A sentence without an extracted simile is literal. When the extractor finds one, a small logistic regression
over the extraction (comparator, governing verb, kind of topic and vehicle, words around the comparator)
decides between a figurative comparison and the many literal readings a parse cannot tell apart
("it looked like the right time", "is like an elder brother"). The weights are trained on
detection_train.csv and FLUTE's written similes by `python -m studio train simile-detector`
(studio/lab/similes/train_detector.py, never imported here) and committed as assets/similes/detector.json (feature
weights). The asset also holds the KB's mining weights (MAPS-KB's rows alone, `mining_probability`), with which the
committed KB was mined.
"""
from __future__ import annotations

import functools
import json
import math
from typing import NamedTuple

from .components import Simile
from .nouns import kind_of, lemma as noun_lemma
from ..paths import PROJECT_ROOT

ASSET = PROJECT_ROOT / "assets" / "similes" / "detector.json"
_PERCEPTION = {"look", "seem", "feel", "sound", "appear", "smell", "taste"}
_EXPLETIVES = {"it", "this", "that", "there", "what", "which"}


def features(simile: Simile, doc, vocab: dict[str, int] | None = None) -> dict[str, float]:
    """Sparse features of one extracted simile in its parsed sentence. `vocab`: how often each vehicle head is a
    vehicle in the annotated simile corpora (concrete image nouns are; "time", "fun", "idea" hardly)."""
    vocab = _vocab() if vocab is None else vocab
    f: dict[str, float] = {"bias": 1.0, f"comp={simile.comparator}": 1.0}
    a, _ = simile.spans["comparator"]
    trig = next((t for t in doc if t.idx >= a), None)
    if simile.comparator == "like":
        trig = _like_token(simile, doc) or trig
    event = (simile.heads.get("event") or "").lower()
    ev_tok = _token_at(doc, simile.spans.get("event"))
    lemma = ev_tok.lemma_.lower() if ev_tok is not None else ""
    f[f"event_lemma={lemma if lemma in _PERCEPTION | {'be', 'become', 'act', 'shape', 'make'} else 'other'}"] = 1.0
    f["event_none"] = float(not event)
    if lemma:
        f[f"event={lemma}"] = 1.0
    topic = (simile.heads.get("topic") or simile.topic or "").lower()  # the head word, not the phrase
    f["topic_expletive"] = float(topic in _EXPLETIVES)
    f["topic_pron"] = float(topic in {"i", "you", "he", "she", "we", "they", "me", "him", "her", "us", "them"})
    f["topic_none"] = float(not topic)
    v_tok = _token_at(doc, simile.spans.get("vehicle"), head=simile.heads.get("vehicle"))
    if v_tok is not None:
        f[f"vehicle_pos={v_tok.pos_}"] = 1.0
        f[f"vehicle_tag={v_tok.tag_}"] = 1.0
        dets = [c.lower_ for c in v_tok.children if c.dep_ == "det"]
        f[f"vehicle_det={dets[0] if dets else 'none'}"] = 1.0
        f[f"vehicle={v_tok.lemma_.lower()}"] = 1.0
        known = vocab.get(v_tok.lemma_.lower(), 0) + vocab.get(v_tok.lower_, 0)
        f["vehicle_known"] = math.log1p(known) / 3
        f["vehicle_unknown"] = float(known == 0)
        f["vehicle_has_amod"] = float(any(c.dep_ == "amod" for c in v_tok.children))
        f["vehicle_ent"] = float(bool(v_tok.ent_type_))
        f[f"vehicle_ent={v_tok.ent_type_}"] = 1.0 if v_tok.ent_type_ else 0.0
        f["vehicle_has_relcl"] = float(any(c.dep_ in ("relcl", "acl") for c in v_tok.children))
    if trig is not None:
        f[f"trig_head_pos={trig.head.pos_}"] = 1.0
        f[f"trig_dep={trig.dep_}"] = 1.0
        for off in (-2, -1, 1):
            j = trig.i + off
            if 0 <= j < len(doc):
                f[f"w{off}={doc[j].lower_}"] = 1.0
                f[f"p{off}={doc[j].pos_}"] = 1.0
    # like compared with like: the vehicle is someone's ("like his father", "like last year's") or the topic's own
    # kind ("The house looked like every other house")
    f["vehicle_someones"] = float(someones(simile))
    f["same_head"] = float(bool(topic) and v_tok is not None and topic in (v_tok.lower_, v_tok.lemma_.lower()))
    vlen = len((simile.vehicle or "").split())
    f["vehicle_len"] = min(vlen, 8) / 8
    f["n_tokens"] = min(len(doc), 60) / 60
    return f


def _like_token(simile: Simile, doc):
    """The "like" token of a comparison, or None."""
    a, _ = simile.spans["comparator"]
    return next((t for t in doc if t.idx >= a and t.lower_ == "like"), None)


def _token_at(doc, span, head: str | None = None):
    if not span:
        return None
    toks = [t for t in doc if span[0] <= t.idx < span[1]]
    if head:
        for t in toks:
            if t.lower_ == head:
                return t
    return toks[-1] if toks else None


@functools.lru_cache(maxsize=1)
def _asset() -> dict:
    """The committed weights ({} without the file: the extractor's rules trusted)."""
    return json.loads(ASSET.read_text()) if ASSET.is_file() else {}


def _vocab() -> dict[str, int]:
    return _asset().get("vehicle_vocab", {})


def _weights(part: str = "served") -> tuple[dict[str, float], float]:
    """(weights, threshold) of the served detector, or of the KB's mining weights (`part="mining"`)."""
    data = _asset().get("mining", {}) if part == "mining" else _asset()
    return data.get("weights", {}), data.get("threshold", 0.5)


#: what an "as ADJ as NOUN" comparison scores: the learned weights were fitted on sentences with "like" only (MAPS-KB's
#: detection set has no "as … as" simile), and gave "It was as cold as ice." 0.08 and "as happy as a clam" 0.31
AS_AS_PROBABILITY = 0.9
#: a vehicle that is someone's or something's ("as tall as his brother", "as hard as last year's") is compared like
#: with like
POSSESSIVE_WORDS = {"my", "your", "his", "her", "its", "our", "their", "mine", "yours", "hers", "ours", "theirs"}


def learned_probability(simile: Simile, doc) -> float:
    """The logistic regression's probability (1.0 without weights: the extractor's rules trusted)."""
    weights, _ = _weights()
    if not weights:
        return 1.0
    z = sum(weights.get(k, 0.0) * v for k, v in features(simile, doc).items())
    return 1.0 / (1.0 + math.exp(-z))


def mining_probability(simile: Simile, doc) -> float:
    """The KB build's confidence in a simile it mines from text: the weights fitted on MAPS-KB's rows alone, with
    which the committed KB was mined (more cautious than the served ones, which also learnt FLUTE's written
    similes), read with the vehicle vocabulary they were fitted with."""
    mining = _asset().get("mining")
    if not mining:
        raise RuntimeError(f"{ASSET} holds no mining weights: `python -m studio train simile-detector --refit-mining`")
    z = sum(mining["weights"].get(k, 0.0) * v for k, v in features(simile, doc, mining["vehicle_vocab"]).items())
    return 1.0 / (1.0 + math.exp(-z))


def someones(simile: Simile) -> bool:
    """The vehicle is someone's or something's: a possessive word first, or a possessive noun last that is not a kind's
    ("like last year's", "as tall as John's"; "eyes like a hawk's" and "as cold as a witch's" compare with a kind)."""
    words = (simile.vehicle or "").lower().replace("’", "'").split()
    if not words:
        return False
    return words[0] in POSSESSIVE_WORDS or (words[-1].endswith(("'s", "s'")) and words[0] not in ("a", "an"))


#: the entities a proper noun may be to have a lineage: places ("Cities like Paris"), never a name ("Robin sang like
#: a bird.", "Daisy bloomed like a flower.")
_PLACES = {"GPE", "LOC", "FAC"}


def lineage_pair(simile: Simile, doc) -> tuple[str, str] | None:
    """(the narrower noun, the broader one; one noun twice for one thing) when the topic and the vehicle are nouns of
    one lineage by their first senses in WordNet (`nouns.kind_of`) in a way that makes the comparison literal: one
    thing ("Her accent sounds like a Boston accent."), the topic a kind of the vehicle ("The puppy acts like the
    older dog."), or the vehicle a kind of the topic given as its example, the "like" right after the topic's noun
    ("Fruits like apples are healthy.", "Dogs like huskies need…"); else None. A grander kind as the image stays a
    simile ("His house is like a palace.", "The storm was like a hurricane."), as do a pronoun topic, a name ("Robin
    sang like a bird.") and a vehicle whose image is its "of" complement ("my backpack … like a bag of bricks"). Why:
    docs/experiments.md#detector-like-with-like"""
    t_tok = _token_at(doc, simile.spans.get("topic"), head=simile.heads.get("topic"))
    v_tok = _token_at(doc, simile.spans.get("vehicle"), head=simile.heads.get("vehicle"))
    if t_tok is None or v_tok is None or not all(
            t.pos_ == "NOUN" or (t.pos_ == "PROPN" and t.ent_type_ in _PLACES) for t in (t_tok, v_tok)):
        return None
    if any(c.dep_ == "prep" and c.lower_ == "of" for c in v_tok.children):  # "a bag of bricks": the image is the
        return None  # bricks, not the bag
    topic, vehicle = noun_lemma(t_tok.lemma_) or t_tok.lemma_, noun_lemma(v_tok.lemma_) or v_tok.lemma_
    relation = kind_of(t_tok.lemma_, v_tok.lemma_)
    if relation in ("same", "narrower"):
        return topic, vehicle
    # "Fruits like", "Fruits, like", "Fruits  like" (a space token between)
    after = next((t for t in doc[t_tok.i + 1:] if not (t.is_punct or t.is_space)), None)
    example = after is not None and after.idx == simile.spans["comparator"][0]
    return (vehicle, topic) if relation == "broader" and example else None


def compares_like_with_like(simile: Simile, doc) -> bool:
    """A comparison of like with like: the vehicle is someone's or something's (`someones`: "talks like his father",
    "like last year's") or, after "like", of the topic's lineage (`lineage_pair`: "Fruits like apples are
    healthy."). An "as ADJ as" comparison within a kind stays a simile: "a noise as loud as thunder"."""
    return like_with_like_evidence(simile, doc)[0] is not None


def like_with_like_evidence(simile: Simile, doc) -> tuple[str | None, tuple[str, ...]]:
    """Why a comparison is one of like with like, and the words that show it: ("someone's", (the vehicle,)),
    ("kind", (the narrower noun, the broader one)), or (None, ()) (`compares_like_with_like`)."""
    if someones(simile):
        return "someone's", (simile.vehicle or "",)
    pair = lineage_pair(simile, doc) if simile.comparator != "as ... as" else None
    return ("kind", pair) if pair else (None, ())


#: a "like" right after these is the verb, though the parser may tag it a preposition ("…he really does like pizza."
#: was a simile at 0.79); the extractor already leaves out "would", "to", "do", "not" and some subject pronouns
DO_FORMS = {"do", "does", "did", "would", "'d", "to"}
#: adverbs that stand between a subject or a do-form and the verb "like" ("I really like", "she does truly like")
INTENSIFIERS = {"really", "truly", "also", "still", "just", "actually", "always", "never", "totally", "sure", "both",
                "all"}


def verb_like(simile: Simile, doc) -> bool:
    """Whether the comparison's "like" is the verb: right after "does" or "did" ("He did like her."), or after an
    adverb of INTENSIFIERS that follows the clause's subject ("Dogs really like bones.", not "She sang it just like a
    bird.") or a do-form, negated or not ("I'd really like a drink.", "He didn't really like it", not "It wasn't
    just like an oven"). Not a comparison at all. Apostrophes may be curly."""
    if simile.comparator != "like":
        return False
    like = _like_token(simile, doc)
    at = like.i if like is not None else 0
    if not at:
        return False
    word = [doc[i].lower_.replace("\u2019", "'") for i in range(max(0, at - 3), at)]
    if word[-1] in ("does", "did"):
        return True
    if len(word) < 2 or word[-1] not in INTENSIFIERS:
        return False
    before = doc[at - 2]
    negated_do = word[-2] in ("not", "n't") and len(word) == 3 and word[0] in DO_FORMS
    return word[-2] in DO_FORMS or negated_do or (before.dep_ in ("nsubj", "nsubjpass") and before.pos_ != "ADV")


def simile_probability(simile: Simile, doc) -> float:
    """P(a found comparison is figurative). An "as ADJ as" comparison with a common noun for its vehicle (the
    extractor already leaves out "as soon as", "as good as new", "as old as me") is a simile unless it compares like
    with like (AS_AS_PROBABILITY); the learned weights, which never saw that form, decide the rest ("as tall as
    John", every "like"), but a verb "like" the parser took for a preposition is none (`verb_like`). A comparison of
    like with like (`compares_like_with_like`) is a simile no more often than such comparisons are in the training
    data. Why: docs/experiments.md#detector-like-with-like"""
    if verb_like(simile, doc):
        return 0.0
    if as_as_rule(simile, doc):
        return max(AS_AS_PROBABILITY, learned_probability(simile, doc))
    if compares_like_with_like(simile, doc):
        return min(learned_probability(simile, doc), _like_with_like_rate())
    return learned_probability(simile, doc)


def as_as_rule(simile: Simile, doc) -> bool:
    """Whether the "as ADJ as" rule decides (a common noun for the vehicle, not like with like), not the weights."""
    if simile.comparator != "as ... as" or not simile.property or compares_like_with_like(simile, doc):
        return False
    v_tok = _token_at(doc, simile.spans.get("vehicle"), head=simile.heads.get("vehicle"))
    return v_tok is not None and v_tok.pos_ == "NOUN"


def _like_with_like_rate() -> float:
    """The share of similes among the training data's comparisons of like with like (1.0 without the asset)."""
    return _asset().get("like_with_like_rate", 1.0)


class Verdict(NamedTuple):
    """A sentence's detector reading: its most simile-like comparison's probability, whether the "as ADJ as" rule
    gave it (`as_as_rule`), why it compares like with like when it does ("someone's": the vehicle is someone's,
    "kind": of the topic's lineage; None otherwise), and the words that show it (the vehicle that is someone's; the
    narrower and the broader noun of a kind)."""
    p: float
    by_rule: bool
    like_with_like: str | None
    like_with_like_words: tuple[str, ...] = ()


def _verdicts(similes: list[Simile], doc, probability) -> list[Verdict]:
    """Each comparison's Verdict (the served probability's reasons; none for another)."""
    served = probability is simile_probability
    return [Verdict(probability(s, doc), served and as_as_rule(s, doc),
                    *(like_with_like_evidence(s, doc) if served else (None, ()))) for s in similes]


def _sentence_score(similes: list[Simile], doc, probability) -> Verdict:
    """The most simile-like comparison's Verdict."""
    return max(_verdicts(similes, doc, probability), default=Verdict(0.0, False, None), key=lambda v: v.p)


def comparison_verdicts(text: str) -> list[tuple[Simile, Verdict]]:
    """Every comparison the detector finds in `text`, each with its own Verdict (offsets index into `text`): for a
    caller that keeps or drops comparisons one by one (Continue's figure)."""
    from .components import simile_docs, similes_of

    (doc, read), = simile_docs([text], disable=())
    similes = similes_of(doc, read)
    return list(zip(similes, _verdicts(similes, doc, simile_probability)))


def score_batch(sentences: list[str], probability=None) -> list[float]:
    """P(simile) of each sentence: its most simile-like comparison's (`probability`: simile_probability, or
    mining_probability for the KB's weights)."""
    return [v.p for v in explained_batch(sentences, probability)]


def explained_batch(sentences: list[str], probability=None) -> list[Verdict]:
    """score_batch's probabilities, each with its reasons (`Verdict`)."""
    from .components import simile_docs, similes_of

    probability = probability or simile_probability
    # read as the extractor reads them: tags as blanks ("<i>as blue as</i> the sea" was a literal comparison here),
    # emoji as blanks when they hid the comparison (the Components tab found a simile its detector scored 0)
    return [_sentence_score(similes_of(doc, read), doc, probability)
            for doc, read in simile_docs(sentences, disable=())]


def threshold(part: str = "served") -> float:
    return _weights(part)[1]


def predict_batch(sentences: list[str]) -> list[bool]:
    _, threshold = _weights()
    return [p >= threshold for p in score_batch(sentences)]


def detect(text: str) -> float:
    """P(the sentence is a simile); 0 when the extractor finds no comparison at all."""
    return score_batch([text])[0]


def is_simile(text: str) -> bool:
    """Does the sentence hold a figurative comparison? The extractor finds a candidate and the trained detector
    accepts it."""
    return detect(text) >= threshold()
