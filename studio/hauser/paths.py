"""Where the shared research data lives (never copied into the repository)."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from ..models.config import PROJECT_ROOT


def data_dir() -> Path:
    return Path(os.environ.get("STUDIO_DATA_DIR") or PROJECT_ROOT.parent / "shared" / "data")


def data_file(*parts: str) -> Path:
    path = data_dir().joinpath(*parts)
    if not path.is_file():
        raise InputError(f"{path} is missing: the shared research data is expected under {data_dir()} "
                         "(set STUDIO_DATA_DIR to point elsewhere)")
    return path
