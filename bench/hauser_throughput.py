"""Throughput of HAUSER scoring: all 12,495 candidates of ../shared/data/hauser/candidates.jsonl with the offline
profile (target: <= 5 minutes on the 2-core machine), and the warm time of one Rerank of 10 candidates (target:
<= 0.5 s; `--warm-only` measures only that): of two HAUSER literals (long sentences, 23 words at the median), and
of one literal of Polish's own (the sentences writers gave Polish in the blind reads, 10 of Polish's candidates
each: what "Send to Rerank" scores). Prints JSON.

    STUDIO_PROFILE=offline .venv/bin/python bench/hauser_throughput.py [--limit N] [--warm-only] [--no-lm]
"""
from __future__ import annotations

import argparse
import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "offline")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--limit", type=int, default=0, help="score only the first N literal sentences")
    p.add_argument("--chunk", type=int, default=500, help="groups per batched model pass")
    p.add_argument("--warm-only", action="store_true", help="only the warm 10-candidate rerank")
    p.add_argument("--repeats", type=int, default=7, help="warm reranks timed (the median is reported)")
    p.add_argument("--no-lm", action="store_true",
                   help="the paper's formulas: no LM back-off (λ = μ = 0) and no ironic-simile check")
    args = p.parse_args()

    from studio.lab.hauser.paths import data_file
    from studio.hauser.scorer import Settings, score_groups
    from studio.models import get_registry

    settings = Settings(lm_relevance=0, lm_creativity=0, irony=False) if args.no_lm else Settings()

    with open(data_file("hauser", "candidates.jsonl"), encoding="utf-8") as fh:
        groups = [(r["literal"], r["candidates"]) for r in map(json.loads, fh)]
    if args.limit:
        groups = groups[:args.limit]
    registry = get_registry()
    start = time.perf_counter()
    for role in ("parser", "embedder", "nli", "sentiment") + (() if args.no_lm else ("lm", "writer")):
        registry.get(role)
    from studio.figures.kb import load_kb

    load_kb()
    load_seconds = time.perf_counter() - start
    warm = _warm_rerank(groups, args.repeats, settings)
    warm.update(_warm_polish_rerank(args.repeats, settings))
    if args.warm_only:
        print(json.dumps(with_cpu({"profile": registry.profile, "lm_back_off": not args.no_lm,
                                   "load_seconds": round(load_seconds, 1), **warm,
                                   "backends": score_groups(groups[:1], settings)[0].backends,
                                   "cpu_count": os.cpu_count(), "load_average": os.getloadavg()}), indent=2))
        return
    start, cpu_start = time.perf_counter(), time.process_time()
    scored = []
    for i in range(0, len(groups), args.chunk):
        scored += score_groups(groups[i:i + args.chunk], settings)
        print(f"{len(scored)}/{len(groups)} groups, {time.perf_counter() - start:.0f}s", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    # on a shared machine wall time depends on the neighbours; CPU time over the cores bounds the unshared time
    cpu_seconds = time.process_time() - cpu_start
    candidates = sum(len(g.candidates) for g in scored)
    levels = {}
    for g in scored:
        for c in g.candidates:
            for lvl in c.relevance_levels:
                levels[lvl] = levels.get(lvl, 0) + 1
    print(json.dumps(with_cpu({
        "profile": registry.profile, "lm_back_off": not args.no_lm, "groups": len(scored), "candidates": candidates,
        "without_simile": sum(not c.has_simile for g in scored for c in g.candidates),
        "relevance_kb_levels": levels, "load_seconds": round(load_seconds, 1), "score_seconds": round(seconds, 1),
        "candidates_per_second": round(candidates / seconds, 1), "cpu_seconds": round(cpu_seconds, 1),
        "cpu_seconds_per_candidate": round(cpu_seconds / candidates, 4),
        "all_12495_wall_seconds_at_this_rate": round(12495 * seconds / candidates),
        "all_12495_seconds_on_idle_cores_estimate": round(12495 * cpu_seconds / candidates / (os.cpu_count() or 1)),
        "target_seconds": 300, "within_target": 12495 * seconds / candidates <= 300,
        **warm, "backends": scored[0].backends if scored else {},
        "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
    }), indent=2))


def _timed_reranks(groups: list, settings) -> tuple[float, float]:
    """The first group scored to warm up, then each other one timed: (median, max) wall seconds."""
    import statistics

    from studio.hauser.scorer import score_groups

    score_groups(groups[:1], settings)
    times = []
    for literal, candidates in groups[1:]:
        t0 = time.perf_counter()
        score_groups([(literal, candidates)], settings)
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 3), round(max(times), 3)


def _warm_rerank(groups, repeats: int, settings) -> dict:
    """One literal with 10 candidates (its 5 generator candidates and 5 of the next literal's, as a user might
    paste them), scored once to warm up; then `repeats` reranks of other literals' 10 candidates (new text, so that
    no memo of an earlier call helps): the median wall time of what the Rerank tab runs."""
    pasted = [(groups[2 * k][0], (list(groups[2 * k][1]) + list(groups[2 * k + 1][1]))[:10]) for k in range(repeats + 1)]
    median, worst = _timed_reranks(pasted, settings)
    return {"warm_rerank_10_median_seconds": median, "warm_rerank_10_max_seconds": worst,
            "warm_rerank_target_seconds": 0.5}


def _warm_polish_rerank(repeats: int, settings) -> dict:
    """Reranks of one Polish literal with 10 of its candidates (the blind reads' lists, new literal each time)."""
    from studio.lab.similes import aptness_train as at

    seen: dict = {}
    at.read_labels(seen=seen)
    lists = [(literal, [c[0] for c in cands.values()][:10]) for literal, cands in seen.items() if len(cands) >= 10]
    if len(lists) < 2:
        return {"warm_rerank_polish_10": "no blind-read lists of 10 candidates (blind_reads/polish_blind_read_*.json)"}
    median, worst = _timed_reranks(lists[:repeats + 1], settings)
    return {"warm_rerank_polish_10_median_seconds": median, "warm_rerank_polish_10_max_seconds": worst}


if __name__ == "__main__":
    main()
