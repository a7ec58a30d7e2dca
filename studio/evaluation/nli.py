"""NLI: the offline `nli` role on general NLI (MNLI dev-matched, SNLI dev; 3-way) and on figurative NLI (FLUTE test,
simile / metaphor / idiom; entailment vs contradiction) — the logical-consistency criterion of HAUSER.

Splits, by the harness's `hash_half` rule (a key's SHA-1 parity, so the parts never change):
- MNLI / SNLI: by premise (a premise's hypotheses stay together). A premise is held out when
  `hash_half(premise, "nli-held-out")` and `hash_half(premise, "nli-held-out-2")` both say "dev" (a quarter of the
  premises); the held-out premises are halved by `hash_half(premise, "nli")` into dev and test; every other row is train.
- FLUTE: its train files are train; its test files are halved by `hash_half(hypothesis, "flute")` (a figurative
  sentence's entailed and contradicted premises stay together) into dev and test.
`train` fits the cross-encoder (`python -m studio train nli-cross`), `dev` makes every choice, `test` is reported.
"""
from __future__ import annotations

import json

import numpy as np

from ..hauser.paths import data_file
from ..models.roles import NLI_LABELS
from .base import Evaluation, Figure, hash_half

GENERAL = {"mnli": "mnli_dev_matched.jsonl", "snli": "snli_dev.jsonl"}
FLUTE_TYPES = ("simile", "metaphor", "idiom")


def _read(name: str) -> list[tuple[str, str, str]]:
    with open(data_file("nli", name), encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    # FLUTE says Entailment/Contradiction; the general sets are lower case; "-" (no gold label) is dropped
    return [(r["premise"], r["hypothesis"], r["label"].lower()) for r in rows if r["label"].lower() in NLI_LABELS]


def general_part(premise: str) -> str:
    if hash_half(premise, "nli-held-out") == "dev" and hash_half(premise, "nli-held-out-2") == "dev":
        return hash_half(premise, "nli")
    return "train"


def splits() -> dict[str, dict[str, list[tuple[str, str, str]]]]:
    """{set name: {"train"|"dev"|"test": [(premise, hypothesis, label)]}} for mnli, snli and flute_<type>."""
    out: dict[str, dict[str, list]] = {}
    for tag, name in GENERAL.items():
        parts = {"train": [], "dev": [], "test": []}
        for row in _read(name):
            parts[general_part(row[0])].append(row)
        out[tag] = parts
    for kind in FLUTE_TYPES:
        parts = {"train": _read(f"flute_{kind}_train.jsonl"), "dev": [], "test": []}
        for row in _read(f"flute_{kind}_test.jsonl"):
            parts[hash_half(row[1], "flute")].append(row)
        out[f"flute_{kind}"] = parts
    return out


def accuracy(probs: np.ndarray, rows: list[tuple[str, str, str]], two_way: bool) -> float:
    """3-way accuracy; `two_way` (FLUTE, which has no neutral class): right when the gold label's probability beats
    the other gold label's."""
    y = np.array([NLI_LABELS.index(r[2]) for r in rows])
    if two_way:
        ent, con = NLI_LABELS.index("entailment"), NLI_LABELS.index("contradiction")
        pred = np.where(probs[:, ent] >= probs[:, con], ent, con)
    else:
        pred = probs.argmax(1)
    return float((pred == y).mean()) if len(y) else float("nan")


def measure(nli, parts=("dev",), limit: int | None = None, sets=None) -> dict:
    """{"<set> / <part>": {"accuracy", "n"}} for an NLIModel (anything with predict(premises, hypotheses))."""
    out = {}
    for name, by_part in splits().items():
        if sets and name not in sets:
            continue
        for part in parts:
            rows = by_part[part][:limit] if limit else by_part[part]
            probs = nli.predict([r[0] for r in rows], [r[1] for r in rows])
            out[f"{name} / {part}"] = {"accuracy": round(accuracy(probs, rows, name.startswith("flute")), 4),
                                       "n": len(rows)}
    return out


class NLIEvaluation(Evaluation):
    name = "nli"
    title = "logical consistency: the offline NLI role (3-way MNLI / SNLI, FLUTE entailment vs contradiction)"
    splits = {"train": "MNLI / SNLI rows whose premise is not held out (3 of 4 premises by hash), FLUTE train",
              "dev": "half of the held-out MNLI / SNLI premises, half of FLUTE test (by hypothesis)",
              "test": "the other halves (reported)"}

    def _compute(self, limit):
        from ..models import get_registry

        nli = get_registry().get("nli")
        result = measure(nli, parts=("dev", "test"), limit=limit)
        for part in ("dev", "test"):  # FLUTE's three parts pooled (the target is on FLUTE test)
            parts = [result[f"flute_{kind} / {part}"] for kind in FLUTE_TYPES]
            n = sum(r["n"] for r in parts)
            result[f"flute / {part}"] = {"accuracy": round(sum(r["accuracy"] * r["n"] for r in parts) / n, 4) if n
                                         else None, "n": n}
        figures = []
        for name in ("mnli", "flute", "flute_simile", "flute_metaphor", "flute_idiom", "snli"):
            for part in ("dev", "test"):
                r = result[f"{name} / {part}"]
                label = {"flute": "FLUTE (simile, metaphor, idiom)"}.get(
                    name, name.replace("_", " ").replace("flute", "FLUTE").replace("mnli", "MNLI").replace("snli", "SNLI"))
                headline = part == "test" and name in ("mnli", "flute", "flute_simile")
                figures.append(Figure(f"accuracy, {label}", r["accuracy"], part, r["n"], headline=headline))
        return figures, {"by_part": result, "model": nli.model_id, "backend": nli.backend}
