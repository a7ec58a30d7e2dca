"""Embeddings of a corpus (ePiC's narratives and their sentences) kept on disk per embedder, so that training
and evaluation runs embed each text once."""
from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from typing import Sequence

import numpy as np

from ..models import cache_dir
from .catalog import write_atomic


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def cache_file(name: str, embedder_key: str) -> Path:
    return cache_dir() / "proverbs" / f"{name}-{hashlib.sha1(embedder_key.encode()).hexdigest()[:12]}.npz"


def _load(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    try:
        with np.load(path) as data:
            return dict(zip(data["keys"].tolist(), data["vectors"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return {}  # damaged: rebuilt


def _save(path: Path, table: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    keys = np.array(list(table), dtype="U40")
    np.savez(buffer, keys=keys, vectors=np.stack(list(table.values())).astype(np.float32))
    write_atomic(path, buffer.getvalue())


def embed_cached(embedder, texts: Sequence[str], name: str, progress=None) -> np.ndarray:
    path = cache_file(name, embedder.cache_key)
    table = _load(path)
    missing = sorted({t for t in texts if _key(t) not in table})
    if missing:
        step = 256
        for start in range(0, len(missing), step):
            chunk = missing[start:start + step]
            for text, vec in zip(chunk, embedder.encode(chunk)):
                table[_key(text)] = vec
            if progress:
                progress(min(start + step, len(missing)), len(missing))
            _save(path, table)  # a long run that is interrupted keeps what it has embedded
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([table[_key(t)] for t in texts]).astype(np.float32)
