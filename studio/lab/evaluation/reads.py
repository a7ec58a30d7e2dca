"""Blind reads: what a writer would keep of what the studio writes, tallied from the committed reading records.

The generated text of a read is reproducible by the command in its record (`how`); the labels are a reader's, kept
in the record row by row (blind_reads/*_blind_read_*.json). These evaluations count them, so that the figure that counts
for generation stands in results/ and in the README's table beside the model-scored ones, with the record it came
from. No choice is made on a report read; the dev reads of Polish (reads 4, 6, 9, 11, 15, 17, 21, 23, 24, 26 and 28)
and the earlier report reads (5, 7, 8, 10, 12, 14, 16, 18, 19, 20; 22, 27, 33 and 45 go in the details), Continue's dev
reads (blind_reads/continuation_dev_read_1.json, counted by `eval continuation-report --only ranking`, and _2 to _9)
and its earlier report reads (1-6) are recorded but not reported here. Reads 15-50 and Continue's 4-10 were made with
`bench/writer_read.py`.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from ...continuation.expression import find_expression
from ...continuation.judge import get_judge
from ...continuation.ranking import pool_signals, writer_order
from ...continuation.writing import ends_a_sentence
from ...errors import InputError
from ...models import ModelUnavailable, get_registry
from ...paths import PROJECT_ROOT
from .base import Evaluation, Figure, share_interval

POLISH_READ = "blind_reads/polish_blind_read_50.json"
POLISH_READ_LITERALS = "blind_reads/polish_literals_report_50.txt"
#: the served list (the writer polisher proposes the lm source's vehicles) and the list as it was before it (the 135 M
#: polisher proposing; docs/experiments.md#polish-writer-polisher), read in the same pool
POLISH_SERVED, POLISH_BEFORE = "writer polisher", "135 M polisher"
#: the report read before it that asked the same two variants (pooled with it in the details)
POLISH_PREVIOUS_READ = "blind_reads/polish_blind_read_45.json"
#: the report reads before it, counted beside it in the details: read 45 (the same two variants, before the writer's
#: articles and the "like" refusals), read 33 (the 135 M polisher, with the writer's reread, no keep floor), read 27
#: (the writer's reread, the image table of 2,129 adjectives) and read 22 (the image table of 578 adjectives)
POLISH_EARLIER_READS = ((POLISH_PREVIOUS_READ, POLISH_SERVED, None,
                         "the same two variants, before the writer's articles and the like refusals"),
                        ("blind_reads/polish_blind_read_33.json", "weak shown", None,
                         "the 135 M polisher proposing, the writer's reread"),
                        ("blind_reads/polish_blind_read_27.json", "writer reread", "first 20 before reread",
                         "the writer's reread, the image table of 2,129 adjectives"),
                        ("blind_reads/polish_blind_read_22.json", "writer reread", None,
                         "the image table of 578 adjectives"))
#: second fresh readers of read 50, and of reads 33 and 27 (one pool): how much a read's figure owes to its reader
POLISH_SECOND_READERS = ("blind_reads/polish_second_reader_50.json", "blind_reads/polish_second_reader_33.json")
#: the report reads of the served writer, pooled (each 20 new narratives written blind, never used for a choice)
CONTINUATION_READS = ("blind_reads/continuation_blind_read_7.json", "blind_reads/continuation_blind_read_8.json",
                      "blind_reads/continuation_blind_read_9.json")
CONTINUATION_SERVED, CONTINUATION_BEFORE = "writer, best 3 of 6", "writer, not shown"
#: a report read of the served writer on the benchmark's own stories (its test part, never used for a choice), the
#: stories' two benchmark options pooled with the writer's lines as the reader's controls: the inputs unseen data
#: brings. Why: docs/experiments.md#continuation-benchmark-read
CONTINUATION_BENCHMARK_READ = "blind_reads/continuation_blind_read_10.json"
BENCHMARK_PLAUSIBLE, BENCHMARK_IMPLAUSIBLE = "benchmark option, plausible", "benchmark option, implausible"


def _record(path: str) -> dict:
    return json.loads((PROJECT_ROOT / path).read_text(encoding="utf-8"))


def tally(rows: list[dict], key: str, value: str, top: int | None = None) -> tuple[int, int]:
    """(usable, read) over the rows whose `key` is `value` (and whose rank is at most `top`, when given)."""
    chosen = [r for r in rows if r[key] == value and (top is None or r["rank"] <= top)]
    return sum(int(r["usable"]) for r in chosen), len(chosen)


def _narrative(row: dict):
    """The input a read row continues: its narrative's text where known (reads pooled), else its line number."""
    return row.get("narrative") or int(row["line"])


def continuation_rows(paths: tuple[str, ...]) -> list[dict]:
    """The rows of several Continue read records, each with the text of the narrative it continues (and its kind,
    for a read of the benchmark's stories)."""
    out = []
    for path in paths:
        record = _record(path)
        stories = _narratives(record["narratives"])
        for r in record["rows"]:
            if not 1 <= int(r["line"]) <= len(stories):
                raise InputError(f"{path}: line {r['line']} has no story in {record['narratives']}")
            story, kind = stories[int(r["line"]) - 1]
            if kind and r["continuation"] is not None and r["id"] != line_id("continue", story, r["continuation"]):
                raise InputError(f"{path}: the stories rebuilt from the shared data are not the ones read (line "
                                 f"{r['line']}): another version of ../shared/data?")
            out.append({**r, "narrative": story, "kind": kind, "read": path})
    return out


def line_id(kind: str, source: str, line: str) -> str:
    """A read line's id in its record: "polish" or "continue", the literal or story it was written for, the line
    (bench/writer_read.py gives them; a rebuilt story is checked by them)."""
    return hashlib.sha1(f"{kind}|{source}|{line.strip()}".encode()).hexdigest()[:8]


def _narratives(source: str) -> list[tuple[str, str]]:
    """A record's narratives, each with its kind ("" when the record does not say): the lines of a committed file,
    or "benchmark:TAG" / "benchmark:PART:TAG", the stories of the benchmark's test (or PART) that a read chose by TAG
    (`data.read_items`; rebuilt from ../shared/data, whose text is never committed)."""
    if source.startswith("benchmark:"):
        from ..continuation.data import marked, read_items
        *part, tag = source.split(":")[1:]
        return [(marked(item), item.kind) for item in read_items(tag, part=part[0] if part else "test")]
    text = (PROJECT_ROOT / source).read_text(encoding="utf-8")
    return [(x.strip(), "") for x in text.splitlines() if x.strip() and not x.startswith("#")]


def _best(rows: list[dict], key, n: int) -> tuple[int, int]:
    """(usable, shown) if each input's `n` shown were picked from its rows (grouped by `key`) by the reader's own
    labels: the ceiling of any ranker over that pool."""
    pools: dict = {}
    for r in rows:
        pools.setdefault(key(r), []).append(int(r["usable"]))
    return sum(sum(sorted(p, reverse=True)[:n]) for p in pools.values()), sum(min(n, len(p)) for p in pools.values())


def best_shown(rows: list[dict], generators: tuple[str, ...], n: int) -> tuple[int, int]:
    """`_best` over everything each narrative's `generators` drew."""
    return _best([r for r in rows if r["generator"] in generators], _narrative, n)


def best_polish(rows: list[dict], n: int) -> tuple[int, int]:
    """`_best` over each literal's rows."""
    return _best(rows, lambda r: r["literal"], n)


def _share(pair: tuple[int, int]) -> float | None:
    return pair[0] / pair[1] if pair[1] else None


class PolishReadEvaluation(Evaluation):
    name = "polish-read"
    title = "Polish: candidates a writer would keep (blind read of 20 new literals, 10 candidates each)"
    splits = {"blind read": f"{POLISH_READ}: {POLISH_READ_LITERALS}, written for the read by a "
                            "session that saw no output and never used for a choice; the served list (the writer "
                            "polisher proposing) and the list with the 135 M polisher proposing, as before it, "
                            "pooled, shuffled, read without rank, score, source or version; a list shorter than 10 "
                            "counts its missing lines as not kept"}

    def _compute(self, limit):
        record = _record(POLISH_READ)
        rows, asked = record["rows"], record["variants"][POLISH_SERVED]["asked"]
        literals = len({r["literal"] for r in rows})
        figures, details = [], {}
        for metric, top, of in (("usable of the 10 candidates (target 0.60)", None, asked),
                                ("usable of the top 3 (target 0.80)", 3, 3 * literals)):
            served, before = tally(rows, "variant", POLISH_SERVED, top), tally(rows, "variant", POLISH_BEFORE, top)
            details[metric] = {"served": served, POLISH_BEFORE: before, "asked": of}
            # the share of what was asked: a list shorter than 10 counts its missing candidates as not kept; the
            # list as it was before (the 135 M polisher proposing), read in the same read, is the anchor beside it:
            # another reader or other literals move a read's figure more than a change does
            share = served[0] / of
            anchor = {"value": round(before[0] / of, 4), "source": f"the same read, the {POLISH_BEFORE} proposing "
                                                                   "(as before)"}
            figures.append(Figure(metric, share, "blind read", of, interval=share_interval(share, of), anchor=anchor))
        details["first line usable, served"] = tally(rows, "variant", POLISH_SERVED, 1)
        # read 45 asked the same two variants (before the writer's articles and the like refusals, which change 13
        # of its 200 served lines): pooled, the literals of both reads, two readers
        pooled = rows + _record(POLISH_PREVIOUS_READ)["rows"]
        details[f"the served list, pooled with {POLISH_PREVIOUS_READ} ({len({r['literal'] for r in pooled})} "
                "literals)"] = {"usable": tally(pooled, "variant", POLISH_SERVED),
                                "top 3": tally(pooled, "variant", POLISH_SERVED, 3)}
        for path, served_name, pool_name, what in POLISH_EARLIER_READS:
            earlier = _record(path)["rows"]
            entry = {"served": tally(earlier, "variant", served_name),
                     "served, top 3": tally(earlier, "variant", served_name, 3)}
            pool = [r for r in earlier if r["variant"] == pool_name]
            if pool:  # what the 20 the reread chose from held, and the most any order of them could put in the top 3
                entry["the first 20 before the reread"] = {
                    "usable": tally(earlier, "variant", pool_name),
                    "best 3 of the 20 a perfect order would show": best_polish(pool, 3)}
            details[f"earlier report read ({path}, other literals, {what})"] = entry
        for path in POLISH_SECOND_READERS:
            details["a second reader (" + path + ")"] = second_reader(path)
        return figures, details


def second_reader(path: str) -> dict:
    """For each read a second reader labelled: the served list's usable lines and top 3 by each reader, and how often
    the two agree on a distinct line (the share, and Cohen's kappa)."""
    from sklearn.metrics import cohen_kappa_score

    second = _record(path)
    served_as = {POLISH_READ: POLISH_SERVED, **{p: name for p, name, _, _ in POLISH_EARLIER_READS}}
    out = {}
    for read, record_path in second["reads"].items():
        theirs = {r["id"]: r["usable"] for r in second["rows"] if str(r["read"]) == read}
        rows = _record(record_path)["rows"]
        first = {r["id"]: r["usable"] for r in rows}
        ids = sorted(first)
        a, b = np.array([first[i] for i in ids]), np.array([theirs[i] for i in ids])
        agree, kappa = float((a == b).mean()), float(cohen_kappa_score(a, b))
        shown = [r for r in rows if r["variant"] == served_as[record_path]]
        out[f"read {read}"] = {
            "served, usable (first reader, second reader)": [sum(r["usable"] for r in shown),
                                                             sum(theirs[r["id"]] for r in shown)],
            "served, top 3 (first, second)": [sum(r["usable"] for r in shown if r["rank"] <= 3),
                                              sum(theirs[r["id"]] for r in shown if r["rank"] <= 3)],
            "distinct lines": len(ids), "agreement": round(agree, 3), "kappa": round(kappa, 3)}
    return out


class ContinuationReadEvaluation(Evaluation):
    name = "continuation-read"
    title = ("Continue: continuations fluent and true to the figure (blind reads of 60 new narratives and of 20 of "
             "the benchmark's own, 3 shown each)")
    splits = {"blind read": f"{', '.join(CONTINUATION_READS)}: each 20 narratives (10 idioms, 10 similes; "
                            "blind_reads/continuation_narratives_report_7.txt, _8.txt, _9.txt) written for the read by "
                            "a session that saw no output, read by its own fresh reader; the served writer's 6 samples "
                            "of each (the 3 shown and the 3 not), shuffled and read without source or rank; the 3 "
                            "shown are those served when the read was made (reads 7-8: by the judge; read 9: by the "
                            "judge with a restatement of the story's last sentence moved down)",
              "benchmark stories": f"{CONTINUATION_BENCHMARK_READ}: 20 stories of the benchmark's own test part (10 "
                                   "idioms, 10 similes; data.read_items('read44'), never used for a choice), the "
                                   "served writer's 6 samples of each and the story's two benchmark options, shuffled "
                                   "and read by one fresh reader without source or rank"}

    def _compute(self, limit):
        rows = continuation_rows(CONTINUATION_READS)
        served, before = tally(rows, "generator", CONTINUATION_SERVED), tally(rows, "generator", CONTINUATION_BEFORE)
        top1 = tally(rows, "generator", CONTINUATION_SERVED, top=1)
        figures = [Figure("usable continuations (target 0.70)", _share(served), "blind read", served[1],
                          interval=share_interval(_share(served), served[1])),
                   Figure("the first continuation shown usable", _share(top1), "blind read", top1[1], headline=False)]
        details = {"served": served, "not shown (the other 3 of the pool)": before, "first shown, served": top1,
                   "best 3 of the 6 a perfect ranker would show": best_shown(rows, (CONTINUATION_SERVED,
                                                                                   CONTINUATION_BEFORE), 3)}
        details["per read: shown usable, first shown usable"] = {
            path: [tally(part, "generator", CONTINUATION_SERVED), tally(part, "generator", CONTINUATION_SERVED, top=1)]
            for path in CONTINUATION_READS for part in ([r for r in rows if r["read"] == path],)}
        figures += _benchmark_read(details)
        others = sorted({r["generator"] for r in rows} - {CONTINUATION_SERVED, CONTINUATION_BEFORE})
        for generator in others:  # another writer read in the same read (the same reader, the same narratives)
            details[generator] = tally(rows, "generator", generator)
        # which of a narrative's (up to) 3 read continuations the judge puts first: the labels are the reader's, the
        # ranking is recomputed, so a judge served after the read is measured on the same continuations
        if get_registry().profile == "tiny":  # random models: no ranking worth counting
            return figures, details
        judge = get_judge()
        if judge is not None:
            try:
                embedder = get_registry().get("embedder")
            except ModelUnavailable as exc:
                embedder, details["embedder"] = None, f"not available ({exc.reason}): orders without the restatement"
            scored = scored_pools(rows, (CONTINUATION_SERVED, CONTINUATION_BEFORE), judge, embedder)
            details["first choice usable"] = {
                "served judge (" + judge.name + "), the 3 shown in the order without the restatement's move":
                    first_usable(scored, by_restating=False, only=(CONTINUATION_SERVED,)),
                "any of the narrative's continuations": any_usable(rows, CONTINUATION_SERVED)}
            for name, part in [("all reads", scored)] + [(path, [x for x in scored if x[0][0]["read"] == path])
                                                          for path in CONTINUATION_READS]:
                details[f"the pool of 6 in today's writer order (ranking.writer_order), {name}"] = {
                    "first shown usable": first_usable(part), "3 shown usable": first_usable(part, top=3),
                    "without the restatement's move: first": first_usable(part, by_restating=False),
                    "without the restatement's move: 3 shown": first_usable(part, top=3, by_restating=False)}
        return figures, details


def _benchmark_read(details: dict) -> list[Figure]:
    """The served writer on the benchmark's own stories (CONTINUATION_BENCHMARK_READ): its figure, and in `details`
    what the same reader kept of the benchmark's own options (how strict the read is on these stories). Without the
    shared data (the stories are rebuilt from it) the details say so and no figure is given."""
    try:
        rows = continuation_rows((CONTINUATION_BENCHMARK_READ,))
    except InputError as exc:
        details["the benchmark's stories"] = f"not counted: {exc}"
        return []
    shown, first = tally(rows, "generator", CONTINUATION_SERVED), tally(rows, "generator", CONTINUATION_SERVED, top=1)
    details["the benchmark's stories (" + CONTINUATION_BENCHMARK_READ + ")"] = {
        "stories": _record(CONTINUATION_BENCHMARK_READ)["narratives"] + " (data.read_items): 10 idioms, 10 similes "
                   "of the benchmark's test part",
        "served": shown, "first shown, served": first,
        "not shown (the other 3 of the pool)": tally(rows, "generator", CONTINUATION_BEFORE),
        "best 3 of the 6 a perfect ranker would show": best_shown(rows, (CONTINUATION_SERVED, CONTINUATION_BEFORE), 3),
        "the benchmark's plausible option": tally(rows, "generator", BENCHMARK_PLAUSIBLE),
        "the benchmark's implausible option": tally(rows, "generator", BENCHMARK_IMPLAUSIBLE),
        **{f"served, {kind}s": tally([r for r in rows if r["kind"] == kind], "generator", CONTINUATION_SERVED)
           for kind in ("idiom", "simile")}}
    return [Figure("usable continuations, the benchmark's own stories", _share(shown), "benchmark stories",
                   shown[1], interval=share_interval(_share(shown), shown[1])),
            Figure("the first continuation shown usable, the benchmark's own stories", _share(first),
                   "benchmark stories", first[1], headline=False)]


def _by_narrative(rows: list[dict], generators: tuple[str, ...]) -> dict:
    out: dict = {}
    for r in rows:
        if r["generator"] in generators:
            out.setdefault(_narrative(r), []).append(r)
    return out


def scored_pools(rows: list[dict], generators: tuple[str, ...], judge, embedder=None) -> list[tuple]:
    """Per narrative, what writer mode orders its pool by (ranking.writer_order): (its rows the `generators` drew,
    the judge's probabilities, whether each was cut short (the record's flag, else `writing.ends_a_sentence`, the
    rule the writer's samples are cut by), its slips, its cosines with the story's last sentence or None without an
    `embedder`). The rows carry their narrative (`continuation_rows`), its expression found as the Continue tab finds
    it; the labels are the reader's, the scores are recomputed, so a judge or an order served after the read is
    measured on the same continuations."""
    out = []
    for narrative, group in _by_narrative(rows, generators).items():
        text, expr = find_expression(narrative)
        texts = [r["continuation"] for r in group]
        cut = [bool(r["cut"]) if r.get("cut") is not None else not ends_a_sentence(t) for r, t in zip(group, texts)]
        out.append((group, np.asarray(judge.rank(text, texts, expr), dtype=float), cut,
                    *pool_signals(text, expr, texts, embedder)))
    return out


def first_usable(scored: list[tuple], top: int = 1, by_restating: bool = True,
                 only: tuple[str, ...] | None = None) -> tuple[int, int]:
    """(usable among each pool's first `top` in writer mode's order, continuations counted), from `scored_pools`;
    `by_restating` False: without the restatement's move (the tiers and the judge); `only`: the rows of these
    generators alone (the 3 a read showed)."""
    usable = counted = 0
    for group, p, cut, slipped, restates in scored:
        keep = [i for i, r in enumerate(group) if only is None or r["generator"] in only]
        best = writer_order(p[keep], [cut[i] for i in keep], [slipped[i] for i in keep],
                            [restates[i] for i in keep] if by_restating and restates is not None else None)[:top]
        usable += sum(int(group[keep[i]]["usable"]) for i in best)
        counted += len(best)
    return usable, counted


def ordered_usable(rows: list[dict], generators: tuple[str, ...], judge, embedder=None,
                   top: int = 1) -> tuple[int, int]:
    """`first_usable` of the pools the `generators` drew, in writer mode's order (the judge alone without an
    `embedder`)."""
    return first_usable(scored_pools(rows, generators, judge, embedder), top)


def any_usable(rows: list[dict], generator: str) -> tuple[int, int]:
    groups = _by_narrative(rows, (generator,))
    return sum(any(int(r["usable"]) for r in g) for g in groups.values()), len(groups)
