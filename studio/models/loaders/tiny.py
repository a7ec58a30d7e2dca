"""The tiny profile: small random models built in code, seeded, so every code path runs with no download.

They share one byte-level BPE tokenizer trained in milliseconds on a built-in text, so any input
(emoji, RTL, control characters) tokenizes without unknown tokens.
"""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from .. import heads
from ..roles import Embedder, RenderDefaults
from .lm import TransformersLM
from .vision import DiffusersPipeline, OpenClip

SEED = 0
_TRAINING_TEXT = """
He yelps and howls like a wolf. She sang as sweetly as a lark. The night was as dark as ink.
Time flies like an arrow. A stitch in time saves nine. Don't count your chickens before they hatch.
The old man walked slowly to the river and sat on a stone. It was raining, and the children laughed.
I like tea. Things like that happen. It looks like it will rain. Her eyes shone like stars in the sky.
""" * 4


def tiny_tokenizer():
    """A fresh wrapper per caller: roles set options such as padding_side on their own tokenizer."""
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_object=_trained_bpe(), eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                                   pad_token="<pad>", model_max_length=512)


@functools.lru_cache(maxsize=1)
def _trained_bpe():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<|endoftext|>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(_TRAINING_TEXT.split("\n"), trainer=trainer)
    return tok


class TinyEmbedder(Embedder):
    backend = "tiny random BERT (mean pooling)"
    model_id = "tiny-bert"

    def __init__(self):
        import torch
        from transformers import BertConfig, BertModel

        torch.manual_seed(SEED)
        self._torch, self.tokenizer = torch, tiny_tokenizer()
        cfg = BertConfig(vocab_size=len(self.tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=512, pad_token_id=self.tokenizer.pad_token_id)
        self.model = BertModel(cfg).eval()
        self.dim = 32

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        torch, out = self._torch, []
        for i in range(0, len(texts), batch_size):
            enc = self.tokenizer(list(texts[i:i + batch_size]), padding=True, truncation=True, max_length=128,
                                 return_tensors="pt")
            enc.pop("token_type_ids", None)
            with torch.inference_mode():
                hidden = self.model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp_min(1.0)
            out.append(torch.nn.functional.normalize(pooled, dim=-1).numpy())
        return np.concatenate(out).astype(np.float32) if out else np.zeros((0, self.dim), dtype=np.float32)


def load_tiny_embedder(spec, registry) -> Embedder:
    return TinyEmbedder()


def tiny_causal_lm(arch: str, tok, seed: int, kv_heads: int = 1, max_positions: int = 2048):
    """A random 2-layer causal LM of `arch` ("llama" or "qwen2"), seeded, over `tok`'s vocabulary; the tiny profile's
    `lm` and `writer`, and the test Space's saved ones."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    config_cls, model_cls = {"llama": (LlamaConfig, LlamaForCausalLM), "qwen2": (Qwen2Config, Qwen2ForCausalLM)}[arch]
    torch.manual_seed(seed)
    cfg = config_cls(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=kv_heads, max_position_embeddings=max_positions,
                     bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                     tie_word_embeddings=True)
    return model_cls(cfg)


def load_tiny_lm(spec, registry):
    tok = tiny_tokenizer()
    model = tiny_causal_lm("llama", tok, SEED, kv_heads=2, max_positions=1024)
    return TransformersLM(model.eval(), tok, "tiny-llama", "tiny random Llama")


def load_tiny_writer(spec, registry):
    """A random 2-layer Qwen2 (the writer's architecture) on the tiny tokenizer."""
    tok = tiny_tokenizer()
    return TransformersLM(tiny_causal_lm("qwen2", tok, SEED + 1).eval(), tok, "tiny-qwen2", "tiny random Qwen2")


def load_tiny_head(spec, registry):
    import torch

    embedder = registry.get("embedder")
    torch.manual_seed(SEED)
    if spec.role == "nli":
        cfg = heads.HeadConfig("pair", embedder.dim, 16, list(heads.NLI_LABELS), embedder=embedder.model_id)
        return heads.HeadNLI(embedder, cfg, heads.build_module(cfg).eval(), spec.model_id)
    cfg = heads.HeadConfig("single", embedder.dim, 16, ["negative", "positive"], embedder=embedder.model_id)
    return heads.HeadSentiment(embedder, cfg, heads.build_module(cfg).eval(), spec.model_id)


def load_tiny_clip(spec, registry):
    import open_clip
    import torch
    from open_clip.model import CLIP, CLIPTextCfg, CLIPVisionCfg
    from open_clip.transform import image_transform

    torch.manual_seed(SEED)
    model = CLIP(embed_dim=32,
                 vision_cfg=CLIPVisionCfg(layers=1, width=32, head_width=16, patch_size=8, image_size=32),
                 text_cfg=CLIPTextCfg(context_length=77, vocab_size=49408, width=32, heads=2, layers=1))
    tokenizer = open_clip.tokenizer.SimpleTokenizer(context_length=77)  # the BPE vocabulary ships with open_clip
    return OpenClip(model, image_transform(32, is_train=False), tokenizer, "tiny-open-clip", "tiny random open_clip")


def load_tiny_diffusion(spec, registry):
    import torch
    from diffusers import AutoencoderKL, EulerDiscreteScheduler, StableDiffusionPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    tok = tiny_tokenizer()
    tok77 = tok.__class__(tokenizer_object=tok.backend_tokenizer, eos_token=tok.eos_token, bos_token=tok.bos_token,
                          pad_token=tok.pad_token, model_max_length=77)
    torch.manual_seed(SEED)
    unet = UNet2DConditionModel(block_out_channels=(4, 8), layers_per_block=1, sample_size=16, in_channels=4,
                                out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
                                up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=32,
                                norm_num_groups=2)
    vae = AutoencoderKL(block_out_channels=[4, 8], in_channels=3, out_channels=3, latent_channels=4,
                        down_block_types=["DownEncoderBlock2D"] * 2, up_block_types=["UpDecoderBlock2D"] * 2,
                        norm_num_groups=2)
    text_encoder = CLIPTextModel(CLIPTextConfig(hidden_size=32, intermediate_size=37, num_attention_heads=4,
                                                num_hidden_layers=2, vocab_size=len(tok), max_position_embeddings=77,
                                                bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                                                pad_token_id=tok.pad_token_id))
    scheduler = EulerDiscreteScheduler(timestep_spacing="trailing", steps_offset=1)
    pipe = StableDiffusionPipeline(vae=vae, text_encoder=text_encoder, tokenizer=tok77, unet=unet, scheduler=scheduler,
                                   safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    return DiffusersPipeline(pipe.to("cpu"), "tiny-stable-diffusion", "tiny random Stable Diffusion (diffusers)",
                             RenderDefaults(steps=2, guidance=0.0, size=64, max_steps=8))
