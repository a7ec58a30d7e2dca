"""Fine-tuning the retrieval embedder on ePiC (training part only) with low-rank adapters (LoRA, Hu et al., 2021) on
every linear product of its transformer layers, so that a narrative lands near "proverb — meaning" of its proverb:
cross-entropy over the whole catalog, the batch's proverbs encoded with gradients and the others taken from a bank
refreshed every epoch. Only the low-rank factors are saved (float16; 2.7 MB for all-mpnet-base-v2 at rank 8), as a
delta that studio.models.variants merges into the registry's embedder (W + B·A) and serves like the base.

torch is imported inside the functions. What serving needs of the delta (its path, settings, the proverbs' text) is
in delta.py: serving never imports this training module."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...atomic import atomic_write as write_atomic
from ...models.loaders.common import fast_bfloat16
from ...models.variants import BASE_KEY, load_base_sentence_transformer
from ...proverbs.delta import DELTA_PATH, class_text

FINETUNE_DEFAULTS = dict(rank=8, epochs=1, lr=3e-4, scale=20.0, batch_size=16, seed=0, max_length=256)


def add_low_rank(net, rank: int, seed: int) -> list:
    """Wrap every nn.Linear of the transformer layers in a low-rank update that starts at zero (B = 0), freeze
    everything else, and return the trainable factors."""
    import torch

    class LowRank(torch.nn.Module):
        def __init__(self, base):
            super().__init__()
            self.base = base
            self.lora_A = torch.nn.Parameter(torch.randn(rank, base.in_features) / math.sqrt(base.in_features))
            self.lora_B = torch.nn.Parameter(torch.zeros(base.out_features, rank))

        def forward(self, x):
            return self.base(x) + (x @ self.lora_A.T) @ self.lora_B.T

    torch.manual_seed(seed)
    for p in net.parameters():
        p.requires_grad = False
    targets = [(name, m) for name, m in net.named_modules()
               if isinstance(m, torch.nn.Linear) and name.startswith("encoder.layer.")]
    for name, module in targets:
        parent, _, child = name.rpartition(".")
        setattr(net.get_submodule(parent), child, LowRank(module))
    return [p for n, p in net.named_parameters() if n.endswith(("lora_A", "lora_B"))]


def low_rank_state(net) -> dict:
    """The factors, float16, as "<product path>.lora_A" (rank x in) and ".lora_B" (out x rank): the names
    studio.models.variants merges into the plain model."""
    import torch

    return {n: p.detach().to(torch.float16).contiguous() for n, p in net.named_parameters()
            if n.endswith((".lora_A", ".lora_B"))}


def _encode(net, tokenizer, texts: list[str], max_length: int, grad: bool):
    import torch

    batch = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    batch.pop("token_type_ids", None)
    with torch.set_grad_enabled(grad), torch.autocast("cpu", dtype=torch.bfloat16, enabled=_bf16()):
        hidden = net(**batch).last_hidden_state.float()
    mask = batch["attention_mask"][..., None].float()
    return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)


def _bf16() -> bool:
    return fast_bfloat16()


def encode_all(net, tokenizer, texts: list[str], max_length: int, batch_size: int = 32):
    import torch

    net.eval()
    out = torch.zeros(len(texts), net.config.hidden_size)
    order = np.argsort([len(t) for t in texts], kind="stable")
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        out[idx] = _encode(net, tokenizer, [texts[i] for i in idx], max_length, False)
    return out


def finetune(model, narratives: list[str], labels: np.ndarray, class_texts: list[str], rank: int, epochs: int,
             lr: float, scale: float, batch_size: int, seed: int, max_length: int, log=None) -> None:
    import torch

    net, tokenizer = model[0].auto_model.float(), model.tokenizer
    params = add_low_rank(net, rank, seed)
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    order_rng = torch.Generator().manual_seed(seed)
    y_all = torch.tensor(labels)
    for epoch in range(epochs):
        bank = encode_all(net, tokenizer, class_texts, max_length)  # the other proverbs, refreshed once per epoch
        net.train()
        order, total = torch.randperm(len(narratives), generator=order_rng).tolist(), 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            y = y_all[idx]
            present = sorted(set(y.tolist()))
            q = _encode(net, tokenizer, [narratives[i] for i in idx], max_length, True)
            vectors = bank.clone()
            vectors[present] = _encode(net, tokenizer, [class_texts[c] for c in present], max_length, True)
            loss = torch.nn.functional.cross_entropy(scale * q @ vectors.T, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            if log and (start // batch_size) % 10 == 0:
                log(f"fine-tune epoch {epoch}: {start + len(idx)}/{len(order)} narratives")
        if log:
            log(f"fine-tune epoch {epoch}: loss {total / len(narratives):.4f}")
    net.eval()


def save_delta(tensors: dict, base_model_id: str, path: Path = DELTA_PATH) -> None:
    from safetensors.torch import save

    write_atomic(path, save(tensors, metadata={BASE_KEY: base_model_id}))


#: weight of the fine-tuned channel added to the adapter's score; chosen on an inner split of the training part
#: (`python -m studio train proverbs --what encoder --select`), never on the validation part
TUNED_WEIGHT = 4.0
#: the combined score's softmax temperature: 5.25 minimised the log-loss on the inner split (1 epoch, weight 4)
TUNED_TEMPERATURE = 5.25
WEIGHT_GRID = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)


def inner_split(rows, seed: int = 1):
    """One training narrative per proverb held out for choosing the fine-tuned channel's weight."""
    import random

    by_proverb: dict[str, list] = {}
    for r in sorted(rows, key=lambda r: r.pk):
        by_proverb.setdefault(r.quote_id, []).append(r)
    rng = random.Random(seed)
    held = {rng.choice(group).pk for _, group in sorted(by_proverb.items())}
    return [r for r in rows if r.pk not in held], [r for r in rows if r.pk in held]


def calibrated_temperature(scores: np.ndarray, labels: np.ndarray) -> float:
    """The temperature T that minimises the log-loss of softmax(scores / T)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_softmax

    def loss(t):
        return -log_softmax(scores / t, axis=1)[np.arange(len(labels)), labels].mean()

    return round(float(minimize_scalar(loss, bounds=(0.1, 50.0), method="bounded").x), 3)


def fit_encoder(rows, catalog, model_id: str, hyper: dict, log=None):
    """The base sentence-transformers model with trained low-rank factors in place (not merged)."""
    from .rows import labels_of

    model = load_base_sentence_transformer(model_id)
    finetune(model, [r.text for r in rows], labels_of(rows, catalog), [class_text(p) for p in catalog.proverbs],
             log=log, **hyper)
    return model


def tuned_scores(model, rows, catalog, max_length: int) -> np.ndarray:
    """Cosines of the rows' narratives with every catalog proverb, with a freshly trained encoder."""
    net, tokenizer = model[0].auto_model, model.tokenizer
    q = encode_all(net, tokenizer, [r.text for r in rows], max_length).numpy()
    c = encode_all(net, tokenizer, [class_text(p) for p in catalog.proverbs], max_length).numpy()
    return q @ c.T
