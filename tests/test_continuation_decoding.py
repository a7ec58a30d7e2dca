"""The logit-ensemble decoder and the generation settings (tiny profile)."""
from __future__ import annotations

import pytest

from studio.continuation.decoding import _banned_tokens, ensemble_sample, first_sentence
from studio.continuation.generate import Settings, prompts_for
from studio.errors import InputError
from studio.models import get_registry


@pytest.fixture(scope="module")
def lm():
    return get_registry().get("lm")


def test_same_seed_same_samples_and_count(lm):
    prompts = ["The night was dark.", "(Ink is black.)\nThe night was dark."]
    a = ensemble_sample(lm, prompts, n_samples=3, seed=7, max_new_tokens=8, stop_at_sentence_end=False)
    b = ensemble_sample(lm, prompts, n_samples=3, seed=7, max_new_tokens=8, stop_at_sentence_end=False)
    assert a == b and len(a) == 3
    assert all(s.tokens <= 8 for s in a)


def test_seed_changes_samples(lm):
    runs = {tuple(s.ids for s in ensemble_sample(lm, ["He sang like a lark"], n_samples=2, seed=seed,
                                                 max_new_tokens=5, stop_at_sentence_end=False, temperature=1.0,
                                                 top_k=50))
            for seed in range(3)}
    assert len(runs) > 1


def test_mean_of_identical_prompts_equals_one_prompt(lm):
    one = ensemble_sample(lm, ["Time flies like an arrow"], n_samples=2, seed=3, max_new_tokens=10,
                          stop_at_sentence_end=False)
    two = ensemble_sample(lm, ["Time flies like an arrow"] * 2, n_samples=2, seed=3, max_new_tokens=10,
                          stop_at_sentence_end=False, combine="mean")
    assert [s.text for s in one] == [s.text for s in two]


def test_sum_of_identical_prompts_sharpens_like_half_temperature(lm):
    summed = ensemble_sample(lm, ["She sang as sweetly as"] * 2, n_samples=2, seed=5, max_new_tokens=10,
                             temperature=0.8, stop_at_sentence_end=False, combine="sum")
    halved = ensemble_sample(lm, ["She sang as sweetly as"], n_samples=2, seed=5, max_new_tokens=10,
                             temperature=0.4, stop_at_sentence_end=False)
    assert [s.text for s in summed] == [s.text for s in halved]


def test_padding_does_not_change_a_prompt(lm):
    """Left padding (prompts of different lengths in one batch) must not change what a prompt sees."""
    alone = ensemble_sample(lm, ["I like tea"], seed=1, max_new_tokens=6, temperature=0.0,
                            stop_at_sentence_end=False)
    padded = ensemble_sample(lm, ["I like tea", "I like tea"], seed=1, max_new_tokens=6, temperature=0.0,
                             stop_at_sentence_end=False, combine="mean")
    assert alone[0].text == padded[0].text


def test_no_repeated_trigrams_in_continuation(lm):
    samples = ensemble_sample(lm, ["and and"], n_samples=2, seed=0, max_new_tokens=24, top_k=2,
                              stop_at_sentence_end=False)
    for s in samples:
        grams = [s.ids[i:i + 3] for i in range(len(s.ids) - 2)]
        assert len(grams) == len(set(grams)) and len(s.ids) == s.tokens


def test_banned_tokens():
    assert _banned_tokens([1, 2, 3, 1, 2], 3) == {3}
    assert _banned_tokens([1, 2], 3) == set()
    assert _banned_tokens([5, 5], 0) == set()


def test_first_sentence():
    assert first_sentence("He left. Then he came back.") == "He left."
    assert first_sentence('She said "go!" and left') == 'She said "go!"'
    assert first_sentence("no end yet") is None


def test_settings_are_checked():
    with pytest.raises(InputError):
        Settings(mode="poetic").check()
    with pytest.raises(InputError):
        Settings(n=0).check()
    with pytest.raises(InputError):
        Settings(temperature=5).check()
    assert Settings(n=2.0, seed=3).check().n == 2


def test_prompts_put_each_inference_before_the_narrative():
    prompts = prompts_for("He slept like a log.", ["log is heavy", "The narrator feels tired."])
    assert prompts == ["(log is heavy.)\nHe slept like a log.", "(The narrator feels tired.)\nHe slept like a log."]
    assert prompts_for("x", []) == ["x"]


def test_identical_samples_share_one_row():
    from studio.continuation.decoding import Sample
    from studio.continuation.generate import merge_identical

    rows = merge_identical([Sample("He left.", 3), Sample("She stayed.", 4), Sample("He left.", 3)])
    assert [(r.text, r.samples) for r in rows] == [("He left.", 2), ("She stayed.", 1)]


def test_a_sentence_with_and_without_its_closing_quote_is_one_row():
    """A visitor's context mode listed 'He said, "I am God."' and 'He said, "I am God.' as two continuations (52.5 %
    and 47.5 %): one row, its quotes closed, counting both samples."""
    from studio.continuation.decoding import Sample
    from studio.continuation.generate import merge_identical

    rows = merge_identical([Sample('He said, "I am God.', 6, complete=False), Sample("She left.", 3),
                            Sample('He said, "I am God."', 7)])
    assert [(r.text, r.samples, r.tokens, r.cut) for r in rows] == [('He said, "I am God."', 2, 7, False),
                                                                    ("She left.", 1, 3, False)]
    rows = merge_identical([Sample("He said, “Go.”", 4), Sample("He said, “Go.", 3)])
    assert [(r.text, r.samples) for r in rows] == [("He said, “Go.”", 2)]
