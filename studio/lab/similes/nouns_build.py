"""`python -m studio build nouns`: the English noun list of studio/figures/nouns.py (assets/similes/nouns.json) from
WordNet's noun index (single words, and two-part compounds joined: "rollercoaster") and its irregular plurals (Debian
`wordnet-base`, /usr/share/wordnet/index.noun and noun.exc; `bash scripts/setup.sh --build` installs it), and which of
those nouns WordNet also knows as an adjective or an adverb (index.adj, index.adv), and the nouns that name one image
(a synset that is the first sense of one and among the first two of another: "grave" and "tomb"; data.noun), and
each noun's first sense with that sense's hypernyms, for telling a kind of a thing from an image of it ("dogs like
huskies"; data.noun): single words only, lower case; and the names of one or two words WordNet writes only with
capitals, as it writes them ("Solomon", "FBI", "New York": every data and exception file)."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ...atomic import atomic_write
from ...errors import parse_options
from ...figures.nouns import ASSET, PLURAL_ENDINGS
from .wordnet import WORDNET, index, licence, synsets, wordnet_file

#: how many of a noun's senses, most frequent first, may name the image it shares with another noun
IMAGE_SENSES = 2


def wordnet_nouns(folder: Path = WORDNET) -> tuple[list[str], dict[str, str]]:
    """(the single-word noun lemmas, {irregular plural: its lemma}) of WordNet."""
    index, exc = folder / "index.noun", folder / "noun.exc"
    for path in (index, exc):
        wordnet_file(path)
    nouns = set()
    with open(index, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            word = line.split(" ", 1)[0].lower()
            if line.startswith(" "):
                continue
            parts = word.split("_")
            if len(parts) == 1:
                nouns.add(word)
            elif len(parts) == 2 and all(p.isalpha() for p in parts):  # "roller_coaster": also "rollercoaster"
                nouns.add("".join(parts))
    plurals = {}
    with open(exc, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) >= 2 and "_" not in parts[0] and parts[1] in nouns:
                plurals[parts[0].lower()] = parts[1].lower()
    return sorted(nouns), dict(sorted(plurals.items()))


def also_adjectives_or_adverbs(nouns: list[str], folder: Path = WORDNET) -> list[str]:
    """The nouns WordNet also lists as an adjective or an adverb ("crazy", "blue", "upright"; not "jelly")."""
    others = set()
    for name in ("index.adj", "index.adv"):
        path = folder / name
        wordnet_file(path)
        with open(path, encoding="utf-8", errors="replace") as fh:
            others.update(line.split(" ", 1)[0].lower() for line in fh if not line.startswith(" "))
    return sorted(set(nouns) & others)


def same_images(folder: Path = WORDNET, senses: int = IMAGE_SENSES) -> list[list[list[str]]]:
    """WordNet's noun synsets that are the first sense of a single-word member and among the first `senses` senses of
    another, as [the members whose first sense it is, the other members within their first `senses`], sorted:
    [["tomb"], ["grave"]], [["cemetery", "graveyard", "necropolis"], []], [["lunatic", "madman", "maniac"], []].
    Two nouns are one image to Polish when a group holds both and at least one is in its first part
    (`studio.figures.nouns.same_image`): "grave" and "tomb"; not "grave" and "graveyard", which share no sense."""
    first: dict[str, set[str]] = {}
    near: dict[str, set[str]] = {}
    for lemma, offsets in index(folder / "index.noun"):
        if "_" not in lemma:
            first.setdefault(offsets[0], set()).add(lemma.lower())
            for offset in offsets[1:senses]:
                near.setdefault(offset, set()).add(lemma.lower())
    groups = set()
    for offset, _, words, _ in synsets(folder / "data.noun"):
        core = first.get(offset, set()) & set(words)
        rest = (near.get(offset, set()) & set(words)) - core
        if core and len(core) + len(rest) >= 2:
            groups.add((tuple(sorted(core)), tuple(sorted(rest))))
    return [[list(core), list(rest)] for core, rest in sorted(groups)]


def capitalised(folder: Path = WORDNET) -> dict[str, str]:
    """{lower case: as WordNet writes it} for the nouns of one or two words that WordNet writes only with capitals,
    in every synset of every part of speech that holds them: "solomon": "Solomon", "fbi": "FBI", "new york": "New
    York"; not "china" (also "china", porcelain), "nice" (also the adjective), "fox", an inflected form of another
    word ("fed", "lent", "queens": WordNet's exception lists and regular plurals), a trademark its gloss names (people
    write one as a common noun) or a stop word ("an" is WordNet's "AN"); three letters or more."""
    from spacy.lang.en.stop_words import STOP_WORDS

    upper: dict[str, set[str]] = {}
    lower, trademarks = set(), set()
    for name in ("data.noun", "data.adj", "data.adv", "data.verb"):
        with open(wordnet_file(folder / name), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue
                fields, gloss = line.split("|")[0].split(), line.partition("|")[2]
                words = [fields[4 + 2 * i].split("(")[0].replace("_", " ") for i in range(int(fields[3], 16))]
                for w in words:
                    key = w.lower()
                    if name != "data.noun" or not w[:1].isupper() or not any(p[:1].isupper() for p in w.split()):
                        lower.add(key)
                    elif all(p[:1].isupper() for p in w.split()):
                        upper.setdefault(key, set()).add(w)
                        if "trademark" in gloss.lower():
                            trademarks.add(key)
    for name in ("noun.exc", "verb.exc", "adj.exc", "adv.exc"):  # an inflected form: "fed", "lent", "queens"
        with open(wordnet_file(folder / name), encoding="utf-8", errors="replace") as fh:
            lower.update(line.split()[0].replace("_", " ") for line in fh if line.strip())
    plural = {key for key in upper if any(key.endswith(end) and key[:len(key) - len(end)] + base in lower
                                          for end, base in PLURAL_ENDINGS)}
    return {key: min(forms) for key, forms in sorted(upper.items())
            if key not in lower and key not in trademarks and key not in plural and len(forms) == 1
            and len(key) >= 3 and key not in STOP_WORDS and len(key.split()) <= 2
            and all(p.isalpha() for p in key.split())}


def kinds(nouns: list[str], folder: Path = WORDNET) -> tuple[list[int], list[list[int]]]:
    """(for each of `nouns`, the number of its first sense, -1 for none; for each sense so numbered, the numbers of
    its hypernyms and instance hypernyms): the senses are numbered in the order they are first met, the first senses
    of `nouns` in their order, then their ancestors. A noun written as one ("rollercoaster") has the first sense of
    its two-part lemma ("roller_coaster")."""
    first_offset: dict[str, str] = {}
    for lemma, offsets in index(folder / "index.noun"):
        word = lemma.lower().replace("_", "") if lemma.count("_") == 1 else lemma.lower()
        if offsets and (word == lemma.lower() or word not in first_offset):  # the single word's own entry first
            first_offset[word] = offsets[0]
    parents = {offset: [target for symbol, target, _ in ptrs if symbol in ("@", "@i")]
               for offset, _, _, ptrs in synsets(folder / "data.noun")}
    number: dict[str, int] = {}
    order: list[str] = []

    def numbered(offset: str) -> int:
        if offset not in number:
            number[offset] = len(order)
            order.append(offset)
        return number[offset]

    first = [numbered(first_offset[w]) if w in first_offset else -1 for w in nouns]
    i = 0
    while i < len(order):  # every ancestor of a first sense, numbered as met
        for parent in parents.get(order[i], ()):
            numbered(parent)
        i += 1
    return first, [[number[p] for p in parents.get(offset, ())] for offset in order]


def build(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(prog="python -m studio build nouns", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--wordnet", type=Path, default=WORDNET,
                    help="the folder of WordNet's index.noun, noun.exc, index.adj and index.adv")
    args = parse_options(ap, argv)
    started = time.perf_counter()
    nouns, plurals = wordnet_nouns(args.wordnet)
    also = also_adjectives_or_adverbs(nouns, args.wordnet)
    images = same_images(args.wordnet)
    first_sense, hypernyms = kinds(nouns, args.wordnet)
    names = capitalised(args.wordnet)
    data = {"source": "WordNet 3 noun lemmas, single words and two-part compounds written as one (wordnet-base), "
                      "its irregular plurals, the nouns it also lists as adjectives or adverbs, and the nouns that "
                      f"name one image (a synset that is the first sense of one and among the first {IMAGE_SENSES} "
                      "of another), and each noun's first sense with its hypernyms and instance hypernyms",
            "licence": licence(args.wordnet),
            "rebuild": "python -m studio build nouns", "nouns": nouns, "plurals": plurals,
            "also_adjective_or_adverb": also, "same_image": images,
            "first_sense": first_sense, "hypernyms": hypernyms, "capitalised": names}
    atomic_write(args.out, json.dumps(data, indent=0, ensure_ascii=False))
    return {"out": str(args.out), "nouns": len(nouns), "plurals": len(plurals), "also_adjective_or_adverb": len(also),
            "same_image": len(images), "kinds": len(hypernyms), "capitalised": len(names),
            "seconds": round(time.perf_counter() - started, 1)}
