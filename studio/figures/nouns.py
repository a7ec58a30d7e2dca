"""English nouns, for telling an image from a non-word ("as salty as a hucklehead", "as noisy as wot"), a noun the
tagger mistakes for an adjective after "like" ("felt like jelly") from an adjective ("ran like crazy"), two
nouns that name one image ("a grave", "a tomb"), and a noun that names a kind of another ("huskies" of "dogs").

Built from WordNet's noun lemmas (Debian `wordnet-base`, /usr/share/wordnet/index.noun: single words, and two-part
compounds written as one, "rollercoaster") by `python -m studio build nouns`; the app reads the derived list `assets/similes/nouns.json`. A plural is known through WordNet's
irregular forms ("mice") and its regular endings ("rats", "boxes", "berries"). The nouns WordNet writes only with a
capital ("Solomon") are listed too, for writing a name the way a reader expects.
"""
from __future__ import annotations

import json
from functools import lru_cache

from ..paths import PROJECT_ROOT

ASSET = PROJECT_ROOT / "assets" / "similes" / "nouns.json"
#: WordNet's own detachment rules for nouns (morphy): a regular plural's ending and what replaces it
PLURAL_ENDINGS = (("ies", "y"), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
                  ("men", "man"), ("s", ""))


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(ASSET.read_text(encoding="utf-8")) if ASSET.is_file() else {}


@lru_cache(maxsize=1)
def _nouns() -> tuple[frozenset[str], dict[str, str], frozenset[str]]:
    data = _data()
    return (frozenset(data.get("nouns", ())), dict(data.get("plurals", {})),
            frozenset(data.get("also_adjective_or_adverb", ())))


@lru_cache(maxsize=1)
def _images() -> tuple[dict[str, frozenset[int]], dict[str, frozenset[int]]]:
    """({noun: the groups whose first part holds it}, {noun: the groups whose second part holds it})."""
    core: dict[str, set[int]] = {}
    rest: dict[str, set[int]] = {}
    for i, (first, others) in enumerate(_data().get("same_image", ())):
        for w in first:
            core.setdefault(w, set()).add(i)
        for w in others:
            rest.setdefault(w, set()).add(i)
    return ({w: frozenset(g) for w, g in core.items()}, {w: frozenset(g) for w, g in rest.items()})


def image_groups(word: str) -> tuple[frozenset[int], frozenset[int]]:
    """(the WordNet sense groups that are `word`'s first sense (a lemma, any case), the groups among its next senses
    up to `IMAGE_SENSES`): see `same_image`."""
    core, rest = _images()
    w = word.lower().strip()
    return core.get(w, frozenset()), rest.get(w, frozenset())


def same_image(a: str, b: str) -> bool:
    """Whether two nouns (lemmas) name one image: WordNet gives them a sense in common that is the first sense of at
    least one and among the other's first two (`IMAGE_SENSES` of `build nouns`): "tomb" and "grave", "rock" and
    "stone", "madman" and "lunatic"; not "grave" and "graveyard". False when the list is missing."""
    (a_core, a_rest), (b_core, b_rest) = image_groups(a), image_groups(b)
    return bool(a_core & (b_core | b_rest) or b_core & a_rest)


@lru_cache(maxsize=1)
def _kinds() -> tuple[dict[str, int], list[list[int]]]:
    """({noun: the number of its first sense}, [the numbers of each sense's hypernyms])."""
    data = _data()
    first = {w: n for w, n in zip(data.get("nouns", ()), data.get("first_sense", ())) if n >= 0}
    return first, data.get("hypernyms", [])


#: words WordNet knows as nouns by an unrelated first sense ("he" helium, "I" iodine, "us" the United States)
PRONOUNS = frozenset({"i", "me", "you", "he", "him", "she", "her", "it", "we", "us", "they", "them", "one"})


def lemma(word: str) -> str | None:
    """The WordNet noun `word` (any case) is, itself or as a plural ("huskies" → "husky", "mice" → "mouse"), or
    None (a pronoun too)."""
    w = word.lower().strip()
    return None if w in PRONOUNS else _noun_lemma(w)


def _noun_lemma(w: str) -> str | None:
    """`w` (lower case) itself when WordNet lists it, else the lemma of its plural form, else None."""
    nouns, plurals, _ = _nouns()
    if w in nouns:
        return w
    if plurals.get(w) in nouns:
        return plurals[w]
    return next((w[: len(w) - len(end)] + rep for end, rep in PLURAL_ENDINGS
                 if w.endswith(end) and w[: len(w) - len(end)] + rep in nouns), None)


@lru_cache(maxsize=4096)
def _lineage(word: str) -> frozenset[int]:
    """The first noun sense of `word` and every hypernym above it (empty for a word WordNet does not know)."""
    first, hypernyms = _kinds()
    start = first.get(lemma(word) or "")
    if start is None:
        return frozenset()
    seen, todo = {start}, [start]
    while todo:
        for parent in hypernyms[todo.pop()]:
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return frozenset(seen)


#: the fewest hypernyms between the more general noun's first sense and WordNet's root for two nouns to be of one kind:
#: "events" and "orgies", "a group" and "a committee", "a location" and "Scotland" are not (depth 3 or less: event,
#: group, location, object); why: docs/experiments.md#detector-like-with-like
MIN_KIND_DEPTH = 4


@lru_cache(maxsize=4096)
def _depth(sense: int) -> int:
    """The fewest hypernym steps from a sense up to a root of WordNet's nouns."""
    _, hypernyms = _kinds()
    level, depth, seen = {sense}, 0, {sense}
    while all(hypernyms[s] for s in level):
        level = {p for s in level for p in hypernyms[s]} - seen
        if not level:
            break
        seen |= level
        depth += 1
    return depth


def kind_of(a: str, b: str) -> str | None:
    """How two nouns (any case, singular or plural) are of one lineage by their first senses in WordNet: "same" (one
    sense: "stone" and "rock", "accent" and "accent"), "narrower" (`a` names a kind of `b`: "huskies" of "dogs",
    "puppy" of "dog"), "broader" (`b` a kind of `a`), the more general of them no broad category
    (`MIN_KIND_DEPTH`); None for two kinds of one thing ("horse" and "cheetah"), for "man" and "bull" (a bull is "a
    heavyset man" only in its fourth sense), for a word WordNet does not know or a pronoun, or without the list."""
    first, _ = _kinds()
    fa, fb = first.get(lemma(a) or ""), first.get(lemma(b) or "")
    if fa is None or fb is None:
        return None
    relation = "same" if fa == fb else "narrower" if fb in _lineage(a) else "broader" if fa in _lineage(b) else None
    return relation if relation and _depth(fb if relation == "narrower" else fa) >= MIN_KIND_DEPTH else None


def of_one_kind(a: str, b: str) -> bool:
    """Whether two nouns are of one lineage (`kind_of`), either way."""
    return kind_of(a, b) is not None


def known_noun(word: str) -> bool:
    """Whether `word` (any case) is an English noun or a plural of one, by WordNet; True when the list is missing."""
    return not _nouns()[0] or _noun_lemma(word.lower().strip()) is not None


@lru_cache(maxsize=1)
def _capitalised() -> dict[str, str]:
    return dict(_data().get("capitalised", {}))


def name_written(words: str) -> str | None:
    """How WordNet writes a name of one or two words that it writes only with capitals (any case given): "solomon"
    → "Solomon", "fbi" → "FBI", "new york" → "New York"; None for any other words ("china", "fox") or when the list
    is missing."""
    return _capitalised().get(" ".join(words.lower().split()))


def only_a_noun(word: str) -> bool:
    """Whether WordNet knows `word` (any case, as written) as a noun and never as an adjective or an adverb: "jelly",
    which the tagger may call an adjective after "like", but not "crazy" or "blue"; False when the list is missing."""
    nouns, _, also = _nouns()
    w = word.lower().strip()
    return w in nouns and w not in also
