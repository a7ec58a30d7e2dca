"""Narratives with similar motifs: ePiC §5.3 compares narratives through their distributions over proverbs
(softmax of the proverb scores) rather than through their embeddings directly. Both are offered; the
validation part decides the default (see `python -m studio eval proverbs`)."""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import jensenshannon

METHODS = ("proverb-distribution-cosine", "proverb-distribution-js", "embedding-cosine")
#: the method that ranked same-proverb narratives best on the validation part (see the README figures)
DEFAULT_METHOD = "proverb-distribution-cosine"
DISTRIBUTION_TEMPERATURE = 1.0  # the scorer's scores are logits (calibrated when the fine-tuned encoder serves)


def proverb_distributions(scores: np.ndarray, temperature: float = DISTRIBUTION_TEMPERATURE) -> np.ndarray:
    z = (scores - scores.max(axis=1, keepdims=True)) / temperature
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def similarity_matrix(method: str, queries_scores: np.ndarray, queries_emb: np.ndarray | None,
                      pool_scores: np.ndarray, pool_emb: np.ndarray | None) -> np.ndarray:
    """(n_queries, n_pool) similarities; higher is more alike. The embeddings are read by "embedding-cosine" only."""
    if method == "embedding-cosine":
        return queries_emb @ pool_emb.T
    q, p = proverb_distributions(queries_scores), proverb_distributions(pool_scores)
    if method == "proverb-distribution-cosine":
        qn = q / np.linalg.norm(q, axis=1, keepdims=True)
        pn = p / np.linalg.norm(p, axis=1, keepdims=True)
        return qn @ pn.T
    if method == "proverb-distribution-js":
        return 1.0 - jensenshannon(q[:, None, :], p[None, :, :], base=2, axis=-1)
    raise ValueError(f"unknown similarity method {method!r}; choose one of {', '.join(METHODS)}")
