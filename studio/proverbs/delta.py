"""What serving needs to know of the fine-tuned encoder delta (trained by finetune.py): where it is, its
settings, and the text each proverb is embedded as. Serving imports this module, never the training one."""
from __future__ import annotations

import json
from pathlib import Path

from ..models.specs import PROVERBS_DELTA as DELTA_PATH  # the registry's `proverbs_encoder` role serves it
from .catalog import PROVERB_ASSETS, Proverb

DELTA_CONFIG = PROVERB_ASSETS / "encoder_delta.json"


def class_text(proverb: Proverb) -> str:
    """What the fine-tuned encoder embeds for a proverb (as it was trained)."""
    return f"{proverb.text} — {proverb.meaning}"


def delta_digest(path: Path = DELTA_PATH) -> str | None:
    """sha256 of the delta file: what an adapter fitted on this encoder's embeddings records and checks."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if Path(path).is_file() else None


def load_finetune_config(path: Path = DELTA_CONFIG) -> dict | None:
    """The delta's settings (weight, temperature, base model), or None when no delta ships."""
    if not (Path(path).is_file() and DELTA_PATH.is_file()):
        return None
    return json.loads(Path(path).read_text())
