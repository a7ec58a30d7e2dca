"""Proverbs (ePiC seen_train, ../shared/data/epic): ranking the 250 proverbs (and the studio's whole catalog) for a
narrative — accuracy@1 and MRR of the served scorer — and proverb/narrative span alignment F1 (ePiC's token F1).

Split (studio/lab/proverbs/epic.py `split`, seed 6): 2 narratives per proverb (500) are the validation part, never trained
on; the other 1,000 are train. Inside train, `train proverbs --select` fits on an inner split and chooses the
fine-tuned channel's weight and the temperature on the rest (dev). Caveat, from the code's history: the two embedders
(proverbs/index.py) and the motif method (proverbs/motifs.py) were chosen on the validation part, so its figures are
labelled `validation`, not `test`; motifs are not reported here for that reason.
"""
from __future__ import annotations

from .base import Evaluation, Figure, share_interval

#: ePiC (Ghosh & Srivastava, ACL 2022), its fine-tuned RoBERTa and best alignment, on its own seen-proverb test split
#: (not in ../shared): an anchor of the task, not of these rows
PAPER_SOURCE = "ePiC paper, its own test split"
PAPER = {"accuracy@1": 0.282, "mrr": 0.391, "alignment_f1": 0.092}


class ProverbsEvaluation(Evaluation):
    name = "proverbs"
    title = "Proverbs (ePiC): ranking the proverb of a narrative, span alignment"
    splits = {"train": "seen_train.jsonl minus 2 narratives per proverb (inner split inside it for choices)",
              "dev": "the inner split of train (`train proverbs --select`)",
              "validation": "2 narratives per proverb (500), never trained on; embedders and motif method were "
                            "chosen on it earlier, so it is not a clean test"}

    def _compute(self, limit):
        from ..proverbs.epic import load_seen_train, split
        from ..proverbs.evaluate import alignment_report, ranking_report

        _, val = split(load_seen_train())
        rows = val[:limit or None]
        ranking = ranking_report(rows)
        served = next(name for name in ranking["variants"] if name.endswith("(served)"))
        epic = ranking["variants"][served]["epic_250"]
        catalog = ranking["variants"][served]["catalog"]
        align = alignment_report(rows)
        anchor = {k: {"value": v, "source": PAPER_SOURCE} for k, v in PAPER.items()}
        figures = [Figure("accuracy@1 among ePiC's 250", epic["accuracy@1"], "validation", epic["n"],
                          anchor["accuracy@1"], interval=share_interval(epic["accuracy@1"], epic["n"])),
                   Figure("MRR among ePiC's 250", epic["mrr"], "validation", epic["n"], anchor["mrr"]),
                   # the studio ranks its whole catalog (ePiC's 250 and its additions): what a user gets
                   Figure("accuracy@1 over the whole catalog", catalog["accuracy@1"], "validation", catalog["n"],
                          interval=share_interval(catalog["accuracy@1"], catalog["n"])),
                   Figure("MRR over the whole catalog", catalog["mrr"], "validation", catalog["n"]),
                   Figure("span alignment F1", align["f1"], "validation", len(rows), anchor["alignment_f1"])]
        return figures, {"served": served, "ranking": ranking, "alignment": align}
