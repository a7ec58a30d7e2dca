"""The continuation capability's front door: what the Continue tab and the `continue` and `judge` commands use —
continue a narrative (`continue_narrative`, its `Settings` and modes), judge two continuations (`judge_pair`), the
limits they state beside their inputs, and the words of a verdict. The work is in generate.py (continuing),
judge.py and crossjudge.py (judging), judgement.py, story.py (what a narrative must be), expression.py (the figure
the story ends in, and its marks) and ranking.py (the order of a pool)."""
from __future__ import annotations

from .expression import strip_marks
from .generate import MODES, WRITER_POOL, Ranked, Result, Settings, continue_narrative
from .judge import MAX_OPTION_CHARS, figure_told, judge_pair, length_note, percentages, restatement_note, verdict
from .judgement import restates
from .ranking import POOL
from .story import MAX_NARRATIVE_CHARS

__all__ = ["MODES", "WRITER_POOL", "POOL", "MAX_NARRATIVE_CHARS", "MAX_OPTION_CHARS", "Settings",
           "Result", "Ranked", "continue_narrative", "judge_pair", "figure_told", "percentages", "verdict",
           "restates", "restatement_note", "length_note", "strip_marks"]
