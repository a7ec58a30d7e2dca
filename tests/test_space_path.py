"""The Space's path without the hub: the hub profile, with every model role pointed by the operator's overrides
(STUDIO_MODEL_<ROLE>) at tiny seeded models saved in the formats a Space downloads (tests/space_models.py), loaded by
the hub profile's own loaders (sentence-transformers, transformers, open_clip, diffusers, spaCy), and every tab's
API driven end to end through gradio_client on a running app."""
from __future__ import annotations

import pytest

from space_models import TINY_CLIP_ARCH, build_all, build_clip, register_tiny_clip_arch
from studio.models import Registry, Settings, get_registry, set_registry

#: the backend each role is served by on a Space (the hub profile's loaders; an override keeps the role's loader)
HUB_BACKENDS = {"embedder": "sentence_transformers", "retrieval_embedder": "alias", "lm": "transformers_lm",
                "writer": "transformers_lm",
                "nli": "transformers_nli", "sentiment": "transformers_sentiment", "clip": "open_clip",
                "diffusion": "diffusers", "parser": "spacy"}
RENDER = dict(steps=1, size=64)  # the saved pipeline is tiny; 64 px is its whole latent
LITERAL = "He yelps and howls."
STORY = ("Maya kept putting off her thesis all spring, and then she had to write day and night [like a machine].")


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    """(client, registry, overrides): the app on the hub profile with every role overridden to a saved tiny model."""
    from gradio_client import Client

    from conftest import _launch, close_app

    root = tmp_path_factory.mktemp("space-models")
    overrides = build_all(root)
    previous = get_registry()  # built (if not yet) before the overrides are set: it must stay the tiny one
    with pytest.MonkeyPatch.context() as env:
        for name, value in overrides.items():
            env.setenv(name, value)
        env.setenv("STUDIO_CACHE_DIR", str(root / "cache"))  # the proverb index and images of these models
        registry = Registry(Settings.from_env("hub"))
        set_registry(registry)
        try:  # a launch that fails must not leave the hub registry to the tests after these on the worker
            demo, url = _launch(admin=False)
            try:
                yield Client(url, verbose=False), registry, overrides
            finally:
                close_app(demo)
        finally:
            set_registry(previous)


def _status(registry) -> dict[str, dict]:
    return {row["role"]: row for row in registry.status()}


def test_every_role_uses_the_hub_loader_and_the_override(space):
    _, registry, overrides = space
    for role, backend in HUB_BACKENDS.items():
        assert registry._spec(role).backend == backend, role
        override = overrides.get(f"STUDIO_MODEL_{role.upper()}")
        if override:
            assert registry._spec(role).model_id == override


def test_polish_and_components(space):
    client, _, _ = space
    table, files, status = client.predict(LITERAL, ["insertion", "lm"], 4, 0, api_name="/polish")
    assert 1 <= len(table["data"]) <= 4
    from studio.ui.polish_tab import COLUMNS

    score = COLUMNS.index("score")  # the polisher's probability
    assert all(isinstance(row[score], float) and 0 <= row[score] <= 1 for row in table["data"])
    assert "candidates asked" in status or "⚠️" in status
    assert {f["path"].rsplit(".", 1)[-1] if isinstance(f, dict) else str(f).rsplit(".", 1)[-1] for f in files} == {
        "csv", "json"}
    pieces, details = client.predict("She was as light as a feather.", api_name="/components")
    assert details["similes"] and "feather" in details["similes"][0]["vehicle"]


def test_rerank_uses_the_transformers_classifiers(space):
    client, registry, _ = space
    literal = "Some raindrops struck the roof, window and ran down its panes."
    candidates = f"{literal[:-1]} like diamonds.\n{literal[:-1]} like tears.\n{literal[:-1]} like arrows."
    table, winner, _chart, _csv, backends, _picker = client.predict(
        literal, candidates, 3, 2, 1, 2, 2, 1, "eq2", api_name="/rerank")
    assert sorted(row[0] for row in table["data"]) == [1, 2, 3]
    for role in ("nli", "sentiment", "writer", "lm"):
        assert registry.get(role).model_id in backends  # the scores came from the saved models
    logic = table["headers"].index("logic")
    assert all(0.0 <= row[logic] <= 1.0 for row in table["data"])  # normalized


def test_imagine_and_top_k_render_through_the_saved_pipeline(space):
    client, registry, _ = space
    gallery, summary, seeds_table, metrics, _chart, csv = client.predict(
        "The night was very dark.", "The night was as dark as ink.", 2, 0, RENDER["steps"], RENDER["size"],
        "model default", api_name="/imagine")
    assert len(gallery) == 4 and "ImaginE over 2 seeds" in summary
    assert len(seeds_table["data"]) == 2
    ranking = {"headers": ["rank", "candidate"], "data": [[1, "The night was as dark as ink."],
                                                          [2, "The night was as dark as coal."]], "metadata": None}
    images, table = client.predict("The night was very dark.", ranking, 2, 1, 0, RENDER["steps"], RENDER["size"],
                                   api_name="/imagine_top_k")
    assert len(images) == 3 and [row[1] for row in table["data"]] == [r[1] for r in ranking["data"]]
    assert _status(registry)["diffusion"]["model"].endswith("sd-tiny")


def test_proverbs_align_and_similar(space):
    client, _, _ = space
    table, _chart, proverb, status, files = client.predict(STORY, 3, api_name="/proverbs")
    assert len(table["data"]) == 3 and "Scoring:" in status
    probabilities = [row[4] for row in table["data"]]
    assert probabilities == sorted(probabilities, reverse=True) and 0 < sum(probabilities) <= 1
    proverb_hl, narrative_hl, pairs, _pair_files = client.predict(STORY, table["data"][0][1], api_name="/align")
    assert pairs["data"] and "".join(p["token"] for p in narrative_hl) == STORY
    similar, _similar_files = client.predict(STORY, "The ant worked all summer.\nA rolling stone gathers no moss.",
                                             "embedding-cosine", api_name="/similar")
    assert len(similar["data"]) == 2


def test_continue_and_judge_with_the_saved_lm(space):
    client, registry, _ = space
    _hl, info, table, _inferences, _files = client.predict(STORY, "literal", 2, 0, 5, 0.7, 8, api_name="/continue")
    assert table["data"] and "samples in" in info and "ranked by the" in info  # the judge ran on this profile
    verdict = client.predict(STORY, "She finished it on time.", "She never wrote a word.", api_name="/judge")
    assert {c["label"] for c in verdict["confidences"]} == {"continuation 1", "continuation 2"}
    assert registry.get("lm").tokenizer.chat_template  # the saved chat template was read


def test_every_role_was_loaded_from_its_saved_folder(space):
    """Run last in the module: the tabs above loaded every role through its hub loader, from the files saved."""
    _, registry, overrides = space
    status = _status(registry)
    assert {role: status[role]["state"] for role in HUB_BACKENDS} == dict.fromkeys(HUB_BACKENDS, "ready")
    # the variants and heads trained on the offline models do not fit these: unavailable, said why, never failed
    others = {role: row for role, row in status.items() if role not in HUB_BACKENDS}
    assert all(row["state"] in ("ready", "unavailable", "not loaded") for row in others.values()), {
        role: (row["state"], row["reason"]) for role, row in others.items()}
    for role in ("embedder", "lm", "writer", "nli", "sentiment", "clip", "diffusion"):
        assert status[role]["model"] == overrides[f"STUDIO_MODEL_{role.upper()}"]
    assert status["retrieval_embedder"]["backend"] == "same model as `embedder`"


def test_open_clip_folder_in_the_hub_layout(tmp_path):
    """STUDIO_MODEL_CLIP=/folder (open_clip_config.json + open_clip_model.safetensors, as `hf-hub:` repos hold them)
    loads the same weights as ARCH:/file, with the config's QuickGELU; a folder without safetensors is refused."""
    import numpy as np

    from studio.models.specs import spec_for
    from studio.models.loaders.vision import load_open_clip

    register_tiny_clip_arch()
    weights, folder = build_clip(tmp_path / "clip")
    as_file = load_open_clip(spec_for("hub", "clip", f"{TINY_CLIP_ARCH}:{weights}"), None)
    as_folder = load_open_clip(spec_for("hub", "clip", str(folder)), None)
    texts = ["a dog on a beach", "the night was as dark as ink"]
    assert np.allclose(as_file.encode_text(texts).features, as_folder.encode_text(texts).features, atol=1e-5)
    assert type(as_folder.model.transformer.resblocks[0].mlp.gelu).__name__ == "QuickGELU"
    (folder / "open_clip_model.safetensors").rename(folder / "open_clip_pytorch_model.bin")
    from studio.models.loaders.common import LoadError

    with pytest.raises(LoadError, match="safetensors"):
        load_open_clip(spec_for("hub", "clip", str(folder)), None)
