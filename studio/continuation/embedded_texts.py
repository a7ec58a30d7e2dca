"""The benchmark texts' embeddings by the registry's `embedder`, through the one embedding cache
(studio/embeddings.py), so training and evaluation never re-embed."""
from __future__ import annotations

import numpy as np

from ..embeddings import embed_cached
from ..models import get_registry


def encode_cached(texts: list[str], *, chunk: int = 512, progress=None) -> np.ndarray:
    """Like `embedder.encode`, but texts seen before (by this embedder, served this way) come from the disk cache."""
    return embed_cached(get_registry().get("embedder"), texts, "continuation", progress, chunk)
