"""What a stored pair encoder's folder holds (studio.models.pair_encoder reads it), checked without loading anything:
the registry asks it whether such a role has something to load."""
from __future__ import annotations

from pathlib import Path

WEIGHTS = "pair_encoder.safetensors"
CONFIG = "pair_encoder.json"


def has_pair_encoder(folder: Path) -> bool:
    return (Path(folder) / WEIGHTS).is_file() and (Path(folder) / CONFIG).is_file()
