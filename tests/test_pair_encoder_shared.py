"""Low-rank pair encoders (the Continue judge, the offline NLI) over one base share its float32 weights: each adds
its factors beside the base's products instead of merging them into a copy. Checked on tiny seeded models."""
from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from studio.models import pair_encoder, pair_folder
from studio.models.variants import apply_delta
from space_models import build_embedder, build_judge


@pytest.fixture()
def two_judges(tmp_path, monkeypatch):
    monkeypatch.setattr(pair_encoder, "served_base", lambda base: base)  # the tiny base is served as it is
    embedder = build_embedder(tmp_path / "embedder")
    first = build_judge(tmp_path / "first", embedder)
    second = build_judge(tmp_path / "second", embedder)
    state = load_file(str(second / pair_folder.WEIGHTS))  # other factors over the same base
    from safetensors.torch import save_file

    save_file({k: (v * 2).contiguous() for k, v in state.items()}, str(second / pair_folder.WEIGHTS))
    return embedder, first, second


def _merged(folder, embedder):
    config = json.loads((folder / pair_folder.CONFIG).read_text())
    tok, model = pair_encoder.load_base(str(embedder), pool=config["pool"])
    state = {k: v.float() for k, v in load_file(str(folder / pair_folder.WEIGHTS)).items()}
    apply_delta(model.encoder, {k[len("encoder."):]: v for k, v in state.items() if k.startswith("encoder.")},
                folder.name, str(embedder))
    model.head.load_state_dict({k[len("head."):]: v for k, v in state.items() if k.startswith("head.")})
    return tok, model.eval()


def test_two_encoders_share_one_base_and_score_as_merged(two_judges):
    embedder, first, second = two_judges
    _, tok, a = pair_encoder.load_pair_encoder(first)
    _, _, b = pair_encoder.load_pair_encoder(second)
    weight = lambda m: m.encoder.embeddings.word_embeddings.weight  # noqa: E731
    assert weight(a).data_ptr() == weight(b).data_ptr()  # one copy of the base
    x = tok(["The storm had passed and they were friends again."] * 2, ["They shook hands.", "They fought on."],
            padding=True, return_tensors="pt")
    with torch.no_grad():
        for folder, model in ((first, a), (second, b)):
            _, ref = _merged(folder, embedder)
            assert torch.allclose(model(**x), ref(**x), atol=1e-5)
        assert not torch.allclose(a(**x), b(**x), atol=1e-3)  # each keeps its own factors


def test_the_base_is_freed_with_its_last_encoder(two_judges):
    embedder, first, _ = two_judges
    gc.collect()  # other tests' encoders may still hold their own bases; only this base is watched
    ours = lambda: [key for key in pair_encoder._bases.keys() if Path(key).resolve() == embedder.resolve()]  # noqa: E731
    loaded = pair_encoder.load_pair_encoder(first)
    assert len(ours()) == 1
    del loaded
    gc.collect()
    assert ours() == []


def test_factors_trained_over_merged_factors_are_stored_side_by_side(tmp_path, monkeypatch):
    """`train judge --start-factors`: another encoder's factors are merged into the base, new factors trained over
    it, and both stored side by side (rank doubled); loaded as served, the judge is the model that was trained."""
    from studio.lab.proverbs.finetune import add_low_rank
    from studio.lab.training.pair_encoder_train import save_low_rank_pair_encoder

    monkeypatch.setattr(pair_encoder, "served_base", lambda base: base)
    embedder = build_embedder(tmp_path / "embedder")
    prior_folder = build_judge(tmp_path / "prior", embedder)  # stands for the NLI the judge starts from
    prior = {k: v for k, v in load_file(str(prior_folder / pair_folder.WEIGHTS)).items() if k.startswith("encoder.")}
    tok, model = pair_encoder.load_base(str(embedder), pool="second")
    apply_delta(model.encoder, {k[len("encoder."):]: v for k, v in prior.items()}, "prior", str(embedder))
    factors = add_low_rank(model.encoder, 2, seed=3)
    with torch.no_grad():  # as if trained: B away from its zero start
        for p in factors:
            p.copy_(torch.randn_like(p) * 0.1)
    model.head = torch.nn.Linear(model.encoder.config.hidden_size, 1)
    config = json.loads((prior_folder / pair_folder.CONFIG).read_text()) | {"rank": 4}
    save_low_rank_pair_encoder(tmp_path / "judge", model.eval(), config, prior=prior)
    stored = load_file(str(tmp_path / "judge" / pair_folder.WEIGHTS))
    assert {v.shape[0] for k, v in stored.items() if k.endswith(".lora_A")} == {4}
    _, _, served = pair_encoder.load_pair_encoder(tmp_path / "judge")
    x = tok(["The storm had passed and they were friends again."] * 2, ["They shook hands.", "They fought on."],
            padding=True, return_tensors="pt")
    with torch.no_grad():
        assert torch.allclose(served(**x), model(**x), atol=1e-3)
        _, _, without_prior = pair_encoder.load_pair_encoder(prior_folder)
        assert not torch.allclose(served(**x), without_prior(**x), atol=1e-3)
    with pytest.raises(ValueError, match="lack"):
        save_low_rank_pair_encoder(tmp_path / "bad", model, config, prior={})
