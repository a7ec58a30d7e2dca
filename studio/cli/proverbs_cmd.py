"""`python -m studio proverbs "narrative" --k 5` and `--batch in.jsonl --out out.jsonl`."""
from __future__ import annotations

from ..errors import InputError, StudioError
from ..proverbs.service import align, get_scorer, ranking, resolve_proverb, usage_note
from . import add_json_flag
from .batch import Batch, summary_line

#: how many proverbs a single narrative shows without --k
DEFAULT_K = 5


def register(sub) -> None:
    p = sub.add_parser("proverbs", help="recommend proverbs for a narrative and align the best one with it")
    p.add_argument("narrative", nargs="?", help="the narrative (omit with --batch)")
    p.add_argument("--k", type=int, help=f"how many proverbs to show (default {DEFAULT_K}; --batch writes the whole "
                   "catalog's ranking unless --k is given)")
    p.add_argument("--proverb", help="align this proverb (id, ePiC quote_id or text) instead of the top one")
    p.add_argument("--batch", metavar="IN.jsonl", help='lines {"narrative": ..., "proverb": optional}')
    p.add_argument("--out", metavar="OUT.jsonl", help="where --batch writes its results")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def _one(narrative: str, proverb: str | None, k: int | None) -> dict:
    ranked = ranking(narrative, k)
    target, entry = resolve_proverb(proverb) if proverb is not None else (ranked[0].proverb.text, ranked[0].proverb)
    pairs = align(narrative, target)
    return {"ranking": [r.to_json() for r in ranked], "aligned_proverb": target,
            "aligned_proverb_in_catalog": entry is not None, "alignment": [p.to_json() for p in pairs]}


def run(args) -> dict:
    if args.k is not None and args.k < 1:
        raise InputError("--k must be at least 1")
    if args.batch:
        if args.narrative:
            raise InputError("give either a narrative or --batch, not both")
        return _batch(args)
    if not args.narrative:
        raise InputError('give a narrative: python -m studio proverbs "narrative" '
                         '(or --batch in.jsonl --out out.jsonl)')
    result = _one(args.narrative, args.proverb, args.k or DEFAULT_K)

    result["scorer"] = get_scorer().description
    return result


def _batch(args) -> dict:
    """Every line is processed on its own (`Batch`): a malformed one is reported with its number and skipped. Each
    result holds its narrative, and the whole catalog's ranking unless --k is given."""
    batch = Batch(args.batch, args.out)
    for number, row in batch.records():
        try:
            if not isinstance(row, dict) or not isinstance(row.get("narrative"), str):
                raise InputError('expected an object with a "narrative" string')
            proverb = row.get("proverb")
            if proverb is not None and not isinstance(proverb, str):
                raise InputError('"proverb" must be a string')
            out = _one(row["narrative"], proverb, args.k)
            out["ranking"] = [{k: r[k] for k in ("id", "quote_id", "proverb", "score")} for r in out["ranking"]]
            batch.add(number, {"narrative": row["narrative"], **out})
        except StudioError as exc:
            batch.fail(number, exc)
    return batch.finish(args)


def render(result: dict) -> str:
    if "batch" in result:
        return summary_line(result, "narrative")

    lines = [f"scorer: {result['scorer']}",
             "fit: the proverb's share of the whole catalog, in % (all add up to 100; raw scores with --json)", ""]
    for r in result["ranking"]:
        lines.append(f"{r['rank']:>3}. {r['proverb']}  (fit {100 * r['probability']:.1f} %)")
        lines.append(f"     {r['meaning']}")
        if usage_note(r["proverb"]):
            lines.append(f"     note: {usage_note(r['proverb'])}")
    typed = "" if result.get("aligned_proverb_in_catalog", True) else \
        "  (not one of the catalog's proverbs: aligned as typed)"
    lines += ["", f"alignment with: {result['aligned_proverb']}{typed}"]
    lines += [f"  {p!r:<40} <-> {n!r}" for p, n in result["alignment"]] or ["  (no span above the threshold)"]
    return "\n".join(lines)
