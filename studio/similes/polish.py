"""Polishing: turn a literal sentence into distinct simile candidates.

Strategies (each usable on its own; merged and deduplicated by default):
  insertion — find where a simile phrase can go (after an event verb, after its object, at clause ends), score
              the points with the `lm`, and fill the best ones with the KB's most frequent vehicles, ranked by the lm
  retrieval — the HAUSER paper's BM25 baseline: the ~20 context words around the insertion point retrieve the most
              similar simile contexts of the knowledge base (bm25s); their vehicles become candidates
  lm        — few-shot prompt the `lm` for "like ..." / "as ... as ..." at the insertion point; samples that the
              detector rejects or that repeat context words are dropped
  property  — infer the salient property of the event/topic (KB properties ranked by the `lm` in context), then
              take the KB's typical vehicles for that property ("howls" → loud → "as loud as a foghorn")
Every candidate gets a generation score: the lm's mean log-probability per token of the inserted phrase and the
rest of the sentence, given the text before it.
"""
from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import InputError, check_stop, require_text

STRATEGIES = ("insertion", "retrieval", "lm", "property")
MAX_N = 50
LM_BATCH = 16  # the lm's loglik batch size: scoring in these slices changes no score
MAX_CHARS = 400
CONTEXT_WORDS = 20
_FEW_SHOT = ("The baby slept like a log. The old man was as stubborn as a mule. Her voice rang out like a bell. "
             "The water was as clear as crystal. ")
_JUNK_HEADS = {"ever", "other", "others", "anyone", "anything", "none", "rest", "your", "yours", "mine", "usual",
               "possible", "one", "thing", "way", "time", "that", "this", "it", "what", "all", "any"}
_PHRASE_END = re.compile(r"[.,;:!?\"\n]|\b(and|but|who|which|that|when|because)\b")


@dataclass
class Candidate:
    sentence: str
    phrase: str        # the inserted simile phrase, e.g. "like a wolf"
    offset: int        # character offset of the phrase in `sentence`
    strategy: str
    score: float       # mean log-probability per token (higher is more fluent)
    vehicle: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class InsertionPoint:
    offset: int        # character offset in the literal where the phrase goes (before the following text)
    kind: str          # "verb", "object", "clause-end", "adjective"
    anchor: str        # the word after which it goes
    property: str | None = None  # an adjective right before it ("he is happy" → "happy as a lark")
    score: float = 0.0


def polish(literal: str, n: int = 10, strategies=None, seed: int = 0, *, progress=None,
           should_stop=None) -> list[Candidate]:
    """The n best simile candidates for a literal sentence (fewer when the strategies propose fewer; see
    `polish_report`). `progress(fraction, what)` follows the work (each strategy, then the candidates scored in
    batches); `should_stop()` is polled between them and ends the job with `Stopped`. Plain callables, no UI."""
    return polish_report(literal, n, strategies, seed, progress=progress, should_stop=should_stop)[0]


def polish_report(literal: str, n: int = 10, strategies=None, seed: int = 0, *, progress=None,
                  should_stop=None) -> tuple[list[Candidate], dict]:
    """`polish`, plus what was delivered and why: {"asked", "delivered", "proposed": {strategy: distinct
    proposals}, "distinct": distinct sentences scored, "shortfall": a sentence saying why fewer came, or ""}."""
    literal = require_text(literal, "literal sentence", MAX_CHARS)
    if not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise InputError(f"The number of candidates must be between 1 and {MAX_N}.")
    strategies = _check_strategies(strategies)
    from ..models import get_registry

    def step(fraction: float, what: str) -> None:
        check_stop(should_stop, "Polishing")
        if progress is not None:
            progress(fraction, what)

    registry = get_registry()
    step(0.02, "parsing the sentence")
    doc = registry.get("parser")(literal)
    lm = registry.get("lm")
    points = insertion_points(literal, doc)
    if not points:
        raise InputError("No place for a simile was found: the sentence needs a verb or an adjective.")
    step(0.08, "scoring where a simile fits")
    _score_points(lm, literal, points)
    points = sorted(points, key=lambda p: -p.score)[:3]
    context = _context_words(doc)
    proposals: list[tuple[str, InsertionPoint, str, str]] = []  # (strategy, point, phrase, vehicle)
    from .kb import load_kb

    kb = load_kb()
    makers = {"insertion": lambda: _by_insertion(kb, lm, literal, points, context),
              "retrieval": lambda: _by_retrieval(kb, points, doc, context, n),
              "lm": lambda: _by_lm(lm, literal, points, context, seed),
              "property": lambda: _by_property(kb, lm, literal, doc, points, context)}
    chosen = [name for name in makers if name in strategies]
    for i, name in enumerate(chosen):
        step(0.15 + 0.5 * i / len(chosen), f"strategy {i + 1}/{len(chosen)}: {name}")
        proposals += makers[name]()
    per_strategy = max(4, -(-2 * n // len(strategies)))  # twice what the selection needs, to survive dedup
    capped = _cap(proposals, per_strategy)
    candidates = _realise(lm, literal, capped, step=lambda done, total: step(
        0.65 + 0.33 * done / max(total, 1), f"scoring candidates {done}/{total}"))
    chosen_candidates = _select(candidates, n, strategies)
    proposed = {name: len({(p[1].offset, p[2].lower()) for p in proposals if p[0] == name}) for name in strategies}
    report = {"asked": n, "delivered": len(chosen_candidates), "proposed": proposed, "distinct": len(candidates),
              "shortfall": ""}
    if len(chosen_candidates) < n:
        each = ", ".join(f"{name} {count}" for name, count in proposed.items())
        report["shortfall"] = (
            f"{len(chosen_candidates)} of the {n} candidates asked: the chosen strategies proposed only "
            f"{len(candidates)} distinct sentences for this literal ({each} proposals, before duplicates were "
            "merged). Add strategies or try another sentence; the seed changes only the lm strategy.")
    return chosen_candidates, report


def _check_strategies(strategies) -> tuple[str, ...]:
    if strategies is None or strategies == []:
        return STRATEGIES
    if isinstance(strategies, str):
        strategies = [s.strip() for s in strategies.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise InputError(f"Unknown strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}.")
    if not strategies:
        raise InputError("Choose at least one strategy.")
    return tuple(dict.fromkeys(strategies))


# ------------------------------------------------------------------------------------------ insertion points

def insertion_points(literal: str, doc) -> list[InsertionPoint]:
    points: dict[int, InsertionPoint] = {}

    def add(tok, kind, prop=None):
        end = tok.idx + len(tok)
        if end not in points:
            points[end] = InsertionPoint(end, kind, tok.text, prop)

    for tok in doc:
        if tok.pos_ == "VERB" and tok.dep_ not in ("amod", "aux", "auxpass"):
            prts = [c for c in tok.children if c.dep_ == "prt"]
            add(prts[-1] if prts else tok, "verb")
            objs = [c for c in tok.children if c.dep_ in ("dobj", "attr", "oprd")]
            if objs:
                last = max(objs[-1].subtree, key=lambda t: t.i)
                add(last, "object")
        elif tok.pos_ in ("ADJ", "ADV") and tok.dep_ in ("acomp", "advmod", "oprd", "xcomp", "ccomp") \
                and tok.head.pos_ in ("AUX", "VERB") and tok.tag_ in ("JJ", "RB"):
            add(tok, "adjective", tok.lower_)
    for sent in doc.sents:  # clause end: before the sentence's final punctuation
        last = sent[-1]
        while last.i > sent.start and last.is_punct:
            last = doc[last.i - 1]
        if not last.is_punct:
            add(last, "clause-end")
    return [p for p in points.values() if p.offset > 0]


def _score_points(lm, literal: str, points: list[InsertionPoint]) -> None:
    """How readily the lm continues the text before each point with a comparison."""
    contexts = [literal[:p.offset] for p in points]
    probes = [" as" if p.property else " like" for p in points]
    for p, (lp, n_tok) in zip(points, lm.loglik(contexts, probes)):
        p.score = lp / max(n_tok, 1) + (0.5 if p.kind in ("verb", "adjective") else 0.0)


def _context_words(doc) -> set[str]:
    return {t.lemma_.lower() for t in doc if t.is_alpha and not t.is_stop} | {t.lower_ for t in doc if t.is_alpha}


def _phrase(point: InsertionPoint, vehicle_surface: str, prop: str | None = None) -> str:
    prop = prop or point.property
    if point.kind == "adjective" and point.property:
        return f"as {vehicle_surface}"  # "he is happy" + "as a lark"
    if prop:
        return f"as {prop} as {vehicle_surface}"
    return f"like {vehicle_surface}"


def _repeats_context(vehicle: str, context: set[str]) -> bool:
    words = {w for w in re.findall(r"[a-z]+", vehicle.lower()) if len(w) > 2}
    return bool(words & context - {"like", "the", "and"})


# ------------------------------------------------------------------------------------------ strategies

def _by_insertion(kb, lm, literal, points, context) -> list:
    """The KB's most frequent vehicles at the best points, kept when the lm finds them fitting there."""
    common = [v for v in _frequent_vehicles(kb) if not _repeats_context(v, context)]
    out = []
    for point, width in zip(points[:2], (12, 6)):
        options = common[:width]
        phrases = [_phrase(point, kb.surface(v)) for v in options]
        scores = lm.loglik([literal[:point.offset]] * len(phrases), [" " + ph for ph in phrases])
        ranked = sorted(zip(options, phrases, scores), key=lambda x: -x[2][0] / max(x[2][1], 1))
        out += [("insertion", point, ph, v) for v, ph, _ in ranked[:4]]
    return out


@functools.lru_cache(maxsize=1)
def _frequent_vehicles_cached(kb_id: int, kb) -> tuple[str, ...]:
    ranked = sorted(kb.vehicles(), key=lambda v: -kb.vehicle_freq(v).value)
    return tuple(v for v in ranked if len(v.split()) <= 3 and _usable_vehicle(kb, v))[:60]


def _frequent_vehicles(kb) -> tuple[str, ...]:
    return _frequent_vehicles_cached(id(kb), kb)


def _by_retrieval(kb, points, doc, context, n) -> list:
    from .retrieval import search

    out = []
    for point in points[:2]:
        centre = next((t.i for t in doc if t.idx >= point.offset), len(doc))
        words = [t.lemma_.lower() for t in doc[max(0, centre - CONTEXT_WORDS // 2):centre + CONTEXT_WORDS // 2]
                 if t.is_alpha]
        seen = set()
        for vehicle, _score in search(kb, words, k=40):
            if vehicle in seen or _repeats_context(vehicle, context) or len(vehicle.split()) > 5 \
                    or not _usable_vehicle(kb, vehicle):
                continue
            seen.add(vehicle)
            out.append(("retrieval", point, _phrase(point, kb.surface(vehicle)), vehicle))
            if len(seen) >= max(4, n // 2):
                break
    return out


def _by_lm(lm, literal, points, context, seed) -> list:
    from .components import extract_similes

    chosen = points[:2]
    openers = ["as" if p.kind == "adjective" else "like" for p in chosen]
    prompts = [_FEW_SHOT + literal[:p.offset] + " " + o for p, o in zip(chosen, openers)]
    batches = lm.generate(prompts, max_new_tokens=6, top_k=40, temperature=0.9, no_repeat_ngram_size=3,
                          num_return_sequences=4, seed=seed)
    out = []
    for point, opener, gens in zip(chosen, openers, batches):
        for g in gens:
            tail = _PHRASE_END.split(g.text.strip(), maxsplit=1)[0].strip()
            words = tail.split()
            if not 1 <= len(words) <= 6 or _repeats_context(tail, context):
                continue
            phrase = f"{opener} {tail}"
            sentence = _insert(literal, point.offset, phrase)[0]
            sims = [s for s in extract_similes(sentence) if s.vehicle]
            if not sims:
                continue  # not a comparison the extractor can read
            out.append(("lm", point, phrase, sims[0].vehicle))
    return out


def _by_property(kb, lm, literal, doc, points, context) -> list:
    props = salient_properties(kb, lm, literal, doc)
    out = []
    point = points[0]
    for prop, _ in props[:2]:
        taken = 0
        for vehicle, _score in kb.vehicles_for_property(prop, k=20):
            if _repeats_context(vehicle, context) or len(vehicle.split()) > 4 or not _usable_vehicle(kb, vehicle):
                continue
            p = prop if point.kind != "adjective" else None
            out.append(("property", point, _phrase(point, kb.surface(vehicle), p), vehicle))
            taken += 1
            if taken >= 4:
                break
    return out


def salient_properties(kb, lm, literal: str, doc, k: int = 5) -> list[tuple[str, float]]:
    """The property the sentence's event/topic suggests: an explicit adjective if there is one; otherwise the KB
    properties nearest to the event and topic words by the embedder, re-ranked by the lm in context."""
    from ..models import ModelUnavailable, get_registry
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
            shortlist = [pool[i] for i in np.argsort(-sims)[:12]]
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


# ------------------------------------------------------------------------------------------ realisation

def _insert(literal: str, offset: int, phrase: str) -> tuple[str, int]:
    before, after = literal[:offset].rstrip(), literal[offset:]
    sep_after = "" if not after or after[0] in ".,;:!?)\"'" or after[0].isspace() else " "
    sentence = f"{before} {phrase}{sep_after}{after}"
    return sentence, len(before) + 1


def _cap(proposals, per_strategy: int) -> list:
    """At most `per_strategy` distinct proposals of each strategy, in their own order, to bound lm scoring."""
    kept, counts, seen = [], {}, set()
    for prop in proposals:
        key = (prop[1].offset, prop[2].lower())
        if key in seen or counts.get(prop[0], 0) >= per_strategy:
            continue
        seen.add(key)
        counts[prop[0]] = counts.get(prop[0], 0) + 1
        kept.append(prop)
    return kept


def _realise(lm, literal, proposals, step=None) -> list[Candidate]:
    """Each distinct sentence scored by the lm, in batches of LM_BATCH (the lm's own batch size, so the scores
    are those of one call); `step(done, total)` is called before each batch."""
    seen: dict[str, tuple] = {}
    for strategy, point, phrase, vehicle in proposals:
        sentence, offset = _insert(literal, point.offset, phrase)
        key = re.sub(r"\W+", " ", sentence.lower()).strip()
        if key not in seen:
            seen[key] = (strategy, point, phrase, vehicle, sentence, offset)
    if not seen:
        return []
    rows = list(seen.values())
    contexts = [r[4][:r[5]] for r in rows]
    continuations = [r[4][r[5]:] for r in rows]
    scores = []
    for start in range(0, len(rows), LM_BATCH):
        if step is not None:
            step(start, len(rows))
        scores += lm.loglik(contexts[start:start + LM_BATCH], continuations[start:start + LM_BATCH])
    return [Candidate(sentence=r[4], phrase=r[2], offset=r[5], strategy=r[0], score=round(lp / max(nt, 1), 4),
                      vehicle=r[3]) for r, (lp, nt) in zip(rows, scores)]


def _select(candidates: list[Candidate], n: int, strategies) -> list[Candidate]:
    """The n best, taking each strategy's best in turn so that every chosen strategy is represented, and
    preferring vehicles not chosen yet; returned best score first."""
    def head(c: Candidate) -> str:
        return c.vehicle.lower().split()[-1] if c.vehicle else ""

    queues = {s: sorted((c for c in candidates if c.strategy == s), key=lambda c: (-c.score, c.sentence))
              for s in strategies}
    chosen: list[Candidate] = []
    used: set[str] = set()
    while len(chosen) < n and any(queues.values()):
        for s in strategies:
            queue = queues[s]
            if not queue or len(chosen) >= n:
                continue
            fresh = next((c for c in queue if head(c) not in used), queue[0])
            queue.remove(fresh)
            used.add(head(fresh))
            chosen.append(fresh)
    return sorted(chosen, key=lambda c: (-c.score, c.sentence))
