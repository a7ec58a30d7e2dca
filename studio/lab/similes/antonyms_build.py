"""Adjective antonyms for reading an ironic simile ("as loud as a whisper" means "very soft").

`python -m studio build antonyms`: the table of studio/figures/antonyms.py (assets/similes/antonyms.json) from
WordNet's direct adjective antonyms (Debian `wordnet-base`, /usr/share/wordnet/data.adj), kept only where the
antonym is a property of the simile KB.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from ...atomic import atomic_write
from ...errors import parse_options
from ...figures.antonyms import ASSET
from .wordnet import WORDNET, licence
from .wordnet import synsets as read_synsets

WORDNET_ADJ = WORDNET / "data.adj"


def wordnet_antonyms(path: Path = WORDNET_ADJ) -> dict[str, set[str]]:
    """{adjective: its direct antonyms} from WordNet's data.adj (single words only)."""
    synsets = {offset: (ss_type, words, ptrs) for offset, ss_type, words, ptrs in read_synsets(path)}
    out: dict[str, set[str]] = defaultdict(set)
    for ss_type, words, ptrs in synsets.values():
        for symbol, target, src_tgt in ptrs:
            if symbol != "!" or target not in synsets:
                continue
            src, tgt = int(src_tgt[:2], 16), int(src_tgt[2:], 16)
            a = words[src - 1] if src else None
            b = synsets[target][1][tgt - 1] if tgt else None
            if a and b:
                out[a].add(b)
    return {w: {a for a in ants if "_" not in a and a != w} for w, ants in out.items() if "_" not in w and ants}


def build(argv: list[str]) -> dict:
    from ...figures.kb import load_kb

    ap = argparse.ArgumentParser(prog="python -m studio build antonyms", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--wordnet", type=Path, default=WORDNET_ADJ, help="WordNet's data.adj")
    args = parse_options(ap, argv)
    started = time.perf_counter()
    properties = set(load_kb().properties())
    table = {}
    for word, ants in sorted(wordnet_antonyms(args.wordnet).items()):
        kept = sorted(a for a in ants if a in properties)
        if kept:
            table[word] = kept
    atomic_write(args.out, json.dumps({"source": "WordNet 3 direct adjective antonyms (wordnet-base), antonym a simile "
                                       "KB property", "licence": licence(args.wordnet.parent),
                                       "rebuild": "python -m studio build antonyms", "antonyms": table},
                                      indent=0, ensure_ascii=False) + "\n")
    return {"out": str(args.out), "adjectives": len(table), "seconds": round(time.perf_counter() - started, 1)}
