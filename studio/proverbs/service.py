"""The proverbs capability's front door, what the tab, the CLI and the API call: rank the catalog for a narrative,
align a proverb with it, and find narratives with similar motifs; the limits and defaults they state, a proverb's
usage note, and whether the encoders are loaded yet. Embeddings come from the registry's embedder."""
from __future__ import annotations

import functools
import logging
import re
import threading
from dataclasses import dataclass

import numpy as np

from ..embeddings import embed_cached
from ..errors import InputError, require_text
from ..figures.english import refuse_non_english
from ..figures.narrative import (MAX_NARRATIVE_CHARS, MIN_NARRATIVE_WORDS, clean_narrative, spelling_notice,
                                too_few_words)
from ..models import READY, ModelUnavailable, get_registry
from . import alignment
from .alignment import DEFAULT_THRESHOLD
from .catalog import Proverb, load_catalog, usage_note
from .index import ALIGNMENT_ROLE, EMBEDDER_ROLE, TUNED_ROLE, get_index
from .motifs import DEFAULT_METHOD, METHODS, similarity_matrix
from .scorer import FineTunedPart, Scorer, adapters
from ..textspans import blank_markup, prose

log = logging.getLogger(__name__)
MAX_POOL = 200  # narratives compared in one "similar" request
MAX_REFUSALS_SAID = 5  # refused narratives of a "similar" request named in its message


@dataclass
class Ranked:
    rank: int
    proverb: Proverb
    score: float
    probability: float

    def to_json(self) -> dict:
        p = self.proverb
        return {"rank": self.rank, "id": p.id, "quote_id": p.quote_id, "proverb": p.text, "meaning": p.meaning,
                "themes": list(p.themes), "score": round(self.score, 4), "probability": round(self.probability, 4)}


__all__ = ["MAX_NARRATIVE_CHARS", "MAX_POOL", "SHARED_TOP", "DEFAULT_THRESHOLD", "DEFAULT_METHOD", "METHODS",
           "ALIGNMENT_ROLE", "EMBEDDER_ROLE", "Ranked", "Similar", "align", "clean_narrative", "encoders_ready",
           "get_scorer", "ranking", "resolve_proverb", "similar", "spelling_notice", "usage_note"]


def encoders_ready() -> bool:
    """Whether the proverbs' embedder is loaded (a first request then waits for no export), from the registry's
    status: no model is loaded to find out."""
    return any(row["role"] == EMBEDDER_ROLE and row["state"] == READY for row in get_registry().status())


_lock = threading.Lock()
_scorers: dict[int, Scorer] = {}


def get_scorer() -> Scorer:
    index = get_index()
    scorer = _scorers.get(id(index))
    if scorer is None:
        with _lock:
            _scorers.clear()
            scorer = _scorers[id(index)] = build_scorer(index)
    return scorer


def build_scorer(index) -> Scorer:
    """The one-pass scorer (fine-tuned encoder + the adapter fitted on its embeddings) when both ship and belong
    together; else the fine-tuned encoder beside the base adapter (three passes); else what is there."""
    import dataclasses

    from .delta import delta_digest

    finetuned = finetuned_part(index)
    head = adapters()
    three, one = (head.three_pass, head.one_pass) if head is not None else (None, None)
    if one is not None and finetuned is not None and one.config.get("encoder_delta_sha256") == delta_digest():
        part = dataclasses.replace(finetuned, weight=float(one.config["weight"]),
                                   temperature=float(one.config["temperature"]))
        scorer = Scorer(index, one, part, one_pass=True)
        if scorer.is_trained:  # same base embedder as the index
            return scorer
    if one is not None and finetuned is not None:
        log.warning("assets/proverbs/scorer_onepass.* was fitted for another encoder delta or base; "
                    "retrain it (`python -m studio train proverbs --what one-pass`); three passes serve")
    return Scorer(index, three, finetuned)


def finetuned_part(index) -> FineTunedPart | None:
    """The fine-tuned encoder (the registry's `proverbs_encoder` role) when assets/proverbs holds one trained from
    the registry's embedder, else None (the learned adapter or the untrained channels then serve, and the
    scorer's description says which)."""
    from .delta import class_text, load_finetune_config

    config = load_finetune_config()
    if config is None:
        return None
    try:
        embedder = get_registry().get(TUNED_ROLE)
    except ModelUnavailable as exc:  # e.g. a delta from another base, or its int8 export failed
        log.warning("the fine-tuned proverb encoder is not served: %s", exc.reason)
        return None
    vectors = embed_cached(embedder, [class_text(p) for p in index.catalog.proverbs], "classes")
    return FineTunedPart(TUNED_ROLE, vectors, float(config["weight"]), float(config["scale"]),
                         float(config.get("temperature", 1.0)))


def tuned_embeddings(scorer: Scorer, texts: list[str]) -> np.ndarray | None:
    return scorer.finetuned.embedder.encode(list(texts)) if scorer.finetuned is not None else None


def embed_narratives(texts: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Whole-narrative and per-sentence embeddings. Two calls, because one batch would pad every short
    sentence to the length of the whole narrative (about twice the work)."""
    groups = [[s.text for s in alignment.sentence_spans(t)] or [t] for t in texts]
    embedder = get_registry().get(EMBEDDER_ROLE)
    docs = embedder.encode(list(texts))
    vectors = embedder.encode([s for g in groups for s in g])
    cursor, sents = 0, []
    for g in groups:
        sents.append(vectors[cursor:cursor + len(g)])
        cursor += len(g)
    return docs, sents


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max())
    return z / z.sum()


def rank_texts(narratives: list[str]) -> np.ndarray:
    narratives = [prose(n) for n in narratives]  # a visitor's pasted tags changed the proverbs
    scorer = get_scorer()
    if scorer.one_pass:
        return scorer.score_one_pass(tuned_embeddings(scorer, narratives))
    docs, sents = embed_narratives(narratives)
    return scorer.score(docs, sents, tuned_embeddings(scorer, narratives))


def story(narrative: str) -> str:
    """The cleaned narrative, or an InputError when it is too short to carry a proverb ("Hello."): the check of
    every Proverbs mode (recommend, align, similar)."""
    narrative = clean_narrative(narrative)
    if (words := too_few_words(narrative)) is not None:  # "Hello." is refused rather than given five proverbs
        raise InputError(f"The narrative is too short to carry a proverb ({words} word{'s' if words != 1 else ''}): "
                         f"a proverb sums up a story, so tell what happened in a sentence or more (at least "
                         f"{MIN_NARRATIVE_WORDS} words).")
    sentences = [x.strip() for x in re.split(r"(?<=[.!?…])\s+", narrative.strip()) if re.search(r"\w", x)]
    # a question asked inside quotes belongs to a story ('She asked, "Why do you always lie?"')
    if sentences and all(re.search(r"\?[!?]*$", x) and not re.search(r"[\"“”]", x) for x in sentences):
        raise InputError("The narrative is only a question: a proverb sums up a story, so tell what happened "
                         "(\"The tortoise kept walking while the hare slept, and won the race.\").")
    return narrative


def ranking(narrative: str, k: int | None = None) -> list[Ranked]:
    """All catalog proverbs (or the top k) for one narrative, best first."""
    narrative = story(narrative)
    if k is not None and (not isinstance(k, int) or k < 1):
        raise InputError("k must be a whole number of at least 1.")
    scores = rank_texts([narrative])[0]
    probs = _softmax(scores.astype(np.float64))
    order = np.argsort(-scores, kind="stable")[:k]
    catalog = load_catalog()
    return [Ranked(r + 1, catalog[i], float(scores[i]), float(probs[i])) for r, i in enumerate(order)]


def resolve_proverb(key: str) -> tuple[str, Proverb | None]:
    """(proverb text, catalog entry or None) for an id, quote_id or text; unknown text is aligned as it is, once it
    reads as English (a Spanish proverb aligned with an English story found nothing, and said nothing of why).
    Memoised: one Align click resolves its proverb for the highlight, the alignment and the note."""
    return _resolve(load_catalog(), get_registry(), require_text(key, "proverb", 500))


@functools.lru_cache(maxsize=64)
def _resolve(catalog, registry, key: str) -> tuple[str, Proverb | None]:
    # keyed by the catalog (a rebuilt one is new) and the registry (whose language check read a typed proverb)
    i = catalog.find(key)
    if i is not None:
        return catalog[i].text, catalog[i]
    # an id no proverb has ("Q99999" was aligned as a proverb's text; "3" was refused as a text of no words)
    if re.fullmatch(r"\s*[QqSs]?\d+\s*", key):
        raise InputError(f"No proverb of the catalog has the id {key.strip()!r}: give a catalog id (Q1, S48, …), "
                         "an ePiC quote_id or the proverb's text.")
    refuse_non_english(key, "proverb")
    return key, None


def align(narrative: str, proverb: str, threshold: float = alignment.DEFAULT_THRESHOLD) -> list[alignment.AlignedPair]:
    narrative = story(narrative)
    text, _ = resolve_proverb(proverb)
    parser = get_registry().get("parser")
    phrases = alignment.proverb_phrases(text, parser)
    # the tags blanked keep the offsets into the text as typed; each span's words said with single spaces
    candidates = [alignment.Span(" ".join(c.text.split()), c.start, c.end)
                  for c in alignment.narrative_candidates(blank_markup(narrative))]
    if not phrases or not candidates:
        return []
    vectors = get_registry().get(ALIGNMENT_ROLE).encode([p.text for p in phrases] + [c.text for c in candidates])
    sim = vectors[:len(phrases)] @ vectors[len(phrases):].T
    return alignment.assign(sim, phrases, candidates, len(text), len(narrative), threshold=threshold)


@dataclass
class Similar:
    narrative: str
    similarity: float
    #: the proverbs among the query's top SHARED_TOP that are among this narrative's too, the query's best first:
    #: what the two stories have in common, in the catalog's words
    shared: tuple[str, ...]


#: how many of each narrative's best proverbs `Similar.shared` compares
SHARED_TOP = 5


def similar(query: str, pool: list[str], method: str = DEFAULT_METHOD) -> list[Similar]:
    """The pool's narratives ordered by motif similarity to the query, best first."""
    query = story(query)
    if method not in METHODS:
        raise InputError(f"Unknown method {method!r}; choose one of {', '.join(METHODS)}.")
    lines = [(k, p.strip()) for k, p in enumerate(pool, 1) if p and p.strip() and p.strip() != query]
    if not lines:
        raise InputError("Give at least one other narrative to compare with (one per line).")
    if len(lines) > MAX_POOL:
        raise InputError(f"At most {MAX_POOL} narratives can be compared at once; {len(lines)} were given.")
    # named by its line as typed (blank lines and the query's own copy are skipped, not renumbered); every refused
    # line at once, so that a visitor mends them in one go
    pool, refused = [], []
    for k, p in lines:
        try:
            pool.append(clean_narrative(p, f"narrative on line {k} to compare"))
        except InputError as exc:
            refused.append(str(exc))
            continue
        if (words := too_few_words(pool[-1])) is not None:  # as the narrative itself ("x" was ranked third)
            refused.append(f"The narrative on line {k} to compare is too short to carry a proverb ({words} "
                           f"word{'s' if words != 1 else ''}; at least {MIN_NARRATIVE_WORDS}).")
    if refused:
        more = f" ({len(refused)} lines are refused.)" if len(refused) > 1 else ""
        raise InputError(" ".join(refused[:MAX_REFUSALS_SAID]) + (" …" if len(refused) > MAX_REFUSALS_SAID else "")
                         + more)
    texts = [query] + pool
    # the query read alone, as the ranking reads it (a batch pads it, which can swap two close proverbs), so its
    # best proverbs here are the ranking's
    scores = np.vstack([rank_texts([query]), rank_texts(pool)])
    if method == "embedding-cosine":  # the only method that compares the narratives' own embeddings
        docs = get_registry().get(EMBEDDER_ROLE).encode([prose(t) for t in texts])
        sims = similarity_matrix(method, scores[:1], docs[:1], scores[1:], docs[1:])[0]
    else:
        sims = similarity_matrix(method, scores[:1], None, scores[1:], None)[0]
    top = np.argsort(-scores, axis=1, kind="stable")[:, :SHARED_TOP]
    catalog = load_catalog()
    order = np.argsort(-sims, kind="stable")
    return [Similar(pool[i], float(sims[i]), tuple(catalog[j].text for j in top[0] if j in set(top[i + 1])))
            for i in order]
