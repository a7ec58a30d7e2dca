"""HAUSER's formulas pinned on hand-computed examples (no models needed, but for the one offline test)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from studio.errors import InputError
from studio.hauser import criteria as C
from studio.hauser.kb_features import NO_TOPIC, KBFeatures
from studio.hauser.scorer import (NO_SIMILE, CandidateScore, Settings, _normalize_and_rank, off_sentence,
                                  sentiment_cut)
from studio.figures.components import Simile
from studio.figures.kb import SimileKB


def test_minmax_spreads_to_unit_interval():
    assert C.minmax([1.0, 3.0, 2.0]).tolist() == [0.0, 1.0, 0.5]


def test_minmax_ties_and_single_candidate_give_half():
    assert C.minmax([2.0, 2.0, 2.0]).tolist() == [0.5, 0.5, 0.5]
    assert C.minmax([-7.0]).tolist() == [0.5]
    assert C.minmax([]).size == 0


def test_relevance_eq2_sums_n_times_p_and_averages_over_pairs():
    pairs = [[("innocent", 2, 0.5), ("small", 1, 0.9)], []]  # pair 1: 2·0.5 + 1·0.9 = 1.9; pair 2: no triplets
    assert C.relevance_eq2(pairs) == pytest.approx(0.95)


def test_relevance_eq3_averages_pair_counts():
    assert C.relevance_eq3([3, 0]) == pytest.approx(1.5)
    with pytest.raises(InputError):
        C.relevance_eq3([])


def test_logical_consistency_is_one_minus_contradiction():
    assert C.logical_consistency(0.25) == pytest.approx(0.75)


def test_sentiment_consistency_uses_the_literal_polarity():
    # literal positive (0.7): P(s = pos) - P(l = pos) = 0.9 - 0.7
    assert C.sentiment_consistency(0.9, 0.7) == pytest.approx(0.2)
    # literal negative (0.3): P(s = neg) - P(l = neg) = 0.8 - 0.7
    assert C.sentiment_consistency(0.2, 0.3) == pytest.approx(0.1)


def test_quality_served_weights_are_five_one_zero_and_the_papers_are_three_two_one_sixths():
    assert C.quality([1.0], [0.0], [0.5])[0] == pytest.approx(5 / 6)
    assert C.quality([0.2], [0.6], [0.9])[0] == pytest.approx(0.2 * 5 / 6 + 0.6 / 6)
    assert C.relative_weights(C.DEFAULT_QUALITY_PARTS) == pytest.approx(C.DEFAULT_QUALITY_WEIGHTS)
    assert C.quality([1.0], [0.0], [0.5], C.PAPER_QUALITY_WEIGHTS)[0] == pytest.approx(3 / 6 + 0.5 / 6)
    assert C.relative_weights(C.PAPER_QUALITY_PARTS) == pytest.approx(C.PAPER_QUALITY_WEIGHTS)
    with pytest.raises(InputError):
        C.quality([0.0], [0.0], [0.0], (0, 0, 0))


def test_creativity_and_informativeness():
    assert C.creativity([3, 5]) == pytest.approx(-math.log(5))
    assert C.creativity([0]) == 0.0
    assert C.informativeness(["a little boy", "rain"]) == pytest.approx(2.0)


def test_combined_ranking_weights_and_flagged_last():
    ranking = C.combine_rankings(q=[0.9, 0.5, 0.1, None], c=[-2.0, -1.0, -3.0, None], i=[1.0, 2.0, 2.0, None],
                                 valid=[True, True, True, False], weights=C.PAPER_RANK_WEIGHTS)
    assert ranking.by_quality == [1, 2, 3, None]
    assert ranking.by_creativity == [2, 1, 3, None]
    assert ranking.by_informativeness == [3, 1, 1, None]  # tied I share rank 1
    assert ranking.combined_score == [9.0, 7.0, 13.0, None]  # 2·rQ + 2·rC + 1·rI
    assert ranking.final == [2, 1, 3, 4]
    only_quality = C.combine_rankings([0.9, 0.5], [-3.0, -1.0], [1.0, 5.0], [True, True], (1, 0, 0))
    assert only_quality.final == [1, 2]


def test_the_served_rank_weights_let_quality_lead_where_the_papers_crown_a_rarer_image():
    """The served 3 : 0.5 : 0 (chosen on writers' verdicts): the best quality first, though the second candidate's
    image is rarer and longer, which the paper's 2 : 2 : 1 rewards."""
    assert C.DEFAULT_RANK_WEIGHTS == (3.0, 0.5, 0.0) and C.PAPER_RANK_WEIGHTS == (2.0, 2.0, 1.0)
    args = dict(q=[0.9, 0.5, 0.1, None], c=[-2.0, -1.0, -3.0, None], i=[1.0, 2.0, 2.0, None],
                valid=[True, True, True, False])
    served = C.combine_rankings(**args)
    assert served.combined_score == [4.0, 6.5, 10.5, None]  # 3·rQ + 0.5·rC + 0·rI
    assert served.final == [1, 2, 3, 4]
    assert C.combine_rankings(**args, weights=C.PAPER_RANK_WEIGHTS).final == [2, 1, 3, 4]
    assert C.ratio(C.DEFAULT_RANK_WEIGHTS) == "3 : 0.5 : 0"


def _row(index, r, cl, cs, creativity, inform, valid=True):
    return CandidateScore(index=index, candidate=f"c{index}", has_simile=valid, similes=[],
                          flag="" if valid else NO_SIMILE, relevance=r if valid else None, logical_consistency=cl,
                          sentiment_consistency=cs, creativity=creativity if valid else None,
                          informativeness=inform if valid else None)


def test_normalization_within_the_group_ignores_candidates_without_a_simile():
    rows = [_row(0, 10.0, 0.9, 0.1, -1.0, 2.0), _row(1, 0.0, 0.5, -0.1, -2.0, 1.0),
            _row(2, 5.0, 0.7, 0.0, -1.5, 3.0), _row(3, 99.0, 0.0, 1.0, 0.0, 9.0, valid=False)]
    _normalize_and_rank(rows, Settings(rank_weights=C.PAPER_RANK_WEIGHTS))
    assert [r.relevance_norm for r in rows[:3]] == pytest.approx([1.0, 0.0, 0.5])
    assert [r.logical_consistency_norm for r in rows[:3]] == pytest.approx([1.0, 0.0, 0.5])
    assert [r.sentiment_consistency_norm for r in rows[:3]] == pytest.approx([1.0, 0.0, 0.5])
    assert [r.quality for r in rows[:3]] == pytest.approx([1.0, 0.0, 0.5])
    assert rows[3].quality is None and rows[3].relevance_norm is None and rows[3].rank == 4
    # Q ranks 1,3,2; C ranks 1,3,2; I ranks 2,3,1 → 2+2+2=6, 6+6+3=15, 4+4+1=9
    assert [r.combined_rank_score for r in rows] == [6.0, 15.0, 9.0, None]
    assert [r.rank for r in rows] == [1, 3, 2, 4]


def test_combined_ranking_puts_the_after_ones_after_the_others_by_the_same_sum():
    ranking = C.combine_rankings(q=[0.9, 0.5, 0.1, None], c=[-2.0, -1.0, -3.0, None], i=[1.0, 2.0, 2.0, None],
                                 valid=[True, True, True, False], after=[False, True, False, False],
                                 weights=C.PAPER_RANK_WEIGHTS)
    assert ranking.combined_score == [9.0, 7.0, 13.0, None]  # the three rankings and the sum are unchanged
    assert ranking.final == [1, 3, 2, 4]  # the best sum goes after the others, before the one without a simile


def test_a_sure_contradiction_goes_after_the_others_whatever_its_creativity():
    """"Her voice was as soft as a whisper." for "Her voice was very loud." came first on a rare image's creativity."""
    rows = [_row(0, 10.0, 0.6, 0.1, -1.0, 2.0), _row(1, 8.0, 0.003, 0.1, 5.0, 2.0), _row(2, 0.0, 0.8, -0.2, 4.0, 2.0)]
    paper = C.PAPER_RANK_WEIGHTS  # where the rarer image counts most
    _normalize_and_rank(rows, Settings(rank_weights=paper, contradiction_gate=None))  # the paper's order
    assert [r.rank for r in rows] == [2, 1, 3] and not any(r.contradicts for r in rows)
    _normalize_and_rank(rows, Settings(rank_weights=paper))  # P(contradiction) 0.997 ≥ 0.9
    assert [r.contradicts for r in rows] == [False, True, False] and [r.rank for r in rows] == [1, 3, 2]
    rows[1].logical_consistency = 0.2  # P 0.8: a doubt, not a verdict
    _normalize_and_rank(rows, Settings(rank_weights=paper))
    assert not rows[1].contradicts
    for bad in (0, 1.5, "high", True):
        with pytest.raises(InputError, match="contradiction gate"):
            Settings(contradiction_gate=bad)


def test_a_line_off_the_sentence_goes_after_the_others_with_its_scores_kept():
    rows = [_row(0, 10.0, 0.9, 0.1, 5.0, 2.0), _row(1, 1.0, 0.8, 0.1, 1.0, 1.0), _row(2, 0.0, 0.7, 0.0, 0.0, 1.0)]
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [1, 2, 3]
    rows[0].off_sentence = True
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [3, 1, 2] and rows[0].quality == pytest.approx(1.0)  # its scores stay



def test_an_image_that_is_a_sign_goes_after_the_images_in_words():
    """A visitor's "The music was as loud as a 🍋." won over "…as loud as thunder.": the KB cannot know an emoji, so
    its rare "creativity" and empty relevance say nothing about it."""
    rows = [_row(0, 10.0, 0.9, 0.1, 5.0, 2.0), _row(1, 1.0, 0.8, 0.1, 1.0, 1.0)]
    rows[0].similes = [{"vehicle": "a 🍋"}]
    rows[1].similes = [{"vehicle": "thunder"}]
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [2, 1] and rows[0].quality == pytest.approx(1.0)  # its scores stay
    assert rows[0].no_words and not rows[1].no_words and rows[0].to_dict()["no_words"]
    _normalize_and_rank(rows, Settings(off_sentence=False))  # the paper's order leaves it where its scores put it
    assert [r.rank for r in rows] == [1, 2] and not rows[0].no_words
    rows[0].similes = [{"vehicle": "a lemon"}]
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [1, 2]


def test_an_image_that_names_a_people_goes_after_the_others():
    """A visitor's "The ghost was as pale as a black man." (a vehicle of the simile KB's old books) was Rerank's
    winner: an image that names a people or a person by skin colour goes after the others, flagged; a colour word
    with anything else is an image like any other."""
    from studio.offensive import offensive_words

    rows = [_row(0, 10.0, 0.9, 0.1, 5.0, 2.0), _row(1, 1.0, 0.8, 0.1, 1.0, 1.0)]
    rows[0].similes = [{"vehicle": "a black man"}]
    rows[1].similes = [{"vehicle": "a sheet"}]
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [2, 1] and rows[0].offensive and rows[0].to_dict()["offensive"]
    _normalize_and_rank(rows, Settings(off_sentence=False))  # the paper's order
    assert [r.rank for r in rows] == [1, 2] and not rows[0].offensive
    rows[0].similes = [{"vehicle": "a black cat"}]
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [1, 2] and not rows[0].offensive
    assert offensive_words("the white-men", vehicle=True) and offensive_words("a gypsy", vehicle=True)
    assert not offensive_words("a black man") and not offensive_words("white sheets", vehicle=True)
    for image in ("a red race car", "white kid gloves", "a banana's yellow skin", "a black cat"):  # a reviewer's
        assert not offensive_words(image, vehicle=True), image


@pytest.mark.offline
def test_a_line_of_another_sentence_is_off_it_and_a_rewrite_in_other_words_is_not(offline):
    """The visitor's "The car was as fast as lightning." among rewrites of "Her laugh was loud." was ranked second,
    unflagged; a reviewer's "He was as weary as a dog." for "He was tired." shares no lemma but means alike."""
    from studio.hauser.scorer import score_group, table_rows

    parser, embedder = offline.get("parser"), offline.get("embedder")
    pairs = [("Her laugh was loud.", "The car was as fast as lightning."),
             ("Her laugh was loud.", "Her laugh was as loud as thunder."), ("He was tired.", "He was as weary as a dog."),
             ("It was cold.", "It was freezing like ice."), ("It is.", "The car was as fast as lightning.")]
    assert off_sentence(parser, embedder, pairs) == [True, False, False, False, False]  # "It is.": no content word
    assert off_sentence(parser, None, pairs) == [False] * 5  # no embedder: nothing flagged
    car, thunder, drum = score_group("Her laugh was loud.", ["The car was as fast as lightning.",
                                                             "Her laugh was as loud as thunder.",
                                                             "She laughed as loudly as a drum."]).candidates
    assert car.off_sentence and car.rank == 3 and not (thunder.off_sentence or drum.off_sentence)
    group = score_group("Her laugh was loud.", ["The car was as fast as lightning.", "Her laugh was as loud as thunder."])
    assert [row["off_sentence"] for row in table_rows(group.to_dict())] == [False, True]  # the CSV's column
    unflagged = score_group("Her laugh was loud.", ["The car was as fast as lightning."], Settings(off_sentence=False))
    assert not unflagged.candidates[0].off_sentence and unflagged.settings["off_sentence"] is False


def test_single_candidate_normalizes_to_half():
    rows = [_row(0, 3.0, 0.2, -0.4, -1.0, 2.0)]
    _normalize_and_rank(rows, Settings())
    row = rows[0]
    assert (row.relevance_norm, row.logical_consistency_norm, row.sentiment_consistency_norm) == (0.5, 0.5, 0.5)
    assert rows[0].quality == pytest.approx(0.5) and rows[0].rank == 1


def test_group_without_any_simile_keeps_input_order():
    rows = [_row(0, 0, 0.5, 0.0, 0, 0, valid=False), _row(1, 0, 0.9, 0.0, 0, 0, valid=False)]
    _normalize_and_rank(rows, Settings())
    assert [r.rank for r in rows] == [1, 2] and all(r.quality is None for r in rows)


def test_settings_take_quality_weights_as_parts_so_quality_stays_within_zero_and_one():
    assert Settings(quality_weights=(5, 1, 0)).quality_weights == pytest.approx((5 / 6, 1 / 6, 0))
    assert Settings(quality_weights=C.PAPER_QUALITY_WEIGHTS).quality_weights == pytest.approx(C.PAPER_QUALITY_WEIGHTS)
    rows = [_row(0, 0, 0.9, 0.1, 0, 0), _row(1, 1, 0.2, 0.3, 0, 0)]
    _normalize_and_rank(rows, Settings(quality_weights=(5, 1, 0)))
    assert all(0 <= r.quality <= 1 for r in rows)


def test_settings_reject_bad_weights():
    with pytest.raises(InputError):
        Settings(quality_weights=(1, -1, 0))
    with pytest.raises(InputError):
        Settings(relevance="eq9")


def _simile(topic, vehicle, event="wept", vehicle_span=None):
    spans = {"vehicle": vehicle_span} if vehicle_span else {}
    return Simile(topic=topic, vehicle=vehicle, event=event, comparator="like", property=None, spans=spans)


@pytest.fixture
def small_kb():
    return SimileKB({"meta": {}, "lemmas": {}, "vehicles": {"child": 5, "rock": 2}, "pairs": {"he\tchild": 3},
                     "triplets": {"he\tchild": [["innocent", 2, 0.5], ["small", 1, 0.9]]}, "contexts": []})


def test_eq2_and_eq3_differ_on_the_same_kb(small_kb):
    feats = KBFeatures(small_kb)
    sims = [_simile("he", "a child"), _simile("he", "a rock")]
    r2, levels2, freqs, flevels, vehicles = feats.features(sims, "eq2")
    r3, levels3, *_ = feats.features(sims, "eq3")
    assert r2 == pytest.approx((2 * 0.5 + 1 * 0.9 + 0) / 2)  # Eq. 2
    assert r3 == pytest.approx((3 + 0) / 2)  # Eq. 3
    assert levels2 == ["exact", "none"] and levels3 == ["exact", "none"]
    assert freqs == [5.0, 2.0] and flevels == ["exact", "exact"] and vehicles == ["a child", "a rock"]
    assert C.creativity(freqs) == pytest.approx(-math.log(4.5))


def test_no_topic_and_no_vehicle(small_kb):
    feats = KBFeatures(small_kb)
    r, levels, *_ = feats.features([_simile(None, "a child")], "eq2")
    assert r == 0.0 and levels == [NO_TOPIC]
    assert feats.features([], "eq2") == (None, [], [], [], [])
    assert feats.features([_simile("he", None)], "eq3")[0] is None


def test_sentiment_cut_after_first_vehicle_and_first_event():
    literal = "As for Paganel, he wept who does not think of hiding his emotion."
    cand = "As for Paganel, he wept like a little boy who does not think of hiding his emotion."
    sims = [_simile("he", "a little boy", "wept", (29, 41))]
    assert sentiment_cut(literal, cand, sims) == ("As for Paganel, he wept like a little boy",
                                                  "As for Paganel, he wept")
    assert sentiment_cut(literal, cand, []) == (cand, literal)
    # an event missing from the literal sentence leaves it whole
    assert sentiment_cut(literal, cand, [_simile("he", "a little boy", "cried", (29, 41))])[1] == literal


def test_descending_ranks_min_method():
    assert C.descending_ranks(np.array([0.1, 0.3, 0.3])).tolist() == [3, 1, 1]


def test_relevance_with_prior_adds_the_lm_fit_to_log_kb_relevance():
    assert C.relevance_with_prior(3.0, [-2.0], 0.0) == 3.0  # λ = 0: the paper's value, untouched
    assert C.relevance_with_prior(3.0, [], 0.1) == pytest.approx(math.log(4))  # no vehicle located for the LM
    assert C.relevance_with_prior(3.0, [-2.0, -1.0], 1.0) == pytest.approx(math.log(4) - 1.5)
    assert C.relevance_with_prior(0.0, [-4.0], 0.5) == pytest.approx(-2.0)  # an unseen pair: the LM alone


def test_creativity_with_prior_adds_the_lm_surprisal():
    assert C.creativity_with_prior([3, 5], [7.0], 0.0) == pytest.approx(-math.log(5))
    assert C.creativity_with_prior([3, 5], [7.0, 9.0], 0.3) == pytest.approx(-math.log(5) + 0.3 * 8.0)
    assert C.creativity_with_prior([0], [], 0.3) == 0.0


def test_settings_reject_bad_lm_weights():
    for bad in (-0.1, float("nan"), float("inf"), "x"):
        with pytest.raises(InputError):
            Settings(lm_relevance=bad)
        with pytest.raises(InputError):
            Settings(lm_creativity=bad)
    assert Settings(lm_relevance=0, lm_creativity="0.5").lm_creativity == 0.5
