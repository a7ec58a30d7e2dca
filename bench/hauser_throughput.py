"""Throughput of HAUSER scoring: all 12,495 candidates of ../shared/data/hauser/candidates.jsonl with the offline
profile (target: <= 5 minutes on the 2-core machine). Prints JSON.

    STUDIO_PROFILE=offline .venv/bin/python bench/hauser_throughput.py [--limit N]
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
    args = p.parse_args()

    from studio.hauser.paths import data_file
    from studio.hauser.scorer import score_groups
    from studio.models import get_registry

    with open(data_file("hauser", "candidates.jsonl"), encoding="utf-8") as fh:
        groups = [(r["literal"], r["candidates"]) for r in map(json.loads, fh)]
    if args.limit:
        groups = groups[:args.limit]
    registry = get_registry()
    start = time.perf_counter()
    for role in ("parser", "embedder", "nli", "sentiment"):
        registry.get(role)
    from studio.similes.kb import load_kb

    load_kb()
    load_seconds = time.perf_counter() - start
    start, cpu_start = time.perf_counter(), time.process_time()
    scored = []
    for i in range(0, len(groups), args.chunk):
        scored += score_groups(groups[i:i + args.chunk])
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
        "profile": registry.profile, "groups": len(scored), "candidates": candidates,
        "without_simile": sum(not c.has_simile for g in scored for c in g.candidates),
        "relevance_kb_levels": levels, "load_seconds": round(load_seconds, 1), "score_seconds": round(seconds, 1),
        "candidates_per_second": round(candidates / seconds, 1), "cpu_seconds": round(cpu_seconds, 1),
        "cpu_seconds_per_candidate": round(cpu_seconds / candidates, 4),
        "all_12495_wall_seconds_at_this_rate": round(12495 * seconds / candidates),
        "all_12495_seconds_on_idle_cores_estimate": round(12495 * cpu_seconds / candidates / (os.cpu_count() or 1)),
        "target_seconds": 300, "within_target": 12495 * seconds / candidates <= 300,
        "backends": scored[0].backends if scored else {},
        "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
    }), indent=2))


if __name__ == "__main__":
    main()
