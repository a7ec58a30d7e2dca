"""ImaginE's scores on hand-made feature vectors, the text metrics, and the image cache (no models needed)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from studio.errors import InputError
from studio.imagine.cache import ImageCache, render_key
from studio.imagine.render import resolve_settings, seed_list
from studio.imagine.scores import IMAGE_RANGE, TEXT_IMAGE_RANGE, mean_std, pair_scores, rescale, summarize
from studio.imagine.text_metrics import augmented, bleu, rouge_l
from studio.models import RenderDefaults


def unit_at(cosine_to_x: float) -> np.ndarray:
    """A unit vector in the x-y plane whose cosine with [1, 0, 0] is the given value."""
    return np.array([cosine_to_x, math.sqrt(1 - cosine_to_x**2), 0.0])


X = np.array([1.0, 0.0, 0.0])


def test_ranges_are_those_of_eq3():
    assert IMAGE_RANGE == (0.1, 1.0)
    assert TEXT_IMAGE_RANGE == (0.1, 0.4)


def test_text_image_cosine_025_rescales_to_half():
    # t1 and t2 both have cosine 0.25 with the other text's image
    scores = pair_scores(t1=unit_at(0.25), t2=unit_at(0.25), v1=X, v2=X)
    assert scores.text_image_cosine == pytest.approx(0.25)
    assert scores.imagine_text_image == pytest.approx(0.5)


def test_image_cosine_055_rescales_to_half():
    scores = pair_scores(t1=X, t2=X, v1=X, v2=unit_at(0.55))
    assert scores.image_cosine == pytest.approx(0.55)
    assert scores.imagine_image == pytest.approx(0.5)


def test_text_image_score_averages_both_directions():
    # sim(t1, v2) = 0.4, sim(t2, v1) = 0.1 -> mean 0.25 -> 0.5; the directions must not be mixed up
    t1, v2 = X, unit_at(0.4)
    t2, v1 = np.array([0.0, 0.0, 1.0]), np.array([0.0, math.sqrt(1 - 0.01), 0.1])
    scores = pair_scores(t1, t2, v1, v2)
    assert scores.t1_v2 == pytest.approx(0.4)
    assert scores.t2_v1 == pytest.approx(0.1)
    assert scores.imagine_text_image == pytest.approx(0.5)


def test_unnormalized_features_give_cosines():
    scores = pair_scores(t1=3 * X, t2=X, v1=X, v2=7 * unit_at(0.55))
    assert scores.image_cosine == pytest.approx(0.55)


def test_no_silent_clipping():
    assert rescale(0.7, TEXT_IMAGE_RANGE) == pytest.approx(2.0)
    assert rescale(-0.2, IMAGE_RANGE) == pytest.approx(-1 / 3)
    scores = pair_scores(t1=X, t2=X, v1=X, v2=X)  # identical everything: cosines of 1
    assert scores.imagine_image == pytest.approx(1.0)
    assert scores.imagine_text_image == pytest.approx(3.0)


def test_mean_and_std_over_seeds():
    per_seed = [pair_scores(X, X, X, unit_at(c)) for c in (0.55, 0.82)]
    summary = summarize(per_seed)
    assert summary["imagine_image"].mean == pytest.approx((0.5 + 0.8) / 2)
    assert summary["imagine_image"].std == pytest.approx(0.15)
    assert summary["image_cosine"].n == 2
    assert mean_std([0.3]).std == 0.0
    assert str(mean_std([1.0, 2.0])) == "1.500 ± 0.500"


def test_text_metrics_and_augmented_sums():
    assert bleu("the cat sat on the mat", "the cat sat on the mat") == pytest.approx(1.0)
    assert bleu("the cat sat on the mat", "dogs run fast") == pytest.approx(0.0, abs=1e-6)
    assert rouge_l("the cat sat on the mat", "the cat on the mat") == pytest.approx(2 * 1 * (5 / 6) / (1 + 5 / 6))
    rows = augmented({"BLEU": 0.2, "ROUGE-L": 0.5}, imagine_image=0.5, imagine_text_image=0.25)
    assert rows[0] == {"metric": "BLEU", "value": 0.2, "+ ImaginE_image": 0.7, "+ ImaginE_text&image": 0.45}
    assert rows[1]["+ ImaginE_text&image"] == pytest.approx(0.75)


def test_settings_defaults_and_limits():
    defaults = RenderDefaults(steps=1, guidance=0.0, size=512, max_steps=4)
    assert resolve_settings(defaults).as_dict() == {"steps": 1, "guidance": 0.0, "size": 512}
    assert resolve_settings(defaults, steps=0, size=0, guidance=None).steps == 1
    assert resolve_settings(defaults, steps=4, size=256, guidance=1.5).as_dict() == {"steps": 4, "guidance": 1.5,
                                                                                      "size": 256}
    with pytest.raises(InputError, match="between 1 and 4"):
        resolve_settings(defaults, steps=5)
    with pytest.raises(InputError, match="multiple of 64"):
        resolve_settings(defaults, size=100)
    with pytest.raises(InputError, match="Guidance"):
        resolve_settings(defaults, guidance=-1)
    assert seed_list(7, 3) == [7, 8, 9]
    for bad in ((0, 0), (0, 6), (-1, 1), ("x", 1)):
        with pytest.raises(InputError):
            seed_list(*bad)


def _noise(seed: int, size: int = 32) -> Image.Image:
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (size, size, 3), dtype=np.uint8))


def test_cache_key_covers_every_parameter():
    base = ("m", "a text", 1, 2, 0.0, 64)
    keys = {render_key(*base)}
    for i, changed in enumerate(("m2", "another", 2, 3, 7.5, 128)):
        args = list(base)
        args[i] = changed
        keys.add(render_key(*args))
    assert len(keys) == 7
    assert render_key(*base) == render_key(*base)


def test_cache_round_trip_is_bit_identical_and_atomic(tmp_path):
    cache = ImageCache(tmp_path, max_bytes=10 * 2**20)
    image = _noise(0)
    assert cache.get("ab" * 32) is None
    cache.put("ab" * 32, image)
    assert np.array_equal(np.asarray(cache.get("ab" * 32)), np.asarray(image))
    assert (cache.hits, cache.misses) == (1, 1)
    assert not list(tmp_path.rglob(".tmp-*"))  # the temporary file was moved into place


def test_cache_evicts_least_recently_used(tmp_path):
    import os
    import time

    probe = ImageCache(tmp_path / "probe", max_bytes=2**30)
    probe.put("00" * 32, _noise(0))
    one = probe.size_bytes()
    cache = ImageCache(tmp_path / "lru", max_bytes=int(2.5 * one))
    keys = [f"{i:02d}" * 32 for i in range(3)]
    now = time.time()
    for i, key in enumerate(keys[:2]):
        cache.put(key, _noise(i))
        path = cache._path(key)
        os.utime(path, (now - 100 + i, now - 100 + i))  # distinct, old use times
    assert cache.get(keys[0]) is not None  # keys[0] becomes the most recently used
    cache.put(keys[2], _noise(2))
    assert cache.get(keys[1]) is None  # the least recently used went
    assert cache.get(keys[0]) is not None and cache.get(keys[2]) is not None
    assert cache.size_bytes() <= cache.max_bytes


def test_cache_bound_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("STUDIO_IMAGE_CACHE_MB", "1.5")
    cache = ImageCache.default()
    assert cache.max_bytes == int(1.5 * 2**20) and str(cache.root).startswith(str(tmp_path))
    monkeypatch.setenv("STUDIO_IMAGE_CACHE_MB", "lots")
    with pytest.raises(InputError, match="STUDIO_IMAGE_CACHE_MB"):
        ImageCache.default()
