"""The inferences Continue's literal and context modes read (and the tab shows under "Inferences ensembled at
decoding"): content words as the sentence has them, and a completion cut by the token limit marked as cut."""
from types import SimpleNamespace

from studio.continuation import knowledge
from studio.models.roles import Generation


def test_a_verb_the_lemmatizer_makes_a_function_word_keeps_its_own_form():
    """A visitor's "wing it" became "we" ("We is made of glass" among the inferences shown)."""
    assert knowledge.content_words("wing it") == ["wing"]
    assert knowledge.content_words("spill the beans") == ["spill", "bean"]


def test_a_completion_the_token_limit_cut_ends_in_an_ellipsis(monkeypatch):
    texts = [(" the weight of her own inadequ", 6), (" ready, and went on", 6), (" calm", 2)]
    lm = SimpleNamespace(generate=lambda prompts, **kw: [[Generation(t, p, k) for t, k in texts] for p in prompts])
    monkeypatch.setattr(knowledge, "get_registry", lambda: SimpleNamespace(get=lambda role: lm))
    assert knowledge._complete(["The narrator feels"], 3, seed=0) == [
        ["the weight of her own inadequ…", "ready", "calm"]]

