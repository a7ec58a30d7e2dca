"""`python -m studio build idiom-lexicon`: the studio's own idioms of studio/figures/idioms.py (assets/continuation/idioms.json)."""
from __future__ import annotations

import argparse
import json

from ...atomic import atomic_write
from ...paths import ASSETS
from . import data
from ...figures.idioms import LEXICON_PATH, Entry, tokenize_phrases


def entries_from_items(items) -> list[Entry]:
    meanings: dict[str, str] = {}
    for item in items:
        if item.expression and item.knowledge:
            meanings.setdefault(item.expression.strip(), item.knowledge.strip())
    phrases = sorted(meanings, key=str.lower)
    return [Entry(p, meanings[p], "studio", toks) for p, toks in zip(phrases, tokenize_phrases(phrases))]


def build_asset(argv: list[str]) -> dict:
    """`python -m studio build idiom-lexicon`: the idioms of the benchmark's train part (never its test part, split
    by idiom in data.py), their meanings and tokens."""
    argparse.ArgumentParser(prog="python -m studio build idiom-lexicon").parse_args(argv)
    train, _ = data.split("idiom")
    entries = entries_from_items(train)
    atomic_write(LEXICON_PATH, json.dumps([e.__dict__ for e in entries], indent=0, ensure_ascii=False))
    return {"path": str(LEXICON_PATH.relative_to(ASSETS.parent)), "idioms": len(entries)}
