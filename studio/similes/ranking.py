"""Polish's order: keep (the `polish_ranker` role) for each candidate, and the writer's reread of the best ones."""
from __future__ import annotations

import logging
import re

import numpy as np

from ..models import ModelUnavailable, get_registry
from .polisher import Candidate
from .realiser import is_clause

log = logging.getLogger(__name__)


#: the writer (the largest offline LM) rereads the list: the first WRITER_READS_TOP candidates are ordered by keep
#: computed again with the writer's log-likelihood of the simile in the sentence (the `polish_ranker` role's reread
#: weights, aptness.REREAD_FEATURES)
#: why: docs/experiments.md#polish-learned-reread-served
WRITER_READS_TOP = 20
#: the writer's backends that reread: llama.cpp (the offline profile); the hub profile's float32 transformers writer
#: (6 GB) does not, and the tiny profile serves no keep to compute again
#: why: docs/experiments.md#polish-writer-review
REREAD_BACKENDS = ("gguf_writer",)


def keep_probabilities(candidates: list[Candidate], literal: str, doc) -> dict[int, np.ndarray] | None:
    """Sets each candidate's `keep` from the `polish_ranker` role (studio/similes/aptness.py) and returns its feature
    rows by id(candidate), what the writer's reread adds to; None, with nothing set, when the role or the embedder it
    was fitted with is not served (hub and tiny profiles, no asset)."""
    from . import aptness

    if not candidates:
        return None
    try:
        ranker, embedder = get_registry().get("polish_ranker"), get_registry().get("embedder")
    except ModelUnavailable:
        return None
    items = [aptness.Item(c.vehicle, c.score, c.strategy, c.attested, c.kind, c.cue, is_clause(c.vehicle))
             for c in candidates]
    x = aptness.features(items, literal, aptness.subject_of(doc), embedder.encode)
    for c, p in zip(candidates, aptness.p_keep(ranker.weights, x)):
        c.keep = round(float(p), 4)
    return {id(c): row for c, row in zip(candidates, x)}


def simile_tail(c: Candidate) -> tuple[str, str] | None:
    """(the sentence up to the comparison word of the simile, the rest of the phrase): ("The boy ate his soup noisily
    like", " a pig"), ("The suitcase was as", " heavy as lead"); None when the phrase has no comparison word."""
    m = _TAIL.match(c.phrase)
    if not m:
        return None
    return (c.sentence[:c.offset] + m.group(1)).strip(), " " + m.group(2).rstrip(".,;:!? ")


_TAIL = re.compile(r"^(.*?\b(?:as|like|than)\b)\s+(.+)$", re.I | re.S)


def tails_by_beginning(tails) -> dict[str, list[str]]:
    """`simile_tail`s (None skipped) as the writer is asked them: beginning → its distinct continuations, in order
    (one shared beginning is read once)."""
    asks: dict[str, list[str]] = {}
    for tail in tails:
        if tail is not None and tail[1] not in asks.setdefault(tail[0], []):
            asks[tail[0]].append(tail[1])
    return asks


def writer_order(ranked: list[Candidate], rows: dict[int, np.ndarray]) -> tuple[list[Candidate], bool]:
    """The first WRITER_READS_TOP candidates ordered by keep computed again with the writer's log-likelihood per
    token of the simile in the sentence (`simile_tail`; the `polish_ranker` role's reread weights over
    aptness.REREAD_FEATURES, `rows` keep's feature rows by id); ties keep the list's order, and each of them takes
    the new keep (the image table's and the writer's lines too, which had none). The rest follow as they were.
    (list, False) when the profile's writer does not reread (REREAD_BACKENDS), the ranker has no reread weights for
    this writer, or the writer cannot serve or fails while reading: the list is then as it was.
    why: docs/experiments.md#polish-learned-reread-served"""
    from ..models import ModelUnavailable, get_registry
    from . import aptness

    top = ranked[:WRITER_READS_TOP]
    tails = [simile_tail(c) for c in top]
    asks = tails_by_beginning(tails)
    if len(top) < 2 or not asks:
        return ranked, False
    registry = get_registry()
    if registry.spec("writer").backend not in REREAD_BACKENDS:
        return ranked, False
    contexts = list(asks)
    try:
        weights = registry.get("polish_ranker").reread
        if weights is None or list(weights["features"]) != list(aptness.REREAD_FEATURES):
            return ranked, False  # none, or fitted on other features than this code reads
        results = registry.get("writer").loglik_many([(ctx, asks[ctx], None) for ctx in contexts])
    except ModelUnavailable:
        return ranked, False
    except Exception as exc:  # noqa: BLE001 — a reread that fails leaves the list as it was; the user gets the list
        log.warning("the writer's reread failed, the list keeps its order: %s", exc)
        return ranked, False
    per_token = {(ctx, cont): total / max(count, 1) for ctx, result in zip(contexts, results)
                 for cont, (total, count) in zip(asks[ctx], result)}
    x = aptness.reread_features(np.stack([rows[id(c)] for c in top]),
                                [per_token[tail] if tail is not None else float("-inf") for tail in tails])
    p = aptness.p_keep(weights, x, aptness.REREAD_FEATURES)
    for c, value in zip(top, p):  # the image table's and the writer's lines too: it ranks them, calibrated alike
        c.keep = round(float(value), 4)
    order = sorted(range(len(top)), key=lambda i: (-p[i], i))
    return [top[i] for i in order] + ranked[len(top):], True
