"""`python -m studio train simile-detector`: the detector's weights (detector.py) from detection_train.csv."""
from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from pathlib import Path

from ...atomic import atomic_write_bytes
from ...figures.components import _parser, extract_similes
from .data import read_csv, similes_dir
from ...figures.detector import ASSET, _vocab, _weights, features


def annotated_vehicle_vocab() -> dict[str, int]:
    """Vehicle words of the annotated simile corpora (not the detection data, so no label leaks)."""
    counts: Counter = Counter()
    for name in ("general_corpus.csv", "quizzes.csv"):
        with open(similes_dir() / name, newline="", encoding="utf-8") as fh:
            counts.update(r["vehicle"].lower() for r in csv.DictReader(fh))
    with open(similes_dir() / "spgc_triplets.tsv", encoding="utf-8") as fh:
        counts.update(line.rstrip("\n").split("\t")[-1].lower() for line in fh if line.count("\t") == 3)
    return dict(sorted(counts.items()))


def train(argv: list[str]) -> dict:
    """`python -m studio train simile-detector`: fit the weights on detection_train.csv (cross-validated C)."""
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    ap = argparse.ArgumentParser(prog="python -m studio train simile-detector")
    ap.add_argument("--out", type=Path, default=ASSET)
    ap.add_argument("--C", type=float, default=None, help="inverse regularisation (default: picked by 5-fold CV)")
    args = ap.parse_args(argv)
    rows = read_csv("detection_train.csv")
    vocab = annotated_vehicle_vocab()
    docs = list(_parser().pipe([r["sentence"] for r in rows]))
    X, y, rule_hit = [], [], []
    for r, d in zip(rows, docs):
        sims = extract_similes("", doc=d)
        rule_hit.append(bool(sims))
        if sims:
            # the sentence's label goes to its most simile-like candidate: the first one
            X.append(features(sims[0], d, vocab))
            y.append(int(r["label"]))
    vec = DictVectorizer()
    Xm = vec.fit_transform(X)
    y_arr = np.array(y)
    best = (None, -1.0, 0.5)
    for C in ([args.C] if args.C else [0.1, 0.3, 1.0, 3.0]):
        probs = cross_val_predict(LogisticRegression(C=C, max_iter=2000), Xm, y_arr, cv=5, method="predict_proba")[:, 1]
        for thr in np.arange(0.3, 0.71, 0.05):
            f1 = _f1(y_arr, probs >= thr, missed_pos=_missed(rows, rule_hit))
            if f1 > best[1]:
                best = (C, f1, float(thr))
    C, cv_f1, thr = best
    model = LogisticRegression(C=C, max_iter=2000).fit(Xm, y_arr)
    weights = {name: float(w) for name, w in zip(vec.get_feature_names_out(), model.coef_[0]) if abs(w) > 1e-4}
    weights["bias"] = weights.get("bias", 0.0) + float(model.intercept_[0])

    atomic_write_bytes(args.out, json.dumps({"weights": weights, "threshold": round(thr, 3), "C": C,
                                             "trained_on": "detection_train.csv", "vehicle_vocab": vocab},
                                            indent=0, sort_keys=True).encode("utf-8"))
    _weights.cache_clear()
    _vocab.cache_clear()
    return {"out": str(args.out), "C": C, "threshold": round(thr, 3), "cv_f1_train": round(cv_f1, 4),
            "features": len(weights), "train_rows": len(rows), "rule_candidates": len(y)}


def _missed(rows, rule_hit) -> int:
    return sum(int(r["label"]) == 1 and not hit for r, hit in zip(rows, rule_hit))


def _f1(y, pred, missed_pos: int = 0) -> float:
    tp = int(((y == 1) & pred).sum())
    fp = int(((y == 0) & pred).sum())
    fn = int(((y == 1) & ~pred).sum()) + missed_pos
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0
