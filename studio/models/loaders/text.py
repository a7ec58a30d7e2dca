"""Text backends: sentence embedders, NLI and sentiment classifiers (transformers, heads, VADER)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import heads
from ..roles import NLI_LABELS, Embedder, NLIModel, SentimentModel
from .common import LoadError, device, fast_bfloat16, quiet_transformers, refuse_pickled_weights
from .split_package import resolve_model_path


class SentenceTransformerEmbedder(Embedder):
    def __init__(self, model, model_id: str, backend: str):
        self._model, self.model_id, self.backend = model, model_id, backend
        self.dim = int(model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension")
                       else model.get_sentence_embedding_dimension())

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                 convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)

    def close(self) -> None:
        self._model = None


def sentence_transformer(model_id: str):
    """A sentence-transformers model from a hub id, local path or packaged weights (safetensors only)."""
    from sentence_transformers import SentenceTransformer

    quiet_transformers()
    path = resolve_model_path(model_id)
    refuse_pickled_weights(path)
    return SentenceTransformer(path, device=device(), trust_remote_code=False)


def load_sentence_transformer(spec, registry) -> Embedder:
    """bfloat16 where the spec asks for it and the CPU multiplies bf16 natively, once it has shown on the probe
    texts that it embeds like float32 here; float32 otherwise."""
    # an override's note says where it came from, not what it is: its folder or hub name does
    overridden = spec.note.startswith("override")
    name = spec.model_id.rstrip("/").rsplit("/", 1)[-1] if overridden or not spec.note else spec.note
    model = sentence_transformer(spec.model_id)
    if not (spec.bfloat16 and device() == "cpu" and fast_bfloat16()):
        return SentenceTransformerEmbedder(model, spec.model_id, f"{name} (sentence-transformers)")
    import torch

    from .. import selfcheck

    served = SentenceTransformerEmbedder(model, spec.model_id, f"{name}, bfloat16 (sentence-transformers)")
    reference = served.encode(list(selfcheck.PROBE_TEXTS))  # still float32 here
    model.to(torch.bfloat16)
    verdict = selfcheck.check_embedder("bfloat16", served.encode, reference,
                                       selfcheck.cpu_key(f"torch {torch.__version__}"), selfcheck.BF16_MIN_COSINE,
                                       selfcheck.BF16_MIN_COSINE)
    if verdict.passed:
        served.checks = [verdict]
        return served
    fallback = float32_sentence_transformer(spec.model_id, name)
    fallback.checks = [verdict]
    fallback.backend += "; bfloat16 failed its self-check on this CPU"
    return fallback


def float32_sentence_transformer(model_id: str, name: str) -> "SentenceTransformerEmbedder":
    """The model as its weights are, in float32 with torch: the reference every fast form is checked against."""
    return SentenceTransformerEmbedder(sentence_transformer(model_id).float(), model_id,
                                       f"{name} (sentence-transformers, float32)")


class AliasEmbedder(Embedder):
    """Another role's embedder serving under this role's name: in the hub profile `retrieval_embedder` and
    `embedder` name the same model, which is then loaded and held once. Always asks the registry, so it follows
    the other role through unloads and reloads."""

    def __init__(self, registry, target: str):
        base = registry.get(target)
        self._registry, self.shares_weights_of = registry, target
        self.model_id, self.dim, self.backend = base.model_id, base.dim, f"same model as `{target}`"

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return self._registry.get(self.shares_weights_of).encode(texts, batch_size=batch_size)


def load_alias(spec, registry) -> Embedder:
    return AliasEmbedder(registry, spec.model_id)


class TransformersClassifier:
    """A sequence classifier whose label names say what each column means."""

    def __init__(self, model_id: str):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        quiet_transformers()
        path = resolve_model_path(model_id)
        refuse_pickled_weights(path)
        self.device = device()
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForSequenceClassification.from_pretrained(
            path, use_safetensors=True, trust_remote_code=False).to(self.device).eval()
        self.labels = [self.model.config.id2label[i].lower() for i in range(self.model.config.num_labels)]
        self._torch = torch

    def probs(self, first: Sequence[str], second: Sequence[str] | None, batch_size: int) -> np.ndarray:
        torch, out = self._torch, []
        for i in range(0, len(first), batch_size):
            a = list(first[i:i + batch_size])
            b = list(second[i:i + batch_size]) if second is not None else None
            enc = self.tokenizer(a, b, padding=True, truncation=True, max_length=512, return_tensors="pt").to(self.device)
            with torch.inference_mode():
                out.append(torch.softmax(self.model(**enc).logits.float(), dim=-1).cpu().numpy())
        return np.concatenate(out).astype(np.float64) if out else np.zeros((0, len(self.labels)))

    def column(self, label: str) -> int:
        matches = [i for i, name in enumerate(self.labels) if name.startswith(label[:3])]
        if not matches:
            raise LoadError(f"the classifier's labels {self.labels} have no {label!r}", "choose a model with that label")
        return matches[0]


class TransformersNLI(NLIModel):
    def __init__(self, clf: TransformersClassifier, model_id: str):
        self._clf, self.model_id = clf, model_id
        self.backend = f"{model_id} (transformers)"
        self._order = [clf.column(label) for label in NLI_LABELS]

    def predict(self, premises, hypotheses, batch_size: int = 32) -> np.ndarray:
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        # premise and hypothesis go in as a sentence pair, as the model was trained
        return self._clf.probs(premises, hypotheses, batch_size)[:, self._order] if len(premises) else np.zeros((0, 3))

    def close(self) -> None:
        self._clf = None


class TransformersSentiment(SentimentModel):
    def __init__(self, clf: TransformersClassifier, model_id: str):
        self._clf, self.model_id = clf, model_id
        self.backend = f"{model_id} (transformers)"
        self._pos = clf.column("positive")

    def p_positive(self, texts, batch_size: int = 64) -> np.ndarray:
        return self._clf.probs(texts, None, batch_size)[:, self._pos] if len(texts) else np.zeros(0)

    def close(self) -> None:
        self._clf = None


def load_transformers_nli(spec, registry) -> NLIModel:
    return TransformersNLI(TransformersClassifier(spec.model_id), spec.model_id)


def load_transformers_sentiment(spec, registry) -> SentimentModel:
    return TransformersSentiment(TransformersClassifier(spec.model_id), spec.model_id)


class VaderSentiment(SentimentModel):
    backend = "VADER (lexicon rules)"
    model_id = "vaderSentiment"

    def __init__(self):
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

        self._analyzer = SentimentIntensityAnalyzer()

    def p_positive(self, texts, batch_size: int = 64) -> np.ndarray:
        # compound lies in [-1, 1]; map it to [0, 1] so that it reads like a probability
        return np.array([(self._analyzer.polarity_scores(t)["compound"] + 1) / 2 for t in texts], dtype=np.float64)


def load_vader(spec, registry) -> SentimentModel:
    return VaderSentiment()


def _head(spec, registry, cls, unavailable_reason: str):
    if not heads.has_head(spec.model_id):
        raise LoadError(spec.unavailable_reason or unavailable_reason, spec.fix, unavailable=True)
    cfg, module = heads.load_head(spec.model_id)
    return cls(registry.get("embedder"), cfg, module, spec.model_id)


def load_head_sentiment(spec, registry) -> SentimentModel:
    return _head(spec, registry, heads.HeadSentiment, f"no sentiment head at {spec.model_id}")


def load_head_sentiment_or_vader(spec, registry) -> SentimentModel:
    if heads.has_head(spec.model_id):
        return load_head_sentiment(spec, registry)
    return VaderSentiment()

