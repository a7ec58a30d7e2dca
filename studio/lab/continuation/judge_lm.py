"""Experiment: does an LM's likelihood of each option after the narrative help the continuation judge?

For every narrative of the validation part (data.split3 dev + test) the LM scores each of its options after the
narrative, log P(option | narrative), and alone, log P(option) (PMI = the difference); then, over the same rows, a
logistic regression on the served judge's score difference with and without the LM's differences, cross-validated
in 5 folds grouped by narrative. Features are cached in a JSON-lines file (resumable: a 1.5 B model takes ~10 s a
narrative on one core).

    python -m studio.lab.continuation.judge_lm --role writer --features /tmp/judge_lm_writer.jsonl [--narratives N]

Findings: docs/experiments.md ("judgements that transfer").
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from ...models import get_registry
from ...continuation.crossjudge import get_cross_judge


def narrative_key(kind: str, narrative: str) -> str:
    return hashlib.sha1(f"{kind}|{narrative}".encode()).hexdigest()[:16]


def validation_items(kinds=None):
    from . import data

    return [it for kind in kinds or data.KINDS for part in ("dev", "test") for it in data.split3(kind)[part]]


def compute_features(role: str, path: Path, narratives: int | None, kinds=None) -> dict:
    """{narrative key: {option: [log P(option | narrative), tokens, log P(option), tokens]}}, appended to `path`."""
    done = {}
    if path.is_file():
        done = {r["key"]: r["options"] for r in map(json.loads, path.read_text().splitlines()) if r}
    by_narrative: dict[tuple[str, str], set[str]] = {}
    for it in validation_items(kinds):
        by_narrative.setdefault((it.kind, it.narrative), set()).update((it.option1, it.option2))
    todo = [k for k in sorted(by_narrative, key=lambda k: narrative_key(*k))][:narratives]
    lm = None
    with open(path, "a", encoding="utf-8") as fh:
        for kind, narrative in todo:
            key = narrative_key(kind, narrative)
            if key in done:
                continue
            lm = lm or get_registry().get(role)
            options = sorted(by_narrative[(kind, narrative)])
            cond = lm.loglik_shared(narrative, [" " + o for o in options])
            alone = lm.loglik_shared("", options)
            done[key] = {o: [c[0], c[1], a[0], a[1]] for o, c, a in zip(options, cond, alone)}
            fh.write(json.dumps({"key": key, "kind": kind, "options": done[key]}) + "\n")
            fh.flush()
    return done


def evaluate(features: dict) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    from .judge_train import score_differences

    items = [it for it in validation_items() if narrative_key(it.kind, it.narrative) in features]
    judge, labels = score_differences(get_cross_judge(), items)

    def lm_diff(it):
        f = features[narrative_key(it.kind, it.narrative)]
        one, two = f[it.option1], f[it.option2]
        return [(two[0] - two[2]) - (one[0] - one[2]), two[0] / max(1, two[1]) - one[0] / max(1, one[1])]

    x = np.column_stack([judge, np.array([lm_diff(it) for it in items])])
    groups = np.array([narrative_key(it.kind, it.narrative) for it in items])
    kinds = np.array([it.kind for it in items])
    out = {"rows": len(items), "narratives": len(set(groups))}
    for name, cols in (("judge", [0]), ("judge + LM", [0, 1, 2]), ("LM alone", [1, 2])):
        pred = np.zeros(len(items))
        for train, test in GroupKFold(5).split(x, labels, groups):
            model = LogisticRegression().fit(x[train][:, cols], labels[train])
            pred[test] = model.predict(x[test][:, cols])
        out[name] = {k: round(float(np.mean(pred[kinds == k] == labels[kinds == k])), 4) for k in ("idiom", "simile")}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m studio.lab.continuation.judge_lm", description=__doc__.split("\n")[0])
    p.add_argument("--role", default="writer", help="the registry role that scores (writer, lm)")
    p.add_argument("--features", type=Path, required=True, help="JSON-lines cache of the LM's log-probabilities")
    p.add_argument("--kind", choices=["idiom", "simile"], default=None, help="score only this kind's narratives")
    p.add_argument("--narratives", type=int, default=None, help="score only this many narratives (hash order)")
    args = p.parse_args(argv)
    print(json.dumps(evaluate(compute_features(args.role, args.features, args.narratives, [args.kind] if args.kind else None)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
