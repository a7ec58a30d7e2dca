"""Rerank names candidates given twice in a group; it keeps every line (the batch output stays one row per line)."""
from __future__ import annotations

from studio.hauser.service import RerankResult
from studio.ui.rerank_tab import repeated_note


def _group(literal, candidates):
    return RerankResult(literal, [{"candidate": c, "rank": k + 1} for k, c in enumerate(candidates)], {}, {}, [])


def test_a_repeated_candidate_is_quoted_with_its_count():
    note = repeated_note([_group("He was fast.", ["He was as fast as a hare.", "He ran like the wind.",
                                                   "He was as fast as a hare.", "He was as fast as a hare."])])
    assert note.startswith("“He was as fast as a hare.” is given 3 times.")
    assert "literal sentence" not in note


def test_no_note_for_different_candidates_or_the_same_line_in_two_groups():
    assert repeated_note([_group("He was fast.", ["He was as fast as a hare.", "He was as fast as a Hare."])]) == ""
    assert repeated_note([_group("A.", ["He ran like the wind."]), _group("B.", ["He ran like the wind."])]) == ""


def test_a_csv_group_is_named_and_many_repeats_are_counted():
    groups = [_group("A.", ["x like y.", "x like y."]), _group("B.", [f"z{k} like w." for k in range(4)] * 2)]
    note = repeated_note(groups)
    assert note.startswith("“x like y.” is given 2 times for literal sentence 1 (“A.”); ")
    assert "“z0 like w.” is given 2 times for literal sentence 2 (“B.”)" in note
    assert "; and 2 more." in note  # five repeated sentences: three quoted
