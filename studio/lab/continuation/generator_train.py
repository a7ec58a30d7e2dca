"""`python -m studio train continuation`: fine-tune a LoRA delta of the offline `lm` to continue a figurative
narrative with its plausible continuation (the `option` marked by `correctanswer`) — the paper's generation task —
on the train part of ../shared/data/figurative (data.split3: by expression; dev picks the epoch by its loss; the
test part is never read here). Each example is prompting.generator_prompt(narrative, expression, meaning) followed
by " <gold continuation><eos>"; the meaning line is dropped from a share of the examples (`--no-meaning-share`) so
that the generator also works for an idiom the lexicon does not know. The loss covers the continuation only.
The training loop is studio/lab/training/lm_finetune.py (shared with the polisher); writes assets/continuation/generator_lora.*.
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from ...atomic import atomic_write
from ...continuation.prompting import generator_prompt
from ...models.specs import CONTINUATION_GENERATOR as DELTA_PATH

RUN_PATH = DELTA_PATH.with_suffix(".json")


def examples(items, seed: int, no_meaning_share: float) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for it in items:
        meaning = it.knowledge if rng.random() >= no_meaning_share else ""
        out.append({"prompt": generator_prompt(it.narrative, it.expression, meaning), "completion": it.gold})
    rng.shuffle(out)
    return out


def train(argv: list[str]) -> dict:
    from ..training.lm_finetune import add_arguments, train_delta
    from .data import KINDS, split3

    ap = argparse.ArgumentParser(prog="python -m studio train continuation")
    add_arguments(ap, examples=2000, dev_examples=200, batch_size=8, out=DELTA_PATH)
    ap.add_argument("--no-meaning-share", type=float, default=0.3,
                    help="share of training examples whose prompt gives no meaning")
    args = ap.parse_args(argv)
    parts = {p: [it for kind in KINDS for it in split3(kind)[p]] for p in ("train", "dev")}
    run = train_delta(args, examples(parts["train"], args.seed, args.no_meaning_share)[:args.examples],
                      examples(parts["dev"], args.seed + 1, args.no_meaning_share)[:args.dev_examples],
                      "python -m studio train continuation " + " ".join(argv))
    if Path(args.out).resolve() == DELTA_PATH.resolve():
        atomic_write(RUN_PATH, json.dumps(run, indent=1) + "\n")
    return run
