"""Simile components: topic / vehicle exact match on MAPS-KB's labelled sentences
(../shared/data/similes/component_extraction_dev.csv, mostly encyclopaedic prose the extractor's rules were not
written against), and the simile detector's F1 on MAPS-KB's detection test split.

Split of the components file: `hash_half(sentence, "components")` — even SHA-1: dev (for choices), odd: test
(reported). The detector is fitted (weights, C and threshold by 5-fold CV) on detection_train.csv only; its test is
detection_test.csv. The corpora general_corpus.csv / quizzes.csv, against which the rules were written, are reported
only in the details, as `train`.

Matching: lowercased, whitespace-normalised, leading article dropped, surrounding quotes and punctuation dropped.
The annotated simile of a sentence is the extracted simile whose vehicle span is nearest to the gold vehicle's first
occurrence in the sentence (the first simile when the gold vehicle is not found verbatim); a sentence where the
extractor finds no simile counts as wrong.
"""
from __future__ import annotations

import csv
import re

from ..similes.components import extract_similes_batch, strip_articles
from ..similes.data import similes_dir
from .base import Evaluation, Figure, hash_half

FILE = "component_extraction_dev.csv"


def norm(phrase: str | None) -> str:
    text = " ".join((phrase or "").lower().split()).strip(" \"'.,;:!?()[]`")
    return strip_articles(text).strip(" \"'")


def load_rows() -> list[dict]:
    with open(similes_dir() / FILE, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["split"] = hash_half(r["sentence"], "components")
    return rows


def pick(similes, sentence: str, gold_vehicle: str):
    if not similes:
        return None
    at = sentence.lower().find(gold_vehicle.lower().strip()) if gold_vehicle.strip() else -1
    if at < 0:
        return similes[0]
    return min(similes, key=lambda s: abs(s.spans.get("vehicle", s.spans["comparator"])[0] - at))


def component_scores(rows: list[dict]) -> dict:
    extracted = extract_similes_batch([r["sentence"] for r in rows])
    hits = {"topic": 0, "vehicle": 0, "vehicle_head_in_gold": 0}
    found = 0
    for r, sims in zip(rows, extracted):
        s = pick(sims, r["sentence"], r["vehicle"])
        found += s is not None
        if s is None:
            continue
        hits["topic"] += norm(s.topic) == norm(r["topic"]) != ""
        hits["vehicle"] += norm(s.vehicle) == norm(r["vehicle"]) != ""
        head = (s.heads.get("vehicle") or "").lower()
        hits["vehicle_head_in_gold"] += bool(head) and head in re.findall(r"[\w'-]+", r["vehicle"].lower())
    n = len(rows)
    return {"n": n, "simile_found": found / n if n else None,
            **{k: (v / n if n else None) for k, v in hits.items()}}


class ComponentsEvaluation(Evaluation):
    name = "components"
    title = "Simile components (MAPS-KB labelled sentences) and simile detection"
    splits = {"train": "similes/general_corpus.csv, quizzes.csv (rules written against them); detection_train.csv",
              "dev": f"{FILE}, sentences with even sha1('components|sentence'); detection_dev.csv",
              "test": f"{FILE}, sentences with odd sha1('components|sentence'); detection_test.csv"}

    def _compute(self, limit):
        from ..similes.data import read_csv
        from ..similes.evaluate import detection_scores

        rows = load_rows()
        figures, details = [], {}
        for split in ("dev", "test"):
            part = [r for r in rows if r["split"] == split][:limit or None]
            sc = component_scores(part)
            details[split] = sc
            figures += [Figure("vehicle exact", sc["vehicle"], split, sc["n"], headline=split == "test"),
                        Figure("topic exact", sc["topic"], split, sc["n"], headline=split == "test")]
        for split, name in (("dev", "detection_dev.csv"), ("test", "detection_test.csv")):
            det = detection_scores(read_csv(name)[:limit or None])
            details[f"detection_{split}"] = det
            figures.append(Figure("detector F1", det["f1"], split, det["n"], headline=split == "test"))
        return figures, details
