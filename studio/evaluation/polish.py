"""Polishing: on the first literal sentences of hauser/candidates.jsonl (no human labels exist for the studio's
own similes), the share of the studio's candidates its simile detector accepts and how often one of the paper
generator's vehicles is among the studio's. A descriptive figure, not a quality measure; no choice is made on it.
Wraps `studio/similes/evaluate_polish.py`."""
from __future__ import annotations

from .base import Evaluation, Figure

DEFAULT_LITERALS = 20  # ~10–20 s per sentence on two busy cores


class PolishEvaluation(Evaluation):
    name = "polish"
    max_rows = DEFAULT_LITERALS
    title = "Simile polishing (descriptive: no human labels)"
    splits = {"test": f"the first {DEFAULT_LITERALS} literal sentences of hauser/candidates.jsonl (unlabelled)"}

    def _compute(self, limit):
        from ..similes.evaluate_polish import run

        n = min(limit or DEFAULT_LITERALS, DEFAULT_LITERALS)
        report = run(["--limit", str(n)])
        return [Figure("candidates the detector accepts", report["detector_accepts"], "test", report["candidates"]),
                Figure("paper generator's vehicle among ours", report["paper_vehicle_among_ours"], "test",
                       report["sentences"] - report["skipped"])], report
