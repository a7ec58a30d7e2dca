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
        import torch

        texts = list(texts)
        out = np.zeros(len(texts))
        # similar lengths together: less padding; the answer comes back in the input order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with torch.inference_mode():
            for s in range(0, len(order), batch_size):
                idx = order[s:s + batch_size]
                x = self.tok([texts[i] for i in idx], truncation=True, max_length=self.max_length, padding=True,
                             return_tensors="pt")
                out[idx] = torch.softmax(self.model(**x).float(), dim=-1).numpy()[:, self._pos]
        return out


def load_cross_sentiment(folder) -> CrossEncoderSentiment:
    from .pair_encoder import load_pair_encoder

    config, tok, model = load_pair_encoder(folder)
    if config.get("kind") != "sentiment" or sorted(config.get("labels", [])) != sorted(SENTIMENT_LABELS):
        raise ValueError(f"{folder} holds no sentiment classifier (kind {config.get('kind')!r})")
    return CrossEncoderSentiment(config, tok, model, str(folder))
