"""What a judgement is about: a narrative, the expression found in it and that expression's meaning/property."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Case:
    """One judgement: a narrative, its expression (may be ""), the expression's meaning/property (may be "")."""
    narrative: str
    expression: str
    knowledge: str
    kind: str  # "idiom" | "simile" | "" (unknown)
