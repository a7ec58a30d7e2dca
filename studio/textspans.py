"""Character spans on word boundaries: a highlighted span never starts or ends inside a word ("with h / er face").

Spans come from several tokenizers (spaCy, BPE offsets, regexes over cleaned text); whatever cut them, what a reader
sees is snapped outwards to whole words and stripped of the spaces at its edges. Also `shorten`, the one way a long
text is cut for a label or a message, and `blank_markup`, the one reading of a typed HTML tag. Plain functions, no
Gradio."""
from __future__ import annotations

import re
import unicodedata

#: an HTML tag ("<img src=x>", "</b>"): shown as text like anything typed, but its name and attributes are not words
#: ("x < y and y > z" holds none)
MARKUP_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
#: a script or style element with its end tag, its code with it: never prose ("asdf qwer <script>alert(1)</script>"
#: is no English); an unclosed one is a tag like any other ("Her <style> was bold." keeps its words)
_CODE_ELEMENT = re.compile(r"<(script|style)\b[^<>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def blank_emoji(text: str) -> str:
    """`text` with its emoji (pictographs and the marks, joiners and skin tones that join them) blanked out by spaces,
    the same length: a second reading for a parser that took "The party was 🎉 very loud." for a noun phrase."""
    return "".join(" " if unicodedata.category(ch) == "So" or ch in "\u200d\ufe0f\ufe0e\u20e3"
                   or 0x1F3FB <= ord(ch) <= 0x1F3FF or 0xE0020 <= ord(ch) <= 0xE007F else ch for ch in text)


def blank_markup(text: str) -> str:
    """`text` with its HTML tags, and the code of its script and style elements, blanked out by spaces (the same
    length, so that offsets still hold)."""
    text = _CODE_ELEMENT.sub(lambda element: " " * len(element.group()), text)
    return MARKUP_TAG.sub(lambda tag: " " * len(tag.group()), text)


#: tags that mark words inside a line of prose: gone without a trace when text is read as prose ("h<b>a</b>re")
_INLINE_TAG = re.compile(r"</?(?:a|b|i|u|s|em|strong|span|mark|small|big|sub|sup|code|font|q|cite|abbr)\b[^<>]*>",
                         re.IGNORECASE)


def prose(text: str) -> str:
    """`text` as a model should read it: the tags that mark words inside a line taken out ("The h<b>a</b>re" is "The
    hare"), every other tag and the code of script and style elements blanked, the spaces closed up; a text without
    markup as it is. Offsets do not hold: `blank_markup` is the reading that keeps them."""
    if not MARKUP_TAG.search(text):
        return text
    return " ".join(blank_markup(_INLINE_TAG.sub("", _CODE_ELEMENT.sub(" ", text))).split())


def word_count(text: str) -> int:
    """The words of a typed text, its tags' names and attributes not counted ("<b>x</b>" holds one)."""
    return len(re.findall(r"\w+", blank_markup(text)))


_INNER = "'’"  # an apostrophe between letters is part of the word ("don't", "O’Neil")


def is_word_char(text: str, i: int) -> bool:
    """True when text[i] belongs to a word: a letter, digit or underscore, or an apostrophe between two of them."""
    if not 0 <= i < len(text):
        return False
    c = text[i]
    if c.isalnum() or c == "_":
        return True
    return c in _INNER and is_word_char_plain(text, i - 1) and is_word_char_plain(text, i + 1)


def is_word_char_plain(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def snap_span(text: str, start: int, end: int) -> tuple[int, int]:
    """(start, end) clamped to `text`, widened to whole words at both ends, then stripped of outer whitespace.
    An empty or all-space span comes back empty (start == end)."""
    start, end = max(0, min(len(text), int(start))), max(0, min(len(text), int(end)))
    if end <= start:
        return start, start
    while start > 0 and is_word_char(text, start - 1) and is_word_char(text, start):
        start -= 1
    while end < len(text) and is_word_char(text, end - 1) and is_word_char(text, end):
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def next_word_start(text: str, i: int, end: int) -> int:
    """The first position at or after `i` (up to `end`) where a word may start: past the rest of a word cut at `i`
    and past spaces."""
    while i < end and (text[i].isspace() or (is_word_char(text, i - 1) and is_word_char(text, i))):
        i += 1
    return i


def on_word_boundaries(text: str, start: int, end: int) -> bool:
    """The check the tests use: the span neither starts nor ends inside a word."""
    if end <= start:
        return True
    inside_start = start > 0 and is_word_char(text, start - 1) and is_word_char(text, start)
    inside_end = end < len(text) and is_word_char(text, end - 1) and is_word_char(text, end)
    return not inside_start and not inside_end


def shorten(text: str, limit: int = 70) -> str:
    """`text` as it is up to `limit` characters, else its first `limit` − 2 and an ellipsis marking the cut."""
    return text if len(text) <= limit else text[:limit - 2] + "…"
