"""Serving a GGUF model's 4-bit weights as 4-bit weights on the CPU.

The offline LM ships as Q4_1 (every 32 weights of a row share a scale d and a minimum m: w = d·q + m, q in 0..15),
and transformers dequantizes it to float32. Decoding one token then reads the whole float32 model from memory
for a handful of rows, and memory bandwidth, not arithmetic, sets its speed. The groups are recovered exactly
from the dequantized weights and handed to torch's int4 kernel, which reads an eighth of the bytes. Prompts
(many rows at once) are compute-bound instead, so they run on a bfloat16 copy of the same weights where the
CPU has bf16 instructions (twice the float32 speed); where it has not, on int8 copies (fbgemm, smoothed, 7-bit
activations, the feed-forward output layers in float32; about 1.4 times the float32 speed under an AVX2 proxy),
and failing those on the float32 weights.

A weight that is not exactly 4-bit groupwise (a hub checkpoint, the tiny test models) is left as it is.

Recovering the groups and packing them for the kernel costs about as much as reading the weights (≈2.5 s for the
offline LM on one core), so the packed form is cached beside the converted weights (`int4_cache`, one file per CPU
and torch version, each layer checked against a fingerprint of its weight): later loads, of the lm or of a variant
that wraps the same base layers (the polisher), read it instead.

Both kernels are checked where they run (serve_checked): the served model's next-token distributions on fixed
probe texts must agree with the float32 model's, else the next form is served (int4 with float32 prompts, then
float32 alone). Why and what was measured: docs/acceleration.md."""
from __future__ import annotations

from functools import lru_cache

from ...atomic import atomic_write, atomic_write_bytes
from .common import accelerated, fast_bfloat16

GROUP = 32  # Q4_0 / Q4_1 block size
#: at most this many rows go through the int4 kernel (decoding); more rows use the dense copy (prompts)
INT4_MAX_ROWS = 16
#: the kernel's inner tiling (as torch's own int4 tests use)
_INNER_K_TILES = 2


def available() -> bool:
    import torch

    return hasattr(torch.ops.aten, "_weight_int4pack_mm_for_cpu") and accelerated("STUDIO_LM_4BIT")


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


#: prompt forms: how the many rows of a prompt are multiplied (decoding always uses the int4 kernel)
PROMPT_FORMS = ("bf16", "int8", "float32")
#: layers whose prompt products stay float32 in the int8 form: the inputs of the feed-forward output layer carry
#: token-specific outliers (up to 2,650 times the median channel peak in SmolLM2's layer 11) that one activation
#: scale per product cannot serve (next-token agreement with float32 fell from 0.90 to 0.61 with them in int8)
INT8_FLOAT32_LAYERS = ("down_proj",)
#: SmoothQuant's migration strength: an input channel is divided by peak^alpha / weight_peak^(1 - alpha) and the
#: weight column multiplied by the same, exact in floating point (0.8 agreed better with float32 than 0.5)
SMOOTH_ALPHA = 0.8


def _int8_linear(weight, input_peak):
    """(inverse channel scales, fbgemm's packed int8 form of the smoothed weight): weights int8 per output channel
    (symmetric); `_int8_product` quantizes the activations to 7 bits."""
    import warnings

    import torch

    w_peak = weight.abs().amax(0).clamp_min(1e-5)
    scale = (input_peak.clamp_min(1e-5) ** SMOOTH_ALPHA / w_peak ** (1 - SMOOTH_ALPHA)).clamp_min(1e-5)
    smoothed = weight.float() * scale
    row_scale = (smoothed.abs().amax(1).clamp_min(1e-8) / 127).double()
    with warnings.catch_warnings():  # torch's quantized tensors warn that they move to torchao
        warnings.simplefilter("ignore")
        q = torch.quantize_per_channel(smoothed, row_scale, torch.zeros_like(row_scale, dtype=torch.long), 0,
                                       torch.qint8)
        packed = torch.ops.quantized.linear_prepack(q, None)
    return (1.0 / scale).contiguous(), packed


#: rows that share one activation scale in an int8 prompt product: one scale for a whole batch of left-padded
#: prompts agreed with float32 at 0.856 of positions (bench/lm_int8_prompts.py), one per 32 rows at 0.917
INT8_ROWS_PER_SCALE = 32


def _int8_product(rows, packed):
    """rows @ weightᵀ with activations quantized to 7 bits (reduce_range: no 16-bit saturation on AVX2 without
    VNNI), one scale per INT8_ROWS_PER_SCALE rows."""
    import torch

    parts = rows.split(INT8_ROWS_PER_SCALE)
    return torch.cat([torch.ops.quantized.linear_dynamic(part, packed, True) for part in parts])


@lru_cache(maxsize=1)
def _module_class():
    """The module class, defined on first use because torch is imported lazily."""
    import torch

    class GroupwiseInt4Linear(torch.nn.Module):
        def __init__(self, linear, q, scale, low, prompts: str, input_peak=None, packed=None):
            """`packed`: (packed, scales_zeros) read from the cache, instead of the groups (q, scale, low)."""
            super().__init__()
            self.in_features, self.out_features = linear.in_features, linear.out_features
            if packed is None:
                # the kernel computes (q - 8)·scale + zero, so zero = minimum + 8·scale
                scales_zeros = torch.stack([scale.t(), (low + 8 * scale).t()], dim=-1).contiguous()
                packed = (torch.ops.aten._convert_weight_to_int4pack_for_cpu(q, _INNER_K_TILES),
                          scales_zeros.to(torch.bfloat16))
            self.register_buffer("packed", packed[0])
            self.register_buffer("scales_zeros", packed[1])
            # prompts: a bf16 copy where the CPU has bf16 instructions, an int8 copy (smoothed) where it has not,
            # else the float32 weight itself
            dense = linear.weight.detach()
            self.int8 = None
            if prompts == "int8" and input_peak is not None:
                inverse, self.int8 = _int8_linear(dense, input_peak)
                self.register_buffer("inverse_scale", inverse)
                dense = torch.empty(0)
            self.register_buffer("dense", dense.to(torch.bfloat16) if prompts == "bf16" else dense)
            self.prompts = prompts if prompts != "int8" or self.int8 is not None else "float32"
            self.bias = linear.bias

        def forward(self, x):
            rows = x.reshape(-1, x.shape[-1])
            if rows.shape[0] <= INT4_MAX_ROWS:
                y = torch.ops.aten._weight_int4pack_mm_for_cpu(rows.to(torch.bfloat16), self.packed, GROUP,
                                                               self.scales_zeros)
            elif self.int8 is not None:
                y = _int8_product(rows.float() * self.inverse_scale, self.int8)
            else:
                y = rows.to(self.dense.dtype) @ self.dense.t()
            y = y.to(x.dtype).view(*x.shape[:-1], self.out_features)
            return y if self.bias is None else y + self.bias

        def extra_repr(self) -> str:
            return (f"in_features={self.in_features}, out_features={self.out_features}, int4 groups of {GROUP}, "
                    f"{self.prompts} prompts")

    return GroupwiseInt4Linear


def _fingerprint(weight) -> float:
    """A cheap check that a cached packed layer belongs to this weight: a few rows' weighted sums."""
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

        with safe_open(str(path), framework="pt") as fh:  # one read: the tensors and their fingerprints
            checks = json.loads((fh.metadata() or {}).get("fingerprints", "{}"))
            return {name: fh.get_tensor(name) for name in fh.keys()}, checks
    except Exception:  # noqa: BLE001 — a damaged cache is rebuilt
        return {}, {}


def _write_cache(path, tensors: dict, checks: dict) -> None:
    import json

    from safetensors.torch import save

    try:
        atomic_write(path, save(tensors, metadata={"fingerprints": json.dumps(checks)}))
    except OSError:
        pass  # a read-only cache: served all the same, packed again next time


def serve_4bit(model, prompts: str | None = None, input_peaks: dict | None = None, int4_cache=None) -> int:
    """Replace, in place, every linear layer of a CPU model whose weights are 4-bit groupwise; returns how many.
    The output projection tied to the embedding (8-bit in the GGUF) stays float32. `prompts` (PROMPT_FORMS): how
    prompts are multiplied — "bf16" (default where the CPU multiplies bf16 natively), "int8" (needs
    `input_peaks`, from input_peaks(); the INT8_FLOAT32_LAYERS stay float32) or "float32" (the default where
    it does not). `int4_cache`: the folder whose packed-layer cache (int4_cache_file) is read, and written
    when a layer was packed here; layers are named without a wrapper's ".base", so a variant wrapping the base's
    linears (lm_delta) shares the base's cache."""
    import re

    import torch

    if not available() or next(model.parameters()).device.type != "cpu":
        return 0
    if prompts is None:
        prompts = "bf16" if fast_bfloat16() else "float32"
    if prompts not in PROMPT_FORMS:
        raise ValueError(f"prompts must be one of {PROMPT_FORMS}")
    if prompts == "int8" and not input_peaks:
        raise ValueError("int8 prompts need the layers' input peaks (input_peaks)")
    cls, replaced = _module_class(), 0
    tied = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    cache = int4_cache_file(int4_cache) if int4_cache is not None else None
    stored, checks = _read_cache(cache)
    fresh = False
    for path, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            if type(child) is not torch.nn.Linear or child is tied:
                continue
            full = f"{path}.{name}" if path else name
            key = re.sub(r"(^|\.)base(?=\.|$)", "", full).strip(".")
            mark = _fingerprint(child.weight)
            packed = None
            if f"{key}.packed" in stored and checks.get(key) == mark:
                groups, packed = (None, None, None), (stored[f"{key}.packed"], stored[f"{key}.scales_zeros"])
            else:
                groups = recover_groups(child.weight)
                if groups is None:
                    continue
            peak = None
            if prompts == "int8" and not set(full.split(".")) & set(INT8_FLOAT32_LAYERS):
                peak = input_peaks.get(full)
                if peak is None:
                    raise ValueError(f"no input peak for {full}")
            module = cls(child, *groups, prompts, peak, packed=packed)
            setattr(parent, name, module)
            replaced += 1
            if packed is None:
                stored[f"{key}.packed"], stored[f"{key}.scales_zeros"] = module.packed, module.scales_zeros
                checks[key], fresh = mark, True
    if cache is not None and fresh:
        _write_cache(cache, {k: v.contiguous() for k, v in stored.items()}, checks)
    return replaced


def input_peaks(model, tokenizer, texts: list[str] | None = None) -> dict:
    """{linear layer path: each input channel's largest magnitude} over calibration texts (the studio's
    assets/calibration/english.txt by default, never the self-check's probe texts), read by the float32 model."""
    import torch

    from .onnx_text import calibration_texts

    texts = texts if texts is not None else calibration_texts()[:CALIBRATION_LINES]
    peaks, hooks = {}, []
    tied = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None

    def hook(name):
        def record(module, inputs, output):
            x = inputs[0].detach().reshape(-1, inputs[0].shape[-1]).abs().amax(0).float()
            peaks[name] = torch.maximum(peaks[name], x) if name in peaks else x
        return record

    for name, module in model.named_modules():
        if type(module) is torch.nn.Linear and module is not tied:
            hooks.append(module.register_forward_hook(hook(name)))
    try:
        with torch.inference_mode():
            for text in texts:  # one at a time: no padding rows among the peaks
                ids = tokenizer(text, return_tensors="pt")["input_ids"][:, :CALIBRATION_MAX_TOKENS]
                model(input_ids=ids.to(next(model.parameters()).device))
    finally:
        for h in hooks:
            h.remove()
    return peaks


#: calibration lines read for the int8 prompt form's input peaks (~1,500 tokens, a second or two in float32)
CALIBRATION_LINES = 24
CALIBRATION_MAX_TOKENS = 128
PEAKS_FILE = "int8_input_peaks.safetensors"


def _stored_peaks(folder, model, tokenizer) -> dict:
    """The input peaks, measured once per model folder and kept there (they depend on the weights only)."""
    from safetensors.torch import load_file, save

    path = folder / PEAKS_FILE
    if path.is_file():
        return load_file(str(path))
    peaks = input_peaks(model, tokenizer)
    atomic_write_bytes(path, save({k: v.contiguous() for k, v in peaks.items()}))
    return peaks


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


def int8_prompts_available() -> bool:
    """The int8 prompt form is tried where the CPU has no native bf16 (STUDIO_LM_INT8=0, or reference forms, turn it
    off)."""
    return accelerated("STUDIO_LM_INT8")


def prompt_forms() -> list[tuple[str, str]]:
    """(form name, prompts) in the order they are tried on this CPU."""
    if fast_bfloat16():
        forms = [("int4 decoding + bf16 prompts", "bf16")]
    else:
        forms = [("int4 decoding + int8 prompts", "int8")] if int8_prompts_available() else []
    return forms + [("int4 decoding + float32 prompts", "float32")]


def _verdict(form: str, reference: list, served: list, key: str, seconds: float):
    """The LM check; a form whose prompts are not float32 must also pass on the prompt-path probes alone (those
    longer than INT4_MAX_ROWS tokens), so that the exact int4 positions cannot dilute its disagreements."""
    from .. import selfcheck

    verdict = selfcheck.lm_verdict(form, reference, served, key, seconds)
    long = [i for i, r in enumerate(reference) if r.shape[0] > INT4_MAX_ROWS]
    if verdict.passed and "float32 prompts" not in form and long:
        alone = selfcheck.lm_verdict(form, [reference[i] for i in long], [served[i] for i in long], key, seconds)
        if not alone.passed:
            return alone
    return verdict


def serve_checked(load, folder, name: str, int4_cache=None):
    """A language model from load() (float32, fresh at each call) served in the first form that agrees with
    float32 on this CPU: int4 decoding with bf16 prompts (where the CPU has bf16) or with int8 prompts (where it
    has not), int4 with float32 prompts, or float32 alone. Verdicts are stored in `folder` per CPU and torch
    version; `lm.checks` lists those of this load. `int4_cache`: the folder of the packed-layer cache (serve_4bit)."""
    import time

    import torch

    from .. import selfcheck

    lm = load()
    if not available() or lm.device != "cpu":
        return lm
    runtime = f"torch {torch.__version__} | probes {selfcheck.LM_PROBE_DIGEST}"
    key, checks, reference = selfcheck.cpu_key(runtime), [], None
    for form, prompts in prompt_forms():
        verdict, modified = selfcheck.cached_verdict(folder, form, key), True
        peaks = _stored_peaks(folder, lm.model, lm.tokenizer) if prompts == "int8" and (
            verdict is None or verdict.passed) else None
        if verdict is None:
            started = time.perf_counter()
            reference = reference if reference is not None else probe_logits(lm.model, lm.tokenizer)
            try:
                served = serve_4bit(lm.model, prompts, peaks, int4_cache)
            except (RuntimeError, AttributeError, NotImplementedError) as exc:
                if prompts != "int8":
                    raise
                # a torch without the quantized kernels: a failed verdict, and the next form
                served = -1
                verdict = selfcheck.Verdict(form, False, f"could not be built ({type(exc).__name__}: {exc})"[:200],
                                            99.0, "builds on this torch", key, 0.0, selfcheck.now())
            if not served:
                return lm  # no 4-bit layers (a dense checkpoint): served as it is
            if served > 0:
                verdict = _verdict(form, reference, probe_logits(lm.model, lm.tokenizer), key,
                                   time.perf_counter() - started)
            selfcheck.store_verdict(folder, verdict, form)
        elif verdict.passed and not serve_4bit(lm.model, prompts, peaks, int4_cache):
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
