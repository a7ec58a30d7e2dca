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

import logging
import math
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import InputError, check_stop, require_text
from ..figures.antonyms import load_antonyms
from ..figures.articles import indefinite_article, points
from ..figures.components import Simile, extract_similes, wordless_image
from ..figures.detector import simile_probability, someones, threshold
from ..figures.english import CONTENT_POS, corrected, misspellings, refuse_non_english, sentence_case, shouted
from ..figures.irony import find_ironies, opposite_in_kb
from ..figures.nouns import known_noun, same_image
from ..figures.lm_features import shared
from ..figures.manner import manner_adjective, probe
from ..models import ModelUnavailable, get_registry
from ..offensive import offensive_words
from ..textspans import blank_emoji, blank_markup
from ..models.specs import POLISHER_DELTA as DELTA_PATH  # the registry's `polisher` role serves it
from .writer_vehicles import DOMAINS, REGISTERS

log = logging.getLogger(__name__)
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
#: the lm source samples this many times the vehicles it is asked for (+ 6), at most LM_MAX_SAMPLES per slot
#: (WRITER_POLISHER_SAMPLES when the writer polisher proposes), and the polisher's score picks among them
#: why: docs/experiments.md#polish-lm-oversample
LM_OVERSAMPLE = 5
LM_MAX_SAMPLES = 64
#: samples a slot of the writer polisher (`polish_writer`), which proposes the lm source's vehicles when it serves;
#: why: docs/experiments.md#polish-writer-polisher
WRITER_POLISHER_SAMPLES = 32
#: a vehicle this close to the sentence's subject (cosine of the offline embedder, all-MiniLM-L6-v2) and this far
#: above the sentence's median vehicle is a literal comparison and dropped (`_like_with_like`)
#: why: docs/experiments.md#polish-like-with-like
LIKE_WITH_LIKE = 0.6
LIKE_WITH_LIKE_GAP = 0.2
#: an adjective slot's property source offers this many of the KB's vehicles for the adjective (at least), and an
#: "as ADJ as V" candidate whose vehicle the KB knows for ADJ (ADJ among V's ATTESTED_TOP typical KB properties)
#: ranks as if its score were (1 + ATTESTED_BONUS) times higher
#: why: docs/experiments.md#polish-attested-bonus
PROPERTY_WANT_ADJECTIVE = 20
ATTESTED_BONUS = 1.0
ATTESTED_TOP = 30
#: an "as ADJ as V" candidate is dropped when the polisher finds V at least this many nats likelier after one of ADJ's
#: antonyms than after ADJ ("as heavy as a feather", "as cold as a furnace": HAUSER's ironic-simile margin,
#: studio/figures/irony.py)
#: why: docs/experiments.md#polish-opposite-margin
OPPOSITE_MARGIN = 2.5
#: a "like V" candidate of a sentence with a manner adverb whose adjective has an antonym ("walked slowly") is dropped
#: when the polisher finds V at least this many nats likelier in "It was as ANTONYM as V." than in "It was as ADJ as
#: V." ("…walked slowly … like an arrow"). Chosen on our blind reads' train literals (the smallest margin that drops
#: no usable candidate there), checked on dev: docs/experiments.md#polish-opposite-adverb
ADVERB_OPPOSITE_MARGIN = 0.0
#: an "as ADJ as V" or a manner adverb's "like V" candidate is also dropped when the simile KB knows V for an antonym
#: of ADJ (`irony.opposite_in_kb`: "…walked slowly … like a deer": the KB's deer is fast; the polisher finds deer no
#: likelier after "fast")
#: why: docs/experiments.md#polish-opposite-in-kb
LM_BATCH = 16  # the lm's loglik batch size: scoring in these slices changes no score
MAX_CHARS = 400
CONTEXT_WORDS = 20
PROMPT = "Literal: {literal}\nSimile:"  # the polisher's prompt, served here and trained on (polish_data.prompt)
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
KEEP_MEANING = ("keep = how likely a writer is to keep the candidate (0..1): a logistic model fitted on our own blind "
                "reads' labels, from the score, the source, KB attestation and how close the vehicle's meaning is to "
                "\"something ADJ\" or \"something that VERB\", to the sentence, to its subject and to \"a person\". "
                "Candidates are ranked by keep, best first. Their keeps summed estimate how many of the list a writer "
                "would keep (how well they did on fresh reads: under About, *How well it works*).")
#: with the writer, an adjective's best PROPERTY_FIRST KB vehicles come first, then the writer's images; and the
#: property source leaves verb slots to the writer
#: why: docs/experiments.md#polish-writer-source
PROPERTY_FIRST = 5
#: sources whose own order ranks their candidates (the keep ranker was fitted on the others' reads)
RANKED_SOURCES = ("images", "writer")
#: the writer (the largest offline LM) rereads the list: the first WRITER_READS_TOP candidates are ordered by keep
#: computed again with the writer's log-likelihood of the simile in the sentence (the `polish_ranker` role's reread
#: weights, aptness.REREAD_FEATURES)
#: why: docs/experiments.md#polish-learned-reread-served
WRITER_READS_TOP = 20
#: the writer's backends that reread: llama.cpp (the offline profile); the hub profile's float32 transformers writer
#: (6 GB) does not, and the tiny profile serves no keep to compute again
#: why: docs/experiments.md#polish-writer-review
REREAD_BACKENDS = ("gguf_writer",)
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
_FEW_SHOT = ("Literal: The baby slept.\nSimile: The baby slept like a log.\n"
             "Literal: The old man was very stubborn.\nSimile: The old man was as stubborn as a mule.\n"
             "Literal: Her voice rang out across the hall.\nSimile: Her voice rang out across the hall like a bell.\n")
_INTENSIFIERS = {"very", "so", "really", "extremely", "quite", "too", "rather", "pretty", "incredibly", "awfully",
                 "terribly", "truly", "utterly", "totally", "completely", "remarkably", "exceptionally", "super",
                 # degree, not manner: "as surprisingly difficult as a riddle" is not English
                 "surprisingly", "unusually", "particularly", "especially", "amazingly", "strangely", "oddly",
                 "fairly", "absolutely", "unbelievably", "ridiculously", "painfully", "wonderfully", "horribly"}
_LINKING = {"be", "feel", "look", "seem", "sound", "become", "grow", "get", "turn", "remain", "stay", "appear",
            "smell", "taste", "go", "keep", "come", "prove"}
#: "-ly" words before an adjective that are no manner of it ("only slightly cold" keeps "only" outside)
_NOT_MANNER = {"only", "early", "likely", "nearly", "really", "hardly", "barely", "merely", "mostly", "partly"}
#: prepositions that open an adjective's own complement ("proud of his garden", "angry with his brother"); "at", "in",
#: "for" mostly open adjuncts ("silent at night" → not "as silent at night as the grave")
_COMPLEMENT = {"of", "with", "about"}
_VP_STOP = {"conj", "cc", "advcl", "ccomp", "parataxis", "punct", "relcl", "mark", "xcomp", "csubj", "nsubj",
            "nsubjpass", "aux", "auxpass", "neg", "expl", "dep", "appos", "npadvmod"}
_JUNK_HEADS = {"ever", "other", "others", "anyone", "anything", "none", "rest", "your", "yours", "mine", "usual",
               "possible", "one", "thing", "way", "time", "that", "this", "it", "what", "all", "any", "he", "she",
               "they", "you", "i", "we", "him", "her", "them", "us", "me", "his", "their", "something", "someone",
               "somebody", "nothing", "everything", "everyone", "before", "well", "much", "many", "more", "most",
               "such", "same", "hell", "hers", "ours", "theirs", "himself", "herself", "itself", "themselves",
               "myself", "yourself", "ourselves", "yourselves", "oneself"}
_NP_BAD_START = {"if", "though", "when", "that", "which", "who", "and", "but", "or", "to", "is", "was", "are",
                 "were", "be", "been", "it", "he", "she", "they", "i", "you", "we", "in", "on", "at", "with", "for",
                 "of", "by", "from", "as", "like", "not", "so", "very", "too", "had", "has", "have", "do", "did",
                 "does", "would", "could", "should", "will", "can", "may", "might", "must"}
#: a vehicle cut off mid-phrase ends in one of these: "a ball of twine on a", "a bag of"
_NP_BAD_END = {"a", "an", "the", "of", "on", "in", "at", "to", "with", "for", "from", "by", "and", "or", "but", "as",
               "like", "into", "onto", "over", "under", "than", "my", "our", "your", "its", "their", "his"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


@dataclass
class Candidate:
    sentence: str
    phrase: str        # the simile phrase as it stands in `sentence`, e.g. "like a wolf", "as loud as thunder"
    offset: int        # character offset of the phrase in `sentence`
    strategy: str      # the source of the vehicle
    score: float       # see SCORE_MEANING: 0..1, higher reads more naturally for this literal
    vehicle: str
    attested: bool = False  # "as ADJ as V" with ADJ among V's typical properties in the simile KB
    kind: str = ""     # the slot: "adjective" ("as ADJ as") or "verb" ("like" / "as if" after the verb's phrase)
    cue: str = ""      # the slot's adjective, or its verb as the sentence has it
    keep: float | None = None  # P(a writer keeps it), the `polish_ranker` role's (see KEEP_MEANING); None without it
    rank: int | None = None  # the order of a RANKED_SOURCES source (lower first); None for other sources

    def to_dict(self) -> dict:
        return asdict(self)


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

    @property
    def offset(self) -> int:
        return self.start

    def opener(self) -> str:
        return f"as {self.adjective} as" if self.kind == "adjective" else "like"


# ------------------------------------------------------------------------------------------ entry point

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
    expected_keepers: float | None  # keeps summed: how many of the keep_counted a writer would keep (None: none)
    shortfall: str             # why fewer than asked came, or ""
    reread: bool               # the writer reread the list
    spelling: tuple = ()       # the literal's likely typos (`english.Misspelling`), noticed and left as typed
    keep_counted: int = 0      # the candidates with a keep (the image table's and the writer's have none)
    negation: str = ""         # the best slot's adjective is negated: what its similes do, and a rewrite to polish

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
        return out


def _more_sources(strategies) -> str:
    """What a shortfall note advises: the sources left unticked (a visitor with all six ticked was told to add
    sources), and another seed when the lm or writer source is on (it changes their samples), and another sentence."""
    left = [name for name in STRATEGIES if name not in strategies]
    sampled = [name for name in ("lm", "writer") if name in strategies]  # the seed samples these two
    steps = ([f"add sources ({', '.join(left)})"] if left else []) + (
        [f"try another seed (it changes the {' and '.join(sampled)} source{'s' if len(sampled) > 1 else ''})"]
        if sampled else []) + ["try another sentence"]
    said = ", ".join(steps[:-1]) + (" or " if len(steps) > 1 else "") + steps[-1]
    return f" {said[0].upper()}{said[1:]}."


def about_keepers(keepers: float, lines: int) -> str:
    """How many of `lines` a writer would keep (`PolishResult.expected_keepers`), as the tab and the command line say
    it: whole lines for a list of four or more, tenths below ("about 0 of them" was said of two lines of keep 0.3)."""
    return f"{keepers:.0f}" if lines >= 4 else f"{keepers:.1f}"


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
    strategies = _check_strategies(strategies)
    if domain not in DOMAINS:
        raise InputError(f"Unknown image domain {domain!r}: choose one of {', '.join(DOMAINS)}.")
    if register not in REGISTERS:
        raise InputError(f"Unknown register {register!r}: choose plain or literary.")
    # read as a sentence is written, the candidates given back in capitals as typed (once: the cased text is never
    # shouted, so this never runs twice)
    if shouted(literal) and not shouted(cased := sentence_case(literal)):
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
    makers = {"writer": lambda: _by_writer(literal, slots, seed, domain, register, lambda f, what: within(f, what)),
              "lm": lambda: _by_lm(proposer, proposer_trained, literal, slots, seed, want,
                                   tick=lambda f, what: within(f, what), max_samples=samples),
              "retrieval": lambda: _by_retrieval(kb, slots, doc, want),
              # beside the writer, the KB's vehicles only for an adjective (WRITER_WITH_PROPERTY)
              "property": lambda: _by_property(kb, polisher, literal, doc, slots, want,
                                               adjectives_only="writer" in strategies),
              "insertion": lambda: _by_insertion(kb, slots, want),
              "images": lambda: _by_images(slots, doc)}
    proposals: list[tuple[str, Slot, str]] = []  # (strategy, slot, vehicle noun phrase or "as if" clause)
    for i, name in enumerate(strategies):
        label, start, width = f"source {i + 1}/{len(strategies)}: {name}", 0.12 + 0.4 * i / len(strategies), \
            0.4 / len(strategies)
        step(start, label)

        def within(fraction, what, label=label, start=start, width=width):  # a strategy's own steps
            step(start + width * min(1.0, fraction), f"{label} – {what}")

        proposals += [(name, slot, v) for slot, v in makers[name]()]
    proposed = {name: len({(p[1].start, p[2].lower()) for p in proposals if p[0] == name}) for name in strategies}
    rows, rejected = _realise_all(literal, proposals, context, kb)
    dropped = _like_with_like(rows, doc, kb) | _no_image(rows, parser)
    rows, rejected = [r for i, r in enumerate(rows) if i not in dropped], rejected + len(dropped)
    rows, merged = _merge(rows, kb)
    candidates = _score_all(polisher, trained, literal, rows, step=lambda done, total: step(
        0.55 + 0.43 * done / max(total, 1), f"scoring candidates {done}/{total}"))
    step(0.99, "ranking")
    floor = (MIN_SCORE if min_score is None else float(min_score)) if trained else 0.0  # set for the trained polisher
    weak = [c for c in candidates if c.score < floor]
    candidates = [c for c in candidates if c.score >= floor]
    opposite = _opposite_images(polisher, candidates) | _opposite_manner(polisher, candidates, literal) \
        | _opposite_in_kb(kb, candidates, literal)
    candidates = [c for i, c in enumerate(candidates) if i not in opposite]
    keep_rows = _keep_probabilities(candidates, literal, doc) if ranker else None
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
    ranked, twins = _distinct_images(sorted(candidates, key=lambda c: (
        (-1, c.rank, ()) if c.strategy == "images" else (0, 0, by_other(c)) if id(c) in kb_first else
        (1, c.rank, ()) if c.rank is not None else (2, 0, by_other(c)))), kb)
    merged += twins
    if reread and by_keep:
        step(0.99, "the writer reads the best candidates")
    ranked, by_writer = _writer_order(ranked, keep_rows) if reread and by_keep else (ranked, False)
    candidates = ranked
    chosen = ranked[:n]
    shortfall = ""
    if len(chosen) < n:
        each = ", ".join(f"{name} {count}" for name, count in proposed.items())
        shortfall = (
            f"{len(chosen)} of the {n} candidates asked: only {len(candidates)} distinct similes exist for this "
            f"literal from the chosen sources ({each} proposals; {merged} merged as near duplicates — the same "
            f"vehicle head or modifier —, {rejected} dropped as ungrammatical, repeating the sentence's words or "
            f"of the subject's own kind"
            + (f", {len(weak)} scored below {floor} by the polisher" if floor > 0 else "")
            + (f", {len(opposite)} whose vehicle suits the opposite adjective" if opposite else "")
            + ")." + _more_sources(strategies)
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
        # keep is calibrated (docs/similes.md): its sum over the list is the number a writer would keep, expected
        expected_keepers=round(sum(c.keep for c in kept), 1) if by_keep and kept else None,
        keep_counted=len(kept) if by_keep else 0,
        shortfall=shortfall, reread=by_writer, spelling=typos, negation=negation_note(literal, doc, slots[0], polisher))


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
        raise InputError(f"This sentence already makes a comparison (\"{said}\", a literal one: like with like), "
                         "and a simile added beside it would clash with it. Polish adds a simile to a sentence "
                         f"without a comparison: type it without \"{said}\" to polish the rest.")
    if found:  # `offer` False (typed tags: the cut of the blanked text would drop them): no sentence is named
        cut = _cut_for_polish(doc, found) if offer else None
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
    or adjective a new simile can attach to ("Cats like milk." → "Cats.")."""
    found = [sim for sim in similes if "vehicle" in sim.spans and sim.comparator not in CLAUSE_COMPARATORS]
    if not found or any("property" not in sim.spans and _after_linking_verb(doc, sim) for sim in found):
        return None
    if any(_subject_vehicle(doc, sim) for sim in found):  # "Like a child opened a present, she was happy.": the cut
        return None  # would leave "Opened a present, she was happy."
    cut = cut_similes(doc.text, found)
    rest = get_registry().get("parser")(cut)
    return cut if cut != doc.text.strip() and any(t.pos_ in ("VERB", "ADJ") for t in rest) else None


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
    return head is not None and head.lemma_.lower() in _LINKING


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
    if _comparing_like(doc) is not None:
        raise InputError("Polish would add \"like …\" after a verb here, beside the sentence's own \"like\"."
                         + ((_already_compares(doc) if offer else "")
                            or " Leave its comparison out to polish the rest."))
    verb = [t for t in doc if t.pos_ == "VERB" and t.idx < slots[0].start][-1]  # a "like" (`_like_clashes`)
    raise InputError(f"Polish would add \"like …\" right after the verb \"{verb.text}\" (\"I like apples like "
                     "candy.\"): try a sentence with another verb or an adjective (\"I eat apples.\", \"The apples "
                     "were sweet.\").")


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
    """The sentence Polish refuses for the similes it holds (`held_comparisons`) with them cut out (`cut_similes`),
    to polish it afresh ("The sky was as blue as the sea." → "The sky was blue."), as the refusal names it; None for
    a sentence without one, a cut `_cut_for_polish` does not offer, a text with typed tags or over MAX_CHARS. A
    comparison of an action the detector doubts is cut when Polish refuses the sentence for a second "like" ("Tom
    ran like the wind." → "Tom ran.": `refuse_like_after_like`)."""
    if not isinstance(literal, str) or not literal.strip() or len(literal) > MAX_CHARS \
            or blank_markup(literal) != literal:  # typed tags: the cut of the blanked text is no offer
        return None
    if shouted(literal) and not shouted(cased := sentence_case(literal)):
        literal = cased  # read as polish reads it ("TOM RAN LIKE THE WIND." is refused as "Tom ran like the wind.")
    doc = get_registry().get("parser")(literal)
    _, found = held_comparisons(doc)
    if found:
        return _cut_for_polish(doc, found)
    # refused for a second "like" (`refuse_like_after_like`): the sentence without its comparison of an action
    slots = find_slots(literal, doc)
    return _action_comparisons(doc)[1] if slots and _like_after_like(doc, slots) else None


def literal_comparison(simile) -> bool:
    """A comparison whose second term belongs to someone ("like his father", "like yours", "as hard as last year's")
    compares like with like: a literal comparison, not a simile, even when the detector leans the other way."""
    return someones(simile)


def _check_strategies(strategies) -> tuple[str, ...]:
    """None or "" (a command line without --strategies): DEFAULT_STRATEGIES; an empty list (every box unticked) is
    refused."""
    if strategies is None or strategies == "":
        return DEFAULT_STRATEGIES
    if isinstance(strategies, str):
        strategies = [s.strip() for s in strategies.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise InputError(f"Unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}.")
    if not strategies:
        raise InputError("Choose at least one source of vehicles.")
    return tuple(dict.fromkeys(strategies))  # in the order given (the order the sources run)


def polisher_lm():
    """(language model, trained): the offline lm with the polisher delta when the delta fits the current lm,
    else the plain lm (prompted few-shot)."""
    try:
        return get_registry().get("polisher"), True
    except ModelUnavailable:
        return get_registry().get("lm"), False


#: the lm source's generator when the writer polisher proposes (PolishResult.generator)
WRITER_POLISHER = "writer polisher (the writer + LoRA delta)"


def proposer_lm(polisher, trained: bool):
    """(language model, trained, samples a slot) that proposes the lm source's vehicles: the writer with its delta
    fine-tuned on the polisher's literal → simile pairs (`polish_writer`) where it serves, else the polisher itself.
    The polisher scores every candidate either way (keep was fitted on its scores).
    Why: docs/experiments.md#polish-writer-polisher"""
    try:
        return get_registry().get("polish_writer"), True, WRITER_POLISHER_SAMPLES
    except ModelUnavailable:
        return polisher, trained, LM_MAX_SAMPLES


def _prompt(literal: str, trained: bool) -> str:
    return ("" if trained else _FEW_SHOT) + PROMPT.format(literal=literal.strip())


# ------------------------------------------------------------------------------------------ slots

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
        rewrites = " or ".join(f"“{literal[:neg.idx] + a + literal[slot.end:]}”" for a in opposites[:3])
        return note + f" To picture what it is, polish {rewrites} (WordNet's opposites of “{slot.adjective}”)."
    return note + " To picture what it is, polish a sentence that says the quality itself."


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
            (tok.dep_ in ("acomp", "oprd", "advmod") and tok.head.lemma_.lower() in _LINKING and tok.head.i < tok.i)
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
                mods[0].lower_.endswith("ly") and mods[0].lower_ not in _NOT_MANNER))
            if intensified or graded:
                first = mods[0]
            last, adjective = tok, (f"{mods[0].text} {tok.lower_}" if graded else tok.lower_)
            comp = [c for c in tok.children if c.dep_ == "prep" and c.i == _next_to(tok, 1) and c.lower_ in _COMPLEMENT]
            if comp:  # "proud of his garden" → "as proud of his garden as a peacock"
                last = max((t for t in comp[0].subtree if not t.is_punct), key=lambda t: t.i)
                adjective = literal[first.idx if graded else tok.idx:last.idx + len(last)]
            slots[(first.idx, "adjective")] = Slot(first.idx, last.idx + len(last), "adjective", tok.text,
                                                   adjective, score=2.0, words=_around(doc, tok.i))
    for tok in doc:
        if tok.pos_ != "VERB" or tok.dep_ in ("amod", "aux", "auxpass", "compound"):
            continue
        if any(c.dep_ in ("acomp", "oprd") and c.pos_ == "ADJ" for c in tok.children) and tok.lemma_ in _LINKING:
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


# ------------------------------------------------------------------------------------------ realiser

def noun_phrase(vehicle: str, kb=None) -> str:
    """The vehicle as a noun phrase that agrees: the KB's usual surface form, no article before a plural
    ("a beehives" → "beehives"), "a"/"an" by the next word's sound."""
    v = re.sub(r"\s+", " ", vehicle.strip().strip(",;:")).strip()
    if kb is not None:
        norm = kb.normalize(v)
        if kb.has_vehicle(norm) and (norm == v.lower() or (
                v.lower().startswith(("the ", "a ", "an ")) and kb.written_bare(norm))):
            # "thunder" as the KB writes it; "the thunder", "a thunder" → "thunder" when it is written bare; "a
            # maniac" keeps its article (only generated candidates hold it: the KB does not know how it is written)
            v = kb.surface(norm)
    words = v.split()
    if len(words) >= 2 and words[0].lower() in ("a", "an"):
        lowered = [w.lower() for w in words]
        # the number is the head's: "a pack of wolves" keeps its article, "a beehives" loses it
        head = lowered[lowered.index("of", 1) - 1] if "of" in lowered[2:] else lowered[-1]
        if _plural(head) and kb is not None and kb.lemma(head) != head:
            words = words[1:]
        else:
            words[0] = indefinite_article(words[1])
    return " ".join(words)


def _plural(word: str) -> bool:
    w = word.lower()
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous"))


def realise(literal: str, slot: Slot, vehicle: str) -> tuple[str, str, int]:
    """(sentence, phrase, offset of the phrase) with the comparison the slot allows: "as ADJ as NP" for an
    adjective slot, "like NP" for a verb slot; a vehicle that is itself an "as if"/"as though" clause goes in
    as it is at a verb slot."""
    vehicle = vehicle.strip()
    if slot.kind == "adjective":
        phrase = f"as {slot.adjective} as {vehicle}"
    elif is_clause(vehicle):
        phrase = vehicle
    else:
        phrase = f"like {vehicle}"
    before, after = literal[:slot.start].rstrip(), literal[slot.end:]
    if not before:
        phrase = phrase[0].upper() + phrase[1:]
    sep_after = "" if not after or after[0] in ".,;:!?)\"'" or after[0].isspace() else " "
    lead = f"{before} " if before else ""
    return f"{lead}{phrase}{sep_after}{after}", phrase, len(lead)


_PLAIN = re.compile(r"^[A-Za-z][A-Za-z' -]*$")


def _acceptable(vehicle: str, context: set[str], kb) -> bool:
    if not _PLAIN.match(vehicle):
        return False  # digits, symbols, broken bytes: not a noun phrase
    words = _WORD.findall(vehicle.lower())
    if not 1 <= len(words) <= 7:
        return False
    if is_clause(vehicle):
        return 3 <= len(words) <= 9
    if words[0] in _NP_BAD_START or points(vehicle) or any(a == b for a, b in zip(words, words[1:])):
        return False  # a bad start ("of the …"), one that points ("my mother"), a stutter ("a freight freight")
    if offensive_words(vehicle, vehicle=True):  # slurs in the KB's 19th-century vehicles; names for peoples
        return False
    head = words[-1]
    if head in _NP_BAD_END:
        return False  # cut off mid-phrase
    if head in _JUNK_HEADS or kb.head(vehicle) in _JUNK_HEADS or vehicle.endswith(("'s", "'")):
        return False
    content = {w for w in words if len(w) > 2} - {"the", "and", "like"}
    stems = {w[:4] for w in context if len(w) >= 4}
    # "as foggy as a fog", "as salty as salt": a short word the sentence has with a suffix is a repeat too
    derived = any(len(w) == 3 and any(c.startswith(w) and 3 < len(c) <= 5 for c in context) for w in content)
    return not (content & context) and not derived and not any(len(w) >= 4 and w[:4] in stems for w in content)


def _like_with_like(rows, doc, kb) -> set[int]:
    """Indices of the rows whose vehicle is the same kind of thing as the sentence's subject ("the kids ran …
    like a bunch of children", "the lake was still … like a pond"): a literal comparison, not a simile. The
    embedder's cosine of the subject's lemma and the vehicle's head must reach LIKE_WITH_LIKE and stand
    LIKE_WITH_LIKE_GAP above the median over this sentence's vehicles (a model whose vectors all look alike, such
    as the tiny profile's, drops nothing). Nothing is dropped without a noun subject or an embedder."""
    return {i for i, s in enumerate(like_with_like_scores(rows, doc, kb))
            if s is not None and s[0] >= LIKE_WITH_LIKE and s[1] >= LIKE_WITH_LIKE_GAP}


_IMAGE_POS = {"NOUN", "PROPN", "PRON", "NUM"}


def is_clause(vehicle: str) -> bool:
    """An "as if" / "as though" clause (realised as it stands at a verb slot), not a noun phrase."""
    return vehicle.lower().startswith(("as if ", "as though "))


def _no_image(rows, parser) -> set[int]:
    """Indices of the rows (one parse each) whose inserted phrase holds a nationality, a religious or a political
    group by the parser's entity recogniser (NORP: "like an Asian", "as proud as a German"): a people is no vehicle;
    or whose vehicle has no noun ("as sour as stale": an adjective is no image), or a common noun English does not
    have (`known_noun`: "as salty as a hucklehead", "as noisy as wot"; names, "a Ferrari", are not asked about).
    "as if" clauses are kept."""
    out = set()
    for i, (r, doc) in enumerate(zip(rows, parser.pipe([r["sentence"] for r in rows]))):
        lo, hi = r["offset"], r["offset"] + len(r["phrase"])
        if any(e.label_ == "NORP" and lo <= e.start_char < hi for e in doc.ents):
            out.add(i)
            continue
        vehicle = r.get("vehicle", "")
        if vehicle and not is_clause(vehicle) and r["phrase"].endswith(vehicle):
            start = hi - len(vehicle)
            tokens = [t for t in doc if start <= t.idx < hi]
            if not any(t.pos_ in _IMAGE_POS for t in tokens) or not all(
                    known_noun(t.text) or known_noun(t.lemma_) for t in tokens if t.pos_ == "NOUN"):
                out.add(i)
    return out


def like_with_like_scores(rows, doc, kb) -> list[tuple[float, float] | None]:
    """Per row ({"vehicle": …}): (cosine of the subject's lemma and the vehicle's head, that cosine minus the median
    over the rows' distinct heads), or None (an "as if" clause, no noun subject, fewer than 3 heads, no embedder)."""
    import numpy as np

    from .aptness import noun_subject

    subject = noun_subject(doc)
    heads = [None if is_clause(r["vehicle"]) else
             (kb.head(r["vehicle"]) or r["vehicle"].split()[-1].lower()) for r in rows]
    words = sorted({h for h in heads if h})
    if subject is None or len(words) < 3:
        return [None] * len(rows)
    try:
        embedder = get_registry().get("embedder")
    except ModelUnavailable:
        return [None] * len(rows)
    vectors = embedder.encode([subject.lemma_.lower()] + words)
    sims = dict(zip(words, (vectors[1:] @ vectors[0]).tolist()))
    median = float(np.median(list(sims.values())))
    return [None if h is None else (sims[h], sims[h] - median) for h in heads]


_LIKES = re.compile(r"\blik(?:e|es|ed|ing)\b", re.IGNORECASE)


def _realise_all(literal, proposals, context, kb):
    """(rows, rejected)."""
    rows, rejected, seen = [], 0, set()
    for rank, (strategy, slot, vehicle) in enumerate(proposals):
        # the image table's surface is the writer's own choice of article ("a river"): the KB's bare one would undo it
        np_ = vehicle if is_clause(vehicle) or strategy == "images" else noun_phrase(vehicle, kb)
        if not _acceptable(np_, context, kb):
            rejected += 1
            continue
        sentence, phrase, offset = realise(literal, slot, np_)
        key = re.sub(r"\W+", " ", sentence.lower()).strip()
        if key in seen:
            continue
        seen.add(key)
        rows.append({"strategy": strategy, "slot": slot, "vehicle": np_, "sentence": sentence, "phrase": phrase,
                     "offset": offset, "attested": slot.kind == "adjective" and attested(kb, slot.anchor, np_),
                     "rank": rank if strategy in RANKED_SOURCES else None})
    return rows, rejected


_AS_ADJ_AS = re.compile(r"as (\w+) as ")


def _opposite_images(lm, candidates) -> set[int]:
    """Indices of the "as ADJ as V" candidates whose vehicle the lm finds at least OPPOSITE_MARGIN nats likelier after
    an antonym of ADJ than after ADJ: "His backpack was as heavy as a feather." (HAUSER's ironic-simile margin)."""
    antonyms, items = load_antonyms(), []
    for i, c in enumerate(candidates):
        m = _AS_ADJ_AS.match(c.phrase)
        if not m or m.group(1).lower() not in antonyms or not c.phrase.endswith(c.vehicle):
            continue
        o, v = c.offset, c.offset + len(c.phrase) - len(c.vehicle)
        spans = {"comparator": (o, o + m.end() - 1), "property": (o + 3, o + 3 + len(m.group(1))),
                 "vehicle": (v, v + len(c.vehicle))}
        items.append((i, (0, c.sentence, [Simile(None, c.vehicle, None, "as ... as", m.group(1), spans)])))
    if not items:
        return set()
    found = find_ironies(shared(lm), [item for _, item in items], antonyms, margin=OPPOSITE_MARGIN)
    return {i for (i, _), hit in zip(items, found) if hit is not None}


_LIKE = re.compile(r"like (.+?)[.!?]*$")


def _opposite_manner(lm, candidates, literal: str) -> set[int]:
    """Indices of the "like V" candidates whose vehicle suits the opposite of the sentence's manner adverb: V at least
    ADVERB_OPPOSITE_MARGIN nats likelier after "It was as ANTONYM as" than after "It was as ADJ as" ("The train
    moved slowly up the hill like a falcon.")."""
    antonyms = load_antonyms()
    adjective = manner_adjective(literal, antonyms)
    if adjective is None:
        return set()
    items = []
    for i, c in enumerate(candidates):
        m = _LIKE.fullmatch(c.phrase) if c.kind == "verb" else None
        if not m:
            continue
        items.append((i, (0, *probe(adjective, m.group(1)))))
    if not items:
        return set()
    found = find_ironies(shared(lm), [item for _, item in items], antonyms, margin=ADVERB_OPPOSITE_MARGIN)
    return {i for (i, _), hit in zip(items, found) if hit is not None}


def _opposite_in_kb(kb, candidates, literal: str) -> set[int]:
    """Indices of the "as ADJ as V" candidates, and of the "like V" candidates of a sentence with a manner adverb,
    whose vehicle the simile KB knows for the opposite of ADJ (`opposite_in_kb`). The antonyms alone: their also-see
    words mix senses ("soft" → "tough" dropped "He spoke softly like a lamb.").
    Why: docs/experiments.md#polish-opposite-also-see"""
    antonyms = load_antonyms()
    manner = manner_adjective(literal, antonyms)
    out = set()
    for i, c in enumerate(candidates):
        if c.kind == "adjective":
            adjective = c.cue
        elif c.kind == "verb" and manner and _LIKE.fullmatch(c.phrase):
            adjective = manner
        else:
            continue
        if opposite_in_kb(kb, adjective, c.vehicle, antonyms):
            out.add(i)
    return out


def attested(kb, adjective: str, vehicle: str) -> bool:
    """Whether the simile KB knows `vehicle` for `adjective`: the adjective's lemma among the vehicle's
    ATTESTED_TOP most typical properties ("as sweet as honey" yes, "as sore as a surgeon" no)."""
    if is_clause(vehicle):
        return False
    return kb.lemma(adjective.lower()) in {p for p, _ in kb.properties_of_vehicle(vehicle, k=ATTESTED_TOP)}


def _vehicle_key(vehicle: str, kb) -> str:
    if is_clause(vehicle):
        return re.sub(r"\W+", " ", vehicle.lower())
    return kb.lemma(kb.head(vehicle)) if kb.head(vehicle) else vehicle.lower()


MAX_VARIANTS = 1  # members of a near-duplicate group that are scored (the rest are merged unscored)


def _merge(rows, kb):
    """Near duplicates — the same vehicle head ("a boy", "a little boy"; or one vehicle at two slots), or the same
    words written apart or together ("sea water", "seawater"; "ice-cream") — form one group, of which the first
    MAX_VARIANTS proposals are scored and the best kept; returns (groups, merged)."""
    groups: dict[str, list] = {}
    spelt: dict[str, str] = {}  # the vehicle's letters without articles, spaces and hyphens -> its group
    for r in rows:
        letters = re.sub(r"[\s-]+", "", re.sub(r"^(?:a|an|the)\s+", "", r["vehicle"].lower()))
        groups.setdefault(spelt.setdefault(letters, _vehicle_key(r["vehicle"], kb)), []).append(r)
    out = [members[:MAX_VARIANTS] for members in groups.values()]
    return out, sum(len(m) - 1 for m in groups.values())


_DETERMINERS = {"a", "an", "the", "some", "any", "my", "your", "his", "her", "its", "our", "their", "this", "that",
                "these", "those", "old", "little", "big", "great", "very", "one", "two"}


def modifiers(vehicle: str, kb) -> set[str]:
    """The content words of a vehicle before its head noun ("a mournful sigh" → {"mournful"}; "a bag of sand" →
    set()); "as if" clauses have none. Two vehicles sharing one are near duplicates of one image pattern
    ("a mournful sigh", "a mournful cry")."""
    if is_clause(vehicle):
        return set()
    words = _WORD.findall(vehicle.lower())
    head = kb.head(vehicle) if kb is not None else (words[-1] if words else "")
    out = set()
    for w in words:
        if w == head or (kb is not None and kb.lemma(w) == head) or w in ("of", "in", "on", "with"):
            break
        if w not in _DETERMINERS and len(w) > 2:
            out.add(w)
    return out


def _keep_probabilities(candidates: list[Candidate], literal: str, doc) -> dict[int, np.ndarray] | None:
    """Sets each candidate's `keep` from the `polish_ranker` role (studio/similes/aptness.py) and returns its feature
    rows by id(candidate), what the writer's reread adds to; None, with nothing set, when the role or the embedder it
    was fitted with is not served (hub and tiny profiles, no asset)."""
    from . import aptness

    if not candidates:
        return None
    try:
        ranker, embedder = get_registry().get("polish_ranker"), get_registry().get("embedder")
    except ModelUnavailable:
        return None
    items = [aptness.Item(c.vehicle, c.score, c.strategy, c.attested, c.kind, c.cue, is_clause(c.vehicle))
             for c in candidates]
    x = aptness.features(items, literal, aptness.subject_of(doc), embedder.encode)
    for c, p in zip(candidates, aptness.p_keep(ranker.weights, x)):
        c.keep = round(float(p), 4)
    return {id(c): row for c, row in zip(candidates, x)}


def _distinct_images(ranked: list[Candidate], kb) -> tuple[list[Candidate], int]:
    """Best first, a candidate is kept unless a better one already has its vehicle head, a head that names the same
    image by WordNet ("a tomb" after "a grave", `nouns.same_image`), or shares a modifier with it (near duplicates);
    returns (kept, merged). Why: docs/experiments.md#polish-same-image"""
    kept, heads, mods, merged = [], set(), set(), 0
    for c in ranked:
        head, own = _vehicle_key(c.vehicle, kb), modifiers(c.vehicle, kb)
        if head in heads or own & mods or any(same_image(head, h) for h in heads):
            merged += 1
            continue
        kept.append(c)
        heads.add(head)
        mods |= own
    return kept, merged


def simile_tail(c: Candidate) -> tuple[str, str] | None:
    """(the sentence up to the comparison word of the simile, the rest of the phrase): ("The boy ate his soup noisily
    like", " a pig"), ("The suitcase was as", " heavy as lead"); None when the phrase has no comparison word."""
    m = _TAIL.match(c.phrase)
    if not m:
        return None
    return (c.sentence[:c.offset] + m.group(1)).strip(), " " + m.group(2).rstrip(".,;:!? ")


_TAIL = re.compile(r"^(.*?\b(?:as|like|than)\b)\s+(.+)$", re.I | re.S)


def tails_by_beginning(tails) -> dict[str, list[str]]:
    """`simile_tail`s (None skipped) as the writer is asked them: beginning → its distinct continuations, in order
    (one shared beginning is read once)."""
    asks: dict[str, list[str]] = {}
    for tail in tails:
        if tail is not None and tail[1] not in asks.setdefault(tail[0], []):
            asks[tail[0]].append(tail[1])
    return asks


def _writer_order(ranked: list[Candidate], rows: dict[int, np.ndarray]) -> tuple[list[Candidate], bool]:
    """The first WRITER_READS_TOP candidates ordered by keep computed again with the writer's log-likelihood per
    token of the simile in the sentence (`simile_tail`; the `polish_ranker` role's reread weights over
    aptness.REREAD_FEATURES, `rows` keep's feature rows by id); ties keep the list's order, and each of them takes
    the new keep (the image table's and the writer's lines too, which had none). The rest follow as they were.
    (list, False) when the profile's writer does not reread (REREAD_BACKENDS), the ranker has no reread weights for
    this writer, or the writer cannot serve or fails while reading: the list is then as it was.
    why: docs/experiments.md#polish-learned-reread-served"""
    from ..models import ModelUnavailable, get_registry
    from . import aptness

    top = ranked[:WRITER_READS_TOP]
    tails = [simile_tail(c) for c in top]
    asks = tails_by_beginning(tails)
    if len(top) < 2 or not asks:
        return ranked, False
    registry = get_registry()
    if registry.spec("writer").backend not in REREAD_BACKENDS:
        return ranked, False
    contexts = list(asks)
    try:
        weights = registry.get("polish_ranker").reread
        if weights is None or list(weights["features"]) != list(aptness.REREAD_FEATURES):
            return ranked, False  # none, or fitted on other features than this code reads
        results = registry.get("writer").loglik_many([(ctx, asks[ctx], None) for ctx in contexts])
    except ModelUnavailable:
        return ranked, False
    except Exception as exc:  # noqa: BLE001 — a reread that fails leaves the list as it was; the user gets the list
        log.warning("the writer's reread failed, the list keeps its order: %s", exc)
        return ranked, False
    per_token = {(ctx, cont): total / max(count, 1) for ctx, result in zip(contexts, results)
                 for cont, (total, count) in zip(asks[ctx], result)}
    x = aptness.reread_features(np.stack([rows[id(c)] for c in top]),
                                [per_token[tail] if tail is not None else float("-inf") for tail in tails])
    p = aptness.p_keep(weights, x, aptness.REREAD_FEATURES)
    for c, value in zip(top, p):  # the image table's and the writer's lines too: it ranks them, calibrated alike
        c.keep = round(float(value), 4)
    order = sorted(range(len(top)), key=lambda i: (-p[i], i))
    return [top[i] for i in order] + ranked[len(top):], True


def _score_all(lm, trained, literal, groups, step=None) -> list[Candidate]:
    """Every member scored by the polisher: the phrase and the word after it, given the prompt and the sentence
    before the slot (one shared context per slot); the best member of each group is its candidate."""
    flat = [r for members in groups for r in members]
    if not flat:
        return []
    base = _prompt(literal, trained) + " "
    by_slot: dict[int, list] = {}
    for r in flat:
        by_slot.setdefault(id(r["slot"]), []).append(r)
    for done, rows in enumerate(by_slot.values()):
        if step is not None:
            step(done, len(by_slot))
        slot = rows[0]["slot"]
        before = literal[:slot.start].rstrip()
        conts = []
        for r in rows:
            sentence, offset, phrase = r["sentence"], r["offset"], r["phrase"]
            tail = sentence[offset + len(phrase):]
            nxt = re.match(r"\s*(?:\w+|[^\w\s])", tail)
            conts.append(sentence[len(before):offset + len(phrase)] + (nxt.group(0) if nxt else ""))
        for r, (lp, n_tok) in zip(rows, lm.loglik_shared(base + before, conts)):
            r["score"] = math.exp(lp / max(n_tok, 1))
    out = []
    for members in groups:
        # a member of a source that ranks its own (RANKED_SOURCES) stands for the group, at its place
        best = max(members, key=lambda r: (r["rank"] is not None, r["score"], -len(r["sentence"])))
        out.append(Candidate(sentence=best["sentence"], phrase=best["phrase"], offset=best["offset"],
                             strategy=best["strategy"], score=round(best["score"], 4), vehicle=best["vehicle"],
                             attested=best["attested"], kind=best["slot"].kind,
                             cue=best["slot"].adjective if best["slot"].kind == "adjective" else best["slot"].verb,
                             rank=best["rank"]))
    return out


# ------------------------------------------------------------------------------------------ sources

_CUT = re.compile(r"[.,;:!?\"\n()]|\s(?:and|but|who|which|that|when|because|while|so|then|until)\b")


def _resumes(rest: str) -> str:
    """What shows that a sample has reached the literal's own text (`rest`): its next word after a space, or that
    word's first sign when it begins with one ("" for no text)."""
    lead = rest.split()[0] if rest.strip() else ""
    return (" " + lead if lead[0].isalnum() else lead[0]) if lead else ""


def _cut(text: str, rest: str) -> str:
    """A sample's vehicle: its text up to where the literal's own text (`rest`) resumes, then up to a `_CUT`."""
    word = _resumes(rest)
    i = text.find(word) if word else -1
    if i >= 0:
        text = text[:i]
    return _CUT.split(text, maxsplit=1)[0].strip()


def _settled(rest: str) -> tuple[str, ...]:
    """Texts after which a sample's `_cut` can no longer change, so its row may stop decoding: the literal's next
    word as the cut finds it (`_resumes`), or a `_CUT` mark that this word does not contain ("\n" ends a row anyway:
    it is `sample_shared`'s stop). Once a row holds the word whole, the cut is at its first occurrence; once it holds
    such a mark, no later text can bring the word's first occurrence or a `_CUT` match before the mark (the word
    would have to span the mark). The vehicles are those of whole rows, up to llama.cpp's arithmetic, which depends
    a little on which rows share a batch (docs/experiments.md#polish-settled-rows)."""
    word = _resumes(rest)
    return tuple(dict.fromkeys(m for m in (word, *'.,;:!?"()') if m and (m == word or m not in word)))


def _by_lm(lm, trained, literal, slots, seed, want, tick=None, max_samples=LM_MAX_SAMPLES) -> list[tuple[Slot, str]]:
    """The polisher (or the writer polisher) continues "Literal: …\\nSimile: <sentence up to the slot> like" (or
    "as ADJ as") with a vehicle; at most `max_samples` a slot, sampled with the seed, cut where the literal's own text
    resumes. `tick(fraction, what)` after each decoding step, so that progress follows the sampling."""
    chosen = slots[:1] if want <= 8 else slots[:2]  # one slot for 10 candidates: half the decoding
    base = _prompt(literal, trained) + " "
    per = min(max_samples, (-(-want // len(chosen)) + 6) * LM_OVERSAMPLE)  # the best source: more samples
    out = []
    for k, slot in enumerate(chosen):
        context = base + literal[:slot.start].rstrip() + " " + slot.opener()
        rest = literal[slot.end:].strip()
        def on_step(done, steps, k=k):
            if tick is not None:
                tick((k + done / steps) / len(chosen), f"proposing {per} comparisons, step {done}/{steps}"
                     + (f" (slot {k + 1}/{len(chosen)})" if len(chosen) > 1 else ""))

        for text in lm.sample_shared(context, per, max_new_tokens=8, top_k=30, temperature=0.8, seed=seed + k,
                                     until=_settled(rest), on_step=on_step):
            text = _cut(text, rest)
            if text and slot.kind == "verb" and text.lower().startswith(("if ", "though ")):
                continue  # "like if …" is not English; the polisher's "as if" comes from its own opener
            if text:
                out.append((slot, text))
    return out


def _by_writer(literal, slots, seed, domain, register, tick) -> list[tuple[Slot, str]]:
    """The writer's images for the best slot (writer_vehicles.py), best first; `tick(fraction, what)` as they grow."""
    from .writer_vehicles import LISTS, PER_LIST, propose

    slot = slots[0]
    writer = get_registry().get("writer")
    completion = literal[:slot.start].rstrip() + " " + slot.opener()
    grown = [0]

    def on_text(i, text):
        grown[0] += 1
        tick(min(1.0, grown[0] / (LISTS * PER_LIST * 5)), "the writer proposes images")

    return [(slot, v) for v in propose(writer, literal, completion, seed=seed, domain=domain, register=register,
                                       on_text=on_text)]


def _manner_adjectives(verb) -> list[str]:
    """The adjectives a verb's manner adverbs may come from, likeliest first: "limped slowly" → slow, "laughed
    happily" → happy, "spoke gently" → gentle, "waved frantically" → frantic (the table knows which exist)."""
    out = []
    for child in verb.children:
        word = child.lower_
        if child.dep_ == "advmod" and word.endswith("ly") and word not in _NOT_MANNER and len(word) > 4:
            out += [word[:-2], word[:-3] + "y", word[:-2] + "le", word[:-4]]
    return list(dict.fromkeys(out))


def _by_images(slots, doc) -> list[tuple[Slot, str]]:
    """The image table's images (images.py) for the best slot's adjective, or for the adjective of its verb's manner
    adverb ("limped slowly" → slow), in the table's order."""
    from .images import images

    slot = slots[0]
    if slot.kind == "adjective":
        words = [slot.anchor.lower()]
    else:
        verb = next((t for t in doc if t.text == slot.verb and t.pos_ in ("VERB", "AUX")), None)
        words = _manner_adjectives(verb) if verb is not None else []
    for word in dict.fromkeys(words):
        if found := images(word):
            return [(slot, image) for image, *_ in found]
    return []


def _by_retrieval(kb, slots, doc, want) -> list[tuple[Slot, str]]:
    from .retrieval import search

    out = []
    for slot in slots[:1] if want <= 8 else slots[:2]:
        out += _usable_vehicles(kb, slot, search(kb, slot.words, k=40), want)
    return out


def _usable_vehicles(kb, slot, ranked, want) -> list[tuple[Slot, str]]:
    """The first `want` of the KB's ranked (vehicle, score) that are usable images of at most four words, as written."""
    out = []
    for vehicle, _score in ranked:
        if len(out) >= want:
            break
        if len(vehicle.split()) <= 4 and _usable_vehicle(kb, vehicle):
            out.append((slot, kb.surface(vehicle)))
    return out


def _by_property(kb, lm, literal, doc, slots, want, adjectives_only=False) -> list[tuple[Slot, str]]:
    """The adjective slot's own adjective, else (unless `adjectives_only`) the event's salient property → the KB's
    vehicles for it."""
    out = []
    adjective = next((s for s in slots if s.kind == "adjective"), None)
    if adjective is not None:
        props, slot = [(adjective.anchor.lower(), 0.0)], adjective
    elif adjectives_only:
        return []
    else:
        props, slot = salient_properties(kb, lm, literal, doc), slots[0]
    pool = 30
    if adjective is not None:
        want = max(want, PROPERTY_WANT_ADJECTIVE)
        pool = max(pool, 2 * want)
    for prop, _ in props[:1] if want <= 8 else props[:2]:
        out += _usable_vehicles(kb, slot, kb.vehicles_for_property(prop, k=pool), want)
    return out


def _by_insertion(kb, slots, want) -> list[tuple[Slot, str]]:
    common = _frequent_vehicles(kb)
    return [(slots[0], kb.surface(v)) for v in common[:want]]


_FREQUENT: dict[int, tuple[str, ...]] = {}


def _frequent_vehicles(kb) -> tuple[str, ...]:
    if id(kb) not in _FREQUENT:
        ranked = sorted(kb.vehicles(), key=lambda v: (-kb.vehicle_freq(v).value, v))
        _FREQUENT.clear()
        _FREQUENT[id(kb)] = tuple(v for v in ranked if len(v.split()) <= 3 and _usable_vehicle(kb, v))[:60]
    return _FREQUENT[id(kb)]


def salient_properties(kb, lm, literal: str, doc, k: int = 5) -> list[tuple[str, float]]:
    """The property the sentence's event/topic suggests: an explicit adjective if there is one; otherwise the KB
    properties nearest to the event and topic words by the embedder, re-ranked by the lm in context."""
    import numpy as np

    from .retrieval import word_matrix

    explicit = [t.lower_ for t in doc if t.pos_ == "ADJ" and t.dep_ in ("acomp", "oprd")]
    if explicit:
        return [(explicit[0], 0.0)]
    counts = kb.property_counts()
    pool = tuple(p for p, c in sorted(counts.items(), key=lambda x: (-x[1], x[0]))
                 if " " not in p and p.isalpha() and len(p) > 2 and c >= 1.5)[:400]
    cues = [t.lemma_.lower() for t in doc if t.pos_ in ("VERB", "NOUN", "ADJ", "ADV") and t.is_alpha]
    shortlist = list(pool[:15])
    if cues:
        try:
            embedder = get_registry().get("embedder")
            sims = word_matrix(embedder, kb.meta.get("digest", ""), "properties", pool) @ \
                embedder.encode([" ".join(cues)])[0]
            shortlist = [pool[i] for i in np.argsort(-sims)[:8]]
        except ModelUnavailable:
            pass
    subj = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    plural = subj is not None and (subj.tag_ in ("NNS", "NNPS") or subj.lower_ in ("they", "we"))
    context = f"{literal.rstrip('.!?')}, {'they are' if plural else 'it is'} very"
    scores = lm.loglik([context] * len(shortlist), [" " + p for p in shortlist])
    ranked = sorted(((p, lp) for p, (lp, _n) in zip(shortlist, scores)), key=lambda x: -x[1])
    return ranked[:k]


def _usable_vehicle(kb, vehicle: str) -> bool:
    """A vehicle that reads as an image: not a pronoun or quantity word, not a dangling possessive."""
    head = kb.head(vehicle)
    return head.isalpha() and head not in _JUNK_HEADS and not vehicle.endswith(("'s", "'"))


def delta_present() -> bool:
    return Path(DELTA_PATH).is_file()
