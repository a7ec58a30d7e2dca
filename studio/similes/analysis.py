"""What the Polish tab's "Analyse" and `python -m studio components` show for a sentence: its similes with their
topic, vehicle, event and property, and whether the trained detector calls it a simile."""
from __future__ import annotations

from ..errors import require_text

from ..figures.components import extract_similes
MAX_SENTENCE_CHARS = 2000
from ..figures.detector import detect, threshold
from ..figures.english import refuse_non_english


def analyse(sentence: str) -> dict:
    text = require_text(sentence, "sentence", max_chars=MAX_SENTENCE_CHARS)
    refuse_non_english(text)
    similes = extract_similes(text)
    return {"sentence": text, "is_simile": bool(similes) and detect(text) >= threshold(),
            "similes": [s.to_dict() for s in similes]}
