"""Where the shared research data lives (read-only; never copied into the project)."""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import StudioError

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def shared_data_dir() -> Path:
    root = Path(os.environ.get("STUDIO_SHARED_DATA", PROJECT_ROOT.parent / "shared" / "data"))
    if not root.is_dir():
        raise StudioError(f"the shared research data is not at {root}; set STUDIO_SHARED_DATA to its folder")
    return root


def similes_dir() -> Path:
    return shared_data_dir() / "similes"


_DETOKENIZE = [
    (re.compile(r" (n't|'s|'m|'re|'ve|'ll|'d|'S|N'T)\b"), r"\1"),
    (re.compile(r" ([,.;:?!%)\]])"), r"\1"),
    (re.compile(r"([(\[$]) "), r"\1"),
    (re.compile(r" - "), "-"),
]


def detokenize(text: str) -> str:
    """Undo the corpora's Penn-Treebank spacing ("I 'm", "day , and") which otherwise derails the parser."""
    for pattern, repl in _DETOKENIZE:
        text = pattern.sub(repl, text)
    return text
