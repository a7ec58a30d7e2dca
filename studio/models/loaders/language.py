"""Language identification: langid.py's naive Bayes model over byte n-grams (py3langid, its model shipped inside the
PyPI package), or a langid model file given by STUDIO_MODEL_LANGUAGE. Spelling: pyspellchecker's English word
frequency list (shipped inside its PyPI package)."""
from __future__ import annotations

import unicodedata
from pathlib import Path

from ..roles import LanguageIdentifier, SpellingDictionary
from .common import LoadError

#: the spec's model id for the model shipped inside the py3langid package
PACKAGE = "py3langid"
#: the spec's model id for the English word list shipped inside the pyspellchecker package
SPELLING_PACKAGE = "pyspellchecker:en"


class LangidIdentifier(LanguageIdentifier):
    backend = "langid.py (py3langid)"

    def __init__(self, identifier, model_id: str):
        self._identifier, self.model_id = identifier, model_id

    def classify(self, text: str) -> tuple[str, float]:
        code, probability = self._identifier.classify(text)
        return code, float(probability)

    def close(self) -> None:
        self._identifier = None


def load_langid(spec, registry) -> LanguageIdentifier:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier as Langid
    except ImportError as exc:
        raise LoadError("py3langid is not installed", "pip install -r requirements.txt", unavailable=True) from exc
    if spec.model_id != PACKAGE and not Path(spec.model_id).is_file():
        raise LoadError(f"no langid model file at {spec.model_id!r}",
                        "point STUDIO_MODEL_LANGUAGE at a langid.py model file, or unset it", unavailable=True)
    path = MODEL_FILE if spec.model_id == PACKAGE else spec.model_id  # the package's own model, or the file given
    identifier = Langid.from_model_file(path, norm_probs=True)
    identifier.set_languages(list(LanguageIdentifier.LANGUAGES))
    return LangidIdentifier(identifier, spec.model_id)


def _unaccented(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


def _swapped(a: str, b: str) -> bool:
    """Whether `a` is `b` with two neighbouring letters swapped."""
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return len(a) == len(b) and len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] \
        and a[diff[1]] == b[diff[0]]


class PySpellChecker(SpellingDictionary):
    backend = "pyspellchecker (English word frequencies)"

    def __init__(self, checker, model_id: str):
        self._checker, self.model_id = checker, model_id

    def known(self, word: str) -> bool:
        return word in self._checker

    def candidates(self, word: str) -> list[str]:
        """The known words one edit away, most frequent first: those that keep the word's first letter or swap two
        neighbouring letters back (a typo rarely hits the first letter otherwise: "wather" → "water", not "father";
        "adress" → "address", not "dress"; "hte" → "the"), else any; only the accented word for one typed without
        its accent ("cafe" → "café")."""
        if word in self._checker:
            return [word]
        found = sorted(self._checker.candidates(word) or ())
        accented = [c for c in found if _unaccented(c) == word]
        if accented:
            return accented[:1]
        # two neighbouring letters swapped is a common typo, the first letter's included ("hte" → "the", "nad" →
        # "and"): such a word stands beside those that keep the first letter
        pool = [c for c in found if c[:1] == word[:1] or _swapped(c, word)] or found
        return sorted(pool, key=self._checker.word_usage_frequency, reverse=True)

    def close(self) -> None:
        self._checker = None


def load_pyspellchecker(spec, registry) -> SpellingDictionary:
    try:
        from spellchecker import SpellChecker
    except ImportError as exc:
        raise LoadError("pyspellchecker is not installed", "pip install -r requirements.txt",
                        unavailable=True) from exc
    if spec.model_id == SPELLING_PACKAGE:  # the package's own English list
        return PySpellChecker(SpellChecker(language="en", distance=1), spec.model_id)
    if not Path(spec.model_id).is_file():
        raise LoadError(f"no word frequency file at {spec.model_id!r}",
                        "point STUDIO_MODEL_SPELLING at a pyspellchecker word frequency file (JSON, optionally "
                        "gzipped), or unset it", unavailable=True)
    return PySpellChecker(SpellChecker(language=None, local_dictionary=spec.model_id, distance=1), spec.model_id)
