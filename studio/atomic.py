"""Cache files that survive a kill mid-write: write a temporary file beside the target, then os.replace it into
place, so a reader sees either the old file or the complete new one; a damaged file reads as a cache miss."""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np


def atomic_write_bytes(path: str | Path, data: bytes, mode: int | None = None) -> None:
    """`mode`: the file's permissions (mkstemp makes owner-only files; a deployed app may run as another user)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write(path: str | Path, data: str | bytes, mode: int | None = 0o644) -> None:
    """Text (UTF-8) or bytes, written atomically; readable by others by default (a deployed app may run as another
    user than the one who built an asset)."""
    atomic_write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data, mode)


@contextlib.contextmanager
def atomic_path(path: str | Path, mode: int = 0o644):
    """A temporary path beside `path` for a writer that only takes a file name (a C library's converter, a GGUF
    writer); moved into place when the block ends without an error, removed otherwise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        with open(tmp, "rb+") as fh:  # on disk before the rename, as atomic_write_bytes does
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def build_dir_atomically(target: str | Path, build) -> None:
    """Build a folder with build(tmp) in a temporary sibling, then rename it into place: readers see no folder or
    a complete one. When another process put its folder there first, that one is kept."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        build(tmp)
        try:
            os.replace(tmp, target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def atomic_save_npy(path: str | Path, array: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array), allow_pickle=False)
    atomic_write_bytes(path, buffer.getvalue())


def load_npy_or_none(path: str | Path, rows: int | None = None) -> np.ndarray | None:
    """The cached array, or None when it is absent, truncated, corrupt or of the wrong length (then rebuilt)."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if rows is not None and (array.ndim < 1 or array.shape[0] != rows):
        return None
    return array


def jsonable(obj):
    """The `default=` of json.dumps for the studio's results: numpy values as Python ones, anything else as text."""
    try:
        import numpy as np

        if isinstance(obj, np.generic):
            return obj.item()
        if isinstance(obj, np.ndarray):
            return obj.tolist()
    except ImportError:
        pass
    return str(obj)
