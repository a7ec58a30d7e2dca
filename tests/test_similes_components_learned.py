"""The learned vehicle boundary (studio/figures/component_model.py, served as the `simile_components` role): it cuts
the prepositional phrases the rules swallow in similes made by inserting a comparison into a literal sentence, keeps
what belongs to the image, and the rules' boundary serves whenever it is not asked for or its asset is missing."""
from __future__ import annotations

import pytest

from studio.models import get_registry, set_registry
from studio.models.config import Settings
from studio.models.registry import Registry
from studio.models.specs import SIMILE_COMPONENTS
from studio.figures.components import extract_similes, extract_similes_batch


def vehicles(text, learned):
    return [s.vehicle for s in extract_similes(text, learned=learned)]


@pytest.mark.parametrize("text, rules, learned", [
    ("The cat darted like lightning into the bushes.", "lightning into the bushes", "lightning"),
    ("The idea resounded like thunder throughout the land.", "thunder throughout the land", "thunder"),
    ("The demon sat like an incubus on her chest.", "an incubus on her chest", "an incubus"),
    ("A figure appeared like a flash of light by the back door.", "a flash of light by the back door",
     "a flash of light"),
])
def test_learned_boundary_cuts_the_verbs_prepositional_phrase(text, rules, learned):
    assert SIMILE_COMPONENTS.is_file()
    assert vehicles(text, learned=False) == [rules]
    assert vehicles(text, learned=True) == [learned]


@pytest.mark.parametrize("text, vehicle", [
    ("She's like the Lance Armstrong of vocal cords.", "the Lance Armstrong of vocal cords"),
    ("Using one of these spells is like setting off a nuclear weapon, so use them as a last resort.",
     "setting off a nuclear weapon"),
    ("He wept like a child who does not think of hiding his emotion.", "a child"),
])
def test_learned_boundary_keeps_what_belongs_to_the_image(text, vehicle):
    assert vehicles(text, learned=True) == [vehicle]


def test_learned_boundary_survives_a_punctuation_head():
    text = "While you use your nine lives to sleep like a king »."
    assert vehicles(text, learned=True) == vehicles(text, learned=False)


def test_learned_is_per_call_and_batch_agrees():
    text = "The cat darted like lightning into the bushes."
    assert vehicles(text, learned=True) == ["lightning"]
    assert vehicles(text, learned=False) == ["lightning into the bushes"]  # the flag does not stick
    batch = extract_similes_batch([text, "It was cold."], learned=True)
    assert [[s.vehicle for s in sims] for sims in batch] == [["lightning"], []]


def test_without_the_asset_the_rules_boundary_serves(monkeypatch, tmp_path):
    monkeypatch.setenv("STUDIO_MODEL_SIMILE_COMPONENTS", str(tmp_path / "absent.json"))
    previous = get_registry()
    set_registry(Registry(Settings.from_env("tiny")))
    try:
        assert vehicles("The cat darted like lightning into the bushes.", learned=True) == \
            ["lightning into the bushes"]
    finally:
        set_registry(previous)


def test_counted_images_are_similes_but_measures_are_not():
    assert vehicles("It looked like two bars of flaming material.", learned=False) == ["two bars of flaming material"]
    assert vehicles("I saw him like two weeks ago.", learned=False) == []


def test_training_alignment_finds_the_inserted_vehicle():
    from studio.lab.similes.components_train import inserted_vehicle

    cand = "The cat darted like lightning into the bushes."
    comp, a, b = inserted_vehicle("The cat darted into the bushes .", cand)
    assert cand[comp:comp + 4] == "like" and cand[a:b] == "lightning"
    cand = "Her voice was loud as a clap of thunder."
    comp, a, b = inserted_vehicle("Her voice was loud .", cand)
    assert cand[a:b] == "a clap of thunder"
    assert inserted_vehicle("He ran home .", "He walked home slowly.") is None  # not one inserted comparison


@pytest.mark.parametrize("text, vehicle, prop", [
    ("Her speech was as boring as watching paint dry.", "watching paint dry", "boring"),  # a visitor's: none before
    ("It was as easy as taking candy from a baby.", "taking candy from a baby", "easy"),
    ("Arguing with her is like hitting a rock with an egg.", "hitting a rock with an egg", None),
    ("It was as easy as falling off a log.", "falling off a log", "easy"),  # the particle with its object
    ("He ran as fast as running away from a bear.", "running away from a bear", "fast"),
])
def test_an_action_is_an_image_kept_whole(text, vehicle, prop):
    for learned in (False, True):
        (simile,) = extract_similes(text, learned=learned)
        assert (simile.vehicle, simile.property) == (vehicle, prop)
    assert extract_similes("I feel like going home.") == [] and extract_similes("She was as busy as ever.") == []
    for literal in ("It is famous as being the oldest bridge.", "He was happy as running was his passion."):
        assert extract_similes(literal, learned=True) == [], literal  # "ADJ as" + a gerund is no comparison
