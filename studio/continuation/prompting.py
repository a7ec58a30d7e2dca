"""The fine-tuned continuation generator's prompt (what `python -m studio train continuation` trains on and what
generate.py sends): the narrative's end, the figure's meaning when one is known, then the next sentence."""
from __future__ import annotations

#: the narrative's last characters kept in a prompt (its end holds the idiom or simile)
TAIL_CHARS = 320


def narrative_tail(narrative: str, chars: int = TAIL_CHARS) -> str:
    """The end of the narrative, starting at a word (or sentence) boundary."""
    text = " ".join(narrative.split())
    if len(text) <= chars:
        return text
    cut = text[-chars:]
    for mark in (". ", "! ", "? "):
        i = cut.find(mark)
        if 0 <= i < chars // 2:
            return cut[i + 2:]
    return cut[cut.find(" ") + 1:]


def generator_prompt(narrative: str, expression: str = "", meaning: str = "") -> str:
    lines = [f"Story: {narrative_tail(narrative)}"]
    if expression and meaning:
        lines.append(f'Here "{expression.strip()}" means: {meaning.strip().rstrip(".")}.')
    lines.append("Next sentence:")
    return "\n".join(lines)


def paraphrase_prompt(narrative: str, expression: str) -> str:
    """The generator's prompt up to its meaning line: what it writes next is its own paraphrase of the expression
    in this narrative (asked only for an idiom the lexicon does not know)."""
    return f'Story: {narrative_tail(narrative)}\nHere "{expression.strip()}" means:'
