"""ePiC's seen_train narratives and the studio's fixed split of them: per proverb, two narratives are held out
for validation (never trained on) and the rest train the learned scorer."""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ...proverbs.catalog import EPIC_DIR

SEEN_TRAIN = EPIC_DIR / "seen_train.jsonl"
VALIDATION_PER_PROVERB = 2
SPLIT_SEED = 6


@dataclass(frozen=True)
class Narrative:
    pk: str
    quote_id: str
    proverb: str
    text: str
    spans: tuple[tuple[str, str], ...]


def load_seen_train(path: Path | str = SEEN_TRAIN) -> list[Narrative]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path} not found: the ePiC data lives in ../shared/data/epic (pass --data to point elsewhere)")
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                rows.append(Narrative(r["pk"], r["proverb_id"], r["proverb"], r["narrative"],
                                      tuple((a, b) for a, b in r.get("spans", []))))
    return rows


def split(rows: list[Narrative], per_proverb: int = VALIDATION_PER_PROVERB, seed: int = SPLIT_SEED):
    """(train, validation): a seeded choice of `per_proverb` narratives of every proverb is held out."""
    by_proverb: dict[str, list[Narrative]] = {}
    for r in sorted(rows, key=lambda r: r.pk):
        by_proverb.setdefault(r.quote_id, []).append(r)
    rng, held = random.Random(seed), set()
    for quote_id in sorted(by_proverb):
        group = by_proverb[quote_id]
        held.update(r.pk for r in rng.sample(group, min(per_proverb, len(group) - 1)))
    return [r for r in rows if r.pk not in held], [r for r in rows if r.pk in held]
