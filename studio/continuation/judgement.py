"""What a judgement of two continuations is (`Judgement`), the case the judge reads (`case_for`), and the one
signal beside the cross-encoder: an option that only says the narrative's last sentence again (`restates`). Below
the judges that use them (crossjudge.py, judge.py)."""
from __future__ import annotations

import functools

from dataclasses import dataclass

from ..figures.english import content_lemmas
from ..models import get_registry
from ..textspans import blank_markup
from .features import Case
from .ranking import last_sentence

#: nats taken from the log-odds of an option that only restates the narrative's last sentence (`restates`), when the
#: other does not: the cross-encoder preferred the last sentence said again to the benchmark's plausible continuation
#: on 30 % of dev narratives (idioms 35 %, similes 24 %); at 3 nats 1.5 %, the benchmark's dev pairs 85.41 → 85.25 %
#: (the smallest of 0.5, 1, 2, 3, 4 with at most 5 % and at most 0.3 points lost)
#: why: docs/experiments.md#judge-restatement
RESTATEMENT_PENALTY = 3.0


@dataclass
class Judgement:
    p_option1: float
    p_option2: float
    restates: tuple[bool, bool] = (False, False)  # each option only says the narrative's last sentence again

    @property
    def choice(self) -> str:
        return "option1" if self.p_option1 >= self.p_option2 else "option2"


def restates(option: str, narrative: str) -> bool:
    """Whether a continuation only says the narrative's last sentence again: it has content words (nouns, verbs,
    adjectives, adverbs; lemmas) and all of them are the last sentence's ("He bit the bullet." after "…Finally he
    decided to bite the bullet."). The benchmark's options almost never do (28 of 10,280 train options, as often the
    plausible one as not)."""
    return _restates(get_registry().get("parser"), option, narrative)


@functools.lru_cache(maxsize=256)
def _restates(parser, option: str, narrative: str) -> bool:
    """`restates` for one parser, memoised: a judgement asks it of each option, and the tab's verdict line again."""
    said = content_lemmas(parser(" ".join(blank_markup(option).split())))
    return bool(said) and said <= content_lemmas(parser(last_sentence(blank_markup(narrative))))


def case_for(narrative: str, expr=None) -> Case:
    if expr is None:
        return Case(narrative, "", "", "")
    return Case(narrative, expr.text, expr.meaning or "", expr.kind)
