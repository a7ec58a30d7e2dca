"""studio/textspans.py: `shorten`, the one way a long text is cut for a label or a message."""
def test_shorten_cuts_with_an_ellipsis_only_when_needed():
    from studio.textspans import shorten

    assert shorten("short", 10) == "short" and shorten("x" * 10, 10) == "x" * 10
    assert shorten("x" * 11, 10) == "x" * 8 + "…"


def test_a_script_elements_code_is_blanked_with_its_tags_and_offsets_hold():
    from studio.textspans import blank_markup, word_count

    text = "He <b>ran</b> <SCRIPT type=x>alert(1)</script > fast."
    blanked = blank_markup(text)
    assert len(blanked) == len(text) and blanked.split() == ["He", "ran", "fast."]
    assert word_count("<style>p { color: red }</style>") == 0 and word_count("x < y and y > z") == 5
    # unclosed, a tag like any other: the words after it stay ("Her <style> was bold" is prose about style)
    assert blank_markup("Her <style> was bold.").split() == ["Her", "was", "bold."]


def test_prose_is_what_a_model_reads_of_typed_markup():
    from studio.textspans import prose

    assert prose("The h<b>a</b>re laughed.") == "The hare laughed."
    assert prose("<script>alert(1)</script><b>The cat</b> sat.") == "The cat sat."
    assert prose("line one<br>line two") == "line one line two"  # a break between words is a space
    assert prose("Plain  text\n\nhere.") == "Plain  text\n\nhere."  # no markup: as typed
