"""The hub profile's first-load download, computed without the hub: each model's architecture is built on torch's
`meta` device (no memory, no weights) from its published configuration, its parameters are counted, and the size of
its weight files follows from the dtype they are published in. Prints JSON (docs/models.md quotes it).

    .venv/bin/python scripts/space_sizes.py

The configurations below are the architecture fields of each model's published config.json (sd-turbo: Stable
Diffusion 2.1's UNet, VAE and OpenCLIP ViT-H text encoder, from which it was distilled). Not checked against the
hub here: there is no network. A download also holds tokenizers and configs (a few MB).
"""
from __future__ import annotations

import json

import torch

GB = 1e9


def _count(module) -> int:
    seen, total = set(), 0
    for p in module.parameters():
        if id(p) not in seen:  # tied weights (e.g. the LM's embedding and head) are stored once
            seen.add(id(p))
            total += p.numel()
    return total


def transformers_models() -> dict:
    from transformers import (DistilBertConfig, DistilBertForSequenceClassification, LlamaConfig, LlamaForCausalLM,
                              MPNetConfig, MPNetModel, RobertaConfig, RobertaForSequenceClassification)

    return {
        "embedder: sentence-transformers/all-mpnet-base-v2 (model.safetensors, float32)": (
            MPNetModel(MPNetConfig(vocab_size=30527, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                   intermediate_size=3072, max_position_embeddings=514), add_pooling_layer=True),
            4),
        "lm: HuggingFaceTB/SmolLM2-360M-Instruct (model.safetensors, bfloat16)": (
            LlamaForCausalLM(LlamaConfig(vocab_size=49152, hidden_size=960, intermediate_size=2560,
                                         num_hidden_layers=32, num_attention_heads=15, num_key_value_heads=5,
                                         max_position_embeddings=8192, tie_word_embeddings=True)),
            2),
        "nli: FacebookAI/roberta-large-mnli (model.safetensors, float32)": (
            RobertaForSequenceClassification(RobertaConfig(vocab_size=50265, hidden_size=1024, num_hidden_layers=24,
                                                           num_attention_heads=16, intermediate_size=4096,
                                                           max_position_embeddings=514, type_vocab_size=1,
                                                           num_labels=3)),
            4),
        "sentiment: distilbert/distilbert-base-uncased-finetuned-sst-2-english (model.safetensors, float32)": (
            DistilBertForSequenceClassification(DistilBertConfig(vocab_size=30522, dim=768, n_layers=6, n_heads=12,
                                                                 hidden_dim=3072, max_position_embeddings=512,
                                                                 num_labels=2)),
            4),
    }


def vision_models() -> dict:
    import open_clip
    from diffusers import AutoencoderKL, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    # sd-turbo is a distilled Stable Diffusion 2.1: its UNet, VAE and OpenCLIP ViT-H text encoder configurations
    unet = UNet2DConditionModel(sample_size=64, block_out_channels=(320, 640, 1280, 1280), layers_per_block=2,
                                attention_head_dim=(5, 10, 20, 20), cross_attention_dim=1024,
                                use_linear_projection=True)
    vae = AutoencoderKL(block_out_channels=(128, 256, 512, 512), layers_per_block=2, latent_channels=4,
                        down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4)
    text = CLIPTextModel(CLIPTextConfig(vocab_size=49408, hidden_size=1024, intermediate_size=4096,
                                        num_hidden_layers=23, num_attention_heads=16, max_position_embeddings=77,
                                        projection_dim=512, hidden_act="gelu"))
    return {
        "clip: open_clip ViT-B-32 / openai (open_clip_model.safetensors, float32)": (
            open_clip.create_model("ViT-B-32", pretrained=None, device="meta"), 4),
        "diffusion: stabilityai/sd-turbo unet (diffusion_pytorch_model.safetensors, float32)": (unet, 4),
        "diffusion: stabilityai/sd-turbo text_encoder (model.safetensors, float32)": (text, 4),
        "diffusion: stabilityai/sd-turbo vae (diffusion_pytorch_model.safetensors, float32)": (vae, 4),
    }


def main() -> None:
    rows = {}
    with torch.device("meta"):
        models = {**transformers_models(), **vision_models()}
    for name, (module, bytes_per_param) in models.items():
        params = _count(module)
        rows[name] = {"parameters_m": round(params / 1e6, 1), "download_gb": round(params * bytes_per_param / GB, 3),
                      "memory_gb_float32": round(params * 4 / GB, 3)}
    total = round(sum(r["download_gb"] for r in rows.values()), 2)
    print(json.dumps({"models": rows, "total_download_gb": total,
                      "total_memory_gb_float32": round(sum(r["memory_gb_float32"] for r in rows.values()), 2)},
                     indent=1))


if __name__ == "__main__":
    main()
