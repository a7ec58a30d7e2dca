"""The fine-tuned encoder's machinery on a tiny BERT saved as a sentence-transformers folder (no real weights):
the split at the frozen layers reproduces the whole model, training moves only the top layers, the delta
records its base, and a delta from another base is refused so that the scorer falls back."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "proverbs-ft-cache"))


@pytest.fixture(scope="module")
def tiny_st_dir(tmp_path_factory):
    from studio.models.loaders.tiny import TinyEmbedder

    tiny = TinyEmbedder()
    folder = tmp_path_factory.mktemp("tiny-st")
    tiny.model.save_pretrained(folder, safe_serialization=True)
    tiny.tokenizer.save_pretrained(folder)
    return str(folder)


TEXTS = ["The early bird catches the worm.", "She saved every coin and bought a farm at last.",
         "He waited too long and the roof fell in.", "Two friends shared their bread on a cold night."]


def test_split_encoder_matches_the_whole_model_and_trains_only_the_top(tiny_st_dir):
    import torch

    from studio.models.variants import load_base_sentence_transformer
    from studio.proverbs.finetune import SplitEncoder, finetune

    model = load_base_sentence_transformer(tiny_st_dir)
    enc = SplitEncoder(model, tiny_st_dir, frozen=1)
    states = enc.lower(TEXTS)
    split_vectors = enc.encode([states[t] for t in TEXTS]).numpy()
    whole = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    assert np.allclose(split_vectors, whole, atol=1e-5)
    assert enc.cache_path.is_file()  # lower-layer outputs are cached for the next run

    frozen_before = {k: v.clone() for k, v in enc.net.encoder.layer[0].state_dict().items()}
    top_before = {k: v.clone() for k, v in enc.top.state_dict().items()}
    finetune(enc, TEXTS[:2], np.array([0, 1]), TEXTS[2:], epochs=2, lr=1e-2, scale=20.0, batch_size=2, seed=0)
    assert all(torch.equal(v, enc.net.encoder.layer[0].state_dict()[k]) for k, v in frozen_before.items())
    assert any(not torch.equal(v, enc.top.state_dict()[k]) for k, v in top_before.items())
    delta = enc.top_state()
    assert delta and all(k.startswith("encoder.layer.1.") and v.dtype == torch.float16 for k, v in delta.items())


def test_a_delta_from_another_base_is_refused_and_the_scorer_falls_back(tmp_path):
    import torch

    from studio.models.variants import VariantMismatch, delta_base_id, load_embedder_variant
    from studio.proverbs import get_scorer
    from studio.proverbs.finetune import save_delta

    path = tmp_path / "delta.safetensors"
    save_delta({"encoder.layer.0.output.dense.bias": torch.zeros(4, dtype=torch.float16)}, "some-other-model", path)
    assert delta_base_id(path) == "some-other-model"
    with pytest.raises(VariantMismatch, match="some-other-model"):
        load_embedder_variant(path)
    with pytest.raises(VariantMismatch, match="not found"):
        load_embedder_variant(tmp_path / "missing.safetensors")
    assert get_scorer().finetuned is None  # no committed delta was trained from the tiny embedder


def test_split_encoder_reproduces_an_mpnet_model(tmp_path):
    """MPNet (all-mpnet-base-v2, the offline retrieval embedder) shares a relative-position bias across layers and
    has no token types: the split must still reproduce the whole model."""
    from transformers import MPNetConfig, MPNetModel

    import torch

    from studio.models.loaders.tiny import tiny_tokenizer
    from studio.models.variants import load_base_sentence_transformer
    from studio.proverbs.finetune import SplitEncoder

    tok = tiny_tokenizer()
    torch.manual_seed(0)
    cfg = MPNetConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                      intermediate_size=64, max_position_embeddings=130, pad_token_id=tok.pad_token_id)
    MPNetModel(cfg).eval().save_pretrained(tmp_path, safe_serialization=True)
    tok.model_input_names = ["input_ids", "attention_mask"]
    tok.save_pretrained(tmp_path)
    model = load_base_sentence_transformer(str(tmp_path))
    enc = SplitEncoder(model, str(tmp_path), frozen=2)
    states = enc.lower(TEXTS)
    split_vectors = enc.encode([states[t] for t in TEXTS]).numpy()
    whole = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    assert np.allclose(split_vectors, whole, atol=1e-5)
