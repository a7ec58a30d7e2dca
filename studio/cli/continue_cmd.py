"""`python -m studio continue` and `python -m studio judge`: figurative continuation and its plausibility judge."""
from __future__ import annotations

import sys

from ..continuation.service import MODES, Settings, continue_narrative, judge_pair
from ..errors import InputError, StudioError
from . import add_json_flag
from .batch import Batch, summary_line


def register(sub) -> None:
    p = sub.add_parser("continue", help="continue a narrative that ends in an idiom or a simile (mark it with [ ])")
    p.add_argument("narrative")
    p.add_argument("--mode", default="writer", choices=list(MODES),
                   help="writer: the writer model told the figure's meaning (default); tuned: the small generator "
                        "fine-tuned on the benchmark; plain: the plain lm; literal / context: the plain lm "
                        "ensembled over knowledge inferences")
    p.add_argument("--n", type=int, default=3, help="continuations shown, best first")
    p.add_argument("--pool", type=int, default=None,
                   help="writer and tuned modes: samples drawn, of which the best n are shown (default: writer 6, "
                        "by the judge, a restatement of the story's last sentence moved down; tuned 16, by fluency "
                        "and the judge; at least n are drawn, and 0 is the mode's default); the other modes draw n and "
                        "rank them with the judge")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--max-tokens", type=int, default=None, help="default (or 0): writer 48, the other modes 20")
    p.add_argument("--combine", default="sum", choices=["sum", "mean"],
                   help="how the prompts' logits are combined at each step (the paper sums them)")
    add_json_flag(p)
    p.set_defaults(func=run_continue, render=render_continue)

    j = sub.add_parser("judge", help="which of two continuations is plausible")
    j.add_argument("narrative", nargs="?")
    j.add_argument("option1", nargs="?")
    j.add_argument("option2", nargs="?")
    j.add_argument("--batch", help='JSONL lines {"narrative", "option1", "option2"} (optionally "idiom"/"simile", '
                                   '"meaning"/"property")')
    j.add_argument("--out", help="where to write the batch results (JSONL; default stdout)")
    add_json_flag(j)
    j.set_defaults(func=run_judge, render=render_judge)


#: the Settings fields a refusal names, as the flags a command line gives them
FLAGS = {"max_new_tokens": "--max-tokens", "top_k": "--top-k", "pool": "--pool", "n": "--n",
         "temperature": "--temperature"}


def run_continue(args) -> dict:
    s = Settings(mode=args.mode, n=args.n, seed=args.seed, top_k=args.top_k, temperature=args.temperature,
                 max_new_tokens=args.max_tokens, combine=args.combine, pool=args.pool)
    try:
        return continue_narrative(args.narrative, s).to_dict()
    except InputError as exc:  # "max_new_tokens must be between …" said as the flag the user typed
        field = str(exc).split(" ", 1)[0]
        if field in FLAGS:
            raise InputError(FLAGS[field] + str(exc)[len(field):]) from None
        raise


def render_continue(r: dict) -> str:
    e = r["expression"]
    kb = {"model": " (not in the lexicon: the generator's own paraphrase, a guess)"}.get(
        (e or {}).get("meaning_source"), "")
    if e and e["kind"] == "simile" and e.get("meaning_source") == "lexicon":
        kb = " (a figure the lexicon knows)"
    lines = [f"expression: {e['text']!r} ({e['kind']}, {e['source']})"
             + (f" — {e['meaning']}{kb}" if e["meaning"] else "") if e else "expression: none found"]
    if r["inferences"]:
        lines.append(f"{r['mode']} inferences:")
        lines += [f"  - {x}" for x in r["inferences"]]
    pooled = r["drawn"] > r["settings"]["n"]
    by = ("whole sentences without a slip first, then the judge, a restatement of the story's last sentence moved "
          "down") if r["mode"] == "writer" else "fluency and the judge"
    lines.append(f"continuations (best {len(r['continuations'])} of {r['drawn']} samples drawn, by {by}; p = the "
                 "judge's probability):" if pooled else f"continuations (ordered by {by}; p = the judge's "
                 "probability):" if r["mode"] == "writer" else "continuations (most plausible first):")
    for c in r["continuations"]:
        p = f"{c['p_plausible']:.2f}" if c["p_plausible"] is not None else "  - "
        lines.append(f"  {p}  {c['text']}" + (f"  (×{c['samples']} samples)" if c["samples"] > 1 else "")
                     + (f"  [moved down: {'; '.join(c.get('slips') or ['a slip'])}]" if c.get("slipped") else ""))
    lines += [f"note: {n}" for n in r["shortfall"]]
    lines += [f"note: {n}" for n in r["notes"]]
    lines.append(f"({r['seconds']} s)")
    return "\n".join(lines)


def _judge_line(row) -> dict:
    if not isinstance(row, dict):
        raise InputError("each line must be a JSON object")
    missing = [k for k in ("narrative", "option1", "option2") if not isinstance(row.get(k), str)]
    if missing:
        raise InputError(f"missing or non-text field(s): {', '.join(missing)}")
    kind = "idiom" if row.get("idiom") else "simile" if row.get("simile") else None
    expression = row.get("idiom") or row.get("simile") or None
    meaning = row.get("meaning") or row.get("property") or None
    r = judge_pair(row["narrative"], row["option1"], row["option2"], expression=expression, kind=kind,
                   meaning=meaning, names=("option1", "option2"))
    return {"p_option1": r["p_option1"], "p_option2": r["p_option2"], "choice": r["choice"]}


def run_judge(args) -> dict | None:
    if not args.batch:
        if not (args.narrative and args.option1 and args.option2):
            raise InputError("give a narrative and two options, or --batch in.jsonl")
        return judge_pair(args.narrative, args.option1, args.option2)
    batch = Batch(args.batch, args.out, out_required=False)  # without --out, the JSONL goes to stdout
    for number, row in batch.records():
        try:
            batch.add(number, _judge_line(row))
        except StudioError as exc:
            batch.fail(number, exc)
    result = batch.finish(args)
    if not args.out:  # the judgements are the output: the summary goes beside them, on stderr
        print(summary_line(result, "judgement"), file=sys.stderr)
        return None
    return result


def render_judge(r: dict) -> str:
    if "batch" in r:
        return summary_line(r, "judgement")
    return f"option1 {r['p_option1']:.3f}   option2 {r['p_option2']:.3f}   → {r['choice']}\n{r['verdict']}"
