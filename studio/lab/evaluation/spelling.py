"""The typo notice of every front door (`english.misspellings`): how often the word it suggests is the word meant,
where a typo leaves a choice of two known words or more one edit away ("sik": sit, sick, silk, …).

Rows: sentences people wrote, from the shared data and the reads (the literal sentences of Polish's read lists, the
HAUSER literals, the last two sentences of the figurative narratives' train files), deduplicated; each gets one typo,
seeded by the sentence's SHA-1: a lower-case known word of four letters or more, one edit not at its first letter (a
letter dropped, added or replaced by any of a-z), or two neighbouring letters swapped (the first two included), kept
when the dictionary does not know it, offers two words or more for it, and the notice names it.
Splits by SHA-1 of the sentence mod 10: 0-5 train (no choice made on it), 6-7 dev (the choice of the reading in
context was made there, Rule T of docs/experiments.md#spelling-in-context), 8-9 test (reported, never chosen on).
Nothing is trained. Synthetic typos hit every letter but the first alike; people's own typos are not so spread.
"""
from __future__ import annotations

import csv
import hashlib
import json
import random
import re

from ...figures import english
from ...models import get_registry
from ...paths import PROJECT_ROOT
from ...shared_data import shared_data_dir
from .base import Evaluation, Figure, share_interval

READS = PROJECT_ROOT / "blind_reads"
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def sentences() -> list[str]:
    """The typed sentences (4 to 60 words), sorted."""
    found = set()
    for path in sorted(READS.glob("polish_blind_read_*.json")):
        found.update(row["literal"].strip() for row in json.loads(path.read_text(encoding="utf-8"))["rows"])
    root = shared_data_dir()
    with open(root / "hauser" / "human_ratings_dev.csv", encoding="utf-8", newline="") as fh:
        # the file's literals are tokenized ("roof , window"): the space before punctuation closed up
        found.update(re.sub(r"\s+([,.;:!?'])", r"\1", row["literal_sentences"]).strip() for row in csv.DictReader(fh))
    for name in ("idiom_train.jsonl", "simile_train.jsonl"):
        for line in (root / "figurative" / name).read_text(encoding="utf-8").splitlines():
            narrative = re.sub(r"</?b>", "", json.loads(line)["narrative"])
            found.update(s.strip() for s in re.split(r"(?<=[.!?])\s+", narrative)[-2:] if s.strip())
    return sorted(s for s in found if 4 <= len(s.split()) <= 60)


def _digest(sentence: str) -> int:
    return int(hashlib.sha1(sentence.encode("utf-8")).hexdigest(), 16)


def part(sentence: str) -> str:
    h = _digest(sentence) % 10
    return "train" if h < 6 else "dev" if h < 8 else "test"


def corrupt(word: str, rng: random.Random) -> str:
    kind = rng.choice(["drop", "add", "replace", "swap"])
    if kind == "swap":
        i = rng.randrange(0, len(word) - 1)
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    i = rng.randrange(1, len(word))
    if kind == "drop":
        return word[:i] + word[i + 1:]
    if kind == "add":
        return word[:i] + rng.choice(LETTERS) + word[i:]
    return word[:i] + rng.choice(LETTERS) + word[i + 1:]


def typo_rows(texts: list[str]) -> list[dict]:
    """{part, sentence, text (with its typo), word, typo, pool (the dictionary's words for it, most frequent
    first)} for the sentences whose typo leaves a choice."""
    dictionary = get_registry().get("spelling")
    rows = []
    for sentence in texts:
        rng = random.Random(_digest(sentence))
        words = [m for m in re.finditer(r"[A-Za-z]+", sentence)
                 if m.group().islower() and len(m.group()) >= 4 and dictionary.known(m.group())]
        if not words:
            continue
        m = rng.choice(words)
        typo = corrupt(m.group(), rng)
        if typo == m.group() or dictionary.known(typo):
            continue
        pool = dictionary.candidates(typo)
        text = sentence[:m.start()] + typo + sentence[m.end():]
        if len(pool) >= 2:
            rows.append({"part": part(sentence), "sentence": sentence, "word": m.group(), "typo": typo, "pool": pool,
                         "text": text})
    return rows


def suggested(row: dict) -> str | None:
    """What the served notice suggests for the row's typo (None: the notice does not name it)."""
    return {m.word: m.suggestion for m in english.misspellings(row["text"])}.get(row["typo"])


class SpellingEvaluation(Evaluation):
    name = "spelling"
    title = "the typo notice of every front door: the word suggested is the word meant"
    splits = {"train": "typed sentences of the shared data and the reads with SHA-1 mod 10 in 0-5, one seeded typo "
                       "each (no choice made on them)",
              "dev": "the same with SHA-1 mod 10 in 6-7: the reading in context was chosen on them (Rule T)",
              "test": "the same with SHA-1 mod 10 in 8-9: reported, never chosen on"}

    def _compute(self, limit):
        rows = typo_rows(sentences())
        figures, details = [], {}
        for split in ("dev", "test"):
            picked = [r for r in rows if r["part"] == split]
            picked = picked[:limit] if limit else picked
            # only typos the notice names (as the rule of the choice: a typo it leaves alone is no suggestion)
            named = [(row, said) for row in picked if (said := suggested(row)) is not None]
            n = len(named)
            if not n:  # a --limit too small to hold a named typo: no figure rather than a division by zero
                continue
            served = sum(said == row["word"] for row, said in named)
            wrong = [f"{row['text']}  ({row['typo']} → {said}; meant {row['word']})"
                     for row, said in named if said != row["word"]][:15]
            frequency = sum(row["pool"][0] == row["word"] for row, _ in named)
            figures += [
                Figure("typo suggested as the word meant (a choice of two known words or more), as served: read in "
                       "its sentence", served / n, split, n, headline=split == "test",
                       interval=share_interval(served / n, n)),
                Figure("typo suggested as the word meant, the most frequent word one edit away (served before)",
                       frequency / n, split, n, headline=False, interval=share_interval(frequency / n, n)),
            ]
            details[split] = {"rows": n, "served_right": served, "frequency_right": frequency, "served_wrong": wrong}
        details["train_rows"] = sum(r["part"] == "train" for r in rows)
        return figures, details
