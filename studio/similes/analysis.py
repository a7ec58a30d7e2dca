"""What the Polish tab's "Analyse" and `python -m studio components` show for a sentence: its similes with their
topic, vehicle, event and property, and whether the trained detector calls it a simile."""
from __future__ import annotations

from ..errors import require_text
from ..figures.components import extract_similes
from ..figures.detector import AS_AS_PROBABILITY, detect, threshold
from ..figures.english import refuse_non_english

MAX_SENTENCE_CHARS = 2000


def analyse(sentence: str) -> dict:
    text = require_text(sentence, "sentence", max_chars=MAX_SENTENCE_CHARS)
    refuse_non_english(text)
    similes = extract_similes(text)
    p, cut = (float(detect(text)) if similes else None), float(threshold())
    # the detector's verdict with its probability: a comparison the extractor finds may still read as literal to it;
    # `as_as_rule`: the probability is the rule's for "as ADJ as" a common noun, not the learned weights' estimate
    by_rule = p == AS_AS_PROBABILITY and any(s.comparator == "as ... as" for s in similes)
    return {"sentence": text, "is_simile": p is not None and p >= cut,
            "detector": {"p_simile": None if p is None else round(p, 3), "threshold": round(cut, 3),
                         "as_as_rule": by_rule},
            "similes": [s.to_dict() for s in similes]}
