"""Small text helpers shared by generation and the judge."""
from __future__ import annotations

import re

_SENTENCES = re.compile(r"[^.!?]+(?:[.!?]+[\"')\]]*|$)")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.findall(text) if s.strip()]


def last_sentence(text: str) -> str:
    parts = sentences(text)
    return parts[-1] if parts else text.strip()
