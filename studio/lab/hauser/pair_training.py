"""The training loop of the offline MiniLM NLI classifier (`train nli-cross`): AdamW with one learning rate for the
fine-tuned layers and one for the head, linear warm-up over a tenth of the steps then linear decay, length-bucketed
batches in a seeded order, an optional time budget."""
from __future__ import annotations

import random
import time

import numpy as np


def add_training_options(p, max_length: int) -> None:
    """The options every MiniLM classifier's `train` target takes (its own go beside them)."""
    p.add_argument("--max-length", type=int, default=max_length)
    p.add_argument("--frozen-layers", type=int, default=1,
                   help="bottom transformer layers kept frozen (of 6; 0 would store 21 MB, over the 20 MB budget)")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--max-rows", type=int, default=0, help="train on a seeded subsample of this many rows (0: all)")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-budget", type=float, default=0, help="stop training after this many minutes (0: none)")
    p.add_argument("--no-save", action="store_true")


def batches(rows, tok, batch: int, rng: random.Random):
    """Length-bucketed batches: sort a shuffled pool by token count, cut into batches, shuffle the batches. A row is
    (text, text pair or None, label)."""
    order = list(range(len(rows)))
    rng.shuffle(order)
    lengths = [len(tok(rows[i][0], rows[i][1])["input_ids"]) for i in order]
    out = []
    pool = 50 * batch
    for s in range(0, len(order), pool):
        chunk = sorted(zip(lengths[s:s + pool], order[s:s + pool]))
        out += [[i for _, i in chunk[k:k + batch]] for k in range(0, len(chunk), batch)]
    rng.shuffle(out)
    return out


def fine_tune(model, tok, rows, make_batch, *, epochs: float, batch: int, lr: float, head_lr: float,
              rng: random.Random, started: float, time_budget: float = 0, log=print, bfloat16: bool = False) -> dict:
    """Train `model` (a pair_encoder PairScorer with its frozen layers set, or low-rank factors added) on `rows`;
    `make_batch(rows of a batch)` gives (inputs, labels); `bfloat16`: the forward pass under bfloat16 autocast (where
    the CPU has fast bfloat16). Returns {"losses", "steps", "total", "stopped_early"}."""
    import torch

    from ..training.pair_encoder_train import train_step

    head = [q for n, q in model.named_parameters() if n.startswith("head.")]
    body = [q for n, q in model.named_parameters() if q.requires_grad and not n.startswith("head.")]
    opt = torch.optim.AdamW([{"params": body, "lr": lr}, {"params": head, "lr": head_lr}], weight_decay=0.01)
    total = max(1, int(round((len(rows) + batch - 1) // batch * epochs)))
    warm = max(1, total // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
    log(f"{len(rows):,} training rows, {total} steps of {batch}")
    model.train()
    losses, step, stopped_early = [], 0, False
    while step < total and not stopped_early:
        for idx in batches(rows, tok, batch, rng):
            if step >= total:
                break
            if time_budget and time.perf_counter() - started > 60 * time_budget:
                stopped_early = True
                break
            x, y = make_batch([rows[i] for i in idx])
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bfloat16):
                logits = model(**x)
            losses.append(train_step(model, opt, sched, torch.nn.functional.cross_entropy(logits.float(), y)))
            step += 1
            if step % 25 == 0 or step == total:
                log(f"step {step}/{total} loss(last 25) {np.mean(losses[-25:]):.4f} "
                    f"{time.perf_counter() - started:.0f}s")
    model.eval()
    return {"losses": losses, "steps": step, "total": total, "stopped_early": stopped_early}
