"""The fine-tuned encoder's machinery on tiny models saved as sentence-transformers folders (no real weights):
low-rank factors start as a no-op, training moves only them, the saved delta merged into a plain model reproduces
the trained one (BERT and MPNet), the delta records its base, and a delta from another base is refused so that
the scorer falls back."""
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


def _train_and_merge(model_dir):
    import torch

    from studio.models.variants import apply_delta, load_base_sentence_transformer
    from studio.lab.proverbs.finetune import finetune, low_rank_state

    model = load_base_sentence_transformer(model_dir)
    before = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    frozen = {k: v.clone() for k, v in model[0].auto_model.state_dict().items()}
    finetune(model, TEXTS[:2], np.array([0, 1]), TEXTS[2:], rank=2, epochs=2, lr=5e-2, scale=20.0, batch_size=2,
             seed=0, max_length=64)
    net = model[0].auto_model
    for name, value in net.state_dict().items():  # only the factors moved
        if "lora_" not in name:
            original = frozen.get(name) if name in frozen else frozen[name.replace(".base.", ".")]
            assert torch.equal(value, original), name
    trained = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    assert not np.allclose(trained, before, atol=1e-4)
    delta = low_rank_state(net)
    assert delta and all(v.dtype == torch.float16 for v in delta.values())
    plain = load_base_sentence_transformer(model_dir)
    apply_delta(plain[0].auto_model, delta, "delta", model_dir)
    merged = plain.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    # float16 factors: close, not bitwise
    np.testing.assert_allclose(merged, trained, atol=2e-3)
    return delta


def test_low_rank_factors_train_alone_and_merge_into_the_plain_model(tiny_st_dir):
    delta = _train_and_merge(tiny_st_dir)
    assert any(k.endswith("attention.self.query.lora_A") for k in delta)
    assert any(k.endswith("intermediate.dense.lora_B") for k in delta)


def test_a_factor_that_does_not_fit_is_refused(tiny_st_dir):
    import torch

    from studio.models.variants import VariantMismatch, apply_delta, load_base_sentence_transformer

    net = load_base_sentence_transformer(tiny_st_dir)[0].auto_model
    bad = {"encoder.layer.0.attention.self.query.lora_A": torch.zeros(2, 5),
           "encoder.layer.0.attention.self.query.lora_B": torch.zeros(32, 2)}
    with pytest.raises(VariantMismatch, match="do not fit"):
        apply_delta(net, bad, "delta", "tiny")


def test_a_delta_replaces_whole_tensors_beside_its_factors(tiny_st_dir):
    """A delta may hold replacement tensors (a tuned bias or norm) as well as low-rank factors: they are loaded in
    the model's own dtype, and the factors are merged."""
    import torch

    from studio.models.variants import apply_delta, load_base_sentence_transformer

    net = load_base_sentence_transformer(tiny_st_dir)[0].auto_model
    bias = "encoder.layer.0.attention.self.query.bias"
    weight = net.get_submodule("encoder.layer.0.attention.self.query").weight.detach().clone()
    rows, cols = weight.shape
    delta = {bias: torch.full_like(net.state_dict()[bias], 0.25, dtype=torch.float16),
             "encoder.layer.0.attention.self.query.lora_A": torch.ones(1, cols),
             "encoder.layer.0.attention.self.query.lora_B": torch.full((rows, 1), 0.5)}
    apply_delta(net, delta, "delta", "tiny")
    state = net.state_dict()
    assert state[bias].dtype == weight.dtype and torch.all(state[bias] == 0.25)
    assert torch.allclose(state["encoder.layer.0.attention.self.query.weight"], weight + 0.5)


def test_a_delta_from_another_base_is_refused_and_the_scorer_falls_back(tmp_path):
    import torch

    from studio.models.variants import VariantMismatch, delta_base_id, load_embedder_variant
    from studio.proverbs import get_scorer
    from studio.lab.proverbs.finetune import save_delta

    path = tmp_path / "delta.safetensors"
    save_delta({"encoder.layer.0.output.dense.bias": torch.zeros(4, dtype=torch.float16)}, "some-other-model", path)
    assert delta_base_id(path) == "some-other-model"
    with pytest.raises(VariantMismatch, match="some-other-model"):
        load_embedder_variant(path)
    with pytest.raises(VariantMismatch, match="not found"):
        load_embedder_variant(tmp_path / "missing.safetensors")
    assert get_scorer().finetuned is None  # no committed delta was trained from the tiny embedder


def test_low_rank_factors_cover_mpnet_and_merge(tmp_path):
    """MPNet (all-mpnet-base-v2, the offline retrieval embedder) names its attention products q, k, v, o and has
    no token types."""
    from transformers import MPNetConfig, MPNetModel

    import torch

    from studio.models.loaders.tiny import tiny_tokenizer

    tok = tiny_tokenizer()
    torch.manual_seed(0)
    cfg = MPNetConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                      intermediate_size=64, max_position_embeddings=130, pad_token_id=tok.pad_token_id)
    MPNetModel(cfg).eval().save_pretrained(tmp_path, safe_serialization=True)
    tok.model_input_names = ["input_ids", "attention_mask"]
    tok.save_pretrained(tmp_path)
    delta = _train_and_merge(str(tmp_path))
    assert {k.rsplit(".", 2)[-2] for k in delta} >= {"q", "k", "v", "o", "dense"}


def test_the_calibrated_temperature_undoes_an_overconfident_scale():
    from studio.lab.proverbs.finetune import calibrated_temperature

    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4000, 6))
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    labels = np.array([rng.choice(6, p=p) for p in probs])
    assert 8.0 < calibrated_temperature(10.0 * logits, labels) < 12.5
    assert 0.8 < calibrated_temperature(logits, labels) < 1.25
