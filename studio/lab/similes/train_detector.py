"""`python -m studio train simile-detector`: the detector's weights (detector.py) from detection_train.csv, with
FLUTE's "like" similes as further positives.

MAPS-KB's detection set alone taught a cautious detector: similes a writer would keep ("Then she melted away into the
jungle like a shadow.", "She sang like an angel.") read as literal, and it accepted 72.6 % of the 519 "like"
hypotheses of FLUTE's simile train file. The people-written similes of that file are added as positives (weight
FLUTE_WEIGHT; only sentences with one comparison, as the file does not say which of two is the simile). The weight
was chosen by cross-validation over detection train + dev pooled and on a writer's "like" sentences written blind
(blind_reads/like_sentences_dev.tsv; docs/experiments.md#detector-written-similes). FLUTE's test file is never
read here (`eval components` reports on it). The trainer also writes `like_with_like_rate`, the share of similes
among the training rows that compare like with like (a vehicle that is someone's or of the topic's lineage), which
caps such comparisons (detector.simile_probability).
"""
from __future__ import annotations

import argparse
import csv
import json
import re
from collections import Counter
from pathlib import Path

from ...atomic import atomic_write_bytes
from ...errors import InputError
from ...figures.components import _parser, extract_similes, simile_docs, similes_of
from .data import read_csv, shared_data_dir, similes_dir
from ...figures.detector import ASSET, _asset, compares_like_with_like, features

#: the sample weight of a FLUTE simile beside a MAPS-KB row (chosen among 0.25 / 0.5 / 1.0: docs/experiments.md)
FLUTE_WEIGHT = 0.25


def annotated_vehicle_vocab() -> dict[str, int]:
    """Vehicle words of the annotated simile corpora (not the detection data, so no label leaks)."""
    counts: Counter = Counter()
    for name in ("general_corpus.csv", "quizzes.csv"):
        with open(similes_dir() / name, newline="", encoding="utf-8") as fh:
            counts.update(r["vehicle"].lower() for r in csv.DictReader(fh))
    with open(similes_dir() / "spgc_triplets.tsv", encoding="utf-8") as fh:
        counts.update(line.rstrip("\n").split("\t")[-1].lower() for line in fh if line.count("\t") == 3)
    return dict(sorted(counts.items()))


def flute_like_similes(part: str = "train") -> list[str]:
    """The distinct "like" hypotheses of FLUTE's simile file (each a simile written by people, whatever its label)."""
    with open(shared_data_dir() / "nli" / f"flute_simile_{part}.jsonl", encoding="utf-8") as fh:
        hypotheses = {json.loads(line)["hypothesis"] for line in fh if line.strip()}
    return sorted(h for h in hypotheses if re.search(r"\blike\b", h))


def train(argv: list[str]) -> dict:
    """`python -m studio train simile-detector`: fit the served weights on detection_train.csv and FLUTE's similes,
    and the KB's mining weights on detection_train.csv alone (C and the threshold of each by 5-fold CV)."""
    ap = argparse.ArgumentParser(prog="python -m studio train simile-detector")
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--C", type=float, default=None, help="inverse regularisation (default: picked by 5-fold CV)")
    ap.add_argument("--flute-weight", type=float, default=FLUTE_WEIGHT,
                    help="sample weight of FLUTE's similes in the served weights (0 leaves them out)")
    ap.add_argument("--refit-mining", action="store_true",
                    help="also refit the KB's mining weights (detection_train.csv alone); kept as they are otherwise, "
                         "since the committed KB was mined with them: rebuild the KB after (`build kb`)")
    args = ap.parse_args(argv)
    source = args.out if args.out.is_file() else ASSET  # a new --out keeps the committed asset's mining weights
    previous = json.loads(source.read_text()) if source.is_file() else {}
    if not args.refit_mining and "vehicle_vocab" not in previous.get("mining", {}):
        raise InputError(f"{source} holds no mining weights to keep: give --refit-mining, then rebuild the KB.")
    rows = read_csv("detection_train.csv")
    vocab = annotated_vehicle_vocab()
    docs = list(_parser().pipe([r["sentence"] for r in rows]))
    X, y, rule_hit, like_labels = [], [], [], []
    for r, d in zip(rows, docs):
        sims = extract_similes("", doc=d)
        rule_hit.append(bool(sims))
        if sims:
            # the sentence's label goes to its most simile-like candidate: the first one
            X.append(features(sims[0], d, vocab))
            y.append(int(r["label"]))
            if compares_like_with_like(sims[0], d):
                like_labels.append(y[-1])
    missed = _missed(rows, rule_hit)
    flute = []
    for doc, read in simile_docs(flute_like_similes() if args.flute_weight > 0 else [], disable=()):
        sims = similes_of(doc, read)
        if len(sims) == 1:  # which of two comparisons is the simile the file does not say ("Like her mother, …")
            flute.append(features(sims[0], doc, vocab))
    served = _fit(X, y, flute, args.flute_weight, missed, args.C)
    mining = _fit(X, y, [], 0.0, missed, args.C) if args.refit_mining else previous["mining"]
    trained_on = "detection_train.csv" + (f"; flute_simile_train.jsonl's \"like\" similes (weight "
                                          f"{args.flute_weight:g})" if flute else "")
    asset = {"weights": served["weights"], "threshold": served["threshold"], "C": served["C"], "trained_on": trained_on,
             "mining": {**mining, "trained_on": "detection_train.csv", "vehicle_vocab": vocab} if args.refit_mining
             else mining,
             "vehicle_vocab": vocab,
             # the share of similes among comparisons of like with like: a cap (detector.simile_probability)
             "like_with_like_rate": round(sum(like_labels) / len(like_labels), 4) if like_labels else 1.0}
    atomic_write_bytes(args.out, json.dumps(asset, indent=0, sort_keys=True).encode("utf-8"))
    _asset.cache_clear()
    return {"out": str(args.out), **{f"served_{k}": served[k] for k in ("C", "threshold", "cv_f1_train")},
            "mining": "refitted: rebuild the KB (`python -m studio build kb`)" if args.refit_mining else "kept",
            "features": len(served["weights"]), "train_rows": len(rows), "rule_candidates": len(y),
            "flute_similes": len(flute),
            "like_with_like_rate": asset["like_with_like_rate"], "like_with_like_rows": len(like_labels)}


def _fit(X: list[dict], y: list[int], extra: list[dict], extra_weight: float, missed: int, C: float | None) -> dict:
    """Logistic weights for MAPS-KB's rows `X, y` and `extra` positives (FLUTE's similes, weight `extra_weight`). C
    and the threshold by the F1 of MAPS-KB's rows, each predicted by a model that never saw it (the extra positives
    are in every training fold); `missed`: the positives the rules find no comparison in, counted as misses."""
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    n = len(y)
    vec = DictVectorizer()
    Xm = vec.fit_transform(X + extra)
    labels = np.r_[np.array(y), np.ones(len(extra), int)]
    weight = np.r_[np.ones(n), np.full(len(extra), extra_weight)]
    best = (None, -1.0, 0.5)
    for c in ([C] if C else [0.1, 0.3, 1.0, 3.0]):
        probs = np.zeros(n)
        for fit_rows, held in StratifiedKFold(5).split(np.zeros(n), labels[:n]):
            fit_rows = np.r_[fit_rows, np.arange(n, len(labels))]
            model = LogisticRegression(C=c, max_iter=3000).fit(Xm[fit_rows], labels[fit_rows],
                                                               sample_weight=weight[fit_rows])
            probs[held] = model.predict_proba(Xm[held])[:, 1]
        for thr in np.arange(0.3, 0.71, 0.05):
            f1 = _f1(labels[:n], probs >= thr, missed_pos=missed)
            if f1 > best[1]:
                best = (c, f1, float(thr))
    c, cv_f1, thr = best
    model = LogisticRegression(C=c, max_iter=3000).fit(Xm, labels, sample_weight=weight)
    weights = {name: float(w) for name, w in zip(vec.get_feature_names_out(), model.coef_[0]) if abs(w) > 1e-4}
    weights["bias"] = weights.get("bias", 0.0) + float(model.intercept_[0])
    return {"weights": weights, "threshold": round(thr, 3), "C": c, "cv_f1_train": round(cv_f1, 4)}


def _missed(rows, rule_hit) -> int:
    return sum(int(r["label"]) == 1 and not hit for r, hit in zip(rows, rule_hit))


def _f1(y, pred, missed_pos: int = 0) -> float:
    tp = int(((y == 1) & pred).sum())
    fp = int(((y == 0) & pred).sum())
    fn = int(((y == 1) & ~pred).sum()) + missed_pos
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0
