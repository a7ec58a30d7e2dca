"""Small classifier heads on frozen embedder features: the offline profile's `sentiment` (assets/heads/sentiment) and
the tiny profile's random `nli` and `sentiment`.

A head folder holds `head.safetensors` (weights) and `head.json` (architecture, labels, the embedder it
was trained on, and the metrics its training script measured).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..atomic import atomic_write
from .roles import NLI_LABELS, Embedder, NLIModel, SentimentModel


@dataclass
class HeadConfig:
    kind: str  # "pair" (features [u, v, |u-v|, u*v]) or "single" (features u)
    input_dim: int  # embedder dimension
    hidden: int
    labels: list[str]
    embedder: str = ""
    metrics: dict = field(default_factory=dict)
    notes: str = ""

    @property
    def feature_dim(self) -> int:
        return self.input_dim * (4 if self.kind == "pair" else 1)


def build_module(cfg: HeadConfig):
    import torch.nn as nn

    if cfg.hidden <= 0:
        return nn.Linear(cfg.feature_dim, len(cfg.labels))
    return nn.Sequential(
        nn.Linear(cfg.feature_dim, cfg.hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(cfg.hidden, len(cfg.labels))
    )


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1).astype(np.float32)


def save_head(folder: Path, cfg: HeadConfig, module) -> None:
    """Atomically write the head (a killed write never leaves a half file behind)."""
    from safetensors.torch import save

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in module.state_dict().items()}
    atomic_write(folder / "head.safetensors", save(state))
    atomic_write(folder / "head.json", json.dumps(asdict(cfg), indent=1))


def load_head(folder: Path):
    from safetensors.torch import load_file

    folder = Path(folder)
    cfg = HeadConfig(**json.loads((folder / "head.json").read_text()))
    module = build_module(cfg)
    module.load_state_dict(load_file(str(folder / "head.safetensors")))
    module.eval()
    return cfg, module


def has_head(folder: Path) -> bool:
    folder = Path(folder)
    return (folder / "head.json").is_file() and (folder / "head.safetensors").is_file()


class _HeadRunner:
    def __init__(self, embedder: Embedder, cfg: HeadConfig, module):
        if embedder.dim != cfg.input_dim:
            raise ValueError(
                f"the head expects {cfg.input_dim}-dim features ({cfg.embedder or 'its embedder'}), "
                f"the embedder gives {embedder.dim} ({embedder.model_id}); retrain it with `python -m studio train`"
            )
        self.embedder, self.cfg, self.module = embedder, cfg, module

    def _probs(self, features: np.ndarray) -> np.ndarray:
        import torch

        with torch.inference_mode():
            logits = self.module(torch.from_numpy(features))
            return torch.softmax(logits, dim=-1).numpy().astype(np.float64)


class HeadNLI(NLIModel, _HeadRunner):
    def __init__(self, embedder: Embedder, cfg: HeadConfig, module, model_id: str):
        _HeadRunner.__init__(self, embedder, cfg, module)
        self.model_id = model_id
        self.backend = f"MLP head on {embedder.backend} features"
        self._order = [cfg.labels.index(label) for label in NLI_LABELS]

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        if not len(premises):
            return np.zeros((0, 3))
        # a literal sentence is the premise of each of its candidates: embed every distinct text once
        distinct = list(dict.fromkeys([*premises, *hypotheses]))
        vectors = self.embedder.encode(distinct, batch_size=batch_size)
        row = {text: i for i, text in enumerate(distinct)}
        u = vectors[[row[t] for t in premises]]
        v = vectors[[row[t] for t in hypotheses]]
        return self._probs(pair_features(u, v))[:, self._order]


class HeadSentiment(SentimentModel, _HeadRunner):
    def __init__(self, embedder: Embedder, cfg: HeadConfig, module, model_id: str):
        _HeadRunner.__init__(self, embedder, cfg, module)
        self.model_id = model_id
        self.backend = f"head on {embedder.backend} features"
        self._pos = cfg.labels.index("positive")

    def p_positive(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not len(texts):
            return np.zeros(0)
        return self._probs(self.embedder.encode(list(texts), batch_size=batch_size))[:, self._pos]
