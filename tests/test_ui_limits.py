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

    from studio.ui.common import stopped_line
    from studio.ui.polish_tab import candidate_selected

    line = "Scoring: plain sentence similarity ranked the whole catalog."
    assert stopped_line("nothing")(line) == line
    assert stopped_line("no candidates.")("*Polishing…*").startswith("⚠️ Stopped")
    assert candidate_selected(["a", "b"], "typed", SimpleNamespace(index=None)) == "typed"
    assert candidate_selected(["a", "b"], "typed", SimpleNamespace(index=[1, 0])) == "b"
    assert candidate_selected(["a", "b"], "typed", SimpleNamespace(index=[5, 0])) == "typed"
