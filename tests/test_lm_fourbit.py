"""Serving 4-bit groupwise weights with torch's int4 kernel, and the ensemble decoder's projection of combined
hidden states (tiny Llama models built here; one offline check on the packaged GGUF)."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from studio.models.loaders import fourbit  # noqa: E402

pytestmark = pytest.mark.skipif(not fourbit.available(), reason="this torch has no CPU int4 kernel")


def q4_1_like(weight, group=32):
    """The weight rounded as GGUF's Q4_1 does: per group of 32 inputs, 16 levels from its minimum to its maximum."""
    n, k = weight.shape
    w = weight.detach().float().view(n, k // group, group)
    low, high = w.amin(-1, keepdim=True), w.amax(-1, keepdim=True)
    scale = (high - low) / 15
    return (torch.round((w - low) / scale) * scale + low).view(n, k)


def tiny_llama(quantized: bool, hidden=64, layers=2):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=97, hidden_size=hidden, intermediate_size=2 * hidden, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)
    model = LlamaForCausalLM(cfg).eval()
    if quantized:
        with torch.no_grad():
            for module in model.modules():
                if type(module) is torch.nn.Linear and module is not model.lm_head:
                    module.weight.copy_(q4_1_like(module.weight))
    return model


def test_groups_are_recovered_exactly():
    w = q4_1_like(torch.randn(48, 96))
    q, scale, low = fourbit.recover_groups(w)
    assert q.min() >= 0 and q.max() <= 15
    rebuilt = (q.view(48, 3, 32).float() * scale[..., None] + low[..., None]).view(48, 96)
    torch.testing.assert_close(rebuilt, w, rtol=0, atol=1e-6)  # float32 rounding of d·q + m only


def test_dense_weights_are_not_taken_for_4bit():
    assert fourbit.recover_groups(torch.randn(48, 96)) is None
    assert fourbit.recover_groups(torch.randn(4, 33)) is None  # inputs not a multiple of the group


def test_only_4bit_layers_are_replaced_and_the_tied_head_stays():
    assert fourbit.serve_4bit(tiny_llama(quantized=False)) == 0
    model = tiny_llama(quantized=True)
    assert fourbit.serve_4bit(model) == 2 * 7  # q, k, v, o, gate, up, down per layer
    assert type(model.lm_head) is torch.nn.Linear
    assert model.lm_head.weight is model.model.embed_tokens.weight


@pytest.mark.parametrize("rows", [1, 5, fourbit.INT4_MAX_ROWS + 8])  # the int4 kernel, then the bf16 copy
def test_4bit_layers_compute_what_the_float_layers_compute(rows):
    float_model, served = tiny_llama(quantized=True), tiny_llama(quantized=True)
    fourbit.serve_4bit(served)
    ids = torch.randint(0, 97, (1, rows))
    with torch.inference_mode():
        a, b = float_model(input_ids=ids).logits, served(input_ids=ids).logits
    # bfloat16 activations: about 3 significant digits
    assert (a - b).abs().max() <= 0.02 * a.abs().max()
    assert (a.argmax(-1) == b.argmax(-1)).float().mean() >= 0.9


def test_greedy_decoding_follows_the_float_model():
    float_model, served = tiny_llama(quantized=True), tiny_llama(quantized=True)
    fourbit.serve_4bit(served)
    ids = torch.randint(0, 97, (1, 6))
    with torch.inference_mode():
        a = float_model.generate(ids, max_new_tokens=8, do_sample=False, pad_token_id=0)
        b = served.generate(ids, max_new_tokens=8, do_sample=False, pad_token_id=0)
    assert (a == b).float().mean() >= 0.9


def test_it_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("STUDIO_LM_4BIT", "0")
    assert fourbit.serve_4bit(tiny_llama(quantized=True)) == 0


@pytest.mark.parametrize("combine", ["sum", "mean"])
def test_projecting_combined_hidden_states_equals_combining_logits(combine):
    """The ensemble decoder sums the prompts' last hidden states and projects once; summing the projected
    logits, as the paper describes it, must give the same distribution."""
    from studio.models.loaders.lm import _combined_logits

    model = tiny_llama(quantized=False)
    m, n = 3, 2
    ids = torch.randint(1, 97, (m, 7))
    mask = torch.ones_like(ids)
    with torch.inference_mode():
        combined, past = _combined_logits(model, m, n, combine)(ids, mask, mask.cumsum(-1) - 1, None, n)
        logits = model(input_ids=ids).logits[:, -1, :]
    expected = logits.sum(0) if combine == "sum" else logits.mean(0)
    assert combined.shape == (n, 97) and past.get_seq_length() == 7
    for row in combined:
        torch.testing.assert_close(row, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.offline
def test_the_packaged_gguf_is_served_4bit_where_llamacpp_is_not_used(offline, monkeypatch):
    from studio.models.loaders.lm import load_gguf_lm
    from studio.models.specs import spec_for

    offline.get("lm")  # the conversion, once
    monkeypatch.setenv("STUDIO_LLAMACPP", "0")
    lm = load_gguf_lm(spec_for("offline", "lm"), offline)
    assert "llama.cpp not used: switched off" in lm.backend
    layers = [m for m in lm.model.modules() if type(m).__name__ == "GroupwiseInt4Linear"]
    assert len(layers) == 30 * 7 and "int4" in lm.backend
    out = lm.generate(["The cat sat on the"], max_new_tokens=5, temperature=0, seed=0)
    assert out[0][0].text.strip()


def test_prompts_use_float32_weights_where_bf16_is_not_native(monkeypatch):
    monkeypatch.setenv("STUDIO_BF16", "0")
    float_model, served = tiny_llama(quantized=True), tiny_llama(quantized=True)
    fourbit.serve_4bit(served)
    layer = served.model.layers[0].mlp.up_proj
    assert layer.dense.dtype == torch.float32
    ids = torch.randint(0, 97, (1, fourbit.INT4_MAX_ROWS + 4))
    with torch.inference_mode():
        torch.testing.assert_close(served(input_ids=ids).logits, float_model(input_ids=ids).logits)


@pytest.mark.offline
def test_the_retrieval_embedder_computes_in_bf16_only_where_the_cpu_has_it(monkeypatch):
    """With STUDIO_ONNX=0 (by default it runs int8 on ONNX Runtime, tests/test_onnx_embedder.py)."""
    from studio.models.loaders.common import fast_bfloat16
    from studio.models.loaders.onnx_text import load_onnx_int8
    from studio.models.specs import spec_for

    monkeypatch.setenv("STUDIO_ONNX", "0")
    embedder = load_onnx_int8(spec_for("offline", "retrieval_embedder"), None)
    dtype = next(embedder._model.parameters()).dtype
    assert (dtype == torch.bfloat16) == fast_bfloat16()
    assert embedder.encode(["A stitch in time saves nine."]).dtype.name == "float32"


class _Tokens:
    """Maps text to ids inside the tiny models' vocabulary, one per word: like the real tokenizer, the short probe
    texts then take the int4 kernel (at most INT4_MAX_ROWS tokens) and the long one the dense copy."""

    def __call__(self, text, return_tensors="pt"):
        return {"input_ids": torch.tensor([[sum(map(ord, word)) % 96 + 1 for word in text.split()]])}


def _lm(model):
    from studio.models.loaders.lm import TransformersLM

    lm = TransformersLM.__new__(TransformersLM)  # no tokenizer setup: the probe only calls the model
    lm.model, lm.tokenizer, lm.device, lm.backend, lm.checks = model, _Tokens(), "cpu", "tiny", ()
    return lm


def test_the_4bit_form_is_served_after_it_agrees_with_float32_and_the_verdict_is_kept(tmp_path):
    loads = []
    lm = fourbit.serve_checked(lambda: loads.append(1) or _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    assert len(loads) == 1 and lm.checks[-1].passed and "int4" in lm.backend
    assert any(type(m).__name__ == "GroupwiseInt4Linear" for m in lm.model.modules())
    again = fourbit.serve_checked(lambda: _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    assert again.checks[-1].cached and "int4" in again.backend


def test_a_4bit_form_that_disagrees_with_float32_falls_back_to_float32(tmp_path, monkeypatch):
    """Deliberately broken 4-bit weights (every scale and minimum 40 times too large): they must not serve."""
    recover = fourbit.recover_groups

    def broken(weight, group=fourbit.GROUP):
        groups = recover(weight, group)
        return None if groups is None else (groups[0], groups[1] * 40, groups[2] * 40)

    monkeypatch.setattr(fourbit, "recover_groups", broken)
    loads = []
    lm = fourbit.serve_checked(lambda: loads.append(1) or _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    assert lm.checks and not any(v.passed for v in lm.checks)
    assert "float32" in lm.backend and "failed its self-check" in lm.backend
    assert not any(type(m).__name__ == "GroupwiseInt4Linear" for m in lm.model.modules())
    assert len(loads) == len(lm.checks) + 1  # a fresh float32 model after each failed form
    ids = torch.randint(0, 97, (1, 6))
    with torch.inference_mode():
        torch.testing.assert_close(lm.model(input_ids=ids).logits, tiny_llama(quantized=True)(input_ids=ids).logits)


CALIBRATION = ["the cat sat on the mat and looked at the door for a long time while it rained outside",
               "a stitch in time saves nine but nobody in this house has ever sewn a single thing"] * 3


def test_int8_prompts_follow_the_float_model_and_keep_the_feed_forward_output_in_float32():
    float_model, served = tiny_llama(quantized=True), tiny_llama(quantized=True)
    peaks = fourbit.input_peaks(served, _Tokens(), CALIBRATION)
    assert fourbit.serve_4bit(served, "int8", peaks) == 2 * 7
    mlp = served.model.layers[0].mlp
    assert mlp.up_proj.int8 is not None and mlp.up_proj.prompts == "int8"
    assert mlp.down_proj.int8 is None and mlp.down_proj.dense.dtype == torch.float32
    ids = torch.randint(0, 97, (2, fourbit.INT4_MAX_ROWS + 8))  # prompts: more rows than the int4 kernel takes
    with torch.inference_mode():
        a, b = float_model(input_ids=ids).logits, served(input_ids=ids).logits
    assert (a - b).abs().max() <= 0.05 * a.abs().max()
    assert (a.argmax(-1) == b.argmax(-1)).float().mean() >= 0.9


def test_int8_prompts_need_input_peaks():
    with pytest.raises(ValueError, match="input peaks"):
        fourbit.serve_4bit(tiny_llama(quantized=True), "int8")


def test_the_prompt_forms_tried_depend_on_the_cpu(monkeypatch):
    monkeypatch.setenv("STUDIO_BF16", "0")
    assert [p for _, p in fourbit.prompt_forms()] == ["int8", "float32"]
    monkeypatch.setenv("STUDIO_LM_INT8", "0")
    assert [p for _, p in fourbit.prompt_forms()] == ["float32"]


def test_int8_prompts_that_disagree_with_float32_are_not_served(tmp_path, monkeypatch):
    """Deliberately broken int8 prompt products (inputs scaled 40 times too large): the next form serves."""
    monkeypatch.setenv("STUDIO_BF16", "0")
    monkeypatch.delenv("STUDIO_LM_INT8", raising=False)
    build = fourbit._int8_linear

    def broken(weight, peak):
        inverse, linear = build(weight, peak)
        return inverse * 40, linear

    monkeypatch.setattr(fourbit, "_int8_linear", broken)
    lm = fourbit.serve_checked(lambda: _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    first, served = lm.checks[0], lm.checks[-1]
    assert first.form == "int4 decoding + int8 prompts" and not first.passed
    assert served.passed and "float32 prompts" in lm.backend
    assert (tmp_path / fourbit.PEAKS_FILE).is_file()
    assert not any(getattr(m, "int8", None) is not None for m in lm.model.modules())
    monkeypatch.setattr(fourbit, "_int8_linear", build)  # repaired: still not served from the cached verdict
    again = fourbit.serve_checked(lambda: _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    assert again.checks[0].cached and not again.checks[0].passed and "float32 prompts" in again.backend


def test_int8_prompts_that_agree_are_served_where_bf16_is_not_native(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_BF16", "0")
    monkeypatch.delenv("STUDIO_LM_INT8", raising=False)
    lm = fourbit.serve_checked(lambda: _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    assert lm.checks[-1].passed and "int8 prompts" in lm.backend
    assert any(getattr(m, "int8", None) is not None for m in lm.model.modules())


def test_packed_layers_are_cached_and_shared_by_a_wrapped_variant(tmp_path, monkeypatch):
    """The second load reads the packed layers (no recovery), computes the same logits, and a LoRA-wrapped copy
    of the same base (the polisher) reads the base's cache; a changed weight is packed afresh."""
    from studio.models.lm_delta import apply_delta

    first = tiny_llama(quantized=True)
    assert fourbit.serve_4bit(first, int4_cache=tmp_path) == 14
    assert fourbit.int4_cache_file(tmp_path).is_file()
    calls = []
    real = fourbit.recover_groups
    monkeypatch.setattr(fourbit, "recover_groups", lambda w, group=32: calls.append(1) or real(w, group))
    second = tiny_llama(quantized=True)
    assert fourbit.serve_4bit(second, int4_cache=tmp_path) == 14 and not calls
    ids = torch.randint(0, 97, (1, 5))
    with torch.inference_mode():
        torch.testing.assert_close(first(input_ids=ids).logits, second(input_ids=ids).logits, rtol=0, atol=0)
    wrapped = tiny_llama(quantized=True)
    delta = {"model.layers.0.self_attn.q_proj.lora_A": torch.randn(2, 64) * 0.01,
             "model.layers.0.self_attn.q_proj.lora_B": torch.randn(64, 2) * 0.01}
    apply_delta(wrapped, delta, 1.0)
    assert fourbit.serve_4bit(wrapped, int4_cache=tmp_path) == 14 and not calls
    changed = tiny_llama(quantized=True)
    with torch.no_grad():
        w = changed.model.layers[1].mlp.down_proj.weight
        w.copy_(q4_1_like(torch.randn_like(w)))
    assert fourbit.serve_4bit(changed, int4_cache=tmp_path) == 14 and len(calls) == 1
    int8 = tiny_llama(quantized=True)  # the cached packed layers under int8 prompts too
    assert fourbit.serve_4bit(int8, "int8", fourbit.input_peaks(int8, _Tokens(), CALIBRATION), tmp_path) == 14
    assert len(calls) == 2  # only its layer 1 down_proj, whose cached entry is now the changed model's


def test_int8_prompts_a_torch_cannot_build_fall_back_to_float32_prompts(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_BF16", "0")
    monkeypatch.delenv("STUDIO_LM_INT8", raising=False)

    def missing(weight, peak):
        raise RuntimeError("no quantized engine")

    monkeypatch.setattr(fourbit, "_int8_linear", missing)
    lm = fourbit.serve_checked(lambda: _lm(tiny_llama(quantized=True)), tmp_path, "tiny")
    assert not lm.checks[0].passed and "could not be built" in lm.checks[0].measure
    assert lm.checks[-1].passed and "float32 prompts" in lm.backend
