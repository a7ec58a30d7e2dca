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
from ...models.config import PROJECT_ROOT
from ...models.specs import POLISH_RANKER
from ...similes import aptness
from ...similes.polish import _score_all, attested, find_slots, is_clause, polisher_lm, realise

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
        cands = _score_all(lm, trained, literal, [[r] for r in rows]) if rows else []
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


def dataset(labels, rows, sets, split: str):
    keys = [k for k in labels if k in rows and split_of(sets.get(k[0], 0)) == split]
    x = np.stack([rows[k] for k in keys]) if keys else np.zeros((0, len(aptness.FEATURES)))
    y = np.array([int(np.mean(labels[k]) >= 0.5) for k in keys])
    return keys, x, y


def top3(lists, rows, sets, split: str, weights: dict | None, only=None) -> dict:
    """Top 3 usable of each labelled list of the split (its candidates today's code still makes), ordered as shown
    and by P(keep): {"lists", "slots", "shown", "ranked"} (ranked only with weights). `only`: the literal sets to
    count (default all of the split's)."""
    out = {"lists": 0, "slots": 0, "shown": 0, "ranked": 0}
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
        if weights is not None:
            p = aptness.p_keep(weights, np.stack([rows[(literal, key)] for _, key, _ in items]))
            order = np.argsort(-p, kind="stable")
            out["ranked"] += sum(items[i][2] for i in order[:k])
    return out


def fit(x, y, c: float) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    model = LogisticRegression(C=c, max_iter=2000).fit(scaler.transform(x), y)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    return {"features": list(aptness.FEATURES), "mean": scaler.mean_.round(6).tolist(),
            "scale": scale.round(6).tolist(), "coef": model.coef_[0].round(6).tolist(),
            "intercept": round(float(model.intercept_[0]), 6), "C": c}


def auc(y, scores) -> float | None:
    """ROC AUC of `scores` for the labels (None with one class only)."""
    from sklearn.metrics import roc_auc_score

    if len(set(y.tolist())) < 2:
        return None
    return round(float(roc_auc_score(y, scores)), 4)


def auc_of_keep(weights, x, y) -> float | None:
    return auc(y, aptness.p_keep(weights, x))


def auc_of_score(x, y) -> float | None:
    """The polisher's score alone, the baseline keep is compared with."""
    return auc(y, x[:, aptness.FEATURES.index("log_score")])


def prepare(progress=print, pool_file: Path | None = None):
    """(labels, lists, sets, feature rows, embedder id): everything the fit and the evaluation read. `pool_file`
    keeps the scored read candidates between runs (read when it exists, else written): the same code only."""
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
    return labels, lists, sets, rows, registry.spec("embedder").model_id


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
    labels, lists, sets, rows, embedder_id = prepare(say, args.pool)
    data = {split: dataset(labels, rows, sets, split) for split in ("train", "dev", "test")}
    counts = {split: {"candidates": len(d[1]), "usable": int(d[2].sum())} for split, d in data.items()}
    say(f"matched: {counts}")
    _, x_train, y_train = data["train"]
    _, x_dev, y_dev = data["dev"]
    trials = []
    for c in C_GRID:
        w = fit(x_train, y_train, c)
        t = top3(lists, rows, sets, "dev", w)
        trials.append({"C": c, "dev_top3_ranked": t["ranked"], "dev_top3_shown": t["shown"], "slots": t["slots"],
                       "dev_auc": auc_of_keep(w, x_dev, y_dev)})
        say(f"  C={c}: dev top 3 {t['ranked']}/{t['slots']} (shown {t['shown']}), AUC {trials[-1]['dev_auc']}")
    best = max(trials, key=lambda t: (t["dev_top3_ranked"], t["dev_auc"] or 0, -t["C"]))
    weights = fit(x_train, y_train, best["C"])
    figures = {}
    for split in ("train", "dev", "test"):
        _, x, y = data[split]
        figures[split] = {**top3(lists, rows, sets, split, weights), "auc": auc_of_keep(weights, x, y),
                          "auc_score_alone": auc_of_score(x, y)}
    meta = {"embedder": embedder_id, "fitted_on": "train (literal sets 1-3)", "splits": {
                "train": "blind_reads/polish_literals.txt, _2, _3", "dev": "blind_reads/polish_literals_4.txt, _5 (C chosen)",
                "test": "blind_reads/polish_literals_6.txt and later (reported only)"},
            "counts": counts, "C_trials": trials, "figures": figures,
            "command": "python -m studio train polish-ranker", "date": time.strftime("%Y-%m-%d"),
            "seconds": round(time.perf_counter() - started, 1)}
    if not args.no_save:
        atomic_write(args.out, json.dumps({"weights": weights, "meta": meta}, indent=1) + "\n")
        say(f"wrote {args.out}")
    return {"weights": weights, "meta": meta}
