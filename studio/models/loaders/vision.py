"""CLIP (open_clip) and text-to-image (diffusers) backends."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from ..roles import ClipModel, DiffusionModel, RenderDefaults, TextFeatures
from .common import LoadError, device, refuse_pickled_weights
from .split_package import resolve_model_path


class OpenClip(ClipModel):
    def __init__(self, model, preprocess, tokenizer, model_id: str, backend: str):
        import torch

        self._torch = torch
        self.model, self.preprocess, self.tokenizer = model.eval(), preprocess, tokenizer
        self.model_id, self.backend = model_id, backend
        self.device = str(next(model.parameters()).device)
        self.context_length = int(getattr(tokenizer, "context_length", 77))

    def _is_truncated(self, text: str) -> bool:
        encoder = getattr(self.tokenizer, "encode", None)
        if encoder is None:
            return False
        return len(encoder(text)) + 2 > self.context_length  # + start and end tokens

    def encode_text(self, texts: Sequence[str]) -> TextFeatures:
        torch = self._torch
        tokens = self.tokenizer(list(texts)).to(self.device)
        with torch.inference_mode():
            feats = self.model.encode_text(tokens).float()
            feats = feats / feats.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        return TextFeatures(feats.cpu().numpy(), [self._is_truncated(t) for t in texts])

    def encode_image(self, images: Sequence) -> np.ndarray:
        torch = self._torch
        batch = torch.stack([self.preprocess(img.convert("RGB")) for img in images]).to(self.device)
        with torch.inference_mode():
            feats = self.model.encode_image(batch).float()
            feats = feats / feats.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        return feats.cpu().numpy()

    def close(self) -> None:
        self.model = None


#: the weights file of an open_clip folder in the hub layout (what `hf-hub:` repos and open_clip's tags hold)
OPEN_CLIP_WEIGHTS = ("open_clip_model.safetensors", "open_clip_pytorch_model.safetensors")


def load_open_clip(spec, registry) -> ClipModel:
    """`ARCH/PRETRAINED_TAG` (e.g. ViT-B-32/openai) or `hf-hub:org/repo` from the hub; `ARCH:/local/weights.safetensors`
    (a state dict for the built-in architecture ARCH); or a local folder in the hub layout (open_clip_config.json and
    open_clip_model.safetensors), whose config also says whether the weights need QuickGELU (OpenAI's do)."""
    import open_clip

    if not spec.model_id:
        raise LoadError(spec.unavailable_reason, spec.fix, unavailable=True)
    pretrained = None
    if spec.model_id.startswith("hf-hub:"):
        arch = spec.model_id
    elif Path(spec.model_id).expanduser().is_dir():
        folder = Path(spec.model_id).expanduser()
        if not (folder / "open_clip_config.json").is_file():
            raise LoadError(f"{folder} has no open_clip_config.json",
                            "STUDIO_MODEL_CLIP=a folder holding open_clip_config.json and open_clip_model.safetensors, "
                            "or ARCH:/path/to/weights.safetensors")
        if not any((folder / name).is_file() for name in OPEN_CLIP_WEIGHTS):
            raise LoadError(f"{folder} holds no {OPEN_CLIP_WEIGHTS[0]} (the studio loads safetensors only)",
                            "convert the weights to safetensors")
        arch = f"local-dir:{folder}"
    elif ":" in spec.model_id:
        arch, _, weights = spec.model_id.partition(":")
        weights = resolve_model_path(weights)
        if not Path(weights).is_file():
            raise LoadError(f"no CLIP weights at {weights}", "STUDIO_MODEL_CLIP=ARCH:/path/to/weights.safetensors")
        refuse_pickled_weights(weights)
        pretrained = weights
    else:
        arch, _, tag = spec.model_id.partition("/")
        pretrained = tag or None
    model, _, preprocess = open_clip.create_model_and_transforms(arch, pretrained=pretrained, device=device())
    return OpenClip(model, preprocess, open_clip.get_tokenizer(arch), spec.model_id, f"open_clip {spec.model_id}")


def defaults_for(model_id: str) -> RenderDefaults:
    if "turbo" in model_id.lower():
        return RenderDefaults(steps=1, guidance=0.0, size=512, max_steps=4)
    return RenderDefaults(steps=50, guidance=7.5, size=512, max_steps=100)


class DiffusersPipeline(DiffusionModel):
    def __init__(self, pipe, model_id: str, backend: str, defaults: RenderDefaults):
        import torch

        self._torch = torch
        self.pipe, self.model_id, self.backend, self.defaults = pipe, model_id, backend, defaults
        self.device = str(pipe.device)
        self.pipe.set_progress_bar_config(disable=True)
        self._lock = threading.Lock()  # a pipeline's scheduler holds per-call state

    def render(self, prompt, *, seed, steps=None, guidance=None, size=None, on_step=None):
        torch = self._torch
        steps = int(steps or self.defaults.steps)
        guidance = float(self.defaults.guidance if guidance is None else guidance)
        size = int(size or self.defaults.size)
        generator = torch.Generator(device="cpu").manual_seed(int(seed))

        def callback(pipe, i, t, kwargs):
            if on_step:
                on_step(i + 1, steps)
            return kwargs

        with self._lock, torch.inference_mode():
            out = self.pipe(prompt, num_inference_steps=steps, guidance_scale=guidance, height=size, width=size,
                            generator=generator, callback_on_step_end=callback)
        return out.images[0]

    def close(self) -> None:
        self.pipe = None


def load_diffusers(spec, registry) -> DiffusionModel:
    import torch
    from diffusers import AutoPipelineForText2Image

    if not spec.model_id:
        raise LoadError(spec.unavailable_reason, spec.fix, unavailable=True)
    path = resolve_model_path(spec.model_id)
    refuse_pickled_weights(path)
    dev = device()
    dtype = torch.float16 if dev == "cuda" else torch.float32
    pipe = AutoPipelineForText2Image.from_pretrained(path, dtype=dtype, use_safetensors=True,
                                                     safety_checker=None, requires_safety_checker=False)
    return DiffusersPipeline(pipe.to(dev), spec.model_id, f"{spec.model_id} (diffusers, {dev})",
                             defaults_for(spec.model_id))
