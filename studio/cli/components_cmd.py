"""`python -m studio components`: the similes in a sentence with their topic, vehicle, event and property."""
from __future__ import annotations

from ..similes.service import components, like_with_like_reason, why_no_comparison
from . import add_json_flag
from .batch import single_or_batch, summary_line


def register(sub) -> None:
    p = sub.add_parser("components", help="find the similes in a sentence and their components")
    p.add_argument("sentence", nargs="?", help="the sentence (omit with --batch)")
    p.add_argument("--batch", metavar="IN.jsonl", help='lines {"sentence": ...}')
    p.add_argument("--out", metavar="OUT.jsonl", help="batch output")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def run(args):
    return single_or_batch(args, args.sentence, "sentence", components,
                           'give a sentence, e.g. python -m studio components "He wept like a child." (or --batch)')


def render(result: dict) -> str:
    if "batch" in result:
        return summary_line(result, "sentence")
    if not result["similes"]:
        why = why_no_comparison(result["sentence"])
        return "no simile found" + (f": {why}" if why else "")
    p = result["detector"]["p_simile"]
    like = like_with_like_reason(result["detector"])
    verdict = "yes" if result["is_simile"] else (f"no, it compares like with like: {like}" if like else
                                                 "no, it reads the comparison as literal")
    lines = [f"simile detector: {verdict}"
             + ("" if p is None else f" (P(simile) {p:.2f}, threshold {result['detector']['threshold']:.2f}"
                + (", by the rule for \"as ADJ as\" a common noun" if result["detector"].get("as_as_rule") else "")
                + ")")]
    if not result["is_simile"]:  # the parts below sat under "no" with no word of what they are
        lines.append("the parts of the comparison found (the detector reads it as literal; it misses some similes):")
    for s in result["similes"]:
        lines.append(f"[{s['comparator']}] topic={s['topic']!r} event={s['event']!r} vehicle={s['vehicle']!r} "
                     f"property={s['property']!r}")
    return "\n".join(lines)
