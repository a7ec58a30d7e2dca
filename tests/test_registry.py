"""The model registry: lazy loading, one load under concurrency, typed errors, budget, profiles."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from studio.models import (FAILED, NOT_LOADED, READY, UNAVAILABLE, ConfigError, ModelUnavailable, Registry, Settings,
                           UnknownRole)
from studio.models import registry as registry_module
from studio.models.loaders.common import LoadError, refuse_pickled_weights


def test_nothing_loads_until_asked():
    registry = Registry(Settings.from_env("tiny"))
    # a variant or head whose file is absent is unavailable from the start; nothing is loaded
    assert all(row["state"] in (NOT_LOADED, UNAVAILABLE) for row in registry.status())


def test_tiny_roles_work(tiny_registry):
    emb = tiny_registry.get("embedder").encode(["a wolf howls", "tea"])
    assert emb.shape == (2, 32) and emb.dtype == np.float32
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    probs = tiny_registry.get("nli").predict(["a"], ["b"])
    assert probs.shape == (1, 3) and np.isclose(probs.sum(), 1.0)
    assert 0.0 <= float(tiny_registry.get("sentiment").p_positive(["good"])[0]) <= 1.0
    doc = tiny_registry.get("parser")("He yelps and howls like a wolf.")
    assert [t.text for t in doc][:2] == ["He", "yelps"]


def test_tiny_lm_is_seeded(tiny_registry):
    lm = tiny_registry.get("lm")
    a = lm.generate(["He yelps"], max_new_tokens=6, seed=3, num_return_sequences=2)
    b = lm.generate(["He yelps"], max_new_tokens=6, seed=3, num_return_sequences=2)
    assert [g.text for g in a[0]] == [g.text for g in b[0]]
    (logp, n), = lm.loglik(["He yelps"], [" and howls"])
    assert n > 0 and logp < 0


def test_tiny_diffusion_and_clip(tiny_registry):
    diffusion, clip = tiny_registry.get("diffusion"), tiny_registry.get("clip")
    a = diffusion.render("a wolf", seed=1)
    b = diffusion.render("a wolf", seed=1)
    assert a.size == (64, 64) and np.array_equal(np.asarray(a), np.asarray(b))
    text = clip.encode_text(["a wolf " * 60, "a wolf"])
    assert text.truncated == [True, False]
    assert clip.encode_image([a]).shape == (1, text.features.shape[1])


def _counting_loader(counter, delay=0.2, fail_times=0):
    def loader_for(backend):
        def load(spec, registry):
            counter.append(backend)
            time.sleep(delay)
            if len(counter) <= fail_times:
                raise RuntimeError("corrupt file")
            return object()
        return load
    return loader_for


def test_the_reference_twin_loads_with_every_accelerated_form_off(monkeypatch):
    """Registry.reference(): the same settings, loads with int8, int4 and bfloat16 off whatever the CPU and the
    environment say (the evaluations' samples are computed on it); the switch holds only inside its loads."""
    from studio.models.loaders import common, fourbit

    for switch in ("STUDIO_ONNX", "STUDIO_BF16", "STUDIO_LM_4BIT", "STUDIO_LM_INT8"):
        monkeypatch.delenv(switch, raising=False)
    seen = {}

    def loader_for(backend):
        def load(spec, registry):
            seen[registry.settings.reference] = (common.accelerated("STUDIO_ONNX"), common.accelerated("STUDIO_BF16"),
                                                 fourbit.int8_prompts_available())
            return object()
        return load

    monkeypatch.setattr(registry_module, "loader_for", loader_for)
    served = Registry(Settings.from_env("tiny"))
    twin = served.reference()
    assert twin is served.reference() and twin.reference() is twin and twin is not served
    assert twin.settings.reference and not served.settings.reference and twin.profile == served.profile
    served.get("embedder")
    twin.get("embedder")
    assert seen == {False: (True, True, True), True: (False, False, False)}
    assert common.accelerated("STUDIO_ONNX") and fourbit.int8_prompts_available()  # nothing leaks out of a load
    with common.reference_forms():
        assert not common.accelerated("STUDIO_LM_4BIT") and not common.fast_bfloat16() and not fourbit.available()
    monkeypatch.setenv("STUDIO_ONNX", "0")
    assert not common.accelerated("STUDIO_ONNX")


def test_concurrent_first_calls_load_once(monkeypatch):
    calls = []
    monkeypatch.setattr(registry_module, "loader_for", _counting_loader(calls))
    registry = Registry(Settings.from_env("tiny"))
    results = []
    threads = [threading.Thread(target=lambda: results.append(registry.get("lm"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 8 and len({id(r) for r in results}) == 1
    row = next(r for r in registry.status() if r["role"] == "lm")
    assert row["state"] == READY and row["load_seconds"] >= 0.2


def test_two_roles_load_one_after_the_other_and_a_nested_get_does_not_deadlock(monkeypatch):
    """Two threads importing transformers at once can see it half made ("cannot import name 'BertConfig'"): loads
    of different roles never overlap. A loader that gets another role (an alias) still finishes."""
    active, most = [0], [0]

    def loader_for(backend):
        def load(spec, registry):
            active[0] += 1
            most[0] = max(most[0], active[0])
            time.sleep(0.1)
            active[0] -= 1
            if spec.role == "nli":
                registry.get("sentiment")  # nested, in the same thread
            return object()
        return load

    monkeypatch.setattr(registry_module, "loader_for", loader_for)
    registry = Registry(Settings.from_env("tiny"))
    threads = [threading.Thread(target=registry.get, args=(role,)) for role in ("lm", "embedder", "nli", "parser")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads) and most[0] == 1
    assert {r["role"]: r["state"] for r in registry.status()}["sentiment"] == READY


def test_failed_load_marks_only_that_role_and_retry_works(monkeypatch):
    calls = []
    monkeypatch.setattr(registry_module, "loader_for", _counting_loader(calls, delay=0, fail_times=1))
    registry = Registry(Settings.from_env("tiny"))
    with pytest.raises(ModelUnavailable) as err:
        registry.get("lm")
    assert err.value.state == FAILED and "corrupt file" in err.value.reason and "Models tab" in err.value.fix
    with pytest.raises(ModelUnavailable):  # no hammering: a fresh failure is not retried on every use
        registry.get("lm")
    assert len(calls) == 1
    states = {r["role"]: r["state"] for r in registry.status()}
    assert states["lm"] == FAILED and states["embedder"] == NOT_LOADED
    assert registry.load("lm") is not None  # the Models tab's Load button retries at once
    assert {r["role"]: r["state"] for r in registry.status()}["lm"] == READY


def test_offline_unavailable_roles_say_why_and_how_to_fix(monkeypatch):
    monkeypatch.delenv("STUDIO_MODEL_CLIP", raising=False)
    monkeypatch.delenv("STUDIO_MODEL_DIFFUSION", raising=False)
    registry = Registry(Settings.from_env("offline"))
    for role, var in (("clip", "STUDIO_MODEL_CLIP"), ("diffusion", "STUDIO_MODEL_DIFFUSION")):
        with pytest.raises(ModelUnavailable) as err:
            registry.get(role)
        assert err.value.state == UNAVAILABLE and var in err.value.fix
    with pytest.raises(UnknownRole):
        registry.get("teleporter")


def test_memory_budget_unloads_least_recently_used(monkeypatch):
    rss = iter(range(0, 100000, 600))  # every load adds 600 MB
    monkeypatch.setattr(registry_module, "_rss_mb", lambda: float(next(rss)))
    monkeypatch.setattr(registry_module, "loader_for", _counting_loader([], delay=0))
    registry = Registry(Settings.from_env("tiny"))
    registry.settings.max_memory_gb = 1.0
    registry.get("lm")
    registry.get("clip")
    states = {r["role"]: r["state"] for r in registry.status()}
    assert states["clip"] == READY and states["lm"] == NOT_LOADED


def test_profile_selection(monkeypatch, tmp_path):
    for var in ("STUDIO_PROFILE", "HF_HUB_OFFLINE", "SPACE_ID"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert Settings.from_env().profile == "offline"
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("SPACE_ID", "someone/studio")
    assert Settings.from_env().profile == "hub"
    monkeypatch.setenv("STUDIO_PROFILE", "sideways")
    with pytest.raises(ConfigError):
        Settings.from_env()
    config = tmp_path / "studio.toml"
    config.write_text('profile = "tiny"\n[models]\nlm = "/from/toml"\nembedder = "/from/toml"\n')
    monkeypatch.setenv("STUDIO_CONFIG", str(config))
    monkeypatch.delenv("STUDIO_PROFILE")
    monkeypatch.setenv("STUDIO_MODEL_LM", "/from/env")
    settings = Settings.from_env()
    assert settings.profile == "tiny" and settings.overrides == {"lm": "/from/env", "embedder": "/from/toml"}


def test_pickled_weights_are_refused(tmp_path):
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04")
    with pytest.raises(LoadError, match="pickled"):
        refuse_pickled_weights(str(tmp_path))
    (tmp_path / "model.safetensors").write_bytes(b"{}")
    refuse_pickled_weights(str(tmp_path))


@pytest.mark.offline
def test_offline_profile_loads_packaged_weights(offline):
    emb = offline.get("embedder").encode(["He yelps and howls like a wolf."])
    assert emb.shape == (1, 384)
    lm = offline.get("lm")
    out = lm.generate([lm.chat("Say hello.")], max_new_tokens=5, seed=0)
    assert out[0][0].new_tokens > 0
    assert offline.get("parser").backend.startswith("spaCy")


def test_overrides_accept_hub_ids_and_local_paths_only(monkeypatch, tmp_path):
    monkeypatch.setenv("STUDIO_MODEL_LM", "https://example.com/model.bin")
    monkeypatch.setenv("STUDIO_MODEL_EMBEDDER", str(tmp_path))
    registry = Registry(Settings.from_env("offline"))
    with pytest.raises(ModelUnavailable) as err:
        registry.get("lm")
    assert err.value.state == UNAVAILABLE and "STUDIO_MODEL_LM" in err.value.reason
    row = next(r for r in registry.status() if r["role"] == "embedder")
    assert row["model"] == str(tmp_path) and row["state"] == NOT_LOADED


def test_the_language_role_serves_py3langids_model_or_refuses_an_override_that_is_no_model_file(monkeypatch, tmp_path):
    registry = Registry(Settings.from_env("tiny"))
    identifier = registry.get("language")
    assert identifier.classify("Der Hund bellt laut und die Katze schläft.")[0] == "de"
    assert identifier.classify("The dog barked loudly and the cat slept.")[0] == "en"
    monkeypatch.setenv("STUDIO_MODEL_LANGUAGE", str(tmp_path))  # a folder: no langid model file
    with pytest.raises(ModelUnavailable) as err:
        Registry(Settings.from_env("tiny")).get("language")
    assert err.value.state == UNAVAILABLE and "no langid model file" in err.value.reason


def test_an_alias_role_serves_the_other_roles_model_once(monkeypatch):
    """The hub profile names one model for `embedder` and `retrieval_embedder`: the second role is an alias that
    loads nothing of its own, counts no memory and follows the first through an unload."""
    from studio.models import specs

    hub_like = {**specs.PROFILE_SPECS["tiny"],
                "retrieval_embedder": specs.ModelSpec("retrieval_embedder", "alias", "embedder", "alias")}
    monkeypatch.setitem(specs.PROFILE_SPECS, "tiny", hub_like)
    registry = Registry(Settings.from_env("tiny"))
    alias = registry.get("retrieval_embedder")
    base = registry.get("embedder")
    texts = ["a stitch in time", "saves nine"]
    assert np.array_equal(alias.encode(texts), base.encode(texts))
    assert alias.model_id == base.model_id and alias.dim == base.dim
    rows = {r["role"]: r for r in registry.status()}
    assert rows["retrieval_embedder"]["memory_mb"] == 0.0 and rows["embedder"]["state"] == READY
    registry.unload("embedder")
    assert np.array_equal(alias.encode(texts), base.encode(texts))  # the embedder reloads on demand
    assert {r["role"]: r["state"] for r in registry.status()}["embedder"] == READY
