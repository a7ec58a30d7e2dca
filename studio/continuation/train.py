"""`python -m studio train judge`: the plausibility judge, trained pairwise on the training part of
../shared/data/figurative (both idioms and similes; the validation part, split by idiom / by simile, is never
seen). Every training narrative also appears once with its meaning/property hidden, so the judge keeps working
when the studio does not know what an expression means. Candidate scorers are compared on an inner split of the
training part (also by expression); the best is retrained on the whole training part and written to
assets/continuation/judge/, with its validation accuracy per type for every scorer tried."""
from __future__ import annotations

import argparse
import time

import numpy as np

from ..models import get_registry
from ..models import heads as heads_io
from . import data
from .embcache import encode_cached
from .features import Case, embed_cases, option_features
from .judge import JUDGE_DIR, option_dim

#: (name, hidden units, epochs, weight decay); hidden 0 is a linear scorer (pairwise logistic regression)
CANDIDATES = (("linear", 0, 15, 1e-2), ("mlp-64", 64, 10, 1e-2))


def featurize(items, *, hide_knowledge: bool = False):
    cases = [Case(it.narrative, it.expression, "" if hide_knowledge else it.knowledge, it.kind) for it in items]
    ctx, o1, o2, present = embed_cases(cases, [it.option1 for it in items], [it.option2 for it in items],
                                       encode_cached)
    y = np.array([it.label for it in items], dtype=np.float32)
    return option_features(ctx, o1, present), option_features(ctx, o2, present), y


def _stack(parts):
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def fit(f1, f2, y, hidden: int, epochs: int, weight_decay: float, seed: int = 0):
    import torch

    cfg = heads_io.HeadConfig("single", f1.shape[1], hidden, ["plausibility"], notes=f"pairwise scorer h={hidden}")
    torch.manual_seed(seed)
    module = heads_io.build_module(cfg)
    opt = torch.optim.AdamW(module.parameters(), lr=1e-3, weight_decay=weight_decay)
    a, b, t = torch.from_numpy(f1), torch.from_numpy(f2), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        module.train()
        order = torch.randperm(len(t), generator=gen)
        for i in range(0, len(t), 64):
            idx = order[i:i + 64]
            logit = (module(b[idx]) - module(a[idx])).squeeze(-1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    module.eval()
    return cfg, module


def accuracy(module, f1, f2, y) -> float:
    import torch

    with torch.inference_mode():
        diff = (module(torch.from_numpy(f2)) - module(torch.from_numpy(f1))).squeeze(-1).numpy()
    return round(float(np.mean((diff > 0) == (y > 0.5))), 4)


def cosine_baseline(f1, f2, y, slot: int) -> float:
    """Pick the option closer to one context (its index in features.CONTEXTS)."""
    from .features import CONTEXTS

    col = -len(CONTEXTS) + slot
    return round(float(np.mean((f2[:, col] > f1[:, col]) == (y > 0.5))), 4)


def _inner_split(items):
    import hashlib

    inner_train, inner_val = [], []
    for it in items:
        h = int(hashlib.sha1(f"inner|{it.kind}|{it.group}".encode()).hexdigest()[:8], 16)
        (inner_val if h % 5 == 0 else inner_train).append(it)
    return inner_train, inner_val


def train_judge(argv: list[str]) -> dict:
    p = argparse.ArgumentParser(prog="python -m studio train judge")
    p.add_argument("--no-save", action="store_true", help="measure only; keep the committed judge")
    p.add_argument("--scorer", default="auto", choices=["auto"] + [c[0] for c in CANDIDATES],
                   help="auto: the best on the inner split of the training part")
    args = p.parse_args(argv)
    started = time.perf_counter()
    embedder = get_registry().get("embedder")
    train_items, val_items = [], {}
    for kind in data.KINDS:
        tr, va = data.split(kind)
        train_items += tr
        val_items[kind] = va
    inner_tr, inner_va = _inner_split(train_items)
    train_sets = _stack([featurize(inner_tr), featurize(inner_tr, hide_knowledge=True)])
    inner_sets = featurize(inner_va)
    selection = {}
    if args.scorer == "auto":
        for name, hidden, epochs, wd in CANDIDATES:
            _, module = fit(*train_sets, hidden, epochs, wd)
            selection[name] = accuracy(module, *inner_sets)
        best = max(CANDIDATES, key=lambda c: selection[c[0]])
    else:
        best = next(c for c in CANDIDATES if c[0] == args.scorer)
    full = _stack([featurize(train_items), featurize(train_items, hide_knowledge=True)])
    val = {k: featurize(v) for k, v in val_items.items()}
    val_hidden = {k: featurize(v, hide_knowledge=True) for k, v in val_items.items()}
    report, chosen = {}, None
    for name, hidden, epochs, wd in CANDIDATES:
        cfg, module = fit(*full, hidden, epochs, wd)
        report[name] = {k: accuracy(module, *val[k]) for k in val}
        report[name + " (meaning/property hidden)"] = {k: accuracy(module, *val_hidden[k]) for k in val}
        if name == best[0]:
            chosen = (cfg, module, report[name])
    for slot, label in ((2, "meaning/property"), (0, "narrative"), (3, "expression"),
                        (4, "last sentence with the expression replaced by its meaning")):
        report[f"baseline: option closer to the {label}"] = {k: cosine_baseline(*val[k], slot) for k in val}
    report["majority option"] = {k: round(float(max(np.mean(v[2]), 1 - np.mean(v[2]))), 4) for k, v in val.items()}
    cfg, module, metrics = chosen
    cfg.embedder, cfg.notes = embedder.model_id, f"{best[0]} pairwise judge"
    cfg.metrics = {"validation_accuracy": metrics, "all_scorings": report, "inner_selection": selection,
                   "train_rows": len(train_items), "validation_rows": {k: len(v) for k, v in val_items.items()}}
    assert cfg.input_dim == option_dim(embedder.dim)
    if not args.no_save:
        heads_io.save_head(JUDGE_DIR, cfg, module)
    return {"chosen": best[0], "saved_to": None if args.no_save else str(JUDGE_DIR.relative_to(JUDGE_DIR.parents[2])),
            "validation_accuracy": report, "inner_selection_accuracy": selection,
            "train_rows": len(train_items), "validation_rows": {k: len(v) for k, v in val_items.items()},
            "embedder": embedder.model_id, "seconds": round(time.perf_counter() - started, 1)}
