"""`python -m studio score`: HAUSER scores and the reranking of simile candidates for a literal sentence."""
from __future__ import annotations

import sys

from ..errors import InputError, StudioError
from ..hauser.service import (CONTRADICTION_GATE, DEFAULT_QUALITY_WEIGHTS, DEFAULT_RANK_WEIGHTS, PAPER_QUALITY_WEIGHTS,
                              PAPER_RANK_WEIGHTS, RerankResult, Settings, check_group, ratio, rerank, rerank_many)
from . import add_json_flag
from .batch import Batch, summary_line

BATCH_CHUNK = 500  # groups per model pass: large enough to batch well, small enough to show progress


def register(sub) -> None:
    p = sub.add_parser("score", help="score and rerank simile candidates with HAUSER (quality, creativity, "
                                     "informativeness)")
    p.add_argument("--literal", help="the literal sentence")
    p.add_argument("--candidate", action="append", default=[], help="a candidate simile (repeat the flag)")
    p.add_argument("--batch", metavar="IN.jsonl", help='lines {"literal": ..., "candidates": [...]}')
    p.add_argument("--out", metavar="OUT.jsonl", help="where --batch writes one scored group per line")
    alpha, beta, gamma = DEFAULT_QUALITY_WEIGHTS
    p.add_argument("--alpha", type=float,
                   help=f"weight of relevance in quality (default {alpha:.3g}; the three are divided by their sum, "
                        "so 5 1 0 means 5/6, 1/6, 0)")
    p.add_argument("--beta", type=float, help=f"weight of logical consistency (default {beta:.3g})")
    p.add_argument("--gamma", type=float, help=f"weight of sentiment consistency (default {gamma:g})")
    p.add_argument("--paper-weights", action="store_true",
                   help="the paper's quality weights α, β, γ = 3/6, 2/6, 1/6 (instead of --alpha/--beta/--gamma); "
                        "served: 5/6, 1/6, 0, which writers' verdicts preferred (docs/hauser.md)")
    p.add_argument("--rank-weights", type=float, nargs=3, default=list(DEFAULT_RANK_WEIGHTS), metavar=("Q", "C", "I"),
                   help="weights of the quality, creativity and informativeness rankings (default "
                        f"{ratio(DEFAULT_RANK_WEIGHTS).replace(' : ', ' ')}, which writers' verdicts preferred; "
                        f"the paper's: {ratio(PAPER_RANK_WEIGHTS).replace(' : ', ' ')})")
    p.add_argument("--relevance", choices=["eq2", "eq3"], default="eq2",
                   help="eq2: Σ n(t,p,v)·P(t,p,v) over KB triplets (default); eq3: the pair count n(t, v)")
    p.add_argument("--lm-relevance", type=float, default=None, metavar="λ",
                   help="weight of the writer's fit of the vehicle (mean log-probability per token after the "
                        "sentence's words) in relevance (default 1; 0: the paper's Eq. 2/3)")
    p.add_argument("--lm-creativity", type=float, default=None, metavar="μ",
                   help="weight of the vehicle's LM surprisal in creativity (default 0.3; 0: the paper's Eq. 8-9)")
    p.add_argument("--no-irony", action="store_true",
                   help="leave out the ironic-simile check: an ironic \"as P as V\" is then read as the property it "
                        "states (\"as loud as a whisper\" → \"very loud\", not \"very soft\"), or by its words with "
                        "--no-stated-property")
    p.add_argument("--no-stated-property", action="store_true",
                   help="judge any other \"as P as V\" by its words, not the property it states (\"as bitter as regret\" "
                        "→ \"very bitter\")")
    p.add_argument("--no-property-backoff", action="store_true",
                   help="Eq. 2 as the paper has it: a topic-vehicle pair the KB never saw adds 0, even when the "
                        "simile states its property (\"as quiet as a grave\")")
    p.add_argument("--no-contradiction-gate", action="store_true",
                   help="the paper's combined rank: a candidate the meaning check is at least 90 %% sure contradicts "
                        "the literal sentence is not moved after the others")
    p.add_argument("--no-off-sentence", action="store_true",
                   help="the paper's combined rank: a candidate that keeps less than a quarter of the literal "
                        "sentence's content words and means little like it (a line of another sentence), or whose "
                        "image is an emoji or a sign, or names a people or holds a slur or an obscenity, is not moved "
                        "after the others")
    add_json_flag(p)
    p.set_defaults(func=run, render=render)


def run(args):
    back_off = {name: value for name, value in (("lm_relevance", args.lm_relevance),
                                                ("lm_creativity", args.lm_creativity)) if value is not None}
    given = (args.alpha, args.beta, args.gamma)
    if args.paper_weights and any(w is not None for w in given):  # --alpha was dropped without a word
        raise InputError("give either --paper-weights or --alpha/--beta/--gamma, not both")
    weights = PAPER_QUALITY_WEIGHTS if args.paper_weights else tuple(
        default if w is None else w for w, default in zip(given, DEFAULT_QUALITY_WEIGHTS))
    settings = Settings(weights, tuple(args.rank_weights), args.relevance,
                        irony=not args.no_irony, stated_property=not args.no_stated_property,
                        property_backoff=not args.no_property_backoff,
                        contradiction_gate=None if args.no_contradiction_gate else CONTRADICTION_GATE,
                        off_sentence=not args.no_off_sentence, **back_off)
    if args.batch:
        if args.literal or args.candidate:
            raise InputError("use either --batch or --literal/--candidate, not both")
        summary = run_batch(args.batch, args.out, settings, args)
        args.exit_code = 1 if summary["failed"] else 0
        args.render = lambda r: summary_line(r, "group")
        return summary
    if not args.literal:
        raise InputError("give --literal and one or more --candidate (or --batch IN.jsonl --out OUT.jsonl)")
    return rerank(args.literal, args.candidate, settings)


def run_batch(source: str, out: str | None, settings, args=None) -> dict:
    """Every well-formed line's group scored, `BATCH_CHUNK` groups a model pass (`Batch`: bad lines said, each result
    with its input's line number)."""
    batch = Batch(source, out)
    good, numbers = [], []
    for number, record in batch.records():
        try:
            if not isinstance(record, dict):
                raise InputError('expected an object {"literal": ..., "candidates": [...]}')
            good.append(check_group(record.get("literal"), record.get("candidates")))
            numbers.append(number)
        except StudioError as exc:
            batch.fail(number, exc)
    for start in range(0, len(good), BATCH_CHUNK):
        for number, group in zip(numbers[start:], rerank_many(good[start:start + BATCH_CHUNK], settings)):
            batch.add(number, group.to_dict())
        print(f"progress: {min(start + BATCH_CHUNK, len(good))} of the {len(good)} well-formed groups scored",
              file=sys.stderr, flush=True)
    return batch.finish(args)


def render(result: RerankResult) -> str:
    lines = [f"literal: {result.literal}", ""]
    header = f"{'rank':>4}  {'Q':>6} {'C':>7} {'I':>5}  {'r':>8} {'c_l':>6} {'c_s':>7}  candidate"
    lines.append(header)
    for row in result.rows:
        fmt = lambda x, w, d: (f"{x:>{w}.{d}f}" if x is not None else f"{'—':>{w}}")  # noqa: E731
        lines.append(f"{row['rank']:>4}  {fmt(row['quality'], 6, 3)} {fmt(row['creativity'], 7, 3)} "
                     f"{fmt(row['informativeness'], 5, 2)}  {fmt(row['relevance'], 8, 2)} "
                     f"{fmt(row['logical_consistency'], 6, 3)} {fmt(row['sentiment_consistency'], 7, 3)}  "
                     f"{row['candidate']}" + (f"  [{row['flag']}]" if row["flag"] else "")
                     + ("  [contradicts the literal sentence: ranked after the others]" if row.get("contradicts")
                        else "")
                     + ("  [off the sentence: keeps less than a quarter of the literal sentence's words and "
                        "means little like it; ranked after the others]" if row.get("off_sentence") else "")
                     + ("  [no words: its image is an emoji or a sign the knowledge base cannot know; ranked after "
                        "the others]" if row.get("no_words") else "")
                     + ("  [offensive image: it names a people or holds a slur or an obscenity; ranked after the "
                        "others]" if row.get("offensive") else ""))
    b = result.backends
    s = result.settings
    lines += ["", "Q: quality, 0–1 relative within these candidates (1 = the best here, 0 = the weakest; "
                  "0.5 when they tie, so a single candidate gets 0.5); C: creativity, higher = a rarer image "
                  "(unbounded, may be negative); I: words in the image; r, c_l, c_s: the raw relevance (higher = a more "
                  "usual comparison here; unbounded, often negative), "
                  "logical consistency (0–1) and sentiment consistency (−1…1) behind Q.",
              f"α, β, γ = {s['alpha']:.3f}, {s['beta']:.3f}, {s['gamma']:.3f}; rank weights "
                  f"{':'.join(f'{w:g}' for w in s['rank_weights'])}; relevance {s['relevance']}; "
                  + (f"a contradiction (P ≥ {s['contradiction_gate']:g}) ranked after the others"
                     if s.get("contradiction_gate") is not None else "no contradiction gate")
                  + ("; a line of another sentence, or an image that is a sign or offensive, ranked after the others"
                     if s.get("off_sentence") else "; lines of other sentences, images that are signs or offensive "
                     "not moved")
                  + (" (the paper's order)" if s.get("contradiction_gate") is None and not s.get("off_sentence")
                     else ""),
              f"backends: nli = {b['nli']}; sentiment = {b['sentiment']}; kb = {b['kb']}; relevance's fit = "
                  f"{b.get('writer') or 'off'}; creativity's surprisal = {b.get('lm') or 'off'}"]
    return "\n".join(lines)
