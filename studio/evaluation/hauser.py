"""HAUSER: Pearson correlation of the studio's quality / creativity / informativeness with the mean of three human
ratings, on the rated dev set of the HAUSER paper (../shared/data/hauser/human_ratings_dev.csv), beside the paper's own
quality score (½·relevance + ⅓·mnli + ⅙·emo, columns of that file) on the same rows.

Split: by literal sentence (a literal's candidates stay together), `hash_half(literal, "hauser")`: the dev half is for
choices, the test half is reported. Each literal is scored with its whole candidate group — its rated similes plus its
five generator candidates from hauser/candidates.jsonl, as the paper normalised within a literal's candidates.
The heads (NLI, sentiment) are trained on FLUTE / SST-2 train (`python -m studio train nli|sentiment`), the KB on the
simile corpora (`python -m studio build kb`); none of them read these ratings.

Beside the ratings, `polish_lists`: HAUSER's quality against writers' usable / not verdicts on Polish's own candidates
(the blind reads, split by literal set as the keep ranker is), where most similes state their property.
"""
from __future__ import annotations

import csv
import json

import numpy as np
from scipy.stats import pearsonr

from ..hauser.paths import data_file
from ..similes.data import detokenize
from .base import Evaluation, Figure, hash_half, pearson_interval, share_interval

ASPECTS = {"quality": "q", "creativity": "c", "informativeness": "i"}
#: the paper's Pearson with human ratings (its Table 3, 150 rated similes, MAPS-KB): shown beside ours where the
#: rated file gives no per-candidate score of the paper's own
PAPER_REPORTED = {"quality": 0.320, "creativity": 0.592, "informativeness": 0.798}


def load_rows() -> list[dict]:
    with open(data_file("hauser", "human_ratings_dev.csv"), encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["split"] = hash_half(r["literal_sentences"], "hauser")
        for aspect, k in ASPECTS.items():
            r[f"human_{aspect}"] = float(np.mean([float(r[f"label{a}_{k}"]) for a in (1, 2, 3)]))
        r["paper_quality"] = (float(r["relevance_KB"]) / 2 + float(r["consistency_mnli"]) / 3
                              + float(r["consistency_emo"]) / 6)
    return rows


def candidate_groups() -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    with open(data_file("hauser", "candidates.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                groups.setdefault(r["literal"], list(r["candidates"]))
    return groups


def pearson(x, y) -> float | None:
    pairs = [(a, b) for a, b in zip(x, y) if a is not None and np.isfinite(a)]
    if len(pairs) < 3:
        return None
    a, b = np.array(pairs, float).T
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(pearsonr(a, b).statistic)


def score_rows(rows: list[dict], settings=None) -> list:
    """The studio's CandidateScore of each rated row, its literal scored with the whole candidate group."""
    from ..hauser.scorer import score_groups

    pool = candidate_groups()
    literals = list(dict.fromkeys(r["literal_sentences"] for r in rows))
    groups = []
    for lit in literals:
        rated = [r["similes"].strip() for r in rows if r["literal_sentences"] == lit]
        groups.append(list(dict.fromkeys(rated + [c.strip() for c in pool.get(lit, [])])))
    scored = score_groups([(detokenize(lit), g) for lit, g in zip(literals, groups)], settings)
    by_text = {(lit, c.candidate): c for lit, res in zip(literals, scored) for c in res.candidates}
    return [by_text[(r["literal_sentences"], r["similes"].strip())] for r in rows]


def correlations(rows: list[dict], scores: list) -> dict:
    out = {aspect: pearson([getattr(s, aspect) for s in scores], [r[f"human_{aspect}"] for r in rows])
           for aspect in ASPECTS}
    out["paper_quality"] = pearson([r["paper_quality"] for r in rows], [r["human_quality"] for r in rows])
    return out


def _levels(levels: list[str]) -> dict[str, int]:
    from collections import Counter

    return dict(sorted(Counter(levels).items()))


class HauserEvaluation(Evaluation):
    name = "hauser"
    title = "HAUSER simile scoring: Pearson with mean human rating"
    splits = {"train": "none of these ratings (heads: FLUTE / SST-2 train; KB: `build kb`; the LM weights λ, μ chosen on dev)",
              "dev": "human_ratings_dev.csv, literals with even sha1('hauser|literal')",
              "test": "human_ratings_dev.csv, literals with odd sha1('hauser|literal')",
              "polish lists": "Polish's read lists (eval/polish_blind_read_*.json) by literal set, as the keep "
                              "ranker: dev sets 4-5, test 6 on; their figures are under dev and test"}

    def _compute(self, limit):
        from ..hauser.scorer import Settings
        from ..similes.kb import load_kb

        rows = load_rows()
        meta = load_kb().meta
        figures, details = [], {"candidates_scored_per_literal": "rated similes + candidates.jsonl group",
                                "kb": {k: meta.get(k) for k in ("instances", "triplets", "pairs", "vehicles", "per_source",
                                                                "count_weights")}}
        for split in ("dev", "test"):
            part = [r for r in rows if r["split"] == split]
            if limit:
                part = part[:limit]
            scores = score_rows(part)
            corr = correlations(part, scores)
            human = [r["human_quality"] for r in part]
            criteria = {name: pearson([getattr(s, f"{name}_norm") for s in scores], human)
                        for name in ("relevance", "logical_consistency", "sentiment_consistency")}
            details[split] = {"rows": len(part), "literals": len({r["literal_sentences"] for r in part}),
                              "pearson": {k: None if v is None else round(v, 4) for k, v in corr.items()},
                              # each normalised criterion of quality against people's quality (the paper's: 0.25,
                              # 0.17, 0.10 on its own rows)
                              "pearson_quality_criteria": {k: None if v is None else round(v, 4)
                                                           for k, v in criteria.items()},
                              "without_simile": sum(not s.has_simile for s in scores),
                              # KB coverage: how each rated candidate's topic-vehicle pairs matched the KB
                              "kb_pair_levels": _levels([lvl for s in scores for lvl in s.relevance_levels]),
                              "kb_vehicle_levels": _levels([lvl for s in scores for lvl in s.creativity_levels])}
            pair_levels = [lvl for s in scores for lvl in s.relevance_levels]
            details[split]["kb_pair_coverage"] = round(
                sum(lvl in ("exact", "head") for lvl in pair_levels) / max(1, len(pair_levels)), 4)
            for aspect in ASPECTS:
                if aspect == "quality":
                    anchor = {"value": None if corr["paper_quality"] is None else round(corr["paper_quality"], 4),
                              "source": "the paper's own quality score on the same rows"}
                else:
                    anchor = {"value": PAPER_REPORTED[aspect], "source": "paper, 150 rated similes (other rows)"}
                figures.append(Figure(f"Pearson {aspect}", corr[aspect], split, len(part), anchor,
                                      headline=split == "test", interval=pearson_interval(corr[aspect], len(part))))
            # the ablation: the paper's formulas (no LM back-off) on the same KB, NLI and components
            paper_only = correlations(part, score_rows(part, Settings(lm_relevance=0, lm_creativity=0, irony=False)))
            details[split]["pearson_without_lm"] = {k: None if paper_only[k] is None else round(paper_only[k], 4)
                                                    for k in ("quality", "creativity")}
            for aspect in ("quality", "creativity"):
                figures.append(Figure(f"Pearson {aspect}, without the LM back-off", paper_only[aspect], split,
                                      len(part), headline=False))
            for name, settings in (("", Settings()), (", without the property back-off",
                                                          Settings(property_backoff=False))):
                # a quick run (`limit` rated rows) scores a quarter as many read lists: each holds 10-20 candidates
                lists = polish_lists(split, limit and max(1, limit // 4), settings)
                details[split]["polish_lists" + name.replace(", ", "; ")] = lists
                figures.append(Figure("AUC of quality, usable vs not, Polish's read lists" + name, lists["auc"],
                                      split, lists["candidates"], headline=False))
                figures.append(Figure("top 3 usable by quality, Polish's read lists" + name, lists["top3"], split,
                                      lists["slots"], headline=False,
                                      interval=share_interval(lists["top3"], lists["slots"])))
        return figures, details


def polish_lists(split: str, limit: int | None = None, settings=None) -> dict:
    """HAUSER's quality against writers' verdicts on Polish's own candidates (mostly "as ADJ as V", which the rated
    file lacks): each literal of the blind reads (eval/polish_blind_read_*.json) scored with all its labelled
    candidates as one group; split by literal set as the keep ranker is (studio/similes/aptness_train.py: dev sets
    4–5, test 6 on). AUC: how often a usable candidate's quality beats an unusable one's of the same literal (ties
    half); top 3: usable among the three of highest quality, on literals with at least four labelled candidates."""
    from ..hauser.scorer import score_groups
    from ..similes import aptness_train as at

    sets, seen = at.literal_sets(), {}
    labels, _ = at.read_labels(seen=seen)
    groups = []
    for literal, candidates in seen.items():
        if literal in sets and at.split_of(sets[literal]) == split:
            keys = [k for k in candidates if (literal, k) in labels]
            groups.append((literal, [candidates[k][0] for k in keys],
                           [int(np.mean(labels[(literal, k)]) >= 0.5) for k in keys]))
    groups = groups[:limit] if limit else groups
    scored = score_groups([(literal, texts) for literal, texts, _ in groups], settings)
    pairs = wins = top3 = slots = 0.0
    for (_, _, usable), group in zip(groups, scored):
        quality = np.array([-1.0 if c.quality is None else c.quality for c in group.candidates])
        usable = np.array(usable)
        good, bad = quality[usable == 1], quality[usable == 0]
        pairs += len(good) * len(bad)
        wins += float((good[:, None] > bad[None, :]).sum() + 0.5 * (good[:, None] == bad[None, :]).sum())
        if len(usable) >= 4:
            top3 += int(usable[np.argsort(-quality, kind="stable")[:3]].sum())
            slots += 3
    return {"literals": len(groups), "candidates": sum(len(u) for _, _, u in groups),
            "usable": sum(sum(u) for _, _, u in groups), "auc": round(wins / pairs, 4) if pairs else None,
            "top3": round(top3 / slots, 4) if slots else None, "slots": int(slots)}
