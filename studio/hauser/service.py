"""The HAUSER capability's front door: what the Rerank tab, the `score` command and the API call.

- `rerank(literal, candidates, settings) -> RerankResult`: the candidates of one literal sentence scored (relevance,
  logical and sentiment consistency, quality, creativity, informativeness) and ranked, with the rows of the table
  (best first, each with its line of evidence) ready to show or write.
- `rerank_many(groups, settings) -> list[RerankResult]`: many (literal, candidates) groups at once, each model run
  once over all of them (an uploaded CSV, `score --batch`).
- `Settings` (its `from_parts` takes the tab's weights in parts), `check_group` (the one check of a group's texts
  and limits), `candidates_from_lines` and `groups_from_csv` (pasted lines, an uploaded CSV and its limits).

Every input is checked here and refused with an `InputError` the visitor reads; the front ends pass them on as
given. The work is in scorer.py (batched model calls, normalizing and ranking), criteria.py (the paper's formulas)
and kb_features.py (the knowledge base's counts and evidence)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..figures.components import wordless_image
from ..offensive import masked
from .criteria import (CONTRADICTION_GATE, DEFAULT_QUALITY_PARTS, DEFAULT_QUALITY_WEIGHTS, DEFAULT_RANK_WEIGHTS,
                       PAPER_QUALITY_PARTS, PAPER_QUALITY_WEIGHTS, PAPER_RANK_WEIGHTS, minmax, ratio)
from .inputs import MAX_CSV_BYTES, MAX_CSV_ROWS, candidates_from_lines, groups_from_csv
from .scorer import MAX_CANDIDATES, MAX_CHARS, NO_SIMILE, GroupScore, Settings, check_group, score_groups, table_rows

__all__ = ["rerank", "rerank_many", "RerankResult", "Settings", "check_group", "candidates_from_lines",
           "groups_from_csv", "MAX_CANDIDATES", "MAX_CHARS", "MAX_CSV_BYTES", "MAX_CSV_ROWS", "NO_SIMILE",
           "DEFAULT_QUALITY_PARTS", "DEFAULT_QUALITY_WEIGHTS", "PAPER_QUALITY_PARTS", "PAPER_QUALITY_WEIGHTS",
           "DEFAULT_RANK_WEIGHTS", "PAPER_RANK_WEIGHTS", "CONTRADICTION_GATE", "ratio", "wordless_image",
           "masked"]


@dataclass(frozen=True)
class RerankResult:
    """One literal sentence's candidates, scored and ranked. `candidates` are in the order given, each a dict of
    its scores, components, evidence, NLI verdict and rank (`rank` 1 = best); `rows` are the table's rows, best
    first: the criteria rounded, the first simile's topic / vehicle / event, the KB match and one line of evidence
    (what the command line prints, the page shows and the CSV holds), and `creativity_rel`, creativity min-max
    scaled among the rows that hold a simile (1 = the rarest image here: the page's relative column; the ranking
    and the CSV use the raw value). `to_dict()` is the JSON of the API and of `python -m studio score --json`."""
    literal: str
    candidates: list[dict]
    settings: dict
    backends: dict
    rows: list[dict]

    def ranked(self) -> list[dict]:
        """The candidates best first."""
        return sorted(self.candidates, key=lambda c: c["rank"])

    def to_dict(self) -> dict:
        return {"literal": self.literal, "settings": self.settings, "backends": self.backends,
                "candidates": self.candidates}


def _result(group: GroupScore) -> RerankResult:
    scored = group.to_dict()
    rows = table_rows(scored)
    with_simile = [r for r in rows if not r["flag"] and r["creativity"] is not None]
    scaled = dict(zip(map(id, with_simile), minmax([r["creativity"] for r in with_simile]))) if with_simile else {}
    rows = [{**r, "creativity_rel": None if id(r) not in scaled else round(float(scaled[id(r)]), 4)} for r in rows]
    return RerankResult(scored["literal"], scored["candidates"], scored["settings"], scored["backends"], rows)


def rerank_many(groups: Sequence[tuple[str, Sequence[str]]], settings: Settings | None = None, *,
                progress=None) -> list[RerankResult]:
    """Every (literal, candidates) group scored, each model role called once over all of them. `settings` None:
    the served defaults. `progress(fraction, what)` follows the work."""
    return [_result(g) for g in score_groups(groups, settings, progress=progress)]


def rerank(literal: str, candidates: Sequence[str], settings: Settings | None = None, *,
           progress=None) -> RerankResult:
    """One literal sentence's candidates scored and ranked (see `rerank_many`)."""
    return rerank_many([(literal, candidates)], settings, progress=progress)[0]
