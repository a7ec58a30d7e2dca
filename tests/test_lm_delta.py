"""The LoRA delta of the language model (studio/models/lm_delta.py) and the shared-context LM calls, on the tiny
profile; the real delta's 4-bit self-check is checked with the offline weights."""
from __future__ import annotations

import pytest

from studio.models.lm_delta import VariantMismatch, delta_metadata, load_lm_variant
from studio.lab.training.lm_delta_train import attach_lora, lora_state, save_delta, trainable_base

CONTEXT = "Literal: Her voice was very loud.\nSimile: Her voice was"
CONTINUATIONS = [" as loud as thunder.", " like a bell", " as loud as a lion's roar."]


def _delta(tmp_path, base_id=None):
    import torch

    model, tok, model_id = trainable_base()
    attach_lora(model, rank=4, alpha=8, seed=1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("lora_B"):
                p.normal_(0, 0.5)
    path = tmp_path / "delta.safetensors"
    save_delta(model, path, base_id or model_id, 2.0)
    return path, model, tok


def test_delta_round_trip_changes_the_model_as_trained(tiny_registry, tmp_path):
    import torch

    path, trained, tok = _delta(tmp_path)
    assert delta_metadata(path)["base_model_id"] == "tiny-llama"
    assert all(v.dtype == torch.float16 for v in lora_state(trained).values())
    variant = load_lm_variant(path)
    base = tiny_registry.get("lm")
    got = variant.loglik([CONTEXT] * 3, CONTINUATIONS)
    assert got != base.loglik([CONTEXT] * 3, CONTINUATIONS)  # the delta does something
    ids = tok(CONTEXT + CONTINUATIONS[0], return_tensors="pt")["input_ids"]
    with torch.no_grad():  # the trained model (float32 factors) and the served one (float16 file) agree
        want = trained.eval()(input_ids=ids).logits
        have = variant.model(input_ids=ids).logits
    assert torch.allclose(want, have, atol=2e-2)


def test_delta_from_another_base_is_refused(tiny_registry, tmp_path):
    path, _, _ = _delta(tmp_path, base_id="someone/other-model")
    with pytest.raises(VariantMismatch, match="other-model"):
        load_lm_variant(path)
    with pytest.raises(VariantMismatch):
        load_lm_variant(tmp_path / "missing.safetensors")


def test_shared_context_calls_match_the_plain_ones(tiny_registry):
    lm = tiny_registry.get("lm")
    plain = lm.loglik([CONTEXT] * 3, CONTINUATIONS)
    shared = lm.loglik_shared(CONTEXT, CONTINUATIONS)
    for (a, n), (b, m) in zip(plain, shared):
        assert n == m and abs(a - b) < 1e-3
    assert lm.sample_shared(CONTEXT, 4, seed=3) == lm.sample_shared(CONTEXT, 4, seed=3)
    assert len(lm.sample_shared(CONTEXT, 4, seed=3)) == 4


@pytest.mark.offline
def test_the_shipped_polisher_is_served_in_a_fast_form_after_its_self_check(offline):
    from studio.models.specs import POLISHER_DELTA as DELTA_PATH
    from studio.similes.polisher import polisher_lm

    assert DELTA_PATH.stat().st_size <= 20 * 2**20
    lm, trained = polisher_lm()
    assert trained
    assert lm.checks and lm.checks[-1].passed and ("llama.cpp" in lm.backend or "int4" in lm.backend)
    (lp, n), = lm.loglik_shared("Literal: The lake was calm.\nSimile: The lake was", [" as calm as glass."])
    assert n > 0 and lp / n > -3
