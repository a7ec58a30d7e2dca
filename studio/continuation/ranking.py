"""Which of a pool's samples Continue shows, and in what order.

Tuned mode draws a pool of `POOL` samples and shows the best `n` by `fluency + JUDGE_WEIGHT · log P(plausible)`:
- fluency: the plain lm's mean log-probability per token of the sentence after the narrative's end (its
  `narrative_tail`), a reading of how naturally the sentence follows;
- P(plausible): the judge's probability over the pool.
Why: docs/experiments.md#continuation-ranking.

Writer mode (`writer_order`) shows the best `n` of its pool by `log P(plausible) − RESTATING_WEIGHT · restating`,
restating being the cosine of the `embedder`'s vectors of the continuation and the story's last sentence: the judge
finds a sentence that says the last one again plausible, and a reader does not keep it ("Priya decided to stay up all
night to finish her work." after "…she would have to burn the midnight oil."). A sentence with a slip (the figure's
own words, a new simile: writing.slips) comes after every one without.
Why: docs/experiments.md#continuation-restating.

In both, a sample cut by the token limit comes after every whole sentence. See docs/continuation.md (Ranking)."""
from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from .prompting import narrative_tail
from .writing import slips

#: samples the tuned generator draws for a request; the best `n` of them are shown
POOL = 16
#: weight of the judge's log-probability beside the lm's mean log-probability per token
JUDGE_WEIGHT = 0.1
#: writer mode: how far a continuation moves down for each unit of cosine with the story's last sentence
#: why: docs/experiments.md#continuation-restating
RESTATING_WEIGHT = 2.0
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+")


def fluency(lm, narrative: str, texts: Sequence[str]) -> list[float]:
    """The lm's mean log-probability per token of each text as the sentence after the narrative's end."""
    if not texts:
        return []
    scored = lm.loglik_shared(narrative_tail(narrative), [" " + t.strip() for t in texts])
    return [total / max(1, count) for total, count in scored]


def order(fluencies: Sequence[float], probabilities: Sequence[float] | None, cut: Sequence[bool],
          judge_weight: float = JUDGE_WEIGHT) -> list[int]:
    """Indices best first: whole sentences before cut ones, each by fluency + judge_weight · log P(plausible)
    (fluency alone when no judge ran)."""
    key = np.asarray(fluencies, dtype=float)
    if probabilities is not None and judge_weight:
        key = key + judge_weight * np.log(np.clip(np.asarray(probabilities, dtype=float), 1e-12, 1.0))
    return sorted(range(len(key)), key=lambda i: (bool(cut[i]), -key[i], i))


def last_sentence(narrative: str) -> str:
    """The narrative's last sentence with a word in it (the whole text when none ends before it)."""
    pieces = [p for p in _SENTENCE_BREAK.split(" ".join(narrative.split())) if any(ch.isalpha() for ch in p)]
    return pieces[-1] if pieces else narrative.strip()


#: a piece that ends in one of these did not end its sentence: a title, "etc.", an initial or "U.S.", "a.m."
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Mt|vs|etc|Gen|Col|Capt|Lt|Sgt)"
                           r"|\b[A-Za-z](?:\.[A-Za-z])*)\.$")


def sentences(text: str) -> list[str]:
    """The text's sentences with a word in them, an abbreviation ("Mr. Smith arrived.", "at 3 a.m. sharp") or a
    quotation inside one ('He said "Stop!" and left.') not taken for an end."""
    flat, out, pieces, start = " ".join(text.split()), [], [], 0
    for m in _SENTENCE_BREAK.finditer(flat):  # each piece with its closing quotes
        pieces.append(flat[start:m.end()].rstrip())
        start = m.end()
    for piece in pieces + [flat[start:]]:
        if out and (_ABBREVIATION.search(out[-1].rstrip("\"'”’)]")) or piece[:1].islower()):
            out[-1] += " " + piece
        elif piece:
            out.append(piece)
    return [p for p in out if any(ch.isalpha() for ch in p)]


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[\w']+", text.lower().replace("’", "'")))


#: the fewest words a continuation that is a piece of one of the story's sentences has to be a copy of it ("Smith
#: arrived." after "Mr. Smith arrived." is none; "Maya walked past Dev in the hallway without a word." after "After
#: the argument, Maya walked past Dev in the hallway without a word." is)
COPIED_WORDS = 5


def copies_the_story(narrative: str, text: str) -> bool:
    """Whether a continuation is one of the story's own sentences again, or a run of `COPIED_WORDS` or more of its
    words (case, spaces and punctuation aside): no continuation, whatever the judge makes of it."""
    plain = _plain(text)
    whole, story = _plain_sentences(narrative)
    return bool(plain) and (plain in whole or len(plain.split()) >= COPIED_WORDS and f" {plain} " in story)


@functools.lru_cache(maxsize=64)
def _plain_sentences(narrative: str) -> tuple[frozenset[str], str]:
    """The story's sentences as `copies_the_story` compares them, and its words in a row between spaces, split once
    for a pool of samples."""
    return frozenset(_plain(p) for p in sentences(narrative)), f" {_plain(narrative)} "


def restating(embedder, narrative: str, texts: Sequence[str]) -> list[float]:
    """The cosine of each text with the narrative's last sentence (the embedder's normalised vectors)."""
    if not texts:
        return []
    vectors = np.asarray(embedder.encode([last_sentence(narrative)] + list(texts)), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return [float(x) for x in vectors[1:] @ vectors[0]]


def pool_signals(narrative: str, expr, texts: Sequence[str], embedder=None) -> tuple[list[list[str]],
                                                                                     list[float] | None]:
    """What `writer_order` reads of a pool beside the judge: each text's slips (writing.slips: the patterns it shows,
    [] for none) and its cosine with the narrative's last sentence (`restating`; None without an embedder)."""
    found = [slips(t, narrative, expr) for t in texts]
    return found, (restating(embedder, narrative, texts) if embedder is not None else None)


def writer_order(probabilities: Sequence[float], cut: Sequence[bool], slipped: Sequence,
                 restates: Sequence[float] | None, weight: float = RESTATING_WEIGHT) -> list[int]:
    """Indices best first: whole sentences before cut ones, those without a slip (`slipped[i]` false or empty)
    first, each by log P(plausible) − weight · its cosine with the story's last sentence (`restating`; the judge
    alone when `restates` is None)."""
    key = np.log(np.clip(np.asarray(probabilities, dtype=float), 1e-12, 1.0))
    if restates is not None and weight:
        key = key - weight * np.asarray(restates, dtype=float)
    return sorted(range(len(key)), key=lambda i: (bool(cut[i]), bool(slipped[i]), -key[i], i))
