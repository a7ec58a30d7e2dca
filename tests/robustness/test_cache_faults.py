"""A cache file left truncated or corrupt (a kill mid-write, a full disk) is ignored and rebuilt on the next
use; writers go through a temporary file and os.replace, so an interrupted write leaves the old file intact."""
from __future__ import annotations

import os

import numpy as np
import pytest
from PIL import Image

from studio.atomic import atomic_save_npy, atomic_write_bytes, load_npy_or_none


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path))
    return tmp_path


def _damage(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def test_interrupted_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "a.bin"
    atomic_write_bytes(target, b"old")

    def killed(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new" * 1000)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]  # no temporary file left behind


def test_load_npy_or_none_treats_damage_as_a_miss(tmp_path):
    path = tmp_path / "m.npy"
    atomic_save_npy(path, np.ones((4, 3), np.float32))
    assert load_npy_or_none(path, rows=4).shape == (4, 3)
    assert load_npy_or_none(path, rows=5) is None
    _damage(path)
    assert load_npy_or_none(path, rows=4) is None
    path.write_bytes(b"\x00garbage")
    assert load_npy_or_none(path) is None


def test_kb_head_embedding_cache_is_rebuilt(cache, tiny_registry):
    from studio import embeddings
    from studio.figures.kb import _cached_embeddings

    embedder = tiny_registry.get("embedder")
    names = ["wolf", "sun", "ice", "bird"]
    first = _cached_embeddings(embedder, names)
    path = embeddings.cache_file("similes-kb-heads", embedder.cache_key)
    _damage(path)
    embeddings.forget()  # a fresh process reads the damaged file
    again = _cached_embeddings(embedder, names)
    np.testing.assert_allclose(again, first, atol=1e-6)
    embeddings.forget()
    assert embeddings._load(path)  # rewritten whole


def test_proverb_index_cache_is_rebuilt(cache, tiny_registry):
    from studio.proverbs.catalog import load_catalog
    from studio.proverbs.index import build_index, cache_path

    embedder, catalog = tiny_registry.get("embedder"), load_catalog()
    first = build_index(embedder, catalog)
    path = cache_path(embedder.cache_key, catalog)
    assert build_index(embedder, catalog).from_cache
    _damage(path)
    rebuilt = build_index(embedder, catalog)
    assert not rebuilt.from_cache
    np.testing.assert_allclose(rebuilt.text, first.text, atol=1e-6)
    assert build_index(embedder, catalog).from_cache


def test_image_cache_ignores_a_truncated_png(cache):
    from studio.imagine.cache import ImageCache

    images = ImageCache(cache / "images", max_bytes=10_000_000)
    image = Image.new("RGB", (32, 32), (200, 30, 30))
    images.put("ab" + "0" * 38, image)
    [path] = list((cache / "images").glob("*/*.png"))
    _damage(path)
    assert images.get("ab" + "0" * 38) is None
    images.put("ab" + "0" * 38, image)
    assert images.get("ab" + "0" * 38).size == (32, 32)


def test_text_embedding_cache_is_rebuilt(cache, tiny_registry):
    from studio import embeddings

    embedder, texts = tiny_registry.get("embedder"), ["a stitch in time", "saves nine"]
    first = embeddings.embed_cached(embedder, texts, "robustness")
    _damage(embeddings.cache_file("robustness", embedder.cache_key))
    embeddings.forget()  # a fresh process
    np.testing.assert_allclose(embeddings.embed_cached(embedder, texts, "robustness"), first, atol=1e-6)
