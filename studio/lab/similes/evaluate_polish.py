"""`python -m studio eval polish-report`: polish literal sentences of a part of the HAUSER candidates file (the
split of studio/lab/similes/polish_data.py: `dev` for choices, `test` reported) and compare with the paper's BART
candidates of the same literals. Both sets are scored together by the studio's own HAUSER scorer (one group per
literal: ours + the paper's 5, so the within-group normalization of quality treats them alike).

Figures: candidates delivered per literal, share the simile detector accepts, mean HAUSER quality and creativity
of ours and of the paper's candidates, the largest share of all candidates one vehicle takes, the share of
literals whose candidates hold the most frequent vehicle, and whether one of the paper's vehicles is among ours."""
from __future__ import annotations

import argparse
import re
import time
from collections import Counter

from ...errors import StudioError
from ...figures.components import extract_similes
from ...figures.detector import detect, threshold
from ...models import get_registry
from ...similes import filters as F


def run(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(prog="python -m studio eval polish-report")
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--limit", type=int, default=20, help="number of literal sentences (default 20)")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--literals", default="", help="a text file of literals (one a line) instead of a split")
    ap.add_argument("--select-floor", action="store_true",
                    help="choose the polisher-score floor (polish.MIN_SCORE) on the split (dev): prints the curve "
                         "and the choice; --limit defaults to 60 here")
    ap.add_argument("--like-with-like", metavar="READ.json", default="",
                    help="the like-with-like filter's curve on a dev read's labels (blind_reads/polish_blind_read_6.json): "
                         "per cosine threshold, the read candidates it drops and how many of those were usable")
    args = ap.parse_args(argv)
    if args.like_with_like:
        return like_with_like_curve(args.like_with_like)
    if args.select_floor:
        if args.split != "dev" or args.literals:
            raise SystemExit("the floor is chosen on the dev split only (--split dev)")
        limit = args.limit if "--limit" in " ".join(argv) else SELECT_LITERALS
        return select_floor(split_literals("dev", limit), args.n, args.seed)
    if args.literals:
        from pathlib import Path

        lines = [ln.strip() for ln in Path(args.literals).read_text(encoding="utf-8").splitlines()]
        items = [(ln, []) for ln in lines if ln and not ln.startswith("#")][:args.limit]
    else:
        items = split_literals(args.split, args.limit)
    return evaluate(items, args.n, args.seed)


SELECT_LITERALS = 60
GROUP_LIMIT = 50  # candidates per HAUSER group (studio.hauser.scorer)
#: the floors tried by select_floor (0: none)
FLOOR_GRID = (0.0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3)


def select_floor(items: list[tuple[str, list[str]]], n: int = 10, seed: int = 0,
                 grid: tuple[float, ...] = FLOOR_GRID) -> dict:
    """The floor on the polisher's score, chosen on dev literals. Each literal is polished once without a floor (a
    floor only removes the lowest-scored of the n, so one run gives every floor's list); ours and the paper's
    candidates are scored together by the studio's HAUSER (one group per literal). Criterion, stated before the
    choice: a candidate is *acceptable* when its HAUSER quality is at least that of the paper's weakest BART
    candidate of the same literal (the issue's fluency bar); the floor kept is the one that maximizes acceptable −
    unacceptable delivered candidates (a weak candidate shown costs the writer as much as a good one withheld),
    the lowest on ties. The curve also shows the stricter bar (the paper's mean quality of the literal)."""
    from ...hauser.scorer import score_groups
    from ...similes.polish import MIN_SCORE, polish

    started = time.perf_counter()
    rows = []
    for literal, paper in items:
        if not paper:
            continue
        try:
            cands = polish(literal, n=n, seed=seed, min_score=0.0).candidates
        except StudioError:
            continue
        rows.append((literal, paper, cands))
    # a HAUSER group holds at most 50 candidates: a longer list is dealt into equal groups, each with the paper's
    chunks = []
    for lit, paper, cands in rows:
        k = max(1, -(-len(cands) // max(1, GROUP_LIMIT - len(paper))))
        chunks += [(lit, paper, cands[i::k]) for i in range(k) if cands[i::k]]
    scored = score_groups([(lit, [c.sentence for c in cands] + list(paper)) for lit, paper, cands in chunks])
    points = []  # (polisher score, quality, weakest paper quality, mean paper quality)
    for (_lit, _paper, cands), g in zip(chunks, scored):
        k = len(cands)
        paper_q = [c.quality for c in g.candidates[k:] if c.quality is not None]
        if not paper_q:
            continue
        for cand, sc in zip(cands, g.candidates[:k]):
            if sc.quality is not None:
                points.append((cand.score, sc.quality, min(paper_q), sum(paper_q) / len(paper_q)))
    curve = []
    for floor in grid:
        kept = [p for p in points if p[0] >= floor]
        good = sum(p[1] >= p[2] for p in kept)
        strict = sum(p[1] >= p[3] for p in kept)
        curve.append({"floor": floor, "delivered_per_literal": round(len(kept) / max(len(rows), 1), 2),
                      "acceptable": good, "unacceptable": len(kept) - good, "objective": 2 * good - len(kept),
                      "at_least_paper_mean": strict,
                      "mean_quality": round(sum(p[1] for p in kept) / len(kept), 4) if kept else None})
    best = max(curve, key=lambda c: (c["objective"], -c["floor"]))
    return {"split": "dev", "literals": len(rows), "candidates": len(points), "n": n, "seed": seed,
            "criterion": "max acceptable - unacceptable delivered; acceptable = HAUSER quality >= the paper's "
                         "weakest BART candidate of the literal (same group); lowest floor on ties",
            "curve": curve, "chosen_floor": best["floor"], "current_floor": MIN_SCORE,
            "seconds": round(time.perf_counter() - started, 1)}


def split_literals(split: str, limit: int) -> list[tuple[str, list[str]]]:
    """(literal, the paper's candidates) of the first `limit` literals of a part, in file order."""
    from .polish_data import all_pairs, hauser_raw

    wanted = set()
    for r in all_pairs()[split]:
        if r["source"] == "hauser":
            wanted.add(r["literal"])
    out = []
    for literal, candidates in hauser_raw():
        if literal in wanted and all(literal != o[0] for o in out):
            out.append((literal, candidates))
            if len(out) >= limit:
                break
    return out


def evaluate(items: list[tuple[str, list[str]]], n: int = 10, seed: int = 0) -> dict:
    from ...figures.kb import load_kb
    from ...similes.polish import polish

    kb = load_kb()
    thr = threshold()
    started = time.perf_counter()
    rows, skipped, timings = [], 0, []
    for literal, paper in items:
        t0 = time.perf_counter()
        try:
            result = polish(literal, n=n, seed=seed)
        except StudioError:
            skipped += 1
            continue
        timings.append(time.perf_counter() - t0)
        rows.append({"literal": literal, "paper": paper, "ours": result.candidates, "report": result})
    ours_all = [c for r in rows for c in r["ours"]]
    vehicles = Counter(kb.head(c.vehicle) or c.vehicle for c in ours_all)
    per_literal = Counter(v for r in rows for v in {kb.head(c.vehicle) or c.vehicle for c in r["ours"]})
    top, top_count = vehicles.most_common(1)[0] if vehicles else ("", 0)
    top_lit, top_lit_count = per_literal.most_common(1)[0] if per_literal else ("", 0)
    out = {"literals": len(items), "skipped": skipped, "candidates": len(ours_all),
           "delivered_per_literal": round(len(ours_all) / max(len(rows), 1), 2),
           "detector_accepts": round(sum(detect(c.sentence) >= thr for c in ours_all) / max(len(ours_all), 1), 4),
           "top_vehicle": top, "top_vehicle_share_of_candidates": round(top_count / max(len(ours_all), 1), 4),
           "top_vehicle_in_literals": top_lit,
           "top_vehicle_share_of_literals": round(top_lit_count / max(len(rows), 1), 4),
           "per_strategy": dict(Counter(c.strategy for c in ours_all)),
           "mean_seconds_per_literal": round(sum(timings) / max(len(timings), 1), 2),
           "generator": rows[0]["report"].generator if rows else ""}
    with_paper = [r for r in rows if r["paper"]]
    if with_paper:
        out.update(_against_paper(with_paper, kb))
    out["examples"] = [{"literal": r["literal"], "ours": [c.sentence for c in r["ours"][:3]],
                        "paper": r["paper"][:2]} for r in rows[:5]]
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


TOP = 5


def _against_paper(rows, kb) -> dict:
    from ...hauser.scorer import score_groups

    groups = [(r["literal"], [c.sentence for c in r["ours"]] + list(r["paper"])) for r in rows]
    scored = score_groups(groups)
    q_ours, q_paper, c_ours, c_paper, hits = [], [], [], [], 0
    q_top, c_top = [], []  # our first TOP (the paper gave 5 per literal): the comparison
    for r, g in zip(rows, scored):
        k = len(r["ours"])
        for i, cand in enumerate(g.candidates):
            into = (q_ours, c_ours) if i < k else (q_paper, c_paper)
            if cand.quality is not None:
                into[0].append(cand.quality)
                if i < min(k, TOP):
                    q_top.append(cand.quality)
            if cand.creativity is not None:
                into[1].append(cand.creativity)
                if i < min(k, TOP):
                    c_top.append(cand.creativity)
        paper_heads = {kb.head(s.vehicle) for cand in r["paper"] for s in extract_similes(cand) if s.vehicle}
        hits += bool(paper_heads & {kb.head(c.vehicle) for c in r["ours"]})

    def mean(xs):
        return round(sum(xs) / len(xs), 4) if xs else None

    return {"hauser_quality_ours": mean(q_ours), "hauser_quality_paper": mean(q_paper),
            "hauser_creativity_ours": mean(c_ours), "hauser_creativity_paper": mean(c_paper),
            "hauser_quality_ours_top5": mean(q_top), "hauser_creativity_ours_top5": mean(c_top),
            "scored_ours": len(q_ours), "scored_paper": len(q_paper), "scored_ours_top5": len(q_top),
            "paper_vehicle_among_ours": round(hits / len(rows), 4)}


#: cosine thresholds of like_with_like_curve
LIKE_THRESHOLDS = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
_TOKEN = re.compile(r"\w[\w'-]*|[^\w\s]")


def inserted_vehicle(literal: str, candidate: str) -> str:
    """The vehicle a candidate put into its literal: the words between their common first and last words, after
    "like" or after the last "as" ("as loud as thunder" → "thunder"); "" when there is none."""
    a, b = _TOKEN.findall(literal), _TOKEN.findall(candidate)
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    q = 0
    while q < min(len(a), len(b)) - p and a[-1 - q] == b[-1 - q]:
        q += 1
    words = b[p:len(b) - q]
    lowered = [w.lower() for w in words]
    if lowered[:1] == ["like"]:
        words = words[1:]
    elif "as" in lowered:
        words = words[len(lowered) - lowered[::-1].index("as"):]
    else:
        return ""
    return " ".join(words)


def like_with_like_curve(path: str) -> dict:
    """How the like-with-like filter (polish.like_with_like_scores) would have cut a read's candidates (all variants
    pooled, each distinct candidate once; the median is over the read's candidates of a literal): per threshold, the
    candidates it drops with the served gap and how many of them the reader kept."""
    import json
    from pathlib import Path

    from ...figures.kb import load_kb

    record = json.loads(Path(path).read_text(encoding="utf-8"))
    labels: dict[str, dict[str, int]] = {}
    for row in record["rows"]:
        labels.setdefault(row["literal"], {})[row["candidate"]] = int(row["usable"])
    parser, kb = get_registry().get("parser"), load_kb()
    scored = []  # (cosine, gap, usable, literal, candidate)
    for literal, cands in labels.items():
        items = [(c, inserted_vehicle(literal, c)) for c in cands]
        items = [(c, v) for c, v in items if v]
        scores = F.like_with_like_scores([{"vehicle": v} for _, v in items], parser(literal), kb)
        scored += [(s[0], s[1], cands[c], literal, c) for (c, _), s in zip(items, scores) if s is not None]
    curve = []
    for t in LIKE_THRESHOLDS:
        dropped = [x for x in scored if x[0] >= t and x[1] >= F.LIKE_WITH_LIKE_GAP]
        curve.append({"cosine_at_least": t, "dropped": len(dropped), "of_them_usable": sum(x[2] for x in dropped)})
    top = sorted(scored, reverse=True)[:12]
    return {"read": path, "candidates": len(scored), "gap": F.LIKE_WITH_LIKE_GAP, "served": F.LIKE_WITH_LIKE,
            "curve": curve, "closest": [{"cosine": round(x[0], 3), "usable": x[2], "candidate": x[4]} for x in top]}
