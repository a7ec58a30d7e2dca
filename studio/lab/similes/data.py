"""The similes' files of the shared research data (found by studio.shared_data), and the corpora's detokenizer."""
from __future__ import annotations

import csv
import re
from pathlib import Path

from ...shared_data import shared_data_dir as _shared_data_dir


def shared_data_dir() -> Path:
    """The data folder, which must exist (the builds and evaluations that call this read from it)."""
    return _shared_data_dir(must_exist=True)


def similes_dir() -> Path:
    return shared_data_dir() / "similes"


def read_csv(name: str) -> list[dict]:
    """Rows of a CSV file of ../shared/data/similes."""
    with open(similes_dir() / name, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


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
