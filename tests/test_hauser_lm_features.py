"""The LM's view of a vehicle (studio/figures/lm_features.py): which words it is conditioned on, how a group's shared
words are split off, the fit and the surprisal, and memoisation — with a recording stand-in for the language model's
`loglik_shared` (the real LMs are covered by the scorer's tests on the tiny profile and by the offline tests)."""
from __future__ import annotations

import pytest

from studio.figures.lm_features import LMFeatures, common_words, contexts
from studio.models.roles import LanguageModel
from studio.figures.components import Simile


class WordTokenizer:
    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": list(range(len(text.split())))}


class RecordingLM:
    """Words are tokens; log P(word | w words before it, context included) = −(w + 1): additive over words, so that
    a vehicle's log-probability depends only on the whole words before it, whatever the split into shared context
    and continuation. Records every call."""

    backend = "recording"
    tokenizer = WordTokenizer()

    def __init__(self):
        self.calls = []

    loglik_many = LanguageModel.loglik_many  # the base class's: one loglik_shared per ask

    def loglik_shared(self, context, continuations, score_last=None):
        self.calls.append((context, list(continuations), score_last))
        out = []
        for i, cont in enumerate(continuations):
            words = cont.split()
            k = len(words) if score_last is None else score_last[i]
            before = len(context.split()) + len(words) - k
            out.append((sum(-(before + j + 1) for j in range(k)), k))
        return out


def _simile(text, vehicle, comparator="like", prop=None):
    a = text.index(vehicle)
    return Simile(topic="voice", vehicle=vehicle, event="was", comparator=comparator, property=prop,
                  spans={"vehicle": (a, a + len(vehicle))})


def test_contexts_are_the_words_before_the_vehicle_and_one_generic_context():
    text = "Her voice  was as loud as thunder over the hills."
    assert contexts(text, _simile(text, "thunder", "as", "loud")) == ("Her voice was as loud as", "Like", " thunder")
    text = "He wept like a child."
    assert contexts(text, _simile(text, "a child")) == ("He wept like", "Like", " a child")


def test_common_words_keep_a_word_of_each_text_out():
    assert common_words(["He wept like", "He wept as hard as"]) == "He wept"
    assert common_words(["He wept like", "He wept like"]) == "He wept"
    assert common_words(["He wept", "She wept"]) == ""
    assert common_words(["Like"]) == ""


def test_in_context_log_probability_does_not_depend_on_the_group():
    lm = RecordingLM()
    feats = LMFeatures(lm)
    a, b = "Her voice was as loud as thunder.", "Her voice was like a whisper."
    together = feats.fits([(0, a, [_simile(a, "thunder", "as", "loud")]), (0, b, [_simile(b, "a whisper")])])
    assert lm.calls[0][0] == "Her voice was" and len(lm.calls) == 1  # the shared words run once; no generic pass
    alone = LMFeatures(RecordingLM()).fits([(1, a, [_simile(a, "thunder", "as", "loud")])])
    assert together[0].logp_context == pytest.approx(alone[0].logp_context) == pytest.approx(-7.0)
    assert together[1].logp_context == pytest.approx(-5 - 6) and together[1].tokens == 2
    assert together[0].fit == pytest.approx(-7.0) and together[1].fit == pytest.approx(-5.5)  # per vehicle token
    assert together[0].to_dict()["vehicle"] == "thunder" and together[0].context == "Her voice was as loud as"
    assert together[1].to_dict()["fit"] == pytest.approx(-5.5)


def test_the_generic_view_is_one_pass_after_like():
    lm = RecordingLM()
    a, b = "Her voice was as loud as thunder.", "Her voice was like a whisper."
    generic = LMFeatures(lm).features([(0, a, [_simile(a, "thunder", "as", "loud")]), (0, b, [_simile(b, "a whisper")])])
    assert [c[0] for c in lm.calls] == ["Like"]  # no in-context pass
    assert generic[0].logp_generic == pytest.approx(-2.0) and generic[1].logp_generic == pytest.approx(-2 - 3)
    assert generic[1].surprisal == pytest.approx(5.0) and generic[1].to_dict()["generic_context"] == "Like"


def test_memo_and_candidates_without_a_vehicle():
    lm = RecordingLM()
    feats = LMFeatures(lm)
    text = "He wept like a child."
    first = feats.fits([(0, text, [_simile(text, "a child")])]) + feats.features([(0, text, [_simile(text, "a child")])])
    calls = len(lm.calls)
    assert feats.fits([(5, text, [_simile(text, "a child")]), (5, "No simile here.", [])]) == [first[0], None]
    assert feats.features([(5, text, [_simile(text, "a child")]), (5, "No simile here.", [])]) == [first[1], None]
    assert len(lm.calls) == calls  # memoised: nothing asked twice


@pytest.mark.parametrize("context", ["Her voice", ""])
def test_scoring_the_last_tokens_is_the_difference_of_two_likelihoods(context):
    """The registry's LM (tiny here, llama.cpp in tests/test_lm_llamacpp.py): log P(tail | context + head) read
    from one continuation equals log P(head + tail) − log P(head)."""
    from studio.models import get_registry

    lm = get_registry().get("lm")
    heads, tails = [" was as loud as", " was like"], [" thunder.", " a whisper."]
    k = [len(lm.tokenizer(h + t, add_special_tokens=False)["input_ids"]) -
         len(lm.tokenizer(h, add_special_tokens=False)["input_ids"]) for h, t in zip(heads, tails)]
    got = lm.loglik_shared(context, [h + t for h, t in zip(heads, tails)], score_last=k)
    whole = lm.loglik_shared(context, [h + t for h, t in zip(heads, tails)])
    part = lm.loglik_shared(context, heads)
    assert [n for _, n in got] == k
    assert [v for v, _ in got] == pytest.approx([w - p for (w, _), (p, _) in zip(whole, part)], abs=1e-3)
    assert lm.loglik_shared(context, heads, score_last=[0, 0]) == [(0.0, 0), (0.0, 0)]
