"""Where the asset builds find WordNet (Debian `wordnet-base`; `bash scripts/setup.sh --build` installs it), and the
licence every asset derived from it carries."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ...errors import InputError

WORDNET = Path("/usr/share/wordnet")
#: what an asset says when Debian's copyright file is not there to copy
LICENCE_NOTE = "WordNet 3.0, Copyright 2006 by Princeton University; see Debian's wordnet-base copyright file"


def wordnet_file(path: Path) -> Path:
    """`path`, or an InputError saying how to install WordNet."""
    if not path.is_file():
        raise InputError(f"{path} is missing: install Debian's wordnet-base (`bash scripts/setup.sh --build`)")
    return path


def licence(folder: Path = WORDNET) -> str:
    """WordNet's licence, as Debian ships it beside the data in `folder` (/usr/share/wordnet → /usr/share/doc)."""
    path = folder.parent / "doc" / "wordnet-base" / "copyright"
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else LICENCE_NOTE


def synsets(path: Path) -> Iterator[tuple[str, str, list[str], list[tuple[str, str, str]]]]:
    """(offset, synset type, its words lower-cased, its pointers as (symbol, target offset, source/target)) of each
    synset of a WordNet data file (data.adj, …); the licence lines are skipped."""
    with open(wordnet_file(path), encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            fields = line.split("|")[0].split()
            w_cnt = int(fields[3], 16)
            words = [fields[4 + 2 * i].split("(")[0].lower() for i in range(w_cnt)]
            k = 4 + 2 * w_cnt
            ptrs = [(fields[k + 1 + 4 * j], fields[k + 2 + 4 * j], fields[k + 4 + 4 * j]) for j in range(int(fields[k]))]
            yield fields[0], fields[2], words, ptrs


def index(path: Path) -> Iterator[tuple[str, list[str]]]:
    """(lemma, its synset offsets, most frequent sense first) of each entry of a WordNet index file (index.adj, …);
    the licence lines are skipped."""
    with open(wordnet_file(path), encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith(" "):
                continue
            # lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt [synset_offset…]
            fields = line.split()
            yield fields[0], fields[6 + int(fields[3]):]
