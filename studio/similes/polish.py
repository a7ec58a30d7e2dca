"""Polishing: turn a literal sentence into distinct, grammatical simile candidates.

One realiser writes every candidate (`realise`): the sentence is parsed into *slots* where English puts a
comparison, each with the comparators it allows —
  adjective — a predicated adjective ("was very loud", "looked happy"): "as ADJ as NP" replaces the adjective and
              its intensifier ("was as loud as thunder");
  verb      — the end of a verb's phrase (after its objects, particles, adverbs and prepositional phrases, before a
              conjoined or subordinate clause): "like NP" or an "as if" clause ("walked slowly down the road like
              a tortoise");
and the vehicle noun phrase is made to agree ("a beehive", never "a beehives"). Vehicles come from sources
(the strategies), each usable on its own:
  lm        — the writer polisher: the `writer` with a LoRA delta trained on literal → simile pairs
              (`python -m studio train polish --base writer`), prompted with the literal and the sentence up to the
              slot's comparator, sampled (seeded); where that delta does not fit (other profiles) the polisher, the
              offline `lm` with its own delta (`python -m studio train polish`), or the plain `lm`, few-shot;
  retrieval — the HAUSER paper's BM25 baseline: the words around the slot retrieve similar KB simile contexts;
  property  — the adjective itself, or the salient property of the event (KB properties near the sentence's words,
              ranked by the lm), then the KB's typical vehicles for it;
  insertion — the KB's most frequent vehicles (generic; ranked like the rest, so they win only where they fit).
Slots are tried in a fixed order (the adjective, the main verb's phrase, the other verbs'); every candidate is
scored once by the same model (`score`, see SCORE_MEANING); near duplicates (the same vehicle
head, or one modifier: "a mournful sigh", "a mournful cry") are merged, keeping the best; at most one candidate per
vehicle head and per modifier, and the report says how many came and why fewer than asked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import InputError, check_stop, require_text
from ..figures.components import extract_similes, wordless_image
from ..figures.detector import simile_probability, someones, threshold
from ..figures.english import CONTENT_POS, corrected, misspellings, read_as_written, refuse_non_english
from ..models import get_registry
from ..textspans import blank_emoji, blank_markup
from ..wording import agreeing, counted
from .filters import (distinct_images, like_with_like, merge_near_duplicates, no_image, of_the_topic_kind,
                      opposite_images, opposite_kb_images, opposite_manner)
from .polisher import Candidate, WRITER_POLISHER, polisher_lm, proposer_lm, score_all
from .ranking import keep_probabilities, writer_order
from .realiser import realise_all
from .slots import LINKING, Slot, find_slots, negation_note
from .sources import (vehicles_by_images, vehicles_by_insertion, vehicles_by_lm, vehicles_by_property,
                      vehicles_by_retrieval, vehicles_by_writer)
from .writer_vehicles import DOMAINS, REGISTERS


STRATEGIES = ("images", "writer", "lm", "retrieval", "property", "insertion")
#: the default sources: the image table ("images") first; "insertion" (the KB's most frequent vehicles) runs only
#: when asked for, and the writer source (the `writer` role) is offered, not a default
#: why: docs/experiments.md#polish-insertion-off
#: why: docs/experiments.md#polish-writer-source
#: why: docs/experiments.md#polish-images-source
DEFAULT_STRATEGIES = ("images", "lm", "retrieval", "property")
#: candidates the polisher scores below this are dropped (and counted in the shortfall); 0: the score ranks, it does
#: not filter
#: why: docs/experiments.md#polish-no-floor
MIN_SCORE = 0.0
MAX_N = 50
#: without keep, an attested "as ADJ as V" candidate (`realiser.attested`) ranks as if its score were (1 +
#: ATTESTED_BONUS) times higher
#: why: docs/experiments.md#polish-attested-bonus
ATTESTED_BONUS = 1.0
MAX_CHARS = 400
#: shown by the UI, the CLI and the downloads
SCORE_MEANING = ("score = how readily the polisher (the language model fine-tuned on literal → simile pairs) writes "
                 "this simile for this literal: the geometric mean of its per-token probabilities over the inserted "
                 "phrase and the word after it, from 0 to 1 (higher reads more naturally; long sentences score low "
                 "throughout). No candidate is dropped for a low score. It measures fluency and fit, not creativity "
                 "(Rerank scores that).")
RANKING = ("Candidates are ranked by the score, best first; an \"as ADJ as\" simile whose vehicle the simile KB "
           "knows for that adjective (marked KB: \"as sweet as honey\") counts double; one whose vehicle the "
           "polisher finds likelier after the opposite adjective (\"as heavy as a feather\"), or after the opposite of "
           "the sentence's manner adverb (\"moved slowly … like an arrow\"), or whose vehicle the simile KB knows for "
           "that opposite (\"walked slowly … like a deer\"), is left out.")
KEEP_MEANING = ("keep = the keep model's estimate of how likely a writer is to keep the candidate (0..1): a logistic "
                "model fitted on our own blind reads' labels, from the score, the source, KB attestation and how "
                "close the vehicle's meaning is to "
                "\"something ADJ\" or \"something that VERB\", to the sentence, to its subject and to \"a person\". "
                "Candidates are ranked by keep, best first. Keep ranks well but runs high on sentences no reader saw: "
                "a fresh blind reader keeps far fewer lines than keep says (under About, *How well it works*).")
#: with the writer, an adjective's best PROPERTY_FIRST KB vehicles come first, then the writer's images; and the
#: property source leaves verb slots to the writer
#: why: docs/experiments.md#polish-writer-source
PROPERTY_FIRST = 5
WRITER_ORDER = ", reread by the writer"
WRITER_READS = (" Before the list is cut to the number asked, the writer (the largest offline language model) reads "
                "the best 20 candidates again, the image table's and the writer's images among them: keep is "
                "computed again for each with how likely the writer finds the simile in the sentence, and they are "
                "ordered by it, so every one of them has a keep.")
WRITER_FIRST = ("For an adjective the knowledge base's best vehicles come first (source \"property\", by keep); then "
                "the writer's images (source \"writer\"), in the order the writer proposed them; then the other "
                "sources' candidates. ")
IMAGES_FIRST = (" The image table's images (source \"images\": the images English typically compares the "
                "adjective to, or the adjective of the verb's manner adverb, \"slowly\" → slow) come first, in the "
                "table's order, without keep.")


@dataclass(frozen=True)
class PolishResult:
    """What one Polish request gives: the candidates (best first) and how they came (what was asked, proposed,
    merged, rejected; how they are ranked). `to_dict()` is the command line's and the API's JSON."""
    literal: str
    candidates: list[Candidate]
    asked: int
    delivered: int
    proposed: dict[str, int]   # distinct vehicles per source
    distinct: int              # distinct candidates after merging
    merged: int                # near duplicates merged
    rejected: int              # ungrammatical, repeating the sentence's words, or of the subject's own kind
    below_min_score: int
    opposite: int              # vehicles that suit the opposite adjective
    score_meaning: str         # what `score` (and `keep`) mean and how the list is ranked (SCORE_MEANING, …)
    ranked_by: str
    generator: str             # the lm source's generator
    expected_keepers: float | None  # keeps summed over the keep_counted (None: none); runs high on new sentences
    shortfall: str             # why fewer than asked came, or ""
    reread: bool               # the writer reread the list
    spelling: tuple = ()       # the literal's likely typos (`english.Misspelling`), noticed and left as typed
    keep_counted: int = 0      # the candidates with a keep (the image table's and the writer's have none)
    negation: str = ""         # the best slot's adjective is negated: what its similes do, and a rewrite to polish
    places: str = ""           # a text of several sentences: which of them the candidates' similes went into

    def to_dict(self) -> dict:
        """The JSON of `python -m studio polish --json` (without the literal, which the caller gives as typed)."""
        out = {"candidates": [c.to_dict() for c in self.candidates], "asked": self.asked,
               "delivered": self.delivered, "score": self.score_meaning, "ranked_by": self.ranked_by,
               "generator": self.generator, "expected_keepers": self.expected_keepers,
               "keep_counted": self.keep_counted, "reread": self.reread}
        if self.shortfall:
            out["shortfall"] = self.shortfall
        if self.spelling:
            out["spelling"] = [m.to_dict() for m in self.spelling]
        if self.negation:
            out["negation"] = self.negation
        if self.places:
            out["places"] = self.places
        return out


def _more_sources(strategies) -> str:
    """What a shortfall note advises: the sources left unticked (a visitor with all six ticked was told to add
    sources), and another seed when the lm or writer source is on (it changes their samples), and another sentence."""
    left = [name for name in STRATEGIES if name not in strategies]
    sampled = [name for name in ("lm", "writer") if name in strategies]  # the seed samples these two
    owner = "sources'" if len(sampled) > 1 else "source's"
    steps = ([f"add sources ({', '.join(left)})"] if left else []) + (
        [f"try another seed (it draws the {' and '.join(sampled)} {owner} samples anew, though they often name the "
         "same images)"]
        if sampled else []) + ["try another sentence"]
    said = ", ".join(steps[:-1]) + (" or " if len(steps) > 1 else "") + steps[-1]
    return f" {said[0].upper()}{said[1:]}."


def _no_images(strategies, proposed: dict) -> str:
    """Why the image table gave nothing, when it was asked and did (a visitor with it alone read "only 0 … exist")."""
    if "images" not in strategies or proposed.get("images"):
        return ""
    return (" The image table holds images of a quality: an adjective (\"The night was dark.\") or a verb's manner "
            "adverb (\"She walked slowly.\"); this sentence names none it knows.")


def few_apt_images(expected_keepers: float | None, keep_counted: int) -> bool:
    """Whether the keep model finds under a quarter of four or more scored lines worth keeping (their keeps summed):
    the tab's and the command's advice to reword the sentence."""
    return keep_counted >= 4 and (expected_keepers or 0.0) < keep_counted / 4


def polish(literal: str, n: int = 10, strategies=None, seed: int = 0, *, progress=None,
           should_stop=None, domain: str = "any", register: str = "plain", min_score: float | None = None,
           ranker: bool = True, reread: bool = True) -> PolishResult:
    """The n best simile candidates for a literal sentence (fewer when fewer distinct ones exist: `shortfall` says
    why), and what was delivered. Every input is checked here (text and its length, n, seed, strategies, domain,
    register): the tab, the command line and the API pass them on as given. `strategies` None (or "") is
    DEFAULT_STRATEGIES; a comma-separated string or a list of STRATEGIES names, at least one. `progress(fraction,
    what)` follows the work; `should_stop()` is polled between steps and ends the job with `Stopped`. Plain
    callables, no UI. For evaluation and fitting only: `min_score` overrides the floor (MIN_SCORE); `ranker=False`
    ranks by the score as without the `polish_ranker` role; `reread=False` leaves out the writer's reread."""
    literal = require_text(literal, "literal sentence", MAX_CHARS)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_N:
        raise InputError(f"The number of candidates must be between 1 and {MAX_N}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError("The seed must be a whole number.")
    strategies = check_strategies(strategies)
    if domain not in DOMAINS:
        raise InputError(f"Unknown image domain {domain!r}: choose one of {', '.join(DOMAINS)}.")
    if register not in REGISTERS:
        raise InputError(f"Unknown register {register!r}: choose plain or literary.")
    # read as a sentence is written, the candidates given back in capitals as typed (once: the cased text is never
    # shouted, so this never runs twice)
    if (cased := read_as_written(literal)) != literal:
        result = polish(cased, n, strategies, seed, progress=progress, should_stop=should_stop,
                        domain=domain, register=register, min_score=min_score, ranker=ranker, reread=reread)
        return replace(result, literal=literal, candidates=[
            replace(c, sentence=c.sentence.upper(), phrase=c.phrase.upper()) for c in result.candidates])

    def step(fraction: float, what: str) -> None:
        check_stop(should_stop, "Polishing")
        if progress is not None:
            progress(fraction, what)

    refuse_non_english(literal)
    typos = tuple(misspellings(literal))  # a notice: the models read the sentence as typed
    registry = get_registry()
    step(0.02, "parsing the sentence")
    parser = registry.get("parser")
    # a tag's name and attributes are not words to polish: the sentence is read with them blanked (offsets hold), so
    # "<b>The night was dark.</b>" gets "as dark as coal" inside its tags, not "like an abyss" after them
    doc = parser(blank_markup(literal))  # markup alone was refused by refuse_non_english
    refuse_unpolishable(doc, offer=blank_markup(literal) == literal)
    respell = {m.word.lower(): m.suggestion.lower() for m in typos}
    slots = find_slots(literal, doc, respell)
    if not slots and blank_emoji(literal) != literal:  # "The party was 🎉 very loud 🔊.": read again, emoji as blanks
        unmoji = parser(blank_emoji(blank_markup(literal)))
        if slots := find_slots(literal, unmoji, respell):
            doc = unmoji
    if not slots and (fixed := respelled_with_place(literal, typos)):  # "The nigth was vry drak.": no adjective
        said = ", ".join(f"“{m.word}” → “{m.suggestion}”" for m in typos)  # each: all of them are corrected
        raise InputError(f"No place for a simile was found in the sentence as typed, which may hold typos ({said}): "
                         f"polish “{fixed}” instead.")
    if not slots:
        raise InputError("No place for a simile was found: Polish needs a sentence that says how something is or acts, "
                         "with a predicated adjective (\"The night was dark.\") or an action verb (\"She walked "
                         "slowly.\"); one that names what something is (\"Paris is the capital of France.\") has none.")
    refuse_like_after_like(literal, doc, slots, offer=blank_markup(literal) == literal)
    like_clashes = _like_clashes(doc)
    left_out = sum(map(like_clashes, slots))  # places whose "like …" lines would clash: no source spends samples there
    slots = [slot for slot in slots if not like_clashes(slot)]
    step(0.08, "loading the polisher")
    polisher, trained = polisher_lm()
    slots = sorted(slots, key=lambda s: -s.score)[:3]
    context = {t.lemma_.lower() for t in doc if t.is_alpha and not t.is_stop} | {t.lower_ for t in doc if t.is_alpha}
    from ..figures.kb import load_kb

    kb = load_kb()
    # vehicles per source: enough to survive merging, shared by the sources that fill the list (the image table's
    # few images come on top and take no share: adding them leaves the other sources' draws as they were)
    fillers = [name for name in strategies if name != "images"] or list(strategies)
    want = max(6, -(-3 * n // (2 * len(fillers))) + 2)
    if "lm" in strategies:
        step(0.1, "loading the writer polisher")
    proposer, proposer_trained, samples = proposer_lm(polisher, trained) if "lm" in strategies else (None, False, 0)
    makers = {"writer": lambda: vehicles_by_writer(literal, slots, seed, domain, register,
                                                    lambda f, what: within(f, what)),
              "lm": lambda: vehicles_by_lm(proposer, proposer_trained, literal, slots, seed, want,
                                           tick=lambda f, what: within(f, what), max_samples=samples),
              "retrieval": lambda: vehicles_by_retrieval(kb, slots, doc, want),
              # beside the writer, the KB's vehicles only for an adjective (WRITER_WITH_PROPERTY)
              "property": lambda: vehicles_by_property(kb, polisher, literal, doc, slots, want,
                                                       adjectives_only="writer" in strategies),
              "insertion": lambda: vehicles_by_insertion(kb, slots, want),
              "images": lambda: vehicles_by_images(slots, doc)}
    proposals: list[tuple[str, Slot, str]] = []  # (strategy, slot, vehicle noun phrase or "as if" clause)
    for i, name in enumerate(strategies):
        label, start, width = f"source {i + 1}/{len(strategies)}: {name}", 0.12 + 0.4 * i / len(strategies), \
            0.4 / len(strategies)
        step(start, label)

        def within(fraction, what, label=label, start=start, width=width):  # a strategy's own steps
            step(start + width * min(1.0, fraction), f"{label} – {what}")

        proposals += [(name, slot, v) for slot, v in makers[name]()]
    proposed = {name: len({(p[1].start, p[2].lower()) for p in proposals if p[0] == name}) for name in strategies}
    rows, rejected, repeated = realise_all(literal, proposals, context, kb)
    parsed = list(parser.pipe([r["sentence"] for r in rows]))
    dropped = like_with_like(rows, doc, kb) | no_image(rows, parsed) | of_the_topic_kind(rows, parsed, doc)
    rows, rejected = [r for i, r in enumerate(rows) if i not in dropped], rejected + len(dropped)
    rows, merged = merge_near_duplicates(rows, kb)
    candidates = score_all(polisher, trained, literal, rows, step=lambda done, total: step(
        0.55 + 0.43 * done / max(total, 1), f"scoring candidates {done}/{total}"))
    step(0.99, "ranking")
    floor = (MIN_SCORE if min_score is None else float(min_score)) if trained else 0.0  # set for the trained polisher
    weak = [c for c in candidates if c.score < floor]
    candidates = [c for c in candidates if c.score >= floor]
    opposite = opposite_images(polisher, candidates) | opposite_manner(polisher, candidates, literal) \
        | opposite_kb_images(kb, candidates, literal)
    candidates = [c for i, c in enumerate(candidates) if i not in opposite]
    keep_rows = keep_probabilities(candidates, literal, doc) if ranker else None
    by_keep = keep_rows is not None
    for c in candidates:  # the ranker was fitted on the other sources' reads: it says nothing of the writer's images
        if c.rank is not None:
            c.keep = None
    by_other = (lambda c: (-c.keep, c.sentence)) if by_keep else (
        lambda c: (-c.score * (1 + ATTESTED_BONUS * c.attested), c.sentence))
    # the image table's images first, in its order; with the writer, the KB's best vehicles for an adjective next
    # (PROPERTY_FIRST, by keep), then the writer's images in its own order; then the other sources' by keep (or score)
    kb_first = set(map(id, sorted((c for c in candidates if c.strategy == "property" and c.kind == "adjective"),
                                  key=by_other)[:PROPERTY_FIRST])) if "writer" in strategies else set()
    ranked, twins = distinct_images(sorted(candidates, key=lambda c: (
        (-1, c.rank, ()) if c.strategy == "images" else (0, 0, by_other(c)) if id(c) in kb_first else
        (1, c.rank, ()) if c.rank is not None else (2, 0, by_other(c)))), kb)
    merged += twins
    if reread and by_keep:
        step(0.99, "the writer reads the best candidates")
    ranked, by_writer = writer_order(ranked, keep_rows) if reread and by_keep else (ranked, False)
    candidates = ranked
    chosen = ranked[:n]
    shortfall = ""
    if len(chosen) < n:
        each = ", ".join(f"{name} {count}" for name, count in proposed.items())
        head = (f"{len(chosen)} of the {n} candidates asked: only {counted(len(candidates), 'distinct simile')} "
                f"{agreeing(len(candidates), 'exists', 'exist')} for this literal" if candidates else
                "No candidate: no simile could be made for this literal")
        detail = (f"{each} proposals; "
                  + (f"{counted(repeated, 'line')} another proposal also wrote, " if repeated else "")
                  + f"{merged} merged as near duplicates — the same vehicle head or modifier —, {rejected} dropped as "
                  "ungrammatical, repeating the sentence's words or of the subject's own kind"
                  + (f", {len(weak)} scored below {floor} by the polisher" if floor > 0 else "")
                  + (f", {len(opposite)} whose vehicle suits the opposite adjective" if opposite else "")
                  ) if any(proposed.values()) else f"{each} proposals"
        shortfall = (
            f"{head} from the chosen sources ({detail})." + _no_images(strategies, proposed)
            + _more_sources(strategies)
            + (f" No \"like …\" line was sought after {'a verb' if left_out == 1 else f'{left_out} verbs'}: the "
               "sentence's own \"like\" would clash with it." + _already_compares(doc) if left_out else ""))
    # the order names a source's place only when one of its candidates is in the list
    images_shown = any(c.strategy == "images" for c in chosen)
    writer_shown = "writer" in strategies and any(c.strategy == "writer" or id(c) in kb_first for c in chosen)
    kept = [c for c in chosen if c.keep is not None]
    return PolishResult(
        literal=literal, candidates=chosen, asked=n, delivered=len(chosen), proposed=proposed,
        distinct=len(candidates), merged=merged, rejected=rejected, below_min_score=len(weak),
        opposite=len(opposite),
        # after the writer's reread the shown order is keep's, whatever came first before it
        score_meaning=SCORE_MEANING + " " + (KEEP_MEANING + WRITER_READS if by_writer else WRITER_FIRST * writer_shown
                                             + (KEEP_MEANING if by_keep else RANKING) + IMAGES_FIRST * images_shown),
        ranked_by="keep" + WRITER_ORDER if by_writer else (
            ("images, " if images_shown else "") + ("KB for an adjective, writer, " if writer_shown else "") + (
                "then " if images_shown or writer_shown else "") + ("keep" if by_keep else "score")),
        generator=WRITER_POLISHER if proposer not in (None, polisher) else "trained polisher (LoRA delta)" if trained
        else "plain lm, few-shot (no delta fits)",
        # keep's sum over the scored lines (docs/similes.md): it runs high on new sentences, so the tab says no count
        # but the advice to reword where it is low (`few_apt_images`)
        expected_keepers=round(sum(c.keep for c in kept), 1) if by_keep and kept else None,
        keep_counted=len(kept) if by_keep else 0,
        shortfall=shortfall, reread=by_writer, spelling=typos, negation=negation_note(literal, doc, slots[0], polisher),
        places=places_note(literal, doc, chosen))


def places_note(literal: str, doc, candidates) -> str:
    """For a text of several sentences, which of them the candidates' similes went into (each candidate adds one
    simile to the whole text, where the sentence has its best places): a visitor's three sentences got similes in
    the first only, and nothing said so; "" for a single sentence or no candidate. A verb slot's phrase comes after
    a space the realiser inserts, so its place in the literal is one before its offset, up to a sentence's end."""
    sentences = [s for s in doc.sents if s.text.strip()]
    if len(sentences) < 2 or not candidates:
        return ""
    used = []
    for c in candidates:
        at = c.offset - 1 if c.kind == "verb" else c.offset
        s = next((s for s in sentences if s.start_char <= at < s.end_char + (c.kind == "verb")), None)
        if s is not None and s not in used:
            used.append(s)
    if not used:
        return ""
    said = " and ".join(f"“{literal[s.start_char:s.end_char].strip()}”" for s in sorted(used, key=lambda s: s.start))
    return (f"The text holds {len(sentences)} sentences; each candidate adds one simile to it, here in {said} "
            f"(the places where one reads best). To polish another sentence, give it on its own.")


def held_comparisons(doc) -> tuple[list, list]:
    """(the comparisons of like with like the parsed sentence holds, the similes it holds). A comparison of like with
    like counts whatever the detector makes of it: a second comparison beside it doubles it ("She looks like her
    mother like a doll."); none of the 410 literal sentences writers gave the blind reads holds one. Another doubted
    comparison does not: the parser reads "Cats like milk." as one. An emoji image ("as happy as 👍🏽") is a simile
    whatever the detector, which reads words, makes of it."""
    extracted = extract_similes("", doc=doc)
    literal_ones = [s for s in extracted if literal_comparison(s)]
    found = [s for s in extracted if not literal_comparison(s) and (
        wordless_image(s.vehicle) or simile_probability(s, doc) >= threshold())]
    return literal_ones, found


def refuse_unpolishable(doc, offer: bool = True) -> None:
    """An InputError for a parsed sentence Polish cannot work with: no content word a simile could attach to (a
    greeting, "Hello."), or a sentence that already holds a simile (a second comparison would be inserted into the
    first: "as as blue as a sapphire as the sea"), with the sentence without it to polish instead (`offer` False: a
    text with typed tags, whose cut would drop them, gets none). Markup alone is refused before
    (`refuse_non_english`)."""
    # a content word a simile can attach to ("there", "so" and the other stop-word adverbs do not count): a sentence
    # with none ("Hello.", "Yes.", "I am.") has nothing to compare
    if not any(t.is_alpha and t.pos_ in CONTENT_POS and not (t.pos_ == "ADV" and t.is_stop) for t in doc):
        raise InputError("Nothing to polish: the sentence has no word a simile could attach to (a thing, an action "
                         "or a quality), as in a greeting. Type a sentence that describes something (e.g. "
                         "\"The lake was calm.\") instead.")

    literal_ones, found = held_comparisons(doc)
    if literal_ones and not found:
        first = literal_ones[0]
        said = f"as {first.property} as {first.vehicle}" if first.property else f"{first.comparator} {first.vehicle}"
        cut = _cut_for_polish(doc, literal_ones) if offer else None
        start = doc.char_span(*first.spans["comparator"], alignment_mode="expand")
        left = _nothing_left(start[0]) if start is not None and len(start) else ""
        raise InputError(f"This sentence already makes a comparison (\"{said}\", a literal one: like with like), "
                         "and a simile added beside it would clash with it. Polish adds a simile to a sentence "
                         "without a comparison: " + (
                             f"to start afresh, polish “{cut}”" + ("" if cut[-1:] in ".!?" else ".") if cut
                             else left[:1].lower() + left[1:] if left
                             else f"type it without \"{said}\" to polish the rest."))
    if found:  # `offer` False (typed tags: the cut of the blanked text would drop them): no sentence is named
        cut = _cut_for_polish(doc, found + literal_ones) if offer else None
        said = ", ".join(f"“{doc.text[s.spans['comparator'][0]:s.spans['vehicle'][1]]}”" for s in found)
        raise InputError(f"This sentence already holds a simile ({said}); Polish adds one to a literal sentence. "
                         + (f"To start afresh, polish “{cut}”" if cut else "Remove its comparison to polish it")
                         + ", or see its parts under \"Components of a simile\".")
    compared = _compared_adjective(doc)
    if compared is not None:
        adjective, said = compared
        raise InputError(f"This sentence already compares “{adjective}” (“{said}”), and \"as {adjective} as …\" "
                         "added before it would make two comparisons of one word. Polish adds a simile to a literal "
                         f"sentence: type it without “{said}” to polish the rest.")


def _compared_adjective(doc) -> tuple[str, str] | None:
    """(adjective, its comparison) for an adjective right before the sentence's own comparing "like" that the
    extractor reads as no simile: the parser makes a clause of "like ink spilled across the sky" (a noun and its
    participle) or of "like mom made", and an "as ADJ as" line would double it ("as dark as death like ink …").
    Why: docs/experiments.md#polish-compared-adjective"""
    like = _comparing_like(doc)
    if like is None or like.i == 0 or doc[like.i - 1].pos_ != "ADJ":
        return None
    phrase = like.head if like.dep_ == "mark" and like.head.i > like.i else like
    end = max(t.i for t in phrase.subtree)
    while end > like.i and doc[end].is_punct:
        end -= 1
    return doc[like.i - 1].text, doc[like.i:end + 1].text


#: comparisons whose second term is a clause ("as if he had seen a ghost"): cut, the sentence loses what it says
CLAUSE_COMPARATORS = ("as if", "as though")


#: words that grade a comparison and go with it when it is cut ("cried just like a baby" → "cried")
_COMPARISON_GRADE = re.compile(r"(?:\b(?:just|exactly|much|very much|almost|rather|quite|a bit|a little|more)\s+)+$",
                               re.IGNORECASE)


def cut_similes(text: str, similes) -> str:
    """`text` with each simile's comparison cut out, an "as P as V" one's property kept: "The sky was as blue as the
    sea." → "The sky was blue.", "The hills were green like emeralds." → "The hills were green."; "The man, like a
    tired bear, sat down." → "The man sat down."; "Like a ghost, he vanished." → "He vanished."; "Her eyes shone
    like stars in the night." → "Her eyes shone in the night." (the image's head, as the extractor finds it); "cried
    just like a baby" → "cried"; an aside between commas, dashes or brackets goes with its marks. The spans are
    `text`'s own (a text with its tags blanked has the same)."""
    out = text
    for sim in sorted(similes, key=lambda sim: -sim.spans["comparator"][0]):
        start, end = sim.spans["comparator"][0], sim.spans["vehicle"][1]
        # the property stays where the cut would take it ("as P as V"); one before the comparator ("green like
        # emeralds") is outside the cut already
        inside = "property" in sim.spans and start <= sim.spans["property"][0] and sim.spans["property"][1] <= end
        keep = text[slice(*sim.spans["property"])] if inside else ""
        before, after = out[:start], out[end:]
        if not keep:
            before = _COMPARISON_GRADE.sub("", before)
            b, a = before.rstrip(), after.lstrip()
            if (b[-1:], a[:1]) in ((",", ","), ("(", ")"), ("—", "—"), ("–", "–"), ("-", "-")):
                before, after = b[:-1], (a[1:] if a[:1] in ")" else " " + a[1:])  # an aside goes with its marks
                if b[-1] == "," and before.count(",") % 2:  # one comma closed an aside before it: "The hills,
                    before += ","  # green, like emeralds, rolled away." → "The hills, green, rolled away."
        out = before + keep + after
    out = re.sub(r"[ \t]{2,}", " ", re.sub(r"\s+([,.!?;:)])", r"\1", out)).strip()
    out = re.sub(r"[,;:]+(?=[.!?]|$)", "", out)  # "He swam, like a fish." → "He swam."
    out = re.sub(r"\(\s*\)", "", out)
    out = re.sub(r"^[,;:]\s*", "", out)  # "Like a ghost, he vanished." → "He vanished."
    out = re.sub(r"[ \t]{2,}", " ", out).strip()
    if out[:1].islower() and text.lstrip()[:1].isupper():
        out = out[0].upper() + out[1:]
    return out


def _cut_for_polish(doc, similes) -> str | None:
    """`cut_similes` of the parsed sentence's similes, or None: for an "as if" clause, for a "like" simile that is a
    linking verb's complement ("He looked like a ghost." → "He looked." says nothing), or when the rest has no verb
    or adjective a new simile can attach to ("Cats like milk." → "Cats.") and the similes compared no action."""
    found = [sim for sim in similes if "vehicle" in sim.spans and sim.comparator not in CLAUSE_COMPARATORS]
    if not found or any("property" not in sim.spans and _after_linking_verb(doc, sim) for sim in found):
        return None
    if any(_subject_vehicle(doc, sim) for sim in found):  # "Like a child opened a present, she was happy.": the cut
        return None  # would leave "Opened a present, she was happy."
    cut = cut_similes(doc.text, found)
    if cut == doc.text.strip():
        return None
    # each comparison of an action leaves its verb ("The news spread like wildfire." → "The news spread.", which the
    # parser alone reads as a noun phrase), else the rest must hold a verb or an adjective
    if all((head := _comparator_head(doc, sim)) is not None and head.pos_ == "VERB" for sim in found):
        return cut
    return cut if any(t.pos_ in ("VERB", "ADJ") for t in get_registry().get("parser")(cut)) else None


def _subject_vehicle(doc, sim) -> bool:
    """Whether the parser reads the simile's vehicle as the subject of a clause of its own ("Like ink spilled across
    the sky, …"): cutting the image would leave its clause without a subject."""
    span = doc.char_span(*sim.spans["vehicle"], alignment_mode="expand")
    return span is not None and span.root.dep_ in ("nsubj", "nsubjpass") and span.root.head.i != span.root.i


def _comparator_head(doc, sim):
    """The token the simile's comparator hangs on ("ran" for "ran like the wind"), or None."""
    span = doc.char_span(*sim.spans["comparator"], alignment_mode="expand")
    return span[0].head if span is not None and len(span) else None


def _after_linking_verb(doc, sim) -> bool:
    head = _comparator_head(doc, sim)
    return head is not None and head.lemma_.lower() in LINKING


def _action_comparisons(doc) -> tuple[list, str | None]:
    """(the comparisons of an action the parsed sentence makes, read as similes whatever the detector makes of them:
    "ran like the wind"; the sentence without them to polish instead, or None)."""
    found = [sim for sim in extract_similes("", doc=doc) if not literal_comparison(sim)]
    # a comparison of an action ("ran like the wind"), not of a thing ("Things like apples are good for you.")
    verbs = [_comparator_head(doc, sim) for sim in found]
    cut = _cut_for_polish(doc, found) if found and all(v is not None and v.pos_ == "VERB" for v in verbs) else None
    return (found, cut) if cut is not None else ([], None)


def _already_compares(doc) -> str:
    """For a sentence whose "like" lines were left out: the comparison it already makes, read as a simile, and the
    sentence without it to polish instead ("Tom ran like the wind.", which the detector doubts), or ""."""
    found, cut = _action_comparisons(doc)
    if cut is None:
        return ""
    said = ", ".join(f"“{doc.text[sim.spans['comparator'][0]:sim.spans['vehicle'][1]]}”" for sim in found)
    return f" The sentence already compares ({said}): to start afresh, polish “{cut}”" + (
        "" if cut[-1:] in ".!?" else ".")


_LIKES = re.compile(r"\blik(?:e|es|ed|ing)\b", re.IGNORECASE)


def _like_clashes(doc):
    """Which slots a "like …" line may not go to (`slot -> bool`): every verb slot of a sentence whose "like" compares
    ("Tom ran like the wind.", "She dances like nobody is watching.": `_comparing_like`), and a slot whose nearest
    verb before it is the verb "like" ("I like apples like candy."); a verb "like" farther off is no comparison ("She
    likes to sing loudly like a bird.", "He liked the way she danced like a swan."), nor a noun ("a liking") or a
    filler ("like, really loudly")."""
    compares = _comparing_like(doc) is not None

    def clashes(slot) -> bool:
        if slot.kind != "verb":
            return False
        verbs = [t for t in doc if t.pos_ == "VERB" and t.idx < slot.start]
        return compares or bool(verbs and _LIKES.fullmatch(verbs[-1].text))
    return clashes


def _comparing_like(doc):
    """The sentence's "like" that compares (the parser's preposition or conjunction), or None."""
    return next((t for t in doc if t.lower_ == "like" and t.pos_ in ("ADP", "SCONJ")), None)


def _like_after_like(doc, slots) -> bool:
    """Whether every line Polish could add is a second "like": each place for a simile is a verb's, which takes
    "like …", and none may take it (`_like_clashes`)."""
    clashes = _like_clashes(doc)
    return all(clashes(slot) for slot in slots)


def refuse_like_after_like(literal: str, doc, slots, offer: bool = True) -> None:
    """An InputError, before any source runs, for a sentence whose every candidate would be a second "like" ("Tom
    ran like the wind.": the sources ran for half a minute to offer nothing), naming the sentence without its
    comparison when it makes one of an action (`_already_compares`; `offer` False, typed tags, names none, as the
    cut would drop them and no button offers it)."""
    if not _like_after_like(doc, slots):
        return
    like = _comparing_like(doc)
    if like is not None:
        raise InputError("Polish would add \"like …\" after a verb here, beside the sentence's own \"like\"."
                         + ((_already_compares(doc) if offer else "") or " " + (
                             _nothing_left(like) or "Leave its comparison out to polish the rest.")))
    verb = [t for t in doc if t.pos_ == "VERB" and t.idx < slots[0].start][-1]  # a "like" (`_like_clashes`)
    raise InputError(f"Polish would add \"like …\" right after the verb \"{verb.text}\" (\"I like apples like "
                     "candy.\"): try a sentence with another verb or an adjective (\"I eat apples.\", \"The apples "
                     "were sweet.\").")


def _nothing_left(comparator) -> str:
    """For a comparison that is a linking verb's complement ("It looks like rain.", "She looks like her mother."; its
    first token `comparator`), what leaving it out would leave ("It looks."), or "": the refusal suggests another
    sentence instead of that."""
    verb = comparator.head
    if verb.lemma_.lower() not in LINKING or verb.i > comparator.i:
        return ""
    rest = _COMPARISON_GRADE.sub("", comparator.doc.text[:comparator.idx]).rstrip(" ,;:")
    return (f"Without its comparison the sentence would say nothing (“{rest}.”): type one that describes something, "
            "e.g. \"The sky was grey.\"")


def respelled_with_place(literal: str, typos=None) -> str | None:
    """`literal` with its likely typos corrected (`typos`, else `misspellings(literal)`) when that sentence has a place
    for a simile and the sentence as typed has none ("The nigth was vry drak." → "The night was very dark."), else
    None: what Polish's refusal of it names (a text in another language, or over MAX_CHARS, gets none; nor does one
    refused for another reason, "My sistr is as tall as my brothr.", which its correction would be again). Where the
    corrected sentence holds a simile ("The nigth was drak lik coal."), the offer is it without the simile."""
    if not isinstance(literal, str) or not literal.strip() or len(literal) > MAX_CHARS:
        return None
    try:
        refuse_non_english(literal)
    except InputError:
        return None
    typos = misspellings(literal) if typos is None else typos
    fixed = corrected(literal, typos) if typos else literal
    if fixed == literal:
        return None
    parser = get_registry().get("parser")
    if find_slots(literal, parser(blank_markup(literal))):
        return None
    fixed_doc = parser(blank_markup(fixed))
    if _held_or_compared(fixed_doc):  # "The nigth was drak lik coal.": the corrected one holds a simile, so the
        fixed = without_simile(fixed)  # offer is the sentence without it
        if not fixed:
            return None
        fixed_doc = parser(blank_markup(fixed))
    return fixed if find_slots(fixed, fixed_doc) else None


def _held_or_compared(doc) -> bool:
    """Whether `refuse_unpolishable` would refuse the sentence (a simile or comparison it holds)."""
    try:
        refuse_unpolishable(doc, offer=False)
    except InputError:
        return True
    return False


def holds_simile(text: str) -> bool:
    """Whether Polish refuses `text` for a simile or comparison it holds (as `refuse_unpolishable` reads it)."""
    return _held_or_compared(get_registry().get("parser")(blank_markup(text)))


def without_simile(literal: str) -> str | None:
    """The sentence Polish refuses for the similes it holds (`held_comparisons`), or for its comparisons of like with
    like where it holds no simile, with them cut out (`cut_similes`), to polish it afresh ("The sky was as blue as
    the sea." → "The sky was blue.", "The boy talks like his father." → "The boy talks."), as the refusal names
    it; None for a sentence without one, a cut `_cut_for_polish` does not offer, a text with typed tags or
    over MAX_CHARS. A comparison of an action the detector doubts is cut when Polish refuses the sentence for a
    second "like" ("Tom ran like the wind." → "Tom ran.": `refuse_like_after_like`)."""
    if not isinstance(literal, str) or not literal.strip() or len(literal) > MAX_CHARS \
            or blank_markup(literal) != literal:  # typed tags: the cut of the blanked text is no offer
        return None
    literal = read_as_written(literal)  # as polish reads it ("TOM RAN LIKE THE WIND." is refused as "Tom ran …")
    doc = get_registry().get("parser")(literal)
    literal_ones, found = held_comparisons(doc)
    if found or literal_ones:  # every comparison it was refused for ("like a ghost", "like his father")
        return _cut_for_polish(doc, found + literal_ones)
    # refused for a second "like" (`refuse_like_after_like`): the sentence without its comparison of an action
    slots = find_slots(literal, doc)
    return _action_comparisons(doc)[1] if slots and _like_after_like(doc, slots) else None


def literal_comparison(simile) -> bool:
    """A comparison whose second term belongs to someone ("like his father", "like yours", "as hard as last year's")
    compares like with like: a literal comparison, not a simile, even when the detector leans the other way, and a
    simile added beside it would clash with it ("She looks like her mother like a doll."). A kind of the topic ("Fruits
    like apples are healthy.") is no simile to the detector either, but a sentence with one is polished."""
    return someones(simile)


def check_strategies(strategies) -> tuple[str, ...]:
    """None or "" (a command line without --strategies): DEFAULT_STRATEGIES; an empty list (every box unticked) is
    refused."""
    if strategies is None or strategies == "":
        return DEFAULT_STRATEGIES
    if isinstance(strategies, str):
        strategies = [s.strip() for s in strategies.split(",") if s.strip()]
    if not isinstance(strategies, (list, tuple)) or not all(isinstance(s, str) for s in strategies):
        raise InputError(f"The strategies must be names, a list or separated by commas (from {', '.join(STRATEGIES)}).")
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise InputError(f"Unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}.")
    if not strategies:
        raise InputError("Choose at least one source of vehicles.")
    return tuple(dict.fromkeys(strategies))  # in the order given (the order the sources run)
