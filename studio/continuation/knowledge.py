"""The knowledge the paper's knowledge-enhanced models read, produced offline by the studio:

- literal, simile: properties of the vehicle — the studio's simile KB (when built) and the `lm` completing
  "<vehicle> is" (the paper: COMET HasProperty, top 12);
- literal, idiom: the idiom's meaning and facts about its content words from the `lm` completing relation
  templates (the paper: COMET UsedFor, Desires, HasProperty, MadeUpOf, AtLocation, CapableOf, top 2 each);
- context: inferences about the narrator, the `lm` completing ParaCOMET-like templates after the narrative
  (the paper: xIntent, xNeed, xAttr, xWant, xEffect, xReact, top 2 each).
"""
from __future__ import annotations

import re

from ..figures.english import known_word
from ..models import ModelUnavailable, get_registry
from .expression import Expression

LITERAL_RELATIONS = (  # COMET relation -> template whose completion is the fact
    ("UsedFor", "{w} is used for"),
    ("Desires", "{w} desires"),
    ("HasProperty", "{w} is"),
    ("MadeUpOf", "{w} is made of"),
    ("AtLocation", "{w} can be found in"),
    ("CapableOf", "{w} is capable of"),
)
CONTEXT_RELATIONS = (
    ("xIntent", "The narrator intended to"),
    ("xNeed", "Before that, the narrator needed to"),
    ("xAttr", "The narrator is seen as"),
    ("xWant", "After that, the narrator wants to"),
    ("xEffect", "As a result, the narrator"),
    ("xReact", "The narrator feels"),
)
PER_RELATION = 2
MAX_PROPERTIES = 12
_CLAUSE_END = re.compile(r"[.,;:!?\n\"(]")
_CONTENT_POS = {"NOUN", "VERB", "ADJ", "PROPN"}


def _complete(prompts: list[str], n: int, seed: int, max_new_tokens: int = 6) -> list[list[str]]:
    """Short completions of each prompt, cut at the first clause end, deduplicated per prompt."""
    lm = get_registry().get("lm")
    rows = lm.generate(prompts, max_new_tokens=max_new_tokens, top_k=5, temperature=0.7, no_repeat_ngram_size=3,
                       num_return_sequences=n, seed=seed)
    out = []
    for row in rows:
        seen = []
        for g in row:
            text = _tidy(_CLAUSE_END.split(g.text.strip())[0].strip())
            if not _CLAUSE_END.search(g.text) and g.new_tokens >= max_new_tokens and text \
                    and not known_word(text.split()[-1]):
                # stopped by the token limit inside a word ("her own inadequ"): the cut word goes
                text = " ".join(text.split()[:-1])
            if text and len(text) > 1 and text.lower() not in (s.lower() for s in seen):
                seen.append(text)
        out.append(seen)
    return out


_DETACHED = re.compile(r" (?='s\b|'re\b|'ve\b|'ll\b|'d\b|'m\b|n't\b)")


def _tidy(text: str) -> str:
    """A completion's words as written: the tokenizer's detached "the narrator 's" and "did n't" joined again."""
    return _DETACHED.sub("", text)


#: lemmas no content word has: the lemmatizer's "-ing" rule made "wing" into "we" ("We is made of glass" was shown)
_NO_CONTENT_LEMMA = {"i", "me", "we", "us", "you", "he", "him", "she", "her", "it", "they", "them", "a", "an", "the"}


def _lemma(tok) -> str:
    """The token's lemma, or its own word where the lemmatizer made a pronoun or an article of it ("wing" → "we")."""
    lemma = tok.lemma_.lower()
    return tok.lower_ if lemma in _NO_CONTENT_LEMMA and tok.lower_ != lemma else lemma


def content_words(phrase: str, limit: int = 2) -> list[str]:
    doc = get_registry().get("parser")(phrase)
    words = [_lemma(t) for t in doc if t.pos_ in _CONTENT_POS and not t.is_stop]
    if not words:
        words = [t.text.lower() for t in doc if t.is_alpha and not t.is_stop] or [t.text.lower() for t in doc if t.is_alpha]
    return list(dict.fromkeys(words))[:limit]


def vehicle_properties_kb(vehicle: str, k: int = MAX_PROPERTIES) -> list[str]:
    try:
        from ..figures.kb import load_kb
    except ImportError:
        return []
    try:
        return [prop for prop, _ in load_kb().properties_of_vehicle(vehicle, k=k)]
    except (FileNotFoundError, ModelUnavailable, OSError, ValueError):
        return []  # the KB asset is not built in this checkout


_OPENINGS = {"to", "a", "an", "the", "being", "someone", "something", "one", "very", "used", "in", "of", "with", "not"}


def in_a_sentence(meaning: str) -> str:
    """A dictionary meaning read after "means": its capital dropped where it opens with a common word ("To
    improvise" → "to improvise"), kept on a name."""
    first = meaning.split(" ", 1)[0]
    return meaning[:1].lower() + meaning[1:] if first.lower() in _OPENINGS and not first[1:].isupper() else meaning


def literal_inferences(expr: Expression, seed: int = 0) -> list[str]:
    if expr.kind == "simile":
        vehicle = expr.vehicle or expr.text
        facts = [f"{vehicle} is {p}" for p in vehicle_properties_kb(vehicle)]
        if len(facts) < MAX_PROPERTIES:
            for prop in _complete([f"{vehicle[:1].upper()}{vehicle[1:]} is"], MAX_PROPERTIES, seed)[0]:
                facts.append(f"{vehicle} is {prop}")
        if expr.meaning:  # a stated property, or the meaning of the idiom the image is ("a fish out of water")
            facts.insert(0, f"{vehicle} means {in_a_sentence(expr.meaning.rstrip('.'))}"
                         if expr.meaning_source == "lexicon" else f"{vehicle} is {expr.meaning}")
        return list(dict.fromkeys(facts))[:MAX_PROPERTIES]
    facts = [f"{expr.text} means {in_a_sentence(expr.meaning.rstrip('.'))}"] if expr.meaning else []
    words = content_words(expr.text)
    prompts, labels = [], []
    for w in words:
        for _, template in LITERAL_RELATIONS:
            prompt = template.format(w=w[:1].upper() + w[1:])
            prompts.append(prompt)
            labels.append(prompt)
    if prompts:
        for label, completions in zip(labels, _complete(prompts, PER_RELATION, seed)):
            facts += [f"{label} {c}" for c in completions[:PER_RELATION]]
    return facts


def context_inferences(narrative: str, seed: int = 0) -> list[str]:
    prompts = [f"{narrative}\n{template}" for _, template in CONTEXT_RELATIONS]
    facts = []
    for (_, template), completions in zip(CONTEXT_RELATIONS, _complete(prompts, PER_RELATION, seed)):
        facts += [f"{template} {c}" for c in completions[:PER_RELATION]]
    return facts
