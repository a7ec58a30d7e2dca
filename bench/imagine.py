"""ImaginE timings: render and scoring time per image (tiny profile by default), printed as JSON.

    .venv/bin/python bench/imagine.py [--seeds 3] [--repeats 1]

Renders 2 texts x N seeds into a fresh temporary cache (every image a miss), reads them again (every
image a hit), and times CLIP's image and text encoding. The profile is STUDIO_PROFILE (tiny unless set).
"""
from __future__ import annotations

import argparse
import json

from _cpu import with_cpu  # noqa: E402 (bench/ is on the path when a script runs)
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "tiny")

TEXTS = ("The night was very dark.", "The night was as dark as ink.")


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1, help="timed repeats of the CLIP scoring")
    args = parser.parse_args()
    os.environ["STUDIO_CACHE_DIR"] = tempfile.mkdtemp(prefix="imagine-bench-")

    from studio.imagine import imagine_pair
    from studio.imagine.cache import ImageCache
    from studio.imagine.render import render_all, resolve_settings, seed_list
    from studio.imagine.text_metrics import text_metrics
    from studio.models import get_registry

    registry = get_registry()
    loads = {}
    for role in ("diffusion", "clip", "embedder"):
        start = time.perf_counter()
        registry.get(role)
        loads[role] = round(time.perf_counter() - start, 3)
    diffusion, clip = registry.get("diffusion"), registry.get("clip")
    settings = resolve_settings(diffusion.defaults)
    seeds = seed_list(0, args.seeds)
    diffusion.render("warm-up", seed=99, steps=settings.steps, size=settings.size)  # first-call allocations

    cache = ImageCache.default()
    cold = render_all(diffusion, TEXTS, seeds, settings, cache=cache)
    n_images = len(cold.images)
    start = time.perf_counter()
    warm = render_all(diffusion, TEXTS, seeds, settings, cache=cache)
    hit_seconds = time.perf_counter() - start
    assert warm.cache_hits == n_images and warm.rendered == 0

    images = list(cold.images.values())
    image_times, text_times = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        clip.encode_image(images)
        image_times.append((time.perf_counter() - start) / n_images)
        start = time.perf_counter()
        clip.encode_text(list(TEXTS))
        text_times.append((time.perf_counter() - start) / len(TEXTS))

    text_metrics(*TEXTS)  # first call imports rouge-score's stemmer
    start = time.perf_counter()
    text_metrics(*TEXTS)
    text_metric_seconds = time.perf_counter() - start
    start = time.perf_counter()
    result = imagine_pair(*TEXTS, n_seeds=args.seeds)  # all hits: what a repeated request costs end to end
    end_to_end_cached = time.perf_counter() - start
    load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "profile": registry.profile,
        "diffusion_model": diffusion.model_id,
        "clip_model": clip.model_id,
        "settings": settings.as_dict(),
        "images": n_images,
        "load_seconds": loads,
        "render_seconds_per_image": round(cold.render_seconds / n_images, 4),
        "cache_hit_seconds_per_image": round(hit_seconds / n_images, 5),
        "clip_image_seconds_per_image": round(statistics.median(image_times), 5),
        "clip_text_seconds_per_text": round(statistics.median(text_times), 5),
        "text_metrics_seconds_per_pair": round(text_metric_seconds, 4),
        "imagine_pair_all_cached_seconds": round(end_to_end_cached, 4),
        "imagine_image_mean": round(result.scored.imagine_image, 4),
        "cpu": platform.processor() or platform.machine(),
        "threads": __import__("torch").get_num_threads(),
        "load_average_1min": load_average,
    }


if __name__ == "__main__":
    try:
        print(json.dumps(with_cpu(main()), indent=2))
    finally:  # the fresh cache exists only for the measurement
        if os.environ.get("STUDIO_CACHE_DIR", "").startswith(tempfile.gettempdir()):
            shutil.rmtree(os.environ["STUDIO_CACHE_DIR"], ignore_errors=True)
