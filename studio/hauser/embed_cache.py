"""Embeddings of training corpora, cached on disk: re-running a training script must not re-embed 67k sentences."""
from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from ..atomic import atomic_save_npy, load_npy_or_none
from ..models import cache_dir


def _key(model_id: str, texts: Sequence[str]) -> str:
    h = hashlib.sha1(model_id.encode())
    for text in texts:
        h.update(b"\x00" + text.encode("utf-8", "replace"))
    return h.hexdigest()[:20]


def cached_encode(embedder, texts: Sequence[str], batch_size: int = 128, log=None) -> np.ndarray:
    """`embedder.encode(texts)`, memoised on disk by (model, exact texts)."""
    folder = cache_dir() / "embeddings"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_key(embedder.model_id, texts)}.npy"
    cached = load_npy_or_none(path, rows=len(texts))
    if cached is not None:
        return cached
    unique, inverse = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    if log:
        log(f"embedding {len(unique):,} distinct texts with {embedder.model_id} (cached to {path.name})")
    vectors = embedder.encode(list(unique), batch_size=batch_size)[inverse]
    atomic_save_npy(path, vectors)
    return vectors
