"""Ironic similes read literally before the NLI (studio/figures/irony.py), the antonym table they use
(studio/figures/antonyms.py), and, on the offline profile, the issue's probe: "Her voice was very loud." →
"Her voice was as loud as a whisper." is a contradiction."""
from __future__ import annotations

import json

import pytest

from studio.figures.irony import IRONY_MARGIN, contrast_contexts, find_ironies, literal_reading, stated_reading
from studio.figures.lm_features import LMFeatures
from studio.models.roles import LanguageModel
from studio.figures.antonyms import load_antonyms
from studio.figures.components import Simile

TEXT = "Her voice was as loud as a whisper."


def _as_simile(text: str, prop: str, vehicle: str) -> Simile:
    p = text.index(f"as {prop} as")
    v = text.index(vehicle, p)
    return Simile(topic="Her voice", vehicle=vehicle, event="was", comparator="as ... as", property=prop,
                  spans={"comparator": (p, p + len(f"as {prop} as")), "property": (p + 3, p + 3 + len(prop)),
                         "vehicle": (v, v + len(vehicle))})


class Tok:
    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": list(range(len(text.split())))}


class TableLM:
    """log P(last words | context) from a table keyed by the property word before the vehicle: the stand-in knows
    that a whisper is soft and thunder loud."""

    backend = "table"
    tokenizer = Tok()
    LOGP = {("soft", "whisper"): -2.0, ("loud", "whisper"): -8.0, ("loud", "thunder"): -1.5, ("soft", "thunder"): -7.0}

    loglik_many = LanguageModel.loglik_many  # the base class's: one loglik_shared per ask

    def loglik_shared(self, context, continuations, score_last=None):
        out = []
        for cont in continuations:
            words = (context + cont).split()
            prop, vehicle = words[words.index("as") + 1], words[-1].rstrip(".")
            out.append((self.LOGP[(prop, vehicle)], 1))
        return out


def test_literal_reading_and_contrast_contexts():
    s = _as_simile(TEXT, "loud", "a whisper")
    assert literal_reading(TEXT, s, "soft") == "Her voice was very soft."
    assert contrast_contexts(TEXT, s, {"loud": ("soft",)}) == [("soft", "Her voice was as soft as")]
    assert contrast_contexts(TEXT, s, {"quiet": ("noisy",)}) == []  # no antonym known: nothing to contrast
    like = Simile("Her voice", "a whisper", "was", "like", None, {"vehicle": (19, 28)})
    assert contrast_contexts("Her voice was like a whisper.", like, {"loud": ("soft",)}) == []
    # any other "as P as V" is read as the property it states; a "like V" simile states none
    assert stated_reading(TEXT, s) == "Her voice was very loud."
    assert stated_reading("Her voice was like a whisper.", like) is None and stated_reading(TEXT, None) is None
    twice = "Her voice was twice as loud as a whisper."  # a measure, not "very loud"
    assert stated_reading(twice, _as_simile(twice, "loud", "a whisper")) is None


@pytest.mark.parametrize("text, prop, vehicle, read", [
    # a visitor's "may contradict" (51 %): the image's own words were read as the bag's
    ("The bag was as light as a soap bubble drifting over a meadow.", "light", "a soap bubble",
     "The bag was very light."),
    ("The night was as dark as the inside of a cow that nobody had fed.", "dark", "the inside of a cow",
     "The night was very dark."),
    ("His voice was as loud as thunder rolling over the hills, and everyone stopped.", "loud", "thunder",
     "His voice was very loud, and everyone stopped."),
    ("Her voice was as loud as a whisper.", "loud", "a whisper", "Her voice was very loud."),
    ("It was as hot as an oven in the kitchen.", "hot", "an oven", "It was very hot in the kitchen."),
    # a reviewer's: a hyphen inside a word, an aside in brackets, "that" as a determiner, a new clause after "and"
    ("He was as pale as a ghost wandering the well-lit halls.", "pale", "a ghost", "He was very pale."),
    ("The bag was as light as a soap bubble drifting over the meadow (really).", "light", "a soap bubble",
     "The bag was very light (really)."),
    ("He was as pale as a ghost that evening, and left.", "pale", "a ghost", "He was very pale that evening, and left."),
    ("The bag was as light as a soap bubble drifting by and I carried it home.", "light", "a soap bubble",
     "The bag was very light and I carried it home."),
])
def test_the_stated_reading_takes_the_images_own_clause(tiny_registry, text, prop, vehicle, read):
    """What follows the image straight away as a participle or a relative clause is the image's, up to its clause's
    end; a prepositional phrase may be the scene's, and stays."""
    assert stated_reading(text, _as_simile(text, prop, vehicle)) == read


def test_find_ironies_fires_only_past_the_margin():
    feats = LMFeatures(TableLM())
    whisper, thunder = TEXT, "Her voice was as loud as thunder."
    items = [(0, whisper, [_as_simile(whisper, "loud", "a whisper")]),
             (0, thunder, [_as_simile(thunder, "loud", "thunder")]), (0, "Her voice was loud.", [])]
    ironic, literal, none = find_ironies(feats, items, {"loud": ("soft",)})
    assert ironic.antonym == "soft" and ironic.margin == pytest.approx(6.0) and ironic.reading == "Her voice was very soft."
    assert literal is None and none is None
    assert find_ironies(feats, items[:1], {"loud": ("soft",)}, margin=6.5) == [None]
    assert IRONY_MARGIN > 0


def test_an_antonyms_context_is_run_only_where_the_gain_could_reach_the_margin():
    """A gain is at most −log P(V | its own sentence): with thunder's −1.5 after "as loud as" in the memo (the
    writer's fits put it there), a margin of 4 cannot be reached, so "as soft as" is never run for it; the whisper
    (−8.0) is asked, and its irony found as before. Nothing in the memo prunes nothing."""
    class Counting(TableLM):
        def __init__(self):
            self.asked = []

        def loglik_shared(self, context, continuations, score_last=None):
            self.asked += [context + c for c in continuations]
            return super().loglik_shared(context, continuations, score_last)

    whisper, thunder = TEXT, "Her voice was as loud as thunder."
    items = [(0, whisper, [_as_simile(whisper, "loud", "a whisper")]),
             (0, thunder, [_as_simile(thunder, "loud", "thunder")])]
    lm = Counting()
    feats = LMFeatures(lm)
    feats.fits(items)  # as the scorer runs the writer's fits before the irony check
    ironic, literal = find_ironies(feats, items, {"loud": ("soft",)}, margin=4.0)
    assert ironic.margin == pytest.approx(6.0) and literal is None
    assert not any("soft" in a and "thunder" in a for a in lm.asked)
    assert any("soft" in a and "whisper" in a for a in lm.asked)
    for margin in (1.0, 4.0):  # below the vehicle's own surprisal, or with no fits memoised, the context is run
        lm = Counting()
        assert find_ironies(LMFeatures(lm), items[1:], {"loud": ("soft",)}, margin=margin) == [None]
        assert any("soft" in a and "thunder" in a for a in lm.asked)


def test_build_antonyms_keeps_antonyms_that_are_kb_properties(tmp_path, monkeypatch):
    from studio.lab.similes import antonyms_build as module
    from studio.figures.kb import SimileKB

    adj = tmp_path / "data.adj"
    adj.write_text(
        "  1 this is the licence header\n"
        "00000001 00 a 01 loud 0 001 ! 00000002 a 0101 | loud\n"
        "00000002 00 a 02 soft 0 quiet 0 001 ! 00000001 a 0101 | soft\n"
        "00000003 00 a 01 quiet 0 001 ! 00000004 a 0101 | quiet\n"
        "00000004 00 a 01 unquiet 0 001 ! 00000003 a 0101 | unquiet\n")
    kb = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {"whisper": 2, "thunder": 2},
                   "pairs": {"voice\twhisper": 1, "voice\tthunder": 1},
                   "triplets": {"voice\twhisper": [["soft", 1, 0.9]], "voice\tthunder": [["loud", 1, 0.9]]},
                   "contexts": []})
    monkeypatch.setattr("studio.figures.kb.load_kb", lambda: kb)
    out = tmp_path / "antonyms.json"
    module.build(["--out", str(out), "--wordnet", str(adj), "--no-writer"])
    table = json.loads(out.read_text())["antonyms"]
    assert table == {"loud": ["soft"], "soft": ["loud"]}  # "unquiet" is no simile property: quiet has none


def test_the_writers_opposites_are_kept_only_where_confirmed(tmp_path):
    """A KB property WordNet gives no direct antonym gets the writer's opposite when the answer is a KB property
    and WordNet's satellite head or the writer's own opposite of the answer confirms it."""
    from types import SimpleNamespace

    from studio.lab.similes.antonyms_build import satellite_antonyms, writer_antonyms

    adj = tmp_path / "data.adj"  # "small" ↔ "large"; "tiny" a satellite of "small"
    adj.write_text("00000001 00 a 01 small 0 002 ! 00000002 a 0101 & 00000003 a 0000 | small\n"
                   "00000002 00 a 01 large 0 001 ! 00000001 a 0101 | large\n"
                   "00000003 00 s 01 tiny 0 001 & 00000001 a 0000 | tiny\n")
    (tmp_path / "index.adj").write_text("  1 licence\nsmall a 1 2 ! & 1 0 00000001\nlarge a 1 1 ! 1 0 00000002\n"
                                        "tiny a 1 1 & 1 0 00000003\n")
    heads = satellite_antonyms(adj)
    assert heads == {"tiny": {"large"}}
    answers = {"tiny": "large", "quick": "slow", "slow": "fast", "silent": "noisy", "noisy": "silent",
               "red": "crimson", "lazy": "lazy"}
    writer = SimpleNamespace(reply=lambda system, user, **kw: [SimpleNamespace(
        text=answers.get(user.split('"')[1], "none") + ".")])
    properties = {"tiny", "large", "quick", "slow", "fast", "silent", "noisy", "red", "lazy"}
    kept = writer_antonyms(writer, ["tiny", "quick", "silent", "red", "lazy"], properties, heads)
    # tiny: WordNet's head confirms; silent: the writer gives it back; quick: "slow" is answered "fast", and WordNet
    # was not asked about it here; red: "crimson" is no KB property; lazy: the word itself
    assert kept == {"tiny": ["large"], "silent": ["noisy"]}


def test_the_opposites_a_sentence_may_say_add_wordnets_also_see_sense_by_sense():
    """"loud" is no direct antonym of "quiet" (that is "noisy"), but WordNet lists it as "also see" of the sense of
    "noisy" that is quiet's antonym; "hard" gets "tender" from the sense of "soft" it is opposite to, not the "quiet"
    of another sense of "soft"."""
    from studio.figures.antonyms import load_opposites

    opposites, antonyms = load_opposites(), load_antonyms()
    assert "loud" in opposites["quiet"] and "quiet" in opposites["loud"] and "sad" in opposites["happy"]
    assert opposites["quiet"][:len(antonyms["quiet"])] == antonyms["quiet"]  # the antonyms first, as irony reads them
    assert "loud" not in antonyms["quiet"]  # irony's plain opposite is unchanged
    assert "tender" in opposites["hard"] and "quiet" not in opposites["hard"]
    # an also-see word counts only when the sentence says it of its subject (a reviewer's "The tough old dog …")
    from studio.figures.antonyms import load_also_see
    from studio.figures.irony import stated_opposites

    also = load_also_see()
    assert stated_opposites("The room was very loud.", "quiet", opposites, also) == ["loud"]
    assert stated_opposites("The loud room emptied.", "quiet", opposites, also) == []
    assert stated_opposites("The tough old dog slept.", "soft", opposites, also) == []
    assert stated_opposites("The hard old bed creaked.", "soft", opposites, also) == ["hard"]  # a direct antonym
    from studio.lab.similes.antonyms_build import WORDNET_ADJ, also_see_opposites

    if not WORDNET_ADJ.is_file():
        pytest.skip("WordNet (Debian wordnet-base) is needed to build the table")
    built = also_see_opposites({"quiet": ["noisy"], "hard": ["soft"], "tiny": ["big"]})
    assert "loud" in built["quiet"] and "quiet" not in built["hard"] and "tiny" not in built  # "big": no pointer


def test_committed_antonyms():
    table = load_antonyms()
    assert "soft" in table["loud"] and "slow" in table["fast"] and "light" in table["heavy"]
    # the writer's, confirmed, where WordNet has no direct antonym; marked as such in the asset
    assert table["quick"] == ("slow",) and table["silent"] == ("noisy",) and table["tiny"] == ("big",)
    from studio.figures.antonyms import ASSET

    marked = set(json.loads(ASSET.read_text(encoding="utf-8"))["from_writer"])
    assert {"quick", "silent", "tiny"} <= marked and "loud" not in marked and marked <= set(table)


@pytest.mark.offline
def test_an_ironic_simile_of_an_added_property_contradicts(offline):
    """"as quick as a snail" for "The man was quick." was an entailment (0.97, tied with the cheetah): "quick" had no
    antonym in WordNet's direct table. The writer's "slow" lets the irony check read it as "very slow"."""
    from studio.hauser.service import rerank

    ranked = rerank("The man was quick.", ["The man was as quick as a snail.",
                                           "The man was as quick as a cheetah."]).ranked()
    assert [c["candidate"] for c in ranked][-1] == "The man was as quick as a snail."
    assert ranked[-1]["contradicts"] and not ranked[0]["contradicts"]


def test_an_ironic_simile_of_the_literals_own_word_is_read_against_it():
    from studio.figures.irony import Irony, states_property

    fast = Irony("fast", "slow", 5.0, "She is very slow.")
    assert states_property("SHE IS REALLY FAST!!", fast)
    assert states_property("She is fast, they say.", fast)
    assert not states_property("She is not fast.", fast)  # a negation: the NLI decides
    assert not states_property("She won't be fast.", fast) and not states_property("She isn’t fast.", fast)
    assert not states_property("She is steadfast.", fast)  # the word, not a part of one
    assert not states_property("She is quick.", fast)  # the literal's own word only


@pytest.mark.offline
def test_a_visitors_ironic_simile_of_the_literals_word_contradicts_it(offline):
    """The served NLI calls "She is really fast." → "She is very slow." an entailment; read ironically, "as fast as a
    snail" says the opposite of the sentence's own word, so it contradicts and goes after the others."""
    from studio.hauser.scorer import evidence_text, score_group

    snail, cheetah = score_group("SHE IS REALLY FAST!!", ["She's as fast as a snail.",
                                                         "She's as fast as a cheetah."]).candidates
    assert snail.irony["states_property"] and snail.logical_consistency == 0.0 and snail.contradicts
    assert "the sentence itself says “fast”" in evidence_text(snail.to_dict())
    assert not cheetah.irony and not cheetah.contradicts and (snail.rank, cheetah.rank) == (2, 1)
    from studio.ui.rerank_tab import explain_candidate

    said = explain_candidate(snail.to_dict())
    assert "itself says “fast”, so the simile contradicts it" in said and "says what the literal sentence says" not in said


def test_the_literals_own_antonym_of_a_stated_property():
    from studio.figures.irony import stated_opposites

    table = {"noisy": ("quiet",), "light": ("heavy", "dark")}
    assert stated_opposites("The old house was very quiet at night.", "noisy", table) == ["quiet"]
    assert stated_opposites("The house was not quiet.", "noisy", table) == []  # a negation: the NLI decides
    assert stated_opposites("Quiet, then noisy.", "noisy", table) == []  # it says the property too
    assert stated_opposites("The bag was heavy and dark.", "light", table) == ["heavy", "dark"]
    assert stated_opposites("The quietness was deep.", "noisy", table) == []  # the word, not a part of one


def test_a_negated_property_decides_by_construction():
    from studio.figures.irony import Irony, negated_reading

    table = {"slow": ("fast",), "fast": ("slow",), "hot": ("cold",)}
    snail = "The river was as slow as a snail."
    s = _as_simile(snail, "slow", "a snail")
    assert negated_reading("The river was not slow.", snail, s, None, table) == ("contradicts", "not slow")
    assert negated_reading("The river wasn't very slow.", snail, s, None, table) == ("contradicts", "n't very slow")
    assert negated_reading("The river was slow.", snail, s, None, table) is None  # no negation: the NLI decides
    cheetah = "The river was as fast as a cheetah."
    c = _as_simile(cheetah, "fast", "a cheetah")
    assert negated_reading("The river was not slow.", cheetah, c, None, table) == ("agrees", "not slow")
    assert negated_reading("The river was not very slow.", cheetah, c, None, table) is None  # not very slow ≠ fast
    assert negated_reading("The river was not slowly rising.", cheetah, c, None, table) is None  # the word only
    # the negation of another clause, kept in the candidate: the NLI decides (a reviewer's)
    both = "The boat was not slow, but the river was as slow as a snail."
    assert negated_reading("The boat was not slow, but the river was sluggish.", both,
                           _as_simile(both, "slow", "a snail"), None, table) is None
    both = "The boat was not slow, but the river was as fast as a cheetah."
    assert negated_reading("The boat was not slow, but the river was sluggish.", both,
                           _as_simile(both, "fast", "a cheetah"), None, table) is None
    # an ironic simile is read as its antonym: "as fast as a snail" says slow
    ironic = "The river was as fast as a snail."
    irony = Irony("fast", "slow", 5.0, "The river was very slow.")
    assert negated_reading("The river was not slow.", ironic, _as_simile(ironic, "fast", "a snail"), irony,
                           table) == ("contradicts", "not slow")
    # a "like" simile states no property
    like = Simile(topic="The river", vehicle="a snail", event="crawled", comparator="like", property=None,
                  spans={"comparator": (18, 22), "vehicle": (23, 30)})
    assert negated_reading("The river was not slow.", "The river crawled like a snail.", like, None, table) is None


def test_a_fronted_simile_is_read_after_its_main_clause():
    """"Like ink, the night was dark." was last in every Rerank group: the writer read "ink" after the bare "Like".
    The irony check keeps `contexts`' form (its antonyms' contexts are built the same way)."""
    from studio.figures.components import extract_similes
    from studio.figures.lm_features import GENERIC_CONTEXT, contexts, fit_contexts

    def fit(text):
        return fit_contexts(text, extract_similes(text)[0])[0]

    text = "Like ink, the night was dark."
    (s,) = extract_similes(text)
    assert fit_contexts(text, s) == ("the night was dark like", GENERIC_CONTEXT, " ink")
    assert contexts(text, s)[0] == "Like"  # the irony check's form
    assert fit("As cold as ice, the wind blew.") == "the wind blew as cold as"
    assert fit("Like ink, the night was dark, and the wind howled.") == "the night was dark like"  # its clause
    assert fit("Like a ghost, iPhone users drifted.") == "iPhone users drifted like"
    assert fit("The night was dark like ink.") == "The night was dark like"
    assert fit("Like ink spilled across the sky, the night was dark.") == "Like"  # no comma after the image
    assert fit("“Like ink,” she said, “the night was dark.”") == "“Like"  # quoted speech: as written


@pytest.mark.offline
def test_rerank_reads_a_negated_literal(offline):
    """A visitor's "The river was not slow.": the NLI called "…as slow as a snail" what the sentence says and "…as
    fast as a cheetah" a contradiction (87 %)."""
    from studio.hauser.scorer import evidence_text, score_group
    from studio.ui.rerank_tab import explain_candidate

    snail, cheetah = score_group("The river was not slow.", ["The river was as slow as a snail.",
                                                             "The river was as fast as a cheetah."]).candidates
    assert snail.negated == {"verdict": "contradicts", "said": "not slow"} and snail.contradicts
    assert snail.logical_consistency == 0.0 and cheetah.logical_consistency == 1.0 and not cheetah.contradicts
    assert (cheetah.rank, snail.rank) == (1, 2)
    assert "itself says “not slow”, so the simile contradicts it" in evidence_text(snail.to_dict())
    said = explain_candidate(cheetah.to_dict())
    assert "itself says “not slow”" in said and "agrees" in said and "contradict" not in said


@pytest.mark.offline
def test_a_sincere_simile_of_the_literals_antonym_contradicts_it(offline):
    """A visitor's Rerank put "…as noisy as a rock concert…" first for "…was very quiet at night." (the NLI reads
    "very noisy" against "very quiet" as an entailment); a rock concert is no likelier after "quiet" for either LM, so
    the simile says the literal's opposite. FLUTE's ironic "as sweet as a lemon" (an entailment of "…was sour", which
    the irony margins miss) is no such contradiction: a lemon is likelier after "sour"."""
    from studio.hauser.scorer import evidence_text, score_group
    from studio.ui.rerank_tab import explain_candidate

    concert, mouse = score_group("The old house was very quiet at night.", [
        "The old house was as noisy as a rock concert at night.",
        "The old house was as quiet as a mouse at night."]).candidates
    assert concert.opposite == "quiet" and concert.contradicts and concert.logical_consistency == 0.0
    assert not mouse.opposite and not mouse.contradicts and (mouse.rank, concert.rank) == (1, 2)
    assert "the sentence itself says “quiet”, the opposite" in evidence_text(concert.to_dict())
    assert "itself says “quiet”, the opposite of the simile's property" in explain_candidate(concert.to_dict())
    (lemon,) = score_group("The watermelon was sour", ["The watermelon was as sweet as a lemon"]).candidates
    assert not lemon.opposite
    (negated,) = score_group("The old house was very quiet at night.",  # agrees with the literal
                             ["The old house wasn't as noisy as a rock concert at night."]).candidates
    assert not negated.opposite and not negated.contradicts
    # a visitor's "as quiet as a mouse" for "very loud" (the NLI: 86 % contradiction, under the gate): "loud" is no
    # direct antonym of "quiet", but WordNet's "also see" of its antonym "noisy"
    mouse, concert = score_group("The room was very loud.", ["The room was as quiet as a mouse.",
                                                             "The room was as loud as a rock concert."]).candidates
    assert mouse.opposite == "loud" and mouse.contradicts and not concert.contradicts
    assert (concert.rank, mouse.rank) == (1, 2)


@pytest.mark.offline
def test_the_writer_reads_an_irony_the_small_lm_misses(offline):
    """A visitor's "Her smile was as warm as an iceberg." after "Her smile was warm.": the small LM's margin stays under
    4 nats, the writer finds an iceberg 5.5 nats likelier after "as cool as" (its margin: 3.5), so the simile is read
    "very cool" and, the literal saying "warm", contradicts it; the sun stays consistent."""
    from studio.figures.irony import WRITER_IRONY_MARGIN
    from studio.hauser.scorer import score_group

    sun, iceberg = score_group("Her smile was warm.", ["Her smile was as warm as the sun.",
                                                       "Her smile was as warm as an iceberg."]).candidates
    assert iceberg.irony["reading"] == "Her smile was very cool." and iceberg.irony["margin"] >= WRITER_IRONY_MARGIN + 1
    assert iceberg.contradicts and iceberg.irony["states_property"] and not sun.irony and not sun.contradicts


@pytest.mark.offline
def test_the_issue_probe_is_a_contradiction(offline):
    from studio.hauser.scorer import Settings, evidence_text, score_group

    group = score_group("Her voice was very loud.", [TEXT, "Her voice was as loud as thunder."])
    whisper, thunder = group.candidates
    assert whisper.nli["verdict"] == "contradiction" and whisper.irony["reading"] == "Her voice was very soft."
    assert "Her voice was very soft." in evidence_text(whisper.to_dict())
    assert thunder.nli["verdict"] != "contradiction" and not thunder.irony
    assert whisper.logical_consistency < thunder.logical_consistency
    off = score_group("Her voice was very loud.", [TEXT], Settings(irony=False)).candidates[0]
    assert not off.irony and group.settings["irony"] is True
    # not ironic: read as the property it states, so a vehicle alone cannot make the NLI call it a contradiction
    assert thunder.nli_read == "Her voice was very loud." and "very loud" in evidence_text(thunder.to_dict())
    bitter = score_group("The coffee was bitter.", ["The coffee was as bitter as regret.",
                                                     "The coffee was as bitter as medicine."]).candidates
    assert all(c.nli["verdict"] == "entailment" and not c.contradicts for c in bitter)
    # so sure a contradiction goes after the candidate that is not one, in the combined rank and on the page
    assert whisper.contradicts and not thunder.contradicts and (whisper.rank, thunder.rank) == (2, 1)
    from studio.ui.rerank_tab import explain_candidate, screen_table

    assert "ranked after every candidate" in explain_candidate(whisper.to_dict())
    from studio.hauser.service import _result

    shown = _result(group)  # what the tab shows of this group
    assert list(screen_table(shown.rows)["flag"]) == ["", "contradicts"] and shown.rows[1]["contradicts"] is True


@pytest.mark.offline
def test_a_tag_around_the_vehicle_is_read_as_blanks(offline):
    """A visitor's "The man was as strong as a <b>bear</b>." was read as ironic ("very weak</b>") and flagged as a
    contradiction: every model now reads a typed tag as blanks, so it scores as the plain sentence does."""
    from studio.hauser.scorer import score_group

    tagged, plain = score_group("The man was very strong.", ["The man was as strong as a <b>bear</b>.",
                                                             "The man was as strong as a bear."]).candidates
    assert not tagged.irony and not tagged.contradicts and tagged.candidate.endswith("<b>bear</b>.")
    assert tagged.similes[0]["vehicle"] == "a bear"  # the blanked tag's spaces closed up
    for part in ("relevance", "logical_consistency", "sentiment_consistency", "creativity", "informativeness"):
        assert getattr(tagged, part) == pytest.approx(getattr(plain, part), abs=1e-6), part
    assert "<" not in tagged.nli_read
    assert tagged.nli_read.replace(" .", ".") == plain.nli_read == "The man was very strong."


def test_a_like_simile_in_the_place_of_the_literals_adverb():
    from studio.figures.components import extract_similes
    from studio.figures.manner import manner_adjective, stand_in

    table = {"slow": ("fast",), "loud": ("soft",)}
    literal = "The old man walked very slowly to the door."

    def found(candidate):
        return stand_in(literal, candidate, extract_similes(candidate)[0], table)

    snail = found("The old man walked like a snail to the door.")
    assert (snail.adverb, snail.adjective) == ("very slowly", "slow")
    assert snail.reading == "The old man walked very slowly to the door."
    assert found("The old man walked very slowly like a snail to the door.") is None  # the adverb kept
    assert found("The old man crept like a snail to the door.") is None  # another word changed too
    # words about the image after it go with the simile (a visitor's tortoise "carrying its house on its back" was
    # read as a sentence that lost its adverb, and flagged); a clause of its own does not
    shell = found("The old man walked like a snail with its shell on its back to the door.")
    assert shell.reading == "The old man walked very slowly to the door."
    assert found("The old man walked like a snail, with its shell on its back, to the door.").reading == \
        "The old man walked very slowly to the door."  # the describing words' commas go with them
    for other in ("The old man walked like a snail and fell to the door.",  # a clause of its own
                  "The old man walked like a snail with a cane and fell to the door.",
                  "The old man walked like a snail. He was fast to the door.",  # another sentence
                  "The old man walked like a tortoise (carrying its house) to the door."):
        assert found(other) is None, other

    def uphill(literal, candidate):
        return stand_in(literal, candidate, extract_similes(candidate)[0], table)

    tortoise = uphill("The old man walked slowly up the hill.",
                      "The old man walked up the hill like a tortoise carrying its house on its back.")
    assert (tortoise.adverb, tortoise.reading) == ("slowly", "The old man walked up the hill slowly.")
    fronted = uphill("Slowly, the old man walked up the hill.", "The old man walked up the hill like a tortoise.")
    assert fronted.reading == "The old man walked up the hill slowly."  # no capital inside the sentence
    assert found("The old man walked as slow as a snail to the door.") is None  # not a "like" simile
    assert stand_in("He snored loudly.", "He snored like a train.", extract_similes("He snored like a train.")[0],
                    table).adjective == "loud"
    assert manner_adjective("It was completely still.", table) is None  # how much, not how


@pytest.mark.offline
def test_rerank_reads_a_like_simile_in_the_adverbs_place_as_the_adverb(offline):
    """A visitor's Rerank flagged "walked like a snail" and "like a tortoise" as contradicting "walked very slowly"
    (the NLI: 0.99, as for "like a cheetah"): the simile stands for the adverb. It is read as the adverb when its
    image suits it for both models, as a contradiction when the irony check finds it suits the opposite ("a rocket":
    the writer, 5.3 nats likelier after "fast") or when the simile KB knows it for the opposite though the models are
    unsure ("a cheetah", a visitor's winner; docs/experiments.md#hauser-stand-in-kb), and as written, unflagged, when
    the models are unsure and the KB does not know it so ("a horse")."""
    from studio.hauser.scorer import evidence_text, score_group
    from studio.ui.rerank_tab import explain_candidate

    literal = "The old man walked very slowly to the door."
    snail, tortoise, rocket, cheetah, horse = score_group(literal, [
        literal.replace("very slowly", f"like a {v}") for v in ("snail", "tortoise", "rocket", "cheetah", "horse")
    ]).candidates
    assert not snail.contradicts and not tortoise.contradicts and snail.stand_in["adverb"] == "very slowly"
    assert snail.logical_consistency > 0.5 and not snail.stand_in.get("unsure")
    assert rocket.contradicts and rocket.stand_in["antonym"] == "fast" and rocket.rank >= 4
    assert cheetah.contradicts and cheetah.stand_in["by"] == "kb" and cheetah.stand_in["antonym"] == "fast"
    assert cheetah.rank >= 4 and cheetah.logical_consistency == 0
    assert "similes call its image “fast”, the opposite of “slow”" in explain_candidate(cheetah.to_dict())
    assert "the simile KB knows the vehicle as “fast”" in evidence_text(cheetah.to_dict())
    # the models unsure, the KB silent: read as written, its doubt shown, not ranked last
    assert horse.stand_in.get("unsure") and horse.logical_consistency < 0.5 and not horse.contradicts
    assert horse.rank > max(snail.rank, tortoise.rank)
    assert "cannot tell whether its image suits “slow”" in explain_candidate(horse.to_dict())
    assert "takes the place of “very slowly”, and its image suits that" in explain_candidate(snail.to_dict())
    assert "stands for “very slowly”, but the LM finds the vehicle likelier after “fast”" in evidence_text(
        rocket.to_dict())
