"""Bench: the offline LM served 4-bit (torch's int4 kernel for decoding, a bfloat16 copy for prompts) against
the same GGUF dequantized to float32, on the gold continuations of the figurative validation part: how often
the next token's argmax agrees, the mean log-probability of the gold tokens, and the time of both.

Decoding is measured as decoding runs: the narrative is read in one pass (the prompt path), then the gold
continuation is fed one token at a time (the int4 path), and each step's log-probability is taken.

    .venv/bin/python bench/lm_4bit.py [--n 60]      # prints JSON
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
os.environ["STUDIO_LLAMACPP"] = "0"  # this bench measures the torch forms (the fallback where llama.cpp cannot run)


def teacher_forced(model, tok, narrative: str, continuation: str):
    """Per gold token: (log-probability, argmax) with the narrative read at once and the continuation stepped."""
    import torch

    ctx = tok(narrative, return_tensors="pt")["input_ids"]
    gold = tok(" " + continuation, add_special_tokens=False)["input_ids"]
    logps, argmaxes = [], []
    with torch.inference_mode():
        out = model(input_ids=ctx, use_cache=True, logits_to_keep=1)
        for t in gold:
            logits = out.logits[0, -1].float().log_softmax(-1)
            logps.append(float(logits[t]))
            argmaxes.append(int(logits.argmax()))
            out = model(input_ids=torch.tensor([[t]]), past_key_values=out.past_key_values, use_cache=True)
    return logps, argmaxes


def main() -> dict:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=60, help="validation narratives (idiom and simile, half each)")
    args = p.parse_args()
    import torch

    from studio.lab.continuation import data
    from studio.models import get_registry
    from studio.models.loaders.split_package import resolve_model_path
    from studio.models.loaders.lm import _load_dir, converted_dir

    lm = get_registry().get("lm")
    if "int4" not in lm.backend:
        raise SystemExit(f"the served LM is not 4-bit here: {lm.backend}")
    reference = _load_dir(str(converted_dir(Path(resolve_model_path(lm.model_id)))),
                          "float32", "float32").model
    items = [it for kind in data.KINDS for it in data.split(kind)[1][: args.n // 2]]
    result = {"narratives": len(items), "torch_threads": torch.get_num_threads()}
    per_model = {}
    for name, model in (("float32", reference), ("served 4-bit", lm.model)):
        started, logps, argmaxes = time.perf_counter(), [], []
        for it in items:
            lp, am = teacher_forced(model, lm.tokenizer, it.narrative, it.gold)
            logps += lp
            argmaxes += am
        per_model[name] = (logps, argmaxes, time.perf_counter() - started)
    (lp32, am32, t32), (lp4, am4, t4) = per_model["float32"], per_model["served 4-bit"]
    result.update({
        "gold_tokens": len(lp32),
        "mean_gold_logprob": {"float32": round(sum(lp32) / len(lp32), 4),
                              "served 4-bit": round(sum(lp4) / len(lp4), 4)},
        "next_token_argmax_agreement": round(sum(a == b for a, b in zip(am32, am4)) / len(am32), 4),
        "mean_abs_logprob_difference": round(sum(abs(a - b) for a, b in zip(lp32, lp4)) / len(lp32), 4),
        "seconds": {"float32": round(t32, 2), "served 4-bit": round(t4, 2)},
    })
    print(json.dumps(with_cpu(result), indent=2))
    return result


if __name__ == "__main__":
    main()
