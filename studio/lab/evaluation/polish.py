"""Polishing: literal sentences of the HAUSER candidates file, split by studio/lab/similes/polish_data.py (sha1 of the
literal: 80 % train — the polisher's fine-tuning pairs —, 10 % dev, 10 % test). On the test literals (never trained
on, never used for a choice) the studio's 10 candidates per literal are compared with the paper's BART candidates of
the same literals, both scored together by the studio's own HAUSER scorer; no human labels exist for the studio's
similes (their blind reads: studio/lab/evaluation/reads.py). Wraps `studio/lab/similes/evaluate_polish.py`."""
from __future__ import annotations

from ...paths import PROJECT_ROOT
from .base import Evaluation, Figure, share_interval

DEFAULT_LITERALS = 30  # test literals of a full run (~1–3 s each warm, plus the HAUSER scoring)
DEV_LITERALS = 20
#: the blind-read sentences (blind_reads/): diversity over a set of short everyday literals (no paper candidates)
BLIND_READ_FILES = ("blind_reads/polish_literals.txt", "blind_reads/polish_literals_2.txt", "blind_reads/polish_literals_3.txt",
                    "blind_reads/polish_literals_4.txt", "blind_reads/polish_literals_5.txt")


class PolishEvaluation(Evaluation):
    name = "polish"
    title = "Simile polishing against the HAUSER paper's BART candidates (studio's HAUSER scores; no human labels)"
    splits = {"train": "literals with sha1('polish|literal') % 10 >= 2 (the polisher's fine-tuning pairs)",
              "dev": f"sha1 % 10 == 1: the first {DEV_LITERALS} literals (every choice)",
              "test": f"sha1 % 10 == 0: the first {DEFAULT_LITERALS} literals (reported)",
              "blind-read": "the 100 literals written for the blind reads (blind_reads/polish_literals*.txt): diversity "
                            "and delivery only (no choice is made on them)"}

    def _compute(self, limit):
        from ..similes.evaluate_polish import evaluate, split_literals

        details = {}
        figures = []
        for split, size in (("dev", DEV_LITERALS), ("test", DEFAULT_LITERALS)):
            n = min(limit or size, size)
            report = evaluate(split_literals(split, n))
            details[split] = report
            head = split == "test"
            cands = report["candidates"]
            figures += [
                Figure("candidates delivered per literal (of 10)", report["delivered_per_literal"], split,
                       report["literals"] - report["skipped"], headline=head),
                Figure("candidates the detector accepts", report["detector_accepts"], split, cands, headline=head,
                       interval=share_interval(report["detector_accepts"], cands)),
                Figure("HAUSER quality, ours (mean)", report.get("hauser_quality_ours"), split, cands,
                       {"value": report.get("hauser_quality_paper"),
                        "source": "the paper's BART candidates of the same literals, scored in the same groups"},
                       headline=head),
                Figure("HAUSER quality, our top 5 (mean)", report.get("hauser_quality_ours_top5"), split,
                       report.get("scored_ours_top5", 0),
                       {"value": report.get("hauser_quality_paper"),
                        "source": "the paper's 5 BART candidates of the same literals, scored in the same groups"},
                       headline=False),
                Figure("HAUSER creativity, ours (mean)", report.get("hauser_creativity_ours"), split, cands,
                       {"value": report.get("hauser_creativity_paper"),
                        "source": "the paper's BART candidates of the same literals"}, headline=head),
                Figure("largest share of candidates one vehicle takes", report["top_vehicle_share_of_candidates"],
                       split, cands, headline=head),
                Figure("largest share of lists one vehicle is in", report["top_vehicle_share_of_literals"], split,
                       report["literals"] - report["skipped"], headline=False),
                Figure("paper generator's vehicle among ours", report.get("paper_vehicle_among_ours"), split,
                       report["literals"] - report["skipped"], headline=False),
            ]
        from pathlib import Path

        lines = [ln.strip() for f in BLIND_READ_FILES
                 for ln in (Path(PROJECT_ROOT) / f).read_text(encoding="utf-8").splitlines()]
        blind = [(ln, []) for ln in lines if ln and not ln.startswith("#")][:limit or None]
        report = evaluate(blind)
        details["blind-read"] = report
        done = report["literals"] - report["skipped"]
        figures += [
            Figure("candidates delivered per literal (of 10)", report["delivered_per_literal"], "blind-read", done,
                   headline=False),
            Figure("largest share of candidates one vehicle takes", report["top_vehicle_share_of_candidates"],
                   "blind-read", report["candidates"], headline=False),
            Figure("largest share of lists one vehicle is in", report["top_vehicle_share_of_literals"],
                   "blind-read", done, headline=False),
        ]
        return figures, details
