"""Continue's pool (tuned mode): the generator draws `pool` samples and the best `n` are shown, ranked by fluency +
JUDGE_WEIGHT · log P(plausible) (tiny profile: random weights, so only the mechanics are checked)."""
from __future__ import annotations

import math

import pytest

from studio.continuation import ranking
from studio.continuation.generate import Settings, continue_narrative
from studio.models import get_registry

NARRATIVE = "After a long feud, the two brothers finally [buried the hatchet]."


def _key(c) -> float:
    """The ranking key of a shown continuation (the tiny profile has no trained judge: fluency alone)."""
    return c.fluency + (0.0 if c.p_plausible is None else ranking.JUDGE_WEIGHT * math.log(c.p_plausible))


def test_order_puts_whole_sentences_first_then_the_key():
    fluencies, probs = [-2.0, -1.0, -1.5, -0.5], [0.1, 0.2, 0.6, 0.1]
    # keys: -2.23, -1.16, -1.55, -0.73; the last is cut
    assert ranking.order(fluencies, probs, [False, False, False, True]) == [1, 2, 0, 3]
    assert ranking.order(fluencies, None, [False] * 4) == [3, 1, 2, 0]  # no judge: fluency alone
    assert ranking.order(fluencies, probs, [False] * 4, judge_weight=10.0)[0] == 2  # the judge dominates


def test_fluency_is_the_mean_log_probability_per_token():
    lm = get_registry().get("lm")
    texts = ["They made peace.", "The cat sat on a very long mat."]
    story = "After a long   feud, the two brothers finally buried the hatchet."
    got = ranking.fluency(lm, story, texts)
    want = [s / n for s, n in lm.loglik_shared(" ".join(story.split()), [" " + t for t in texts])]
    assert got == pytest.approx(want, abs=1e-5)
    assert ranking.fluency(lm, NARRATIVE, []) == []


def test_the_pool_is_drawn_and_its_best_are_shown():
    base = {"mode": "tuned", "seed": 3, "max_new_tokens": 8, "top_k": 20, "temperature": 1.0}
    pooled = continue_narrative(NARRATIVE, Settings(n=2, pool=8, **base))
    assert pooled.drawn == 8 and len(pooled.continuations) == 2
    keys = [_key(c) for c in pooled.continuations]
    assert keys == sorted(keys, reverse=True)
    if pooled.continuations[0].p_plausible is not None:  # shared among the continuations shown
        assert sum(c.p_plausible for c in pooled.continuations) == pytest.approx(1.0)
    # the same 8 draws, all shown (as many drawn as shown: no pool, ordered by the judge): the pooled two are
    # the best two of them by the key
    every = continue_narrative(NARRATIVE, Settings(n=8, pool=8, **base))
    assert every.drawn == 8 and all(c.fluency is None for c in every.continuations)
    texts = [c.text for c in every.continuations]
    flu = ranking.fluency(get_registry().get("lm"), every.narrative, texts)
    probs = None if every.continuations[0].p_plausible is None else [c.p_plausible for c in every.continuations]
    best = ranking.order(flu, probs, [c.cut for c in every.continuations])
    assert [c.text for c in pooled.continuations] == [texts[i] for i in best[:2]]


def test_other_modes_draw_only_what_they_show():
    r = continue_narrative("The night was dark.", Settings(mode="plain", n=2, pool=16, max_new_tokens=6))
    assert r.drawn == 2 and all(c.fluency is None for c in r.continuations)


def test_one_continuation_gets_no_share_of_plausibility(monkeypatch):
    """A visitor's literal-mode run showed "(1 distinct)" at plausible 100: a share among one says nothing. Two or
    more shown share the judge's probabilities; one alone gets none, and a note says why."""
    import numpy as np

    from studio.continuation import judge as judge_module

    class Even:
        name = "an even judge"

        def rank(self, narrative, options, expr=None):
            return np.full(len(options), 1.0 / len(options))

    monkeypatch.setattr(judge_module, "get_judge", lambda: Even())
    one = continue_narrative(NARRATIVE, Settings(mode="plain", n=1, seed=0, max_new_tokens=6))
    assert len(one.continuations) == 1 and one.continuations[0].p_plausible is None
    assert any("a share among one is always 100 %" in note for note in one.notes)
    two = continue_narrative(NARRATIVE, Settings(mode="plain", n=3, seed=0, max_new_tokens=6))
    assert len(two.continuations) > 1 and sum(c.p_plausible for c in two.continuations) == pytest.approx(1.0)
    assert not any("among one" in note for note in two.notes)
