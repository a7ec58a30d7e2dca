"""The English check of every front door (studio/figures/english.py): how often it refuses a sentence in another
Latin-script language, and how seldom an English one.

Splits:
- dev: `blind_reads/language_dev.tsv` (84 sentences in German, French, Spanish, Italian, Dutch and Portuguese, 40
  English ones full of foreign names) and the English texts of the shared data and of the blind reads' inputs: the
  thresholds MIN_OTHER_LANGUAGE and MIN_OTHER_LANGUAGE_SURE were set on them;
- test: `blind_reads/language_test.tsv` (90 sentences in those languages, 60 English), written by a helper session that
  saw no code, never used for a choice (reported).
Nothing is trained: langid.py's model comes as it is in the py3langid package.
"""
from __future__ import annotations

import json
import re

from ...errors import InputError
from ...figures import english
from ...paths import PROJECT_ROOT
from ...shared_data import shared_data_dir
from .base import Evaluation, Figure, share_interval

INPUTS = PROJECT_ROOT / "blind_reads"
#: the English texts: every string of 1 to 80 words in every row of the shared data's JSON-lines files, SST-2's dev
#: sentences, and every line of the blind reads' sentence and story files
MAX_WORDS = 80


def labelled(name: str) -> list[tuple[str, str]]:
    """(ISO code, sentence) rows of a language_*.tsv file."""
    rows = []
    for line in (INPUTS / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, sentence = line.split("\t", 1)
            rows.append((code.strip(), sentence.strip()))
    return rows


def interleaved(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The rows taken one language at a time in turn (de, en, es, …, de, en, …), each language's in file order."""
    by: dict[str, list[tuple[str, str]]] = {}
    for row in rows:
        by.setdefault(row[0], []).append(row)
    queues = [by[code] for code in sorted(by)]
    return [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]


def english_texts() -> list[str]:
    texts = []
    root = shared_data_dir()
    for path in sorted(root.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            texts += [v for v in row.values() if isinstance(v, str)] if isinstance(row, dict) else []
    sst2 = root / "sentiment" / "sst2_dev.tsv"
    if sst2.is_file():
        texts += [line.split("\t", 1)[1] for line in sst2.read_text(encoding="utf-8").splitlines()[1:] if "\t" in line]
    for path in sorted(INPUTS.glob("*.txt")):
        texts += [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    texts = [t.strip() for t in texts if 1 <= len(t.split()) <= MAX_WORDS and re.search("[a-z]", t)]
    return list(dict.fromkeys(texts))


def refused(text: str, identifier: bool = True) -> bool:
    """Whether the check refuses `text`; `identifier=False`: by the script and the function words alone."""
    try:
        english.refuse_non_english(text, identifier=identifier)
        return False
    except InputError:
        return True


class LanguageEvaluation(Evaluation):
    name = "language"
    title = "the English check of every front door: sentences in another Latin-script language refused, English kept"
    splits = {"dev": "blind_reads/language_dev.tsv and the English texts of the shared data and the blind reads' "
                     "inputs (the thresholds were set on them)",
              "test": "blind_reads/language_test.tsv: written blind by a helper session, never used for a choice"}

    def _compute(self, limit):
        figures, details = [], {}
        for part in ("dev", "test"):
            rows = interleaved(labelled(f"language_{part}.tsv"))
            rows = rows[:limit] if limit else rows  # a limited run (the sample) still holds every language
            other = [s for code, s in rows if code != "en"]
            own = [s for code, s in rows if code == "en"]
            caught = sum(refused(s) for s in other)
            by_words = sum(refused(s, identifier=False) for s in other)
            wrong = [s for s in own if refused(s)]
            share = caught / max(len(other), 1)
            figures += [
                Figure("another language refused (German, French, Spanish, Italian, Dutch, Portuguese)", share, part,
                       len(other), headline=part == "test", interval=share_interval(share, len(other))),
                Figure("another language refused by the function words alone (before the language identifier)",
                       by_words / max(len(other), 1), part, len(other), headline=False),
                # the README shows the refusals; this one is in docs/robustness.md's text and the file
                Figure("English sentences with foreign names refused", len(wrong) / max(len(own), 1), part, len(own),
                       headline=False),
            ]
            missed = [(code, s) for code, s in rows if code != "en" and not refused(s)]
            details[part] = {"refused": caught, "others": len(other), "by_function_words": by_words,
                             "english_refused": wrong, "english": len(own),
                             "passed": [f"{code}: {s}" for code, s in missed]}
        texts = english_texts()
        texts = texts[:limit * 50] if limit else texts
        wrong = [t for t in texts if refused(t)]
        figures.append(Figure("English texts of the shared data and the reads' inputs refused", len(wrong) / len(texts),
                              "dev", len(texts), headline=False))
        details["english_texts_refused"] = wrong[:20]
        details["thresholds"] = {"MIN_OTHER_LANGUAGE": english.MIN_OTHER_LANGUAGE,
                                 "MIN_OTHER_LANGUAGE_SURE": english.MIN_OTHER_LANGUAGE_SURE}
        return figures, details
