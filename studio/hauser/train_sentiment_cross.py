"""`python -m studio train sentiment-cross`: the offline profile's sentiment model, MiniLM fine-tuned as a binary
classifier of one text (studio.models.pair_encoder: all-MiniLM-L6-v2, the offline `embedder`'s weights, top layers
fine-tuned, a linear 2-way classifier on the mean of all token states), trained on SST-2 train
(studio.evaluation.sentiment.splits: the dev and test halves of `sst2_dev.tsv` are never trained on).

It costs the same pass per text as the served linear head on frozen sentence embeddings (SST-2 0.81) and reaches
0.89, but it made HAUSER's quality agree less with people on the rated dev half (docs/hauser.md), so it is not served:
`STUDIO_MODEL_SENTIMENT=DIR` selects a trained folder. Batches are drawn from length-sorted buckets, the order seeded.
Weights: float16 safetensors of the fine-tuned layers and the classifier only (17 MB), in DIR.

    python -m studio train sentiment-cross --out DIR        # the run of docs/experiments.md (8 min on 2 cores)
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from ..errors import InputError, parse_options
from ..models.pair_sentiment import SENTIMENT_LABELS
from .pair_training import add_training_options, fine_tune


def _log(message: str) -> None:
    print(f"[train sentiment-cross] {message}", file=sys.stderr, flush=True)


def train(argv: list[str]) -> dict:
    import torch

    from ..evaluation.sentiment import accuracy, splits
    from ..models.pair_encoder import BASE_MODEL, load_base, save_pair_encoder
    from ..models.pair_sentiment import CrossEncoderSentiment

    p = argparse.ArgumentParser(prog="python -m studio train sentiment-cross")
    add_training_options(p, max_length=64)
    p.add_argument("--out", type=Path, required=True, help="the folder to write (not served unless "
                   "STUDIO_MODEL_SENTIMENT names it)")
    args = parse_options(p, argv)
    if args.batch < 1 or args.epochs <= 0 or args.max_length < 8 or not 0 <= args.frozen_layers <= 6:
        raise InputError("--batch must be ≥ 1, --epochs > 0, --max-length ≥ 8 and --frozen-layers 0–6")
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    data = splits()
    rows = [(text, None, label) for text, label in data["train"]]
    rng.shuffle(rows)
    if args.max_rows:
        rows = rows[:args.max_rows]
    tok, model = load_base(BASE_MODEL, outputs=len(SENTIMENT_LABELS), pool="all", truncation_side="right")
    model.freeze_below(args.frozen_layers)

    def make_batch(b):
        x = tok([r[0] for r in b], truncation=True, max_length=args.max_length, padding=True, return_tensors="pt")
        return x, torch.tensor([r[2] for r in b])  # SST-2: 0 negative, 1 positive, the order of SENTIMENT_LABELS

    run = fine_tune(model, tok, rows, make_batch, epochs=args.epochs, batch=args.batch, lr=args.lr,
                    head_lr=args.head_lr, rng=rng, started=started, time_budget=args.time_budget, log=_log)
    losses, step, total = run["losses"], run["steps"], run["total"]
    train_seconds = round(time.perf_counter() - started, 1)
    config = {"base": BASE_MODEL, "kind": "sentiment", "labels": list(SENTIMENT_LABELS), "pool": "all",
              "truncation_side": "right", "max_length": args.max_length, "frozen_layers": args.frozen_layers,
              "notes": "MiniLM (all-MiniLM-L6-v2) fine-tuned on SST-2 train",
              "recipe": {"epochs": args.epochs, "rows": len(rows), "steps_planned": total, "steps": step,
                         "batch": args.batch, "lr": args.lr, "head_lr": args.head_lr, "seed": args.seed,
                         "train_seconds": train_seconds,
                         "final_loss": round(float(np.mean(losses[-50:])), 4) if losses else None,
                         "command": "python -m studio train sentiment-cross " + " ".join(argv)}}
    model_view = CrossEncoderSentiment(config, tok, model, str(args.out))
    # dev only: test is measured by `python -m studio eval sentiment`, never looked at while choosing
    config["metrics"] = {"sst2 / dev": {"accuracy": round(accuracy(model_view, data["dev"]), 4),
                                        "n": len(data["dev"])}}
    _log(f"dev: {config['metrics']}")
    if not args.no_save:
        args.out.mkdir(parents=True, exist_ok=True)
        save_pair_encoder(args.out, model, config)
    return {**config, "saved_to": None if args.no_save else str(args.out),
            "seconds": round(time.perf_counter() - started, 1)}
