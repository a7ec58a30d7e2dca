"""`python -m studio eval polish`: polish the first literal sentences of the HAUSER candidates file and compare
with the paper generator's 5 candidates."""
from __future__ import annotations

import argparse
import json
import time

from .data import shared_data_dir


def run(argv: list[str]) -> dict:
    from ..errors import StudioError
    from .components import extract_similes
    from .detector import detect, threshold
    from .kb import load_kb
    from .polish import polish

    ap = argparse.ArgumentParser(prog="python -m studio eval polish")
    ap.add_argument("--limit", type=int, default=100, help="number of literal sentences (default 100)")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    kb = load_kb()
    rows = []
    with open(shared_data_dir() / "hauser" / "candidates.jsonl", encoding="utf-8") as fh:
        for line in fh:
            rows.append(json.loads(line))
            if len(rows) >= args.limit:
                break
    started = time.perf_counter()
    total = accepted = hits = skipped = 0
    distinct = []
    per_strategy: dict[str, int] = {}
    thr = threshold()
    for row in rows:
        try:
            cands = polish(row["literal"], n=args.n, seed=args.seed)
        except StudioError:  # e.g. no place for a simile: counted, not fatal
            skipped += 1
            continue
        total += len(cands)
        accepted += sum(detect(c.sentence) >= thr for c in cands)
        ours = {kb.head(c.vehicle) for c in cands if c.vehicle}
        distinct.append(len(ours))
        for c in cands:
            per_strategy[c.strategy] = per_strategy.get(c.strategy, 0) + 1
        paper = set()
        for cand in row["candidates"]:
            for s in extract_similes(cand):
                if s.vehicle:
                    paper.add(kb.head(s.vehicle))
        hits += bool(ours & paper)
    n = len(rows) - skipped
    return {"sentences": len(rows), "skipped": skipped, "candidates": total,
            "detector_accepts": round(accepted / total, 4) if total else 0.0,
            "distinct_vehicles_per_sentence": round(sum(distinct) / len(distinct), 2) if distinct else 0.0,
            "paper_vehicle_among_ours": round(hits / n, 4) if n else 0.0,
            "per_strategy": per_strategy, "seconds": round(time.perf_counter() - started, 1)}
