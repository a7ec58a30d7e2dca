"""Embeddings of every catalog proverb and of its meaning, computed once per (embedder, catalog) and cached on
disk under studio.models.cache_dir(), so that a restart does not re-embed the catalog."""
from __future__ import annotations

import hashlib
import io
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..models import cache_dir, get_registry
from ..atomic import atomic_write as write_atomic
from .catalog import Catalog, load_catalog


@dataclass
class ProverbIndex:
    catalog: Catalog
    model_id: str
    text: np.ndarray  # (n, d) embeddings of the proverb texts
    meaning: np.ndarray  # (n, d) embeddings of the meanings
    from_cache: bool = False


def cache_path(embedder_key: str, catalog: Catalog) -> Path:
    key = hashlib.sha1(f"{embedder_key}\n{catalog.digest}".encode()).hexdigest()[:16]
    return cache_dir() / "proverbs" / f"index-{key}.npz"


def build_index(embedder, catalog: Catalog) -> ProverbIndex:
    path = cache_path(embedder.cache_key, catalog)
    if path.is_file():
        try:
            with np.load(path) as data:
                text, meaning = data["text"], data["meaning"]
            if text.shape == (len(catalog), embedder.dim) and meaning.shape == text.shape:
                return ProverbIndex(catalog, embedder.model_id, text, meaning, from_cache=True)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            pass  # a damaged cache file is rebuilt below
    text = embedder.encode([p.text for p in catalog.proverbs])
    meaning = embedder.encode([p.meaning for p in catalog.proverbs])
    buffer = io.BytesIO()
    np.savez(buffer, text=text, meaning=meaning)
    write_atomic(path, buffer.getvalue())
    return ProverbIndex(catalog, embedder.model_id, text, meaning)


#: the registry role proverbs embed with: ePiC's own Sentence-BERT, larger than the studio's general embedder
#: why: docs/experiments.md#proverbs-embedders
EMBEDDER_ROLE = "retrieval_embedder"
TUNED_ROLE = "proverbs_encoder"  # the fine-tuned encoder (a variant of EMBEDDER_ROLE)

#: span alignment compares short phrases, with the general embedder
#: why: docs/experiments.md#proverbs-embedders
ALIGNMENT_ROLE = "embedder"

_lock = threading.Lock()
_current: dict[tuple[int, str, str], ProverbIndex] = {}


def get_index() -> ProverbIndex:
    """The index for the registry's current embedder (loads the embedder on first use)."""
    embedder = get_registry().get(EMBEDDER_ROLE)
    catalog = load_catalog()
    key = (id(embedder), embedder.model_id, catalog.digest)
    index = _current.get(key)
    if index is None:
        with _lock:
            index = _current.get(key)
            if index is None:
                index = build_index(embedder, catalog)
                _current.clear()
                _current[key] = index
    return index
