"""Simile components: topic, vehicle, event, comparator and explicit property, read off a spaCy parse.

Comparators recognised (the exact set, `Simile.comparator`):
  "like"        — "he wept like a child", "eyes like stars", "soft like silk" (property "soft")
  "as ... as"   — "as light as a feather" (property "light")
  "ADJ as"      — "cool as a cucumber" (property "cool"), no leading "as"
  "as if"       — "he ran as if his life depended on it" (vehicle: the clause)
  "as though"   — likewise

Literal uses of "like" (verb "I like tea", exemplification "things like that", "like" + clause "looks like it
will rain", approximation "like 20 feet", pronoun objects "someone like you") and of "as ... as" ("as soon as",
"as fast as he could", "as many as 20") yield no simile.
"""
from __future__ import annotations

import contextvars
import unicodedata
from dataclasses import asdict, dataclass, field, replace

from ..errors import InputError
from ..textspans import blank_emoji, blank_markup
from ..models import get_registry
from ..models.registry import ModelUnavailable
from .nouns import only_a_noun

COMPARATORS = ("like", "as ... as", "ADJ as", "as if", "as though")

#: properties of "as X as" that make a quantity or time comparison, not a simile
_NON_SIMILE_PROPERTIES = {"soon", "well", "far", "such", "much", "many"}
#: an adjective before a bare "as" that makes it a role or identity, not a comparison
_NON_SIMILE_ADJ_AS = {"such", "same", "known", "regarded", "so", "insofar", "inasmuch", "just", "much", "well",
                      "soon", "far", "long", "referred", "described", "used", "seen", "treated", "good", "twice",
                      "half"}
#: vehicles that compare with the speaker's own measure rather than an image ("as fast as possible")
_NON_SIMILE_VEHICLES = {"possible", "ever", "usual", "before", "always", "anything", "anyone", "anybody", "one",
                        "other", "others", "any", "all", "following", "that", "this", "these", "those", "necessary",
                        "needed", "required", "expected", "previously", "today", "now", "then", "once", "much",
                        "many", "well"}
#: words after "like" that begin an approximation ("like 20 feet") or a hedge, not a vehicle
_APPROXIMATORS = {"something", "anything", "nothing", "more", "less", "about", "approximately"}
#: container/collective heads whose semantic head is the noun after "of" ("a flock of sheep" → sheep)
_COLLECTIVE_HEADS = {"kind", "sort", "type", "bunch", "pack", "flock", "herd", "swarm", "pair", "couple", "lot",
                     "lots", "group", "barrel", "sheet", "lump", "roll", "grain", "piece", "succession", "herds",
                     "band", "crowd", "school", "army", "horde", "host", "troop", "gaggle"}
#: dependents that end the optimal vehicle phrase: clauses, lists, appositions, punctuation
_VEHICLE_CUT_DEPS = {"relcl", "acl", "appos", "punct", "cc", "conj", "advcl", "parataxis", "mark", "ccomp", "dep",
                     "npadvmod", "advmod", "prt"}
_MAX_VEHICLE_TOKENS = 8
_SUBJECT_DEPS = ("nsubj", "nsubjpass", "csubj", "expl")
_RELATIVE_PRONOUNS = {"who", "which", "that", "whom", "whose"}
_ARTICLES = ("a ", "an ", "the ")


@dataclass
class Simile:
    topic: str | None
    vehicle: str | None
    event: str | None
    comparator: str
    property: str | None
    spans: dict[str, tuple[int, int]]
    #: head words (lowercased) of topic/vehicle/event, for head-level matching and knowledge-base lookups
    heads: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["spans"] = {k: list(v) for k, v in self.spans.items()}
        return data


def strip_articles(phrase: str) -> str:
    """Lowercase and drop one leading article: the comparison form used in evaluation."""
    p = " ".join(phrase.lower().split())
    for art in _ARTICLES:
        if p.startswith(art):
            return p[len(art):]
    return p


#: parser components the extractor never reads (it uses tags, the dependency parse and lemmas, not entities): skipped
#: when it parses for itself, which halves the parse of a Rerank's sentences
UNREAD_PIPES = ("ner",)


def _parser():
    return get_registry().get("parser")


#: whether the current call uses the learned vehicle boundary (the `simile_components` role), when its asset is
#: there: set per call by `learned=` (a context variable, so concurrent requests do not share it)
_LEARNED: contextvars.ContextVar[bool] = contextvars.ContextVar("simile_learned_vehicle", default=False)


#: overrides the asset's margin (how much more than the rules' end another end must score); for dev sweeps
MARGIN: float | None = None


def _vehicle_weights() -> tuple[dict, float] | None:
    """The learned reranker's (weights, margin), or None (no asset, or not asked for): the rules' boundary."""
    if not _LEARNED.get():
        return None

    try:
        model = get_registry().get("simile_components")
    except (ModelUnavailable, KeyError):
        return None
    return model.weights, (MARGIN if MARGIN is not None else float(model.meta.get("margin", 0.0)))


def extract_similes(text: str, doc=None, learned: bool = False) -> list[Simile]:
    """Every simile in `text`, in order of its comparator. Offsets index into `text` (or `doc.text`). An HTML tag is
    read as blanks (`blank_markup`: its name and attributes are no words; offsets hold), so "as dark as <img …> ink"
    has the vehicle "ink".
    `learned`: end each vehicle where the learned reranker says (component_model.py) rather than where the rules
    do; it was trained on similes made by inserting a comparison into a literal sentence (HAUSER's candidates), where
    it cuts the prepositional phrases the rules swallow ("lightning into the bushes" → "lightning")."""
    if doc is None:
        if not isinstance(text, str):
            raise InputError(f"The sentence must be text, not {type(text).__name__}.")
        if not text.strip():
            return []
        (doc, read), = simile_docs([text])
    else:
        read = doc.text
    token = _LEARNED.set(learned)
    try:
        return similes_of(doc, read)
    finally:
        _LEARNED.reset(token)


def extract_similes_batch(texts: list[str], batch_size: int = 64, learned: bool = False) -> list[list[Simile]]:
    """`extract_similes` for many texts at once; the parser's pipe keeps it fast for corpora."""
    token = _LEARNED.set(learned)
    try:
        return [similes_of(doc, read) for doc, read in simile_docs(texts, batch_size)]
    finally:
        _LEARNED.reset(token)


def simile_docs(texts: list[str], batch_size: int = 64, disable=UNREAD_PIPES) -> list[tuple]:
    """(parsed doc, the text as read) per text, as the extractor and the detector read a typed sentence: its tags as
    blanks (`blank_markup`), and, when that finds no comparison and the text holds emoji, the parse of the text with
    its emoji blanked too (`blank_emoji`): an emoji between an image and its words broke the parse ("Her smile was
    like sunshine 🌞 on a rainy day." held no simile). Offsets hold in both. `disable`: the parser's components left
    out (the detector reads entities, the extractor does not)."""
    read = [blank_markup(t) if isinstance(t, str) else "" for t in texts]
    docs = list(_parser().pipe(read, batch_size=batch_size, disable=disable))
    again = [k for k, (text, doc) in enumerate(zip(read, docs)) if blank_emoji(text) != text and not _similes_in(doc)]
    for k, doc in zip(again, _parser().pipe([blank_emoji(read[k]) for k in again], batch_size=batch_size,
                                            disable=disable)):
        if _similes_in(doc):
            docs[k] = doc
    return list(zip(docs, read))


#: the parts of a simile whose words are the text under their span
_WORDED = ("topic", "vehicle", "event", "property")


def similes_of(doc, read: str) -> list[Simile]:
    """The similes of a doc from `simile_docs`; when it parsed the text with its emoji blanked, each part's words are
    taken from the text as read (the spans hold), so "a 🐆 cheetah" stays the image's words."""
    found = _similes_in(doc)
    if doc.text == read:
        return found
    return [replace(s, **{part: read[a:b] for part, (a, b) in s.spans.items() if part in _WORDED}) for s in found]


def _similes_in(doc) -> list[Simile]:
    found = []
    for tok in doc:
        low = tok.lower_
        simile = None
        if low == "like":
            simile = _from_like(tok)
        elif low == "as":
            simile = _from_as(tok)
        if simile is not None:
            found.append(simile)
    return found


# ---------------------------------------------------------------------------------------------- "like"

def _from_like(like) -> Simile | None:
    doc = like.doc
    if like.tag_.startswith("VB") or like.pos_ in ("VERB", "AUX", "NOUN") or (like.pos_ == "INTJ" and not (
            INTJ_PREPOSITIONS and like.dep_ == "prep" and any(c.dep_ == "pobj" for c in like.children))):
        return None  # "I like tea", "the likes of", "like, you know"
    prev = doc[like.i - 1] if like.i > 0 else None
    nxt = doc[like.i + 1] if like.i + 1 < len(doc) else None
    if nxt is None or nxt.text in ("-", "–") or (prev is not None and prev.text == "-"):
        return None  # "like-minded", "liquid-like"
    if prev is not None and prev.lower_ in ("would", "'d", "to", "do", "n't", "not", "you", "i", "we", "they"):
        return None  # a verb the tagger missed: "would like to", "I like"
    if nxt.lower_ in _APPROXIMATORS or (nxt.like_num and not _counted_image(nxt)) \
            or nxt.lower_ in ("with", "in", "for", "when", "if", "so"):
        return None  # "like 20 feet high", "like with vinyl records"
    obj = _like_object(like)
    if obj is None or not (_is_image_noun(obj) or obj.tag_ == "VBG" or _pictograph(obj)):
        return None  # an emoji image the tagger calls a number ("dark like 🌑") is one, as after "as"
    if _is_exemplification(like, obj):
        return None
    anchor = like.head if like.head.i != like.i else None
    if anchor is not None and obj.head.i == anchor.i and obj.dep_ in _SUBJECT_DEPS:
        # "like" before a clause whose subject is the image ("Like ink spilled across the sky, the night was dark."):
        # the clause modifies the sentence's own verb, whose subject is the topic; the image never is
        anchor = anchor.head if anchor.dep_ == "advcl" and anchor.head.i != anchor.i else None
    prop = anchor if anchor is not None and anchor.pos_ in ("ADJ", "ADV") and like.dep_ == "prep" else None
    return _assemble(like, (like.idx, like.idx + len(like)), "like", obj, anchor, prop)


#: nouns a number after "like" measures ("like 20 feet", "like two weeks"): an approximation, not an image
_MEASURE_NOUNS = {"foot", "feet", "mile", "miles", "year", "years", "day", "days", "week", "weeks", "hour", "hours",
                  "minute", "minutes", "second", "seconds", "month", "months", "time", "times", "percent", "inch",
                  "inches", "meter", "meters", "metre", "metres", "kilometre", "kilometres", "km", "pound", "pounds",
                  "dollar", "dollars", "people", "degree", "degrees", "yard", "yards", "decade", "decades", "century",
                  "centuries", "point", "points", "grand", "bucks", "cent", "cents", "%", "ton", "tons", "kg", "mph"}
#: a spelled-out count of a non-measure noun is an image, not an approximation ("looked like two bars of flaming
#: material"); why: docs/experiments.md#components-dev-rules
COUNTED_IMAGES = True


def _counted_image(num) -> bool:
    """A spelled-out number counting image nouns ("like two bars of flaming material"), not a measure."""
    if not COUNTED_IMAGES or not num.is_alpha or num.dep_ != "nummod":
        return False
    noun = num.head
    return noun.i > num.i and noun.pos_ == "NOUN" and noun.lower_ not in _MEASURE_NOUNS


SPLIT_OBJECTS = True  # why: docs/experiments.md#components-dev-rules
#: a "like" the tagger calls an interjection but the parser attaches as a preposition with an object is the
#: comparator ("walked very slowly like a little boy": like/UH, prep, boy/pobj); why: docs/experiments.md#like-intj
INTJ_PREPOSITIONS = True


def _like_object(like):
    objects = [c for c in like.children if c.dep_ in ("pobj", "dobj", "obj")]
    if len(objects) > 1 and SPLIT_OBJECTS:  # a misparse splitting one phrase ("aural/pobj icing/pobj"): its head
        return objects[-1]
    for child in like.children:
        if child.dep_ in ("pobj", "dobj", "obj"):
            return child
        if child.dep_ == "pcomp":
            # "is like hitting a rock with an egg" compares with an action; "feel like going" is a wish
            if child.tag_ == "VBG" and like.head.lemma_.lower() not in ("feel", "look", "seem", "sound") \
                    and not any(c.dep_ in _SUBJECT_DEPS for c in child.children):
                return child
            return None
    if like.dep_ == "mark":
        return None  # "looks like it will rain"
    # the parser sometimes leaves the noun phrase after "like" unattached; take the chunk that starts right after
    for chunk in like.doc.noun_chunks:
        if chunk.start == like.i + 1:
            return chunk.root
    return None


def _is_image_noun(tok, allow_subject: bool = False) -> bool:
    # "an oven" tagged ADJ is still a noun phrase; so is "like jelly", the tagger's ADJ or ADV, where WordNet knows
    # the word only as a noun (docs/experiments.md#like-jelly)
    mistagged = tok.dep_ == "pobj" and (
        (tok.pos_ == "ADJ" and any(c.dep_ == "det" for c in tok.children))
        or (tok.pos_ in ("ADJ", "ADV") and tok.head.lower_ == "like" and only_a_noun(tok.text)))
    if tok.pos_ not in ("NOUN", "PROPN") and not mistagged:
        return False  # pronouns ("like that", "like me"), numbers, verbs, clause heads
    if tok.lower_ in _NON_SIMILE_VEHICLES:
        return False
    return allow_subject or not any(c.dep_ in _SUBJECT_DEPS for c in tok.children)  # "like they reflected ..."


def _is_exemplification(like, obj) -> bool:
    """'bands like Nirvana', 'factors like situation, context and stimuli': "like" means "such as"."""
    head = like.head
    if head.pos_ not in ("NOUN", "PROPN") or like.dep_ != "prep":
        return False
    if any(c.dep_ == "conj" for c in obj.children):
        return True  # a list of examples
    if obj.pos_ == "PROPN" and head.tag_ in ("NNS", "NNPS"):
        return True
    return False


# ---------------------------------------------------------------------------------------------- "as"

def _from_as(as_tok) -> Simile | None:
    """Surface patterns, because the parser attaches the second "as" in many ways (prep, mark, advmod):
    "as X as NP" (triggered on the first "as") and "X as NP" (triggered on the only "as")."""
    doc = as_tok.doc
    i = as_tok.i
    nxt = doc[i + 1] if i + 1 < len(doc) else None
    if nxt is None:
        return None
    if nxt.lower_ in ("if", "though"):
        return _from_as_if(as_tok, nxt)
    prev = doc[i - 1] if i > 0 else None
    if i + 2 < len(doc) and doc[i + 2].lower_ == "as" and _is_property_word(nxt):
        if prev is not None and prev.lower_ == "as":
            return None
        if nxt.lower_ in _NON_SIMILE_PROPERTIES:
            return None
        second = doc[i + 2]
        obj = _object_after(second, gerund=True)
        if obj is None:
            return None
        return _assemble(second, (as_tok.idx, second.idx + len(second)), "as ... as", obj, nxt, nxt)
    # "cool as a cucumber": an adjective right before a lone "as"
    if prev is None or prev.tag_ not in ("JJ", "RB") or prev.pos_ == "VERB" or prev.lower_ in _NON_SIMILE_ADJ_AS:
        return None
    if prev.lower_ in _NON_SIMILE_PROPERTIES or prev.is_punct:
        return None
    before = doc[prev.i - 1] if prev.i > 0 else None
    if before is not None and before.lower_ in ("as", "so", "too", "more", "less", "most", "very", "such", "how"):
        return None
    obj = _object_after(as_tok)
    if obj is None:
        return None
    return _assemble(as_tok, (prev.idx, as_tok.idx + len(as_tok)), "ADJ as", obj, prev, prev)


def _is_property_word(tok) -> bool:
    return tok.is_alpha and tok.pos_ not in ("DET", "PRON", "NUM", "CCONJ", "SCONJ", "AUX", "PART")


#: "as ADJ as" + a gerund phrase of its own ("as boring as watching paint dry") is a simile with that phrase as its
#: vehicle; why: docs/experiments.md#as-gerund
GERUND_VEHICLES = True


def _object_after(as_tok, gerund: bool = False):
    """The noun the comparison "as" introduces: its object if parsed so, else the noun phrase right after it."""
    doc = as_tok.doc
    obj = next((c for c in as_tok.children if c.dep_ == "pobj" and c.i > as_tok.i), None)
    if obj is None and gerund and GERUND_VEHICLES and as_tok.i + 1 < len(doc):  # "as ADJ as" only, not "famous as"
        # "as boring as watching paint dry" compares with an action, as "is like hitting a rock" does (`_like_object`)
        act = doc[as_tok.i + 1]
        if act.tag_ == "VBG" and act.dep_ == "pcomp" and act.head.i == as_tok.i \
                and not any(c.dep_ in _SUBJECT_DEPS for c in act.children):
            return act
    if obj is None:
        for chunk in doc.noun_chunks:
            if chunk.start == as_tok.i + 1:
                obj = chunk.root
                break
    if obj is None:
        for tok in doc[as_tok.i + 1:as_tok.i + 5]:
            if tok.pos_ in ("NOUN", "PROPN"):
                obj = tok
                break
            if tok.pos_ not in ("DET", "ADJ", "ADV", "PRON") or tok.dep_ not in ("det", "amod", "poss", "advmod",
                                                                                "compound", "nummod"):
                break
    if obj is None or not _is_image_noun(obj, allow_subject=True):
        # "as bitter as 🍋", "as bitter as a 🍋": an emoji image the tagger calls a number, as "like 🍋" has one
        first = doc[as_tok.i + 1] if as_tok.i + 1 < len(doc) else None
        lead = first is not None and (first.pos_ == "DET" or first.tag_ == "PRP$") and as_tok.i + 2 < len(doc)
        image = doc[as_tok.i + 2] if lead else first
        return image if image is not None and _pictograph(image) else None
    return obj


def _from_as_if(as_tok, if_tok) -> Simile | None:
    clause = if_tok.head if if_tok.head.pos_ in ("VERB", "AUX") and if_tok.head.i > if_tok.i else None
    if clause is None:
        return None
    toks = [t for t in clause.subtree if t.i > if_tok.i and t.dep_ != "punct"]
    if not toks:
        return None
    start, end = toks[0], toks[-1]
    anchor = clause.head if clause.head.i != clause.i else None
    comparator = "as if" if if_tok.lower_ == "if" else "as though"
    simile = _assemble(as_tok, (as_tok.idx, if_tok.idx + len(if_tok)), comparator, None, anchor, None)
    if simile is None:
        return None
    doc = as_tok.doc
    simile.vehicle = doc.text[start.idx:end.idx + len(end)]
    simile.spans["vehicle"] = (start.idx, end.idx + len(end))
    simile.heads["vehicle"] = clause.lemma_.lower()
    return simile


# ---------------------------------------------------------------------------------------------- assembly

def _assemble(trigger, comp_span, comparator, vehicle_root, anchor, prop) -> Simile | None:
    spans = {"comparator": comp_span}
    heads: dict[str, str] = {}
    vehicle = None
    if vehicle_root is not None:
        if vehicle_root.i <= trigger.i:
            return None  # a misparse that puts the compared noun before the comparator
        v_start, v_end = _vehicle_span(vehicle_root, trigger.i + 1)
        learned = _vehicle_weights()
        if learned is not None and not (GERUND_VEHICLES and vehicle_root.tag_ == "VBG"):  # an action: its whole phrase
            from .component_model import choose_vehicle_end

            v_end = choose_vehicle_end(learned[0], vehicle_root, v_start, v_end, _governing_verb(trigger), learned[1])
        doc = trigger.doc
        while v_end > v_start and not _has_word(doc[v_end]) and any(
                _has_word(t) and t.pos_ != "DET" and t.tag_ != "PRP$" for t in doc[v_start:v_end]):
            v_end -= 1  # an emoji after the image ("like lightning 🌩") is not part of it; an emoji image is ("a 🍋")
        # a blanked tag's spaces closed up ("a <b>bear</b>" is read "a    bear")
        vehicle = " ".join(doc.text[doc[v_start].idx:doc[v_end].idx + len(doc[v_end])].split())
        spans["vehicle"] = (doc[v_start].idx, doc[v_end].idx + len(doc[v_end]))
        heads["vehicle"] = _semantic_head(vehicle_root).lower_
    topic_tok, event_tok = _topic_and_event(anchor, trigger, prop is not None and anchor.i == prop.i)
    if topic_tok is not None and ANTECEDENTS and topic_tok.lower_ in _REFERRING and topic_tok.pos_ in ("PRON", "DET"):
        topic_tok = _antecedent(topic_tok) or topic_tok
    topic = event = None
    if topic_tok is not None:
        t_start, t_end = _topic_span(topic_tok, trigger.i)
        doc = trigger.doc
        topic = doc.text[doc[t_start].idx:doc[t_end].idx + len(doc[t_end])]
        spans["topic"] = (doc[t_start].idx, doc[t_end].idx + len(doc[t_end]))
        heads["topic"] = topic_tok.lower_
    if event_tok is not None:
        event = event_tok.text
        spans["event"] = (event_tok.idx, event_tok.idx + len(event_tok))
        heads["event"] = event_tok.lower_
    prop_text = None
    if prop is not None:
        prop_text = prop.text
        spans["property"] = (prop.idx, prop.idx + len(prop))
    return Simile(topic=topic, vehicle=vehicle, event=event, comparator=comparator, property=prop_text, spans=spans,
                  heads=heads)


_QUOTES = {'"', "'", "“", "”", "‘", "’", "``", "''"}
#: prepositions whose phrase is cut from a vehicle; why: docs/experiments.md#components-phrase-rules
VEHICLE_CUT_PREPS = {"for"}
VEHICLE_CONJ_IN_PP = False


#: a short relative or participial clause stays in the vehicle ("a bee that pricks"); off
#: why: docs/experiments.md#components-dev-rules
SHORT_CLAUSES = False
#: quotes do not count towards the vehicle's length ('the "smutty nose" of some vast sea animal')
QUOTES_FREE = True


def wordless_image(vehicle: str | None) -> bool:
    """A found image (vehicle) that is an emoji or another pictographic sign, with no letter or digit but its
    determiner's ("🍋", "a 🍋", "👍🏽"; not "the 100")."""
    words = (vehicle or "").split()
    if words and words[0].lower() in ("a", "an", "the", "my", "your", "his", "her", "its", "our", "their"):
        words = words[1:]
    # the image ends where a conjunction goes on with the sentence ("as tiny as a 🐭 and soft": a visitor's image
    # read as "a 🐭 and soft" was no sign)
    ends = [i for i, w in enumerate(words) if w.lower() in ("and", "or", "but", "yet")]
    words = words[:ends[0]] if ends else words
    signs = "".join(words)
    return bool(signs) and not any(ch.isalnum() for ch in signs) and any(unicodedata.category(ch) == "So"
                                                                         for ch in signs)


def _has_word(tok) -> bool:
    """Whether a token holds a letter or a digit (an emoji or a sign does not)."""
    return any(ch.isalnum() for ch in tok.text)


#: Unicode's "other symbols" that are no picture: ©, ®, °, and the letterlike block (™, №, ℃)
_NOT_PICTURES = {"\u00a9", "\u00ae", "\u00b0"} | {chr(c) for c in range(0x2100, 0x2150)}


def _pictograph(tok) -> bool:
    """An emoji or another pictographic sign (Unicode's "other symbol", with its modifiers and joiners), not a
    currency, mathematical or letterlike sign."""
    kinds = [unicodedata.category(ch) for ch in tok.text]
    return "So" in kinds and all(k in ("So", "Mn", "Me", "Cf", "Sk") for k in kinds) \
        and not any(ch in _NOT_PICTURES for ch in tok.text)


def _length(doc, start: int, end: int) -> int:
    return sum(1 for t in doc[start:end + 1] if not (QUOTES_FREE and t.text in _QUOTES))


def _vehicle_span(root, first: int) -> tuple[int, int]:
    """Token range of the optimal vehicle phrase: the noun with its determiners, modifiers and prepositional
    attachments ("a kid in a candy store"), without relative clauses, lists or appositions."""
    keep = set()

    def visit(tok, pp_depth):
        keep.add(tok.i)
        for child in tok.children:
            if child.dep_ == "punct" and child.text in _QUOTES:
                keep.add(child.i)  # 'the "smutty nose" of some vast sea animal'
                continue
            if child.dep_ in ("conj", "cc") and pp_depth >= 1 and VEHICLE_CONJ_IN_PP:
                visit(child, pp_depth)  # "without any ostentation and pride"
                continue
            if child.dep_ == "prt" and root.tag_ == "VBG":
                if GERUND_VEHICLES and tok.i == root.i:
                    visit(child, pp_depth)  # "falling off a log": the particle with what the parser hangs on it
                else:
                    keep.add(child.i)  # "setting off a nuclear weapon"
                continue
            if GERUND_VEHICLES and tok.i == root.i and root.tag_ == "VBG" and child.i > root.i \
                    and child.dep_ in ("ccomp", "advmod"):
                visit(child, pp_depth)  # the action's own clause or adverb: "watching paint dry", "running away"
                continue
            if child.dep_ in _VEHICLE_CUT_DEPS:
                continue
            if child.dep_ == "prep":
                if pp_depth >= 2 or child.i < tok.i:
                    continue
                if pp_depth == 0 and child.lower_ in VEHICLE_CUT_PREPS:
                    continue  # "a curse for Divya": who it is for is not part of the image
                visit(child, pp_depth + 1)
            else:
                visit(child, pp_depth)

    visit(root, 0)
    keep = {i for i in keep if i >= first} | {root.i}
    start = min(keep)
    end = start
    while end + 1 in keep:  # the phrase must be contiguous; stop at the first gap
        end += 1
    if end < root.i:
        end = root.i
    doc = root.doc
    if SHORT_CLAUSES:  # a short restrictive clause is part of the image: "a bee that pricks", "a place to hide"
        for child in root.children:
            if child.dep_ not in ("relcl", "acl") or child.i <= end:
                continue
            sub = sorted(t.i for t in child.subtree)
            if sub[0] == end + 1 and sub[-1] - sub[0] + 1 == len(sub) and not any(doc[i].is_punct for i in sub) \
                    and _length(doc, start, sub[-1]) <= _MAX_VEHICLE_TOKENS:
                end = sub[-1]
            break
    if _length(doc, start, end) > _MAX_VEHICLE_TOKENS:  # too long: the noun phrase without attachments
        end = root.i
        start = min(i for i in keep if i <= root.i)
        while start < root.i and root.i - start + 1 > _MAX_VEHICLE_TOKENS:
            start += 1
    while end > start and doc[end].is_punct:
        end -= 1
    while start < end and doc[start].text in _QUOTES:
        start += 1
    return start, end


#: dependents of a topic noun kept in its phrase: "the entire stage", "Joe Yuuki", "her body", "the Nokia 7280"
_TOPIC_KEEP_DEPS = {"det", "amod", "compound", "poss", "nummod", "quantmod", "nmod", "case", "predet", "advmod"}
#: a topic noun keeps a following "of" phrase: "the back half of this season", "the late winter mood of the song"
#: why: docs/experiments.md#components-phrase-rules
TOPIC_OF_PP = True


def _topic_span(tok, trigger_i: int) -> tuple[int, int]:
    """Token range of the topic phrase: the noun with its determiners, possessives, compounds and adjectives (and a
    following "of" phrase); a gerund subject with its clause ("using one of these spells"); a pronoun alone."""
    doc = tok.doc
    if tok.pos_ == "PRON" or tok.pos_ not in ("NOUN", "PROPN", "VERB"):
        return tok.i, tok.i
    if tok.pos_ == "VERB":
        if tok.tag_ != "VBG" or tok.dep_ not in ("csubj", "nsubj"):
            return tok.i, tok.i
        sub = [t.i for t in tok.subtree if t.i < trigger_i]
        start, end = min(sub), max(sub)
        while start < tok.i and doc[start].is_punct:
            start += 1
        while end > tok.i and (doc[end].is_punct or doc[end].pos_ in ("AUX", "CCONJ")):
            end -= 1
        return start, end
    keep = {tok.i}
    for c in tok.children:  # left modifiers with everything under them ("a mouth-to-mouth water transfer")
        if c.i < tok.i and c.dep_ in _TOPIC_KEEP_DEPS:
            keep |= {t.i for t in c.subtree}
    start = tok.i
    while start - 1 in keep or (start - 1 >= min(keep) and doc[start - 1].text in ("-", ",")):
        start -= 1
    while start < tok.i and (doc[start].is_punct or doc[start].pos_ == "CCONJ"):
        start += 1
    end = tok.i
    # a number or name right after a name: "the Nokia 7280", "Joe Yuuki"
    while end + 1 < trigger_i and doc[end + 1].head.i == tok.i and doc[end + 1].dep_ in ("nummod", "compound") \
            and tok.pos_ == "PROPN":
        end += 1
    if TOPIC_OF_PP:
        of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of" and c.i == tok.i + 1), None)
        if of is not None:
            obj = next((c for c in of.children if c.dep_ == "pobj"), None)
            if obj is not None and obj.i < trigger_i:
                sub = [t.i for t in obj.subtree if t.i < trigger_i and t.dep_ not in ("relcl", "acl")]
                if sub and max(sub) - tok.i <= 6 and not any(doc[i].is_punct for i in range(tok.i, max(sub) + 1)):
                    end = max(sub)
    return start, end


def _semantic_head(root):
    if root.lower_ in _COLLECTIVE_HEADS:
        for child in root.children:
            if child.dep_ == "prep" and child.lower_ == "of":
                obj = next((c for c in child.children if c.dep_ == "pobj"), None)
                if obj is not None and obj.pos_ in ("NOUN", "PROPN"):
                    return obj
    return root


def _topic_and_event(anchor, trigger, anchor_is_property: bool):
    """The topic is the thing compared: the noun the comparison modifies, or the subject (object, for
    "made us as X as") of the governing verb; the event is that verb."""
    if anchor is None:
        return None, None
    node = anchor
    if anchor_is_property and node.dep_ in ("amod", "advmod", "appos", "acl") and node.head.pos_ in ("NOUN", "PROPN"):
        node = node.head  # "a tale as old as time"
    # the property itself (even when mis-tagged as a noun) is never the topic
    if node.i != anchor.i or not anchor_is_property:
        if node.pos_ in ("NOUN", "PROPN", "PRON") and node.i != trigger.i:
            verb = _governing_verb(node)
            if node.dep_ == "attr" and verb is not None:  # "the story is a tale as old as time": the subject
                subject = _subject_of(verb)
                if subject is not None and subject.lower_ not in ("it", "this", "that", "there"):
                    return subject, verb
            return _resolve_relative(node), verb
    # a small-clause subject: "made us all as cunning as foxes"
    own_subject = next((c for c in node.children if c.dep_ in _SUBJECT_DEPS and c.i < trigger.i), None)
    verb = node if node.pos_ in ("VERB", "AUX") else _governing_verb(node)
    if own_subject is not None:
        return _resolve_relative(own_subject), verb
    if verb is None:
        return None, None
    return _subject_of(verb) or _nearest_noun_before(verb), verb


#: "it" / "this" as the topic stands for a noun said before it (MAPS-KB annotates that noun): "dobj", "subj" or
#: "nearest" resolve it; None keeps the pronoun
ANTECEDENTS = None  # off; why: docs/experiments.md#components-dev-rules
_REFERRING = {"it", "this"}


def _antecedent(pron):
    """The noun a topic pronoun refers back to, in the same text: the nearest earlier noun that heads a subject or
    object (ANTECEDENTS="dobj": an object first), not inside the pronoun's own clause; None when there is none."""
    doc = pron.doc
    before = [t for t in reversed(doc[:pron.i]) if t.pos_ in ("NOUN", "PROPN")
              and t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "conj")]
    if not before:
        return None
    if ANTECEDENTS == "dobj":
        obj = next((t for t in before if t.dep_ == "dobj"), None)
        if obj is not None:
            return obj
    if ANTECEDENTS == "subj":
        subj = next((t for t in before if t.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is not None:
            return subj
    return before[0]


def _nearest_noun_before(verb):
    """When the parse gives the verb no subject (often a misattached one), the closest noun phrase head on its
    left that is not inside a prepositional phrase of another noun."""
    for tok in reversed(verb.doc[max(0, verb.i - 6):verb.i]):
        if tok.is_punct or tok.pos_ in ("VERB", "SCONJ", "CCONJ"):
            break
        if tok.pos_ not in ("NOUN", "PROPN", "PRON") or tok.tag_ == "PRP$" or tok.dep_ == "poss":
            continue
        if tok.dep_ == "pobj" and tok.head.head.pos_ in ("NOUN", "PROPN", "PRON"):
            continue
        return tok
    return None


def _governing_verb(tok):
    node = tok
    for _ in range(20):
        if node.head.i == node.i:
            return node if node.pos_ in ("VERB", "AUX") else None
        node = node.head
        if node.pos_ in ("VERB", "AUX"):
            return node
    return None


#: verbs whose object is the subject of their infinitive ("told Aminta to dress like a king")
#: why: docs/experiments.md#components-dev-rules
OBJECT_CONTROL = True
#: a conjoined verb with no subject of its own takes the noun right before it, after the first verb, as its subject
#: before the first verb's ("…and her eyes shone like stars"); why: docs/experiments.md#components-conjunct-subject
CONJUNCT_OWN_NOUN = True
_OBJECT_CONTROL_VERBS = {"tell", "urge", "ask", "order", "force", "persuade", "encourage", "allow", "want", "teach",
                         "instruct", "invite", "expect", "train", "command", "require", "cause", "advise", "warn"}


def _subject_of(verb):
    node = verb
    for _ in range(10):
        subj = next((c for c in node.children if c.dep_ in _SUBJECT_DEPS), None)
        if subj is not None:
            return _resolve_relative(subj)
        if OBJECT_CONTROL and node.dep_ == "xcomp" and node.head.lemma_.lower() in _OBJECT_CONTROL_VERBS:
            obj = next((c for c in node.head.children if c.dep_ == "dobj" and c.i < node.i), None)
            if obj is not None:  # "urged his followers to act like slaves": the followers act
                return obj
        if CONJUNCT_OWN_NOUN and node.dep_ == "conj" and node.pos_ == "VERB" and node.head.i != node.i:
            own = _nearest_noun_before(node)  # "…as soft as silk and her eyes shone like stars": the parse hangs
            if own is not None and own.i > node.head.i:  # "her eyes" on "silk"; they are what shone
                return _resolve_relative(own)
        if node.dep_ in ("xcomp", "conj", "advcl", "ccomp", "acomp") and node.head.i != node.i:
            node = node.head
            continue
        if node.dep_ in ("relcl", "acl") and node.head.i != node.i:
            return node.head
        return None
    return None


def is_relative_pronoun(tok) -> bool:
    """Whether a token is a relative (or wh-) pronoun by its word and tag: "that" in "a cow that nobody fed", not in
    "that evening"."""
    return tok.lower_ in _RELATIVE_PRONOUNS and tok.tag_ in ("WDT", "WP", "WP$")


def _resolve_relative(tok):
    """A relative pronoun stands for the noun its clause modifies ("a bulldozer that looked like a tank")."""
    if is_relative_pronoun(tok):
        clause = tok.head
        for _ in range(4):
            if clause.dep_ in ("relcl", "acl") and clause.head.i != clause.i:
                return clause.head
            if clause.head.i == clause.i:
                break
            clause = clause.head
    if tok.lower_ in ("some", "many", "most", "all", "each", "one", "none", "both") and tok.pos_ in ("PRON", "NUM"):
        of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        if of is not None:
            obj = next((c for c in of.children if c.dep_ == "pobj"), None)
            if obj is not None and obj.lower_ in _RELATIVE_PRONOUNS:  # "icebergs, some of which are ..."
                return _resolve_relative(obj)
    return tok
