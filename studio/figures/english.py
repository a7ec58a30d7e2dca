"""What the studio takes as English: its models and knowledge base know English figures of speech only, so a text in
another script or another language is refused with a clear message (a script check, a function-word count and, for a
text with at most one English function word, the registry's small language identifier), as is a text with no word at all
(emoji alone) or only inside HTML tags ("<img src=x onerror=…>"). Every capability's front door asks here."""
from __future__ import annotations

import functools
import logging
import re
import unicodedata
from dataclasses import asdict, dataclass

from ..errors import InputError, _the
from ..textspans import blank_markup

log = logging.getLogger(__name__)

#: the share of a text's letters that must be Latin for the studio to take it as English (a script check only)
MIN_LATIN_SHARE = 0.5
#: the commonest function words of the Latin-script languages a visitor is likeliest to type, without those that are
#: also English words ("in", "a", "so", "was", "die", "also", "an"); and English's own, to weigh them against
FUNCTION_WORDS = {
    "German": {"der", "das", "und", "ist", "nicht", "ich", "sie", "mit", "auf", "ein", "eine", "einen", "einem",
               "dem", "des", "sehr", "war", "wir", "ihr", "ihre", "sein", "seine", "zu", "von", "für", "auch",
               "aber", "wie", "schon", "noch", "nach", "bei", "immer", "wurde", "sich", "er", "es"},
    "French": {"le", "la", "les", "et", "est", "une", "des", "du", "dans", "pour", "pas", "que", "qui", "avec", "sur",
               "très", "était", "il", "elle", "nous", "vous", "je", "ce", "cette", "mais", "au", "aux", "sont"},
    "Spanish": {"el", "los", "las", "y", "es", "una", "muy", "pero", "con", "por", "para", "del", "que", "está",
                "estaba", "fue", "era", "su", "sus", "yo", "ella", "lo"},
    "Italian": {"il", "lo", "gli", "di", "che", "è", "sono", "una", "molto", "era", "per", "con", "non", "della",
                "nel", "si", "anche"},
    "Dutch": {"de", "het", "een", "en", "niet", "van", "zeer", "heel", "met", "op", "ik", "zij", "wij", "ook",
              "naar", "maar", "werd"},
    "Portuguese": {"o", "os", "um", "uma", "muito", "não", "com", "para", "era", "está", "estava", "foi", "ele",
                   "ela", "mas", "da", "em"},
}
ENGLISH_WORDS = {"the", "a", "an", "is", "was", "were", "are", "be", "been", "and", "of", "to", "in", "on", "with",
                 "he", "she", "it", "they", "i", "you", "we", "his", "her", "their", "very", "not", "but", "as", "at",
                 "by", "for", "from", "had", "has", "have", "that", "this", "my", "our", "its", "so", "like"}
_FOREIGN_LETTERS = re.compile(r"[äöüßñçãõåøæœ]")
_ENGLISH_LETTERS = re.compile(r"^[A-Za-z]+$")
#: a text of two words or more with no English function word is refused when the `language` role (langid.py) gives
#: another language at least MIN_OTHER_LANGUAGE probability, names and words with letters English lacks left out
#: ("Der Hund bellt laut.", "Meu irmão corre rápido."), and one with at most one when it gives the whole text at least
#: MIN_OTHER_LANGUAGE_SURE ("Het water was koud." is not sure enough: 0.98)
#: why: docs/experiments.md#other-language-identifier
MIN_OTHER_LANGUAGE = 0.9
MIN_OTHER_LANGUAGE_SURE = 0.99


def refuse_non_english(text: str, what: str = "sentence", identifier: bool = True) -> None:
    """An InputError when `text` (a `what`: "sentence", "narrative", "continuation 1", …) has no letter at all or
    none outside HTML tags, is written mostly in another script than Latin ("…מאוד like a lion's roar" is no simile
    in any language), reads as another Latin-script language (`refuse_other_language`), or, with `identifier`, holds
    two words or more in lower case and not one the `spelling` role's dictionary knows ("asdf qwer zxcv")."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        raise InputError(f"{_the(what)} has no words, only numbers, signs or emoji: type it in English words.")
    if not any(ch.isalpha() for ch in blank_markup(text)):  # a tag's name and attributes are no words
        raise InputError(f"{_the(what)} is HTML markup, with no words outside its tags: the studio works on plain "
                         "text, so type it in English words.")
    other = [ch for ch in letters if not unicodedata.name(ch, "").startswith("LATIN")]
    if len(other) > (1 - MIN_LATIN_SHARE) * len(letters):
        script = unicodedata.name(other[0], "OTHER").split()[0]
        script = script if len(script) <= 3 else script.capitalize()  # "Hebrew", "CJK"
        raise InputError(f"The studio works in English: {_named(what)} is written mostly in {script} letters. "
                         "Type it in English.")
    if long := next((run for run in _LETTER_RUN.findall(blank_markup(text)) if len(run) > LONGEST_WORD), None):
        raise InputError(f"{_the(what)} holds a run of {len(long)} letters (“{long[:12]}…”), longer than any English "
                         "word: type it in English words.")
    refuse_other_language(text, what, identifier)
    if identifier:
        refuse_no_english_word(text, what)


#: the longest English word a dictionary holds has 45 letters ("pneumonoultramicroscopicsilicovolcanoconiosis"): a
#: longer run of letters is a key held down or text pasted without spaces ("xxxx…" gave Polish ten lines of it)
LONGEST_WORD = 45
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def refuse_no_english_word(text: str, what: str = "sentence") -> None:
    """An InputError when `text` has two words or more in lower case (capitalised ones may be names) and the spelling
    dictionary knows none of them, British spellings, plurals and contractions included, or when at least half of them
    are unknown runs of keys along a keyboard row: keyboard mashing ("asdf qwer zxcv", "asdf qwerty zxcv": "qwerty" is
    in the dictionary), not English."""
    tokens = _WORD.findall(blank_markup(text))
    words = [w for w in tokens if w.islower() and len(w) >= 2]
    if len(words) < 2:
        return
    dictionary = _dictionary()
    unknown = list(dict.fromkeys(w for w in words if not _known(dictionary, w.replace("’", "'"))))
    shown = ", ".join(f"“{w}”" for w in unknown[:3])
    # a function word of two letters or more anywhere, capitalised too, is English ("The barista upsold
    # frappuccinos.": no lower-case word the dictionary knows); "A" and "I" are other languages' too ("A casa …")
    function_word = any(len(w) >= 2 and w.lower() in ENGLISH_WORDS for w in tokens)
    if len(unknown) == len(set(words)) and not function_word:
        raise InputError(f"{_the(what)} has no word an English dictionary knows ({shown}): type it in English "
                         "words.")
    runs = [w for w in words if w in unknown and _keyboard_run(w)]
    if 2 * len(runs) >= len(words):
        shown = ", ".join(f"“{w}”" for w in dict.fromkeys(runs))
        raise InputError(f"{_the(what)} is mostly keys typed in a row ({shown}), not English words: type it in "
                         "English words.")


#: the letter rows of a QWERTY keyboard: a word of keys side by side on one row is a hand run along it
_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _keyboard_run(word: str) -> bool:
    """Whether `word` (three letters or more) is keys side by side on one keyboard row, either way: "asdf", "zxcv",
    "lkjh" (a visitor's "asdf qwerty zxcv" went to Proverbs, "qwerty" being in the dictionary); no English word the
    dictionary lacks is one ("smartphone", "apps")."""
    if len(word) < 3:
        return False
    for row in _KEY_ROWS:
        if all(a in row and b in row and abs(row.index(a) - row.index(b)) == 1 for a, b in zip(word, word[1:])):
            return True
    return False


def refuse_other_language(text: str, what: str = "sentence", identifier: bool = True) -> None:
    """An InputError when a Latin-script text reads as another language than English: more distinct function words
    of that language than English ones, at least two, or one beside a letter English does not use in a text of three
    words or more ("Der Fluss war sehr langsam." is German). Capitalised words after the first are names, not
    function words ("Ludwig van Beethoven", "Los Angeles"), and a name with such a letter alone is no sign
    ("Jürgen laughed loudly."). A text of two words or more with at most one English function word goes to the
    language identifier (`MIN_OTHER_LANGUAGE`), its names and loanwords left out; `identifier=False` leaves it out
    (the function words alone, as measured against it by `eval language`)."""
    tokens = re.findall(r"[^\W\d_]+", text)
    unnamed = [w for k, w in enumerate(tokens) if k == 0 or not w[:1].isupper()]  # capitalised words after the first
    words = {w.lower() for w in unnamed}
    english = len(words & ENGLISH_WORDS)
    hits = {language: len(words & vocabulary) for language, vocabulary in FUNCTION_WORDS.items()}
    language, count = max(hits.items(), key=lambda item: item[1])
    foreign_letter = bool(_FOREIGN_LETTERS.search(text.lower()))
    if (count >= 2 or (count == 1 and foreign_letter and len(tokens) >= 3)) and count > english:
        _refuse(what, language)
    if identifier and english <= 1 and len(tokens) >= 2:
        # loanwords left out too: words with a letter English lacks ("João sang softly.", "Crème brûlée tastes
        # divine.")
        plain = [w for w in unnamed if _ENGLISH_LETTERS.match(w)]
        language = (english == 0 and len(plain) >= 2 and _identified(" ".join(plain), MIN_OTHER_LANGUAGE)) or \
            _identified(text, MIN_OTHER_LANGUAGE_SURE)
        if language:
            _refuse(what, language)


def _identified(text: str, at_least: float) -> str:
    """The name of the language other than English that the `language` role gives `text` at least `at_least`
    probability; "" otherwise."""
    from ..models import get_registry

    identifier = get_registry().get("language")
    code, probability = identifier.classify(text)
    return identifier.LANGUAGES[code] if code != "en" and probability >= at_least else ""


def _refuse(what: str, language: str) -> None:
    raise InputError(f"The studio works in English: {_named(what)} reads as {language}, and its models and "
                     "knowledge base know English figures of speech only. Type it in English.")


def _named(what: str) -> str:
    """"the narrative", and a numbered name as it is: "continuation 2"."""
    the = _the(what)
    return the[:1].lower() + the[1:]


# ------------------------------------------------------------------------------------------ spelling

@dataclass(frozen=True)
class Misspelling:
    """A word the spelling dictionary does not know, as typed, and the known word it likely stands for."""
    word: str
    suggestion: str

    def to_dict(self) -> dict:
        return asdict(self)


#: British spellings the (American) dictionary lacks, turned into the American form it knows: "colour", "harbour",
#: "realise", "analyse", "catalogue", "travelled", "paediatric", "draught", "plough", "tyre"
_BRITISH = ((re.compile(r"our"), "or"), (re.compile(r"tre(s?)$"), r"ter\1"),
            (re.compile(r"is(e|es|ed|ing|ation|ations)$"), r"iz\1"), (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"),
            (re.compile(r"ogue(s?)$"), r"og\1"), (re.compile(r"ll(ed|ing|er|ers)$"), r"l\1"),
            (re.compile(r"ae"), "e"), (re.compile(r"oe"), "e"), (re.compile(r"ence$"), "ense"),
            (re.compile(r"augh"), "af"), (re.compile(r"ough(s?)$"), r"ow\1"), (re.compile(r"yre"), "ire"),
            (re.compile(r"^mould"), "mold"), (re.compile(r"^pyj"), "paj"))
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def misspellings(text: str) -> list[Misspelling]:
    """The words of `text` that look like typos, each once, in order: unknown to the `spelling` role's dictionary,
    and one edit (or only repeated letters: "reeeally") from the known word it corrects to ("verry" → "very", "sofft"
    → "soft"). Left alone: capitalised words (names; a sentence's first word too, which may be one, unless it is a
    function word with two letters swapped: "Teh" → "The"), acronyms, words
    with letters English lacks, words of one or two letters, British spellings of known words ("colour", "harbour"),
    and unknown words with no close correction ("smartphone"). A notice, never a refusal: the models read the text
    as typed."""
    from ..models import get_registry

    return list(_misspellings(get_registry(), text))


@functools.lru_cache(maxsize=256)
def _misspellings(registry, text: str) -> tuple[Misspelling, ...]:
    """`misspellings`, memoised per registry (its dictionary and LM) and text: a Polish run asks for the notice, then
    for the sentence it offers instead, and the LM's reading of the typos is the costly part."""
    dictionary = registry.get("spelling")
    shouting = text.upper() == text
    found, seen = [], set()  # Misspellings, and (typed word, its pool, how else to correct it) still to decide
    blanked = blank_markup(text)
    for m in _WORD.finditer(blanked):
        word = m.group()
        if len(word) < 3 or not _ENGLISH_LETTERS.match(word.replace("'", "").replace("’", "")):
            continue
        if word[:1].isupper() and not shouting:  # a name, or a sentence's first word (which may be one)
            suggestion = None if word.lower() in seen else _swapped_function_word(dictionary, word, blanked[:m.start()])
            if suggestion:
                seen.add(word.lower())
                found.append(Misspelling(word, suggestion))
            continue
        if word.isupper() and not shouting:  # an acronym
            continue
        lower = word.lower().replace("’", "'")
        if lower in seen or _known(dictionary, lower):
            continue
        seen.add(lower)
        apostrophe = _apostrophe(dictionary, lower)
        found.append((m, lower, [] if apostrophe else dictionary.candidates(lower), apostrophe))
    # where a typo has several candidates, the one that reads best where it stands, the other typos there read as
    # their likeliest words ("I feel sik." → "sick", not the more frequent "sit"; "He ran fsat lik the wind.")
    likeliest = {entry[1]: entry[2][0] for entry in found if not isinstance(entry, Misspelling) and entry[2]}
    reading = blanked.lower() if shouting and len(blanked.lower()) == len(blanked) else blanked
    choices = [entry for entry in found if not isinstance(entry, Misspelling) and len(entry[2]) > 1]
    ordered = _in_context(registry, reading, [(m.start(), m.end(), pool) for m, _, pool, _ in choices], likeliest)
    pools = {id(entry): pool for entry, pool in zip(choices, ordered)}
    out = []
    for entry in found:
        if isinstance(entry, Misspelling):
            out.append(entry)
            continue
        m, lower, pool, apostrophe = entry
        pool = pools.get(id(entry), pool)
        squeezed = _squeezed(lower)
        suggestion = apostrophe or (pool[0] if pool else None) or (
            squeezed != lower and (dictionary.correction(squeezed) or squeezed))
        close = suggestion and (_one_edit(lower, suggestion) or squeezed == _squeezed(suggestion))
        if close and suggestion != lower and suggestion.isascii() and dictionary.known(suggestion):
            out.append(Misspelling(m.group(), suggestion))
    return tuple(out)


#: what the `lm` reads of a typo with several candidates (Rule T2, chosen on dev for its cost): the most frequent
#: CONTEXT_CANDIDATES of them, each after the text's last CONTEXT_BEFORE words before the typo and followed by its next
#: CONTEXT_AFTER words; and at most CONTEXT_TYPOS such typos a text (the others keep the frequency order)
CONTEXT_CANDIDATES, CONTEXT_BEFORE, CONTEXT_AFTER, CONTEXT_TYPOS = 6, 12, 4, 12


def _in_context(registry, text: str, typos: list[tuple[int, int, list[str]]],
                likeliest: dict[str, str]) -> list[list[str]]:
    """Each typo's candidates ((start, end, candidates most frequent first) in `text`) ordered by the `lm` role's
    log-probability of each written in the typo's place and followed by the next words, after the words before it:
    P(candidate + next words | words before), the text's other typos (`likeliest`: typo → its most frequent
    candidate) read as corrected, runs of spaces (a blanked tag) as one. A typo's own letters seldom tell its word
    apart; its neighbours do ("I feel sik today." → "sick", where the most frequent word one edit away is "sit").
    One pass of the LM for all of them. Chosen on typed sentences of the shared data with one typo each
    (docs/experiments.md#spelling-in-context). The frequency order stands where no trained LM is served (the tiny
    profile's is random), where it cannot load or fails (the notice is never a refusal), and for a word the LM
    does not read (beyond the most frequent candidates, or the text's first CONTEXT_TYPOS such typos)."""
    ordered = [list(pool) for _, _, pool in typos]
    if not typos or registry.profile == "tiny":
        return ordered

    def read(piece: str) -> str:  # the other typos as corrected, a run of spaces (a blanked tag) as one
        return re.sub(r"\s+", " ", _WORD.sub(lambda w: likeliest.get(w.group(), w.group()), piece))

    asks, read_pools = [], []
    for start, end, pool in typos[:CONTEXT_TYPOS]:
        read_pools.append([c for c in pool if c.isascii()][:CONTEXT_CANDIDATES])  # a suggestion is an ASCII word
        before = read("".join(re.findall(r"\S+\s*", text[max(0, start - 400):start])[-CONTEXT_BEFORE:]))
        after = [w.end() for w, _ in zip(re.finditer(r"\S+", text[end:]), range(CONTEXT_AFTER))]
        rest = read(text[end:end + after[-1]]) if after else ""
        context = before.rstrip(" ")
        asks.append((context, [before[len(context):] + c + rest for c in read_pools[-1]], None))
    try:
        scores = registry.get("lm").loglik_many(asks)
    except Exception as exc:  # noqa: BLE001 - a model that cannot load or decode: the frequency order, said in the log
        log.warning("typo candidates kept in frequency order: the lm could not read them (%s)", exc)
        return ordered
    for k, (pool, ask) in enumerate(zip(read_pools, scores)):
        values = [score for score, _ in ask]
        best = [pool[i] for i in sorted(range(len(pool)), key=lambda i: -values[i])]
        ordered[k] = best + [c for c in ordered[k] if c not in best]
    return ordered


#: what may stand before a sentence's first word: the text's start or a sentence's end, then spaces and opening quotes
_SENTENCE_START = re.compile(r"(?:^|[.!?…][\"'’”)\]]*\s)[\s\"'“‘(\[]*$")


def _swapped_function_word(dictionary, word: str, before: str) -> str | None:
    """A sentence's capitalised first word that is an English function word with two letters swapped ("Teh", "Hte",
    "Tehy"): its correction, capitalised; None for any other word (a name: "Theo", "Arn" are one edit from "the",
    "are" but not their letters swapped). Over the 596 texts of blind_reads/ and 1,047 crowd-written narratives of the
    shared data, it names none. `before`: the text before the word, tags blanked.
    Why: docs/experiments.md#spelling-first-word"""
    lower = word.lower()
    if (len(word) < 3 or not word[1:].islower() or not _SENTENCE_START.search(before)
            or _known(dictionary, lower)):
        return None
    suggestion = dictionary.correction(lower)  # a swap of the first two letters is among its candidates ("Hte")
    if suggestion in ENGLISH_WORDS and suggestion != lower and sorted(suggestion) == sorted(lower):
        return suggestion.capitalize()
    return None


def _dictionary():
    """The registry's `spelling` role (loaded once, on first use)."""
    from ..models import get_registry

    return get_registry().get("spelling")


def known_word(word: str) -> bool:
    """Whether the `spelling` role's dictionary knows `word` (any case; a possessive, a plural, a British spelling of
    a known word); True when no dictionary can be served."""
    from ..models import ModelUnavailable, get_registry

    try:
        return _known(get_registry().get("spelling"), word.lower().replace("’", "'"))
    except ModelUnavailable:
        return True


def _known(dictionary, word: str) -> bool:
    if dictionary.known(word):
        return True
    for base in (re.sub(r"'(s|d|ll|re|ve|m|t)$", "", word), re.sub(r"(?<=[a-z]{3})s$", "", word),
                 re.sub(r"(?<=[a-z]{3})es$", "", word)):
        if base != word and dictionary.known(base):  # "sofa's", "she'd"; a plural the list lacks, "spyholes"
            return True
    return any(dictionary.known(pattern.sub(american, word)) for pattern, american in _BRITISH
               if pattern.search(word))


def _apostrophe(dictionary, word: str) -> str | None:
    """A contraction typed without its apostrophe, when the dictionary knows it with one: "wasnt" → "wasn't",
    "theyd" → "they'd"."""
    for bare, written in (("nt", "n't"), ("ve", "'ve"), ("ll", "'ll"), ("re", "'re"), ("d", "'d"), ("s", "'s"),
                          ("m", "'m")):
        if word.endswith(bare) and len(word) > len(bare) + 1:
            contraction = word[:-len(bare)] + written
            if dictionary.known(contraction):
                return contraction
    return None


def _one_edit(a: str, b: str) -> bool:
    """Whether one insertion, deletion, substitution or swap of neighbours turns `a` into `b`."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _squeezed(word: str) -> str:
    return re.sub(r"(.)\1+", r"\1", word)


def corrected(text: str, found) -> str:
    """`text` with each of `found` (`misspellings`) replaced by its suggestion, a capital kept."""
    fixes = {m.word: m.suggestion for m in found}

    def fix(match):
        word = match.group()
        new = fixes.get(word)
        if new is None:
            return word
        return new.upper() if word.isupper() and len(word) > 1 else new[:1].upper() + new[1:] if word[:1].isupper() \
            else new
    return _WORD.sub(fix, text)


def spelling_note(text: str, found, quote=lambda words: f"“{words}”", what: str = "sentence") -> str:
    """One line for the user about `misspellings` of `text` ("" for none): 'Check the spelling: “verry” (very?),
    “sofft” (soft?); did you mean “Her voice was very soft.”? The models read the sentence as typed, …'. `quote`
    renders typed text as the caller's page needs (escaped). For a `what` other than a sentence (a story), the words
    alone: the whole text corrected would be too long to quote."""
    if not found:
        return ""
    words = ", ".join(f"{quote(m.word)} ({m.suggestion}?)" for m in found)
    if what != "sentence":
        return (f"Check the spelling: {words}. The models read the {what} as typed, so a typo changes what they "
                "find.")
    return (f"Check the spelling: {words}; did you mean {quote(corrected(text, found))}? The models read the "
            "sentence as typed, so a typo changes what they propose.")


#: the parts of speech that carry a sentence's content (spaCy's universal tags)
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV"})


def content_lemmas(doc) -> set[str]:
    """The lemmas of a parsed text's content words (nouns, verbs, adjectives, adverbs; no stop words), lowercased."""
    return {t.lemma_.lower() for t in doc if t.pos_ in CONTENT_POS and t.is_alpha and not t.is_stop}


def shouted(text: str) -> bool:
    """The text is written in capitals ("THE NIGHT WAS DARK."): two words of two letters or more with a lower case
    ("東京", "𝐓𝐇𝐄" have none), and no lower-case letter. Only where every letter keeps its length through lower case
    and back ("ẞ", "ß", "SS"), so offsets hold."""
    words = [w for w in re.findall(r"[^\W\d_]{2,}", text) if w.lower() != w]
    return len(words) >= 2 and text.isupper() and all(len(ch.lower()) == len(ch.lower().upper()) == 1 for ch in text)


def read_as_written(text: str) -> str:
    """`text` as the models should read it: in sentence case when it is `shouted` ("HE RAN LIKE A CHEETAH." had the
    topic "HE RAN"), else as it is; the same length, so offsets into one index the other."""
    if shouted(text) and not shouted(cased := sentence_case(text)):
        return cased
    return text


def sentence_case(text: str) -> str:
    """A text `shouted` finds, as a sentence is written: each sentence's first letter and the word "I" in capitals, the
    rest in lower case; the same length, so a span of one is a span of the other. The parser reads words in capitals
    as names: "THE NIGHT WAS DARK." had no adjective."""
    seen = blank_markup(text)  # a tag's letters are no sentence's first ("<B>THE NIGHT …" → "<b>The night …")
    out, start = [], True
    for i, ch in enumerate(text.lower()):
        if seen[i].isalpha():
            word_i = ch == "i" and not (i and seen[i - 1].isalpha()) and not (i + 1 < len(seen) and
                                                                               seen[i + 1].isalpha())
            out.append(ch.upper() if start or word_i else ch)
            start = False
        else:
            out.append(ch)
            start = start or seen[i] in ".!?"
    return "".join(out)
