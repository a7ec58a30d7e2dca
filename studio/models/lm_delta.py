"""Language-model variants: the registry's `lm` (or its `writer`) changed by a small trained LoRA delta (a
safetensors file of low-rank factors "<linear path>.lora_A" (r × in) / ".lora_B" (out × r), float16, with the base's
model_id and the LoRA scale in its metadata), so that a capability can ship a fine-tuned LM without shipping the whole
model.

The factors stay beside the base's weights instead of being merged into them. On llama.cpp the variant is the base's
float16 file plus a llama.cpp LoRA adapter written from the delta (studio/models/loaders/llamacpp.py); on torch it is
the base's 4-bit layers on the int4 kernel (studio/models/loaders/fourbit.py; merged, the weights would no longer
be exactly 4-bit groupwise) plus the low-rank path in float32. Either way it proves itself like its base: its
next-token distributions on the probe texts must agree with the float32 base + delta (loaders.lm.serve_gguf), else
the next form serves, finally float32. A delta trained from another base is refused (VariantMismatch): callers then
use the plain `lm`.

Training a delta (`trainable_base`, `attach_lora`, `lora_state`, `save_delta`) is studio/lab/training/lm_delta_train.py;
the training loop itself is studio/lab/training/lm_finetune.py."""
from __future__ import annotations

from pathlib import Path

from .registry import get_registry
from .roles import LanguageModel
from .specs import canonical_model_id

BASE_KEY = "base_model_id"
SCALE_KEY = "lora_scale"
TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class VariantMismatch(RuntimeError):
    """The delta cannot be applied to the registry's current language model."""


def _lora_class():
    import torch

    class LoRALinear(torch.nn.Module):
        """y = base(x) + scale · B(A x); `base` is a float32 Linear or, once served, the int4 module replacing it."""

        def __init__(self, base, a, b, scale: float):
            super().__init__()
            self.base = base
            self.lora_A = torch.nn.Parameter(a.float(), requires_grad=a.requires_grad)
            self.lora_B = torch.nn.Parameter(b.float(), requires_grad=b.requires_grad)
            self.scale = float(scale)

        def forward(self, x):
            return self.base(x) + (x.to(self.lora_A.dtype) @ self.lora_A.t() @ self.lora_B.t()).to(x.dtype) * self.scale

    return LoRALinear


_LORA = None


def lora_linear_class():
    global _LORA
    if _LORA is None:
        _LORA = _lora_class()
    return _LORA


def delta_metadata(path: Path | str) -> dict:
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as fh:
        return dict(fh.metadata() or {})


def apply_delta(model, delta: dict, scale: float, name: str = "delta") -> int:
    """Wrap the linears that `delta` names with their (frozen) LoRA factors; returns how many."""
    import torch

    cls = lora_linear_class()
    paths = sorted(k[:-len(".lora_A")] for k in delta if k.endswith(".lora_A"))
    for path in paths:
        try:
            module = model.get_submodule(path)
        except AttributeError:
            module = None
        a, b = delta[path + ".lora_A"], delta.get(path + ".lora_B")
        if type(module) is not torch.nn.Linear or b is None or a.shape[1] != module.in_features \
                or b.shape[0] != module.out_features or a.shape[0] != b.shape[1]:
            raise VariantMismatch(f"{name} does not fit this model at {path}")
        parent_path, attr = path.rsplit(".", 1)
        setattr(model.get_submodule(parent_path), attr, cls(module, a.float(), b.float(), scale))
    if not paths:
        raise VariantMismatch(f"{name} holds no LoRA factors")
    return len(paths)


def _fresh(spec, model_id: str, backend: str = ""):
    """A new float32 copy of the lm the spec names (a TransformersLM)."""
    if spec.backend == "tiny_lm":
        from .loaders.tiny import load_tiny_lm

        lm = load_tiny_lm(spec, get_registry())
        lm.model_id, lm.backend = model_id, backend or lm.backend
        return lm
    from .loaders.lm import _load_dir

    return _load_dir(_base_folder(spec), model_id, backend)


def _base_folder(spec) -> str:
    """Where the lm's float32 weights are: the converted GGUF folder (converted once, by loading the role), or
    the checkpoint folder of a transformers lm."""
    from .loaders.split_package import resolve_model_path
    from .loaders.lm import converted_dir

    if spec.backend not in ("gguf_lm", "gguf_writer", "transformers_lm"):
        raise VariantMismatch(f"the current {spec.role} ({spec.backend}) cannot carry a LoRA delta")
    path = Path(resolve_model_path(spec.model_id))
    if spec.backend in ("gguf_lm", "gguf_writer"):
        folder = converted_dir(path)
        if not (folder / "config.json").is_file():
            get_registry().get(spec.role)  # converts the GGUF file once
        return str(folder)
    return str(path)


def load_lm_variant(delta_path: Path | str, base_role: str = "lm", llamacpp_only: bool = False) -> LanguageModel:
    """The registry's `lm` (or `base_role`: the `writer`) with the LoRA delta applied, in the first form that passes
    its self-check here (llama.cpp with an adapter, torch's 4-bit forms, float32: loaders.lm.serve_gguf).
    Not memoised here: the registry's variant roles (`polisher`, `continuation_generator`, `polish_writer`) hold it
    (Models tab, memory budget, unload). VariantMismatch when the delta is missing or from another base;
    `llamacpp_only`: no torch form is built where llama.cpp cannot serve it (a LoadError, unavailable)."""
    delta_path = Path(delta_path)
    if not delta_path.is_file():
        raise VariantMismatch(f"{delta_path.name} not found")
    spec = get_registry().spec(base_role)
    meta = delta_metadata(delta_path)
    recorded = meta.get(BASE_KEY, "")
    if not spec.model_id or canonical_model_id(recorded) != canonical_model_id(spec.model_id):
        raise VariantMismatch(f"{delta_path.name} was trained from {recorded or 'an unrecorded model'}, "
                              f"not from the current {base_role} {spec.model_id or '(none)'}")
    from .loaders.common import bytes_digest

    data = delta_path.read_bytes()  # read once: hashed, then loaded
    return _load(delta_path, spec, float(meta.get(SCALE_KEY, "1.0")), bytes_digest(data), data, llamacpp_only)


def load_lm_variant_role(spec, registry, base_role: str = "lm", llamacpp_only: bool = False) -> LanguageModel:
    """Registry loader of an LM variant role: spec.model_id is the delta's path. A delta that does not fit the
    profile's `lm` (or `base_role`) makes the role unavailable (its callers then use another model)."""
    from .loaders.common import LoadError

    try:
        return load_lm_variant(spec.model_id, base_role, llamacpp_only)
    except VariantMismatch as exc:
        raise LoadError(str(exc), spec.fix or f"train the delta from this profile's {base_role}",
                        unavailable=True) from exc


def load_writer_variant_role(spec, registry) -> LanguageModel:
    """Registry loader of a variant of the `writer` (Polish's writer polisher): as `load_lm_variant_role`, and served
    on llama.cpp only: the torch forms of a second 1.5 B model are too slow to be worth their reads, so where
    llama.cpp cannot serve it the role is unavailable (Polish's polisher proposes instead)."""
    from .loaders.common import LoadError

    try:
        return load_lm_variant_role(spec, registry, base_role="writer", llamacpp_only=True)
    except LoadError as exc:
        raise LoadError(exc.reason, exc.fix or "Polish's polisher proposes instead; STUDIO_LLAMACPP must not be 0",
                        unavailable=exc.unavailable) from exc


def _load(delta_path: Path, spec, scale: float, digest: str, data: bytes, llamacpp_only: bool = False) -> LanguageModel:
    from safetensors.torch import load

    delta = load(data)
    name = f"{(spec.note or spec.model_id.rsplit('/', 1)[-1])} + {delta_path.stem}"
    model_id = f"{spec.model_id}+{delta_path.stem}@{digest}"

    def float32():
        lm = _fresh(spec, model_id, f"{name} (float32 + LoRA delta)")
        apply_delta(lm.model, delta, scale, delta_path.name)
        lm.model.eval()
        return lm

    if spec.backend in ("gguf_lm", "gguf_writer"):
        from .config import cache_dir
        from .loaders.split_package import resolve_model_path
        from .loaders.lm import serve_gguf

        base = Path(_base_folder(spec))
        verdicts = cache_dir() / "lm" / f"{base.name}+{delta_path.stem}-{digest}"
        verdicts.mkdir(parents=True, exist_ok=True)
        # the writer is served on its own 4-bit file (a 1.5 B model decodes at memory speed), the lm as float16
        return serve_gguf(float32, base, Path(resolve_model_path(spec.model_id)), verdicts, name, model_id,
                          delta=(delta, scale), quantized=spec.backend == "gguf_writer",
                          torch_fallback=not llamacpp_only)
    if llamacpp_only:
        from .loaders.common import LoadError

        raise LoadError(f"the {spec.role} ({spec.backend}) is not a GGUF file llama.cpp could serve", unavailable=True)
    return float32()
