"""Embedder variants: the registry's sentence-transformers embedder changed by a small trained delta (a safetensors
file of replacement tensors, or of low-rank factors "<product>.lora_A"/".lora_B" whose product B·A is added to the
weight), so that a capability can ship a fine-tuned encoder without shipping the whole model. The variant is served
the way the base is: int8 on ONNX Runtime when the base is (exported once per delta and base export), else with
torch. The delta records the model_id of the base it was trained from and is applied only to that base (or the
hub's copy of the same weights): with another embedder the caller falls back to the plain one."""
from __future__ import annotations

from pathlib import Path

from .config import cache_dir
from .loaders.common import bytes_digest
from .loaders.onnx_text import OnnxSentenceEmbedder, export_model_int8, serve_int8
from .loaders.text import SentenceTransformerEmbedder, sentence_transformer
from .registry import get_registry
from .specs import canonical_model_id, display_name
from .roles import Embedder

BASE_KEY = "base_model_id"  # safetensors metadata entry naming the base model


class VariantMismatch(RuntimeError):
    """The delta cannot be applied to the registry's current embedder."""


def load_base_sentence_transformer(model_id: str):
    """A private, trainable copy of a sentence-transformers model (for training a delta)."""
    return sentence_transformer(model_id)


def delta_base_id(delta_path: Path | str) -> str:
    from safetensors import safe_open

    with safe_open(str(delta_path), framework="numpy") as fh:  # "pt" would import torch for a header
        return (fh.metadata() or {}).get(BASE_KEY, "")


def load_embedder_variant(delta_path: Path | str, role: str = "embedder", registry=None) -> Embedder:
    """The `role` embedder of `registry` (default: the process-wide one) with `delta_path` applied, served like the
    base. Not memoised here: the registry's `proverbs_encoder` role holds it (shown in the Models tab, counted in
    the memory budget). Raises VariantMismatch when the delta is missing, was trained from another base, or does
    not fit it."""
    delta_path = Path(delta_path)
    if not delta_path.is_file():
        raise VariantMismatch(f"{delta_path.name} not found")
    base = (registry or get_registry()).get(role)
    recorded = delta_base_id(delta_path)
    if canonical_model_id(recorded) != canonical_model_id(base.model_id):  # the hub's copy of the same weights fits
        raise VariantMismatch(f"{delta_path.name} was trained from {recorded or 'an unrecorded model'}, "
                              f"not from the current embedder {base.model_id}")
    digest = bytes_digest(delta_path.read_bytes())
    model_id = f"{base.model_id}+{delta_path.stem}@{digest}"
    name = f"{display_name(base.model_id)} + fine-tuned {delta_path.stem}"

    def float32():
        from .loaders.common import configure_torch_threads

        configure_torch_threads()
        return SentenceTransformerEmbedder(_merged(delta_path, base.model_id), model_id,
                                           f"{name} (sentence-transformers, float32)")

    if isinstance(base, OnnxSentenceEmbedder):  # from the export cache when present: no torch needed
        folder = cache_dir() / "onnx" / f"{base.folder.name}+{delta_path.stem}-{digest}"
        export = lambda f: export_model_int8(_merged(delta_path, base.model_id), f, model_id)  # noqa: E731
        # checked against its own float32 form like the base, and served in float32 when no int8 form agrees
        return serve_int8(folder, export, model_id, name, fallback=float32)
    return float32()


def load_variant_role(spec, registry) -> Embedder:
    """Registry loader of an embedder variant role: spec.model_id is the delta's path; its base is the
    retrieval embedder. A delta that does not fit the profile's embedder makes the role unavailable."""
    from .loaders.common import LoadError

    try:
        return load_embedder_variant(spec.model_id, "retrieval_embedder", registry)
    except VariantMismatch as exc:
        raise LoadError(str(exc), "train a delta from this profile's retrieval embedder "
                        "(`python -m studio train proverbs --what encoder`)", unavailable=True) from exc


def _merged(delta_path: Path, base_id: str):
    from safetensors.torch import load_file

    model = load_base_sentence_transformer(base_id)
    apply_delta(model[0].auto_model, load_file(str(delta_path)), delta_path.name, base_id)
    return model.eval()


def _split_delta(net, delta: dict, name: str, base_id: str) -> tuple[dict, dict]:
    """(low-rank factors, replacement tensors) of a delta, checked against `net`'s tensors (VariantMismatch)."""
    lora = {k: v for k, v in delta.items() if k.endswith((".lora_A", ".lora_B"))}
    plain = {k: v for k, v in delta.items() if k not in lora}
    state = net.state_dict()
    unknown = [k for k in plain if k not in state or state[k].shape != plain[k].shape]
    for k in (k for k in lora if k.endswith(".lora_A")):
        path, b = k[:-len(".lora_A")], lora.get(k[:-len(".lora_A")] + ".lora_B")
        weight = state.get(path + ".weight")
        if b is None or weight is None or (b.shape[0], lora[k].shape[1]) != tuple(weight.shape):
            unknown.append(k)
    if unknown:
        raise VariantMismatch(f"{name} has tensors that do not fit {base_id}: {unknown[:3]}")
    return lora, plain


def low_rank_view(net, factors: dict, name: str, base_id: str):
    """A copy of `net` that shares every tensor with it and adds low-rank factors beside their products
    (y = W x + B (A x), not merged): several stored encoders over one base hold one copy of its weights."""
    import copy

    import torch

    lora, plain = _split_delta(net, factors, name, base_id)
    if plain:
        raise VariantMismatch(f"{name} replaces tensors of {base_id}; only low-rank factors can share a base")

    class LowRankLinear(torch.nn.Module):
        def __init__(self, base, a, b):
            super().__init__()
            self.base, self.lora_A, self.lora_B = base, a, b

        def forward(self, x):
            return self.base(x) + (x @ self.lora_A.T) @ self.lora_B.T

    shared = {id(t): t for t in (*net.parameters(), *net.buffers())}
    view = copy.deepcopy(net, shared)  # new modules, the same tensors
    for k in (k for k in lora if k.endswith(".lora_A")):
        path = k[:-len(".lora_A")]
        parent, _, child = path.rpartition(".")
        setattr(view.get_submodule(parent), child,
                LowRankLinear(view.get_submodule(path), lora[k].float(), lora[path + ".lora_B"].float()))
    return view.eval()


def apply_delta(net, delta: dict, name: str, base_id: str) -> None:
    """Merge low-rank factors into their products and load replacement tensors."""
    lora, plain = _split_delta(net, delta, name, base_id)
    import torch

    state = net.state_dict()
    with torch.no_grad():
        net.load_state_dict({k: v.to(state[k].dtype) for k, v in plain.items()}, strict=False)
        for k in (k for k in lora if k.endswith(".lora_A")):
            path = k[:-len(".lora_A")]
            weight = net.get_submodule(path).weight
            weight += (lora[path + ".lora_B"].float() @ lora[k].float()).to(weight.dtype)
