"""What the Polish tab's "Analyse" and `python -m studio components` show for a sentence: its similes with their
topic, vehicle, event and property, and whether the trained detector calls it a simile."""
from __future__ import annotations

import re

from ..errors import require_text
from ..figures.components import extract_similes
from ..figures.detector import explained_batch, threshold
from ..figures.english import read_as_written, refuse_non_english

MAX_SENTENCE_CHARS = 2000

def like_with_like_reason(detector: dict) -> str | None:
    """Why the detector reads a comparison as one of like with like, in words about the sentence's own nouns (its
    `like_with_like` and `like_with_like_words`), or None: Components' verdict and the `components` command."""
    why, words = detector.get("like_with_like"), list(detector.get("like_with_like_words") or [])
    if why == "someone's" and words:
        return f"the vehicle, “{words[0]}”, is someone's or something's own: an ordinary comparison"
    if why == "kind" and len(words) == 2:
        narrower, broader = words
        return (f"both name “{narrower}”: a likeness within one kind, not an image" if narrower == broader
                else f"“{narrower}” is a kind of “{broader}”: an example or a likeness within one kind, not an image")
    return None


def analyse(sentence: str) -> dict:
    text = require_text(sentence, "sentence", max_chars=MAX_SENTENCE_CHARS)
    refuse_non_english(text)
    # a sentence in capitals is read as written in sentence case, as Polish reads it ("HE RAN LIKE A CHEETAH." had
    # the topic "HE RAN"); the offsets hold, so the spans index the sentence as typed
    read = read_as_written(text)
    similes = extract_similes(read)
    verdict, cut = (explained_batch([read])[0] if similes else None), float(threshold())
    # the detector's verdict with its probability: a comparison the extractor finds may still read as literal to it;
    # `as_as_rule`: the rule for "as ADJ as" a common noun decided, not the learned weights; `like_with_like`: why
    # the comparison is one of like with like, capped ("someone's" vehicle, or one "kind"), or None, and the words
    # that show it
    return {"sentence": text, "is_simile": verdict is not None and verdict.p >= cut,
            "detector": {"p_simile": None if verdict is None else round(verdict.p, 3), "threshold": round(cut, 3),
                         "as_as_rule": bool(verdict and verdict.by_rule),
                         "like_with_like": verdict and verdict.like_with_like,
                         "like_with_like_words": list(verdict.like_with_like_words) if verdict else []},
            "similes": [_as_typed(s.to_dict(), text) for s in similes]}


def _as_typed(simile: dict, text: str) -> dict:
    """A simile read from the sentence-cased text with its words as the sentence was typed (the spans hold)."""
    spans = simile.get("spans") or {}
    return {**simile, **{k: text[slice(*spans[k])] for k in ("topic", "vehicle", "event", "property")
                         if simile.get(k) and k in spans}}


def why_no_comparison(sentence: str) -> str:
    """Why a sentence with no comparison to take apart has none, when its words suggest one ("" otherwise)."""
    if re.search(r"\blike\b", sentence, re.I):  # "drove like the devil was chasing him": there is a "like"
        return ('the parts describe "like" or "as … as" followed by a thing ("like a lion"); a clause after "like" '
                '("like the devil was chasing him"), a list ("fruits like apples and pears") or the verb ("I like '
                'tea") is not one')
    if re.search(r"\bthan\b", sentence, re.I):  # "cut deeper than a knife"
        return "a comparative with \"than\" is not one the simile parts describe"
    return ""
