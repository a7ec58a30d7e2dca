"""Helpers shared by the backends: device choice, package and path resolution, pickle refusal."""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
from pathlib import Path

from ...settings import current

SAFE_WEIGHT_SUFFIXES = (".safetensors", ".gguf")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


class LoadError(RuntimeError):
    """A load that cannot succeed as configured; `fix` says what to change."""

    def __init__(self, reason: str, fix: str = "", unavailable: bool = False):
        super().__init__(reason)
        self.reason, self.fix, self.unavailable = reason, fix, unavailable


_threads_set = False


def configure_torch_threads() -> None:
    """Every core by default (STUDIO_TORCH_THREADS overrides): the encoders' matrix products are large enough that
    two requests at once, each on every core, take as long as with one thread each, and one alone runs faster
    (`bench/torch_threads.py`; figures in docs/acceleration.md, "Threads of the torch models")."""
    global _threads_set
    if _threads_set:
        return
    import torch

    threads = current().torch_threads or max(1, os.cpu_count() or 1)
    torch.set_num_threads(threads)
    _threads_set = True


def quiet_transformers() -> None:
    """No per-load progress bars or warnings from transformers: they would flood the server log and a CLI command's
    output (three "Loading weights" bars for one `judge`)."""
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()


#: True while a registry with Settings.reference loads a role (Registry._load_locked): see reference_forms()
_REFERENCE_FORMS = contextvars.ContextVar("studio_reference_forms", default=False)


@contextlib.contextmanager
def reference_forms():
    """Loads inside serve the float32 reference forms: no int8 (ONNX Runtime, int8 prompts), no int4, no bfloat16,
    whatever the CPU. Their numbers are the same on every x86 CPU up to float32 rounding, while an int8 or bf16
    form computes slightly different ones on another class of CPU (docs/acceleration.md). llama.cpp stays: its
    portable AVX2 build runs the same code on every CPU. Per thread (a context variable), so that a server's
    other requests are not affected."""
    token = _REFERENCE_FORMS.set(True)
    try:
        yield
    finally:
        _REFERENCE_FORMS.reset(token)


def accelerated(switch: str) -> bool:
    """Whether an accelerated form may be tried: not while reference forms load (reference_forms()), nor when its
    switch (STUDIO_ONNX, STUDIO_BF16, STUDIO_LM_4BIT, STUDIO_LM_INT8) is 0."""
    return not _REFERENCE_FORMS.get() and current().switch(switch)


def fast_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AVX512-BF16 or AMX), where bf16 matrix products run about
    twice as fast as float32; elsewhere they are emulated and slower. STUDIO_BF16=0 (or reference forms) turns
    bf16 compute off."""
    import torch

    if not accelerated("STUDIO_BF16"):
        return False
    cpu = getattr(torch, "cpu", None)
    checks = [getattr(cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    return any(check() for check in checks if check is not None)


def bytes_digest(data: bytes) -> str:
    """The short content hash that names a small trained delta in model ids and cache folders."""
    return hashlib.sha1(data).hexdigest()[:12]


#: bytes read from each end of a file for its fingerprint
FINGERPRINT_SAMPLE = 1 << 20


def file_fingerprint(path: Path) -> str:
    """A cache key part that changes when the file is replaced: its name, size and a hash of its first and last MiB
    (a GGUF's header holds its metadata and tensor table). Not its folder nor its time, so that a fresh clone, whose
    packages install the same files under another `.venv`, finds the conversions already made on this machine."""
    size = path.stat().st_size
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        digest.update(f.read(FINGERPRINT_SAMPLE))
        if size > FINGERPRINT_SAMPLE:
            f.seek(max(FINGERPRINT_SAMPLE, size - FINGERPRINT_SAMPLE))
            digest.update(f.read(FINGERPRINT_SAMPLE))
    return f"{path.name}|{size}|{digest.hexdigest()}"


def device() -> str:
    import torch

    configure_torch_threads()
    return "cuda" if torch.cuda.is_available() else "cpu"


def refuse_pickled_weights(path: str) -> None:
    """A local folder must hold safetensors (or GGUF) weights: pickled checkpoints can run code."""
    p = Path(path)
    if not p.exists():
        return
    files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file()]
    if p.is_file() and p.suffix in PICKLE_SUFFIXES:
        raise LoadError(f"{p.name} is a pickled checkpoint, which the studio refuses to load",
                        "convert it to safetensors")
    if p.is_dir():
        weights = [f for f in files if f.suffix in SAFE_WEIGHT_SUFFIXES + PICKLE_SUFFIXES]
        if weights and not any(f.suffix in SAFE_WEIGHT_SUFFIXES for f in weights):
            raise LoadError(f"{p} holds only pickled weights ({weights[0].name}), which the studio refuses to load",
                            "provide safetensors weights")

