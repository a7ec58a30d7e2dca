"""BM25 retrieval over the knowledge base's simile contexts (bm25s), the HAUSER paper's retrieval baseline.

The KB's contexts are small, so a rare context word ("yelp") may occur in none of them; such words are expanded
with their nearest KB context words by the `embedder` ("yelp" → "bark", "scream") before BM25 scores them.
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from ..models import ModelUnavailable, get_registry
from ..embeddings import embed_cached


EXPANSION_NEIGHBOURS = 3
EXPANSION_MIN_SIMILARITY = 0.5


@functools.lru_cache(maxsize=2)
def _index(kb_digest: str, kb):
    import bm25s

    corpus = [ctx.split() for _v, ctx in kb.contexts]
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    vocab = sorted({w for doc in corpus for w in doc})
    return retriever, vocab, set(vocab)


def search(kb, words: list[str], k: int = 20) -> list[tuple[str, float]]:
    """Vehicles of the k KB contexts most similar to `words` (lemmas), best first."""
    words = [w for w in words if w]
    if not words or not kb.contexts:
        return []
    retriever, vocab, known = _index(kb.meta.get("digest", ""), kb)
    query = [w for w in words if w in known] + expand(kb, [w for w in words if w not in known], vocab)
    if not query:
        return []
    k = min(k, len(kb.contexts))
    docs, scores = retriever.retrieve([query], k=k, show_progress=False)
    out = []
    for i, s in zip(np.asarray(docs)[0], np.asarray(scores)[0]):
        if s > 0:
            out.append((kb.contexts[int(i)][0], float(s)))
    return out


def expand(kb, words: list[str], vocab: list[str]) -> list[str]:
    """The nearest KB context words of words the contexts never use ([] without an embedder)."""
    words = [w for w in words if len(w) > 2 and w.isalpha()]
    if not words:
        return []
    try:
        embedder = get_registry().get("embedder")
        matrix = word_matrix(embedder, kb.meta.get("digest", ""), "context_vocab", tuple(vocab))
        queries = embedder.encode(words)
    except ModelUnavailable:
        return []
    sims = queries @ matrix.T
    out = []
    for row in sims:
        for j in np.argsort(-row)[:EXPANSION_NEIGHBOURS]:
            if row[j] >= EXPANSION_MIN_SIMILARITY:
                out.append(vocab[j])
    return out


_matrices: dict[tuple, np.ndarray] = {}
_matrices_lock = threading.Lock()


def word_matrix(embedder, digest: str, kind: str, vocab: tuple[str, ...]) -> np.ndarray:
    """Embeddings of a KB word list, cached on disk per model, KB build and list kind (computed once). Kept in
    memory by model_id, not by embedder object, so an evicted embedder is not held alive here."""
    key = (embedder.model_id, digest, kind, vocab)
    matrix = _matrices.get(key)
    if matrix is None:
        matrix = _word_matrix(embedder, digest, kind, vocab)
        with _matrices_lock:
            if len(_matrices) >= 4:
                _matrices.pop(next(iter(_matrices)))
            _matrices[key] = matrix
    return matrix


def _word_matrix(embedder, digest: str, kind: str, vocab: tuple[str, ...]) -> np.ndarray:
    return embed_cached(embedder, list(vocab), f"similes-kb-{kind}")