"""Embedder variants: the registry's sentence-transformers embedder with some of its weights replaced by a small
trained delta (a safetensors file of the changed tensors, e.g. the top transformer layers), so that a capability
can ship a fine-tuned encoder without shipping the whole model. The delta records the model_id of the base it was
trained from and is applied only to that base: with another embedder the caller falls back to the plain one."""
from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from .loaders.text import SentenceTransformerEmbedder, sentence_transformer
from .registry import get_registry
from .roles import Embedder

BASE_KEY = "base_model_id"  # safetensors metadata entry naming the base model


class VariantMismatch(RuntimeError):
    """The delta cannot be applied to the registry's current embedder."""


def load_base_sentence_transformer(model_id: str):
    """A private, trainable copy of a sentence-transformers model (for training a delta)."""
    return sentence_transformer(model_id)


def delta_base_id(delta_path: Path | str) -> str:
    from safetensors import safe_open

    with safe_open(str(delta_path), framework="pt") as fh:
        return (fh.metadata() or {}).get(BASE_KEY, "")


def _digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()[:12]


_lock = threading.Lock()
_loaded: dict[tuple[str, str], Embedder] = {}


def load_embedder_variant(delta_path: Path | str, role: str = "embedder") -> Embedder:
    """The registry's current embedder with `delta_path` applied (memoised per delta content and base).
    Raises VariantMismatch when the delta is missing, was trained from another base, or does not fit it."""
    delta_path = Path(delta_path)
    if not delta_path.is_file():
        raise VariantMismatch(f"{delta_path.name} not found")
    base = get_registry().get(role)
    recorded = delta_base_id(delta_path)
    if recorded != base.model_id:
        raise VariantMismatch(f"{delta_path.name} was trained from {recorded or 'an unrecorded model'}, "
                              f"not from the current embedder {base.model_id}")
    key = (_digest(delta_path), base.model_id)
    with _lock:
        if key not in _loaded:
            from safetensors.torch import load_file

            model = load_base_sentence_transformer(base.model_id)
            net = model[0].auto_model
            state = net.state_dict()
            delta = load_file(str(delta_path))
            unknown = [k for k in delta if k not in state or state[k].shape != delta[k].shape]
            if unknown:
                raise VariantMismatch(f"{delta_path.name} has tensors that do not fit {base.model_id}: {unknown[:3]}")
            net.load_state_dict({k: v.to(state[k].dtype) for k, v in delta.items()}, strict=False)
            model.eval()
            _loaded.clear()  # one variant at a time: each holds a full model copy
            _loaded[key] = SentenceTransformerEmbedder(model, f"{base.model_id}+{delta_path.stem}@{key[0]}",
                                                       f"{base.backend} + fine-tuned {delta_path.stem}")
        return _loaded[key]
