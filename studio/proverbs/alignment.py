"""Aligned spans between a proverb and a narrative, as ePiC annotates them: the proverb's content phrases
(subject and predicate, or verb-with-object and the rest, split at clause boundaries) matched one-to-one to
candidate narrative spans (sentences and clauses) by embedding similarity, with a mild preference for keeping
the proverb's order, and a similarity threshold below which a phrase stays unaligned."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

#: chosen before looking at the validation part (not tuned); `python -m studio eval proverbs` reports their F1
DEFAULT_THRESHOLD = 0.05
DEFAULT_ORDER_WEIGHT = 0.3
_FORBIDDEN = 1e6

_CLAUSE_BREAK = re.compile(r"\s*[,;:]\s+|\s+(?=(?:but|and then|so|because|while|although|though|yet|than)\b)", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_SEGMENT_BREAK = re.compile(r"\s*[,;:]\s*|\s+(?=(?:but|than|while|and for)\b)", re.I)


@dataclass(frozen=True)
class Span:
    text: str
    start: int
    end: int

    @property
    def center(self) -> float:
        return (self.start + self.end) / 2


@dataclass
class AlignedPair:
    proverb_span: Span
    narrative_span: Span
    similarity: float

    def to_json(self) -> list[str]:
        return [self.proverb_span.text, self.narrative_span.text]


def _spans_between(text: str, pattern: re.Pattern, start: int = 0, end: int | None = None) -> list[Span]:
    end = len(text) if end is None else end
    spans, cursor = [], start
    for m in pattern.finditer(text, start, end):
        spans.append((cursor, m.start()))
        cursor = m.end()
    spans.append((cursor, end))
    out = []
    for a, b in spans:
        piece = text[a:b]
        lead, trail = len(piece) - len(piece.lstrip()), len(piece.rstrip())
        a, b = a + lead, a + trail
        if re.search(r"\w", text[a:b]):
            out.append(Span(text[a:b], a, b))
    return out


def sentence_spans(text: str, max_sentences: int = 40) -> list[Span]:
    return _spans_between(text, _SENTENCE_END)[:max_sentences]


def narrative_candidates(narrative: str, max_sentences: int = 40) -> list[Span]:
    """Sentences, and the clauses of sentences that have more than one."""
    sentences = sentence_spans(narrative, max_sentences)
    candidates = list(sentences)
    for s in sentences:
        clauses = [c for c in _spans_between(narrative, _CLAUSE_BREAK, s.start, s.end) if len(c.text.split()) >= 2]
        if len(clauses) > 1:
            candidates.extend(clauses)
    return candidates


def _split_subject_predicate(doc, seg_start: int, seg_end: int) -> list[tuple[int, int]]:
    """Character ranges of a segment split into subject | predicate (or verb + object | the rest)."""
    tokens = [t for t in doc if t.idx >= seg_start and t.idx + len(t.text) <= seg_end]
    if len(tokens) < 3:
        return [(seg_start, seg_end)]
    roots = [t for t in tokens if t.head == t or t.head.idx < seg_start or t.head.idx >= seg_end]
    if not roots:  # every head inside a token that straddles the segment's edge ("0\x1f®0;2"): no split to make
        return [(seg_start, seg_end)]
    root = roots[0]
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "csubj", "expl") and c.i < root.i]
    if subjects:
        cut = max(t.idx + len(t.text) for t in subjects[-1].subtree)
        if subjects[-1].dep_ == "expl" or (subjects[-1].text.lower() in ("it", "there") and len(list(subjects[-1].subtree)) == 1):
            cut = None  # "It's better to ..." has no content in its subject
        if cut is not None and cut < tokens[-1].idx:
            return [(seg_start, cut), (cut, seg_end)]
    objects = [c for c in root.children if c.dep_ in ("dobj", "attr", "acomp", "xcomp") and c.i > root.i]
    if objects:
        cut = max(t.idx + len(t.text) for t in objects[0].subtree)
        if cut < tokens[-1].idx:
            return [(seg_start, cut), (cut, seg_end)]
    return [(seg_start, seg_end)]


def proverb_phrases(proverb: str, parser) -> list[Span]:
    """Content phrases of a proverb: clause-level segments, each split into subject and predicate."""
    doc = parser(proverb)
    out = []
    for seg in _spans_between(proverb, _SEGMENT_BREAK):
        for a, b in _split_subject_predicate(doc, seg.start, seg.end):
            piece = proverb[a:b]
            a2 = a + len(piece) - len(piece.lstrip())
            b2 = a + len(piece.rstrip())
            if re.search(r"\w", proverb[a2:b2]):
                out.append(Span(proverb[a2:b2], a2, b2))
    return out


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def assign(sim: np.ndarray, phrases: list[Span], candidates: list[Span], proverb_len: int, narrative_len: int,
           threshold: float = DEFAULT_THRESHOLD, order_weight: float = DEFAULT_ORDER_WEIGHT) -> list[AlignedPair]:
    """One-to-one assignment maximising similarity minus an order penalty; narrative spans never overlap."""
    if not phrases or not candidates:
        return []
    pp = np.array([p.center / max(proverb_len, 1) for p in phrases])[:, None]
    cp = np.array([c.center / max(narrative_len, 1) for c in candidates])[None, :]
    cost = -(sim - order_weight * np.abs(pp - cp))
    for _ in range(len(phrases) * len(candidates)):  # each round forbids one overlap; bounded
        rows, cols = linear_sum_assignment(cost)
        chosen = [(r, c) for r, c in zip(rows, cols) if cost[r, c] < _FORBIDDEN / 2]
        clash = next(((a, b) for i, a in enumerate(chosen) for b in chosen[i + 1:]
                      if _overlaps(candidates[a[1]], candidates[b[1]])), None)
        if clash is None:
            break
        worse = max(clash, key=lambda rc: cost[rc])  # keep the better pair, send the other elsewhere
        cost[worse] = _FORBIDDEN
    return [AlignedPair(phrases[r], candidates[c], float(sim[r, c])) for r, c in sorted(chosen)
            if sim[r, c] >= threshold]


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def token_prf(predicted: str, gold: str) -> tuple[float, float, float]:
    p, g = Counter(tokens(predicted)), Counter(tokens(gold))
    common = sum((p & g).values())
    if not common:
        return 0.0, 0.0, 0.0
    precision, recall = common / sum(p.values()), common / sum(g.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def score_alignment(predicted: list[list[str]], gold: list[list[str]]) -> tuple[float, float, float]:
    """ePiC's span metric: for each gold proverb span, the narrative span predicted for the predicted proverb
    span that overlaps it most is compared token-wise with the gold narrative span; averaged over gold pairs."""
    totals = np.zeros(3)
    for gold_p, gold_n in gold:
        best, best_overlap = None, 0
        for pred_p, pred_n in predicted:
            overlap = sum((Counter(tokens(pred_p)) & Counter(tokens(gold_p))).values())
            if overlap > best_overlap:
                best, best_overlap = pred_n, overlap
        if best is not None:
            totals += token_prf(best, gold_n)
    return tuple(totals / max(len(gold), 1))
