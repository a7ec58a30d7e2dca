"""`python -m studio train polish-ranker`: fit Polish's ranker (studio/similes/aptness.py) on our own blind reads.

Data. Every committed blind read (`blind_reads/polish_blind_read_*.json`) holds Polish candidates of our own literal
sentences (`blind_reads/polish_literals*.txt`, none from ../shared/data), each judged usable or not by a reader who saw
neither rank, score nor source. Each read candidate is placed at the slot of its literal where today's realiser
makes exactly that sentence and scored by today's polisher, as Polish scores its own, so that the features are the
served ones; a candidate today's realiser cannot make is left out, and one read several times takes the mean of
its labels (usable when ≥ 0.5). The source (lm, retrieval, property) is the read's.

Splits, by literal set (a set's sentences were written together, before any of its lists was read):
train = sets 1–3 (blind_reads/polish_literals.txt, _2, _3), dev = sets 4–5 (every choice: C, the feature groups),
test = sets 6–7 and any later set (reported, never chosen on). The served weights are fitted on train only.

Two sets of weights, one file: keep's (aptness.FEATURES), and the writer's reread (aptness.REREAD_FEATURES: keep's and
the writer's log-likelihood per token of each candidate's simile, as Polish's reread asks it, and its z-score among
the literal's candidates), fitted the same way when the profile's writer rereads (the offline profile; about five
minutes of the writer for the pool), with the writer's id, so that another writer gets no reread.

The figure that counts for a writer is the top 3 of a list: for every list a reader labelled (read, variant,
literal), its labelled candidates are ordered by P(keep) and by the order they were shown in; the top 3's usable
share of each is compared on the same candidates.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from ...atomic import atomic_write
from ...models import get_registry
from ...paths import PROJECT_ROOT
from ...models.specs import POLISH_RANKER
from ...similes import aptness
from ...similes.ranking import REREAD_BACKENDS, simile_tail, tails_by_beginning
from ...similes.polisher import Candidate, score_all, polisher_lm
from ...similes.realiser import attested, is_clause, realise
from ...similes.slots import find_slots

BLIND_READS_DIR = PROJECT_ROOT / "blind_reads"
SPLITS = {"train": (1, 2, 3), "dev": (4, 5)}  # every later set is test
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
#: a literal set's file: polish_literals.txt (set 1), polish_literals_N.txt, and the later reads' sets named for
#: their use, polish_literals_dev_N.txt (read to make Polish's choices) and polish_literals_report_N.txt (reported)
_SET_FILE = re.compile(r"polish_literals(?:_(?:dev|report))?(?:_(\d+))?\.txt")


def split_of(literal_set: int) -> str:
    """train: sets 1-3; dev: sets 4-5; test: every later set (6-10 and the dev and report reads' sets, which neither
    the fit nor its choices saw). Why the later reads' sets do not join train:
    docs/experiments.md#polish-ranker-refit"""
    return next((name for name, sets in SPLITS.items() if literal_set in sets), "test")


def literal_sets() -> dict[str, int]:
    """literal → its set number (blind_reads/polish_literals.txt is set 1, polish_literals_N.txt,
    polish_literals_dev_N.txt and polish_literals_report_N.txt set N); a literal in two sets belongs to the first."""
    out: dict[str, int] = {}
    files: dict[int, Path] = {}
    for path in sorted(BLIND_READS_DIR.glob("polish_literals*.txt")):
        if m := _SET_FILE.fullmatch(path.name):
            number = int(m.group(1) or 1)
            if number in files:
                raise ValueError(f"two literal sets numbered {number}: {files[number].name} and {path.name}")
            files[number] = path
    for number, path in sorted(files.items()):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                out.setdefault(line.strip(), number)
    return out


def norm(sentence: str) -> str:
    return re.sub(r"\W+", " ", sentence.lower()).strip()


def read_labels(paths=None, seen: dict | None = None) -> tuple[dict, list]:
    """({(literal, normalised candidate): [usable, …]}, [lists]): a list is (read, variant, literal, [(rank,
    normalised candidate, usable)]) as a reader saw it. `seen`, when given, gathers {literal: {normalised candidate:
    (sentence, source)}}."""
    labels: dict[tuple[str, str], list[int]] = defaultdict(list)
    lists: dict[tuple, list] = defaultdict(list)
    for path in paths or sorted(BLIND_READS_DIR.glob("polish_blind_read_*.json")):
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        for r in record["rows"]:
            if r.get("usable") is None:
                continue
            key = (r["literal"], norm(r["candidate"]))
            labels[key].append(int(r["usable"]))
            if seen is not None:
                seen.setdefault(r["literal"], {}).setdefault(key[1], (r["candidate"], r.get("strategy", "lm")))
            lists[(Path(path).stem, r.get("variant", ""), r["literal"])].append((int(r["rank"]), key[1],
                                                                                  int(r["usable"])))
    return dict(labels), [(k[0], k[1], k[2], sorted(v)) for k, v in lists.items()]


def reconstruct(candidates: dict[str, dict[str, str]], progress=print) -> dict[str, dict]:
    """literal → {"candidates": [Candidate dicts], "subject"} for the read candidates ({literal: {normalised
    candidate: (sentence, strategy)}}) that today's realiser makes at one of the literal's slots, each scored by
    today's polisher exactly as Polish scores it; the others are left out."""
    from ...figures.kb import load_kb

    parser, kb = get_registry().get("parser"), load_kb()
    lm, trained = polisher_lm()
    out, started = {}, time.perf_counter()
    for k, (literal, wanted) in enumerate(candidates.items()):
        doc = parser(literal)
        slots = find_slots(literal, doc)
        rows = [row for sentence, strategy in wanted.values()
                if (row := _at_a_slot(literal, slots, sentence, strategy, kb)) is not None]
        cands = score_all(lm, trained, literal, [[r] for r in rows]) if rows else []
        out[literal] = {"candidates": [c.to_dict() for c in cands], "subject": aptness.subject_of(doc)}
        if progress and (k + 1) % 20 == 0:
            progress(f"  scored the read candidates of {k + 1}/{len(candidates)} literals "
                     f"({time.perf_counter() - started:.0f} s)")
    return out


def _at_a_slot(literal, slots, sentence, strategy, kb):
    """The row Polish would have made for `sentence` (a read candidate) at one of the slots, or None."""
    for slot in slots:
        before, after = literal[:slot.start].rstrip(), literal[slot.end:]
        lead = f"{before} " if before else ""
        if not sentence.startswith(lead) or (after and not sentence.endswith(after)):
            continue
        phrase = sentence[len(lead):len(sentence) - len(after)].rstrip() if after else sentence[len(lead):]
        opener = f"as {slot.adjective} as " if slot.kind == "adjective" else "like "
        if phrase.lower().startswith(opener.lower()):
            vehicle = phrase[len(opener):].strip()
        elif slot.kind == "verb" and is_clause(phrase):
            vehicle = phrase.strip()
        else:
            continue
        made, made_phrase, offset = realise(literal, slot, vehicle)
        if norm(made) != norm(sentence):
            continue
        return {"strategy": strategy, "slot": slot, "vehicle": vehicle, "sentence": made, "phrase": made_phrase,
                "offset": offset, "attested": slot.kind == "adjective" and attested(kb, slot.anchor, vehicle),
                "rank": None}  # scored by the polisher, as keep was fitted: no source's own order
    return None


def featurise(pool: dict[str, dict], encode) -> dict[tuple[str, str], np.ndarray]:
    """(literal, normalised candidate) → its feature row, for every scored read candidate."""
    out = {}
    for literal, entry in pool.items():
        cands = entry["candidates"]
        items = [aptness.Item(c["vehicle"], c["score"], c["strategy"], c["attested"], c["kind"], c["cue"],
                              is_clause(c["vehicle"])) for c in cands]
        x = aptness.features(items, literal, entry["subject"], encode)
        for c, row in zip(cands, x):
            out[(literal, norm(c["sentence"]))] = row
    return out


def writer_fit(pool: dict[str, dict], progress=print) -> bool:
    """Adds to each pooled candidate the writer's log-likelihood of its simile's words after the comparison word
    ("writer": [total, tokens], as Polish's reread asks it; None without a comparison word), computing only what is
    missing; False, with nothing added, when the profile's writer does not reread (ranking.REREAD_BACKENDS)."""
    registry = get_registry()
    if registry.spec("writer").backend not in REREAD_BACKENDS:
        return False
    missing = (simile_tail(Candidate(**c)) for entry in pool.values() for c in entry["candidates"] if "writer" not in c)
    need = {ctx: sorted(conts) for ctx, conts in tails_by_beginning(missing).items()}
    writer, started, done = registry.get("writer"), time.perf_counter(), {}
    contexts = sorted(need)
    for k in range(0, len(contexts), 20):
        chunk = contexts[k:k + 20]
        for ctx, result in zip(chunk, writer.loglik_many([(ctx, need[ctx], None) for ctx in chunk])):
            done.update({(ctx, cont): [float(total), int(count)] for cont, (total, count) in zip(need[ctx], result)})
        if progress:
            progress(f"  the writer read {min(k + 20, len(contexts))}/{len(contexts)} sentence beginnings "
                     f"({time.perf_counter() - started:.0f} s)")
    for entry in pool.values():
        for c in entry["candidates"]:
            if "writer" not in c:
                tail = simile_tail(Candidate(**c))
                c["writer"] = None if tail is None else done[tail]
    return True


def reread_rows(pool: dict[str, dict], rows: dict) -> dict[tuple[str, str], np.ndarray]:
    """(literal, normalised candidate) → its row of aptness.REREAD_FEATURES: keep's row and the writer's fit per
    token, its z-score among the literal's pooled candidates (`writer_fit` first)."""
    out = {}
    for literal, entry in pool.items():
        keys = [(literal, norm(c["sentence"])) for c in entry["candidates"]]
        if not keys:
            continue
        fit_ = [float("-inf") if c.get("writer") is None else c["writer"][0] / max(c["writer"][1], 1)
                for c in entry["candidates"]]
        for key, row in zip(keys, aptness.reread_features(np.stack([rows[k] for k in keys]), fit_)):
            out[key] = row
    return out


def dataset(labels, rows, sets, split: str):
    keys = [k for k in labels if k in rows and split_of(sets.get(k[0], 0)) == split]
    width = len(next(iter(rows.values()))) if rows else len(aptness.FEATURES)
    x = np.stack([rows[k] for k in keys]) if keys else np.zeros((0, width))
    y = np.array([int(np.mean(labels[k]) >= 0.5) for k in keys])
    return keys, x, y


def top3(lists, rows, sets, split: str, weights: dict | None, only=None, features=aptness.FEATURES) -> dict:
    """Top 3 usable of each labelled list of the split (its candidates today's code still makes), ordered as shown
    and by P(keep): {"lists", "slots", "shown", "ranked", "first_shown", "first_ranked"} (ranked only with weights).
    `only`: the literal sets to count (default all of the split's); `features`: the rows' columns (keep's, or the
    reread's with `reread_rows`)."""
    out = {"lists": 0, "slots": 0, "shown": 0, "ranked": 0, "first_shown": 0, "first_ranked": 0}
    for _read, _variant, literal, items in lists:
        if split_of(sets.get(literal, 0)) != split or (only is not None and sets.get(literal) not in only):
            continue
        items = [(rank, key, u) for rank, key, u in items if (literal, key) in rows]
        if len(items) < 4:  # nothing to reorder that changes a top 3
            continue
        k = 3
        out["lists"] += 1
        out["slots"] += k
        out["shown"] += sum(u for _, _, u in sorted(items)[:k])
        out["first_shown"] += sorted(items)[0][2]
        if weights is not None:
            p = aptness.p_keep(weights, np.stack([rows[(literal, key)] for _, key, _ in items]), features)
            order = np.argsort(-p, kind="stable")
            out["ranked"] += sum(items[i][2] for i in order[:k])
            out["first_ranked"] += items[order[0]][2]
    return out


def fit(x, y, c: float, features=aptness.FEATURES) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=c, max_iter=2000).fit(scaler.transform(x), y)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    return {"features": list(features), "mean": scaler.mean_.round(6).tolist(),
            "scale": scale.round(6).tolist(), "coef": model.coef_[0].round(6).tolist(),
            "intercept": round(float(model.intercept_[0]), 6), "C": c}


def auc(y, scores) -> float | None:
    """ROC AUC of `scores` for the labels (None with one class only)."""
    from sklearn.metrics import roc_auc_score

    if len(set(y.tolist())) < 2:
        return None
    return round(float(roc_auc_score(y, scores)), 4)


def auc_of_keep(weights, x, y, features=aptness.FEATURES) -> float | None:
    return auc(y, aptness.p_keep(weights, x, features))


def auc_of_score(x, y) -> float | None:
    """The polisher's score alone, the baseline keep is compared with."""
    return auc(y, x[:, aptness.FEATURES.index("log_score")])


def prepare(progress=print, pool_file: Path | None = None, writer: bool = False):
    """(labels, lists, sets, feature rows, embedder id, reread rows): everything the fit and the evaluation read.
    `pool_file` keeps the scored read candidates between runs (read when it exists, else written): the same code
    only. With `writer`, the reread's rows (`reread_rows`; None when the profile's writer does not reread)."""
    sets, seen = literal_sets(), {}
    labels, lists = read_labels(seen=seen)
    seen = {lit: seen[lit] for lit in sorted(seen, key=lambda lit: (sets.get(lit, 0), lit)) if lit in sets}
    if pool_file is not None and Path(pool_file).is_file():
        pool = json.loads(Path(pool_file).read_text(encoding="utf-8"))
    else:
        if progress:
            progress(f"{len(labels)} labelled candidates of {len(seen)} literals; scoring them as Polish does today")
        pool = reconstruct(seen, progress)
        if pool_file is not None:
            atomic_write(pool_file, json.dumps(pool))
    registry = get_registry()
    rows = featurise(pool, registry.get("embedder").encode)
    reread = None
    if writer and writer_fit(pool, progress):
        if pool_file is not None:
            atomic_write(pool_file, json.dumps(pool))
        reread = reread_rows(pool, rows)
    return labels, lists, sets, rows, registry.spec("embedder").model_id, reread


def train(argv: list[str]) -> dict:
    p = argparse.ArgumentParser(prog="python -m studio train polish-ranker", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=POLISH_RANKER)
    p.add_argument("--no-save", action="store_true")
    p.add_argument("--pool", type=Path, default=None,
                   help="keep the scored read candidates in this JSON file and reuse them when it exists (the "
                        "same code only: a development aid)")
    args = p.parse_args(argv)

    def say(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    labels, lists, sets, rows, embedder_id, reread = prepare(say, args.pool, writer=True)
    weights, meta = _fit_chosen(labels, lists, sets, rows, aptness.FEATURES, say)
    meta.update({"embedder": embedder_id, "fitted_on": "train (literal sets 1-3)", "splits": {
        "train": "blind_reads/polish_literals.txt, _2, _3", "dev": "blind_reads/polish_literals_4.txt, _5 (C chosen)",
        "test": "blind_reads/polish_literals_6.txt and later (reported only)"}})
    out = {"weights": weights, "meta": meta}
    if reread is None:
        say("the profile's writer does not reread: no reread weights (Polish keeps keep's order)")
    else:
        say("the writer's reread (keep's features and the writer's fit):")
        out["reread"], meta["reread"] = _fit_chosen(labels, lists, sets, reread, aptness.REREAD_FEATURES, say)
        meta["writer"] = get_registry().spec("writer").model_id
    meta.update({"command": "python -m studio train polish-ranker", "date": time.strftime("%Y-%m-%d"),
                 "seconds": round(time.perf_counter() - started, 1)})
    if not args.no_save:
        atomic_write(args.out, json.dumps(out, indent=1) + "\n")
        say(f"wrote {args.out}")
    return out


def _fit_chosen(labels, lists, sets, rows, features, say) -> tuple[dict, dict]:
    """Weights fitted on train with C chosen by dev top 3 (then dev AUC, then the smaller C), and their figures."""
    data = {split: dataset(labels, rows, sets, split) for split in ("train", "dev", "test")}
    counts = {split: {"candidates": len(d[1]), "usable": int(d[2].sum())} for split, d in data.items()}
    say(f"matched: {counts}")
    _, x_train, y_train = data["train"]
    _, x_dev, y_dev = data["dev"]
    trials = []
    for c in C_GRID:
        w = fit(x_train, y_train, c, features)
        t = top3(lists, rows, sets, "dev", w, features=features)
        trials.append({"C": c, "dev_top3_ranked": t["ranked"], "dev_top3_shown": t["shown"], "slots": t["slots"],
                       "dev_first_ranked": t["first_ranked"], "dev_auc": auc_of_keep(w, x_dev, y_dev, features)})
        say(f"  C={c}: dev top 3 {t['ranked']}/{t['slots']} (shown {t['shown']}), first {t['first_ranked']}, "
            f"AUC {trials[-1]['dev_auc']}")
    best = max(trials, key=lambda t: (t["dev_top3_ranked"], t["dev_auc"] or 0, -t["C"]))
    weights = fit(x_train, y_train, best["C"], features)
    figures = {}
    for split in ("train", "dev", "test"):
        _, x, y = data[split]
        figures[split] = {**top3(lists, rows, sets, split, weights, features=features),
                          "auc": auc_of_keep(weights, x, y, features), "auc_score_alone": auc_of_score(x, y)}
    return weights, {"counts": counts, "C_trials": trials, "figures": figures}
