"""Adjective antonyms for reading an ironic simile ("as loud as a whisper" means "very soft").

Built from WordNet's direct adjective antonyms (Debian `wordnet-base`, /usr/share/wordnet/data.adj; a satellite's
head's antonyms are too loose: "quiet" ↔ "fatty") by `python -m studio build antonyms`, kept only where the antonym
is itself a property of the simile KB (built from train parts only), so that a literal reading says "very soft",
not "very unquiet". The app reads the derived table `assets/similes/antonyms.json`; WordNet is needed only to build
it (`bash scripts/setup.sh --build`).
"""
from __future__ import annotations

import json
from functools import lru_cache

from ..models.config import PROJECT_ROOT

ASSET = PROJECT_ROOT / "assets" / "similes" / "antonyms.json"


@lru_cache(maxsize=1)
def load_antonyms() -> dict[str, tuple[str, ...]]:
    """{adjective: antonyms} from the committed table (memoised); empty when it is missing."""
    if not ASSET.is_file():
        return {}
    with open(ASSET, encoding="utf-8") as fh:
        return {w: tuple(a) for w, a in json.load(fh)["antonyms"].items()}
