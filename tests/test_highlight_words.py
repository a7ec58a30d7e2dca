"""Issue 19, item 10: a highlighted span starts and ends on word boundaries ("with h / er face" no more)."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.textspans import on_word_boundaries, snap_span
from studio.ui.common import highlight_pieces

TEXT = "She sat by the window with her face in her hands."


def _labelled_on_words(pieces, text):
    assert "".join(p for p, _ in pieces) == text
    cursor = 0
    for piece, label in pieces:
        if label is not None:
            assert on_word_boundaries(text, cursor, cursor + len(piece)), (piece, pieces)
            assert piece == piece.strip()
        cursor += len(piece)


def test_the_reported_split_is_snapped_to_whole_words():
    cut = TEXT.index("her face") + 1  # the spans the issue saw: "…with h" | "er face…"
    pieces = highlight_pieces(TEXT, [(TEXT.index("by"), cut, "1"), (cut, TEXT.index(" in"), "2")])
    labelled = [(p, label) for p, label in pieces if label]
    assert labelled[0] == ("by the window with her", "1")  # the first span takes the whole word it cut
    assert labelled[1] == ("face", "2")  # the second no longer starts inside it
    _labelled_on_words(pieces, TEXT)


def test_snap_keeps_apostrophes_and_strips_edges():
    text = "I don't know."
    assert snap_span(text, 4, 5) == (2, 7)  # "o" of "don't" → "don't"
    assert snap_span(text, 1, 3) == (2, 7)  # " d" → "don't", without the space
    assert snap_span(text, 0, 0) == (0, 0)


def test_continue_expression_on_words():
    from studio.ui.continue_tab import _highlight

    text = "He was running around like a headless chicken."
    start = text.index("like") + 2  # "ke a headless chick" — a span cut inside two words
    pieces = _highlight({"narrative": text, "expression": {"start": start, "end": len(text) - 4, "kind": "simile"}})
    assert [p for p, label in pieces if label] == ["like a headless chicken"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["her", "face", "don't", "O’Neil", ",", ".", "well-known", "3.5", "naïve", " "]),
                max_size=20).map(" ".join).flatmap(lambda t: st.tuples(st.just(t), st.lists(
                    st.tuples(st.integers(0, len(t)), st.integers(0, len(t)), st.sampled_from(["a", "b"])),
                    max_size=6))))
def test_every_labelled_piece_is_on_word_boundaries(data):
    text, spans = data
    _labelled_on_words(highlight_pieces(text, [(min(a, b), max(a, b), lab) for a, b, lab in spans]), text)
