"""`python -m studio build nouns`: the English noun list of studio/figures/nouns.py (assets/similes/nouns.json) from
WordNet's noun index and its irregular plurals (Debian `wordnet-base`, /usr/share/wordnet/index.noun and noun.exc;
`bash scripts/setup.sh --build` installs it). Single words only, lower case."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ...atomic import atomic_write
from ...errors import InputError, parse_options
from ...figures.nouns import ASSET

WORDNET = Path("/usr/share/wordnet")


def wordnet_nouns(folder: Path = WORDNET) -> tuple[list[str], dict[str, str]]:
    """(the single-word noun lemmas, {irregular plural: its lemma}) of WordNet."""
    index, exc = folder / "index.noun", folder / "noun.exc"
    if not index.is_file() or not exc.is_file():
        raise InputError(f"{index} is missing: install Debian's wordnet-base (`bash scripts/setup.sh --build`)")
    nouns = set()
    with open(index, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            word = line.split(" ", 1)[0].lower()
            if line.startswith(" ") or "_" in word:
                continue
            nouns.add(word)
    plurals = {}
    with open(exc, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2 and "_" not in parts[0] and parts[1] in nouns:
                plurals[parts[0].lower()] = parts[1].lower()
    return sorted(nouns), dict(sorted(plurals.items()))


def build(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(prog="python -m studio build nouns", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--wordnet", type=Path, default=WORDNET, help="the folder of WordNet's index.noun and noun.exc")
    args = parse_options(ap, argv)
    started = time.perf_counter()
    nouns, plurals = wordnet_nouns(args.wordnet)
    data = {"source": "WordNet 3 noun lemmas, single words (wordnet-base), and its irregular plurals",
            "rebuild": "python -m studio build nouns", "nouns": nouns, "plurals": plurals}
    atomic_write(args.out, json.dumps(data, indent=0, ensure_ascii=False))
    return {"out": str(args.out), "nouns": len(nouns), "plurals": len(plurals),
            "seconds": round(time.perf_counter() - started, 1)}
