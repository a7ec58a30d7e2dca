"""The offline profile's `nli` role: a cross-encoder reading "premise [SEP] hypothesis" together
(studio.models.pair_encoder with a 3-way classifier; weights in assets/heads/nli-cross/, trained by
`python -m studio train nli-cross`). Unlike a head on two separate sentence embeddings, it sees which words of the
hypothesis contradict which of the premise ("as loud as a whisper" against "very loud")."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .loaders.common import LoadError
from .pair_encoder import describe_base
from .pair_folder import has_pair_encoder
from .roles import NLI_LABELS, NLIModel


class CrossEncoderNLI(NLIModel):
    def __init__(self, config: dict, tok, model, model_id: str):
        self.config, self.tok, self.model, self.model_id = config, tok, model, model_id
        self.backend = f"cross-encoder over {describe_base(config)} (torch)"
        labels = config["labels"]
        self._order = [labels.index(label) for label in NLI_LABELS]
        self.max_length = int(config["max_length"])

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int = 32) -> np.ndarray:
        from .pair_encoder import class_probabilities

        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        if not len(premises):
            return np.zeros((0, 3))
        probs = class_probabilities(self.tok, self.model, premises, hypotheses, self.max_length, batch_size)
        return probs[:, self._order]


def load_cross_nli(folder) -> CrossEncoderNLI:
    from .pair_encoder import load_pair_encoder

    config, tok, model = load_pair_encoder(folder)
    if config.get("kind") != "nli" or sorted(config.get("labels", [])) != sorted(NLI_LABELS):
        raise ValueError(f"{folder} holds no NLI cross-encoder (kind {config.get('kind')!r})")
    return CrossEncoderNLI(config, tok, model, str(folder))


def load_pair_nli(spec, registry) -> NLIModel:
    """The registry's loader of the `pair_nli` backend."""
    if not has_pair_encoder(spec.model_id):
        raise LoadError(spec.unavailable_reason or f"no NLI cross-encoder at {spec.model_id}", spec.fix,
                        unavailable=True)
    return load_cross_nli(spec.model_id)
