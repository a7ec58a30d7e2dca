"""`python -m studio polish`: simile candidates for a literal sentence."""
from __future__ import annotations

from ..errors import InputError
from ..results import polish_blind_read
from ..similes.service import (DEFAULT_STRATEGIES, DOMAINS, MAX_N, REGISTERS, STRATEGIES, Misspelling,
                               check_strategies, few_apt_images, polish, spelling_note)
from . import add_json_flag
from .batch import single_or_batch, summary_line


#: what a --batch line may set for itself, beside its "literal" (the command's flags otherwise)
LINE_OPTIONS = ("n", "seed", "strategies", "domain", "register")


def register(sub) -> None:
    p = sub.add_parser("polish", help="turn a literal sentence into simile candidates")
    p.add_argument("literal", nargs="?", help="the literal sentence (omit with --batch)")
    p.add_argument("--n", type=int, default=10, help=f"number of candidates (1-{MAX_N})")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (same seed, same candidates)")
    p.add_argument("--strategies", default="",
                   help=f"comma-separated subset of the vehicle sources {','.join(STRATEGIES)} "
                        f"(default {','.join(DEFAULT_STRATEGIES)})")
    p.add_argument("--domain", default="any", choices=DOMAINS, metavar="DOMAIN",
                   help="the writer's image domain: " + ", ".join(DOMAINS))
    p.add_argument("--register", default="plain", choices=REGISTERS, help="the writer's register")
    p.add_argument("--batch", metavar="IN.jsonl",
                   help='lines {"literal": ...}, each may also set ' + ", ".join(f'"{k}"' for k in LINE_OPTIONS))
    p.add_argument("--out", metavar="OUT.jsonl", help="batch output")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def run(args):
    def one(literal: str, **line) -> dict:
        options = {"n": args.n, "seed": args.seed, "strategies": args.strategies or None, "domain": args.domain,
                   "register": args.register, **line}
        _steers_the_writer(options)
        result = polish(literal, **options)
        return {"literal": literal, **({"options": line} if line else {}), **result.to_dict()}

    return single_or_batch(args, args.literal, "literal", one,
                           'give a literal sentence, e.g. python -m studio polish "He yelps and howls." (or --batch)',
                           LINE_OPTIONS)


def _steers_the_writer(options: dict) -> None:
    """A domain or register asked of a run without the writer source, which alone reads them, is refused (the
    README's example once ran "--domain animals" with no writer and got the same images as without it)."""
    strategies = check_strategies(options.get("strategies"))  # an unknown one is refused as such first
    if "writer" not in strategies and (options.get("domain") or "any") != "any" \
            or "writer" not in strategies and (options.get("register") or "plain") != "plain":
        raise InputError("--domain and --register steer the writer source, which is not among the strategies: add "
                         "it, e.g. --strategies " + ",".join((*DEFAULT_STRATEGIES, "writer")))


def render(result: dict) -> str:
    if "batch" in result:
        return summary_line(result, "literal")
    column = any(c.get("keep") is not None for c in result["candidates"])
    lines = [f"{_keep(c, column)}{c['score']:6.3f} {'KB' if c.get('attested') else '  '} [{c['strategy']:<9}] "
             f"{c['sentence']}" for c in result["candidates"]]
    if result.get("expected_keepers") is not None and lines:
        counted = result.get("keep_counted", len(lines))
        if few_apt_images(result["expected_keepers"], counted):
            lines.append("few apt images were found for this sentence, by the keep model: try rewording it")
        if read := polish_blind_read():
            lines.append(read[:1].lower() + read[1:])
    if result.get("score") and lines:
        lines.append(f"({result['score']})")
    if result.get("shortfall"):
        lines.append(f"note: {result['shortfall']}")
    if result.get("spelling"):
        lines.append("note: " + spelling_note(result["literal"], [Misspelling(**m) for m in result["spelling"]]))
    if result.get("negation"):
        lines.append(f"note: {result['negation']}")
    if result.get("places"):
        lines.append(f"note: {result['places']}")
    return "\n".join(lines) or "no candidates"


def _keep(candidate: dict, column: bool = True) -> str:
    """"keep 0.54  ", or as many spaces for a line without a keep when other lines have one (`column`)."""
    if candidate.get("keep") is None:
        return " " * len("keep 0.00  ") if column else ""
    return f"keep {candidate['keep']:.2f}  "
