"""`python -m studio train polish`: fine-tune a LoRA delta of the offline `lm` on literal → simile pairs.

Each example is `Literal: <literal>\\nSimile: <the sentence with the simile inserted><eos>`; the loss covers the
completion only, so the insertion point and the phrase are learned together. Pairs: studio/similes/polish_data.py
(train part only; the dev part picks the epoch by its loss, the test part is never read here). Writes
assets/similes/polish_lora.safetensors (float16, ≤ 20 MB) and assets/similes/polish_lora.json (the run: options,
losses, timing). One torch thread by default (the machine is shared); bf16 autocast where the CPU has bf16.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from ..atomic import atomic_write
from ..models.config import ASSETS
from ..models.specs import POLISHER_DELTA

DELTA_PATH = POLISHER_DELTA
RUN_PATH = ASSETS / "similes" / "polish_lora.json"
SOURCE_SHARE = {"hauser": 0.6, "spgc": 0.2, "quizzes": 0.05, "general_corpus": 0.05, "figurative": 0.1}


def _relative(path: str) -> str:
    from ..models.config import PROJECT_ROOT

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


def _encode(tokenizer, rows: list[dict]):
    from .polish_data import prompt

    encoded = []
    for r in rows:
        p = tokenizer(prompt(r["literal"]), add_special_tokens=False)["input_ids"]
        c = tokenizer(" " + r["simile"].strip(), add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
        encoded.append((p + c, len(p)))
    return encoded


def _batches(encoded, batch_size: int, rng: random.Random):
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    chunks = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(chunks)
    return chunks


def _loss(model, encoded, idx, pad_id):
    import torch

    seqs = [encoded[i] for i in idx]
    width = max(len(s) for s, _ in seqs)
    ids = torch.tensor([s + [pad_id] * (width - len(s)) for s, _ in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s, _ in seqs])
    labels = ids.clone()
    for row, (s, start) in enumerate(seqs):
        labels[row, :start] = -100
        labels[row, len(s):] = -100
    logits = model(input_ids=ids, attention_mask=mask).logits.float()
    logp = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1),
                                             ignore_index=-100, reduction="sum")
    return logp, int((labels[:, 1:] != -100).sum())


def _dev_loss(model, encoded, batch_size, pad_id, autocast) -> float:
    import torch

    total = tokens = 0.0
    with torch.inference_mode(), autocast():
        for start in range(0, len(encoded), batch_size):
            loss, n = _loss(model, encoded, list(range(start, min(start + batch_size, len(encoded)))), pad_id)
            total, tokens = total + float(loss), tokens + n
    return total / max(tokens, 1)


def train(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(prog="python -m studio train polish")
    ap.add_argument("--examples", type=int, default=3000, help="training pairs drawn from the train part")
    ap.add_argument("--dev-examples", type=int, default=300)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--layers", default="all", help="decoder layers to adapt: all, or FIRST-LAST (e.g. 15-29)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-minutes", type=float, default=40.0, help="stop (and keep the best) after this long")
    ap.add_argument("--out", default=str(DELTA_PATH))
    args = ap.parse_args(argv)

    import contextlib

    import torch

    from ..models.loaders.common import fast_bfloat16
    from ..models.lm_delta import attach_lora, save_delta, trainable_base
    from .polish_data import all_pairs

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    parts = all_pairs()
    train_rows = build_examples(parts["train"], args.examples, args.seed)
    dev_rows = build_examples(parts["dev"], args.dev_examples, args.seed)
    model, tokenizer, base_id = trainable_base()
    n_layers = model.config.num_hidden_layers
    if args.layers == "all":
        layers = set(range(n_layers))
    else:
        first, last = (int(x) for x in args.layers.split("-"))
        layers = set(range(first, last + 1))
    wrapped = attach_lora(model, args.rank, args.alpha, layers, seed=args.seed)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    train_enc, dev_enc = _encode(tokenizer, train_rows), _encode(tokenizer, dev_rows)
    use_bf16 = fast_bfloat16()

    def autocast():
        return torch.autocast("cpu", dtype=torch.bfloat16) if use_bf16 else contextlib.nullcontext()

    steps_total = args.epochs * -(-len(train_enc) // args.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 20) * max(0.05, 1 - s / max(steps_total, 1)))
    history = [{"epoch": 0, "dev_loss": round(_dev_loss(model, dev_enc, args.batch_size, pad_id, autocast), 4)}]
    print(json.dumps(history[-1]), flush=True)
    best, step, out_of_time = None, 0, False
    deadline = started + args.max_minutes * 60
    for epoch in range(1, args.epochs + 1):
        model.train()
        running, tokens = 0.0, 0
        for idx in _batches(train_enc, args.batch_size, rng):
            with autocast():
                loss, n = _loss(model, train_enc, idx, pad_id)
            (loss / max(n, 1)).backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            running, tokens, step = running + float(loss.detach()), tokens + n, step + 1
            if step % 20 == 0:
                print(json.dumps({"step": step, "of": steps_total, "train_loss": round(running / tokens, 4),
                                  "minutes": round((time.perf_counter() - started) / 60, 1)}), flush=True)
                running, tokens = 0.0, 0
            if time.perf_counter() > deadline:
                out_of_time = True
                break
        model.eval()
        dev = _dev_loss(model, dev_enc, args.batch_size, pad_id, autocast)
        history.append({"epoch": epoch, "steps": step, "dev_loss": round(dev, 4), "stopped_early": out_of_time})
        print(json.dumps(history[-1]), flush=True)
        if best is None or dev < best:  # the dev part picks the epoch
            best = dev
            save_delta(model, Path(args.out), base_id, args.alpha / args.rank,
                       {"epoch": epoch, "dev_loss": round(dev, 4)})
        if out_of_time:
            break
    run = {"command": "python -m studio train polish " + " ".join(argv), "base": base_id,
           "options": {**vars(args), "out": _relative(args.out)}, "train_pairs": len(train_rows), "dev_pairs": len(dev_rows),
           "wrapped_linears": len(wrapped), "history": history, "best_dev_loss": round(best, 4),
           "minutes": round((time.perf_counter() - started) / 60, 1), "bf16_autocast": use_bf16,
           "bytes": Path(args.out).stat().st_size}
    if Path(args.out).resolve() == DELTA_PATH.resolve():
        atomic_write(RUN_PATH, json.dumps(run, indent=1) + "\n")
    return run
