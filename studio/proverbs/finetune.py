"""Fine-tuning the embedder's top transformer layers on ePiC (training part only) so that a narrative lands near
"proverb — meaning" of its proverb: cross-entropy over the whole catalog, the batch's proverbs encoded with
gradients and the others taken from a bank refreshed every epoch. The lower layers stay frozen, so their outputs
are computed once and cached on disk; only the trained layers are saved (float16) as a delta that
studio.models.variants applies to the registry's embedder."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ..models import cache_dir
from .catalog import PROVERB_ASSETS, Proverb

DELTA_PATH = PROVERB_ASSETS / "encoder_delta.safetensors"
#: one trained layer keeps the delta of a base-size encoder (all-mpnet-base-v2: 7M parameters, 14 MB in float16)
#: under the 20 MB the studio allows for committed weights
FINETUNE_DEFAULTS = dict(trained_layers=1, epochs=1, lr=1e-4, scale=20.0, batch_size=32, seed=0)


def class_text(proverb: Proverb) -> str:
    return f"{proverb.text} — {proverb.meaning}"


class SplitEncoder:
    """A sentence-transformers BERT or MPNet split at `frozen` layers: `lower` (cached, no gradient) and `upper`
    (trained)."""

    def __init__(self, model, model_id: str, frozen: int):
        import torch

        self.torch, self.model, self.frozen = torch, model, frozen
        self.net, self.tokenizer = model[0].auto_model, model.tokenizer
        self.max_length = model.max_seq_length
        self.top = torch.nn.ModuleList(self.net.encoder.layer[frozen:])
        self.cache_path = cache_dir() / "proverbs" / (
            "lower-" + hashlib.sha1(f"{model_id}\n{frozen}\n{self.max_length}".encode()).hexdigest()[:12] + ".safetensors")

    def _mask(self, mask):
        return (1.0 - mask[:, None, None, :].float()) * self.torch.finfo(self.torch.float32).min

    def _embed(self, batch):
        if "token_type_ids" in batch:  # BERT; MPNet has no token types
            return self.net.embeddings(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"])
        return self.net.embeddings(input_ids=batch["input_ids"])

    def _run(self, layers, h, ext):
        # MPNet's relative-position bias is computed once by its encoder and shared by every layer
        extra = {}
        if hasattr(self.net.encoder, "compute_position_bias"):
            extra["position_bias"] = self.net.encoder.compute_position_bias(h)
        for layer in layers:
            h = layer(h, attention_mask=ext, **extra)
            h = h[0] if isinstance(h, tuple) else h
        return h

    def lower(self, texts: list[str], log=None) -> dict:
        from safetensors import SafetensorError
        from safetensors.torch import load_file, save

        try:
            table = load_file(str(self.cache_path)) if self.cache_path.is_file() else {}
        except (OSError, SafetensorError):  # a truncated cache file is rebuilt below
            table = {}
        key = lambda t: hashlib.sha1(t.encode()).hexdigest()  # noqa: E731
        missing = sorted({t for t in texts if key(t) not in table})
        with self.torch.no_grad():
            for start in range(0, len(missing), 64):
                chunk = missing[start:start + 64]
                b = self.tokenizer(chunk, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
                h = self._run(self.net.encoder.layer[:self.frozen], self._embed(b), self._mask(b["attention_mask"]))
                for j, t in enumerate(chunk):
                    table[key(t)] = h[j, :int(b["attention_mask"][j].sum())].clone().contiguous()
                if log:
                    log(f"lower layers {min(start + 64, len(missing))}/{len(missing)}")
        if missing:
            from ..atomic import atomic_write_bytes

            atomic_write_bytes(self.cache_path, save(table))
        return {t: table[key(t)] for t in texts}

    def upper(self, states: list, grad: bool):
        torch = self.torch
        n = max(h.shape[0] for h in states)
        x = torch.zeros(len(states), n, states[0].shape[1])
        mask = torch.zeros(len(states), n)
        for i, h in enumerate(states):
            x[i, :h.shape[0]], mask[i, :h.shape[0]] = h, 1
        ext = self._mask(mask)
        with torch.set_grad_enabled(grad):
            x = self._run(self.top, x, ext)
            pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)  # the model's mean pooling
            return torch.nn.functional.normalize(pooled, dim=-1)

    def encode(self, states: list, batch_size: int = 64):
        return self.torch.cat([self.upper(states[i:i + batch_size], False) for i in range(0, len(states), batch_size)])

    def top_state(self) -> dict:
        """The trained tensors under the base model's own parameter names, in float16."""
        prefix = "encoder.layer."
        out = {}
        for k, layer in enumerate(self.top):
            for name, value in layer.state_dict().items():
                out[f"{prefix}{self.frozen + k}.{name}"] = value.detach().to(self.torch.float16).contiguous()
        return out


def finetune(encoder: SplitEncoder, narratives: list[str], labels: np.ndarray, class_texts: list[str], epochs: int,
             lr: float, scale: float, batch_size: int, seed: int, log=None, **_) -> None:
    torch = encoder.torch
    torch.manual_seed(seed)
    states = encoder.lower(narratives + class_texts, log)
    docs, classes = [states[t] for t in narratives], [states[t] for t in class_texts]
    for p in encoder.net.parameters():
        p.requires_grad = False
    for p in encoder.top.parameters():
        p.requires_grad = True
    opt = torch.optim.AdamW(encoder.top.parameters(), lr=lr, weight_decay=0.01)
    order_rng = torch.Generator().manual_seed(seed)
    y_all = torch.tensor(labels)
    for epoch in range(epochs):
        encoder.top.eval()
        bank = encoder.encode(classes)  # the other proverbs' vectors, refreshed once per epoch
        encoder.top.train()
        order, total = torch.randperm(len(docs), generator=order_rng).tolist(), 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            y = y_all[idx]
            present = sorted(set(y.tolist()))
            q = encoder.upper([docs[i] for i in idx], True)
            vectors = bank.clone()
            vectors[present] = encoder.upper([classes[c] for c in present], True)
            loss = torch.nn.functional.cross_entropy(scale * q @ vectors.T, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if log:
            log(f"fine-tune epoch {epoch}: loss {total / len(docs):.4f}")
    encoder.top.eval()


def save_delta(tensors: dict, base_model_id: str, path: Path = DELTA_PATH) -> None:
    from safetensors.torch import save

    from ..models.variants import BASE_KEY
    from .catalog import write_atomic

    write_atomic(path, save(tensors, metadata={BASE_KEY: base_model_id}))


DELTA_CONFIG = PROVERB_ASSETS / "encoder_delta.json"


def load_finetune_config(path: Path = DELTA_CONFIG) -> dict | None:
    import json

    if not (Path(path).is_file() and DELTA_PATH.is_file()):
        return None
    return json.loads(Path(path).read_text())


#: weight of the fine-tuned channel added to the adapter's score; chosen on an inner split of the training part
#: (`python -m studio train proverbs --select`), never on the validation part
TUNED_WEIGHT = 4.0
WEIGHT_GRID = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)


def inner_split(rows, seed: int = 1):
    """One training narrative per proverb held out for choosing ZERO_SHOT_WEIGHT."""
    import random

    by_proverb: dict[str, list] = {}
    for r in sorted(rows, key=lambda r: r.pk):
        by_proverb.setdefault(r.quote_id, []).append(r)
    rng = random.Random(seed)
    held = {rng.choice(group).pk for _, group in sorted(by_proverb.items())}
    return [r for r in rows if r.pk not in held], [r for r in rows if r.pk in held]


def fit_encoder(rows, catalog, model_id: str, hyper: dict, log=None) -> SplitEncoder:
    from ..models.variants import load_base_sentence_transformer
    from .train import labels_of

    model = load_base_sentence_transformer(model_id)
    frozen = len(model[0].auto_model.encoder.layer) - hyper["trained_layers"]
    encoder = SplitEncoder(model, model_id, frozen)
    finetune(encoder, [r.text for r in rows], labels_of(rows, catalog), [class_text(p) for p in catalog.proverbs],
             log=log, **hyper)
    return encoder


def tuned_scores(encoder: SplitEncoder, rows, catalog) -> np.ndarray:
    """Cosines of the rows' narratives with every catalog proverb, with a freshly trained encoder."""
    texts = [r.text for r in rows]
    classes = [class_text(p) for p in catalog.proverbs]
    states = encoder.lower(texts + classes)
    q = encoder.encode([states[t] for t in texts]).numpy()
    c = encoder.encode([states[t] for t in classes]).numpy()
    return q @ c.T
