"""What the studio takes as English: its models and knowledge base know English figures of speech only, so a text in
another script or another language is refused with a clear message (a script check, a function-word count and, for a
text with at most one English function word, the registry's small language identifier), as is a text with no word at all
(emoji alone) or only inside HTML tags ("<img src=x onerror=…>"). Every capability's front door asks here."""
from __future__ import annotations

import re
import unicodedata

from ..errors import InputError, _the
from ..textspans import blank_markup

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
    in any language), or reads as another Latin-script language (`refuse_other_language`)."""
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
    refuse_other_language(text, what, identifier)


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
