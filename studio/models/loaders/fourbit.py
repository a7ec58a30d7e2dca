"""Serving a GGUF model's 4-bit weights as 4-bit weights on the CPU.

The offline LM ships as Q4_1 (every 32 weights of a row share a scale d and a minimum m: w = d·q + m, q in 0..15),
and transformers dequantizes it to float32. Decoding one token then reads the whole float32 model from memory
for a handful of rows, and memory bandwidth, not arithmetic, sets its speed. The groups are recovered exactly
from the dequantized weights and handed to torch's int4 kernel, which reads an eighth of the bytes. Prompts
(many rows at once) are compute-bound instead, so they run on a bfloat16 copy of the same weights where the
CPU has bf16 instructions (twice the float32 speed), else on the float32 weights.

A weight that is not exactly 4-bit groupwise (a hub checkpoint, the tiny test models) is left as it is.

Recovering the groups and packing them for the kernel costs about as much as reading the weights (≈2.5 s for the
offline LM on one core), so the packed form is cached beside the converted weights (`int4_cache`, one file per CPU
and torch version, each layer checked against a fingerprint of its weight): later loads, of the lm or of a variant
that wraps the same base layers (the polisher), read it instead.

Both kernels are checked where they run (serve_checked): the served model's next-token distributions on fixed
probe texts must agree with the float32 model's, else the next form is served (int4 with float32 prompts, then
float32 alone)."""
from __future__ import annotations

import os
from functools import lru_cache

from .common import fast_bfloat16

GROUP = 32  # Q4_0 / Q4_1 block size
#: at most this many rows go through the int4 kernel (decoding); more rows use the dense copy (prompts)
INT4_MAX_ROWS = 16
#: the kernel's inner tiling (as torch's own int4 tests use)
_INNER_K_TILES = 2


def available() -> bool:
    import torch

    return hasattr(torch.ops.aten, "_weight_int4pack_mm_for_cpu") and os.environ.get("STUDIO_LM_4BIT", "1") != "0"


def recover_groups(weight, group: int = GROUP):
    """(q, scale, minimum) with weight == scale·q + minimum exactly, q in 0..15 per `group` inputs, or None
    when the weight is not 4-bit groupwise."""
    import torch

    n, k = weight.shape
    if k % group:
        return None
    if n > 64 and recover_groups(weight[:64], group) is None:  # a dense checkpoint fails fast
        return None
    w = weight.detach().float().view(n, k // group, group)
    low, high = w.amin(-1), w.amax(-1)
    scale = (high - low) / 15
    q = torch.round((w - low[..., None]) / torch.where(scale > 0, scale, 1.0)[..., None]).clamp_(0, 15)
    rebuilt = q * scale[..., None] + low[..., None]
    # float32 rounding of d·q + m is the only tolerated difference
    if not torch.allclose(rebuilt, w, rtol=0, atol=float(w.abs().max().clamp_min(1e-30)) * 1e-6):
        return None
    return q.view(n, k).to(torch.int32), scale, low


@lru_cache(maxsize=1)
def _module_class():
    """The module class, defined on first use because torch is imported lazily."""
    import torch

    class GroupwiseInt4Linear(torch.nn.Module):
        def __init__(self, linear, q, scale, low, bf16: bool):
            super().__init__()
            self.in_features, self.out_features = linear.in_features, linear.out_features
            self.register_buffer("packed", torch.ops.aten._convert_weight_to_int4pack_for_cpu(q, _INNER_K_TILES))
            # the kernel computes (q - 8)·scale + zero, so zero = minimum + 8·scale
            scales_zeros = torch.stack([scale.t(), (low + 8 * scale).t()], dim=-1)
            self.register_buffer("scales_zeros", scales_zeros.contiguous().to(torch.bfloat16))
            # prompts: a bf16 copy where the CPU has bf16 instructions, else the float32 weight itself
            dense = linear.weight.detach()
            self.register_buffer("dense", dense.to(torch.bfloat16) if bf16 else dense)
            self.bias = linear.bias

        def forward(self, x):
            rows = x.reshape(-1, x.shape[-1])
            if rows.shape[0] <= INT4_MAX_ROWS:
                y = torch.ops.aten._weight_int4pack_mm_for_cpu(rows.to(torch.bfloat16), self.packed, GROUP,
                                                               self.scales_zeros)
            else:
                y = rows.to(self.dense.dtype) @ self.dense.t()
            y = y.to(x.dtype).view(*x.shape[:-1], self.out_features)
            return y if self.bias is None else y + self.bias

        def extra_repr(self) -> str:
            return f"in_features={self.in_features}, out_features={self.out_features}, int4 groups of {GROUP}"

        @classmethod
        def from_packed(cls, linear, packed, scales_zeros, bf16: bool):
            """The module from its cached packed form (what __init__ computes from the groups)."""
            self = cls.__new__(cls)
            torch.nn.Module.__init__(self)
            self.in_features, self.out_features = linear.in_features, linear.out_features
            self.register_buffer("packed", packed)
            self.register_buffer("scales_zeros", scales_zeros)
            dense = linear.weight.detach()
            self.register_buffer("dense", dense.to(torch.bfloat16) if bf16 else dense)
            self.bias = linear.bias
            return self

    return GroupwiseInt4Linear


def _fingerprint(weight) -> float:
    """A cheap check that a cached packed layer belongs to this weight: a few rows' sums."""
    w = weight.detach()
    rows = w[:: max(1, w.shape[0] // 8)][:8].double()
    return float((rows * (1 + (rows.new_tensor(range(rows.shape[1])) % 7))).sum())


def int4_cache_file(folder) -> "Path":
    """The packed-layer cache of a converted model folder, per CPU and torch version (the packing is theirs)."""
    import hashlib
    from pathlib import Path

    import torch

    from ..selfcheck import cpu_key

    key = hashlib.sha1(cpu_key(f"torch {torch.__version__}").encode()).hexdigest()[:12]
    return Path(folder) / f"int4-{key}.safetensors"


def _read_cache(path) -> tuple[dict, dict]:
    if path is None or not path.is_file():
        return {}, {}
    try:
        import json

        from safetensors import safe_open
        from safetensors.torch import load_file

        with safe_open(str(path), framework="pt") as fh:
            checks = json.loads((fh.metadata() or {}).get("fingerprints", "{}"))
        return load_file(str(path)), checks
    except Exception:  # noqa: BLE001 — a damaged cache is rebuilt
        return {}, {}


def _write_cache(path, tensors: dict, checks: dict) -> None:
    import json

    from safetensors.torch import save

    from ...atomic import atomic_write

    try:
        atomic_write(path, save(tensors, metadata={"fingerprints": json.dumps(checks)}))
    except OSError:
        pass  # a read-only cache: served all the same, packed again next time


def serve_4bit(model, bf16: bool | None = None, int4_cache=None) -> int:
    """Replace, in place, every linear layer of a CPU model whose weights are 4-bit groupwise; returns how many.
    The output projection tied to the embedding (8-bit in the GGUF) stays float32. `bf16`: prompts run on a
    bfloat16 copy (default: where the CPU multiplies bf16 natively). `int4_cache`: the folder whose packed-layer
    cache (int4_cache_file) is read, and written when a layer was packed here; layers are named without a
    wrapper's ".base", so a variant wrapping the base's linears (lm_delta) shares the base's cache."""
    import re

    import torch

    if not available() or next(model.parameters()).device.type != "cpu":
        return 0
    cls, replaced = _module_class(), 0
    bf16 = fast_bfloat16() if bf16 is None else bf16
    tied = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    path = int4_cache_file(int4_cache) if int4_cache is not None else None
    stored, checks = _read_cache(path)
    fresh = False
    for parent_path, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            if type(child) is not torch.nn.Linear or child is tied:
                continue
            key = re.sub(r"(^|\.)base(?=\.|$)", "", f"{parent_path}.{name}".strip(".")).strip(".")
            mark = _fingerprint(child.weight)
            if f"{key}.packed" in stored and checks.get(key) == mark:
                setattr(parent, name, cls.from_packed(child, stored[f"{key}.packed"],
                                                      stored[f"{key}.scales_zeros"], bf16))
                replaced += 1
                continue
            groups = recover_groups(child.weight)
            if groups is not None:
                module = cls(child, *groups, bf16)
                setattr(parent, name, module)
                replaced += 1
                stored[f"{key}.packed"], stored[f"{key}.scales_zeros"] = module.packed, module.scales_zeros
                checks[key], fresh = mark, True
    if path is not None and fresh:
        _write_cache(path, {k: v.contiguous() for k, v in stored.items()}, checks)
    return replaced


def probe_logits(model, tokenizer) -> list:
    """The model's next-token logits at every position of each probe text, run one text at a time: the short
    texts go through the int4 kernel (as decoding does), the long one through the dense copy (as prompts do)."""
    import torch

    from ..selfcheck import LM_PROBE_TEXTS

    out = []
    with torch.inference_mode():
        for text in LM_PROBE_TEXTS:
            ids = tokenizer(text, return_tensors="pt")["input_ids"].to(next(model.parameters()).device)
            out.append(model(input_ids=ids).logits[0].float().cpu().numpy())
    return out


def serve_checked(load, folder, name: str, int4_cache=None):
    """A language model from load() (float32, fresh at each call) served in the first form that agrees with
    float32 on this CPU: int4 decoding with bf16 prompts (where the CPU has bf16), int4 with float32 prompts, or
    float32 alone. Verdicts are stored in `folder` per CPU and torch version; `lm.checks` lists those of this load.
    `int4_cache`: the folder of the packed-layer cache (serve_4bit)."""
    import time

    import torch

    from .. import selfcheck

    lm = load()
    if not available() or lm.device != "cpu":
        return lm
    forms = [("int4 decoding + bf16 prompts", True)] if fast_bfloat16() else []
    forms.append(("int4 decoding + float32 prompts", False))
    key, checks, reference = selfcheck.cpu_key(f"torch {torch.__version__}"), [], None
    for form, bf16 in forms:
        verdict, modified = selfcheck.cached_verdict(folder, form, key), True
        if verdict is None:
            started = time.perf_counter()
            reference = reference if reference is not None else probe_logits(lm.model, lm.tokenizer)
            if not serve_4bit(lm.model, bf16, int4_cache):
                return lm  # no 4-bit layers (a dense checkpoint): served as it is
            verdict = selfcheck.lm_verdict(form, reference, probe_logits(lm.model, lm.tokenizer), key,
                                           time.perf_counter() - started)
            selfcheck.store_verdict(folder, verdict, form)
        elif verdict.passed and not serve_4bit(lm.model, bf16, int4_cache):
            return lm
        else:
            modified = verdict.passed
        checks.append(verdict)
        if verdict.passed:
            lm.backend, lm.checks = f"{name} (GGUF, 4-bit layers on torch's int4 kernel, {form})", checks
            return lm
        if modified:  # the failed form replaced the float32 layers: start again from the file
            lm = load()
    lm.backend, lm.checks = f"{name} (GGUF, float32; the int4 kernel failed its self-check on this CPU)", checks
    return lm
