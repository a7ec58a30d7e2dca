"""How the language model shares the cores: one 12-prompt ensemble continuation (the decoding of
bench/continuation.py) timed alone and with a second process doing the same at once, for a thread count and an
OpenMP spin count. Prints JSON with the CPU flags.

    .venv/bin/python bench/lm_threads.py [--threads 1 2] [--spin 300 default] [--repeats 3]

`--spin default` leaves libgomp's own spin count (GOMP_SPINCOUNT unset and not defaulted by the studio)."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)

ROOT = Path(__file__).resolve().parents[1]


def worker(repeats: int) -> None:
    """Time the ensemble `repeats` times after one warm-up run; print the median seconds."""
    sys.path.insert(0, str(ROOT / "bench"))
    from continuation import INFERENCES, NARRATIVE

    from studio.continuation.decoding import ensemble_sample
    from studio.continuation.generate import prompts_for
    from studio.models import get_registry

    lm = get_registry().get("lm")
    prompts = prompts_for(NARRATIVE, INFERENCES)

    def run():
        ensemble_sample(lm, prompts, max_new_tokens=20, stop_at_sentence_end=False, shared_text=NARRATIVE)

    run()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    print(json.dumps({"median_s": round(statistics.median(times), 3), "backend": lm.backend}))


def _spawn(threads: int, spin: str, repeats: int, delay: float = 0.0) -> subprocess.Popen:
    env = {**os.environ, "STUDIO_PROFILE": "offline", "STUDIO_LM_THREADS": str(threads),
           "STUDIO_TORCH_THREADS": "1"}
    if spin == "default":
        env["GOMP_SPINCOUNT"] = "300000"  # libgomp's own default, set so the studio's default does not apply
    else:
        env["GOMP_SPINCOUNT"] = spin
    return subprocess.Popen([sys.executable, __file__, "--worker", str(repeats)], env=env, stdout=subprocess.PIPE,
                            text=True)


def _median_of(proc: subprocess.Popen) -> dict:
    out, _ = proc.communicate(timeout=900)
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--spin", nargs="+", default=["300", "default"])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker)
        return
    rows = []
    for threads in args.threads:
        for spin in args.spin:
            alone = _median_of(_spawn(threads, spin, args.repeats))
            pair = [_spawn(threads, spin, args.repeats) for _ in range(2)]
            together = [_median_of(proc) for proc in pair]
            rows.append({"threads": threads, "gomp_spincount": spin, "alone_s": alone["median_s"],
                         "two_at_once_s": [t["median_s"] for t in together], "backend": alone["backend"]})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps(with_cpu({"bench": "ensemble continuation, 12 prompts, 20 tokens", "repeats": args.repeats,
                               "rows": rows}), indent=2))


if __name__ == "__main__":
    main()
