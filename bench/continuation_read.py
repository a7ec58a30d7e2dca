"""Continuations of the narratives of blind_reads/continuation_narratives.txt for a blind read (issue #18): 3 samples each
with the default settings of the Continue tab, printed as JSON lines {"narrative", "mode", "continuations"} in
random order of narratives (seeded) so that a reader does not see idioms and similes in blocks.

    .venv/bin/python bench/continuation_read.py [--mode tuned] [--n 3] [--pool 16] [--out reads.jsonl]

`--pool 3` (as many drawn as shown) gives what the tab showed before the pool (2026-11-25).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("STUDIO_PROFILE", "offline")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--file", default=str(ROOT / "blind_reads" / "continuation_narratives.txt"))
    p.add_argument("--mode", default="tuned")
    p.add_argument("--n", type=int, default=3)
    p.add_argument("--pool", type=int, default=None, help="tuned mode: samples drawn (default: the tab's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="-")
    args = p.parse_args()
    from studio.continuation.generate import Settings, continue_narrative
    from studio.continuation.ranking import POOL

    lines = [x.strip() for x in Path(args.file).read_text().splitlines() if x.strip() and not x.startswith("#")]
    order = list(range(len(lines)))
    random.Random(args.seed).shuffle(order)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8")
    started = time.perf_counter()
    for i in order:
        r = continue_narrative(lines[i], Settings(mode=args.mode, n=args.n, seed=args.seed,
                                                           pool=POOL if args.pool is None else args.pool))
        out.write(json.dumps({"line": i + 1, "narrative": r.narrative, "mode": r.mode, "drawn": r.drawn, "notes": r.notes,
                              "continuations": [c.text for c in r.continuations]}, ensure_ascii=False) + "\n")
        out.flush()
    print(f"{len(lines)} narratives in {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
