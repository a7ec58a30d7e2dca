"""Adjective antonyms for reading an ironic simile ("as loud as a whisper" means "very soft").

Built from WordNet's direct adjective antonyms (Debian `wordnet-base`, /usr/share/wordnet/data.adj; a satellite's
head's antonyms are too loose: "quiet" ↔ "fatty") by `python -m studio build antonyms`, kept only where the antonym
is itself a property of the simile KB (built from train parts only), so that a literal reading says "very soft",
not "very unquiet". The app reads the derived table `assets/similes/antonyms.json`; WordNet is needed only to build
it (`bash scripts/setup.sh --build`). `load_opposites` adds, for reading a sentence that says the opposite of a
property, WordNet's "also see" words of each antonym's sense ("quiet" → "noisy" → "loud").
"""
from __future__ import annotations

import json
from functools import lru_cache

from ..paths import PROJECT_ROOT

ASSET = PROJECT_ROOT / "assets" / "similes" / "antonyms.json"


@lru_cache(maxsize=1)
def load_antonyms() -> dict[str, tuple[str, ...]]:
    """{adjective: antonyms} from the committed table (memoised); empty when it is missing."""
    if not ASSET.is_file():
        return {}
    with open(ASSET, encoding="utf-8") as fh:
        return {w: tuple(a) for w, a in json.load(fh)["antonyms"].items()}


@lru_cache(maxsize=1)
def load_opposites() -> dict[str, tuple[str, ...]]:
    """{adjective: its antonyms, then the table's also-see words of them} (memoised): what a sentence may say that
    is the opposite of a simile's property ("The room was very loud." against "as quiet as a mouse"). Irony reads
    `load_antonyms` alone: an ironic simile's literal reading needs the one plain opposite."""
    also = load_also_see()
    return {w: a + also.get(w, ()) for w, a in load_antonyms().items()}


@lru_cache(maxsize=1)
def load_also_see() -> dict[str, tuple[str, ...]]:
    """{adjective: WordNet's also-see words of its antonyms' senses} (memoised): the part of `load_opposites` that a
    sentence must say of its subject to count ("The room was very loud."), not of any noun ("The tough old dog …")."""
    if not ASSET.is_file():
        return {}
    with open(ASSET, encoding="utf-8") as fh:
        return {w: tuple(a) for w, a in json.load(fh).get("also_see", {}).items()}
