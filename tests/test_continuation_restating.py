"""Writer mode's order (ranking.writer_order): the judge's probability, a continuation that restates the story's last
sentence moved down by its cosine with it (RESTATING_WEIGHT), slips and cut sentences last; and that Continue serves
that order and says why a line sits where it does."""
from __future__ import annotations

import math

import numpy as np
import pytest

from studio.continuation import generate, ranking
from studio.models import ModelUnavailable, get_registry
from studio.models.roles import Generation
from studio.ui.continue_tab import why_here

STORY = ("Priya's spreadsheet was still half empty. She brewed a pot of coffee, because she would have to pull an "
         "all-nighter.")


def test_the_last_sentence_is_the_last_with_a_word():
    assert ranking.last_sentence(STORY) == ("She brewed a pot of coffee, because she would have to pull an "
                                            "all-nighter.")
    assert ranking.last_sentence('He said "no!" Then  he   left. …') == "Then he left."
    assert ranking.last_sentence("no end mark here") == "no end mark here"


def test_restating_is_the_cosine_with_the_last_sentence():
    embedder = get_registry().get("embedder")
    texts = ["She worked all night.", "The office cat knocked the coffee over."]
    vectors = np.asarray(embedder.encode([ranking.last_sentence(STORY)] + texts), dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert ranking.restating(embedder, STORY, texts) == pytest.approx(list(vectors[1:] @ vectors[0]), abs=1e-6)
    assert ranking.restating(embedder, STORY, []) == []


def test_a_restatement_moves_down_by_its_closeness():
    probs, cut, slipped = [0.5, 0.3, 0.2], [False] * 3, [False] * 3
    assert ranking.writer_order(probs, cut, slipped, None) == [0, 1, 2]  # the judge alone
    restates = [0.8, 0.2, 0.3]  # keys: log p − 2·cos = −2.29, −1.60, −2.21
    assert ranking.writer_order(probs, cut, slipped, restates) == [1, 2, 0]
    assert ranking.writer_order(probs, cut, slipped, restates, weight=0) == [0, 1, 2]
    # a cut sentence, then one with a slip, come after every whole fresh one, whatever their keys
    assert ranking.writer_order(probs, [False, True, False], [False, False, True], [0.9, 0.0, 0.0]) == [0, 2, 1]
    assert math.isclose(ranking.RESTATING_WEIGHT, 2.0)


class _Judge:
    """The judge's probabilities for the pool, in the order the writer drew it."""
    name = "stub judge"

    def __init__(self, probs):
        self.probs = probs

    def rank(self, narrative, options, expr=None):
        return np.asarray(self.probs[:len(options)], dtype=float)


def _writer_replies(monkeypatch, texts):
    writer = get_registry().get("writer")
    monkeypatch.setattr(writer, "reply", lambda *a, **k: [Generation(text=t, prompt="", new_tokens=9) for t in texts])


def test_continue_serves_the_writer_order(monkeypatch):
    import studio.continuation.judge as judge_module

    texts = ["By dawn the figures finally added up.", "She stayed up all night to finish the spreadsheet.",
             "Her flatmate found her asleep on the keyboard.", "The coffee went cold."]
    _writer_replies(monkeypatch, texts)
    monkeypatch.setattr(judge_module, "get_judge", lambda: _Judge([0.2, 0.5, 0.25, 0.05]))
    closeness = dict(zip(texts, [0.1, 0.9, 0.2, 0.0]))  # keys: −1.81, −2.49, −1.79, −3.00
    monkeypatch.setattr(ranking, "restating", lambda embedder, story, ts: [closeness[t] for t in ts])
    r = generate.continue_narrative(STORY, generate.Settings(n=3, pool=4))
    assert [c.text for c in r.continuations] == [texts[2], texts[0], texts[1]]
    assert [c.restating for c in r.continuations] == [0.2, 0.1, 0.9]
    assert sum(c.p_plausible for c in r.continuations) == pytest.approx(1.0)
    notes = why_here([vars(c) for c in r.continuations], "writer")
    assert notes[0] == ("placed higher: further from the story's last sentence than a line below it (closeness "
                        "0.20: the cosine of the two sentences' meanings; 1 would say it again)")
    assert notes[2] == ("placed lower: closer to the story's last sentence than a line above it (closeness 0.90: "
                        "the cosine of the two sentences' meanings; 1 would say it again)")


def test_without_the_embedder_the_judge_alone_orders_and_says_so(monkeypatch):
    import studio.continuation.judge as judge_module

    texts = ["She stayed up all night.", "By dawn the figures added up."]
    _writer_replies(monkeypatch, texts)
    monkeypatch.setattr(judge_module, "get_judge", lambda: _Judge([0.6, 0.4]))

    registry, served = get_registry(), get_registry().get

    def get(role, *a, **k):
        if role == "embedder":
            raise ModelUnavailable("embedder", "its packages are not installed", "make setup")
        return served(role, *a, **k)

    monkeypatch.setattr(registry, "get", get)
    r = generate.continue_narrative(STORY, generate.Settings(n=1, pool=2))
    assert [c.text for c in r.continuations] == texts[:1] and r.continuations[0].restating is None
    assert any("the judge alone ordered" in note for note in r.notes)


def test_the_writer_order_runs_when_every_sample_is_shown(monkeypatch):
    """n as large as the pool: still whole, fresh sentences first and the restatement's move, not the judge alone."""
    import studio.continuation.judge as judge_module

    texts = ["She stayed up all night to finish the spreadsheet.", "By dawn the figures finally added up."]
    _writer_replies(monkeypatch, texts)
    monkeypatch.setattr(judge_module, "get_judge", lambda: _Judge([0.55, 0.45]))
    monkeypatch.setattr(ranking, "restating", lambda embedder, story, ts: [0.9 if "night" in t else 0.1 for t in ts])
    r = generate.continue_narrative(STORY, generate.Settings(n=2, pool=2))
    assert [c.text for c in r.continuations] == texts[::-1]


def _row(p, cut=False, slipped=False, restating=None, slips=()):
    return {"p_plausible": p, "cut": cut, "slipped": slipped or bool(slips), "slips": list(slips), "fluency": None,
            "restating": restating}


def test_why_here_names_the_reason_that_decided():
    # two slips shown: the lower one moved for its closeness, not its slip; the upper one is no "whole, fresh" line
    notes = why_here([_row(0.45), _row(0.20, slipped=True, restating=0.3), _row(0.35, slipped=True, restating=0.8)],
                     "writer")
    said = ": the cosine of the two sentences' meanings; 1 would say it again)"
    assert notes == ["", "placed higher: further from the story's last sentence than a line below it "
                         f"(closeness 0.30{said}",
                     f"placed lower: closer to the story's last sentence than a line above it (closeness 0.80{said}"]
    # two cut ones shown: likewise
    notes = why_here([_row(0.5), _row(0.1, cut=True, restating=0.1), _row(0.3, cut=True, restating=0.8)], "writer")
    assert notes[1].startswith("placed higher: further") and notes[2].startswith("placed lower: close")
    # a slip above a cut sentence keeps its own words: it is whole, not fresh
    notes = why_here([_row(0.2, slipped=True), _row(0.8, cut=True)], "writer")
    assert notes == ["placed higher: a whole sentence", "placed lower: cut short by the token limit"]
    notes = why_here([_row(0.2), _row(0.8, slips=["stacks a new simile"])], "writer")
    assert notes == ["placed higher: a whole sentence, and the slip checks found nothing in it",
                     "placed lower: stacks a new simile"]  # the slip it shows, not every kind there is
    notes = why_here([_row(0.2), _row(0.8, slips=["reuses the figure's own words", "stacks a new simile"])], "writer")
    assert notes[1] == "placed lower: reuses the figure's own words; stacks a new simile"
    assert why_here([_row(0.6, restating=0.2), _row(0.4, restating=0.9)], "writer") == ["", ""]
    # a slip or a cut where the judge puts it is named too (a visitor's #9 reused the idiom unmarked)
    notes = why_here([_row(0.6), _row(0.3, slips=["reuses the figure's own words"]), _row(0.1, cut=True)], "writer")
    assert notes == ["", "reuses the figure's own words", "cut short by the token limit"]
    # a moved line names its slip too (a reviewer's)
    notes = why_here([_row(0.2, slips=["reuses the figure's own words"], restating=0.1),
                      _row(0.5, slips=["stacks a new simile"], restating=0.9)], "writer")
    assert notes[0].startswith("placed higher: further") and notes[0].endswith("; reuses the figure's own words")
    assert notes[1].startswith("placed lower: close") and notes[1].endswith("; stacks a new simile")
    assert why_here([_row(0.6), _row(0.3, slips=["stacks a new simile"])], "tuned") == ["", ""]


def test_a_slip_is_the_figures_words_its_meaning_spelt_out_or_a_new_simile():
    from studio.continuation.expression import Expression
    from studio.continuation.writing import slips

    story = "Nora's notes scattered across the stage, so she decided to wing it."
    start = story.index("wing it")
    idiom = Expression(kind="idiom", text="wing it", start=start, end=start + len("wing it"),
                       meaning="To improvise; to perform with little or no preparation.")
    assert slips("She began to improvise.", story, idiom) == ["spells out the figure's meaning"]
    assert slips("She had no preparation at all.", story, idiom) == ["spells out the figure's meaning"]
    assert slips("She flapped her arms like a bird's wings.", story, idiom) == ["reuses the figure's own words",
                                                                      "stacks a new simile"]
    assert slips("The audience laughed at her first joke, and she relaxed.", story, idiom) == []
    # a compound is spelt either way: "He's in the doghouse." reuses "in the dog house" (a visitor's find)
    jon = "Jon forgot his wife's birthday and now he is really in the dog house."
    house = Expression(kind="idiom", text="in the dog house", start=jon.index("in the dog"), end=len(jon) - 1)
    assert slips("He's in the doghouse.", jon, house) == slips("He is in the dog house.", jon, house) == [
        "reuses the figure's own words"]
    assert slips("He bought her flowers the next day.", jon, house) == []
    # whole words, not stems: "wind moved" is no "windmills" (a reviewer's find)
    tilt = "Marco kept fighting the new rules that nobody could change; he was tilting at windmills."
    mills = Expression(kind="idiom", text="tilting at windmills", start=tilt.index("tilting"), end=len(tilt) - 1)
    assert slips("The wind moved the flags outside the hall.", tilt, mills) == []
    # a possessive is the word ("the cat's face" reuses "let the cat out of the bag": a visitor's find)
    bag = "He spilled the beans and then let the cat out of the bag."
    cat = Expression(kind="idiom", text="let the cat out of the bag", start=bag.index("let the"), end=len(bag) - 1)
    assert slips("He saw the cat's face and laughed.", bag, cat) == ["reuses the figure's own words"]
    # a bare feeling fits any story ("He felt a sense of pride." 23 times in the reads, never usable)
    for bare in ("She felt a sense of pride.", "Grandpa Walter felt a sense of relief and happiness."):
        assert slips(bare, story, idiom) == ["a bare feeling that would fit any story"]
    assert slips("She felt a sense of pride as the audience rose to its feet.", story, idiom) == []
    # a meaning word the story itself uses is the story's, not a spelt-out meaning
    told = "Nora had done no preparation; her notes scattered across the stage, so she decided to wing it."
    start = told.index("wing it")
    idiom = Expression(kind="idiom", text="wing it", start=start, end=start + len("wing it"), meaning=idiom.meaning)
    assert slips("Without any preparation, she told the story of her grandmother's farm.", told, idiom) == []
    # without a known meaning only the image words and a new simile count
    unknown = Expression(kind="idiom", text="wing it", start=start, end=start + len("wing it"))
    assert slips("She began to improvise.", told, unknown) == []
    # words about the text, not the story: the reads' "…a direct result of the idiom.", and the instructions given back
    assert slips("Her smile was a direct result of the idiom.", told, unknown) == ["talks about the text, not the story"]
    assert slips("The story ends with a simile or idiom that is figurative.", "x", None) == [
        "talks about the text, not the story"]
    assert slips("She read the next sentence of her novel aloud.", "She had written a novel. It was her narrative, "
                 "down to the next sentence.", None) == []  # the story's own words


def test_why_here_says_what_fluency_is_in_tuned_mode():
    rows = [{**_row(0.3), "fluency": -1.78}, {**_row(0.7), "fluency": -2.5}]
    notes = why_here(rows, "tuned")
    assert notes[0] == ("placed by fluency and plausibility together (fluency -1.78: the language model's mean "
                        "log-probability per token; nearer 0 reads more naturally)")


def test_a_comparison_of_degree_with_no_image_stacks_no_simile():
    """A visitor's "…putting out the fire as efficiently as possible." was placed lower as "stacks a new simile":
    "as … as possible", "as hard as she could", "as soon as" compare no image (Rule S2), nor does "as good as new"
    ("almost new")."""
    from studio.continuation.writing import slips

    story = "The alarm rang and the recruit ran into the burning house as brave as a lion."
    for line in ("The firefighters were quick to act, putting out the fire as efficiently as possible.",
                 "She worked as hard as she could to make sure everyone would be happy.",
                 "She called the fire department as soon as the alarm went off.",
                 "It's not as bad as I thought.", "He looked forward to the job as much as he dreaded it.",
                 "He ran as fast as his legs could carry him.", "She was as tall as him.",
                 "They worked as fast as humanly possible.", "By morning the car was as good as new.",
                 "The deal was as good as done."):
        assert "stacks a new simile" not in slips(line, story, None), line
    for line in ("His face was as white as a sheet.", "She ran like a deer.", "It felt like a dream.",
                 "The children were as good as gold.",
                 "He was as quiet as the grave.", "The road was as long as a river.",
                 "Her face was as white as one of those sheets."):
        assert "stacks a new simile" in slips(line, story, None), line
