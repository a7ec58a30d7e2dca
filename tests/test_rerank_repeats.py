"""Rerank names candidates given twice in a group; it keeps every line (the batch output stays one row per line)."""
from __future__ import annotations

from studio.hauser.service import RerankResult
from studio.ui.rerank_tab import repeated_note


def _group(literal, candidates):
    return RerankResult(literal, [{"candidate": c, "rank": k + 1} for k, c in enumerate(candidates)], {}, {}, [])


def test_a_repeated_candidate_is_named_by_its_numbers():
    note = repeated_note([_group("He was fast.", ["He was as fast as a hare.", "He ran like the wind.",
                                                   "He was as fast as a hare."])])
    assert note.startswith("Candidates 1 and 3 are the same sentence")


def test_no_note_for_different_candidates_or_the_same_line_in_two_groups():
    assert repeated_note([_group("He was fast.", ["He was as fast as a hare.", "He was as fast as a Hare."])]) == ""
    assert repeated_note([_group("A.", ["He ran like the wind."]), _group("B.", ["He ran like the wind."])]) == ""
    assert "(in the CSV's groups)" in repeated_note([_group("A.", ["x like y.", "x like y."]), _group("B.", ["z."])])
