"""The one embedding cache: vectors of texts kept on disk per embedder, so that no text is embedded twice by the
same model served the same way (training, evaluation, the KB's word lists, the proverb catalog).

A cache is a table text-digest → vector in `cache_dir()/embeddings/NAME-KEY.npz`, KEY derived from
`Embedder.cache_key` (the model and how it is served: int8 and float32 vectors of one model never mix). It is
written atomically; a damaged file reads as empty and is rebuilt. Tables are kept in memory per process too."""
from __future__ import annotations

import hashlib
import io
import threading
import time
import zipfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .atomic import atomic_write_bytes
from .models import cache_dir

#: a long run writes what it has embedded at least this often, so an interrupted run keeps its work
SAVE_EVERY_S = 30.0
_lock = threading.Lock()
_tables: dict[Path, dict[str, np.ndarray]] = {}


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


def cache_file(name: str, embedder_key: str) -> Path:
    return cache_dir() / "embeddings" / f"{name}-{hashlib.sha1(embedder_key.encode()).hexdigest()[:12]}.npz"


def forget() -> None:
    """Drop the in-memory tables (the files stay): what a new process would see."""
    with _lock:
        _tables.clear()


def _load(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    try:
        with np.load(path) as data:
            return dict(zip(data["keys"].tolist(), data["vectors"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return {}  # damaged: rebuilt as texts are embedded again


def _save(path: Path, table: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, keys=np.array(list(table), dtype="U40"),
             vectors=np.stack(list(table.values())).astype(np.float32))
    atomic_write_bytes(path, buffer.getvalue())


def embed_cached(embedder, texts: Sequence[str], name: str, progress: Callable[[int, int], None] | None = None,
                 chunk: int = 256) -> np.ndarray:
    """`embedder.encode(texts)` (float32, one row per text, in order), each distinct text embedded once ever per
    (embedder.cache_key, name). `progress(done, todo)` is called after each chunk of new texts."""
    path = cache_file(name, embedder.cache_key)
    with _lock:
        table = _tables.get(path)
        if table is None:
            table = _tables[path] = _load(path)
        missing = list(dict.fromkeys(t for t in texts if text_key(t) not in table))
        saved = time.monotonic()
        for start in range(0, len(missing), chunk):
            part = missing[start:start + chunk]
            for text, vec in zip(part, embedder.encode(part)):
                table[text_key(text)] = np.asarray(vec, dtype=np.float32)
            if progress:
                progress(min(start + chunk, len(missing)), len(missing))
            if time.monotonic() - saved > SAVE_EVERY_S:
                _save(path, table)
                saved = time.monotonic()
        if missing:
            _save(path, table)
        if not len(texts):
            return np.zeros((0, embedder.dim), dtype=np.float32)
        return np.stack([table[text_key(t)] for t in texts]).astype(np.float32)
