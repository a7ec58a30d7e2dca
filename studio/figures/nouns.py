"""English nouns, for telling an image from a non-word ("as salty as a hucklehead", "as noisy as wot"), and a noun
the tagger mistakes for an adjective after "like" ("felt like jelly") from an adjective ("ran like crazy").

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
def _nouns() -> tuple[frozenset[str], dict[str, str], frozenset[str]]:
    if not ASSET.is_file():
        return frozenset(), {}, frozenset()
    data = json.loads(ASSET.read_text(encoding="utf-8"))
    return frozenset(data["nouns"]), dict(data["plurals"]), frozenset(data.get("also_adjective_or_adverb", ()))


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
