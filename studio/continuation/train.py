"""`python -m studio train judge`: the plausibility judge, trained pairwise on the training part of
../shared/data/figurative (both idioms and similes; the validation part, split by idiom / by simile, is never
seen). Every training narrative also appears once with its meaning/property hidden, so the judge keeps working
when the studio does not know what an expression means.

A scorer is one pairwise model or the average of several (an ensemble). Scorers are compared by 5-fold cross-
validation on the training part, folds split by expression like the validation part, on the mean of the idiom and
simile accuracies (one inner split of ~400 idiom rows was too noisy to choose between scorers); the best is
retrained on the whole training part and written to assets/continuation/judge/. The validation accuracy of every
scorer tried is reported, never used to choose."""
from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np

from ..models import get_registry
from ..models import heads as heads_io
from . import data
from .embedded_texts import encode_cached
from .features import Case, embed_cases, option_features
from ..models.judge_head import JUDGE_DIR, in_features, save_judge
from .judge import option_dim

#: pairwise members: name -> (hidden units, epochs, weight decay, seed); hidden 0 is pairwise logistic regression
MEMBERS = {"linear": (0, 15, 1e-2, 0), "mlp-64": (64, 10, 1e-2, 0), "mlp-64 seed 1": (64, 10, 1e-2, 1),
           "mlp-64 seed 2": (64, 10, 1e-2, 2)}
#: scorers: name -> the members whose scores are averaged
SCORERS = {"linear": ("linear",), "mlp-64": ("mlp-64",), "linear + mlp-64": ("linear", "mlp-64"),
           "mlp-64 x3 seeds": ("mlp-64", "mlp-64 seed 1", "mlp-64 seed 2"),
           "linear + mlp-64 x3 seeds": ("linear", "mlp-64", "mlp-64 seed 1", "mlp-64 seed 2")}
INNER_FOLDS = 5


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


def margin(module, f1, f2) -> np.ndarray:
    """score(option2) - score(option1) per row."""
    import torch

    with torch.inference_mode():
        return (module(torch.from_numpy(f2)) - module(torch.from_numpy(f1))).squeeze(-1).numpy()


def _accuracy(margins: np.ndarray, y) -> float:
    return round(float(np.mean((margins > 0) == (y > 0.5))), 4)


def _fit_members(train_sets, eval_sets: dict) -> tuple[dict, dict]:
    """Every member fitted once on train_sets: ({member: module}, {member: {set name: margins}})."""
    modules, margins = {}, {}
    for name, (hidden, epochs, wd, seed) in MEMBERS.items():
        _, modules[name] = fit(*train_sets, hidden, epochs, wd, seed=seed)
        margins[name] = {k: margin(modules[name], f1, f2) for k, (f1, f2, _) in eval_sets.items()}
    return modules, margins


def _scorer_accuracy(margins: dict, eval_sets: dict) -> dict:
    return {scorer: {k: _accuracy(np.mean([margins[m][k] for m in members], axis=0), eval_sets[k][2])
                     for k in eval_sets} for scorer, members in SCORERS.items()}


def cosine_baseline(f1, f2, y, slot: int) -> float:
    """Pick the option closer to one context (its index in features.CONTEXTS)."""
    from .features import CONTEXTS

    col = -len(CONTEXTS) + slot
    return round(float(np.mean((f2[:, col] > f1[:, col]) == (y > 0.5))), 4)


def inner_fold(item) -> int:
    return int(hashlib.sha1(f"inner|{item.kind}|{item.group}".encode()).hexdigest()[:8], 16) % INNER_FOLDS


def cross_validate(train_items) -> dict:
    """{scorer: {kind: mean accuracy over the inner folds}} — folds split by expression."""
    per_fold = []
    for fold in range(INNER_FOLDS):
        inner_tr = [it for it in train_items if inner_fold(it) != fold]
        inner_va = {k: featurize([it for it in train_items if inner_fold(it) == fold and it.kind == k])
                    for k in data.KINDS}
        _, margins = _fit_members(_stack([featurize(inner_tr), featurize(inner_tr, hide_knowledge=True)]), inner_va)
        per_fold.append(_scorer_accuracy(margins, inner_va))
    return {s: {k: round(float(np.mean([f[s][k] for f in per_fold])), 4) for k in data.KINDS} for s in SCORERS}


def train_judge(argv: list[str]) -> dict:
    """The cross-encoder judge (studio.continuation.crossjudge); `--legacy` trains the old scorer over frozen
    embedder features (kept only as the fallback when the cross-encoder's weights are absent)."""
    if "--legacy" not in argv:
        from .crossjudge import train

        return train(argv)
    argv = [a for a in argv if a != "--legacy"]
    p = argparse.ArgumentParser(prog="python -m studio train judge --legacy")
    p.add_argument("--no-save", action="store_true", help="measure only; keep the committed judge")
    p.add_argument("--scorer", default="auto", choices=["auto", *SCORERS],
                   help="auto: the best by cross-validation on the training part")
    args = p.parse_args(argv)
    started = time.perf_counter()
    embedder = get_registry().get("embedder")
    train_items, val_items = [], {}
    for kind in data.KINDS:
        tr, va = data.split(kind)
        train_items += tr
        val_items[kind] = va
    selection = cross_validate(train_items)
    best = max(SCORERS, key=lambda s: np.mean(list(selection[s].values()))) if args.scorer == "auto" else args.scorer
    full = _stack([featurize(train_items), featurize(train_items, hide_knowledge=True)])
    val = {k: featurize(v) for k, v in val_items.items()}
    val_hidden = {k + " hidden": featurize(v, hide_knowledge=True) for k, v in val_items.items()}
    modules, margins = _fit_members(full, {**val, **val_hidden})
    shown = _scorer_accuracy(margins, {**val, **val_hidden})
    report = {}
    for scorer, acc in shown.items():
        report[scorer] = {k: acc[k] for k in val}
        report[scorer + " (meaning/property hidden)"] = {k: acc[k + " hidden"] for k in val}
    for slot, label in ((2, "meaning/property"), (0, "narrative"), (3, "expression"),
                        (4, "last sentence with the expression replaced by its meaning")):
        report[f"baseline: option closer to the {label}"] = {k: cosine_baseline(*val[k], slot) for k in val}
    report["majority option"] = {k: round(float(max(np.mean(v[2]), 1 - np.mean(v[2]))), 4) for k, v in val.items()}
    metrics = {"validation_accuracy": report[best], "all_scorings": report,
               "inner_selection": {"method": f"{INNER_FOLDS}-fold cross-validation on the training part, "
                                             "folds by idiom / by simile; mean of the two accuracies",
                                   "accuracy": selection},
               "train_rows": len(train_items), "validation_rows": {k: len(v) for k, v in val_items.items()}}
    members = [(m, MEMBERS[m][0], modules[m]) for m in SCORERS[best]]
    assert all(in_features(mod) == option_dim(embedder.dim) for _, _, mod in members)
    if not args.no_save:
        save_judge(JUDGE_DIR, members, embedder=embedder.model_id, notes=f"{best} pairwise judge", metrics=metrics)
    return {"chosen": best, "saved_to": None if args.no_save else str(JUDGE_DIR.relative_to(JUDGE_DIR.parents[2])),
            "validation_accuracy": report, "inner_selection_accuracy": selection,
            "train_rows": len(train_items), "validation_rows": {k: len(v) for k, v in val_items.items()},
            "embedder": embedder.model_id, "seconds": round(time.perf_counter() - started, 1)}

