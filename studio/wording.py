"""Counts in the words a reader expects: "1 sample", "3 samples", never "3 sample(s)"."""
from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, plural unless n is 1 (`plural` for an irregular one: counted(2, "story", "stories"))."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def agreeing(n: int, one: str, many: str) -> str:
    """The word that agrees with a count of `n`: agreeing(1, "was", "were") is "was", agreeing(3, "it is", "they are")
    "they are"."""
    return one if n == 1 else many
