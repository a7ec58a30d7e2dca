"""Text metrics for a pair (reference, hypothesis) and their ImaginE-augmented sums (Eq. 4: metric' = metric + ImaginE).

All three metrics are on a 0-1 scale (BLEU divided by 100) so that adding an ImaginE score, itself
calibrated to about 0-1, weighs both parts alike, as in the paper.
"""
from __future__ import annotations

import functools

import numpy as np

from ..models import get_registry

TEXT_METRICS = ("BLEU", "ROUGE-L", "embedding cosine")


@functools.lru_cache(maxsize=1)
def _bleu():
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True)  # sentence-level BLEU without zero n-gram orders wiping the score


@functools.lru_cache(maxsize=1)
def _rouge():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def bleu(reference: str, hypothesis: str) -> float:
    return _bleu().sentence_score(hypothesis, [reference]).score / 100.0


def rouge_l(reference: str, hypothesis: str) -> float:
    return float(_rouge().score(reference, hypothesis)["rougeL"].fmeasure)


def embedding_cosine(reference: str, hypothesis: str, embedder=None) -> float:
    if embedder is None:
        embedder = get_registry().get("embedder")
    vectors = embedder.encode([reference, hypothesis])
    return float(np.dot(vectors[0], vectors[1]))


def text_metrics(reference: str, hypothesis: str, embedder=None) -> dict[str, float]:
    return {
        "BLEU": bleu(reference, hypothesis),
        "ROUGE-L": rouge_l(reference, hypothesis),
        "embedding cosine": embedding_cosine(reference, hypothesis, embedder),
    }


def augmented(metrics: dict[str, float], imagine_image: float, imagine_text_image: float) -> list[dict]:
    """One row per metric: its value and metric + ImaginE_image, metric + ImaginE_text&image."""
    return [{"metric": name, "value": value, "+ ImaginE_image": value + imagine_image,
             "+ ImaginE_text&image": value + imagine_text_image} for name, value in metrics.items()]
