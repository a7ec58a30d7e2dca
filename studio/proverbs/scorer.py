"""Scoring every catalog proverb for a narrative.

Six similarity channels, each a cosine between embedder outputs: the whole narrative and its best-matching
sentence, each against the proverb text and against its meaning (the untrained part), and the same two
narrative views mapped by a learned linear adapter against learned proverb vectors (the trained part).
The adapter, the per-proverb vectors (initialised from the prototypes of the training narratives) and the
channel weights are fitted by `python -m studio train proverbs` and saved in assets/proverbs/ as plain
safetensors arrays tied to the embedder's model_id (their format and loading: studio/models/proverbs_head.py, the
registry's `proverbs_adapter` role); with another embedder the untrained channels serve alone.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..models import ModelUnavailable, get_registry
from ..models.proverbs_head import TrainedParts
from ..models.specs import canonical_model_id, display_name
from .index import ProverbIndex

#: untrained channel weights (narrative·text, narrative·meaning, sentence·text, sentence·meaning): measured
#: on the training part; the meanings carry most of the signal
UNTRAINED_WEIGHTS = (0.3, 0.7, 0.3, 0.7)


def normalize_rows(x: np.ndarray) -> np.ndarray:
    return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 1e-6)


def load_trained() -> TrainedParts | None:
    """The three-pass adapter (fitted on the retrieval embedder's embeddings), from the registry's
    `proverbs_adapter` role; None when none is trained."""
    head = adapters()
    return head.three_pass if head is not None else None


def adapters():
    """The registry's `proverbs_adapter` role (both adapters), or None when none is trained."""
    try:
        return get_registry().get("proverbs_adapter")
    except ModelUnavailable:
        return None


@dataclass
class FineTunedPart:
    """The fine-tuned encoder's channel (see finetune.py): its narrative embedding against its embedding of
    "proverb — meaning", added to the other channels' score with a weight chosen on an inner split of the
    training part."""
    role: str  # the registry role serving the fine-tuned encoder (the retrieval embedder + the trained delta)
    class_vectors: np.ndarray  # (n_catalog, d)
    weight: float
    scale: float
    #: divides the combined score so that its softmax is calibrated (chosen by log-loss on the inner split)
    #: why: docs/experiments.md#proverbs-temperature
    temperature: float = 1.0

    @property
    def embedder(self):
        """Asked of the registry at each use, so that an unload there frees it (it is reloaded when needed)."""
        return get_registry().get(self.role)


class Scorer:
    """Scores of all catalog proverbs for narratives given as (narrative embedding, sentence embeddings) and,
    when a fine-tuned encoder is served, its narrative embedding.

    `one_pass`: the adapter was fitted on the fine-tuned encoder's narrative embeddings, which then feed every
    channel (the narrative stands for its best sentence): a query costs one encoder pass instead of three."""

    def __init__(self, index: ProverbIndex, trained: TrainedParts | None, finetuned: FineTunedPart | None = None,
                 one_pass: bool = False):
        if one_pass and (finetuned is None or trained is None):
            raise ValueError("the one-pass scorer needs the fine-tuned encoder and its adapter")
        self.index = index
        self.finetuned = finetuned
        self.one_pass = one_pass
        same = trained is not None and canonical_model_id(trained.model_id) == canonical_model_id(index.model_id)
        self.trained = trained if same else None
        self.available_trained = trained
        if self.trained is not None:
            t = self.trained
            text, meaning = index.text, index.meaning
            vectors = t.mix[0] * text + t.mix[1] * meaning  # additions: no training narratives, no offset
            for row, quote_id in enumerate(t.quote_ids):
                i = index.catalog.find(quote_id)
                if i is not None and index.catalog[i].quote_id == quote_id:
                    vectors[i] += t.mix[2] * t.prototypes[row] + t.offsets[row]
            self.class_vectors = normalize_rows(vectors).astype(np.float32)

    @property
    def is_trained(self) -> bool:
        return self.trained is not None

    @property
    def description(self) -> str:
        if self.one_pass:
            return f"fine-tuned encoder ({self.finetuned.embedder.backend}), one pass, + its learned adapter"
        if self.finetuned is not None:
            rest = "learned adapter" if self.trained is not None else "untrained similarity channels"
            return f"fine-tuned encoder ({self.finetuned.embedder.backend}) + {rest}"
        if self.trained is not None:
            return f"learned adapter (trained on ePiC with {display_name(self.trained.model_id)})"
        if self.available_trained is not None:
            return (f"untrained similarity: the learned adapter was trained with "
                    f"{display_name(self.available_trained.model_id)}, not with this embedder "
                    f"({display_name(self.index.model_id)})")
        return "untrained similarity: no learned adapter in assets/proverbs (run `python -m studio train proverbs`)"

    def channels(self, doc: np.ndarray, sentences: list[np.ndarray]) -> list[np.ndarray]:
        """Per channel, an (n_narratives, n_proverbs) similarity matrix."""
        text, meaning = self.index.text, self.index.meaning
        best_text = np.stack([(s @ text.T).max(axis=0) for s in sentences])
        best_meaning = np.stack([(s @ meaning.T).max(axis=0) for s in sentences])
        out = [doc @ text.T, doc @ meaning.T, best_text, best_meaning]
        if self.trained is not None:
            a = self.trained.adapter
            out.append(normalize_rows(doc @ a) @ self.class_vectors.T)
            out.append(np.stack([(normalize_rows(s @ a) @ self.class_vectors.T).max(axis=0) for s in sentences]))
        return out

    def score(self, doc: np.ndarray, sentences: list[np.ndarray], tuned_doc: np.ndarray | None = None) -> np.ndarray:
        """(n_narratives, n_proverbs) scores on a logit scale (a softmax over them is a distribution). A one-pass
        scorer reads only `tuned_doc` (its adapter was fitted on those embeddings); `doc` and `sentences` may then
        be None."""
        if self.finetuned is not None and tuned_doc is None:
            raise ValueError("this scorer needs the fine-tuned encoder's narrative embeddings")
        if self.one_pass:  # the narrative stands for its best sentence
            doc, sentences = tuned_doc, [d[None] for d in tuned_doc]
        chans = self.channels(doc, sentences)
        if self.finetuned is not None:
            f = self.finetuned
            combined = self._score(chans) + f.weight * f.scale * (tuned_doc @ f.class_vectors.T)
            return (combined / f.temperature).astype(np.float32)
        return self._score(chans)

    def score_one_pass(self, tuned_doc: np.ndarray) -> np.ndarray:
        """Scores from the fine-tuned encoder's narrative embeddings alone (a one-pass scorer)."""
        if not self.one_pass:
            raise ValueError("this scorer needs the base embedder's narrative and sentence embeddings too")
        return self.score(None, None, tuned_doc)

    def _score(self, chans: list[np.ndarray]) -> np.ndarray:
        if self.trained is not None:
            weights, scale = self.trained.weights, self.trained.scale
        else:
            # the scale changes no ranking; it only makes the displayed softmax about as peaked as the trained one's
            weights, scale = np.array(UNTRAINED_WEIGHTS), 10.0
        return (scale * sum(w * c for w, c in zip(weights, chans))).astype(np.float32)
