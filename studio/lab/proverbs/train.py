"""`python -m studio train proverbs`: fit the learned parts of the scorer on ePiC's seen_train (training part
only; the validation part is never trained on): the linear adapter (assets/proverbs/scorer.{safetensors,json}),
and with `--what encoder|both` the fine-tuned encoder's low-rank factors (assets/proverbs/encoder_delta.{safetensors,
json}, see finetune.py)."""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ...errors import InputError
from ...atomic import atomic_write as write_atomic
from ...models import get_registry
from ...paths import PROJECT_ROOT
from .epic import SEEN_TRAIN, load_seen_train, split
from .rows import embedded_rows, labels_of
from ...proverbs.index import EMBEDDER_ROLE, get_index
from ...models.proverbs_head import ONE_PASS_CONFIG, ONE_PASS_WEIGHTS, SCORER_CONFIG, SCORER_WEIGHTS, TrainedParts
from ...proverbs.delta import DELTA_CONFIG, DELTA_PATH, class_text
from ...proverbs.scorer import Scorer, UNTRAINED_WEIGHTS, load_trained
from ...proverbs.service import finetuned_part

DEFAULTS = dict(epochs=150, lr=2e-3, adapter_decay=1e-3, offset_decay=1e-1, seed=0)


def fit(index, docs, sents, labels, epochs, lr, adapter_decay, offset_decay, seed, log=None):
    """Cross-entropy over the whole catalog; mirrors Scorer.score so that inference reproduces training."""
    import torch

    torch.manual_seed(seed)
    catalog = index.catalog
    epic = catalog.epic_indices
    d = docs.shape[1]
    text, meaning = torch.tensor(index.text), torch.tensor(index.meaning)
    protos = np.zeros((len(epic), d), np.float32)
    for k, c in enumerate(epic):
        members = docs[labels == c]
        protos[k] = members.mean(0) if len(members) else 0.0
    protos /= np.linalg.norm(protos, axis=1, keepdims=True) + 1e-6
    length = max(len(s) for s in sents)
    pad = np.zeros((len(sents), length, d), np.float32)
    mask = np.zeros((len(sents), length), bool)
    for i, s in enumerate(sents):
        pad[i, :len(s)], mask[i, :len(s)] = s, True
    n_t, s_t, m_t = torch.tensor(docs), torch.tensor(pad), torch.tensor(mask)
    y = torch.tensor(labels)
    epic_t, protos_t = torch.tensor(epic), torch.tensor(protos)

    adapter = torch.nn.Parameter(torch.eye(d))
    offsets = torch.nn.Parameter(torch.zeros(len(epic), d))
    mix = torch.nn.Parameter(torch.tensor([0.3, 0.7, 0.5]))
    weights = torch.nn.Parameter(torch.tensor(list(UNTRAINED_WEIGHTS) + [1.0, 1.0]))
    log_scale = torch.nn.Parameter(torch.tensor(3.0))
    opt = torch.optim.Adam([adapter, offsets, mix, weights, log_scale], lr=lr)

    def unit(x):
        return x / (x.norm(dim=-1, keepdim=True) + 1e-6)

    blank = torch.where(m_t[:, :, None], 0.0, -9.0)
    sent_text = (s_t @ text.T + blank).amax(1)  # fixed channels, computed once
    sent_meaning = (s_t @ meaning.T + blank).amax(1)
    doc_text, doc_meaning = n_t @ text.T, n_t @ meaning.T
    for epoch in range(epochs):
        vectors = mix[0] * text + mix[1] * meaning
        vectors = vectors.index_add(0, epic_t, mix[2] * protos_t + offsets)
        vectors = unit(vectors)
        learned_doc = unit(n_t @ adapter) @ vectors.T
        learned_sent = (unit(s_t @ adapter) @ vectors.T + blank).amax(1)
        chans = [doc_text, doc_meaning, sent_text, sent_meaning, learned_doc, learned_sent]
        logits = log_scale.exp() * sum(w * c for w, c in zip(weights, chans))
        loss = (torch.nn.functional.cross_entropy(logits, y) + adapter_decay * ((adapter - torch.eye(d)) ** 2).sum()
                + offset_decay * (offsets ** 2).sum())
        opt.zero_grad()
        loss.backward()
        opt.step()
        if log and (epoch % 25 == 0 or epoch == epochs - 1):
            log(f"epoch {epoch}: loss {loss.item():.4f}")
    return {"adapter": adapter.detach().numpy(), "prototypes": protos, "offsets": offsets.detach().numpy(),
            "mix": mix.detach().numpy(), "weights": weights.detach().numpy(),
            "scale": np.array([log_scale.exp().item()], np.float32)}


def save(tensors: dict, config: dict, weights_path: Path = SCORER_WEIGHTS, config_path: Path = SCORER_CONFIG) -> None:
    from safetensors.numpy import save

    write_atomic(weights_path, save({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in tensors.items()}))
    write_atomic(config_path, json.dumps(config, indent=1) + "\n")

    get_registry().unload("proverbs_adapter")  # read again on next use


def scores_without_encoder(fit_rows, rows, catalog, adapter: bool, seed: int, epochs: int) -> np.ndarray:
    """What the scorer gives `rows` before the fine-tuned channel is added: the adapter fitted on `fit_rows`
    (or the untrained channels)."""
    index = get_index()
    trained = None
    if adapter:
        _, docs, sents = embedded_rows(fit_rows)
        t = fit(index, docs, sents, labels_of(fit_rows, catalog), **{**DEFAULTS, "epochs": epochs, "seed": seed})
        trained = TrainedParts(index.model_id, [catalog[i].quote_id for i in catalog.epic_indices], t["adapter"],
                               t["prototypes"], t["offsets"], t["mix"], t["weights"], float(t["scale"][0]))
    _, docs, sents = embedded_rows(rows)
    return Scorer(index, trained).score(docs, sents)


def train_encoder(train_rows, val_rows, catalog, args, log) -> dict:
    """Fine-tune the embedder with low-rank factors (finetune.py); with --select, first choose the weight of the
    fine-tuned channel on an inner split of the training part (encoder and adapter refitted on the rest)."""
    from .evaluate import ranking_metrics
    from .finetune import (FINETUNE_DEFAULTS, TUNED_TEMPERATURE, TUNED_WEIGHT, WEIGHT_GRID, calibrated_temperature,
                           fit_encoder, inner_split, low_rank_state, save_delta, tuned_scores)

    start = time.perf_counter()
    model_id = get_registry().get(EMBEDDER_ROLE).model_id
    hyper = {**FINETUNE_DEFAULTS, "epochs": args.encoder_epochs or FINETUNE_DEFAULTS["epochs"], "seed": args.seed}
    adapter = load_trained() is not None
    out, weight, temperature = {}, TUNED_WEIGHT, TUNED_TEMPERATURE
    if args.select:
        inner_train, inner_val = inner_split(train_rows)
        log(f"selection: fitting on {len(inner_train)}, choosing on {len(inner_val)} training narratives")
        tuned = tuned_scores(fit_encoder(inner_train, catalog, model_id, hyper, log), inner_val, catalog,
                             hyper["max_length"])
        other = scores_without_encoder(inner_train, inner_val, catalog, adapter, args.seed, args.epochs)
        y = labels_of(inner_val, catalog)
        grid = {w: ranking_metrics(other + w * hyper["scale"] * tuned, y) for w in WEIGHT_GRID}
        weight = max(grid, key=lambda w: grid[w]["mrr"])
        temperature = calibrated_temperature(other + weight * hyper["scale"] * tuned, y)
        out["selection"] = {"weight": weight, "inner_validation": {str(w): m for w, m in grid.items()},
                            "encoder alone": ranking_metrics(tuned, y)}
    encoder = fit_encoder(train_rows, catalog, model_id, hyper, log)
    tuned = tuned_scores(encoder, val_rows, catalog, hyper["max_length"])
    _, docs, sents = embedded_rows(val_rows)
    other = Scorer(get_index(), load_trained()).score(docs, sents)
    y = labels_of(val_rows, catalog)
    config = {
        "base_model_id": model_id,
        "trained_on": f"{len(train_rows)} narratives of ePiC seen_train (validation part of {len(val_rows)} held out)",
        "hyperparameters": hyper, "weight": weight, "scale": hyper["scale"], "temperature": temperature,
        "added_to": "learned adapter" if adapter else "untrained channels",
        "validation": {"fine-tuned encoder alone": ranking_metrics(tuned, y),
                       "served": ranking_metrics(other + weight * hyper["scale"] * tuned, y)},
        "seconds": round(time.perf_counter() - start, 1),
        **out,
    }
    delta = low_rank_state(encoder[0].auto_model)
    if not args.no_save:
        save_delta(delta, model_id)
        write_atomic(DELTA_CONFIG, json.dumps(config, indent=1) + "\n")
    return {"delta": str(DELTA_PATH.relative_to(PROJECT_ROOT)), "delta_bytes": sum(
        v.numel() * v.element_size() for v in delta.values()), **config}


def train(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m studio train proverbs")
    parser.add_argument("--data", default=str(SEEN_TRAIN), help="ePiC seen_train.jsonl")
    parser.add_argument("--what", choices=["encoder", "adapter", "both", "one-pass"], default="adapter",
                        help="the linear adapter, the fine-tuned encoder's low-rank factors (served beside the adapter "
                             "when its delta is in assets/proverbs), both, or the one-pass adapter fitted on the "
                             "served fine-tuned encoder's embeddings (after the encoder)")
    parser.add_argument("--epochs", type=int, default=DEFAULTS["epochs"], help="adapter epochs")
    parser.add_argument("--encoder-epochs", type=int, default=None, help="fine-tuning epochs (default 1)")
    parser.add_argument("--select", action="store_true",
                        help="choose the fine-tuned channel's weight on an inner split first (fits twice)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (1 on a busy machine)")
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    parser.add_argument("--no-save", action="store_true", help="measure only; keep the committed weights")
    args = parser.parse_args(argv or [])
    if args.epochs < 1 or (args.encoder_epochs is not None and args.encoder_epochs < 1):
        raise InputError("--epochs and --encoder-epochs must be at least 1")
    import sys

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    rows = load_seen_train(args.data)
    train_rows, val_rows = split(rows)
    log = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    out = {}
    if args.what in ("adapter", "both"):  # first: the encoder's channel is added to the adapter's score
        out["adapter"] = train_adapter(train_rows, val_rows, args, log)
    if args.what in ("encoder", "both"):
        out["encoder"] = train_encoder(train_rows, val_rows, get_index().catalog, args, log)
    if args.what == "one-pass":
        out["one-pass"] = train_one_pass(train_rows, val_rows, args, log)
    return out


#: the fine-tuned channel's weight and the softmax temperature of the one-pass scorer, chosen on the inner split
#: of the training part by `train proverbs --what one-pass --select` (never on the validation part)
ONE_PASS_WEIGHT = 4.0
ONE_PASS_TEMPERATURE = 5.816


def _fit_doc_only(index, docs, labels, args, log=None) -> dict:
    """The adapter fitted with each narrative standing for its own best sentence (what a one-pass query has)."""
    return fit(index, docs, [d[None] for d in docs], labels, log=log,
               **{**DEFAULTS, "epochs": args.epochs, "seed": args.seed})


def select_one_pass(train_rows, catalog, args, log) -> dict:
    """On the inner split of the training part: fine-tune an encoder on the inner training narratives, fit the
    adapter on its own embeddings of them, and choose the fine-tuned channel's weight (by MRR) and the
    temperature (by log-loss) on the held-out inner narratives. The three-pass scorer of the same inner fit is
    reported beside it."""
    from .evaluate import ranking_metrics
    from .finetune import (FINETUNE_DEFAULTS, WEIGHT_GRID, calibrated_temperature, encode_all, fit_encoder,
                           inner_split)

    index = get_index()
    inner_train, inner_dev = inner_split(train_rows)
    log(f"selection: fitting on {len(inner_train)}, choosing on {len(inner_dev)} training narratives")
    hyper = {**FINETUNE_DEFAULTS, "epochs": args.encoder_epochs or FINETUNE_DEFAULTS["epochs"], "seed": args.seed}
    model = fit_encoder(inner_train, catalog, get_registry().get(EMBEDDER_ROLE).model_id, hyper, log)
    net, tok, length = model[0].auto_model, model.tokenizer, hyper["max_length"]
    q_train = encode_all(net, tok, [r.text for r in inner_train], length).numpy()
    q_dev = encode_all(net, tok, [r.text for r in inner_dev], length).numpy()
    classes = encode_all(net, tok, [class_text(p) for p in catalog.proverbs], length).numpy()
    y_train, y_dev = labels_of(inner_train, catalog), labels_of(inner_dev, catalog)
    quote_ids = [catalog[i].quote_id for i in catalog.epic_indices]

    def parts(t):
        return TrainedParts(index.model_id, quote_ids, t["adapter"], t["prototypes"], t["offsets"], t["mix"],
                            t["weights"], float(t["scale"][0]))

    tuned = q_dev @ classes.T
    one = Scorer(index, parts(_fit_doc_only(index, q_train, y_train, args))).score(q_dev, [q[None] for q in q_dev])
    _, d_train, s_train = embedded_rows(inner_train)
    _, d_dev, s_dev = embedded_rows(inner_dev)
    three = Scorer(index, parts(fit(index, d_train, s_train, y_train, **{**DEFAULTS, "epochs": args.epochs,
                                                                         "seed": args.seed}))).score(d_dev, s_dev)
    scale = hyper["scale"]
    grid = {w: ranking_metrics(one + w * scale * tuned, y_dev) for w in WEIGHT_GRID}
    weight = max(grid, key=lambda w: (grid[w]["mrr"], -w))
    return {"weight": weight, "temperature": calibrated_temperature(one + weight * scale * tuned, y_dev),
            "inner_dev": {"one pass, by weight": {str(w): m for w, m in grid.items()},
                          "three passes, by weight": {str(w): ranking_metrics(three + w * scale * tuned, y_dev)
                                                      for w in WEIGHT_GRID},
                          "fine-tuned encoder alone": ranking_metrics(tuned, y_dev)}}


def train_one_pass(train_rows, val_rows, args, log) -> dict:
    """Fit the adapter on the served fine-tuned encoder's embeddings of the training narratives (one pass per
    query), with the weight and temperature chosen by `select_one_pass` (--select) or the recorded defaults."""
    from .evaluate import ranking_metrics, tuned_rows
    from ...proverbs.delta import delta_digest

    start = time.perf_counter()
    index = get_index()
    catalog = index.catalog
    part = finetuned_part(index)
    if part is None:
        raise InputError("the one-pass adapter is fitted on the fine-tuned encoder's embeddings, and no fine-tuned "
                         "encoder is served: train it first (`python -m studio train proverbs --what encoder`)")
    chosen = select_one_pass(train_rows, catalog, args, log) if args.select else {
        "weight": ONE_PASS_WEIGHT, "temperature": ONE_PASS_TEMPERATURE}
    probe = Scorer(index, None, part)
    docs = tuned_rows(probe, train_rows)
    tensors = _fit_doc_only(index, docs, labels_of(train_rows, catalog), args, log)
    config = {
        "model_id": index.model_id,
        "quote_ids": [catalog[i].quote_id for i in catalog.epic_indices],
        "catalog_digest": catalog.digest,
        "encoder_delta_sha256": delta_digest(),
        "encoder_backend": part.embedder.backend,
        "trained_on": f"{len(train_rows)} narratives of ePiC seen_train embedded by the served fine-tuned encoder "
                      f"(validation part of {len(val_rows)} held out)",
        "hyperparameters": {**DEFAULTS, "epochs": args.epochs, "seed": args.seed},
        "weight": chosen["weight"], "temperature": chosen["temperature"],
        **({"selection": chosen} if args.select else {}),
    }
    trained = TrainedParts(config["model_id"], config["quote_ids"], tensors["adapter"], tensors["prototypes"],
                           tensors["offsets"], tensors["mix"], tensors["weights"], float(tensors["scale"][0]), config)
    import dataclasses

    served = dataclasses.replace(part, weight=chosen["weight"], temperature=chosen["temperature"])
    val = Scorer(index, trained, served, one_pass=True).score_one_pass(tuned_rows(probe, val_rows))
    config["validation"] = ranking_metrics(val, labels_of(val_rows, catalog))
    config["seconds"] = round(time.perf_counter() - start, 1)
    if not args.no_save:
        save(tensors, config, ONE_PASS_WEIGHTS, ONE_PASS_CONFIG)
    return {k: v for k, v in config.items() if k != "quote_ids"}


def train_adapter(train_rows, val_rows, args, log) -> dict:
    from .evaluate import ranking_metrics, score_rows

    start = time.perf_counter()
    index, docs, sents = embedded_rows(train_rows, lambda i, n: log(f"embedding {i}/{n}"))
    labels = labels_of(train_rows, index.catalog)
    hyper = {**DEFAULTS, "epochs": args.epochs, "seed": args.seed}
    tensors = fit(index, docs, sents, labels, log=log, **hyper)
    embedder = get_registry().get(EMBEDDER_ROLE)
    catalog = index.catalog
    config = {
        "model_id": embedder.model_id,
        "quote_ids": [catalog[i].quote_id for i in catalog.epic_indices],
        "catalog_digest": catalog.digest,
        "trained_on": f"{len(train_rows)} narratives of ePiC seen_train (validation part of {len(val_rows)} held out)",
        "hyperparameters": hyper,
    }

    trained = TrainedParts(config["model_id"], config["quote_ids"], tensors["adapter"], tensors["prototypes"],
                           tensors["offsets"], tensors["mix"], tensors["weights"], float(tensors["scale"][0]), config)
    val_scores, val_labels = score_rows(Scorer(index, trained), val_rows)
    config["validation"] = ranking_metrics(val_scores, val_labels)
    config["seconds"] = round(time.perf_counter() - start, 1)
    if not args.no_save:
        save(tensors, config)
    size = sum(np.asarray(v).nbytes for v in tensors.values())
    return {"saved": not args.no_save, "weights": str(SCORER_WEIGHTS.relative_to(PROJECT_ROOT)),
            "bytes": size, **{k: v for k, v in config.items() if k != "quote_ids"}}
