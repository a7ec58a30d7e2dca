"""`python -m studio eval hauser`: correlations with the paper's human ratings (Table 10) and ranking metrics against
its human rankings (Table 11).

Ranking metrics (our reading of the paper's Appendix B): for m candidates in the human order, the candidate at human
position j (1-based) has graded relevance m − j + 1; nDCG@k = DCG@k / IDCG@k with DCG@k = Σ_i≤k rel_i / log2(i + 1)
(scikit-learn's ndcg_score, ties averaged); HR@k = 1 when the human's best candidate is in the system's top k;
MRR = mean of 1 / (the system's position of the human's best candidate). A candidate ending in "*" also altered
context words in the paper; here it is the same text as its twin, so the two get identical scores.
"""
from __future__ import annotations

import argparse
import csv
import json
import time

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import ndcg_score

from ...errors import parse_options
from ...hauser.criteria import PAPER_RANK_WEIGHTS
from ...hauser.scorer import Settings, score_groups
from ...models import get_registry
from .paths import data_file

PAPER_PEARSON = {"quality": 0.320, "creativity": 0.592, "informativeness": 0.798}
SLOT = "[insert]"


def fill_slot(literal_with_slot: str, phrase: str) -> str:
    before, _, after = literal_with_slot.partition(SLOT)
    return (before.rstrip() + (" " + phrase if phrase else "") + " " + after.lstrip()).replace(" .", ".").replace(
        " ,", ",").strip()


def _correlation(scores, human) -> dict:
    pairs = [(s, h) for s, h in zip(scores, human) if s is not None]
    x, y = np.array([p[0] for p in pairs], float), np.array([p[1] for p in pairs], float)
    if len(x) < 3 or np.ptp(x) == 0:
        return {"pearson": None, "pearson_p": None, "spearman": None, "spearman_p": None, "n": len(x)}
    pr, sr = pearsonr(x, y), spearmanr(x, y)
    return {"pearson": round(float(pr.statistic), 3), "pearson_p": float(f"{pr.pvalue:.3g}"),
            "spearman": round(float(sr.statistic), 3), "spearman_p": float(f"{sr.pvalue:.3g}"), "n": len(x)}


def table10(settings: Settings) -> tuple[dict, dict]:
    with open(data_file("hauser", "paper_table10_ratings.tsv"), encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["group"], []).append(row)
    scored = score_groups([(fill_slot(g[0]["literal_with_slot"], ""), [r["simile"] for r in g])
                           for g in groups.values()], settings)
    flat = [(row, cand) for g, result in zip(groups.values(), scored) for row, cand in zip(g, result.candidates)]
    human = {k: [float(row[k]) for row, _ in flat] for k in ("quality", "creativity", "informativeness")}
    out = {
        "n_candidates": len(flat), "n_groups": len(groups),
        "without_simile": [cand.candidate for _, cand in flat if not cand.has_simile],
        "quality": _correlation([c.quality for _, c in flat], human["quality"]),
        "creativity": _correlation([c.creativity for _, c in flat], human["creativity"]),
        "informativeness": _correlation([c.informativeness for _, c in flat], human["informativeness"]),
        # the quality components on their own, raw and normalized within the group
        "quality_components": {
            name: _correlation([getattr(c, name) for _, c in flat], human["quality"])
            for name in ("relevance", "relevance_norm", "logical_consistency", "logical_consistency_norm",
                         "sentiment_consistency", "sentiment_consistency_norm")},
    }
    return out, scored[0].backends if scored else {}


def _ranking_metrics(system_scores: list[list[float]], texts: list[list[str]], human_orders: list[list[str]]) -> dict:
    """HR@1/3, nDCG@1/3, MRR of the systems' scores (higher = ranked earlier) against the human orders."""
    hr = {1: [], 3: []}
    ndcg = {1: [], 3: []}
    rr = []
    for scores, names, human in zip(system_scores, texts, human_orders):
        m = len(human)
        rel = np.array([m - human.index(name) for name in names], float)
        for k in (1, 3):
            ndcg[k].append(ndcg_score(rel[None, :], np.asarray(scores, float)[None, :], k=k))
        order = sorted(range(len(names)), key=lambda i: (-scores[i], i))
        best = human[0].rstrip("*")
        position = next(p for p, i in enumerate(order, start=1) if names[i].rstrip("*") == best)
        rr.append(1.0 / position)
        for k in (1, 3):
            hr[k].append(float(position <= k))
    return {"HR@1": _mean(hr[1]), "HR@3": _mean(hr[3]), "nDCG@1": _mean(ndcg[1]), "nDCG@3": _mean(ndcg[3]),
            "MRR": _mean(rr), "n_groups": len(rr)}


def _mean(xs) -> float:
    return round(float(np.mean(xs)), 3)


def table11(settings: Settings) -> dict:
    data = json.loads(data_file("hauser", "paper_table11_rankings.json").read_text(encoding="utf-8"))
    groups = [(fill_slot(g["literal_with_slot"], ""),
               [fill_slot(g["literal_with_slot"], c.rstrip("*")) for c in g["candidates_original_order"]])
              for g in data]
    scored = score_groups(groups, settings)
    names = [g["candidates_original_order"] for g in data]
    human = [g["human_order"] for g in data]
    quality, combined, paper = [], [], []
    for g, result in zip(data, scored):
        q = [c.quality for c in result.candidates]
        floor = min([x for x in q if x is not None], default=0.0) - 1.0
        quality.append([floor if x is None else x for x in q])
        # twins ("like a cat" / "like a cat*") are one text: they share the better of their two final ranks
        best_rank: dict[str, int] = {}
        for name, c in zip(g["candidates_original_order"], result.candidates):
            best_rank[name.rstrip("*")] = min(best_rank.get(name.rstrip("*"), c.rank), c.rank)
        combined.append([-float(best_rank[name.rstrip("*")]) for name in g["candidates_original_order"]])
        paper.append([-float(g["paper_hauser_order"].index(name)) for name in g["candidates_original_order"]])
    return {"quality_ranking": _ranking_metrics(quality, names, human),
            "combined_ranking": _ranking_metrics(combined, names, human),
            "paper_hauser_ranking_same_metrics": _ranking_metrics(paper, names, human)}


def eval_hauser(argv: list[str]) -> dict:
    p = argparse.ArgumentParser(prog="python -m studio eval hauser")
    p.add_argument("--relevance", choices=["eq2", "eq3"], default="eq2")
    args = parse_options(p, argv)

    start = time.perf_counter()
    settings = Settings(relevance=args.relevance)
    t10, backends = table10(settings)
    t11 = table11(settings)
    t11["combined_ranking, the paper's rank weights (2 : 2 : 1)"] = table11(
        Settings(relevance=args.relevance, rank_weights=PAPER_RANK_WEIGHTS))["combined_ranking"]
    ours = {k: t10[k]["pearson"] for k in PAPER_PEARSON}
    return {
        "profile": get_registry().profile, "backends": backends, "settings": {"relevance": args.relevance},
        "table10": t10, "table11": t11,
        "pearson_vs_paper": {k: {"studio": ours[k], "paper": PAPER_PEARSON[k]} for k in PAPER_PEARSON},
        "note": ("The paper's Pearson figures come from 150 rated similes and a 4.3M-triplet KB (MAPS-KB); the shared "
                 "data holds only the 24 rated candidates of its Table 10 (5 groups), so the studio's figures have "
                 "wide confidence intervals (see the p-values) and use the studio's own, much smaller KB."),
        "seconds": round(time.perf_counter() - start, 1),
    }
