"""The Continue tab's fine-tuned generator: its prompt, its LoRA trainer, and the `tuned` mode served through the
registry's `continuation_generator` role (tiny profile: a delta trained here from the tiny lm)."""
from __future__ import annotations

import pytest

from studio.continuation.prompting import TAIL_CHARS, generator_prompt, narrative_tail

NARRATIVE = "After years of feuding over the farm, the two brothers finally [buried the hatchet]."


def test_the_prompt_keeps_the_narratives_end_and_the_meaning():
    long = "First things happened. " * 40 + "At last the two brothers buried the hatchet."
    tail = narrative_tail(long)
    assert len(tail) <= TAIL_CHARS and tail.endswith("buried the hatchet.") and tail[0].isupper()
    p = generator_prompt(long, "buried the hatchet", "To stop fighting.")
    assert p.splitlines()[1] == 'Here "buried the hatchet" means: To stop fighting.'
    assert p.endswith("Next sentence:") and "means" not in generator_prompt(long)


def test_without_the_generator_the_plain_lm_continues_and_says_so():
    from studio.continuation.generate import Settings, continue_narrative

    result = continue_narrative(NARRATIVE, Settings(mode="tuned", n=1, max_new_tokens=4, seed=1))
    assert result.mode == "tuned" and result.continuations
    assert any("fine-tuned generator is not available" in n for n in result.notes)


def test_a_trained_delta_serves_the_tuned_mode_through_the_registry(tmp_path, monkeypatch):
    from studio.lab.continuation.data import data_dir

    if not (data_dir() / "idiom_train.jsonl").is_file():  # the training rows
        pytest.skip("../shared/data/figurative is not here")
    from studio.continuation.generate import Settings, continue_narrative
    from studio.lab.continuation.generator_train import train
    from studio.models import Registry, Settings as ModelSettings, get_registry, set_registry

    delta = tmp_path / "generator.safetensors"
    run = train(["--examples", "8", "--dev-examples", "4", "--batch-size", "4", "--out", str(delta)])
    assert delta.is_file() and run["trained_steps"] >= 1 and run["history"][0]["epoch"] == 0
    monkeypatch.setenv("STUDIO_MODEL_CONTINUATION_GENERATOR", str(delta))
    previous = get_registry()
    set_registry(Registry(ModelSettings.from_env("tiny")))
    try:
        a = continue_narrative(NARRATIVE, Settings(mode="tuned", n=2, max_new_tokens=5, seed=3))
        b = continue_narrative(NARRATIVE, Settings(mode="tuned", n=2, max_new_tokens=5, seed=3))
        assert not any("not available" in n for n in a.notes)
        assert [c.text for c in a.continuations] == [c.text for c in b.continuations]  # the seed is honoured
        status = {r["role"]: r for r in get_registry().status()}
        assert status["continuation_generator"]["state"] == "ready"
    finally:
        set_registry(previous)


def test_the_paraphrase_prompt_ends_where_the_generator_writes_a_meaning():
    from studio.continuation.prompting import paraphrase_prompt

    p = paraphrase_prompt("The mayor was [tilting at windmills].", "tilting at windmills ")
    assert p.endswith('Here "tilting at windmills" means:')
    # the same words as the meaning line the generator was trained with
    assert generator_prompt("The mayor was [tilting at windmills].", "tilting at windmills", "y").startswith(p)


@pytest.mark.parametrize("drawn, complete, expected", [
    (' "Fighting enemies that are not there."', True, "Fighting enemies that are not there"),
    ("The mayor was tilting at windmills.", True, ""),  # the idiom restated: no paraphrase
    ("Fighting enemies that", False, ""),  # cut at the token limit
    ("Nothing.", True, ""),  # one word
])
def test_an_unknown_idiom_gets_the_generators_paraphrase_only_when_it_is_one(monkeypatch, drawn, complete,
                                                                            expected):
    from studio.continuation import generate
    from studio.continuation.decoding import Sample

    seen = {}

    def fake(lm, prompts, **kw):
        seen.update(kw, prompts=prompts)
        return [Sample(text=drawn, tokens=5, complete=complete)]

    monkeypatch.setattr(generate, "ensemble_sample", fake)
    assert generate.model_paraphrase(object(), "The mayor was tilting at windmills.", "tilting at windmills") == \
        expected
    assert seen["temperature"] == 0.0 and seen["prompts"][0].endswith('means:')  # greedy: the same every time


def test_a_story_without_an_end_mark_is_continued_with_a_sentence_of_its_own(monkeypatch):
    """"…left me high and dry" (no full stop): the small models are given the story with one, a drawn "." or ". …"
    is no continuation, and a sentence drawn in lower case starts with a capital."""
    from studio.continuation import generate
    from studio.continuation.decoding import Sample

    seen = {}

    def fake(lm, prompts, **kw):
        seen.update(kw, prompts=prompts)
        return [Sample(text=". …", tokens=2, complete=False), Sample(text="he was so proud of me.", tokens=6)]

    monkeypatch.setattr(generate, "ensemble_sample", fake)
    result = generate.continue_narrative("He never showed up and left me high and dry",
                                         generate.Settings(mode="plain", n=2, seed=0))
    assert seen["prompts"] == ["He never showed up and left me high and dry."]
    assert seen["shared_text"].endswith("dry.")
    assert [c.text for c in result.continuations] == ["He was so proud of me."]
    assert any("1 had no words" in line for line in result.shortfall)  # said, not called "empty"
    assert result.narrative == "He never showed up and left me high and dry"  # shown as typed


@pytest.mark.parametrize("typed, given", [("He waited,", "He waited."), ('He said "no"', 'He said "no".'),
                                          ('She said "no!"', 'She said "no!"'), ("Done…", "Done…"),
                                          ("She left (again)", "She left (again).")])
def test_the_full_stop_goes_where_a_sentence_has_no_end_mark(typed, given):
    from studio.continuation.generate import ended_sentence

    assert ended_sentence(typed) == given


def test_a_phrasal_verb_idiom_that_ends_the_story_is_named_in_a_note(monkeypatch):
    """"…had to wing it." holds no noun or adjective, so the studio does not take Wiktionary's "wing it" unmarked (a
    phrasal verb is mostly literal); the result says so and how to mark it."""
    from studio.continuation import generate
    from studio.continuation.decoding import Sample

    monkeypatch.setattr(generate, "ensemble_sample",
                        lambda lm, prompts, **kw: [Sample(text="The crowd laughed along.", tokens=5)])
    result = generate.continue_narrative("Maya stood up for the toast, but she forgot every word and had to wing it.",
                                         generate.Settings(mode="plain", n=1, seed=0))
    assert result.expression is None
    assert any("“wing it”, which ends the story" in note and "“[wing it]”" in note for note in result.notes)
