"""The inferences Continue's literal and context modes read (and the tab shows under "Inferences ensembled at
decoding"): the content words of the expression they ask the language model about."""
from studio.continuation import knowledge


def test_a_verb_the_lemmatizer_makes_a_function_word_keeps_its_own_form():
    """A visitor's "wing it" became "we" ("We is made of glass" among the inferences shown)."""
    assert knowledge.content_words("wing it") == ["wing"]
    assert knowledge.content_words("spill the beans") == ["spill", "bean"]
    assert knowledge.content_words("gave up") == ["give"] and knowledge.content_words("saw the light") == ["see",
                                                                                                          "light"]



def test_an_inference_cut_by_the_token_limit_ends_on_a_whole_word(monkeypatch):
    """A visitor read "The narrator feels the weight of her own inadequ" and "the narrator 's speech" among the
    context inferences: a completion the token limit stopped inside a word (one the dictionary does not know) loses
    that word, a whole last word stays; the tokenizer's detached "'s" and "n't" are joined again."""
    from studio.models.roles import Generation

    class Registry:
        def get(self, role):
            assert role == "lm"
            return self

        def generate(self, prompts, *, max_new_tokens, num_return_sequences, **kwargs):
            return [[Generation(" the weight of her own inadequ", p, max_new_tokens),
                     Generation(" is no longer in the scene", p, max_new_tokens),
                     Generation(" the narrator 's speech did n't stop.", p, 9),
                     Generation(" tired", p, 2)] for p in prompts]

    monkeypatch.setattr(knowledge, "get_registry", lambda: Registry())
    assert knowledge._complete(["The narrator feels"], 4, seed=0) == [
        ["the weight of her own", "is no longer in the scene", "the narrator's speech didn't stop", "tired"]]


def test_a_meaning_reads_on_after_means():
    """"wing it means To improvise" was shown among the literal inferences."""
    assert knowledge.in_a_sentence("To improvise") == "to improvise"
    assert knowledge.in_a_sentence("A secret kept") == "a secret kept"
    assert knowledge.in_a_sentence("Cupid's arrow") == "Cupid's arrow"
