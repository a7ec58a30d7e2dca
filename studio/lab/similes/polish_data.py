"""Literal → simile pairs for training the polisher (training and evaluation only; serving never imports this).

Sources, all from ../shared/data:
- hauser/candidates.jsonl: each literal with the paper's 5 BART candidates; a candidate is kept when, after
  aligning its words with the literal's, it is the literal with one contiguous phrase inserted that starts with
  "like", "as" or "as if"/"as though" (the paper's candidates that also alter context words are dropped);
- similes/spgc_triplets.tsv, general_corpus.csv, quizzes.csv: sentences "… as PROPERTY as VEHICLE …"; the literal is
  the sentence with "as PROPERTY as … VEHICLE" replaced by PROPERTY ("He was as silent as Grant." ← "He was
  silent."), or with "like … VEHICLE" removed;
- figurative/simile_train.jsonl (train part of the continuation split only): the narrative's last sentence with
  its simile removed.

Split (`split_of`): by literal, sha1("polish|literal") % 10: 0 → test, 1 → dev, else train, so a literal and all
its candidates sit wholly in one part. The literals of hauser/human_ratings_dev.csv are never train.
"""
from __future__ import annotations

import csv
import difflib
import hashlib
import json
import re
from functools import lru_cache

from .data import detokenize, shared_data_dir
from ...similes.polisher import PROMPT  # one prompt format for training and serving
_WORD = re.compile(r"\w+(?:'\w+)?|[^\w\s]")


def split_of(literal: str) -> str:
    digit = int(hashlib.sha1(f"polish|{norm(literal)}".encode("utf-8")).hexdigest()[:8], 16) % 10
    return "test" if digit == 0 else "dev" if digit == 1 else "train"


def norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def prompt(literal: str) -> str:
    return PROMPT.format(literal=literal.strip())


def align_insertion(literal: str, candidate: str) -> tuple[int, str] | None:
    """(character offset in `literal`, inserted phrase) when `candidate` is `literal` with one phrase inserted."""
    a = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(literal)]
    b = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(candidate)]
    sm = difflib.SequenceMatcher(a=[w.lower() for w, *_ in a], b=[w.lower() for w, *_ in b], autojunk=False)
    ops = [op for op in sm.get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "insert":
        return None
    _, i1, _, j1, j2 = ops[0]
    phrase = candidate[b[j1][1]:b[j2 - 1][2]]
    offset = a[i1 - 1][2] if i1 > 0 else 0
    return offset, phrase


def _comparison(phrase: str) -> bool:
    first = phrase.split()[0].lower() if phrase.split() else ""
    return first in ("like", "as") and 2 <= len(phrase.split()) <= 8 and not re.search(r"[.;!?]", phrase)


def _clean_candidate(text: str) -> str:
    return re.sub(r"([.!?])[a-z]{1,3}$", r"\1", text.strip())  # "emotion.at" → "emotion."


@lru_cache(maxsize=1)
def rated_literals() -> frozenset[str]:
    path = shared_data_dir() / "hauser" / "human_ratings_dev.csv"
    if not path.is_file():
        return frozenset()
    with open(path, encoding="utf-8") as fh:
        return frozenset(norm(detokenize(r["literal_sentences"])) for r in csv.DictReader(fh))


def hauser_raw() -> list[tuple[str, list[str]]]:
    """(detokenized literal, the paper's 5 candidates as they are) of every row, in file order."""
    out = []
    with open(shared_data_dir() / "hauser" / "candidates.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out.append((detokenize(row["literal"]).strip(), list(row["candidates"])))
    return out


def hauser_pairs() -> list[dict]:
    rows = []
    with open(shared_data_dir() / "hauser" / "candidates.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            literal = detokenize(row["literal"]).strip()
            seen = set()
            for cand in row["candidates"]:
                cand = _clean_candidate(cand)
                found = align_insertion(literal, cand)
                if not found or not _comparison(found[1]) or cand.lower() in seen:
                    continue
                seen.add(cand.lower())
                offset, phrase = found
                before, after = literal[:offset], literal[offset:]
                sep = "" if not after or after[0] in ".,;:!?)'\"" or after[0].isspace() else " "
                cand = (f"{before} {phrase}{sep}{after}" if before else f"{phrase[0].upper()}{phrase[1:]} {after}").strip()
                rows.append({"literal": literal, "simile": cand, "phrase": found[1], "offset": found[0],
                             "source": "hauser"})
    return rows


_AS_AS = re.compile(r"\bas (\w+) as\b")


_NOT_IMAGES = {"ever", "usual", "possible", "before", "other", "others", "any", "anyone", "anything", "one", "that",
               "this", "it", "he", "she", "they", "you", "i", "we", "his", "her", "mine", "yours", "those", "these"}


def _literal_from_as_as(sentence: str, prop: str, vehicle: str) -> tuple[str, str] | None:
    """(literal, simile) from a sentence holding "as PROP as … VEHICLE"; the phrase is replaced by PROP."""
    if vehicle.strip().lower() in _NOT_IMAGES or not vehicle.strip():
        return None
    sentence = detokenize(sentence).strip()
    m = re.search(rf"\bas {re.escape(prop)} as\b", sentence, re.I)
    if not m:
        return None
    vm = re.search(rf"\b{re.escape(vehicle)}\b", sentence[m.end():], re.I)
    if not vm or len(sentence[m.end():m.end() + vm.end()].split()) > 5:
        return None
    end = m.end() + vm.end()
    literal = sentence[:m.start()] + prop + sentence[end:]
    if len(literal.split()) < 3 or len(sentence.split()) > 40:
        return None
    return re.sub(r"\s+", " ", literal), sentence


def corpus_pairs() -> list[dict]:
    root = shared_data_dir() / "similes"
    out = []
    with open(root / "spgc_triplets.tsv", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            sentence, _topic, prop, vehicle = parts
            made = _literal_from_as_as(sentence.replace("_", prop, 1), prop, vehicle)
            if made:
                out.append({"literal": made[0], "simile": made[1], "source": "spgc"})
    for name in ("general_corpus.csv", "quizzes.csv"):
        with open(root / name, encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                try:
                    prop = r[f"option{int(r['ans_idx'])}"]
                except (KeyError, ValueError):
                    continue
                made = _literal_from_as_as(r["sentence"].replace("_", prop, 1), prop, r["vehicle"])
                if made:
                    out.append({"literal": made[0], "simile": made[1], "source": name.split(".")[0]})
    return out


def narrative_pairs() -> list[dict]:
    """The train part of the figurative simile narratives: the sentence holding the simile, without it."""
    from ..continuation.data import split

    out = []
    for item in split("simile")[0]:
        text = item.narrative if hasattr(item, "narrative") else ""
        simile = (item.expression or "").strip()
        if not simile or simile not in text:
            continue
        start = text.rfind(simile)
        sent_start = max(text.rfind(". ", 0, start), text.rfind("? ", 0, start), text.rfind("! ", 0, start))
        sentence = text[sent_start + 2 if sent_start >= 0 else 0:].strip()
        if not simile.lower().startswith(("like ", "as ")) or len(sentence.split()) > 35:
            continue
        sentence = detokenize(sentence)
        simile_d = detokenize(simile)
        if simile_d not in sentence:
            continue
        literal = re.sub(r"\s+", " ", sentence.replace(simile_d, "", 1)).replace(" ,", ",").replace(" .", ".")
        if len(literal.split()) >= 3:
            out.append({"literal": literal.strip(), "simile": sentence, "source": "figurative"})
    return out


def all_pairs() -> dict[str, list[dict]]:
    """{"train", "dev", "test"} → pairs; rated HAUSER literals never train."""
    parts = {"train": [], "dev": [], "test": []}
    rated = rated_literals()
    for row in hauser_pairs() + corpus_pairs() + narrative_pairs():
        part = split_of(row["literal"])
        if part == "train" and norm(row["literal"]) in rated:
            part = "dev"
        row["split"] = part
        parts[part].append(row)
    return parts


def literals(part: str, source: str = "hauser") -> list[str]:
    """The distinct literals of a part, in file order."""
    return list(dict.fromkeys(r["literal"] for r in all_pairs()[part] if r["source"] == source))
