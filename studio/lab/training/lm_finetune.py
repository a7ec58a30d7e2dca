"""The one training loop for LoRA deltas of the offline `lm` (Polish's polisher, Continue's generator): each
example is a prompt and a completion, the loss covers the completion only (its vocabulary projection runs on those
positions alone), AdamW with a short warm-up and linear decay, bf16 autocast where the CPU has it, a time budget,
and the dev part choosing the epoch by its loss. Training only: serving never imports this module."""
from __future__ import annotations

import contextlib
import json
import random
import time
from pathlib import Path

from ...models.loaders.common import fast_bfloat16


def add_arguments(ap, *, examples: int, dev_examples: int, batch_size: int, out: Path | None) -> None:
    ap.add_argument("--examples", type=int, default=examples, help="training examples drawn from the train part")
    ap.add_argument("--dev-examples", type=int, default=dev_examples)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=32.0)
    ap.add_argument("--layers", default="all", help="decoder layers to adapt: all, or FIRST-LAST (e.g. 15-29)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-size", type=int, default=batch_size)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-minutes", type=float, default=40.0, help="stop (and keep the best) after this long")
    ap.add_argument("--out", default=None if out is None else str(out))


def encode(tokenizer, rows: list[dict], max_completion_tokens: int = 64) -> list[tuple[list[int], int]]:
    """(token ids, where the completion starts) per {"prompt", "completion"} row; the completion ends in EOS."""
    out = []
    for r in rows:
        p = tokenizer(r["prompt"], add_special_tokens=False)["input_ids"]
        c = tokenizer(" " + r["completion"].strip(), add_special_tokens=False)["input_ids"][:max_completion_tokens]
        out.append((p + c + [tokenizer.eos_token_id], len(p)))
    return out


def batches(encoded, batch_size: int, rng: random.Random) -> list[list[int]]:
    """Indices in batches of similar lengths (little padding), the batches in random order."""
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    chunks = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(chunks)
    return chunks


def completion_loss(model, encoded, idx, pad_id):
    """Summed cross-entropy of the completion tokens of the batch `idx`, and their count."""
    import torch

    seqs = [encoded[i] for i in idx]
    width = max(len(s) for s, _ in seqs)
    ids = torch.tensor([s + [pad_id] * (width - len(s)) for s, _ in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s, _ in seqs])
    target = torch.zeros_like(ids, dtype=torch.bool)
    for row, (s, start) in enumerate(seqs):
        target[row, start:len(s)] = True
    hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
    logits = model.lm_head(hidden[:, :-1][target[:, 1:]]).float()
    loss = torch.nn.functional.cross_entropy(logits, ids[:, 1:][target[:, 1:]], reduction="sum")
    return loss, int(target[:, 1:].sum())


def dev_loss(model, encoded, batch_size, pad_id, autocast) -> float:
    import torch

    total = tokens = 0.0
    with torch.inference_mode(), autocast():
        for start in range(0, len(encoded), batch_size):
            loss, n = completion_loss(model, encoded, list(range(start, min(start + batch_size, len(encoded)))), pad_id)
            total, tokens = total + float(loss), tokens + n
    return total / max(tokens, 1)


def train_delta(args, train_rows: list[dict], dev_rows: list[dict], command: str, base_role: str = "lm") -> dict:
    """Fit a LoRA delta of the registry's `lm` (or `base_role`) on the rows ({"prompt", "completion"}) and save the
    best epoch (by dev loss) to args.out; the run's record (options, losses, timing) is returned."""
    import torch

    from .lm_delta_train import attach_lora, save_delta, trainable_base

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    model, tokenizer, base_id = trainable_base(base_role)
    n_layers = model.config.num_hidden_layers
    if args.layers == "all":
        layers = set(range(n_layers))
    else:
        first, last = (int(x) for x in args.layers.split("-"))
        layers = set(range(first, last + 1))
    wrapped = attach_lora(model, args.rank, args.alpha, layers, seed=args.seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    train_enc, dev_enc = encode(tokenizer, train_rows), encode(tokenizer, dev_rows)
    use_bf16 = fast_bfloat16()

    def autocast():
        return torch.autocast("cpu", dtype=torch.bfloat16) if use_bf16 else contextlib.nullcontext()

    steps_total = args.epochs * -(-len(train_enc) // args.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 20) * max(0.05, 1 - s / max(steps_total, 1)))
    model.eval()
    history = [{"epoch": 0, "dev_loss": round(dev_loss(model, dev_enc, args.batch_size, pad_id, autocast), 4)}]
    print(json.dumps(history[-1]), flush=True)
    best, step, out_of_time = None, 0, False
    deadline = started + args.max_minutes * 60
    for epoch in range(1, args.epochs + 1):
        model.train()
        running, tokens = 0.0, 0
        for idx in batches(train_enc, args.batch_size, rng):
            with autocast():
                loss, n = completion_loss(model, train_enc, idx, pad_id)
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
        dev = dev_loss(model, dev_enc, args.batch_size, pad_id, autocast)
        history.append({"epoch": epoch, "steps": step, "dev_loss": round(dev, 4), "stopped_early": out_of_time})
        print(json.dumps(history[-1]), flush=True)
        if best is None or dev < best:  # the dev part picks the epoch
            best = dev
            save_delta(model, Path(args.out), base_id, args.alpha / args.rank,
                       {"epoch": epoch, "dev_loss": round(dev, 4)})
        if out_of_time:
            break
    return {"command": command, "base": base_id, "options": {**vars(args), "out": Path(args.out).name},
            "train_examples": len(train_rows), "dev_examples": len(dev_rows), "trained_steps": step,
            "wrapped_linears": len(wrapped), "history": history, "best_dev_loss": round(best, 4),
            "minutes": round((time.perf_counter() - started) / 60, 1), "bf16_autocast": use_bf16,
            "bytes": Path(args.out).stat().st_size}
