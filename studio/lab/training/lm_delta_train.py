"""Training-side helpers of lm_delta.py's LoRA deltas: a trainable float32 copy of the registry's `lm`, the LoRA
factors attached to it, and the delta file written from them; the training loop itself is studio/lab/training/lm_finetune.py."""
from __future__ import annotations

from pathlib import Path

from ...atomic import atomic_write
from ...models.lm_delta import BASE_KEY, SCALE_KEY, TARGETS, _base_folder, _fresh, lora_linear_class
from ...models.registry import get_registry


def attach_lora(model, rank: int, alpha: float, layers=None, targets=TARGETS, seed: int = 0) -> list[str]:
    """Wrap the target linears (of the decoder layers `layers`, default all) with trainable LoRA factors
    (A small random, B zero: the model starts as the base); freezes everything else. Returns the wrapped paths."""
    import torch

    cls = lora_linear_class()
    gen = torch.Generator().manual_seed(seed)
    for p in model.parameters():
        p.requires_grad_(False)
    wrapped = []
    for path, module in list(model.named_modules()):
        name = path.rsplit(".", 1)[-1]
        if name not in targets or type(module) is not torch.nn.Linear:
            continue
        layer = _layer_index(path)
        if layers is not None and layer not in layers:
            continue
        a = torch.randn(rank, module.in_features, generator=gen) / module.in_features ** 0.5
        b = torch.zeros(module.out_features, rank)
        wrapper = cls(module, a.requires_grad_(True), b.requires_grad_(True), alpha / rank)
        parent = model.get_submodule(path.rsplit(".", 1)[0])
        setattr(parent, name, wrapper)
        wrapped.append(path)
    return wrapped


def _layer_index(path: str) -> int | None:
    parts = path.split(".")
    for i, part in enumerate(parts[:-1]):
        if part == "layers" and parts[i + 1].isdigit():
            return int(parts[i + 1])
    return None


def lora_state(model) -> dict:
    """{"<path>.lora_A": A, "<path>.lora_B": B} of every LoRA wrapper, float16 on the CPU."""
    import torch

    cls = lora_linear_class()
    out = {}
    for path, module in model.named_modules():
        if isinstance(module, cls):
            out[f"{path}.lora_A"] = module.lora_A.detach().to("cpu", torch.float16).contiguous()
            out[f"{path}.lora_B"] = module.lora_B.detach().to("cpu", torch.float16).contiguous()
    return out


def save_delta(model, path: Path, base_model_id: str, scale: float, extra: dict | None = None) -> None:
    from safetensors.torch import save as save_bytes

    meta = {BASE_KEY: base_model_id, SCALE_KEY: repr(float(scale)), **{k: str(v) for k, v in (extra or {}).items()}}
    atomic_write(Path(path), save_bytes(lora_state(model), metadata=meta))


def trainable_base(role: str = "lm"):
    """(model, tokenizer, model_id) of the registry's current `lm` (or `role`: the `writer`) as a private float32
    copy to train a delta on."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    spec = get_registry().spec(role)
    if spec.backend == "tiny_lm":
        lm = _fresh(spec, spec.model_id)
        return lm.model, lm.tokenizer, spec.model_id
    folder = _base_folder(spec)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, use_safetensors=True,
                                                 trust_remote_code=False)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer, spec.model_id
