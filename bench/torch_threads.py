"""How the torch encoders share the cores (the default of STUDIO_TORCH_THREADS): HAUSER's NLI cross-encoder and
sentiment head over 8 literals' candidates (80), timed alone and as two requests at once in one process (two
Python threads, as the app serves them), for each thread count. Each setting runs in its own process. Prints JSON
with the CPU flags.

    .venv/bin/python bench/torch_threads.py [--threads 1 2]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)

ROOT = Path(__file__).resolve().parents[1]


def worker() -> None:
    import torch

    from studio.lab.hauser.paths import data_file
    from studio.models import get_registry

    with open(data_file("hauser", "candidates.jsonl"), encoding="utf-8") as fh:
        groups = [(r["literal"], r["candidates"]) for r in map(json.loads, fh)]
    registry = get_registry()
    nli, sentiment = registry.get("nli"), registry.get("sentiment")

    def request(k: int, n: int = 8) -> None:
        for j in range(n):  # one Rerank of 10 (two literals' candidates) at a time
            part = groups[k * 50 + 2 * j:k * 50 + 2 * j + 2]
            premises = [lit for lit, cands in part for _ in cands]
            hypotheses = [c for _, cands in part for c in cands]
            nli.predict(premises, hypotheses, batch_size=128)
            sentiment.p_positive(hypotheses)

    request(9, 2)  # warm
    started = time.perf_counter()
    request(1)
    alone = time.perf_counter() - started
    both = [threading.Thread(target=request, args=(k,)) for k in (2, 3)]
    started = time.perf_counter()
    for t in both:
        t.start()
    for t in both:
        t.join()
    print(json.dumps({"torch_threads": torch.get_num_threads(), "alone_s": round(alone, 2),
                      "two_at_once_s": round(time.perf_counter() - started, 2)}))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return worker()
    rows = []
    for threads in args.threads:
        env = {**os.environ, "STUDIO_PROFILE": "offline", "STUDIO_TORCH_THREADS": str(threads)}
        out = subprocess.run([sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True,
                             timeout=900, check=True).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
    print(json.dumps(with_cpu({"load_average": os.getloadavg(), "rows": rows}), indent=2))


if __name__ == "__main__":
    main()
