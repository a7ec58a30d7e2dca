"""`python -m studio components`: the similes in a sentence with their topic, vehicle, event and property."""
from __future__ import annotations

from . import add_json_flag

MAX_SENTENCE_CHARS = 2000


def register(sub) -> None:
    p = sub.add_parser("components", help="find the similes in a sentence and their components")
    p.add_argument("sentence", nargs="?", help="the sentence (omit with --batch)")
    p.add_argument("--batch", metavar="IN.jsonl", help='lines {"sentence": ...}')
    p.add_argument("--out", metavar="OUT.jsonl", help="batch output")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def analyse(sentence: str) -> dict:
    from ..errors import require_text
    from ..similes.components import extract_similes
    from ..similes.detector import detect, threshold

    text = require_text(sentence, "sentence", max_chars=MAX_SENTENCE_CHARS)
    similes = extract_similes(text)
    return {"sentence": text, "is_simile": bool(similes) and detect(text) >= threshold(),
            "similes": [s.to_dict() for s in similes]}


def run(args):
    from ..similes.batch import single_or_batch

    return single_or_batch(args, args.sentence, "sentence", analyse,
                           'give a sentence, e.g. python -m studio components "He wept like a child." (or --batch)')


def render(result: dict) -> str:
    if "batch" in result:
        return f"{result['written']} lines written to {result['out']}, {result['failed']} failed"
    if not result["similes"]:
        return "no simile found"
    lines = [f"simile detector: {'yes' if result['is_simile'] else 'no (literal comparison)'}"]
    for s in result["similes"]:
        lines.append(f"[{s['comparator']}] topic={s['topic']!r} event={s['event']!r} vehicle={s['vehicle']!r} "
                     f"property={s['property']!r}")
    return "\n".join(lines)
