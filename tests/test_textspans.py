"""studio/textspans.py: `shorten`, the one way a long text is cut for a label or a message."""
def test_shorten_cuts_with_an_ellipsis_only_when_needed():
    from studio.textspans import shorten

    assert shorten("short", 10) == "short" and shorten("x" * 10, 10) == "x" * 10
    assert shorten("x" * 11, 10) == "x" * 8 + "…"
