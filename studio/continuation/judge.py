"""The plausibility judge (the paper's discriminative task): get_judge() serves the cross-encoder over (narrative,
option) of studio.continuation.crossjudge (the registry's `judge_cross` role). Among N continuations its scores give
Bradley–Terry probabilities (a softmax), which is how generate-then-rank orders its samples."""
from __future__ import annotations

import time
import numpy as np

from ..errors import InputError, require_text
from ..figures.english import refuse_non_english
from ..models import ModelUnavailable, get_registry
from ..textspans import word_count
from ..wording import counted
from .judgement import case_for
from .ranking import sentences
from .story import MAX_NARRATIVE_CHARS, check_story

MAX_OPTION_CHARS = 600  # a continuation is one or two sentences
MIN_OPTION_WORDS = 2  # "He left." is one; "<b>x</b>" or "ok" is none
#: below this probability for the winner a judgement is "too close to call": the probabilities are calibrated (where
#: the judge says 55 %, it is right about 55 times in 100), so such a choice is little better than a coin toss
TOO_CLOSE = 0.6


def percentages(p_option1: float) -> tuple[int, int]:
    """Whole percentages of the two options that add up to 100 (each rounded on its own, 0.515 and 0.485 would
    show as 52 % and 49 %)."""
    first = int(round(100 * float(p_option1)))
    return first, 100 - first


def verdict(p_option1: float, names: tuple[str, str] = ("option 1", "option 2")) -> str:
    """The judgement in one sentence: which option is the more plausible and by how much, or too close to call."""
    first, second = percentages(p_option1)
    if max(first, second) < round(100 * TOO_CLOSE):  # on the whole percentages shown, so that 59.7 % shows as 60 %
        return (f"Too close to call: {names[0]} {first} %, {names[1]} {second} %. At this margin the judge is "
                "right little more often than a coin toss.")
    win, lose, pw, pl = (*names, first, second) if first >= second else (names[1], names[0], second, first)
    return f"{win[:1].upper() + win[1:]} is the more plausible: {pw} % against {pl} % for {lose}."


def restatement_note(said_again: list[bool], names: tuple[str, str] = ("option 1", "option 2")) -> str:
    """" Option 1 only says the narrative's last sentence again, which counts against it." when one of the two
    restates (`restates`) and the other does not; "" otherwise."""
    if said_again[0] == said_again[1]:
        return ""
    who = names[0] if said_again[0] else names[1]
    return f" {who[:1].upper() + who[1:]} only says the narrative's last sentence again, which counts against it."


def length_note(options: tuple[str, str], names: tuple[str, str] = ("option 1", "option 2")) -> str:
    """" Continuation 1 holds 14 sentences: …" for an option of more than one sentence (the judge learned to weigh one
    next sentence; a visitor's one sentence said fourteen times scored 97 %); "" otherwise."""
    long = [f"{name} holds {counted(n, 'sentence')}" for name, text in zip(names, options)
            if (n := len(sentences(text))) > 1]
    if not long:
        return ""
    said = " and ".join(long)
    return (f" {said[:1].upper() + said[1:]}: the judge learned to weigh one next sentence, so its verdict on more "
            "says less.")


def figure_told(narrative: str) -> tuple[str, str, str] | None:
    """(kind, expression, meaning) the judge is told for `narrative` as `judge_pair` reads it (marked, or found by
    `find_expression`; meaning "" where none is known), or None when the narrative holds none."""
    from .expression import find_expression

    _, expr = find_expression(narrative)
    return None if expr is None else (expr.kind, expr.text, expr.meaning or "")


def get_judge():
    """The served judge: the cross-encoder that reads the narrative (crossjudge.CrossJudge,
    assets/continuation/judge-cross/) when its weights and its base (all-mpnet-base-v2) are present; None otherwise,
    and always in the tiny (test) profile, which loads no real model."""
    if get_registry().profile == "tiny":
        return None
    from .crossjudge import get_cross_judge

    try:
        return get_cross_judge()
    except Exception:  # the base package missing: no judge
        return None


def judge_pair(narrative: str, option1: str, option2: str, *, expression: str | None = None,
               kind: str | None = None, meaning: str | None = None,
               names: tuple[str, str] = ("option 1", "option 2")) -> dict:
    """Which of two continuations of `narrative` the judge finds plausible. `names`: how a refusal names the two
    texts (the page's boxes are "continuation 1" and "continuation 2")."""
    from .expression import Expression, find_expression

    started = time.perf_counter()
    narrative = require_text(narrative, "narrative", MAX_NARRATIVE_CHARS)
    option1 = require_text(option1, names[0], MAX_OPTION_CHARS)
    option2 = require_text(option2, names[1], MAX_OPTION_CHARS)
    check_story(narrative, "to judge a continuation of")  # after every text's limit: one over its limit is named first
    for text, what in ((option1, names[0]), (option2, names[1])):
        refuse_non_english(text, what)
        if (words := word_count(text)) < MIN_OPTION_WORDS:
            raise InputError(f"{what[:1].upper() + what[1:]} is too short to judge ({words} word"
                             f"{'s' if words != 1 else ''}): a continuation is a sentence of at least "
                             f"{MIN_OPTION_WORDS} words.")
    if " ".join(option1.lower().split()) == " ".join(option2.lower().split()):
        raise InputError(f"{names[0][:1].upper() + names[0][1:]} and {names[1]} are the same sentence: there is "
                         "nothing to choose between. Write two different continuations.")
    judge = get_judge()
    if judge is None:
        raise ModelUnavailable("judge", "the plausibility judge is not trained or not served in this profile",
                               "run `python -m studio train judge` (the tiny profile serves no judge)")
    text, expr = find_expression(narrative)
    if expression:
        kind = kind if kind in ("idiom", "simile") else (expr.kind if expr else "idiom")
        expr = Expression(kind, expression, 0, 0, meaning=meaning or (expr.meaning if expr else ""), source="given")
        if not expr.meaning and kind == "idiom":
            from ..figures.idioms import get_lexicon

            expr.meaning = get_lexicon().meaning(expression) or ""
    elif expr is not None and meaning:
        expr.meaning = meaning
    j = judge.pairs([case_for(text, expr)], [option1], [option2])[0]
    if not all(np.isfinite([j.p_option1, j.p_option2])):
        raise InputError("The judge could not score these texts.")
    said_again = list(j.restates)  # found once, where the judge weighed them
    told = (verdict(j.p_option1, names) + restatement_note(said_again, names)
            + length_note((option1, option2), names))
    return {"p_option1": round(j.p_option1, 4), "p_option2": round(j.p_option2, 4), "choice": j.choice,
            "verdict": told, "restates": said_again, "expression": expr.to_dict() if expr else None,
            "seconds": round(time.perf_counter() - started, 3)}
