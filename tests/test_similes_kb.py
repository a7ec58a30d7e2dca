"""The studio's simile knowledge base: normalization, O(1) lookups and the back-off levels."""
from __future__ import annotations

import pytest

from studio.figures.kb import LEVELS, Lookup, load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb()


def test_normalize(kb):
    assert kb.normalize("The Kids in a candy store") == "kid in a candy store"
    assert kb.normalize("his feathers") == "feather"
    assert kb.normalize("an ox") == "ox"
    assert kb.normalize("  ") == ""


def test_memoised(kb):
    assert load_kb() is kb


def test_exact_head_and_none_levels(kb):
    exact = kb.vehicle_freq("a feather")
    assert exact.level == "exact" and exact.value >= 10
    head = kb.vehicle_freq("an enormous feather from a peacock's tail")
    assert head.level == "head" and head.value >= exact.value
    unknown = kb.vehicle_freq("zzqx")
    assert unknown.level in ("embedding", "none")
    assert isinstance(unknown, Lookup) and unknown.level in LEVELS


def test_pair_and_triplets(kb):
    n = kb.pair_count("he", "a mule")
    assert n.level == "exact" and n.value >= 1
    trip = kb.triplets("he", "a mule")
    assert trip.level == "exact"
    props = [p for p, _n, _plaus in trip.value]
    assert "stubborn" in props
    for _p, count, plaus in trip.value:
        assert count >= 1 and 0.0 < plaus <= 1.0
    ranked = [plaus for _p, _n, plaus in trip.value]
    assert ranked == sorted(ranked, reverse=True)
    assert kb.triplets("zzqx", "qqzz").value == [] or kb.triplets("zzqx", "qqzz").level == "embedding"


def test_property_indexes(kb):
    light = [v for v, _s in kb.vehicles_for_property("light", k=20)]
    assert "feather" in light
    props = [p for p, _s in kb.properties_of_vehicle("a feather")]
    assert "light" in props
    assert kb.vehicles_for_property("no-such-property") == []


def test_plausibility_is_noisy_or(kb):
    # a triplet seen many times is more plausible than any single instance's confidence
    best = max(kb.triplets("she", "feather").value or kb.triplets("it", "feather").value, key=lambda r: r[1])
    assert best[1] >= 2 and best[2] > 0.95


def test_the_embedding_back_off_reads_a_broken_key_as_its_word(kb):
    """The build keyed "glacier" as "glaci" and "lightning" as "lightne"; embedded as keys, "glaci" found "gyves" as
    its neighbour (a visitor's Rerank). A key that is no word is read as the word it came from; a word as itself."""
    assert kb.lemma("glacier") == "glaci" and kb._spelled("glaci") == "glacier"
    assert kb._spelled("lightne") == "lightning"
    assert kb._spelled("snail") == "snail" and kb._spelled("absurdity") == "absurdity"  # words (one from a plural)
    assert kb._spelled("zzqx") == "zzqx"  # no word came to it
