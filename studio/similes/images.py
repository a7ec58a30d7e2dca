"""The image table: the images English compares a quality (an adjective) to ("as cold as" → ice, snow, …),
distilled from the offline writer LM and checked against the simile KB at build time
(studio/lab/similes/image_table.py). Read once; a dict lookup at serving."""
from __future__ import annotations

import functools
import json

from ..paths import PROJECT_ROOT

ASSET = PROJECT_ROOT / "assets" / "similes" / "images.json"


def normal(image: str) -> str:
    """An image without its article: "a mouse" → "mouse"."""
    words = image.lower().split()
    return " ".join(words[1:] if words and words[0] in {"a", "an", "the"} else words)


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    return json.loads(ASSET.read_text())["adjective"] if ASSET.is_file() else {}


def images(adjective: str) -> list[tuple[str, int, float, bool]]:
    """[(image with its article, votes of the writer's samples, specificity, attested in the KB)] for an adjective,
    best first; [] when the table does not hold it."""
    return [(i, int(v), float(s), bool(a)) for i, v, s, a in _table().get(adjective.lower().strip(), [])]
