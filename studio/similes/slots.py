"""Where a literal sentence takes a comparison, Polish's *slots*: a predicated adjective ("was very loud" → "as
loud as …") or the end of a verb's phrase ("walked slowly down the road" → "… like …"); and the note Polish gives
when the sentence denies the action a simile would picture."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..figures.antonyms import load_antonyms
from ..textspans import MARKUP_TAG, blank_markup, prose


CONTEXT_WORDS = 20
_INTENSIFIERS = {"very", "so", "really", "extremely", "quite", "too", "rather", "pretty", "incredibly", "awfully",
                 "terribly", "truly", "utterly", "totally", "completely", "remarkably", "exceptionally", "super",
                 # degree, not manner: "as surprisingly difficult as a riddle" is not English
                 "surprisingly", "unusually", "particularly", "especially", "amazingly", "strangely", "oddly",
                 "fairly", "absolutely", "unbelievably", "ridiculously", "painfully", "wonderfully", "horribly"}
LINKING = {"be", "feel", "look", "seem", "sound", "become", "grow", "get", "turn", "remain", "stay", "appear",
           "smell", "taste", "go", "keep", "come", "prove"}
#: "-ly" words before an adjective that are no manner of it ("only slightly cold" keeps "only" outside)
NOT_MANNER = {"only", "early", "likely", "nearly", "really", "hardly", "barely", "merely", "mostly", "partly"}
#: prepositions that open an adjective's own complement ("proud of his garden", "angry with his brother"); "at", "in",
#: "for" mostly open adjuncts ("silent at night" → not "as silent at night as the grave")
_COMPLEMENT = {"of", "with", "about"}
_VP_STOP = {"conj", "cc", "advcl", "ccomp", "parataxis", "punct", "relcl", "mark", "xcomp", "csubj", "nsubj",
            "nsubjpass", "aux", "auxpass", "neg", "expl", "dep", "appos", "npadvmod"}


@dataclass
class Slot:
    """A place in the literal where a comparison can go. The realised sentence is
    literal[:start] + <phrase> + literal[end:]; for an adjective slot [start, end) spans the intensifier and the
    adjective (replaced by "as ADJ as NP"), for a verb slot start == end (the phrase is inserted)."""
    start: int
    end: int
    kind: str          # "adjective" or "verb"
    anchor: str        # the adjective, or the last word of the verb phrase
    adjective: str = ""
    score: float = 0.0
    words: list = field(default_factory=list)  # lemmas around it (for retrieval)
    verb: str = ""     # a verb slot's verb as the sentence has it ("rumbled")
    #: tags of the replaced words whose partners lie beyond other words: closing ones go before the comparison,
    #: opening ones after it (`whole_elements`), so that no tag is lost or left alone
    lead: str = ""
    trail: str = ""

    @property
    def offset(self) -> int:
        return self.start

    def opener(self) -> str:
        return f"as {self.adjective} as" if self.kind == "adjective" else "like"


_DENIED_ACTION = ("The sentence says “{said}”: a simile of the action (“{said} like …”) pictures an action the "
                  "sentence denies, so its image can read as the opposite of what it means. To picture what "
                  "happened, polish a sentence that says it.")
#: subjects that deny the action they do ("Nobody ran fast.", "None of us ran fast."); "No dog", "Not one of them"
#: and "Hardly anyone" by their modifier
_NEGATIVE_SUBJECTS = {"nobody", "nothing", "none", "neither", "noone", "no-one"}
_SCARCELY = {"hardly", "scarcely", "barely"}


def _negative_subject(verb):
    """The verb's subject when it denies the action ("Nobody", "No dog", "Hardly anyone"), else None; not one that
    excepts someone ("Nobody but me") nor a partial negation ("Not every dog")."""
    for subject in verb.children:
        if subject.dep_ not in ("nsubj", "nsubjpass") or subject.i > verb.i:
            continue
        mods = list(subject.children)
        if any(m.lower_ in ("but", "except", "every", "all", "each") for m in mods):
            continue
        if subject.lower_ in _NEGATIVE_SUBJECTS or any(
                m.dep_ in ("det", "neg") and m.lower_ in ("no", "not") or m.dep_ == "advmod" and m.lower_ in _SCARCELY
                for m in mods):
            return subject
    return None


def _cannot_help(verb) -> bool:
    """"can't help but laugh", "couldn't help laughing": a negated "help" after "can" or "could", with no object,
    and after it "but" and a verb's base form, or a gerund: it says the laughing happens ("She didn't help quickly and
    left.", "I could not help him but …" stay denials)."""
    children = list(verb.children)
    if verb.lemma_.lower() != "help" or not any(c.dep_ == "neg" for c in children) \
            or not any(c.dep_ == "aux" and c.lemma_.lower() in ("can", "could") for c in children) \
            or any(c.dep_ in ("dobj", "iobj") for c in children):
        return False
    but = any(c.dep_ == "cc" and c.lower_ == "but" and c.i == verb.i + 1 for c in children)
    return any(c.i > verb.i and (but and c.dep_ == "conj" and c.tag_ == "VB"
                                 or c.dep_ in ("xcomp", "ccomp") and c.tag_ == "VBG") for c in children)


def negation_note(literal: str, doc, slot: Slot, lm=None) -> str:
    """For an adjective slot whose adjective the sentence negates ("The room was not quiet."): its similes compare
    with what has the quality ("not as quiet as a mouse"), which weakens the sentence rather than pictures it; one
    line saying so, with the sentence that states the adjective's antonym when WordNet has one and "not" stands
    right before the slot ("The room was noisy."), the antonym `lm` finds likeliest in the sentence first ("noisy"
    before "active"; the table's own order is alphabetical). For a verb slot whose verb the sentence negates ("He
    never ran fast."): its images picture the action the sentence denies. "" otherwise."""
    if slot.kind == "verb":
        verb = next((t for t in reversed(doc) if t.idx < slot.start and t.text == slot.verb
                     and t.pos_ in ("VERB", "AUX")), None)
        # a negation before the verb denies it ("never ran fast"); one after it, a part ("ran home, not to school");
        # "can't help laughing" says the laughing happens
        neg = None if verb is None or _cannot_help(verb) else next(
            (c for c in verb.children if c.dep_ == "neg" and c.i < verb.i), None)
        if neg is None:
            subject = None if verb is None else _negative_subject(verb)
            if subject is None:
                return ""
            said = " ".join(blank_markup(literal)[subject.left_edge.idx:slot.end].split())
            return _DENIED_ACTION.format(said=said)
        # from the auxiliary a contraction or "cannot" hangs on ("didn't run fast", not "n't run fast"); spaces and
        # blanked tags between them skipped, the tags left out of the quote
        j = _next_to(neg, -1)
        aux = doc[j] if j >= 0 and doc[j].head.i == verb.i and doc[j].dep_ in ("aux", "auxpass") else None
        said = " ".join(blank_markup(literal)[(aux or neg).idx:slot.end].split())
        return _DENIED_ACTION.format(said=said)
    if slot.kind != "adjective":
        return ""
    span = doc.char_span(slot.start, slot.end, alignment_mode="expand")
    if span is None or not len(span):
        return ""
    adj = span[-1]
    neg = next((c for t in (adj, adj.head) for c in t.children if c.dep_ == "neg"), None)
    if neg is None:
        return ""
    said = (f"“{literal[neg.idx:slot.end]}”" if neg.lower_ == "not" and neg.i < span.start
            else f"that it is not {slot.adjective}")
    note = (f"The sentence says {said}: a simile of “{slot.adjective}” compares with what is {slot.adjective} "
            f"(“not as {slot.adjective} as …”), which weakens the sentence rather than pictures it.")
    opposites = load_antonyms().get(slot.adjective.lower(), ())
    if opposites and neg.lower_ == "not" and neg.i + 1 == span.start and len(span) == 1:  # "not very hot" ≠ "cold"
        if lm is not None and len(opposites) > 1:
            said = [value for value, _ in lm.loglik([literal[:neg.idx].rstrip()] * len(opposites),
                                                     [" " + a for a in opposites])]
            opposites = [a for _, a in sorted(zip(said, opposites), key=lambda t: -t[0])]
        rest = _NEGATIVE_POLARITY.sub("", literal[slot.end:])  # "not warm at all" → "cool", not "cool at all"
        rewrites = " or ".join(f"“{literal[:neg.idx] + a + rest}”" for a in opposites[:3])
        return note + f" To picture what it is, polish {rewrites} (WordNet's opposites of “{slot.adjective}”)."
    return note + " To picture what it is, polish a sentence that says the quality itself."


#: what only strengthens a negation ("not warm at all", "not tired in the least"): gone with the "not" it strengthens
_NEGATIVE_POLARITY = re.compile(r"^,?\s+(?:at all|in the least|in the slightest|one bit|whatsoever)"
                                r"(?=\s*(?:[,.;:!?)]|$))", re.IGNORECASE)


def _next_to(tok, step: int) -> int:
    """The index of the token right before (step −1) or after (+1) `tok`, spaces skipped (a double space or a blanked
    tag is a token of its own: "was very  quiet" kept "very" before the comparison); −1 or len(doc) at an end."""
    doc, j = tok.doc, tok.i + step
    while 0 <= j < len(doc) and doc[j].is_space:
        j += step
    return j


def find_slots(literal: str, doc, respell: dict[str, str] | None = None) -> list[Slot]:
    """Adjective slots (predicated adjectives) and verb slots (the end of each verb's phrase). `respell`: typed word
    (lower case) → the word it likely stands for, so that a misspelt intensifier goes like a spelt one ("extremly
    hot" → "as hot as"). An adjective whose degree a clause completes ("so happy that she cried", "too tired to walk",
    "old enough to vote") has no slot: a comparison would cut it from its clause; "happy to see them" and "sure that
    he left" keep theirs ("as happy as a lark to see them")."""
    respell = respell or {}

    def intensifier(token) -> bool:
        return token.lower_ in _INTENSIFIERS or respell.get(token.lower_) in _INTENSIFIERS

    slots: dict[tuple[int, str], Slot] = {}
    for tok in doc:
        # "tasted bitter" (the parser may call it advmod), "was dim" (or the adjective as the root, "was" its aux)
        predicated = tok.pos_ == "ADJ" and tok.tag_ == "JJ" and (
            (tok.dep_ in ("acomp", "oprd", "advmod") and tok.head.lemma_.lower() in LINKING and tok.head.i < tok.i)
            or (tok.dep_ == "ROOT" and any(c.dep_ in ("aux", "auxpass", "cop") and c.lemma_ == "be"
                                           for c in tok.children)))
        # "The students were bored": a passive participle of the main clause, with no agent or object, reads as a
        # state; in a subordinate clause it is an event ("… when the goal was scored", not "as scored as")
        participle = tok.tag_ == "VBN" and tok.dep_ == "ROOT" and any(c.dep_ == "auxpass" for c in tok.children) \
            and not any(c.dep_ in ("agent", "dobj", "xcomp", "ccomp") for c in tok.children)
        degree = {m.lower_ for m in tok.children if m.dep_ == "advmod"}
        if predicated and any(c.i > tok.i and (c.dep_ == "ccomp" and "so" in degree or c.dep_ == "xcomp" and degree
                                               & {"too", "enough"}) for c in tok.children):
            continue  # "so happy that she cried", "too tired to walk"; not "happy to see them", "so dark when we left"
        if predicated or participle:
            first = tok
            mods = [c for c in tok.children if c.dep_ in ("advmod", "amod") and c.i == _next_to(tok, -1)]
            intensified = bool(mods) and intensifier(mods[0])
            while intensified:  # a run of them goes too, commas between: "was very, very big" → "was as big as"
                j = _next_to(mods[0], -1)
                if j >= 1 and doc[j].text == ",":
                    j = _next_to(doc[j], -1)
                if j < 0 or not intensifier(doc[j]):
                    break
                mods = [doc[j]]
            # a manner adverb goes inside the comparison: "was bitterly cold" → "was as bitterly cold as ice"; so does
            # an adjective's own modifier: "was bright yellow" → "was as bright yellow as the sun"
            graded = bool(mods) and not intensified and (mods[0].dep_ == "amod" or (
                mods[0].lower_.endswith("ly") and mods[0].lower_ not in NOT_MANNER))
            if intensified or graded:
                first = mods[0]
            last, adjective = tok, (f"{mods[0].text} {tok.lower_}" if graded else tok.lower_)
            comp = [c for c in tok.children if c.dep_ == "prep" and c.i == _next_to(tok, 1) and c.lower_ in _COMPLEMENT]
            if comp:  # "proud of his garden" → "as proud of his garden as a peacock"
                last = max((t for t in comp[0].subtree if not t.is_punct), key=lambda t: t.i)
                adjective = literal[first.idx if graded else tok.idx:last.idx + len(last)]
            start, end, lead, trail = whole_elements(literal, first.idx, last.idx + len(last))
            slots[(start, "adjective")] = Slot(start, end, "adjective", tok.text, prose(adjective), score=2.0,
                                               words=_around(doc, tok.i), lead=lead, trail=trail)
    for tok in doc:
        if tok.pos_ != "VERB" or tok.dep_ in ("amod", "aux", "auxpass", "compound"):
            continue
        if any(c.dep_ in ("acomp", "oprd") and c.pos_ == "ADJ" for c in tok.children) and tok.lemma_ in LINKING:
            continue  # "looked happy": the adjective slot says it better
        if any(s.kind == "adjective" and s.anchor == tok.text and s.start <= tok.idx < s.end for s in slots.values()):
            continue  # "were bored": a participle read as an adjective
        if _cannot_help(tok) and any(c.dep_ == "cc" and c.lower_ == "but" and c.i == tok.i + 1
                                     for c in tok.children):
            continue  # "can't help but laugh": the place is after the laughing, the conjoined verb's
        last = _phrase_end(tok)
        end = last.idx + len(last)
        if _opens_a_quote(doc, last.i + 1):
            continue  # 'She said "I will be there"': the comparison would cut the words said from their verb
        if (end, "verb") not in slots and end > 0:
            # the main verb's phrase first, then the others in sentence order
            rank = 1.0 if tok.dep_ == "ROOT" else 0.5 - 0.01 * tok.i
            slots[(end, "verb")] = Slot(end, end, "verb", last.text, score=rank, words=_around(doc, last.i),
                                        verb=tok.text)
    if not slots:
        # a verbless fragment ("A long, cold night.") or a clause the parser read no slot in ("The soup tasted bland."
        # with "bland" a noun): the end of the clause; not a clause that only names what something is, "be" with a
        # noun predicate ("Paris is the capital of France." → "… of France like Rome.")
        for sent in doc.sents:
            if any(t.lemma_ == "be" and t.dep_ == "ROOT" and any(c.dep_ == "attr" for c in t.children) for t in sent):
                continue
            last = sent[-1]
            while last.i > sent.start and last.is_punct:
                last = doc[last.i - 1]
            if not last.is_punct:
                end = last.idx + len(last)
                slots[(end, "verb")] = Slot(end, end, "verb", last.text, words=_around(doc, last.i), verb=last.text)
    return list(slots.values())


#: the middle word of a reduplicated adverbial ("one by one", "day after day", "face to face")
_REDUPLICATING = {"by", "after", "to", "upon"}


def _reduplicated(token) -> bool:
    """Whether the token's phrase is a reduplicated adverbial, "one by one", "bit by bit", "day after day": part of
    the verb's phrase, so the comparison goes after it ("stamped the books one by one like a machine", not "stamped
    the books like a machine one by one")."""
    words = [t.lower_ for t in token.subtree if not t.is_punct]
    return len(words) == 3 and words[0] == words[2] and words[1] in _REDUPLICATING


_QUOTES = {'"', "“", "‘", "«", "„"}


def _opens_a_quote(doc, i: int) -> bool:
    """Whether a quotation opens at token i, right after the verb's phrase ('said "I will"'; after a comma the
    comparison still fits: 'shouted like a child, "Stop!"'). A straight single quote opens one only when another
    closes it later ("said 'I will be there' and left"), not as an elision ("'til dawn", "'tis")."""
    if i >= len(doc) or doc[i].whitespace_:
        return False
    if doc[i].text in _QUOTES:
        return True
    rest = doc.text[doc[i].idx + 1:]
    return doc[i].text == "'" and re.search(r"[\w.!?,]'(?!\w)", rest) is not None


def _phrase_end(verb):
    """The last token of the verb's own phrase: its particles, objects, adverbs, prepositional phrases and a
    reduplicated adverbial ("one by one"), not a conjoined or subordinate clause, and not the sentence's
    punctuation."""
    last = verb
    for child in verb.children:
        if child.i < verb.i or (child.dep_ in _VP_STOP and not (child.dep_ == "npadvmod" and _reduplicated(child))):
            continue
        tokens = [t for t in child.subtree if not t.is_punct]
        if tokens:
            right = max(tokens, key=lambda t: t.i)
            if right.i > last.i:
                last = right
    return last


def _around(doc, i: int) -> list[str]:
    return [t.lemma_.lower() for t in doc[max(0, i - CONTEXT_WORDS // 2):i + CONTEXT_WORDS // 2] if t.is_alpha]


def whole_elements(text: str, start: int, end: int) -> tuple[int, int, str, str]:
    """(start, end, lead, trail): [start, end) widened so that it cuts no element of `text`'s markup in two where only
    tags lie between ("was <i>very</i> quiet": "very</i> quiet" → "<i>very</i> quiet"), so the comparison that
    replaces the span leaves no tag open or closed alone. A tag inside whose partner lies beyond words of the sentence
    is kept instead (the words are never taken): a closing one goes in `lead`, before the comparison, an opening one
    in `trail`, after it ("She <i>was very</i> quiet." → "She <i>was </i>as quiet as …"). A span without tags is as
    it was, with no lead or trail."""
    if not MARKUP_TAG.search(text, start, end):
        return start, end, "", ""
    pairs, open_tags = [], []
    for m in MARKUP_TAG.finditer(text):
        name = re.match(r"</?([A-Za-z][\w-]*)", m.group()).group(1).lower()
        if m.group().startswith("</"):
            at = next((k for k in range(len(open_tags) - 1, -1, -1) if open_tags[k][0] == name), None)
            if at is not None:
                pairs.append((open_tags.pop(at)[1], m))
        elif not m.group().endswith("/>"):
            open_tags.append((name, m))
    changed = True
    while changed:
        changed = False
        for opening, closing in pairs:
            inside = (start <= opening.start() < end, start < closing.end() <= end)
            if inside == (True, False) and not blank_markup(text[end:closing.start()]).strip():
                end, changed = closing.end(), True
            elif inside == (False, True) and not blank_markup(text[opening.end():start]).strip():
                start, changed = opening.start(), True
    lead = "".join(c.group() for o, c in pairs if start < c.end() <= end and not start <= o.start() < end)
    trail = "".join(o.group() for o, c in pairs if start <= o.start() < end and not start < c.end() <= end)
    return start, end, lead, trail
