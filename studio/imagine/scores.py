"""ImaginE's two scores (Zhu et al., Eq. 2-3) from CLIP features, and their summary over seeds.

The rescaling F(s) = (s - l) / (h - l) maps CLIP's typical cosine range onto roughly [0, 1]. It is a
linear calibration, not a probability: values outside [0, 1] are kept (and flagged), never clipped.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

#: [l, h] of Eq. 3. The paper's appendix prints them swapped; Eq. 3 matches CLIP's typical
#: image-image (high) and text-image (low) cosine similarities, so it is the one used.
IMAGE_RANGE = (0.1, 1.0)
TEXT_IMAGE_RANGE = (0.1, 0.4)


def rescale(similarity: float, bounds: tuple[float, float]) -> float:
    low, high = bounds
    return (float(similarity) - low) / (high - low)


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """Cosine similarity; CLIP features are already unit length, but hand-made ones need not be."""
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    norm = np.linalg.norm(u) * np.linalg.norm(v)
    if norm == 0.0:
        raise ValueError("cosine of a zero vector is undefined")
    return float(u @ v / norm)


@dataclass(frozen=True)
class PairScores:
    """Scores of one seed pair: text features t1, t2 and image features v1, v2."""

    image_cosine: float  # sim(v1, v2)
    text_image_cosine: float  # (sim(t1, v2) + sim(t2, v1)) / 2
    t1_v2: float
    t2_v1: float
    imagine_image: float  # F over IMAGE_RANGE
    imagine_text_image: float  # F over TEXT_IMAGE_RANGE

    def as_dict(self) -> dict:
        return asdict(self)


def pair_scores(t1, t2, v1, v2) -> PairScores:
    image_cos = cosine(v1, v2)
    t1_v2, t2_v1 = cosine(t1, v2), cosine(t2, v1)
    text_image_cos = (t1_v2 + t2_v1) / 2
    return PairScores(image_cos, text_image_cos, t1_v2, t2_v1,
                      rescale(image_cos, IMAGE_RANGE), rescale(text_image_cos, TEXT_IMAGE_RANGE))


@dataclass(frozen=True)
class MeanStd:
    mean: float
    std: float  # population std over the seed pairs (0 for a single seed)
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.std:.3f}"

    def as_dict(self) -> dict:
        return asdict(self)


def mean_std(values) -> MeanStd:
    arr = np.asarray(list(values), dtype=np.float64)
    if arr.size == 0:
        raise ValueError("no values to summarize")
    return MeanStd(float(arr.mean()), float(arr.std()), int(arr.size))


SCORE_FIELDS = ("image_cosine", "imagine_image", "text_image_cosine", "imagine_text_image")


def summarize(per_seed: list[PairScores]) -> dict[str, MeanStd]:
    """mean ± std of the raw cosines and of both ImaginE scores over the seed pairs."""
    return {name: mean_std(getattr(p, name) for p in per_seed) for name in SCORE_FIELDS}


def outside_unit_interval(value: float) -> bool:
    """A rescaled score beyond [0, 1]: CLIP's cosine fell outside the calibration range."""
    return value < 0.0 or value > 1.0
