"""`python -m studio train simile-components`: the learned vehicle boundary (component_model.py).

Training signal: HAUSER's candidates (../shared/data/hauser/candidates.jsonl), each aligned word by word with its
literal sentence; a candidate that differs from its literal by one inserted block starting with the comparator
("like a child", "as cold as ice") gives its vehicle exactly: the inserted words after the comparator, and whatever
follows came from the literal. Candidates whose literal is one of human_ratings_dev.csv's are left out (that file
measures the extractor). The MAPS-KB labelled sentences (component_extraction_dev.csv) are never trained on.

For every simile the rules find at the inserted comparator, each end position (component_model.
vehicle_end_candidates) is one row, labelled 1 at the gold end; a logistic regression on the features of
component_model.vehicle_end_features is fitted and its weights written to assets/similes/components.json.
"""
from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import json
import random
import re
import time
from pathlib import Path

from ...atomic import atomic_write_bytes
from ...models.specs import SIMILE_COMPONENTS
from ...shared_data import shared_data_dir
from ...figures import components
from ...figures.component_model import vehicle_end_candidates, vehicle_end_features

MARGIN = 0.0
_WORD = re.compile(r"\w+|[^\w\s]")


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def inserted_vehicle(literal: str, candidate: str) -> tuple[int, int, int] | None:
    """(comparator start, vehicle start, vehicle end) character offsets in `candidate` when it is `literal` with one
    inserted block that starts with a comparator; None otherwise."""
    lit, cand = _tokens(literal), _tokens(candidate)
    ops = [op for op in difflib.SequenceMatcher(a=[t for t, _, _ in lit], b=[t for t, _, _ in cand],
                                                 autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "insert":
        return None
    _, _, _, j1, j2 = ops[0]
    words = [t for t, _, _ in cand[j1:j2]]
    if words[0] == "like" and len(words) >= 2:
        first = j1 + 1
    elif words[0] == "as" and len(words) >= 4 and "as" in words[2:]:
        first = j1 + 2 + words[2:].index("as") + 1
    elif words[0] == "as" and len(words) >= 2:  # "loud as thunder": the property was in the literal
        first = j1 + 1
    else:
        return None
    if first >= j2 or cand[first][0] in ("a", "an", "the") and first + 1 >= j2:
        return None
    return cand[j1][1], cand[first][1], cand[j2 - 1][2]


def hauser_examples(exclude_literals: set[str]) -> list[tuple[str, int, int, int, str]]:
    """(candidate, comparator start, vehicle start, vehicle end, literal) for each cleanly aligned candidate."""
    path = shared_data_dir() / "hauser" / "candidates.jsonl"
    out, seen = [], set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            literal = row["literal"]
            if _norm_sentence(literal) in exclude_literals:
                continue
            for cand in row["candidates"]:
                if cand in seen:
                    continue
                seen.add(cand)
                found = inserted_vehicle(literal, cand)
                if found is not None:
                    out.append((cand, *found, literal))
    return out


def _norm_sentence(s: str) -> str:
    return " ".join(t for t, _, _ in _tokens(s))


def rated_literals() -> set[str]:
    path = shared_data_dir() / "hauser" / "human_ratings_dev.csv"
    if not path.is_file():
        return set()
    with open(path, newline="", encoding="utf-8") as fh:
        return {_norm_sentence(r["literal_sentences"]) for r in csv.DictReader(fh)}


def vehicle_root_of(doc, start: int, end: int):
    """The token of doc[start..end] whose head lies outside it (the rules' vehicle root)."""
    for t in doc[start:end + 1]:
        if not (start <= t.head.i <= end) or t.head.i == t.i:
            return t
    return doc[end]


def groups_from(docs, examples):
    """One group of (features, label) per simile whose comparator is the inserted one and whose rules' start is the
    gold start; the gold end must be one of the candidates."""
    groups, stats = [], {"no_simile": 0, "other_start": 0, "gold_not_candidate": 0, "used": 0}
    for doc, (_, comp_at, v_from, v_to, literal) in zip(docs, examples):
        sims = components.extract_similes("", doc=doc)
        sim = next((s for s in sims if s.spans["comparator"][0] == comp_at and "vehicle" in s.spans), None)
        if sim is None:
            stats["no_simile"] += 1
            continue
        a, b = sim.spans["vehicle"]
        toks = [t for t in doc if t.idx >= a and t.idx + len(t) <= b]
        if not toks:
            stats["no_simile"] += 1
            continue
        start, rule_end = toks[0].i, toks[-1].i
        if toks[0].idx != v_from:
            stats["other_start"] += 1
            continue
        gold = next((t.i for t in doc if t.idx + len(t) == v_to), None)
        root = vehicle_root_of(doc, start, rule_end)
        verb = components._governing_verb(doc[start - 1]) if start > 0 else None
        ends = vehicle_end_candidates(root, start, rule_end)
        if gold not in ends:
            stats["gold_not_candidate"] += 1
            continue
        groups.append((literal, [(vehicle_end_features(root, start, e, rule_end, verb), int(e == gold), e == rule_end)
                                 for e in ends]))
        stats["used"] += 1
    return groups, stats


def train(argv: list[str]) -> dict:
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    ap = argparse.ArgumentParser(prog="python -m studio train simile-components",
                                 description="Fit the learned vehicle boundary on HAUSER's aligned candidates.")
    ap.add_argument("--out", type=Path, default=SIMILE_COMPONENTS)
    ap.add_argument("--C", type=float, default=0.3)
    ap.add_argument("--limit", type=int, default=0, help="use only this many aligned candidates (a quick run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--margin", type=float, default=MARGIN,
                    help="how much more than the rules' end another end must score to replace it (chosen on the "
                         "components dev half)")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    examples = hauser_examples(rated_literals())
    random.Random(args.seed).shuffle(examples)
    if args.limit:
        examples = examples[:args.limit]
    docs = list(components._parser().pipe([e[0] for e in examples], batch_size=128))
    groups, stats = groups_from(docs, examples)  # the rules' boundary (extract_similes without learned=)
    # a tenth of the literals (all their candidates) is held out to pick C and report the accuracy
    held = {lit for lit in {lit for lit, _ in groups} if hashlib.sha1(lit.encode()).digest()[0] < 26}
    val = [g for lit, g in groups if lit in held]
    fit = [g for lit, g in groups if lit not in held]
    groups = [g for _, g in groups]

    def fit_model(gs, C):
        X = [f for g in gs for f, _, _ in g]
        y = [lab for g in gs for _, lab, _ in g]
        vec = DictVectorizer()
        model = LogisticRegression(C=C, max_iter=3000).fit(vec.fit_transform(X), np.array(y))
        w = {n: float(c) for n, c in zip(vec.get_feature_names_out(), model.coef_[0]) if abs(c) > 1e-5}
        return w

    def accuracy(w, gs):
        right = rule = 0
        for g in gs:
            scores = [sum(w.get(k, 0.0) * v for k, v in f.items()) for f, _, _ in g]
            right += g[int(np.argmax(scores))][1]
            rule += next(lab for _, lab, is_rule in g if is_rule)
        return right / len(gs), rule / len(gs)

    picks = {}
    for C in (0.1, 0.3, 1.0, 3.0):
        picks[C] = accuracy(fit_model(fit, C), val)[0]
    C = max(picks, key=picks.get) if not any(a.startswith("--C") for a in argv) else args.C
    held, rule_held = accuracy(fit_model(fit, C), val)
    weights = fit_model(groups, C)

    meta = {"what": "vehicle-end reranker (logistic regression over boundary features of the spaCy parse)",
            "trained_on": "hauser/candidates.jsonl aligned with their literals (human_ratings_dev literals left out)",
            "C": C, "margin": args.margin, "groups": len(groups), "held_out_groups": len(val),
            "held_out_end_accuracy": round(held, 4), "rules_held_out_end_accuracy": round(rule_held, 4),
            "command": "python -m studio train simile-components"}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(args.out, json.dumps({"vehicle_end": weights, "meta": meta}, indent=0,
                                            sort_keys=True).encode("utf-8"), mode=0o644)
    return {"out": str(args.out), **meta, "C_picks": picks, "stats": stats, "aligned": len(examples),
            "features": len(weights), "seconds": round(time.perf_counter() - started, 1)}
