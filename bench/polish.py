"""Bench: warm time of `polish(literal, n=10)` and `n=50` (default sources) with the offline profile, the KB load
time and the polisher's load. The first import of transformers (with torchvision, which it pulls in; paid once per
process by whichever transformers model loads first, e.g. the embedder) is timed apart from the polisher's own load
(weights read, LoRA factors attached, 4-bit layers from the packed cache).

    .venv/bin/python bench/polish.py          # prints JSON; targets (issue #17): 10 candidates <= 3 s warm, 50 <= 10 s, polisher load <= 5 s
    # (the 3 s target is missed since the writer polisher proposes: about 5 s;
    # docs/experiments.md#polish-writer-polisher, #polish-settled-rows)
"""
from __future__ import annotations

import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "offline")

SENTENCES = ["He yelps and howls.", "She ran down the stairs.", "The old house creaked in the wind.",
             "The lake was calm.", "He stared at the letter for a long time.", "Her voice was very loud."]


def main() -> dict:
    from studio.models import get_registry
    from studio.figures import kb as kb_module
    from studio.similes.polish import polish

    started = time.perf_counter()
    kb_module.load_kb()
    kb_load = time.perf_counter() - started
    registry = get_registry()
    from studio.similes.polisher import polisher_lm

    registry.get("parser")
    t0 = time.perf_counter()
    import transformers  # noqa: F401
    import transformers.models.llama.configuration_llama  # noqa: F401 (pulls torchvision in)
    imports = time.perf_counter() - t0
    t0 = time.perf_counter()
    lm, trained = polisher_lm()  # the polisher (lm + LoRA delta, 4-bit), from the prepared cache
    load = time.perf_counter() - t0
    polish(SENTENCES[0], n=10, seed=0)  # warm-up: BM25 index, embedding caches
    times, cpu, counts = [], [], []
    for i, sentence in enumerate(SENTENCES):
        t0, c0 = time.perf_counter(), time.process_time()
        cands = polish(sentence, n=10, seed=i).candidates
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        counts.append(len(cands))
    times50, counts50 = [], []
    for i, sentence in enumerate(SENTENCES[:3]):
        t0 = time.perf_counter()
        counts50.append(len(polish(sentence, n=50, seed=i).candidates))
        times50.append(time.perf_counter() - t0)
    import torch

    return {"profile": registry.profile, "torch_threads": torch.get_num_threads(), "lm": registry.get("lm").model_id, "kb_load_seconds": round(kb_load, 3),
            "warm_seconds_per_sentence": [round(t, 3) for t in times],
            "median_seconds": round(statistics.median(times), 3),
            "max_seconds": round(max(times), 3), "cpu_seconds_per_sentence": [round(t, 3) for t in cpu],
            "median_cpu_seconds": round(statistics.median(cpu), 3), "polisher_load_seconds": round(load, 2),
            "transformers_import_seconds": round(imports, 2),
            "seconds_50": [round(t, 3) for t in times50], "median_seconds_50": round(statistics.median(times50), 3),
            "candidates_50": counts50,
            "polisher": lm.backend, "trained_polisher": trained, "load_average": os.getloadavg(),
            "candidates": counts, "target_seconds": 3.0, "target_seconds_50": 10.0, "target_load_seconds": 5.0}


if __name__ == "__main__":
    print(json.dumps(with_cpu(main()), indent=2))
