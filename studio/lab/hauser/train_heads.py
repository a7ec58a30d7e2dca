"""`python -m studio train sentiment`: the offline profile's sentiment head on frozen embedder features.

Deterministic for a given seed: the data split, the initialisation and the batch order all derive from it.
Embeddings are cached on disk (studio/embeddings.py), so a re-run only pays for the (seconds-long) training.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

from ...errors import InputError, parse_options
from ...models import get_registry
from ...models.heads import HeadConfig, build_module, save_head
from ...models.specs import HEADS_DIR
from ...embeddings import embed_cached
from .paths import data_file

SENTIMENT_LABELS = ["negative", "positive"]
MAX_HEAD_BYTES = 5 * 2**20


def _log(message: str) -> None:
    print(f"[train] {message}", file=sys.stderr, flush=True)


def _split(n: int, held_out: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    order = rng.permutation(n)
    cut = int(round(n * held_out))
    return np.sort(order[cut:]), np.sort(order[:cut])


def _fit(x: np.ndarray, y: np.ndarray, cfg: HeadConfig, seed: int, epochs: int, lr: float, weight_decay: float,
         val_fraction: float = 0.1):
    """Adam with early stopping on a seeded validation slice of the training data; returns the best module."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    fit_idx, val_idx = _split(len(x), val_fraction, rng)
    xt, yt = torch.from_numpy(x[fit_idx]), torch.from_numpy(y[fit_idx])
    xv, yv = torch.from_numpy(x[val_idx]), torch.from_numpy(y[val_idx])
    module = build_module(cfg)
    opt = torch.optim.AdamW(module.parameters(), lr=lr, weight_decay=weight_decay)
    loss_fn = torch.nn.CrossEntropyLoss()
    best = (-1.0, 0, None)
    patience, batch = 4, 256
    for epoch in range(epochs):
        module.train()
        perm = torch.from_numpy(rng.permutation(len(xt)))
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss_fn(module(xt[idx]), yt[idx]).backward()
            opt.step()
        module.eval()
        with torch.inference_mode():
            acc = float((module(xv).argmax(-1) == yv).float().mean())
        if acc > best[0]:
            best = (acc, epoch + 1, {k: v.clone() for k, v in module.state_dict().items()})
        elif epoch + 1 - best[1] >= patience:
            break
    module.load_state_dict(best[2])
    module.eval()
    return module, {"validation_accuracy": round(best[0], 4), "epochs": best[1]}


def _accuracy(module, x: np.ndarray, y: np.ndarray) -> float:
    import torch

    with torch.inference_mode():
        return round(float((module(torch.from_numpy(x)).argmax(-1).numpy() == y).mean()), 4)


def _common_args(prog: str, out: Path, hidden: int) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"python -m studio train {prog}")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--hidden", type=int, default=hidden, help="hidden units (0: a linear head)")
    p.add_argument("--epochs", type=int, default=40, help="upper bound; training stops early on validation")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--out", type=Path, default=out, help="head folder (the offline profile reads %(default)s)")
    return p



def _embedder():
    import torch

    torch.set_num_threads(2)  # the target machine's core count; also keeps float reductions reproducible
    return get_registry().get("embedder")


def _save(args, cfg: HeadConfig, module) -> dict:
    save_head(args.out, cfg, module)
    size = (Path(args.out) / "head.safetensors").stat().st_size
    if size > MAX_HEAD_BYTES:
        raise InputError(f"the head is {size / 2**20:.1f} MB, over the 5 MB budget: lower --hidden")
    return {"head": str(args.out), "bytes": size, "embedder": cfg.embedder, "metrics": cfg.metrics}


def _sst2(name: str) -> tuple[list[str], np.ndarray]:
    with open(data_file("sentiment", name), encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        if len(header) < 2 or header[0] != "label":  # train names the text column "sentence", dev "content"
            raise InputError(f"{name}: expected the columns label, text; found {header}")
        rows = [(r[1], int(r[0])) for r in reader if len(r) >= 2]
    return [r[0] for r in rows], np.array([r[1] for r in rows], dtype=np.int64)


def train_sentiment(argv: list[str]) -> dict:
    args = parse_options(_common_args("sentiment", HEADS_DIR / "sentiment", hidden=0), argv)
    start = time.perf_counter()
    embedder = _embedder()
    train_texts, y = _sst2("sst2_train.tsv")
    dev_texts, y_dev = _sst2("sst2_dev.tsv")
    x = _encode(embedder, train_texts)
    x_dev = _encode(embedder, dev_texts)
    cfg = HeadConfig("single", embedder.dim, args.hidden, SENTIMENT_LABELS, embedder=embedder.model_id)
    _log(f"training the sentiment head on {len(x):,} phrases")
    module, fit = _fit(x, y, cfg, args.seed, args.epochs, args.lr, weight_decay=1e-2, val_fraction=0.05)
    cfg.metrics = {"sst2_dev_accuracy": _accuracy(module, x_dev, y_dev), "sst2_dev_n": len(y_dev), **fit,
                   "train_phrases": len(x), "seed": args.seed, "seconds": round(time.perf_counter() - start, 1)}
    cfg.notes = f"features of {embedder.model_id}; trained by `python -m studio train sentiment` on SST-2 train"
    return _save(args, cfg, module)


def _encode(embedder, texts):
    """The training texts' embeddings through the one embedding cache, with a line on stderr while it works."""
    return embed_cached(embedder, list(texts), "hauser-heads",
                        lambda done, todo: _log(f"embedded {done:,} of {todo:,} new texts") if done == todo else None,
                        chunk=1024)
