"""On-disk image cache for renders, bounded in bytes with least-recently-used eviction.

Images are stored as PNG (lossless), so a hit returns exactly the pixels of the original render.
Writes go to a temporary file in the same directory and are moved into place with os.replace, so a
concurrent reader (another worker or process) sees either no file or a whole one.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import threading
from pathlib import Path

from PIL import Image

from ..atomic import atomic_write
from ..models import cache_dir
from ..settings import current

#: bump when the stored format or the meaning of a key changes, so old entries are never reused
KEY_VERSION = 1
DEFAULT_MAX_MB = 512.0  # StudioSettings.image_cache_mb's default
MAX_MB_ENV = "STUDIO_IMAGE_CACHE_MB"


def render_key(model_id: str, text: str, seed: int, steps: int, guidance: float, size: int) -> str:
    payload = json.dumps([KEY_VERSION, model_id, text, int(seed), int(steps), float(guidance), int(size)],
                         ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _max_bytes_from_env() -> int:
    return max(0, int(current().image_cache_mb * 2**20))  # an InputError naming MAX_MB_ENV when malformed


class ImageCache:
    def __init__(self, root: Path, max_bytes: int):
        self.root = Path(root)
        self.max_bytes = int(max_bytes)
        self.hits = self.misses = 0
        self._lock = threading.Lock()

    @classmethod
    def default(cls) -> "ImageCache":
        """The studio's cache directory as it is configured now (STUDIO_CACHE_DIR may change in tests)."""
        return cls(cache_dir() / "imagine" / "images", _max_bytes_from_env())

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.png"

    def get(self, key: str) -> Image.Image | None:
        path = self._path(key)
        try:
            with Image.open(path) as img:
                img.load()
                image = img.copy()
            os.utime(path)  # recency for LRU eviction
        except (FileNotFoundError, OSError):  # absent, or removed by a concurrent eviction
            self.misses += 1
            return None
        self.hits += 1
        return image

    def put(self, key: str, image: Image.Image) -> None:
        if self.max_bytes <= 0:
            return
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        atomic_write(self._path(key), buffer.getvalue())
        self.evict()

    def entries(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, path) of every cached image, oldest first."""
        rows = []
        for path in self.root.glob("*/*.png"):
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            rows.append((st.st_mtime, st.st_size, path))
        return sorted(rows)

    def size_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self) -> int:
        """Remove least recently used images until the cache fits its bound; returns how many went."""
        with self._lock:
            rows = self.entries()
            total, removed = sum(size for _, size, _ in rows), 0
            for _, size, path in rows:
                if total <= self.max_bytes:
                    break
                path.unlink(missing_ok=True)
                total -= size
                removed += 1
            return removed
