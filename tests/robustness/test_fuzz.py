"""Property-based fuzzing of the pure text functions: only the studio's own error types escape, spans stay
inside the text and match it, highlights never overlap."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from studio.errors import StudioError
from studio.hauser import criteria as C
from studio.proverbs import alignment as A

from .corpus import HOSTILE_TEXTS

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = ["he", "she", "ran", "is", "as", "like", "a", "the", "wolf", "bright", "sun", "if", "though", "cold",
         "ice", "who", "sang", "bird", ",", ".", "!", "and", "her", "smile", "was", "than", "fast", "cheetah"]
sentences = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=25).map(" ".join),
    st.text(max_size=200),
    st.sampled_from(list(HOSTILE_TEXTS.values())),
)
floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


def _check_pieces(pieces, text):
    """HighlightedText pieces: in order, covering the text exactly once, so no highlight can overlap another."""
    assert "".join(piece for piece, _ in pieces) == text
    assert all(piece for piece, label in pieces if label is not None)


# ---- simile components ----

@FUZZ
@given(sentences)
def test_extract_similes_spans_are_inside_and_match(text):
    from studio.figures.components import extract_similes

    try:
        similes = extract_similes(text)
    except StudioError:
        return
    for s in similes:
        for part, (a, b) in s.spans.items():
            assert 0 <= a <= b <= len(text), (part, a, b, len(text))
            value = getattr(s, part, None)
            if isinstance(value, str) and part != "comparator":
                assert text[a:b] == value, (part, text[a:b], value)


@FUZZ
@given(sentences)
def test_components_viewer_pieces_never_overlap(text):
    import gradio as gr

    from studio.ui.polish_tab import run_components

    try:
        pieces, result = run_components(text)
    except gr.Error:
        return
    _check_pieces(pieces, result["sentence"])


# ---- HAUSER criteria ----

@FUZZ
@given(st.lists(floats, max_size=30))
def test_minmax_is_in_unit_range_or_refuses(values):
    if not all(math.isfinite(v) for v in values):  # NaN or infinity: refused, never a silent NaN
        with pytest.raises(StudioError):
            C.minmax(values)
        return
    out = C.minmax(values)
    assert out.shape == (len(values),)
    assert np.all((out >= 0) & (out <= 1))


@FUZZ
@given(st.integers(1, 20).flatmap(lambda n: st.tuples(*(st.lists(finite, min_size=n, max_size=n) for _ in range(3)),
                                                      st.lists(st.booleans(), min_size=n, max_size=n))),
       st.tuples(floats, floats, floats), st.tuples(floats, floats, floats))
def test_quality_and_ranking_combination(data, qweights, rweights):
    r, cl, cs, valid = data
    try:
        q = C.quality(C.minmax(r), C.minmax(cl), C.minmax(cs), qweights)
        ranking = C.combine_rankings(list(q), cl, cs, valid, rweights)
    except StudioError:
        assert not all(math.isfinite(w) and w >= 0 for w in qweights + rweights) or sum(qweights) == 0 \
            or sum(rweights) == 0
        return
    assert sorted(ranking.final) == list(range(1, len(valid) + 1))
    # candidates without a simile come last
    invalid = [ranking.final[k] for k, ok in enumerate(valid) if not ok]
    assert all(p > sum(valid) for p in invalid)


@FUZZ
@given(st.lists(st.floats(min_value=0, max_value=1e9), max_size=10), st.lists(st.text(max_size=30), max_size=10))
def test_creativity_and_informativeness(frequencies, vehicles):
    for fn, arg in ((C.creativity, frequencies), (C.informativeness, vehicles)):
        try:
            value = fn(arg)
        except StudioError:
            assert not arg
            continue
        assert math.isfinite(value)


# ---- proverb alignment ----

@FUZZ
@given(sentences)
def test_narrative_candidates_are_inside_the_text(text):
    for span in A.narrative_candidates(text):
        assert 0 <= span.start < span.end <= len(text)
        assert text[span.start:span.end] == span.text


@FUZZ
@given(sentences)
@example("0\x1f®0;2")  # a segment whose words' heads all lay inside a token across its edge: it had no root
def test_proverb_phrases_are_inside_the_proverb(text):
    from studio.models import get_registry

    parser = get_registry().get("parser")
    spans = A.proverb_phrases(text, parser)
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
        assert text[span.start:span.end] == span.text


@FUZZ
@given(sentences, sentences, st.integers(0, 2**32 - 1), st.floats(-1, 1))
def test_assignment_never_overlaps_in_the_narrative(proverb, narrative, seed, threshold):
    phrases = A._spans_between(proverb, A._SEGMENT_BREAK)
    candidates = A.narrative_candidates(narrative)
    sim = np.random.default_rng(seed).uniform(-1, 1, size=(len(phrases), len(candidates)))
    pairs = A.assign(sim, phrases, candidates, len(proverb), len(narrative), threshold=threshold)
    chosen = [p.narrative_span for p in pairs]
    for i, a in enumerate(chosen):
        for b in chosen[i + 1:]:
            assert not (a.start < b.end and b.start < a.end), (a, b)
    assert len({id(p.proverb_span) for p in pairs}) == len(pairs)


# ---- span highlighting of the tabs ----

spans_in = st.text(max_size=80).flatmap(lambda t: st.tuples(
    st.just(t),
    st.lists(st.tuples(st.integers(0, len(t)), st.integers(0, len(t)), st.sampled_from(["a", "b", "c"]))
             .map(lambda s: (min(s[0], s[1]), max(s[0], s[1]), s[2])), max_size=8)))


@FUZZ
@given(st.text(max_size=60), st.lists(st.tuples(st.integers(-100, 200), st.integers(-100, 200),
                                                 st.sampled_from(["topic", "vehicle", None])), max_size=8))
def test_shared_highlight_helper_clamps_and_never_overlaps(text, spans):
    from studio.ui.common import highlight_pieces

    _check_pieces(highlight_pieces(text, spans), text)


@FUZZ
@given(spans_in)
def test_continue_tab_highlight(data):
    from studio.ui.continue_tab import _highlight

    text, spans = data
    start, end = (spans[0][0], spans[0][1]) if spans else (0, 0)
    pieces = _highlight({"narrative": text, "expression": {"start": start, "end": end, "kind": "idiom"}})
    _check_pieces([p for p in pieces if p[0] or p[1] is None], text)


@FUZZ
@given(spans_in)
def test_proverbs_tab_highlight(data):
    from studio.ui.proverbs_tab import _highlight

    text, spans = data
    _check_pieces(_highlight(text, [s for s in spans if s[0] < s[1]]), text)


@FUZZ
@given(spans_in)
def test_rerank_winner_highlight(data):
    from studio.hauser.service import RerankResult
    from studio.ui.rerank_tab import highlight_winner

    text, spans = data
    marks = {part: (a, b) for (a, b, _), part in zip(spans, ["topic", "vehicle", "event"]) if a < b}
    group = RerankResult(literal="", settings={}, backends={}, rows=[], candidates=[
        {"rank": 1, "candidate": text, "similes": [{"vehicle": "v", "spans": marks}] if marks else []}])
    _check_pieces(highlight_winner(group), text)


@pytest.mark.parametrize("text", list(HOSTILE_TEXTS.values()), ids=list(HOSTILE_TEXTS))
def test_hostile_corpus_through_extract_similes(text):
    from studio.figures.components import extract_similes

    try:
        similes = extract_similes(text)
    except StudioError:
        return
    for s in similes:
        assert all(0 <= a <= b <= len(text) for a, b in s.spans.values())


# ---- the Continue tab's marked expression ----

_plain = st.text(alphabet=st.characters(blacklist_characters="[]<>", blacklist_categories=("Cs",)), max_size=12)
_marked = st.tuples(st.sampled_from(["[{}]", "<b>{}</b>"]), _plain.filter(lambda t: t.strip())) \
    .map(lambda mt: (mt[0].format(mt[1]), mt[1].strip(), mt[0][0]))


@FUZZ
@given(st.lists(st.one_of(_plain.map(lambda t: (t, None, None)), _marked), max_size=8))
def test_marked_expression_span_points_at_the_marked_words(parts):
    from studio.continuation.expression import strip_marks

    text = "".join(p for p, _, _ in parts)
    clean, span = strip_marks(text)
    marked = [(inner, kind) for _, inner, kind in parts if inner is not None]
    if not marked:
        assert (clean, span) == (text, None)
        return
    bold = [inner for inner, kind in marked if kind == "<"]
    expected = bold[0] if bold else marked[0][0]  # <b>…</b> wins over […], the first one of its kind
    assert span is not None and 0 <= span[0] <= span[1] <= len(clean)
    assert clean[span[0]:span[1]] == expected, (text, clean, span)
    assert "<b>" not in clean.lower() and "[" not in clean
