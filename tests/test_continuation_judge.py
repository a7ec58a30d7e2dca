"""The served judge on the tiny profile: none (the cross-encoder needs the real MiniLM), and the request that needs
one says so instead of failing; a judgement's choice follows its probabilities."""
from __future__ import annotations

import pytest

from studio.continuation.judge import get_judge, judge_pair
from studio.continuation.judgement import Judgement
from studio.models import ModelUnavailable
from studio.models.config import ROLES


def test_the_tiny_profile_serves_no_judge_and_a_judgement_says_so(tiny_registry):
    assert tiny_registry.profile == "tiny" and get_judge() is None
    with pytest.raises(ModelUnavailable, match="train judge"):
        judge_pair("He slept like a log. The alarm rang.", "He woke up rested.", "He had not slept at all.")


def test_one_judge_role_is_left():
    assert "judge_cross" in ROLES and "judge" not in ROLES


def test_a_judgement_chooses_the_likelier_option():
    assert Judgement(0.6, 0.4).choice == "option1" and Judgement(0.3, 0.7).choice == "option2"
    assert Judgement(0.5, 0.5).choice == "option1"


def test_a_stored_low_rank_encoder_never_downloads_a_base_the_profile_does_not_serve(tiny_registry):
    from studio.models.loaders.common import LoadError
    from studio.models.pair_encoder import served_base

    with pytest.raises(LoadError) as info:
        served_base("sentence-transformers/all-mpnet-base-v2")
    assert info.value.unavailable and "tiny profile" in info.value.reason


def test_two_identical_continuations_are_refused_before_any_model(tiny_registry):
    """A visitor who pasted one sentence in both boxes was told "continuation 1" won at 50 % / 50 %."""
    from studio.errors import InputError

    with pytest.raises(InputError, match="Continuation 1 and continuation 2 are the same sentence"):
        judge_pair("He slept like a log. The alarm rang.", "He woke up rested.", "He  woke up RESTED.",
                   names=("continuation 1", "continuation 2"))


def test_a_continuation_that_is_only_markup_is_refused_before_any_model(tiny_registry):
    """A visitor's "<img src=x onerror=alert(1)>" as continuation 2 was judged "the more plausible: 80 %"; markup with
    words outside its tags is still a text to judge (refuse_non_english, every front door's check)."""
    from studio.errors import InputError
    from studio.figures.english import refuse_non_english

    with pytest.raises(InputError, match="Continuation 2 is HTML markup, with no words outside its tags"):
        judge_pair("He slept like a log. The alarm rang.", "He woke up rested.", "<img src=x onerror=alert(1)>",
                   names=("continuation 1", "continuation 2"))
    with pytest.raises(InputError, match="The narrative is HTML markup"):
        refuse_non_english("<p></p><b></b>", "narrative")
    refuse_non_english("<b>He</b> woke up rested.", "continuation 1")  # words outside the tags: taken


def test_a_verdict_adds_up_to_100_and_calls_a_close_pair_too_close():
    """A visitor saw 52 % and 49 % for one pair, and "continuation 2" named the winner of a pair at 50 % / 50 %."""
    from studio.continuation.judge import TOO_CLOSE, percentages, verdict

    assert percentages(0.515) == (52, 48) and percentages(0.4949) == (49, 51) and sum(percentages(0.123)) == 100
    names = ("continuation 1", "continuation 2")
    assert verdict(0.78, names) == "Continuation 1 is the more plausible: 78 % against 22 % for continuation 2."
    assert verdict(0.22, names).startswith("Continuation 2 is the more plausible: 78 %")
    for p in (0.5, 0.5001, 0.4999, 0.594, 0.406):
        assert verdict(p, names).startswith("Too close to call"), p
    for p in (0.597, 0.6, 0.403, 0.61):  # the threshold is read on the whole percentages shown (60 %)
        assert not verdict(p, names).startswith("Too close"), p
    assert TOO_CLOSE == 0.6


def test_a_narrative_or_a_continuation_too_short_is_refused_before_any_model(tiny_registry):
    """A visitor's "<b>x</b>" as the narrative got the writer's instructions back as its continuation, and "<b>x</b>"
    as a continuation was judged at 31 %."""
    from studio.continuation.generate import continue_narrative
    from studio.errors import InputError

    with pytest.raises(InputError, match=r"The narrative is too short to continue \(1 word\).*at least 3 words"):
        continue_narrative("<b>x</b>")
    with pytest.raises(InputError, match="narrative is too short to judge a continuation of"):
        judge_pair("<b>x</b>", "He woke up rested.", "He had not slept at all.")
    with pytest.raises(InputError, match=r"Continuation 2 is too short to judge \(1 word\)"):
        judge_pair("He slept like a log. The alarm rang.", "He woke up rested.", "<b>x</b>",
                   names=("continuation 1", "continuation 2"))
    with pytest.raises(ModelUnavailable):  # two words are a sentence ("He left."): judged, here by no judge
        judge_pair("He slept like a log.", "He woke up rested.", "He left.")


def test_what_restates_the_last_sentence(tiny_registry):
    from studio.continuation.judgement import restates

    story = "Tom put off his knee surgery for months. The pain got worse. Finally he decided to <b>bite the bullet</b>."
    assert restates("He bit a bullet.", story) and restates("He decided to bite the bullet!", story)
    assert not restates("He booked the surgery for Monday.", story)  # "surgery" is in an earlier sentence
    assert not restates("He took a bullet out of the drawer.", story) and not restates("And then?", story)
    quoted = 'He said, "I will bite the bullet." He booked the surgery.'  # the last sentence after a closing quote
    assert not restates("He bit the bullet.", quoted) and restates("He booked it: surgery!", quoted)


@pytest.mark.offline
def test_an_option_that_only_restates_the_last_sentence_loses(offline):
    """A visitor's probe: after "…Finally he decided to bite the bullet." the cross-encoder gave "He bit a bullet."
    76 % and "He decided to bite the bullet." 90 % against "He booked the surgery for Monday."."""
    story = ("Tom had been putting off his knee surgery for months. The pain got worse every week. Finally he "
             "decided to bite the bullet.")
    for said_again in ("He bit a bullet.", "He decided to bite the bullet."):
        out = judge_pair(story, said_again, "He booked the surgery for Monday.")
        assert out["choice"] == "option2" and out["restates"] == [True, False]
        assert "Option 1 only says the narrative's last sentence again" in out["verdict"]
    plain = judge_pair(story, "He called the hospital and booked the operation.", "He went to the beach.")
    assert plain["restates"] == [False, False] and "last sentence" not in plain["verdict"]


def test_a_continuation_of_several_sentences_is_judged_with_a_word_of_warning():
    """A visitor's one sentence typed fourteen times scored 97 % with no word that the judge weighs one next
    sentence."""
    from studio.continuation.judge import length_note

    names = ("continuation 1", "continuation 2")
    assert length_note(("He went home.", "She left the room."), names) == ""
    assert length_note(("He went home. He slept. He woke.", "She left."), names) == (
        " Continuation 1 holds 3 sentences: the judge learned to weigh one next sentence, so its verdict on more "
        "says less.")
    both = length_note(("He went home. He slept.", "She left! Then she ran."), names)
    assert "Continuation 1 holds 2 sentences and continuation 2 holds 2 sentences" in both


def test_an_abbreviation_or_a_quotation_is_no_sentence_end():
    """A reviewer's "Mr. Smith arrived." was said to hold 2 sentences (and "Smith arrived." read as a sentence of a
    story that said "Mr. Smith arrived.")."""
    from studio.continuation.judge import length_note
    from studio.continuation.ranking import copies_the_story, sentences

    for one in ("Mr. Smith arrived.", "Dr. Who left at 3 a.m. sharp.", "The U.S. army came.",
                'He said "Stop!" and left.'):
        assert sentences(one) == [one] and length_note((one, "She left."), ("a", "b")) == "", one
    assert sentences('"Go!" she said. "Now."') == ['"Go!" she said.', '"Now."']
    assert not copies_the_story("Mr. Smith arrived.", "Smith arrived.")
    assert copies_the_story("It rained. Mr. Smith arrived.", "mr smith arrived")


def test_a_run_of_the_story_s_words_is_no_continuation():
    """A visitor was offered "Maya walked past Dev in the hallway without a word." as the second continuation of a
    story that opens "After the argument, Maya walked past Dev in the hallway without a word.": a piece of a
    sentence of the story, five words or more, is a copy of it too; a shorter one, or the same words in another
    order, is not."""
    from studio.continuation.ranking import copies_the_story

    story = "After the argument, Maya walked past Dev in the hallway without a word. She gave Dev the cold shoulder."
    assert copies_the_story(story, "Maya walked past Dev in the hallway without a word.")
    assert copies_the_story(story, "maya walked past dev") is False
    assert copies_the_story(story, "Without a word, Maya walked past Dev in the hallway.") is False
    assert copies_the_story(story, "Dev walked past Maya in the hallway without a word.") is False
