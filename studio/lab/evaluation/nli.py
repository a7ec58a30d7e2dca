"""NLI: the offline `nli` role on general NLI (MNLI dev-matched, SNLI dev; 3-way) and on figurative NLI (FLUTE test,
simile / metaphor / idiom; entailment vs contradiction) — the logical-consistency criterion of HAUSER.

Splits, by the harness's `hash_half` rule (a key's SHA-1 parity, so the parts never change):
- MNLI / SNLI: by premise (a premise's hypotheses stay together). A premise is held out when
  `hash_half(premise, "nli-held-out")` and `hash_half(premise, "nli-held-out-2")` both say "dev" (a quarter of the
  premises); the held-out premises are halved by `hash_half(premise, "nli")` into dev and test; every other row is train.
- FLUTE: its train files are train; its test files are halved by `hash_half(hypothesis, "flute")` (a figurative
  sentence's entailed and contradicted premises stay together) into dev and test.
`train` fits the cross-encoder (`python -m studio train nli-cross`), `dev` makes every choice, `test` is reported.

The ironic-simile check of HAUSER's logical consistency (`studio/figures/irony.py`) is measured beside it: how often it
fires on the simile KB's attested "as P as V" similes (literal; train sources) and on FLUTE train's ironic ones (its
margin was fitted on both), and FLUTE simile accuracy when a simile it fires on is judged by its literal reading.
"""
from __future__ import annotations

import json
import re

import numpy as np

from ...figures.antonyms import load_antonyms
from ...figures.components import extract_similes_batch
from ...figures.irony import find_served_ironies
from ...figures.lm_features import shared
from ...models import get_registry
from ..hauser.paths import data_file
from ...models.roles import NLI_LABELS
from .base import Evaluation, Figure, hash_half, share_interval

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


_AS_P_AS = re.compile(r"\b[Aa]s (\w+) as\b")
_NEGATION = re.compile(r"\b(not|n't|never|no)\b")


def _similes_of(texts: list[str]) -> list[list]:
    return extract_similes_batch(texts, learned=True)


def ironies_of(texts: list[str]) -> list:
    """The ironic-simile check as HAUSER's scorer runs it, over single sentences: an Irony or None per text."""
    items = [(k, text, sims) for k, (text, sims) in enumerate(zip(texts, _similes_of(texts)))]
    registry = get_registry()
    return find_served_ironies(shared(registry.get("lm")), shared(registry.get("writer")), items, load_antonyms())


def flute_ironic_train() -> list[str]:
    """FLUTE train's "as P as V" similes that are ironic by their own premises: the contradicted premise states P
    ("The dancer was graceful." against "The dancer was as graceful as a honking goose.")."""
    antonyms, premises = load_antonyms(), {}
    for premise, hypothesis, label in _read("flute_simile_train.jsonl"):
        premises.setdefault(hypothesis, {})[label] = premise.lower()
    out = []
    for hypothesis, by_label in premises.items():
        m = _AS_P_AS.search(hypothesis)
        contra = by_label.get("contradiction", "")
        if m and m.group(1).lower() in antonyms and re.search(rf"\b{m.group(1).lower()}\b", contra) \
                and not _NEGATION.search(contra):
            out.append(hypothesis)
    return sorted(out)


def kb_literal_similes(min_score: float = 1.9) -> list[str]:
    """"It was as P as V." for every KB vehicle whose summed plausibility for a property P with antonyms is at least
    `min_score` (about two instances)."""
    from ...figures.kb import load_kb

    kb, antonyms = load_kb(), load_antonyms()
    return [f"It was as {p} as {kb.surface(v)}." for p in sorted(kb.properties()) if p in antonyms and p.isalpha()
            for v, score in kb.vehicles_for_property(p, k=1000) if score >= min_score]


def measure_irony(parts=("dev", "test"), limit: int | None = None) -> dict:
    """The ironic-simile check: its firing rates on train data, and FLUTE simile accuracy with the literal reading."""
    out = {}
    for name, texts in (("kb_literal", kb_literal_similes()), ("flute_ironic_train", flute_ironic_train())):
        texts = texts[:limit] if limit else texts
        fired = ironies_of(texts)
        out[name] = {"fires": round(sum(x is not None for x in fired) / max(1, len(texts)), 4), "n": len(texts),
                     "examples": [x.reading for x in fired if x is not None][:8]}
    nli, rows_by_part = get_registry().get("nli"), splits()["flute_simile"]
    for part in parts:
        rows = rows_by_part[part][:limit] if limit else rows_by_part[part]
        fired = ironies_of([r[1] for r in rows])
        probs = nli.predict([r[0] for r in rows], [x.reading if x else r[1] for r, x in zip(rows, fired)])
        out[f"flute_simile / {part}"] = {"accuracy": round(accuracy(probs, rows, True), 4), "n": len(rows),
                                         "fired": sum(x is not None for x in fired)}
    return out


class NLIEvaluation(Evaluation):
    name = "nli"
    sample_rows = 20  # the ironic-simile check asks the writer about each sentence (40 rows took a minute in the suite)
    title = "logical consistency: the offline NLI role (3-way MNLI / SNLI, FLUTE entailment vs contradiction)"
    splits = {"train": "MNLI / SNLI rows whose premise is not held out (3 of 4 premises by hash), FLUTE train",
              "dev": "half of the held-out MNLI / SNLI premises, half of FLUTE test (by hypothesis)",
              "test": "the other halves (reported)"}

    def _compute(self, limit):
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
                figures.append(Figure(f"accuracy, {label}", r["accuracy"], part, r["n"], headline=headline,
                                      interval=share_interval(r["accuracy"], r["n"])))
        irony = measure_irony(limit=limit)
        figures.append(Figure("ironic check fires, KB similes (literal)", irony["kb_literal"]["fires"], "train",
                              irony["kb_literal"]["n"], headline=False))
        figures.append(Figure("ironic check fires, FLUTE ironic similes", irony["flute_ironic_train"]["fires"], "train",
                              irony["flute_ironic_train"]["n"], headline=False))
        for part in ("dev", "test"):
            r = irony[f"flute_simile / {part}"]
            figures.append(Figure("accuracy, FLUTE simile, ironic similes read literally", r["accuracy"], part, r["n"],
                                  headline=False))
        return figures, {"by_part": result, "model": nli.model_id, "backend": nli.backend, "irony": irony}
