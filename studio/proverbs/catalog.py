"""The proverb catalog: ePiC's 250 proverbs (with their quote_id) plus the studio's additions, each with a
short meaning written for the studio and a few themes.

`assets/proverbs/catalog.json` is derived by `python -m studio build proverbs` from ePiC's proverbs.json
(the texts and ids) and the studio's own files `meanings_epic.tsv` and `additions.tsv`.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import InputError
from ..models.specs import PROVERBS_ASSETS
from ..shared_data import shared_data_dir

PROVERB_ASSETS = PROVERBS_ASSETS  # assets/proverbs (named in studio/models/specs.py)
CATALOG_PATH = PROVERB_ASSETS / "catalog.json"
EPIC_DIR = shared_data_dir() / "epic"

@dataclass(frozen=True)
class Proverb:
    id: str
    text: str
    meaning: str
    themes: tuple[str, ...] = ()
    quote_id: str | None = None  # ePiC's id; None for the studio's additions
    source_text: str = ""  # the text as ePiC spells it

    def to_json(self) -> dict:
        return {**asdict(self), "themes": list(self.themes)}


class Catalog:
    def __init__(self, proverbs: list[Proverb]):
        if not proverbs:
            raise ValueError("the proverb catalog is empty")
        self.proverbs = proverbs
        self._by_key: dict[str, int] = {}
        for i, p in enumerate(proverbs):
            for key in (p.id, p.quote_id, p.text, p.source_text):
                if key:
                    self._by_key.setdefault(normalize(key), i)

    def __len__(self) -> int:
        return len(self.proverbs)

    def __getitem__(self, i: int) -> Proverb:
        return self.proverbs[i]

    @property
    def digest(self) -> str:
        """Changes whenever a text or meaning changes, so that cached embeddings of an old catalog are not reused."""
        blob = json.dumps([[p.id, p.text, p.meaning] for p in self.proverbs], ensure_ascii=False)
        return hashlib.sha1(blob.encode()).hexdigest()[:12]

    def find(self, key: str) -> int | None:
        """Index of a proverb given by id, ePiC quote_id or text (case and punctuation ignored)."""
        return self._by_key.get(normalize(key or ""))

    def index_of_quote_id(self, quote_id: str) -> int:
        i = self._by_key.get(normalize(quote_id))
        if i is None or self.proverbs[i].quote_id != quote_id:
            raise KeyError(quote_id)
        return i

    @property
    def epic_indices(self) -> list[int]:
        return [i for i, p in enumerate(self.proverbs) if p.quote_id]


def normalize(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(text).lower()).strip()


#: proverbs that are still said but hurt someone, by their text (normalized): the note shown wherever one is offered.
#: The catalog keeps them (ePiC's narratives and the evaluation refer to them); the studio says what they are.
USAGE_NOTES = {
    normalize("Too many chiefs and not enough Indians"):
        "Dated and offensive: it uses Native Americans as a stereotype of people who only follow. "
        "\"Too many cooks spoil the broth\" says much the same.",
}


def usage_note(text: str) -> str:
    """The note on a dated or offensive proverb ('' for the others)."""
    return USAGE_NOTES.get(normalize(text or ""), "")


@lru_cache(maxsize=1)
def load_catalog(path: Path = CATALOG_PATH) -> Catalog:
    if not Path(path).is_file():
        raise InputError(f"The proverb catalog {path} is missing; build it with `python -m studio build proverbs`.")
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    return Catalog([Proverb(**{**r, "themes": tuple(r.get("themes", ()))}) for r in rows])
