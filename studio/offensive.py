"""Words the studio never writes: slurs and obscenities anywhere, and, as the vehicle of a simile, old names for
peoples that a comparison turns into a stereotype ("like a gypsy"). The simile KB is mined partly from
19th-century books and holds racial slurs as vehicles ("like an injun"); the small language models learned from such
text too. A word list is blunt: it misses what it does not name, so Polish also drops groups of people the parser's
entity recogniser finds (studio/similes/filters.py), and nothing here judges a sentence's meaning."""
from __future__ import annotations

import re

#: slurs and obscenities, exact words
SLURS = frozenset("""
    nigger niggers nigga negro negroes negress darkie darky darkey coon coons pickaninny sambo mulatto half-breed
    injun injuns redskin redskins squaw squaws chinaman chinamen chink chinks jap japs coolie coolies gook gooks
    dago dagos wop wops spic spics kike kikes yid hottentot hottentots paki pakis wetback beaner raghead towelhead
    retard retards faggot faggots fag fags dyke tranny whore whores slut sluts bitch bitches cunt twat wanker
    """.split())
#: the beginnings of obscenities and slurs in any form ("fucking", "shitty")
STEMS = ("fuck", "motherf", "shit", "cunt", "nigg", "bitch", "slut", "fagg", "wank")
#: no vehicle of a simile: names for peoples and people ("as proud as a turk"), and vulgar words a sentence about
#: a person named Dick may hold
PEOPLES = frozenset("""
    jew jews jewess gypsy gypsies gipsy gipsies eskimo eskimos turk turks heathen heathens savage savages cripple
    dick penis hooker hookers
    """.split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
#: a person named by the colour of their skin, no vehicle of a simile ("as pale as a black man", a visitor found
#: among the KB's 19th-century vehicles): a colour word and a word for people
_SKIN = re.compile(r"\b(?:black|white|brown|yellow|red|coloured|colored)[\s-]+(?:man|men|woman|women|person|persons|"
                   r"people|folks?|boys?|girls?|child|children|babies|baby|fellows?|guys?|lady|ladies|gentlemen|"
                   r"gentleman|slaves?|servants?)\b", re.IGNORECASE)


def offensive_words(text: str, *, vehicle: bool = False) -> list[str]:
    """The words of `text` that are slurs or obscenities (and, for a simile's vehicle, names for peoples and a
    person named by skin colour, "a black man")."""
    words = [w.lower() for w in _WORD.findall(text)]
    found = [w for w in words if w in SLURS or w.startswith(STEMS) or (vehicle and w in PEOPLES)]
    return found + ([m.group(0) for m in _SKIN.finditer(text)] if vehicle else [])


def masked(text: str) -> str:
    """`text` with each slur or obscenity replaced by "[withheld]": for what the studio shows from its sources (the
    KB instances behind a HAUSER score), which stay counted but are not written out."""
    def one(m: re.Match) -> str:
        w = m.group(0).lower()
        return "[withheld]" if w in SLURS or w.startswith(STEMS) else m.group(0)

    return _WORD.sub(one, text)
