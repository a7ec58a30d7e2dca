"""What serving needs to know of the fine-tuned encoder delta (trained by finetune.py): where it is, its
settings, and the text each proverb is embedded as. Serving imports this module, never the training one."""
from __future__ import annotations

import json
from pathlib import Path

from .catalog import PROVERB_ASSETS, Proverb

DELTA_PATH = PROVERB_ASSETS / "encoder_delta.safetensors"
DELTA_CONFIG = PROVERB_ASSETS / "encoder_delta.json"


def class_text(proverb: Proverb) -> str:
    """What the fine-tuned encoder embeds for a proverb (as it was trained)."""
    return f"{proverb.text} — {proverb.meaning}"


def load_finetune_config(path: Path = DELTA_CONFIG) -> dict | None:
    """The delta's settings (weight, temperature, base model), or None when no delta ships."""
    if not (Path(path).is_file() and DELTA_PATH.is_file()):
        return None
    return json.loads(Path(path).read_text())
