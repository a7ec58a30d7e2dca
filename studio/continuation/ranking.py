"""Which of the tuned generator's samples Continue shows, and in what order: it draws a pool of `POOL` samples and
shows the best `n`.

The key is `fluency + JUDGE_WEIGHT · log P(plausible)`:
- fluency: the plain lm's mean log-probability per token of the sentence after the narrative's end (its
  `narrative_tail`), a reading of how naturally the sentence follows;
- P(plausible): the judge's probability over the pool.
A sample cut by the token limit comes after every whole sentence.

Why: docs/experiments.md#continuation-ranking. See docs/continuation.md (Ranking)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .prompting import narrative_tail

#: samples the tuned generator draws for a request; the best `n` of them are shown
POOL = 16
#: weight of the judge's log-probability beside the lm's mean log-probability per token
JUDGE_WEIGHT = 0.1


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
