"""English nouns, for telling an image from a non-word ("as salty as a hucklehead", "as noisy as wot"), a noun the
tagger mistakes for an adjective after "like" ("felt like jelly") from an adjective ("ran like crazy"), and two
nouns that name one image ("a grave", "a tomb").

Built from WordNet's noun lemmas (Debian `wordnet-base`, /usr/share/wordnet/index.noun: single words, and two-part
compounds written as one, "rollercoaster") by `python -m studio build nouns`; the app reads the derived list `assets/similes/nouns.json`. A plural is known through WordNet's
irregular forms ("mice") and its regular endings ("rats", "boxes", "berries").
"""
from __future__ import annotations

import json
from functools import lru_cache

from ..models.config import PROJECT_ROOT

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


def known_noun(word: str) -> bool:
    """Whether `word` (any case) is an English noun or a plural of one, by WordNet; True when the list is missing."""
    nouns, plurals, _ = _nouns()
    if not nouns:
        return True
    w = word.lower().strip()
    if w in nouns or plurals.get(w) in nouns:
        return True
    return any(w.endswith(end) and w[: len(w) - len(end)] + rep in nouns for end, rep in PLURAL_ENDINGS)


def only_a_noun(word: str) -> bool:
    """Whether WordNet knows `word` (any case, as written) as a noun and never as an adjective or an adverb: "jelly",
    which the tagger may call an adjective after "like", but not "crazy" or "blue"; False when the list is missing."""
    nouns, _, also = _nouns()
    w = word.lower().strip()
    return w in nouns and w not in also
