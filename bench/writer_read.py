"""A blind read of the writer model's output (docs/similes.md, docs/continuation.md; the rubric: ../shared/blind-read.md).

    .venv/bin/python bench/writer_read.py generate --literals blind_reads/polish_literals_9.txt \
        --narratives blind_reads/continuation_narratives_2.txt --out read.json      # what each system writes
    .venv/bin/python bench/writer_read.py pool read.json --reader reader.json --key key.json
    # a reader who sees neither system nor rank labels reader.json → labels.json {id: 0|1}
    .venv/bin/python bench/writer_read.py record read.json key.json labels.json --polish blind_reads/polish_blind_read_N.json \
        --continuation blind_reads/continuation_blind_read_N.json --how "…"      # the committed records `eval *-read` counts
    .venv/bin/python bench/writer_read.py generate --benchmark read44 --out read.json   # Continue on the benchmark's
        # own stories (test part; --part dev for a dev read), their two options pooled as controls; record with
        # --narratives-file benchmark:read44 (benchmark:dev:TAG)

Polish: each literal through `polish(literal, n=10, seed=0)` with the default sources ("default sources": images, lm,
retrieval, property) and with the writer source ("writer source": writer, property). Continue: each narrative through the writer mode with its pool of 6
drawn in order (rank=False), then ordered as the served mode orders them (`ranking.writer_order`: whole sentences,
no slip, the judge's probability with a restatement of the story's last sentence moved down), so that the 3 shown and
the 3 not shown are read alike. `--polish-variants polisher`: the default sources as served (the writer polisher
proposing) and with the 135 M polisher proposing, as before it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STUDIO_PROFILE", "offline")


#: the systems a Polish read compares: (variant, sources)
#: the variant of `--polish-variants polisher` whose lm source the 135 M polisher proposes
POLISHER_BEFORE = "135 M polisher"
POLISH_VARIANTS = {"writer": (("default sources", None), ("writer source", ["writer", "property"])),
                   "images": (("before images", ["lm", "retrieval", "property"]),
                              ("images first", ["images", "lm", "retrieval", "property"])),
                   "reread": (),  # the default sources, before and after the writer's reread (_reread_pairs)
                   # the default sources as served (the writer polisher proposes) and with the 135 M polisher
                   # proposing, as before it (docs/experiments.md#polish-writer-polisher)
                   "polisher": (("writer polisher", None), (POLISHER_BEFORE, None))}


def _reread_pairs(args, out) -> None:
    """Each literal polished once (default sources); the list as ranked before the writer rereads it ("before
    reread") and after ("writer reread"), both cut to 10: the same candidates, two orders (and the reread may bring
    some of places 11-20 into the 10)."""
    from studio.similes import polish as P

    served, seen = P.writer_order, {}

    def recording(ranked, rows):
        seen["before"] = list(ranked)
        after, done = served(ranked, rows)
        seen["after"] = list(after)
        return after, done

    P.writer_order = recording
    try:
        for lit in _lines(args.literals):
            t = time.perf_counter()
            P.polish(lit, n=10, seed=0)
            # with --reread-pool, also the first 20 before the reread: every line the reread can bring into the 10,
            # so that another order of them can be counted on the same labels (report read 27)
            for variant, key, cut in (("before reread", "before", 10), ("writer reread", "after", 10)) + (
                    (("first 20 before reread", "before", 20),) if args.reread_pool else ()):
                out["polish"].append({"literal": lit, "variant": variant, "seconds": round(time.perf_counter() - t, 2),
                                      "cands": [{"sentence": c.sentence, "rank": i + 1, "strategy": c.strategy}
                                                for i, c in enumerate(seen[key][:cut])]})
            print(lit, file=sys.stderr, flush=True)
    finally:
        P.writer_order = served


def _lines(path: str) -> list[str]:
    return [x.strip() for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]


def generate(args) -> None:
    from studio.continuation.expression import find_expression
    from studio.continuation.generate import Settings, continue_narrative
    from studio.continuation.judge import get_judge
    from studio.continuation.ranking import pool_signals, writer_order
    from studio.models import get_registry
    from studio.similes import polish as P
    from studio.similes.polish import polish
    from studio.similes.polisher import LM_MAX_SAMPLES

    out = {"polish": [], "continue": []}
    served_proposer = P.proposer_lm
    if args.polish_variants == "reread" and args.literals:  # one run per literal: before and after the reread
        _reread_pairs(args, out)
    for lit in _lines(args.literals) if args.literals and args.polish_variants != "reread" else []:
        for variant, strategies in POLISH_VARIANTS[args.polish_variants]:
            t = time.perf_counter()
            P.proposer_lm = (lambda lm, trained: (lm, trained, LM_MAX_SAMPLES)) if variant == POLISHER_BEFORE \
                else served_proposer
            try:
                cands = polish(lit, n=10, seed=0, strategies=strategies).candidates
            finally:
                P.proposer_lm = served_proposer
            out["polish"].append({"literal": lit, "variant": variant, "seconds": round(time.perf_counter() - t, 2),
                                  "cands": [{"sentence": c.sentence, "rank": i + 1, "strategy": c.strategy}
                                            for i, c in enumerate(cands)]})
            print(variant, lit, file=sys.stderr, flush=True)
    judge = get_judge()
    for story in _stories(args):
        t = time.perf_counter()
        r = continue_narrative(story, Settings(mode="writer", n=6, seed=0, rank=False))
        text, expr = find_expression(story)
        texts = [c.text for c in r.continuations]
        probs = [float(p) for p in judge.rank(text, texts, expr)] if texts else []
        cut = [c.cut for c in r.continuations]
        order = writer_order(probs, cut, *pool_signals(text, expr, texts, get_registry().get("embedder"))) \
            if texts else []
        out["continue"].append({"story": story, "variant": "writer", "seconds": round(time.perf_counter() - t, 2),
                                "conts": [{"text": x, "rank": order.index(i) + 1, "drawn": i + 1, "p": probs[i],
                                           "cut": cut[i]} for i, x in enumerate(texts)]})
        print("continue", story[:40], file=sys.stderr, flush=True)
    for item in _benchmark_items(args):  # the benchmark's own two options of each story, as the reader's controls
        for variant, text in ((BENCHMARK_GOLD, item.gold), (BENCHMARK_OTHER, item.option1 if item.label else
                                                            item.option2)):
            out["continue"].append({"story": _marked(item), "variant": variant, "conts": [{"text": text, "rank": 1}]})
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")


#: a read of Continue on the benchmark's own stories (`--benchmark TAG`) pools its two options with the writer's lines:
#: how strict the reader is on those stories; their text is the shared data's, so a record keeps only their labels
BENCHMARK_GOLD, BENCHMARK_OTHER = "benchmark option, plausible", "benchmark option, implausible"


def _benchmark_items(args) -> list:
    if not getattr(args, "benchmark", None):
        return []
    from studio.lab.continuation.data import read_items
    return read_items(args.benchmark, part=args.part)


def _marked(item) -> str:
    from studio.lab.continuation.data import marked
    return marked(item)


def _stories(args) -> list[str]:
    """The narratives to continue: --narratives FILE's lines, or --benchmark TAG's stories of the benchmark's test
    part (`studio.lab.continuation.data.read_items`), their figure marked as a user marks it."""
    if args.narratives:
        return _lines(args.narratives)
    return [_marked(item) for item in _benchmark_items(args)]


def _id(kind: str, source: str, line: str) -> str:
    from studio.lab.evaluation.reads import line_id
    return line_id(kind, source, line)


def pool(args) -> None:
    """Each input's lines of every system pooled (a line written by two systems read once), shuffled, without rank
    or system: reader.json for the reader, key.json kept apart."""
    d = json.loads(Path(args.read).read_text(encoding="utf-8"))
    rnd, reader, key = random.Random(7), {"polish": [], "continue": []}, {}
    for part, src, field, lines_field in (("polish", "literal", "cands", "sentence"),
                                          ("continue", "story", "conts", "text")):
        inputs = list(dict.fromkeys(row[src] for row in d[part]))
        for row in d[part]:
            for c in row[field]:
                i = _id(part, row[src], c[lines_field].strip())
                key.setdefault(i, {"kind": part, "input": row[src], "line": c[lines_field].strip(), "owners": []})
                key[i]["owners"].append([row["variant"], c["rank"]])
        for inp in inputs:
            items = [(i, v["line"]) for i, v in key.items() if v["kind"] == part and v["input"] == inp]
            rnd.shuffle(items)
            reader[part].append({"input": inp, "lines": [{"id": i, "text": t} for i, t in items]})
    Path(args.reader).write_text(json.dumps(reader, indent=1, ensure_ascii=False), encoding="utf-8")
    Path(args.key).write_text(json.dumps(key, indent=1, ensure_ascii=False), encoding="utf-8")


def record(args) -> None:
    """The committed records (blind_reads/*_blind_read_*.json): every line with its system, rank and label."""
    d = json.loads(Path(args.read).read_text(encoding="utf-8"))
    labels = {k: int(v) for k, v in json.loads(Path(args.labels).read_text(encoding="utf-8")).items()}
    if args.polish:
        literals = list(dict.fromkeys(row["literal"] for row in d["polish"]))
        rows = [{"id": _id("polish", row["literal"], c["sentence"].strip()), "variant": row["variant"],
                 "line": literals.index(row["literal"]) + 1, "literal": row["literal"], "rank": c["rank"],
                 "strategy": c["strategy"], "candidate": c["sentence"],
                 "usable": labels[_id("polish", row["literal"], c["sentence"].strip())]}
                for row in d["polish"] for c in row["cands"]]
        variants = {v: {"usable": sum(r["usable"] for r in rows if r["variant"] == v),
                        "candidates": sum(1 for r in rows if r["variant"] == v),
                        "asked": max(10, max(r["rank"] for r in rows if r["variant"] == v)) * len(literals),
                        "top3_usable": sum(r["usable"] for r in rows if r["variant"] == v and r["rank"] <= 3),
                        "top3": sum(1 for r in rows if r["variant"] == v and r["rank"] <= 3)}
                    for v in dict.fromkeys(r["variant"] for r in rows)}
        Path(args.polish).write_text(json.dumps({"how": args.how, "literals": args.literals_file,
                                                 "read_once": len({r["id"] for r in rows}), "variants": variants,
                                                 "rows": rows}, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.continuation:
        stories = list(dict.fromkeys(row["story"] for row in d["continue"]))
        rows = [{"id": _id("continue", row["story"], c["text"].strip()), "line": stories.index(row["story"]) + 1,
                 "generator": row["variant"] if not row["variant"].startswith("writer") else
                 f"{row['variant']}, best 3 of 6" if c["rank"] <= 3 else f"{row['variant']}, not shown",
                 "rank": c["rank"] if c["rank"] <= 3 or not row["variant"].startswith("writer") else c["rank"] - 3,
                 "drawn": c.get("drawn"), "cut": c.get("cut"),
                 "p_plausible": c.get("p"),
                 "continuation": None if row["variant"] in (BENCHMARK_GOLD, BENCHMARK_OTHER) else c["text"],
                 "usable": labels[_id("continue", row["story"], c["text"].strip())]}
                for row in d["continue"] for c in row["conts"]]
        Path(args.continuation).write_text(json.dumps({"how": args.how, "narratives": args.narratives_file,
                                                       "rows": rows}, indent=1, ensure_ascii=False), encoding="utf-8")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--literals")
    stories = g.add_mutually_exclusive_group()
    stories.add_argument("--narratives")
    stories.add_argument("--benchmark", metavar="TAG", help="10 idiom and 10 simile stories of the benchmark's test "
                         "part (or --part) chosen by TAG (studio.lab.continuation.data.read_items), with their two "
                         "options as controls; record with --narratives-file benchmark:TAG (benchmark:PART:TAG)")
    g.add_argument("--part", choices=("test", "dev"), default="test", help="with --benchmark: the benchmark's part")
    g.add_argument("--out", required=True)
    g.add_argument("--polish-variants", choices=sorted(POLISH_VARIANTS), default="writer")
    g.add_argument("--reread-pool", action="store_true", help="with --polish-variants reread: also the first 20 "
                   "before the reread")
    q = sub.add_parser("pool")
    q.add_argument("read")
    q.add_argument("--reader", required=True)
    q.add_argument("--key", required=True)
    r = sub.add_parser("record")
    r.add_argument("read")
    r.add_argument("key")
    r.add_argument("labels")
    r.add_argument("--polish")
    r.add_argument("--continuation")
    r.add_argument("--literals-file", default="")
    r.add_argument("--narratives-file", default="")
    r.add_argument("--how", default="")
    args = p.parse_args()
    {"generate": generate, "pool": pool, "record": record}[args.cmd](args)


if __name__ == "__main__":
    main()
