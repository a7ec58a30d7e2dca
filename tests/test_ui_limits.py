"""Limited text boxes: the count under a box and the refusal use the very check the API uses."""
from __future__ import annotations

import pytest

from studio.errors import InputError, check_length, require_text
from studio.ui.common import after_limit_check, char_count, refuse_over_limit


def test_count_says_when_over():
    assert char_count("a" * 400, 400) == "400 / 400 characters"
    assert char_count(" \u200b" + "a" * 412 + " ", 400).startswith("**⚠️ 412 / 400 characters — over the limit")
    assert char_count(None, 4000) == "0 / 4,000 characters"


def test_refusal_names_the_limit_and_matches_the_api():
    text = "x" * 4_500
    with pytest.raises(InputError) as page:
        refuse_over_limit((text, "narrative", 4_000))
    with pytest.raises(InputError) as api:
        require_text(text, "narrative", 4_000)
    assert str(page.value) == str(api.value)
    assert "4,500 characters long; the limit is 4,000" in str(page.value)
    refuse_over_limit(("x" * 4_000, "narrative", 4_000), (None, "other", 1))  # at the limit: accepted
    check_length("x" * 10 + "   ", "text", 10)


def test_limit_check_runs_first_and_refuses():
    import gradio as gr

    with gr.Blocks() as demo:
        box, other, out = gr.Textbox(), gr.Textbox(), gr.Textbox()
        button = gr.Button()
        after_limit_check(button.click, (box, "narrative", 10), (other, "option", 3)).success(
            lambda a, b: a + b, inputs=[box, other], outputs=out, api_name="joined")
    check = next(f for f in demo.fns.values() if f.name == "check_limits")
    assert check.outputs == [] and check.concurrency_limit is None  # quick, never waits for a slot
    check.fn("x" * 10, "abc")  # at the limits: passes
    with pytest.raises(gr.Error, match="4 characters long; the limit is 3"):
        check.fn("x" * 10, "abcd")
    assert "/joined" in demo.get_api_info()["named_endpoints"]  # the API calls the handler itself


def test_markdown_escape_keeps_apostrophes_readable_and_html_inert():
    """A candidate like "…as loud as a lion's roar." reads as typed in the Rerank evidence (an entity's "#" was
    escaped once, showing "&#x27;"), while tags and Markdown marks stay inert text."""
    from studio.ui.common import escape_markdown

    assert escape_markdown("a lion's roar") == "a lion's roar"
    assert escape_markdown('<b>"x"</b> [a](b) *c*') == '&lt;b&gt;"x"&lt;/b&gt; \\[a\\]\\(b\\) \\*c\\*'
    assert "&#" not in escape_markdown("it's & <it's>")


@pytest.mark.parametrize("what,empty,long", [
    ("option 1", "Please enter option 1: it is empty.", "Option 1 is 6 characters long"),
    ("option", "Please enter an option: it is empty.", "The option is 6 characters long"),
    ("narrative", "Please enter a narrative: it is empty.", "The narrative is 6 characters long"),
    ("candidate 3", "Please enter candidate 3: it is empty.", "Candidate 3 is 6 characters long")])
def test_refusals_name_the_input_in_english(what, empty, long):
    with pytest.raises(InputError, match=f"^{empty}$"):
        require_text("  ", what)
    with pytest.raises(InputError, match=f"^{long};"):
        require_text("abcdef", what, max_chars=5)
    with pytest.raises(InputError, match=f"^{empty[:-len(': it is empty.')]}\\.$"):
        require_text(None, what)


def test_handlers_that_change_nothing_give_the_value_back():
    """KEEP_VALUE (studio/ui/common.py): a bare gr.update() would make Gradio rebuild the component from its
    constructor, and a shared link would then open without the value (a Proverbs status line after Find similar)."""
    from types import SimpleNamespace

    from studio.ui.common import REFUSAL_MARK, past_refusal, stopped_line
    from studio.ui.polish_tab import candidate_selected

    line = "Scoring: plain sentence similarity ranked the whole catalog."
    assert past_refusal(line) == line
    assert past_refusal(f"{REFUSAL_MARK} The narrative is too long.") == ""
    assert stopped_line("nothing")(line) == line
    assert stopped_line("no candidates.")("*Polishing…*").startswith("⚠️ Stopped")
    assert candidate_selected(["a", "b"], "typed", SimpleNamespace(index=None)) == "typed"
    assert candidate_selected(["a", "b"], "typed", SimpleNamespace(index=[1, 0])) == "b"
    assert candidate_selected(["a", "b"], "typed", SimpleNamespace(index=[5, 0])) == "typed"


def test_rerank_scores_the_whole_csv_only_while_the_boxes_hold_one_of_its_groups():
    """`csv_group_in_boxes`: the group the boxes hold unchanged (candidates in any order, blank lines and edge spaces
    aside), else None, and None when no file was loaded."""
    from studio.ui.rerank_tab import csv_group_in_boxes

    loaded = [("He is fast.", ["He is as fast as a cheetah.", "He is fast like wind."]),
              ("The lake was calm.", ["The lake was calm like a mirror."])]
    assert csv_group_in_boxes("The lake was calm.", "The lake was calm like a mirror.", loaded) == 1
    assert csv_group_in_boxes(" He is fast. ", "He is fast like wind.\n\n He is as fast as a cheetah.", loaded) == 0
    assert csv_group_in_boxes("He is fast.", "He is fast like wind.", loaded) is None  # a candidate removed
    assert csv_group_in_boxes("He is quick.", "He is fast like wind.\nHe is as fast as a cheetah.", loaded) is None
    assert csv_group_in_boxes("He is fast.", "He is fast like wind.", []) is None


@pytest.mark.parametrize("text,message", [("Der Fluss war sehr langsam und die Katze ist schwarz.", "reads as German"),
                                          ("הנהר היה איטי מאוד.", "mostly in Hebrew letters"),
                                          ("😀😀🔥", "has no words")])
def test_every_front_door_refuses_what_is_not_english(text, message):
    """Polish's refusal of another language (tests/test_similes_polish.py), at the other front doors too, before
    any model is asked."""
    from studio.continuation.generate import continue_narrative
    from studio.continuation.judge import judge_pair
    from studio.errors import InputError
    from studio.hauser.scorer import check_group
    from studio.proverbs.service import clean_narrative
    from studio.similes.analysis import analyse

    english = "He had worked all night, and in the morning he was as tired as a dog."
    for call in (lambda: clean_narrative(text), lambda: continue_narrative(text), lambda: analyse(text),
                 lambda: check_group(text, ["He is as fast as a cheetah."]),
                 lambda: check_group(english, ["He is as fast as a cheetah.", text]),
                 lambda: judge_pair(text, "He slept.", "He ran."),
                 lambda: judge_pair(english, text, "He slept.", names=("continuation 1", "continuation 2"))):
        with pytest.raises(InputError, match=message):
            call()
    with pytest.raises(InputError, match="^Continuation 1 has no words|continuation 1 "):
        judge_pair(english, text, "He slept.", names=("continuation 1", "continuation 2"))
    with pytest.raises(InputError, match="^Candidate 2 has no words|candidate 2 "):
        check_group(english, ["He is as fast as a cheetah.", text])


def test_a_toast_shows_quoted_markup_as_text():
    """gradio renders a toast's message as HTML; a refusal quoting the input reaches it escaped
    (tests/robustness/test_browser_xss.py checks the page)."""
    import gradio as gr

    from studio.ui.common import guarded

    @guarded
    def refuse(text):
        raise InputError(f"The literal sentence “{text}” reads as German.")

    with pytest.raises(gr.Error) as refused:
        refuse("Der <b>Hund</b>")
    assert "&lt;b&gt;Hund&lt;/b&gt;" in refused.value.message and "<b>" not in refused.value.message
    assert refused.value.duration == 5  # the status line keeps it: quick refusals no longer pile up for 10 s


def test_a_row_clicked_in_a_table_restored_from_a_link_gives_its_own_sentence():
    """A visitor's shared Polish link: the table came back without the candidates' plain texts, and a click on a row
    showed the components of the box's default sentence. The cell is read back (`unescape_markdown`)."""
    from types import SimpleNamespace

    from studio.ui.common import escape_markdown, unescape_markdown
    from studio.ui.polish_tab import _highlight, candidate_selected

    for sentence in ("He ran like a deer.", "Tom's *cat* [x](http://a.b) ran: 5 # 1 - <b>x</b> & y@z.c \\ done."):
        assert unescape_markdown(escape_markdown(sentence)) == sentence
        cell = _highlight(sentence, 4, sentence[4:9])
        assert candidate_selected([], "default", SimpleNamespace(index=[0, 0], row_value=[cell, "lm", 0.3])) \
            == sentence
    assert candidate_selected([], "default", SimpleNamespace(index=[0, 0], row_value=None)) == "default"
    assert candidate_selected([], "default", SimpleNamespace(index=[0, 0])) == "default"


def test_the_components_verdict_says_in_words_whether_the_detector_takes_a_simile():
    from studio.ui.polish_tab import components_verdict

    found = {"sentence": "x", "similes": [{"vehicle": "rain"}]}
    assert components_verdict({**found, "is_simile": True, "detector": {"p_simile": 0.9, "threshold": 0.5}}) \
        .startswith("**A simile**")
    no = components_verdict({**found, "is_simile": False, "detector": {"p_simile": 0.155, "threshold": 0.5}})
    assert no.startswith("**Not a simile, by the detector** (probability 0.155, under its 0.500)")
    assert components_verdict({"sentence": "Hi.", "similes": [], "is_simile": False, "detector": {"p_simile": None}}) \
        .startswith("**No comparison found**")
    assert components_verdict(None) == ""  # a refusal or a run under way empties the JSON, and the line with it
    # a visitor read "no *like*" under "He drove like the devil was chasing him.", and 0.900 for every "as … as"
    clause = components_verdict({"sentence": "He drove like the devil was chasing him.", "similes": [],
                                 "is_simile": False, "detector": {"p_simile": None}})
    assert clause.startswith("**No comparison found** to take apart") and "no *like*" not in clause
    rule = components_verdict({**found, "is_simile": True, "detector": {"p_simile": 0.9, "threshold": 0.55,
                                                                        "as_as_rule": True}})
    assert rule.startswith("**A simile**: an *as … as* comparison with a common noun") and "by rule" in rule
    # "Fruits like apples are healthy." read "not a simile" with no word of why
    kind = components_verdict({**found, "is_simile": False, "detector": {
        "p_simile": 0.133, "threshold": 0.55, "like_with_like": "kind", "like_with_like_words": ["tennis", "sport"]}})
    assert kind.startswith("**Not a simile: it compares like with like**: “tennis” is a kind of “sport”")
    assert "0.133" in kind


def test_components_says_a_comparison_of_a_kind_compares_like_with_like(capsys):
    """The detector says why it caps a comparison (`like_with_like`), and the command says it in words."""
    import json

    from studio.cli import main
    from studio.similes.service import components

    fruits = components("Fruits like apples are healthy.")
    assert not fruits["is_simile"] and fruits["detector"]["like_with_like"] == "kind"
    assert fruits["detector"]["like_with_like_words"] == ["apple", "fruit"]
    father = components("The boy talks like his father.")["detector"]
    assert father["like_with_like"] == "someone's" and father["like_with_like_words"] == ["his father"]
    assert components("She sang like an angel.")["detector"]["like_with_like"] is None
    assert main(["components", "Fruits like apples are healthy."]) == 0
    assert "simile detector: no, it compares like with like: “apple” is a kind of “fruit”" in capsys.readouterr().out
    assert main(["components", "Fruits like apples are healthy.", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["detector"]["like_with_like"] == "kind"


def test_the_judge_panel_says_its_verdict_from_the_bars():
    from studio.ui.continue_tab import judge_verdict_line

    assert judge_verdict_line({"continuation 1": 0.23, "continuation 2": 0.77}) \
        == "Continuation 2 is the more plausible: 77 % against 23 % for continuation 1."
    assert judge_verdict_line({"continuation 1": 0.52, "continuation 2": 0.48}).startswith("Too close to call")
    assert judge_verdict_line(None) == ""
    story = "Tom put off the surgery for months. Finally he decided to bite the bullet."
    line = judge_verdict_line({"continuation 1": 0.14, "continuation 2": 0.86}, story, "He bit a bullet.",
                              "He booked the surgery for Monday.")
    assert line.endswith("Continuation 1 only says the narrative's last sentence again, which counts against it.")
    # the panel's own line, not the judgement's: a visitor's sentence typed five times scored 83 % with no word
    line = judge_verdict_line({"continuation 1": 0.83, "continuation 2": 0.17}, story, "He was happy. " * 5,
                              "He booked the surgery for Monday.")
    assert "Continuation 1 holds 5 sentences: the judge learned to weigh one next sentence" in line
    assert "The judge was told the idiom “bite the bullet”, meaning: To accept a negative aspect" in line


def test_the_judge_verdict_goes_when_the_boxes_hold_other_texts_than_the_ones_judged():
    """Gradio drops a press of Judge during a run: a visitor edited a box while the judge ran and read the old
    texts' verdict under the new ones; a Continue example replaced the narrative under a verdict. The bars go, and
    the line says why; the same texts (spacing aside) keep them."""
    from studio.ui.continue_tab import judge_verdict_line, other_texts_bars, other_texts_line

    bars = {"continuation 1": 0.3, "continuation 2": 0.7}
    judged = ["Sam had to [wing it].", "He laughed.", "He sat down."]
    assert other_texts_bars("Sam had to  [wing it]. ", "He laughed.", "He sat down.", judged, bars) == bars
    assert other_texts_line("Sam had to [wing it].", "He laughed.", "He sat down.", judged) == ""
    assert other_texts_bars("Sam had to [wing it].", "He laughed!", "He sat down.", judged, bars) is None
    assert other_texts_bars("Nora stood on the stage.", "He laughed.", "He sat down.", judged, bars) is None
    assert "press **Judge**" in other_texts_line("Sam had to [wing it].", "He cried.", "He sat down.", judged)
    # a shared link restores the bars without the state (and no change event): the first change takes them away
    assert other_texts_bars("Nora stood on the stage.", "He laughed.", "He sat down.", None, bars) is None
    # the line is for the texts judged, spacing aside; none while the bars of texts since edited are on their way out
    line = judge_verdict_line(bars, "Sam had to  [wing it].", "He laughed.", "He sat down.", judged)
    assert "the idiom “wing it”" in line
    assert judge_verdict_line(bars, "Nora stood on the stage.", "He laughed.", "He sat down.", judged) == ""


def test_the_judge_panel_says_what_it_was_told_of_the_figure_and_escapes_it():
    """The judge reads the figure's meaning with the narrative: the line says which figure it was told, or that it
    found none and how to mark one; typed text in it is shown as text."""
    from studio.ui.continue_tab import judge_verdict_line

    bars = {"continuation 1": 0.3, "continuation 2": 0.7}
    line = judge_verdict_line(bars, "Sam forgot every word of his toast and had to wing it.", "He laughed it off.",
                              "He sat down at once.")
    assert "No idiom or simile was found in the narrative" in line and "`[ ]`" in line
    line = judge_verdict_line(bars, "Sam forgot every word of his toast and had to [wing it].", "He laughed.",
                              "He sat down at once.")
    assert "The judge was told the idiom “wing it”, meaning: To improvise" in line
    line = judge_verdict_line(bars, "After three nights without sleep, Marco <b>slept like a *log*</b>.",
                              "He woke at noon, rested.", "He was tired all day.")
    assert "the simile “slept like a \\*log\\*”" in line and "<b>" not in line


def test_rerank_names_a_table_that_scored_other_text_than_the_boxes():
    """The line under Rerank: the table's texts against the boxes', as they read (spaces, the candidates' order and
    blank lines change nothing); no line without a table or a record of its texts."""
    from studio.ui.rerank_tab import OTHER_TEXT_NOTE, other_text_note, texts_key

    scored = texts_key("He is fast.", "He is as fast as a cheetah.\nHe ran like the wind.")
    table = {"data": [[1, "He ran like the wind."]]}
    assert other_text_note(" He is  fast. ", "\nHe ran like the wind.\n\nHe is as fast as a cheetah.", scored,
                           table) == ""
    assert other_text_note("She is fast.", "He is as fast as a cheetah.\nHe ran like the wind.", scored,
                           table) == OTHER_TEXT_NOTE
    assert other_text_note("He is fast.", "He ran like the wind.", scored, table) == OTHER_TEXT_NOTE
    assert other_text_note("She is fast.", "", scored, None) == ""  # no table on screen
    assert other_text_note("She is fast.", "", None, table) == ""  # a table restored from a shared link


def test_proverbs_names_proverbs_ranked_for_another_narrative():
    from studio.ui.proverbs_tab import OTHER_STORY_NOTE, other_story_note

    table = {"data": [[1, "A penny saved is a penny earned", "…", 67.5]]}
    assert other_story_note(" Ana saved.\n\nShe paid. ", "Ana saved. She paid.", table) == ""
    assert other_story_note("Ana spent.", "Ana saved. She paid.", table) == OTHER_STORY_NOTE
    assert other_story_note("Ana spent.", "Ana saved. She paid.", None) == ""  # no proverbs on screen
    assert other_story_note("Ana spent.", None, table) == ""  # restored from a shared link: nothing recorded


def test_the_components_command_says_why_a_like_is_no_comparison():
    """The command line said "no simile found" where the web's line says why: a clause after "like" is no comparison
    the parts describe; both read one sentence (`why_no_comparison`)."""
    from studio.cli.components_cmd import render
    from studio.similes.service import why_no_comparison

    text = render({"sentence": "He drove like the devil was chasing him.", "similes": []})
    assert text.startswith("no simile found: the parts describe") and "a clause after \"like\"" in text
    assert render({"sentence": "The moon was a silver coin.", "similes": []}) == "no simile found"
    assert why_no_comparison("Her hands were colder than ice.").startswith("a comparative with \"than\"")
