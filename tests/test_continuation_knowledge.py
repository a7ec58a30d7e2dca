"""The inferences Continue's literal and context modes read (and the tab shows under "Inferences ensembled at
decoding"): the content words of the expression they ask the language model about."""
from studio.continuation import knowledge


def test_a_verb_the_lemmatizer_makes_a_function_word_keeps_its_own_form():
    """A visitor's "wing it" became "we" ("We is made of glass" among the inferences shown)."""
    assert knowledge.content_words("wing it") == ["wing"]
    assert knowledge.content_words("spill the beans") == ["spill", "bean"]
    assert knowledge.content_words("gave up") == ["give"] and knowledge.content_words("saw the light") == ["see",
                                                                                                          "light"]

