"""Which weight format llama.cpp serves the offline LM in: the shipped Q4_1 file as it is, or converted once to
float16 (served) or Q8_0. Per format and thread count: a 300-token prompt's time, a decoding step's time (one
sequence), one 12-row step (the ensemble's), and the agreement with float32 on the self-check's probe texts.

    .venv/bin/python bench/llamacpp_formats.py [--threads 1 2] [--repeats 3]      # prints JSON
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
from continuation import _median  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "offline")

TEXT = ("Jason was wearing a new suit, and the blue of it was only a bit darker than the blue of his eyes. He looked "
        "great, and he was smiling to beat the band. ")


def _convert(source: Path, target: Path, ftype: int) -> Path:
    from studio.models.loaders import llamacpp

    llama_cpp = llamacpp.import_llama_cpp()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.allow_requantize, params.nthread = ftype, True, os.cpu_count() or 1
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise SystemExit(f"could not convert {source.name}")
    return target


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    from studio.models import get_registry, selfcheck
    from studio.models.loaders import llamacpp
    from studio.models.loaders.split_package import resolve_model_path
    from studio.models.loaders.fourbit import probe_logits
    from studio.models.loaders.lm import _load_dir, converted_dir

    registry = get_registry()
    shipped = Path(resolve_model_path(registry.spec("lm").model_id))
    base = converted_dir(shipped)
    registry.get("lm")  # the conversion and the served float16 file, once
    reference = _load_dir(str(base), "reference", "float32")
    want = probe_logits(reference.model, reference.tokenizer)
    tokenizer = reference.tokenizer
    reference.close()
    llama_cpp = llamacpp.import_llama_cpp()
    work = Path(tempfile.mkdtemp())
    formats = {"Q4_1 (shipped)": shipped, "float16 (served)": llamacpp.served_gguf(shipped, base),
               "Q8_0": _convert(shipped, work / "q8_0.gguf", llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0)}
    ids = tokenizer(TEXT * 8, add_special_tokens=False)["input_ids"][:300]
    rows = []
    for name, path in formats.items():
        for threads in args.threads:
            lm = llamacpp.LlamaCppLM(path, tokenizer, "bench", name, threads=threads)
            got = lm.probe_logits(selfcheck.LM_PROBE_TEXTS)
            top1, shift = selfcheck.lm_agreement(want, got)

            def prompt():
                with lm._call(len(ids), 1):
                    lm._run([(t, i, 0, i == len(ids) - 1) for i, t in enumerate(ids)])

            def decode_step_ms(rows_per_step: int, steps: int = 10) -> float:
                """Median over repeats of the mean time of a step (after a 40-token prompt, not timed)."""
                times = []
                for _ in range(args.repeats):
                    with lm._call(40 + rows_per_step * steps, rows_per_step):
                        lm._prefill([ids[:40]], rows_per_step)
                        started = time.perf_counter()
                        for s in range(steps):
                            lm._run([(ids[40 + s], 40 + s, r, True) for r in range(rows_per_step)])
                        times.append((time.perf_counter() - started) / steps)
                return round(statistics.median(times) * 1000, 2)

            rows.append({"format": name, "threads": threads, "file_mb": round(path.stat().st_size / 2**20, 1),
                         "prompt_300_tokens_s": _median(prompt, args.repeats),
                         "decode_step_1_row_ms": decode_step_ms(1), "decode_step_12_rows_ms": decode_step_ms(12),
                         "top1_agreement_with_float32": round(top1, 4), "mean_logprob_shift": round(shift, 4)})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            lm.close()
    print(json.dumps(with_cpu({"repeats": args.repeats, "rows": rows}), indent=2))


if __name__ == "__main__":
    main()
