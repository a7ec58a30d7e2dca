"""Adjective antonyms for reading an ironic simile ("as loud as a whisper" means "very soft").

`python -m studio build antonyms`: the table of studio/figures/antonyms.py (assets/similes/antonyms.json) from
WordNet's direct adjective antonyms (Debian `wordnet-base`, /usr/share/wordnet/data.adj), kept only where the
antonym is a property of the simile KB. A KB property WordNet gives no such antonym ("quick", "silent", "tiny":
satellites of another adjective) gets the opposite the registry's writer names, kept only where it is a KB
property and WordNet or the writer itself confirms it: the antonym of the head a satellite sense of the word is
similar to ("tiny" → "small" → "large"), or the word back as the answer's own opposite. `--no-writer`: WordNet only.
Beside each entry, the words WordNet lists as "also see" of an antonym's own sense ("quiet" → "noisy" → "loud"): a
sentence that says one of them says the opposite of the property too (irony.find_served_opposites reads them).
"""
from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from ...atomic import atomic_write
from ...errors import parse_options
from ...figures.antonyms import ASSET
from .wordnet import WORDNET, licence
from .wordnet import index as wordnet_index
from .wordnet import synsets as read_synsets

WORDNET_ADJ = WORDNET / "data.adj"
#: the senses of a word whose satellite heads confirm the writer's answer (WordNet orders senses by frequency)
CONFIRMING_SENSES = 2
WRITER_SYSTEM = "You are a careful lexicographer. You answer with one English word and nothing else."


def _antonym_pairs(synsets: dict, words: list[str], ptrs) -> Iterator[tuple[str, str]]:
    """(word, its antonym) of one synset's lexical antonym pointers."""
    for symbol, target, src_tgt in ptrs:
        if symbol != "!" or target not in synsets:
            continue
        src, tgt = int(src_tgt[:2], 16), int(src_tgt[2:], 16)
        if src and tgt:
            yield words[src - 1], synsets[target][1][tgt - 1]


def _read(path: Path) -> dict:
    return {offset: (ss_type, words, ptrs) for offset, ss_type, words, ptrs in read_synsets(path)}


def wordnet_antonyms(path: Path = WORDNET_ADJ) -> dict[str, set[str]]:
    """{adjective: its direct antonyms} from WordNet's data.adj (single words only)."""
    synsets = _read(path)
    out: dict[str, set[str]] = defaultdict(set)
    for _, words, ptrs in synsets.values():
        for a, b in _antonym_pairs(synsets, words, ptrs):
            out[a].add(b)
    return {w: {a for a in ants if "_" not in a and a != w} for w, ants in out.items() if "_" not in w and ants}


def satellite_antonyms(path: Path = WORDNET_ADJ, senses: int = CONFIRMING_SENSES) -> dict[str, set[str]]:
    """{adjective: the direct antonyms of the heads its first `senses` satellite senses are similar to} (single
    words): "tiny" → {"large", "big"}."""
    synsets = _read(path)
    out: dict[str, set[str]] = {}
    for lemma, offsets in wordnet_index(path.parent / "index.adj"):
        found = set()
        for offset in offsets[:senses]:
            ss_type, _, ptrs = synsets.get(offset, ("", [], []))
            for head in (h for symbol, h, _ in ptrs if ss_type == "s" and symbol == "&" and h in synsets):
                found |= {b for _, b in _antonym_pairs(synsets, synsets[head][1], synsets[head][2])}
        found = {a for a in found if "_" not in a and a != lemma}
        if found and "_" not in lemma:
            out[lemma] = found
    return out


def also_see_opposites(table: dict[str, list[str]], path: Path = WORDNET_ADJ) -> dict[str, list[str]]:
    """{p: the single words WordNet gives as "also see" of the sense of each antonym a of p in `table` that is p's
    direct antonym} ("quiet" → "noisy" → "loud"; "loud" → "soft" → "quiet"): sense by sense, so that "hard" (not
    soft) gets "tender", not the "quiet" of another sense of "soft". An antonym the writer named (no WordNet pointer)
    adds nothing."""
    synsets = _read(path)
    out: dict[str, set[str]] = defaultdict(set)
    for _, words, ptrs in synsets.values():
        for symbol, target, src_tgt in ptrs:
            if symbol != "!" or target not in synsets or not int(src_tgt[:2], 16) or not int(src_tgt[2:], 16):
                continue
            p, a = words[int(src_tgt[:2], 16) - 1], synsets[target][1][int(src_tgt[2:], 16) - 1]
            if a not in table.get(p, ()):
                continue
            for also, seen, _ in synsets[target][2]:
                if also == "^" and seen in synsets:
                    out[p] |= {w for w in synsets[seen][1] if "_" not in w and w != p and w not in table[p]}
    return {p: sorted(words) for p, words in sorted(out.items()) if words}


def _writer_opposite(writer, word: str) -> str:
    text = writer.reply(WRITER_SYSTEM, f"What is the opposite of the adjective \"{word}\"? One word.", n=1,
                        max_new_tokens=6, top_k=1, temperature=1.0, seed=0)[0].text
    words = [w for w in "".join(c if c.isalpha() or c == "-" else " " for c in text.lower()).split()]
    return words[0] if words else ""


def writer_antonyms(writer, missing: list[str], properties: set[str], wordnet_heads: dict[str, set[str]],
                    progress=None) -> dict[str, list[str]]:
    """{p: [a]} for each word p of `missing` whose opposite a by the writer is a KB property other than p, confirmed
    by WordNet's satellite heads (`satellite_antonyms`) or by the writer giving p back as a's opposite; failing
    that, WordNet's satellite-head antonym b that is a KB property and that the writer answers p for ("clear":
    WordNet's "confused" is a KB property, and the writer's opposite of "confused" is "clear")."""
    out = {}
    for i, word in enumerate(missing):
        answer = _writer_opposite(writer, word)
        heads = wordnet_heads.get(word, set())
        if answer in properties and answer != word and (
                answer in heads or _writer_opposite(writer, answer) == word):
            out[word] = [answer]
        else:
            back = next((b for b in sorted(heads & properties - {word, answer})
                         if _writer_opposite(writer, b) == word), None)
            if back is not None:
                out[word] = [back]
        if progress is not None and (i + 1) % 50 == 0:
            progress(f"{i + 1} of {len(missing)} properties asked, {len(out)} opposites kept")
    return out


def build(argv: list[str]) -> dict:
    from ...figures.kb import load_kb

    ap = argparse.ArgumentParser(prog="python -m studio build antonyms", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--wordnet", type=Path, default=WORDNET_ADJ, help="WordNet's data.adj")
    ap.add_argument("--no-writer", action="store_true", help="WordNet's direct antonyms only")
    args = parse_options(ap, argv)
    started = time.perf_counter()
    properties = set(load_kb().properties())
    table = {}
    for word, ants in sorted(wordnet_antonyms(args.wordnet).items()):
        kept = sorted(a for a in ants if a in properties)
        if kept:
            table[word] = kept
    added = {}
    if not args.no_writer:
        from ...models import get_registry

        missing = sorted(p for p in properties if p not in table and p.isalpha())
        added = writer_antonyms(get_registry().get("writer"), missing, properties, satellite_antonyms(args.wordnet),
                                progress=lambda line: print(line, flush=True))
        table.update(added)
    also_see = also_see_opposites(table, args.wordnet)
    atomic_write(args.out, json.dumps({"source": "WordNet 3 direct adjective antonyms (wordnet-base), antonym a simile "
                                       "KB property; for a property WordNet gives none, the writer's opposite "
                                       "confirmed by WordNet's satellite heads or by the writer (listed in "
                                       "'from_writer'); 'also_see': WordNet's also-see words of each "
                                       "antonym's sense, for reading a sentence's opposite of a property",
                                       "licence": licence(args.wordnet.parent),
                                       "rebuild": "python -m studio build antonyms", "from_writer": sorted(added),
                                       "antonyms": dict(sorted(table.items())), "also_see": also_see},
                                      indent=0, ensure_ascii=False) + "\n")
    return {"out": str(args.out), "adjectives": len(table), "from_writer": len(added), "also_see": len(also_see),
            "seconds": round(time.perf_counter() - started, 1)}
