"""Sentiment: the offline `sentiment` role on SST-2 (binary), the sentiment-consistency criterion of HAUSER.

Splits, by the harness's `hash_half` rule (a sentence's SHA-1 parity, so the parts never change):
- train: `sst2_train.tsv` (67,349 phrases of the treebank's train sentences);
- dev / test: `sst2_dev.tsv` (872 sentences, none of them in train) halved by `hash_half(sentence, "sst2")`.
`train` fits the model, `dev` makes every choice, `test` is reported. The served head (`python -m studio train
sentiment`) chose its form (linear against an MLP) on the whole of `sst2_dev.tsv` before these halves existed, so its
test figure is somewhat flattered. `STUDIO_MODEL_SENTIMENT=<folder or hub id>` measures another model.
"""
from __future__ import annotations

import csv

import numpy as np

from ...errors import InputError
from ...models import get_registry
from ..hauser.paths import data_file
from .base import Evaluation, Figure, hash_half, share_interval


def read_sst2(name: str) -> list[tuple[str, int]]:
    """(text, label) rows of an SST-2 file (label 1 positive, 0 negative)."""
    with open(data_file("sentiment", name), encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, [])
        if len(header) < 2 or header[0] != "label":  # train names the text column "sentence", dev "content"
            raise InputError(f"{name}: expected the columns label, text; found {header}")
        return [(r[1], int(r[0])) for r in reader if len(r) >= 2]


def splits() -> dict[str, list[tuple[str, int]]]:
    out = {"train": read_sst2("sst2_train.tsv"), "dev": [], "test": []}
    for row in read_sst2("sst2_dev.tsv"):
        out[hash_half(row[0], "sst2")].append(row)
    return out


def accuracy(model, rows: list[tuple[str, int]]) -> float:
    """Share of rows whose P(positive) falls on the gold label's side of 0.5."""
    if not rows:
        return float("nan")
    p = np.asarray(model.p_positive([t for t, _ in rows]), dtype=float)
    return float(((p >= 0.5).astype(int) == np.array([y for _, y in rows])).mean())


class SentimentEvaluation(Evaluation):
    name = "sentiment"
    title = "sentiment consistency: the offline sentiment role on SST-2 (binary)"
    splits = {"train": "sst2_train.tsv (phrases of the treebank's train sentences)",
              "dev": "sst2_dev.tsv, sentences with even sha1('sst2|sentence')",
              "test": "sst2_dev.tsv, sentences with odd sha1('sst2|sentence') (reported)"}

    def _compute(self, limit):
        served = get_registry().get("sentiment")
        data = splits()
        figures = []
        for part in ("dev", "test"):
            rows = data[part][:limit] if limit else data[part]
            acc = accuracy(served, rows)
            figures.append(Figure("accuracy, SST-2", acc, part, len(rows), headline=part == "test",
                                  interval=share_interval(acc, len(rows))))
        return figures, {"model": served.model_id, "backend": served.backend}
