"""Continue's tuned writer: the gold continuations a strict reader would not keep are not trained on, the LoRA
trainer runs on the writer, and the delta serves the writer mode through the registry's `continuation_writer` role
(tiny profile: a delta trained here from the tiny writer)."""
from __future__ import annotations

import pytest

from studio.lab.continuation.writer_train import restates

NARRATIVE = "After years of feuding over the farm, the two brothers finally [buried the hatchet]."


@pytest.mark.parametrize("gold, meaning, cosine, expected", [
    ("The fourth floor was cold, maybe there was a leak up here.", "cold", 0.37, True),  # the meaning's word
    ("She was known as the most beautiful person in town.", "so beautiful", 0.2, True),
    ("It is not okay with me.", "Completely unacceptable or inappropriate.", 0.4, True),  # nearly the same
    ("No matter how I strained I couldn't break free of his grasp.", "immovable", 0.1, False),
])
def test_a_gold_that_restates_the_meaning_is_not_trained_on(gold, meaning, cosine, expected):
    assert restates(gold, meaning, cosine) is expected


def test_a_trained_writer_delta_serves_the_writer_mode_through_the_registry(tmp_path, monkeypatch):
    from studio.lab.continuation.data import data_dir

    if not (data_dir() / "idiom_train.jsonl").is_file():  # the training rows
        pytest.skip("../shared/data/figurative is not here")
    from studio.continuation.generate import Settings, continue_narrative
    from studio.lab.continuation.writer_train import train
    from studio.models import Registry, Settings as ModelSettings, get_registry, set_registry

    previous = get_registry()
    set_registry(Registry(ModelSettings.from_env("tiny")))
    try:
        delta = tmp_path / "writer.safetensors"
        # the tiny profile's random embedder finds every gold close to its meaning: no cosine cut here
        run = train(["--examples", "6", "--dev-examples", "3", "--batch-size", "3", "--restates", "1.1",
                     "--out", str(delta)])
        assert delta.is_file() and run["trained_steps"] >= 1 and run["base"] == "tiny-qwen2"
        assert sum(run["dropped_from_train"].values()) >= 0 and run["train_examples"] == 6
        monkeypatch.setenv("STUDIO_MODEL_CONTINUATION_WRITER", str(delta))
        set_registry(Registry(ModelSettings.from_env("tiny")))
        settings = dict(mode="writer", writer="tuned", n=2, pool=2, max_new_tokens=5, seed=3)
        a = continue_narrative(NARRATIVE, Settings(**settings))
        b = continue_narrative(NARRATIVE, Settings(**settings))
        assert not any("not available" in n for n in a.notes) and a.continuations
        assert [c.text for c in a.continuations] == [c.text for c in b.continuations]  # the seed is honoured
        status = {r["role"]: r for r in get_registry().status()}
        assert status["continuation_writer"]["state"] == "ready"
    finally:
        set_registry(previous)


def test_an_unknown_writer_is_refused_with_the_choices():
    from studio.continuation.generate import Settings
    from studio.errors import InputError

    with pytest.raises(InputError, match="prompted or tuned"):
        Settings(writer="fancy").check()


def test_without_its_delta_the_tuned_writer_leaves_the_prompted_writer_to_write_and_says_so(tmp_path, monkeypatch):
    from studio.continuation.generate import Settings, continue_narrative
    from studio.models import Registry, Settings as ModelSettings, get_registry, set_registry

    previous = get_registry()
    monkeypatch.setenv("STUDIO_MODEL_CONTINUATION_WRITER", str(tmp_path / "absent.safetensors"))
    set_registry(Registry(ModelSettings.from_env("tiny")))
    try:
        result = continue_narrative(NARRATIVE, Settings(mode="writer", writer="tuned", n=1, pool=1,
                                                        max_new_tokens=5, seed=3))
        assert result.continuations
        assert any("tuned writer is not available" in n and "prompted writer wrote" in n for n in result.notes)
    finally:
        set_registry(previous)
