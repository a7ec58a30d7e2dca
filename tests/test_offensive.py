"""The studio never writes a slur or an obscenity; a simile's vehicle is never a name for a people."""
from __future__ import annotations

from studio.offensive import offensive_words


def test_slurs_and_obscenities_in_any_form():
    assert offensive_words("He ran like an Injun.") == ["injun"]
    assert offensive_words("a big fucking dog") == ["fucking"]
    assert offensive_words("The brothers finally buried the hatchet.") == []


def test_names_for_peoples_only_as_a_vehicle():
    assert offensive_words("a gypsy", vehicle=True) == ["gypsy"]
    assert offensive_words("Dick told the story of the gypsy caravan.") == []  # a name, a story: not a vehicle


def test_continue_drops_a_continuation_with_a_slur_and_says_so(tiny_registry, monkeypatch):
    from studio.continuation import generate
    from studio.continuation.decoding import Sample

    def fake(lm, prompts, **kw):
        return [Sample(text="They made peace at last.", tokens=6), Sample(text="He shouted like a fucking fool.",
                                                                          tokens=7),
                Sample(text="They made peace at last.", tokens=6)]

    monkeypatch.setattr(generate, "ensemble_sample", fake)
    result = generate.continue_narrative("The two brothers finally [buried the hatchet].",
                                         generate.Settings(mode="plain", n=3, rank=False))
    assert [c.text for c in result.continuations] == ["They made peace at last."]
    assert "1 held a slur or an obscenity" in result.shortfall[0] and "1 repeated" in result.shortfall[0]
