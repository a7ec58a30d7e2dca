"""ImaginE for a pair of texts, and for a literal sentence against its k best similes."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..errors import InputError, require_text
from ..models import get_registry
from .render import Progress, RenderSettings, check_request, render_all, resolve_settings, seed_list
from .scores import MeanStd, PairScores, pair_scores, summarize
from .text_metrics import augmented, text_metrics

MAX_TEXT_CHARS = 1000  # CLIP reads 77 tokens anyway; longer inputs only cost tokenization time
MAX_TOP_K = 5
RENDER_SHARE = 0.9  # of the progress bar; scoring takes the rest


def _models():
    registry = get_registry()
    return registry.get("diffusion"), registry.get("clip")  # both up front: an unavailable one fails before any work


def _scaled(progress: Progress | None, start: float, share: float) -> Progress:
    progress = progress or (lambda fraction, desc: None)
    return lambda fraction, desc: progress(start + share * fraction, desc)


@dataclass
class SeedPair:
    seed: int
    image_a: object  # PIL image of text a
    image_b: object
    scores: PairScores


@dataclass
class ScoredImaginations:
    text_a: str
    text_b: str
    truncated_a: bool  # longer than CLIP's context: CLIP saw only the start
    truncated_b: bool
    pairs: list[SeedPair]
    summary: dict[str, MeanStd] = field(init=False)

    def __post_init__(self):
        self.summary = summarize([p.scores for p in self.pairs])

    @property
    def imagine_image(self) -> float:
        return self.summary["imagine_image"].mean

    @property
    def imagine_text_image(self) -> float:
        return self.summary["imagine_text_image"].mean

    def scores_dict(self) -> dict:
        return {
            "truncated": {"text_a": self.truncated_a, "text_b": self.truncated_b},
            "per_seed": [{"seed": p.seed, **p.scores.as_dict()} for p in self.pairs],
            "summary": {name: stat.as_dict() for name, stat in self.summary.items()},
        }


def score_imaginations(clip, text_a: str, text_b: str, seeds: Sequence[int], images_a: Sequence, images_b: Sequence):
    """Both ImaginE scores per seed: text a/b and their images rendered with the same seed."""
    text = clip.encode_text([text_a, text_b])
    image_features = clip.encode_image(list(images_a) + list(images_b))
    va, vb = image_features[:len(seeds)], image_features[len(seeds):]
    pairs = [SeedPair(seed, ia, ib, pair_scores(text.features[0], text.features[1], va[i], vb[i]))
             for i, (seed, ia, ib) in enumerate(zip(seeds, images_a, images_b))]
    return ScoredImaginations(text_a, text_b, bool(text.truncated[0]), bool(text.truncated[1]), pairs)


@dataclass
class ImagineResult:
    scored: ScoredImaginations
    diffusion_model: str
    clip_model: str
    settings: RenderSettings
    seeds: list[int]
    text_metrics: dict[str, float]
    augmented: list[dict]
    cache_hits: int
    rendered: int
    render_seconds: float
    score_seconds: float

    def as_dict(self) -> dict:
        return {
            "text_a": self.scored.text_a,
            "text_b": self.scored.text_b,
            "diffusion_model": self.diffusion_model,
            "clip_model": self.clip_model,
            "settings": self.settings.as_dict(),
            "seeds": self.seeds,
            **self.scored.scores_dict(),
            "text_metrics": self.text_metrics,
            "augmented": self.augmented,
            "cache": {"hits": self.cache_hits, "rendered": self.rendered},
            "seconds": {"render": round(self.render_seconds, 3), "score": round(self.score_seconds, 3)},
        }


def imagine_pair(text_a, text_b, *, n_seeds=1, seed=0, steps=None, guidance=None, size=None,
                 progress: Progress | None = None, should_stop: Callable[[], bool] | None = None,
                 cache=None) -> ImagineResult:
    """Render both texts with each seed, score the imaginations with CLIP, add the text metrics."""
    text_a = require_text(text_a, "first text", MAX_TEXT_CHARS)
    text_b = require_text(text_b, "second text", MAX_TEXT_CHARS)
    seeds = seed_list(seed, n_seeds)
    check_request(steps, guidance, size)
    diffusion, clip = _models()
    settings = resolve_settings(diffusion.defaults, steps, guidance, size)
    report = render_all(diffusion, [text_a, text_b], seeds, settings, cache=cache,
                        progress=_scaled(progress, 0.0, RENDER_SHARE), should_stop=should_stop)
    _scaled(progress, RENDER_SHARE, 1 - RENDER_SHARE)(0.0, "scoring with CLIP")
    start = time.perf_counter()
    scored = score_imaginations(clip, text_a, text_b, seeds, [report.images[(text_a, s)] for s in seeds],
                                [report.images[(text_b, s)] for s in seeds])
    metrics = text_metrics(text_a, text_b)
    score_seconds = time.perf_counter() - start
    return ImagineResult(scored, diffusion.model_id, clip.model_id, settings, seeds, metrics,
                         augmented(metrics, scored.imagine_image, scored.imagine_text_image), report.cache_hits,
                         report.rendered, report.render_seconds, score_seconds)


@dataclass
class TopKResult:
    literal: str
    literal_images: list  # one PIL image per seed
    similes: list[ScoredImaginations]  # in the order given (best first), each scored against the literal
    diffusion_model: str
    clip_model: str
    settings: RenderSettings
    seeds: list[int]

    def as_dict(self) -> dict:
        return {
            "literal": self.literal,
            "diffusion_model": self.diffusion_model,
            "clip_model": self.clip_model,
            "settings": self.settings.as_dict(),
            "seeds": self.seeds,
            "similes": [{"rank": i + 1, "simile": s.text_b, **s.scores_dict()} for i, s in enumerate(self.similes)],
        }


def _simile_texts(similes, k: int) -> list[str]:
    texts = []
    for item in similes or []:
        if not isinstance(item, str):
            raise InputError(f"Each simile must be a text, not {type(item).__name__}.")
        if item.strip() and item.strip() not in texts:  # a duplicate would only repeat the same images
            texts.append(require_text(item, "simile", MAX_TEXT_CHARS))
        if len(texts) == k:
            break
    return texts


def imagine_top_k(literal, similes: Sequence[str], k: int = 3, seed: int = 0, *, n_seeds: int = 1, steps=None,
                  guidance=None, size=None, progress: Progress | None = None,
                  should_stop: Callable[[], bool] | None = None, cache=None) -> TopKResult:
    """Render the literal sentence and the first k of `similes` (ranked best first); score each simile's
    imaginations against the literal sentence's (ImaginE with text a = literal, text b = simile)."""
    literal = require_text(literal, "literal sentence", MAX_TEXT_CHARS)
    try:
        k = int(k)
    except (TypeError, ValueError):
        raise InputError("k must be a whole number.") from None
    if not 1 <= k <= MAX_TOP_K:
        raise InputError(f"k must be between 1 and {MAX_TOP_K} (got {k}).")
    texts = _simile_texts(similes, k)
    if not texts:
        raise InputError("There are no similes to imagine: rank some candidates first.")
    seeds = seed_list(seed, n_seeds)
    check_request(steps, guidance, size)
    diffusion, clip = _models()
    settings = resolve_settings(diffusion.defaults, steps, guidance, size)
    report = render_all(diffusion, [literal, *texts], seeds, settings, cache=cache,
                        progress=_scaled(progress, 0.0, RENDER_SHARE), should_stop=should_stop)
    _scaled(progress, RENDER_SHARE, 1 - RENDER_SHARE)(0.0, "scoring with CLIP")
    literal_images = [report.images[(literal, s)] for s in seeds]
    scored = [score_imaginations(clip, literal, text, seeds, literal_images, [report.images[(text, s)] for s in seeds])
              for text in texts]
    return TopKResult(literal, literal_images, scored, diffusion.model_id, clip.model_id, settings, seeds)

