"""The spelling notice (studio/figures/english.py `misspellings`, the `spelling` role): likely typos are named with a
correction, clean English, names, acronyms, British spellings and contractions are not; Polish carries the notice
in its result, its command line and its tab's status line, and polishes the sentence as typed."""
from __future__ import annotations

import pytest

from studio.figures.english import corrected, misspellings, spelling_note
from studio.models import UNAVAILABLE, ModelUnavailable, Registry, Settings


def _found(text: str) -> list[tuple[str, str]]:
    return [(m.word, m.suggestion) for m in misspellings(text)]


def test_typos_are_named_with_their_correction():
    assert _found("Her voice was verry sofft.") == [("verry", "very"), ("sofft", "soft")]
    assert _found("It was reeeally cold and it wasnt fair.") == [("reeeally", "really"), ("wasnt", "wasn't")]
    assert _found("SHE IS REALLY FSAT!!") == [("FSAT", "fast")]  # a shouted sentence is read in lower case
    # a typo rarely hits the first letter: a visitor's "wather" was offered "father" (the most frequent of "father",
    # "rather", "water", "weather" one edit away); a first word's swapped letters may ("Hte" → "The")
    assert _found("The wather was cold.") == [("wather", "water")]
    assert _found("He sent it to the wrong adress.") == [("adress", "address")]
    assert _found("Hte dog barked.") == [("Hte", "The")]
    assert _found("I saw hte dog, and he came nad went.") == [("hte", "the"), ("nad", "and")]  # letters swapped
    assert _found("The waiter at the seaside cafe seemed grumpy.") == []  # "café" without its accent, not "came"


@pytest.mark.parametrize("text", [
    "The old man walked very slowly down the street.",
    "Priya and Dr Okafor met NASA engineers at the café.",  # names, an acronym, a loanword
    "The harbour smelled of colour; she realised the draught was travelling through the catalogue.",  # British
    "She won't go, and the sofa's cushions were lumpy.",  # contractions, a possessive, a plural
    "I took a selfie with my smartphone.",  # unknown, but no close correction: left alone
])
def test_clean_english_is_left_alone(text):
    assert misspellings(text) == []


def test_the_note_offers_the_corrected_sentence_and_quotes_as_asked():
    found = misspellings("Verry well: her voice was verry sofft.")
    assert corrected("Verry well: her voice was verry sofft.", found) == "Verry well: her voice was very soft."
    shout = misspellings("HER VOICE WAS VERRY SOFFT.")
    assert corrected("HER VOICE WAS VERRY SOFFT.", shout) == "HER VOICE WAS VERY SOFT."
    note = spelling_note("Her voice was verry sofft.", misspellings("Her voice was verry sofft."),
                         quote=lambda text: f"<{text}>")
    assert note.startswith("Check the spelling: <verry> (very?), <sofft> (soft?); did you mean "
                           "<Her voice was very soft.>?")
    assert spelling_note("Fine.", []) == ""


def test_polish_notices_typos_and_polishes_the_sentence_as_typed(capsys):
    from studio.cli import main
    from studio.similes.service import polish
    from studio.ui.polish_tab import _status

    result = polish("Her voice was verry sofft.", n=3, strategies=["insertion"], seed=0)
    assert [m.to_dict() for m in result.spelling] == [{"word": "verry", "suggestion": "very"},
                                                      {"word": "sofft", "suggestion": "soft"}]
    assert result.to_dict()["spelling"][1] == {"word": "sofft", "suggestion": "soft"}
    assert all("verry sofft" in c.sentence for c in result.candidates)  # nothing typed is changed
    assert _status(result, True, ["insertion"]).startswith("✏️ Check the spelling: “verry” (very?)")
    assert "spelling" not in polish("Her voice was very soft.", n=3, strategies=["insertion"]).to_dict()
    assert main(["polish", "Her voice was verry sofft.", "--n", "2", "--strategies", "insertion"]) == 0
    assert "note: Check the spelling: “verry” (very?), “sofft” (soft?); did you mean “Her voice was very soft.”?" \
        in capsys.readouterr().out


def test_a_sentence_with_no_place_but_for_its_typos_is_refused_with_the_corrected_one_offered():
    """A visitor's "The nigth was vry drak." was refused as having no place for a simile, with no word of its typos:
    the parser reads "drak" as no adjective. The refusal names them and the sentence to polish, and the tab's button
    after a refusal offers it; a sentence in another language gets no offer."""
    from studio.errors import InputError
    from studio.similes.service import polish, respelled_with_place
    from studio.ui.polish_tab import refusal_offer

    with pytest.raises(InputError, match="may hold typos \\(“nigth” → “night”.*polish “The night was very dark.” "
                                         "instead"):
        polish("The nigth was vry drak.", n=2, strategies=["insertion"], seed=0)
    assert respelled_with_place("The nigth was vry drak.") == "The night was very dark."
    button, offered = refusal_offer("The nigth was vry drak.")
    assert offered == "The night was very dark." and button.visible
    # refused for a comparison it holds, it would be refused again corrected: no offer of it
    assert respelled_with_place("My sistr is as tall as my brothr.") is None
    # typos that hide a simile: every one named, and the offer is the corrected sentence without the simile
    with pytest.raises(InputError, match="“drak” → “dark”, “lik” → “like”\\): polish “The night was very dark.” "):
        polish("The nigth was vry drak lik coal.", n=2, strategies=["insertion"], seed=0)
    assert respelled_with_place("El perry era my rápido.") is None and respelled_with_place("The night was dark.") \
        is None


def test_after_a_run_the_corrected_sentence_is_offered_without_the_simile_its_typos_hid():
    """"He ran fsat lik the wind." runs (as typed it holds no simile); the button then offered "He ran fast like the
    wind.", which Polish refuses for its simile: the offer is the corrected sentence without it."""
    from studio.similes.service import offered, polish
    from studio.ui.polish_tab import polish_offer

    polish("He ran fsat lik the wind.", n=2, strategies=["insertion"], seed=0)  # runs
    assert offered("He ran fsat lik the wind.") == "He ran fast."
    assert polish_offer("He ran fsat lik the wind.")[1] == "He ran fast."
    assert offered("The wather was cold.") == "The water was cold."  # no simile in it: the corrected sentence
    polish("Her eyes were lik stars.", n=2, strategies=["insertion"], seed=0)  # runs as typed
    assert offered("Her eyes were lik stars.") is None  # corrected, refused, and no cut of it is offered
    assert offered("The sky was as blue as the sea.") == "The sky was blue."


def test_the_tab_escapes_what_was_typed():
    from studio.similes.polish import PolishResult
    from studio.figures.english import Misspelling
    from studio.ui.polish_tab import _status

    typed = "<b>verry</b> *sofft*"
    result = PolishResult(typed, [], 3, 0, {}, 0, 0, 0, 0, 0, "", "score", "", None, "", False,
                          spelling=(Misspelling("verry", "very"), Misspelling("sofft", "soft")))
    status = _status(result, False, [])
    assert "<b>" not in status and r"\*" in status


def test_the_spelling_role_refuses_an_override_that_is_no_word_list(monkeypatch, tmp_path):
    assert Registry(Settings.from_env("tiny")).get("spelling").known("simile")
    monkeypatch.setenv("STUDIO_MODEL_SPELLING", str(tmp_path))  # a folder
    with pytest.raises(ModelUnavailable) as err:
        Registry(Settings.from_env("tiny")).get("spelling")
    assert err.value.state == UNAVAILABLE and "no word frequency file" in err.value.reason


def test_keyboard_mashing_is_refused_and_names_are_not():
    from studio.errors import InputError
    from studio.figures.english import refuse_non_english

    with pytest.raises(InputError, match=r"no word an English dictionary knows \(“asdf”, “qwer”, “zxcv”\)"):
        refuse_non_english("asdf qwer zxcv")
    for text in ("Zorblax yelps.", "Rio de Janeiro sparkled.", "ok", "hmm mmm", "The harbour was grey."):
        refuse_non_english(text)  # a known word, names, or a single word: not refused
    refuse_non_english("asdf qwer zxcv", identifier=False)  # the function words alone do not decide it
    # a visitor's "asdf qwerty zxcv" went to Proverbs: "qwerty" is in the dictionary, but most of it is no word
    with pytest.raises(InputError, match=r"mostly keys typed in a row \(“asdf”, “zxcv”\)"):
        refuse_non_english("asdf qwerty zxcv", "narrative")
    # words the dictionary lacks are no keyboard runs, and a capitalised function word is English (a reviewer's)
    for text in ("the slithy toves did gyre", "smartphone apps crashed", "The barista upsold frappuccinos.",
                 "dfg was here"):
        refuse_non_english(text)


def test_a_sentences_first_word_with_two_letters_swapped(offline):
    """A visitor's "Teh night was vrey dark." had "vrey" named but not "Teh": a sentence's first word is left alone (a
    name may stand there), unless it is an English function word with two letters swapped."""
    from studio.figures.english import misspellings

    found = {m.word: m.suggestion for m in misspellings("Teh night was vrey dark. Tehy left. Hsi dog stayed.")}
    assert found == {"Teh": "The", "vrey": "very", "Tehy": "They", "Hsi": "His"}
    assert misspellings("Theo walked home. Arn is here. Bot ran.") == []  # names one edit from "the", "are", "not"
    for text in ("<b>Teh</b> night was dark.", " Teh night was dark.", "“Teh night was dark,” she said.",
                 "It rained. “Teh night was dark.”"):
        assert [m.suggestion for m in misspellings(text)] == ["The"], text
    assert misspellings("He said Teh was a name.") == []  # not a sentence's first word


def test_the_tab_offers_to_polish_the_corrected_sentence():
    from studio.similes.service import respelled
    from studio.ui.polish_tab import OFFER_SHOWN, polish_offer, take_offer

    assert respelled("Her voice was verry sofft.") == "Her voice was very soft."
    assert respelled("Her voice was very soft.") is None
    button, text = polish_offer("Her voice was verry sofft.")
    assert button.visible and button.value == "Polish “Her voice was very soft.” instead"
    assert text == "Her voice was very soft."  # the whole sentence goes into the box, whatever the label shows
    assert polish_offer("Her voice was very soft.")[0].visible is False
    assert polish_offer("")[1] == "" and polish_offer(None)[0].visible is False
    long = "Her voice was verry sofft " + "and the night was long " * 6 + "."
    button, text = polish_offer(long)
    assert len(button.value) <= OFFER_SHOWN + len("Polish “” instead") and button.value.endswith("…” instead")
    assert text.startswith("Her voice was very soft and") and text.endswith("long .")
    # a click puts the offer in the box; a page from a shared link has the button but not the sentence: the box's
    assert take_offer("Her voice was very soft.", "Her voice was verry sofft.")[0] == "Her voice was very soft."
    assert take_offer("", "Her voice was verry sofft.")[0] == "Her voice was very soft."
    assert take_offer("", "Her voice was very soft.")[0] == "Her voice was very soft."
    # a sentence that already holds a simile: the offer is the sentence without it (typos are offered first)
    button, text = polish_offer("The sky was as blue as the sea.")
    assert button.visible and button.value == "Polish “The sky was blue.” instead" and text == "The sky was blue."
    # corrected, it would be refused for its simile: corrected and without it
    assert polish_offer("The sky was as bleu as the sea.")[1] == "The sky was blue."
    assert take_offer("", "Her eyes were as blue as the sea.")[0] == "Her eyes were blue."
    assert polish_offer("It looks like rain.")[0].visible is False  # "It looks." would say nothing
    # after a refusal only the sentence without its simile is offered: a sentence refused as Spanish got a
    # "correction" of its Spanish words (a visitor's "El perry era my rápido.")
    from studio.ui.polish_tab import refusal_offer

    assert refusal_offer("El perro era muy rápido.")[0].visible is False
    assert refusal_offer("Her eyes were as blue as the sea.")[1] == "Her eyes were blue."


def test_a_storys_typos_are_named_in_continue_and_proverbs():
    """A visitor's "Jon forgott his wifes birtday …" got no word of its typos outside Polish: Continue's notes and
    Proverbs' line name them, without quoting the whole story corrected."""
    from studio.continuation.service import Settings, continue_narrative
    from studio.proverbs.service import spelling_notice

    story = "Jon forgott his wife's birthday, and now he is really [in the dog house]."
    notes = continue_narrative(story, Settings(mode="plain", n=1, seed=0, max_new_tokens=4)).notes
    typo = [n for n in notes if n.startswith("Check the spelling")]
    assert typo == ["Check the spelling: “forgott” (forgot?). The models read the story as typed, so a typo changes "
                    "what they find."]
    assert spelling_notice("Sam lyed to his boss about being sick, and he got caught.").startswith(
        "Check the spelling: “lyed”")
    assert spelling_notice("Sam lied to his boss about being sick, and he got caught.") == ""
    clean = continue_narrative("Jon forgot his wife's birthday, and now he is [in the dog house].",
                               Settings(mode="plain", n=1, seed=0, max_new_tokens=4)).notes
    assert not any(n.startswith("Check the spelling") for n in clean)


def test_a_typo_with_several_words_one_edit_away_is_read_in_its_sentence(offline):
    """A visitor's "sik" was offered "sit" and "tird" "third" wherever they stood (the most frequent word one edit
    away): the `lm` reads each candidate in the typo's sentence, the sentence's other typos read as corrected
    ("He ran fsat lik the wind.": "feat" read best beside the typo "lik")."""
    cases = {"I feel sik today.": {"sik": "sick"},
             "She came tird in the race.": {"tird": "third"},
             "I am so tird, I could sleep for a week.": {"tird": "tired"},
             "He ran fsat lik the wind.": {"fsat": "fast", "lik": "like"},
             "The nigth was vry drak.": {"nigth": "night", "vry": "very", "drak": "dark"},
             "THE NIGTH WAS DRAK.": {"NIGTH": "night", "DRAK": "dark"}}  # shouted: read in lower case
    for text, expected in cases.items():
        assert dict(_found(text)) == expected, text


def test_the_reading_in_context_is_the_typos_neighbours_with_the_other_typos_corrected(monkeypatch):
    """What the `lm` is asked, in one call for every typo with a choice: each candidate in the typo's place after the
    last words before it (across a sentence's end) and followed by the next words, the text's other typos written as
    their most frequent word and a blanked tag's spaces as one; its order decides. The tiny profile's random LM is
    never asked (the frequency order stands), and an LM that fails leaves the frequency order (a notice is never a
    refusal)."""
    import studio.models as models
    from studio.figures import english

    real = models.get_registry()
    asked = []

    class LM:
        fail = False

        def loglik_many(self, asks):
            if self.fail:
                raise RuntimeError("llama.cpp could not decode")
            asked.extend(asks)
            return [[(-1.0 if c.startswith(" sick") else -5.0, 1) for c in conts] for _, conts, _ in asks]

    lm = LM()

    class Registry:
        profile = "offline"

        def get(self, role):
            return lm if role == "lm" else real.get(role)

    text = "It rained. She was sik of <b>teh</b> rain! Then it stopped and we went home."
    assert _found(text)[0] == ("sik", "sit")  # tiny: frequency
    assert asked == []
    monkeypatch.setattr(models, "get_registry", lambda: Registry())
    assert _found(text)[0] == ("sik", "sick")
    context, continuations, _ = asked[0]
    assert context == "It rained. She was"
    assert " sick of the rain! Then" in continuations and " sit of the rain! Then" in continuations
    assert len(continuations) <= english.CONTEXT_CANDIDATES
    lm.fail = True
    assert _found(text)[0] == ("sik", "sit")
