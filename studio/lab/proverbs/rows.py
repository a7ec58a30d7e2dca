"""ePiC rows as the proverb trainers and evaluations read them: their embeddings (cached) and their proverbs' places
in the catalog."""
from __future__ import annotations

import numpy as np

from ...embeddings import embed_cached
from ...errors import InputError
from ...models import get_registry
from ...proverbs.alignment import sentence_spans
from ...proverbs.index import EMBEDDER_ROLE, get_index


def embedded_rows(rows, progress=None):
    """(index, doc embeddings, per-row sentence embeddings) for ePiC rows, cached on disk."""
    index = get_index()
    embedder = get_registry().get(EMBEDDER_ROLE)
    sentences = [[s.text for s in sentence_spans(r.text)] or [r.text] for r in rows]
    flat = [r.text for r in rows] + [s for group in sentences for s in group]
    vectors = embed_cached(embedder, flat, "epic", progress)
    docs, cursor, sents = vectors[:len(rows)], len(rows), []
    for group in sentences:
        sents.append(vectors[cursor:cursor + len(group)])
        cursor += len(group)
    return index, docs, sents


def labels_of(rows, catalog) -> np.ndarray:
    out = []
    for r in rows:
        i = catalog.find(r.quote_id)
        if i is None or catalog[i].quote_id != r.quote_id:
            raise InputError(f"ePiC proverb {r.quote_id} is not in the catalog; "
                             "rebuild it (`python -m studio build proverbs`)")
        out.append(i)
    return np.array(out)
