"""Embeddings of the benchmark texts, cached on disk per embedder so training and evaluation never re-embed."""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
import zipfile

import numpy as np

from ..models import cache_dir, get_registry

_lock = threading.Lock()
_memory: dict[str, dict[str, np.ndarray]] = {}


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _path(model_id: str):
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_id)[-80:]
    folder = cache_dir() / "continuation" / "embeddings"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{safe}.npz"


def _load(model_id: str) -> dict[str, np.ndarray]:
    if model_id not in _memory:
        table = {}
        path = _path(model_id)
        if path.is_file():
            try:
                with np.load(path) as data:
                    table = dict(zip(data["keys"].tolist(), data["vectors"]))
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
                table = {}  # a damaged cache file is rebuilt as texts are embedded again
        _memory[model_id] = table
    return _memory[model_id]


def _save(model_id: str, table: dict[str, np.ndarray]) -> None:
    path = _path(model_id)
    keys = np.array(list(table.keys()))
    vectors = np.stack(list(table.values())).astype(np.float32)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
    os.close(fd)
    np.savez(tmp, keys=keys, vectors=vectors)
    os.replace(tmp, path)


def encode_cached(texts: list[str], *, chunk: int = 512, progress=None) -> np.ndarray:
    """Like `embedder.encode`, but texts seen before (by this embedder) come from the disk cache."""
    embedder = get_registry().get("embedder")
    with _lock:
        table = _load(embedder.model_id)
        missing = list(dict.fromkeys(t for t in texts if _key(t) not in table))
        for start in range(0, len(missing), chunk):
            part = missing[start:start + chunk]
            for text, vec in zip(part, embedder.encode(part)):
                table[_key(text)] = vec
            _save(embedder.model_id, table)  # a long run that is stopped keeps what it has done
            if progress:
                progress(min(start + chunk, len(missing)), len(missing))
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        return np.stack([table[_key(t)] for t in texts]).astype(np.float32)
