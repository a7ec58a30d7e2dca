"""The offline profile's `sentiment` role: MiniLM fine-tuned as a binary classifier of one text
(studio.models.pair_encoder with a 2-way classifier; weights in assets/heads/sentiment-cross/, trained by
`python -m studio train sentiment-cross`). It reads the words themselves, where the older linear head read a frozen
sentence embedding; one pass per text either way."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .roles import SentimentModel

#: SST-2's order: label 0 negative, 1 positive
SENTIMENT_LABELS = ("negative", "positive")


class CrossEncoderSentiment(SentimentModel):
    def __init__(self, config: dict, tok, model, model_id: str):
        self.config, self.tok, self.model, self.model_id = config, tok, model, model_id
        self.backend = "all-MiniLM-L6-v2 fine-tuned on SST-2 (torch)"
        self._pos = list(config["labels"]).index("positive")
        self.max_length = int(config["max_length"])

    def p_positive(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        from .pair_encoder import class_probabilities

        texts = list(texts)
        if not texts:
            return np.zeros(0)
        return class_probabilities(self.tok, self.model, texts, None, self.max_length, batch_size)[:, self._pos]


def load_cross_sentiment(folder) -> CrossEncoderSentiment:
    from .pair_encoder import load_pair_encoder

    config, tok, model = load_pair_encoder(folder)
    if config.get("kind") != "sentiment" or sorted(config.get("labels", [])) != sorted(SENTIMENT_LABELS):
        raise ValueError(f"{folder} holds no sentiment classifier (kind {config.get('kind')!r})")
    return CrossEncoderSentiment(config, tok, model, str(folder))
