"""`python -m studio eval proverbs`: the figures on the validation part of ePiC's seen_train (2 narratives per
proverb, never trained on): ranking accuracy@1/@5 and MRR over the whole catalog, span alignment token
P/R/F1 (ePiC's definition), and same-proverb retrieval for the similar-motifs methods."""
from __future__ import annotations

import argparse
import time

import numpy as np

from ...embeddings import embed_cached
from ...models import get_registry
from ...proverbs import alignment as A
from .epic import SEEN_TRAIN, load_seen_train, split
from .rows import embedded_rows, labels_of
from ...proverbs.index import ALIGNMENT_ROLE, EMBEDDER_ROLE, get_index
from ...proverbs.motifs import METHODS, similarity_matrix
from ...proverbs.scorer import Scorer, UNTRAINED_WEIGHTS, load_trained
from ...proverbs.service import finetuned_part, get_scorer


def ranking_metrics(scores: np.ndarray, labels: np.ndarray, columns: list[int] | None = None) -> dict:
    if columns is not None:  # rank among a subset (ePiC's 250) only
        pos = {c: k for k, c in enumerate(columns)}
        scores, labels = scores[:, columns], np.array([pos[c] for c in labels])
    gold = scores[np.arange(len(labels)), labels][:, None]
    rank = (scores > gold).sum(axis=1)
    return {"n": int(len(labels)), "accuracy@1": round(float((rank == 0).mean()), 4),
            "accuracy@5": round(float((rank < 5).mean()), 4), "mrr": round(float((1.0 / (rank + 1)).mean()), 4)}


def tuned_rows(scorer, rows) -> np.ndarray | None:
    """The fine-tuned encoder's embeddings of the rows' narratives (cached on disk), or None without one."""
    if scorer.finetuned is None:
        return None
    return embed_cached(scorer.finetuned.embedder, [r.text for r in rows], "epic-tuned")


def score_rows(scorer, rows) -> tuple[np.ndarray, np.ndarray]:
    labels = labels_of(rows, scorer.index.catalog)
    if scorer.one_pass:
        return scorer.score_one_pass(tuned_rows(scorer, rows)), labels
    _, docs, sents = embedded_rows(rows)
    return scorer.score(docs, sents, tuned_rows(scorer, rows)), labels


def _channel_scores(scorer, rows, weights) -> np.ndarray:
    _, docs, sents = embedded_rows(rows)
    chans = scorer.channels(docs, sents)
    return sum(w * c for w, c in zip(weights, chans))


def ranking_report(rows) -> dict:
    index = get_index()
    untrained = Scorer(index, None)
    labels = labels_of(rows, index.catalog)
    epic = index.catalog.epic_indices
    variants = {
        "proverb text only (zero-shot)": _channel_scores(untrained, rows, (1, 0, 0, 0)),
        "meaning only (zero-shot)": _channel_scores(untrained, rows, (0, 1, 0, 0)),
        "text + meaning, narrative and best sentence (zero-shot)": _channel_scores(untrained, rows, UNTRAINED_WEIGHTS),
    }
    trained = Scorer(index, load_trained())
    served = get_scorer()
    if trained.is_trained:
        name = "learned adapter" + ("" if served.finetuned is not None else " (served)")
        variants[name] = score_rows(trained, rows)[0]
    if served.finetuned is not None:
        tuned = tuned_rows(served, rows)
        variants["fine-tuned encoder alone"] = tuned @ served.finetuned.class_vectors.T
        three = served if not served.one_pass else Scorer(index, load_trained(), finetuned_part(index))
        rest = "learned adapter" if three.is_trained else "untrained channels"
        name = f"fine-tuned encoder + {rest}, three passes"
        variants[name + ("" if served.one_pass else " (served)")] = score_rows(three, rows)[0]
        if served.one_pass:
            variants["fine-tuned encoder + its adapter, one pass (served)"] = score_rows(served, rows)[0]
    out = {}
    for name, scores in variants.items():
        out[name] = {"catalog": ranking_metrics(scores, labels), "epic_250": ranking_metrics(scores, labels, epic)}
    return {"served": served.description, "variants": out}


def alignment_report(rows, threshold=None, order_weight=None) -> dict:
    threshold = A.DEFAULT_THRESHOLD if threshold is None else threshold
    order_weight = A.DEFAULT_ORDER_WEIGHT if order_weight is None else order_weight
    parser, embedder = get_registry().get("parser"), get_registry().get(ALIGNMENT_ROLE)
    phrases = {r.proverb: A.proverb_phrases(r.proverb, parser) for r in rows}
    cands = [A.narrative_candidates(r.text) for r in rows]
    texts = sorted({p.text for ps in phrases.values() for p in ps} | {c.text for cs in cands for c in cs})
    table = dict(zip(texts, embed_cached(embedder, texts, "epic-spans")))
    totals, n_gold = np.zeros(3), 0
    for r, cs in zip(rows, cands):
        ps = phrases[r.proverb]
        sim = np.stack([table[p.text] for p in ps]) @ np.stack([table[c.text] for c in cs]).T
        pairs = A.assign(sim, ps, cs, len(r.proverb), len(r.text), threshold, order_weight)
        totals += np.array(A.score_alignment([p.to_json() for p in pairs], [list(g) for g in r.spans])) * len(r.spans)
        n_gold += len(r.spans)
    p, rec, f1 = totals / max(n_gold, 1)
    return {"gold_pairs": n_gold, "precision": round(p, 4), "recall": round(rec, 4), "f1": round(f1, 4),
            "threshold": threshold, "order_weight": order_weight}


def motif_report(rows) -> dict:
    """For each narrative, the others ranked by each method; positives are the narratives of the same proverb."""
    _, docs, sents = embedded_rows(rows)
    scorer = get_scorer()
    scores = scorer.score(docs, sents, tuned_rows(scorer, rows))
    labels = np.array([r.quote_id for r in rows])
    out = {}
    for method in METHODS:
        if method == "proverb-distribution-js" and len(rows) > 600:
            continue
        sims = similarity_matrix(method, scores, docs, scores, docs)
        np.fill_diagonal(sims, -np.inf)
        rr, hit = [], []
        for i in range(len(rows)):
            order = np.argsort(-sims[i], kind="stable")
            same = np.flatnonzero(labels[order] == labels[i])
            if len(same):
                rr.append(1.0 / (same[0] + 1))
                hit.append(same[0] == 0)
        out[method] = {"mrr": round(float(np.mean(rr)), 4), "accuracy@1": round(float(np.mean(hit)), 4)}
    best = max(out, key=lambda m: out[m]["mrr"])
    return {"methods": out, "best": best}


def evaluate(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m studio eval proverbs")
    parser.add_argument("--data", default=str(SEEN_TRAIN), help="ePiC seen_train.jsonl")
    parser.add_argument("--part", choices=["validation", "train"], default="validation")
    parser.add_argument("--skip", nargs="*", default=[], choices=["ranking", "alignment", "motifs"])
    args = parser.parse_args(argv or [])

    start = time.perf_counter()
    train_rows, val_rows = split(load_seen_train(args.data))
    rows = val_rows if args.part == "validation" else train_rows
    out = {"profile": get_registry().profile, "embedder": get_registry().get(EMBEDDER_ROLE).model_id,
           "part": f"{args.part} ({len(rows)} narratives)"}
    if "ranking" not in args.skip:
        out["ranking"] = ranking_report(rows)
    if "alignment" not in args.skip:
        out["alignment"] = alignment_report(rows)
    if "motifs" not in args.skip:
        out["motifs"] = motif_report(rows)
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out
