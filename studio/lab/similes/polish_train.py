"""`python -m studio train polish`: fine-tune a LoRA delta of the offline `lm` on literal → simile pairs (the
polisher, which scores Polish's candidates); `--base writer`: of the `writer` (Polish's proposals, `polish_writer`).

Each example is `Literal: <literal>\\nSimile: <the sentence with the simile inserted><eos>`; the loss covers the
completion only, so the insertion point and the phrase are learned together. Pairs: studio/lab/similes/polish_data.py
(train part only; the dev part picks the epoch by its loss, the test part is never read here). Writes
assets/similes/polish_lora.safetensors (float16, ≤ 20 MB) and assets/similes/polish_lora.json (the run: options,
losses, timing). The training loop is studio/lab/training/lm_finetune.py (shared with Continue's generator).
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from ...atomic import atomic_write
from ...paths import ASSETS, PROJECT_ROOT
from ...models.specs import POLISH_WRITER_DELTA, POLISHER_DELTA

DELTA_PATH = POLISHER_DELTA
RUN_PATH = ASSETS / "similes" / "polish_lora.json"
#: --base writer: its defaults are the shipped run's (60 minutes on 2 AVX2 cores, 199 steps; 13 MB: rank 8 on layers
#: 8-27 keeps the delta under 20 MB and the backward pass short)
WRITER_DEFAULTS = {"examples": 2000, "dev_examples": 200, "rank": 8, "alpha": 16.0, "layers": "8-27", "lr": 5e-4,
                   "batch_size": 8, "threads": 2, "max_minutes": 55.0}
WRITER_DELTA_PATH = POLISH_WRITER_DELTA
WRITER_RUN_PATH = ASSETS / "similes" / "polish_writer_lora.json"
SOURCE_SHARE = {"hauser": 0.6, "spgc": 0.2, "quizzes": 0.05, "general_corpus": 0.05, "figurative": 0.1}


def _relative(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return Path(path).name


def build_examples(pairs: list[dict], n: int, seed: int) -> list[dict]:
    """At most n pairs, drawn per source by SOURCE_SHARE (seeded), short ones only."""
    rng = random.Random(seed)
    by_source: dict[str, list[dict]] = {}
    for r in pairs:
        if len(r["simile"].split()) <= 32 and not r["literal"].rstrip().endswith(","):
            by_source.setdefault(r["source"], []).append(r)
    out = []
    for source, rows in sorted(by_source.items()):
        rng.shuffle(rows)
        out += rows[:int(round(n * SOURCE_SHARE.get(source, 0.0)))]
    rng.shuffle(out)
    return out


def train(argv: list[str]) -> dict:
    from ..training.lm_finetune import add_arguments, train_delta
    from .polish_data import all_pairs, prompt

    ap = argparse.ArgumentParser(prog="python -m studio train polish")
    ap.add_argument("--base", choices=("lm", "writer"), default="lm",
                    help="the model the delta adapts: lm (the polisher) or writer (Polish's proposals)")
    add_arguments(ap, examples=3000, dev_examples=300, batch_size=16, out=None)
    if ap.parse_known_args(argv)[0].base == "writer":
        ap.set_defaults(**WRITER_DEFAULTS)  # what is given on the command line still wins
    args = ap.parse_args(argv)
    delta_path, run_path = (WRITER_DELTA_PATH, WRITER_RUN_PATH) if args.base == "writer" else (DELTA_PATH, RUN_PATH)
    args.out = args.out or str(delta_path)
    parts = all_pairs()

    def rows(pairs):
        return [{"prompt": prompt(r["literal"]), "completion": r["simile"]} for r in pairs]

    run = train_delta(args, rows(build_examples(parts["train"], args.examples, args.seed)),
                      rows(build_examples(parts["dev"], args.dev_examples, args.seed)),
                      "python -m studio train polish " + " ".join(argv), base_role=args.base)
    run["options"]["out"] = _relative(args.out)
    if Path(args.out).resolve() == delta_path.resolve():
        atomic_write(run_path, json.dumps(run, indent=1) + "\n")
    return run
