"""`python -m studio train continuation`: fine-tune a LoRA delta of the offline `lm` to continue a figurative
narrative with its plausible continuation (the `option` marked by `correctanswer`) — the paper's generation task —
on the train part of ../shared/data/figurative (data.split3: by expression; dev picks the epoch by its loss; the
test part is never read here). Each example is prompting.generator_prompt(narrative, expression, meaning) followed
by " <gold continuation><eos>"; the meaning line is dropped from a share of the examples (`--no-meaning-share`) so
that the generator also works for an idiom the lexicon does not know. The loss covers the continuation only.
The training loop is the polisher's (studio/similes/polish_train.py); writes assets/continuation/generator_lora.*.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from ..atomic import atomic_write
from ..models.specs import CONTINUATION_GENERATOR as DELTA_PATH

RUN_PATH = DELTA_PATH.with_suffix(".json")


def examples(items, seed: int, no_meaning_share: float) -> list[dict]:
    from .prompting import generator_prompt

    rng = random.Random(seed)
    out = []
    for it in items:
        meaning = it.knowledge if rng.random() >= no_meaning_share else ""
        out.append({"prompt": generator_prompt(it.narrative, it.expression, meaning), "completion": it.gold})
    rng.shuffle(out)
    return out


def _loss(model, encoded, idx, pad_id):
    """Summed cross-entropy of the continuation tokens and their count. The vocabulary projection runs on those
    positions only: the prompt (four fifths of each sequence) needs no logits."""
    import torch

    seqs = [encoded[i] for i in idx]
    width = max(len(s) for s, _ in seqs)
    ids = torch.tensor([s + [pad_id] * (width - len(s)) for s, _ in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s, _ in seqs])
    target = torch.zeros_like(ids, dtype=torch.bool)
    for row, (s, start) in enumerate(seqs):
        target[row, start:len(s)] = True
    hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
    picked = hidden[:, :-1][target[:, 1:]]
    logits = model.lm_head(picked).float()
    loss = torch.nn.functional.cross_entropy(logits, ids[:, 1:][target[:, 1:]], reduction="sum")
    return loss, int(target[:, 1:].sum())


def _dev_loss(model, encoded, batch_size, pad_id, autocast) -> float:
    import torch

    total = tokens = 0.0
    with torch.inference_mode(), autocast():
        for start in range(0, len(encoded), batch_size):
            loss, n = _loss(model, encoded, list(range(start, min(start + batch_size, len(encoded)))), pad_id)
            total, tokens = total + float(loss), tokens + n
    return total / max(tokens, 1)


def train(argv: list[str]) -> dict:
    ap = argparse.ArgumentParser(prog="python -m studio train continuation")
    ap.add_argument("--examples", type=int, default=2000, help="training narratives drawn from the train part")
    ap.add_argument("--dev-examples", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--no-meaning-share", type=float, default=0.3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-minutes", type=float, default=40.0, help="stop (and keep the best) after this long")
    ap.add_argument("--out", default=str(DELTA_PATH))
    args = ap.parse_args(argv)

    import contextlib

    import torch

    from ..models.lm_delta import attach_lora, save_delta, trainable_base
    from ..models.loaders.common import fast_bfloat16
    from ..similes.polish_train import _batches
    from .data import KINDS, split3

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    parts = {p: [it for kind in KINDS for it in split3(kind)[p]] for p in ("train", "dev")}
    train_rows = examples(parts["train"], args.seed, args.no_meaning_share)[:args.examples]
    dev_rows = examples(parts["dev"], args.seed + 1, args.no_meaning_share)[:args.dev_examples]
    model, tokenizer, base_id = trainable_base()
    wrapped = attach_lora(model, args.rank, args.alpha, set(range(model.config.num_hidden_layers)), seed=args.seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id

    def encode(rows):
        out = []
        for r in rows:
            p = tokenizer(r["prompt"], add_special_tokens=False)["input_ids"]
            c = tokenizer(" " + r["completion"].strip(), add_special_tokens=False)["input_ids"][:48]
            out.append((p + c + [tokenizer.eos_token_id], len(p)))
        return out

    train_enc, dev_enc = encode(train_rows), encode(dev_rows)
    use_bf16 = fast_bfloat16()

    def autocast():
        return torch.autocast("cpu", dtype=torch.bfloat16) if use_bf16 else contextlib.nullcontext()

    steps_total = args.epochs * -(-len(train_enc) // args.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 20) * max(0.05, 1 - s / max(steps_total, 1)))
    model.eval()
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
            if step % 10 == 0:
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
    run = {"command": "python -m studio train continuation " + " ".join(argv), "base": base_id,
           "options": {**vars(args), "out": Path(args.out).name}, "train_narratives": len(train_rows),
           "trained_steps": step, "dev_narratives": len(dev_rows), "wrapped_linears": len(wrapped), "history": history,
           "best_dev_loss": round(best, 4), "minutes": round((time.perf_counter() - started) / 60, 1),
           "bf16_autocast": use_bf16, "bytes": Path(args.out).stat().st_size}
    if Path(args.out).resolve() == DELTA_PATH.resolve():
        atomic_write(RUN_PATH, json.dumps(run, indent=1) + "\n")
    return run
