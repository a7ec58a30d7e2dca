"""Bench: how close the LM's int8 prompt products come to float32, per recipe (SmoothQuant strength, which layers
stay float32), on the 12 prompts of bench/continuation.py's ensemble and 12 calibration-free narratives: next-token
argmax agreement and the mean shift of the float32 top token's log-probability at every real position, and the
prompt pass's time. The served recipe is fourbit.SMOOTH_ALPHA, fourbit.INT8_FLOAT32_LAYERS and
fourbit.INT8_ROWS_PER_SCALE.

    .venv/bin/python bench/lm_int8_prompts.py      # prints JSON
"""
from __future__ import annotations

import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "offline")
os.environ["STUDIO_LLAMACPP"] = "0"  # this bench measures the torch forms (the fallback where llama.cpp cannot run)
os.environ["STUDIO_LM_4BIT"] = "0"  # the registry's float32 lm: the reference; 4-bit copies are made here

#: (SmoothQuant strength, layers kept float32, rows per activation scale); the first is the served recipe
RECIPES = [(0.8, ("down_proj",), 32), (0.8, ("down_proj",), 10**6), (0.8, (), 32), (0.5, ("down_proj",), 32),
           (0.0, ("down_proj",), 32)]


def main() -> dict:
    import torch

    from continuation import INFERENCES, NARRATIVE
    from studio.lab.continuation.data import KINDS, split3
    from studio.continuation.generate import prompts_for
    from studio.models import get_registry
    from studio.models.loaders import fourbit
    from studio.models.loaders.lm import _load_dir, converted_dir
    from studio.models.loaders.split_package import resolve_model_path

    lm = get_registry().get("lm")
    tok, reference = lm.tokenizer, lm.model
    texts = prompts_for(NARRATIVE, INFERENCES) + [it.narrative for kind in KINDS for it in split3(kind)["dev"][:6]]
    tok.padding_side = "left"
    enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    mask = enc["attention_mask"].bool()
    with torch.inference_mode():
        ref = reference(**enc).logits.float()[mask]
    top = ref.argmax(-1)
    ref_lp = torch.log_softmax(ref, -1).gather(-1, top[:, None])
    os.environ["STUDIO_LM_4BIT"] = "1"  # the copies below are served 4-bit, their prompts int8
    peaks = fourbit.input_peaks(reference, tok)
    folder = converted_dir(Path(resolve_model_path(lm.model_id)))
    rows = []
    for alpha, float_layers, rows_per_scale in RECIPES:
        fourbit.SMOOTH_ALPHA, fourbit.INT8_FLOAT32_LAYERS = alpha, float_layers
        fourbit.INT8_ROWS_PER_SCALE = rows_per_scale
        model = _load_dir(str(folder), "float32", "float32").model
        if not fourbit.serve_4bit(model, "int8", peaks):
            raise SystemExit("this torch has no int4 kernel: nothing to compare")
        with torch.inference_mode():
            started = time.perf_counter()
            new = model(**enc).logits.float()[mask]
            seconds = time.perf_counter() - started
        lp = torch.log_softmax(new, -1).gather(-1, top[:, None])
        rows.append({"smooth_alpha": alpha, "float32_layers": list(float_layers), "rows_per_scale": rows_per_scale,
                     "argmax_agreement": round(float((new.argmax(-1) == top).float().mean()), 3),
                     "mean_top_logprob_shift": round(float((ref_lp - lp).abs().mean()), 3),
                     "prompt_pass_s": round(seconds, 3)})
    result = {"texts": len(texts), "positions": int(mask.sum()), "recipes": rows,
              "load_average": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(with_cpu(result), indent=2))
    return result


if __name__ == "__main__":
    main()
