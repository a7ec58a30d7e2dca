"""Score groups of simile candidates with HAUSER: components → KB lookups, batched NLI and sentiment calls →
criteria → rankings. Many groups are scored together so that each model runs once over all of them."""
from __future__ import annotations

import math

import re
from dataclasses import asdict, dataclass, field
from typing import Sequence

from ..errors import InputError, require_text
from ..figures.components import extract_similes_batch, wordless_image
from ..figures.english import content_lemmas, refuse_non_english
from ..figures.irony import negated_reading, stated_reading, states_property
from ..figures.lm_features import first_vehicle, shared
from ..models import NLI_LABELS, ModelUnavailable, get_registry
from ..offensive import offensive_words
from ..textspans import blank_markup
from . import criteria as C
from .kb_features import NO_TOPIC, PROPERTY

MAX_CANDIDATES = 50
MAX_CHARS = 2000  # the HAUSER data holds literal sentences of over 1,000 characters
NO_SIMILE = "no simile with a vehicle was found in this candidate; it is ranked last"
#: a candidate holding less than OFF_SENTENCE_SHARE of the literal sentence's content words (lemmas of its nouns,
#: verbs, adjectives, adverbs) and meaning little alike (the `embedder`'s cosine under OFF_SENTENCE_COSINE) is "off the
#: sentence" and ranked after the others: a line of another sentence ("The car was as fast as lightning." for "Her
#: laugh was loud."), not a rewrite in other words ("He was as weary as a dog." for "He was tired.": cosine 0.61). Of
#: the HAUSER generator's 12,495 candidates 1 has a cosine under 0.3 with its literal; of other literals' candidates
#: pasted beside them 92.5 % are caught. why: docs/experiments.md#hauser-off-sentence
OFF_SENTENCE_SHARE = 0.25
OFF_SENTENCE_COSINE = 0.3


@dataclass
class Settings:
    quality_weights: tuple[float, float, float] = C.DEFAULT_QUALITY_WEIGHTS
    rank_weights: tuple[float, float, float] = C.DEFAULT_RANK_WEIGHTS
    relevance: str = "eq2"  # "eq2" (triplets n·P) or "eq3" (pair counts n(t, v))
    lm_relevance: float = C.DEFAULT_LM_RELEVANCE  # λ of the writer's fit in relevance; 0: the paper's Eq. 2/3
    lm_creativity: float = C.DEFAULT_LM_CREATIVITY  # μ of the LM back-off in creativity; 0: the paper's Eq. 8-9
    #: read an ironic "as P as V" literally before the NLI ("as loud as a whisper" → "very soft"; irony.py); needs the LM
    irony: bool = True
    #: the NLI reads any other "as P as V" simile as the property it states ("as bitter as regret" → "very bitter"):
    #: the vehicle's fit is relevance's, and a vehicle alone misled the NLI into contradictions
    stated_property: bool = True
    #: Eq. 2 backs a topic-vehicle pair the KB never saw off to the simile's stated property (kb_features.py)
    property_backoff: bool = True
    #: a candidate with P(contradiction) at least this goes after the others in the combined rank; None: the paper's
    #: order
    contradiction_gate: float | None = C.CONTRADICTION_GATE
    #: a line of another sentence (`off_sentence`), one whose image is an emoji or a sign (`no_words`), and one whose
    #: image names a people or holds a slur or an obscenity (`offensive`), go after the others; False: the paper's
    #: order
    off_sentence: bool = True

    def __post_init__(self):
        # parts or weights alike (5 : 1 : 0 or 5/6, 1/6, 0): quality stays within 0–1
        self.quality_weights = C.relative_weights(self.quality_weights)
        self.rank_weights = C.check_weights(self.rank_weights, "rank weights")
        for name in ("lm_relevance", "lm_creativity"):
            value = getattr(self, name)
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise InputError(f"{name.replace('_', ' ')} must be a number ≥ 0, not {value!r}") from None
            if not (value >= 0 and value < float("inf")):
                raise InputError(f"{name.replace('_', ' ')} must be a finite number ≥ 0, not {value}")
            setattr(self, name, value)
        if self.contradiction_gate is not None:
            gate = self.contradiction_gate
            if isinstance(gate, bool) or not isinstance(gate, (int, float)) or not 0 < gate <= 1:
                raise InputError(f"the contradiction gate must be a probability in (0, 1], or None; not {gate!r}")
            self.contradiction_gate = float(gate)
        if self.relevance not in C.RELEVANCE_METHODS:
            raise InputError(f"relevance must be one of {', '.join(C.RELEVANCE_METHODS)}, not {self.relevance!r}")

    @classmethod
    def from_parts(cls, quality_parts=C.DEFAULT_QUALITY_PARTS, rank_weights=C.DEFAULT_RANK_WEIGHTS,
                   relevance: str | None = "eq2") -> "Settings":
        """The tab's settings: the quality weights α : β : γ in parts (3 : 2 : 1 → 0.5, 0.33, 0.17), the three rank
        weights and the relevance method (None: eq2); the LM back-off, irony and property back-off as served."""
        return cls(C.relative_weights(quality_parts), tuple(rank_weights), relevance or "eq2")


@dataclass
class CandidateScore:
    index: int
    candidate: str
    has_simile: bool
    similes: list[dict]
    flag: str = ""
    relevance: float | None = None
    relevance_kb: float | None = None  # Eq. 2/3 from the KB alone, before the LM back-off
    relevance_levels: list[str] = field(default_factory=list)  # KB back-off level per topic-vehicle pair
    logical_consistency: float | None = None
    sentiment_consistency: float | None = None
    relevance_norm: float | None = None
    logical_consistency_norm: float | None = None
    sentiment_consistency_norm: float | None = None
    quality: float | None = None
    creativity: float | None = None
    creativity_levels: list[str] = field(default_factory=list)  # KB back-off level per vehicle
    informativeness: float | None = None
    rank_quality: int | None = None
    rank_creativity: int | None = None
    rank_informativeness: int | None = None
    combined_rank_score: float | None = None
    rank: int = 0
    sentiment_texts: tuple[str, str] = ("", "")  # (cut simile, cut literal) fed to the sentiment model
    #: the NLI verdict on (literal, candidate): {"verdict": label, "entailment"/"neutral"/"contradiction": p}
    nli: dict = field(default_factory=dict)
    #: the KB instances behind relevance and creativity (KBFeatures.evidence)
    evidence: dict = field(default_factory=dict)
    #: the small LM's generic view of the first vehicle (lm_features.VehicleLM.to_dict): log P(v | "Like"), surprisal
    lm: dict = field(default_factory=dict)
    #: the writer's fit of the first vehicle in its sentence (lm_features.VehicleFit.to_dict): log P(v | words before
    #: it), its tokens, and their mean, the fit
    fit: dict = field(default_factory=dict)
    #: an ironic simile read literally before the NLI (irony.Irony.to_dict), or {}
    irony: dict = field(default_factory=dict)
    #: what the NLI read when not the candidate itself: an "as P as V" simile's stated property ("The coffee was very
    #: bitter.") or an ironic simile's literal reading; "" otherwise
    nli_read: str = ""
    #: the antonym of a sincere "as P as V" simile's property that the literal sentence itself says ("quiet" for "as
    #: noisy as a rock concert" after "…was very quiet"): a contradiction by construction (irony.find_served_opposites)
    opposite: str = ""
    #: a "like" simile in the place of the literal's manner adverb (manner.StandIn: the adverb, its adjective, the
    #: reading), and, when the irony check finds its image suits the adverb's opposite, that `antonym` and `margin`
    #: (a contradiction by construction); {} otherwise
    stand_in: dict = field(default_factory=dict)
    #: the literal sentence negates the property the simile reads as ("not slow" for "as slow as a snail": verdict
    #: "contradicts") or its antonym ("agrees"): {"verdict", "said"} (irony.negated_reading), a verdict by
    #: construction in place of the NLI's; {} otherwise
    negated: dict = field(default_factory=dict)
    #: the NLI reads it as contradicting the literal (P ≥ Settings.contradiction_gate): ranked after the others
    contradicts: bool = False
    #: it holds less than OFF_SENTENCE_SHARE of the literal's content words and means little like it (`off_sentence`):
    #: a line of another sentence, ranked after the others
    off_sentence: bool = False
    #: its image is an emoji or a sign (`wordless_image`), which the KB cannot know: ranked after the others, under
    #: Settings.off_sentence (the paper's order leaves it)
    no_words: bool = False
    #: its image names a people or holds a slur or an obscenity (`offensive.offensive_words`: "as pale as a black
    #: man"): ranked after the others, under Settings.off_sentence
    offensive: bool = False

    @property
    def moved(self) -> bool:
        """Whether a flag ranks it after the others (a contradiction, a line of another sentence, a sign or an
        offensive image)."""
        return self.contradicts or self.off_sentence or self.no_words or self.offensive

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class GroupScore:
    literal: str
    candidates: list[CandidateScore]
    settings: dict
    backends: dict

    def ranked(self) -> list[CandidateScore]:
        return sorted(self.candidates, key=lambda c: c.rank)

    def to_dict(self) -> dict:
        return {"literal": self.literal, "settings": self.settings, "backends": self.backends,
                "candidates": [c.to_dict() for c in self.candidates]}


def check_group(literal, candidates, names: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """(literal, candidates), cleaned; an InputError naming the text at fault. `names`: what to call each candidate
    in it ("candidate on line 4" for a CSV's rows; default "candidate 1", "candidate 2", …)."""
    literal = require_text(literal, "literal sentence", MAX_CHARS)
    refuse_non_english(literal, f"literal sentence “{literal if len(literal) <= 60 else literal[:58] + '…'}”")
    if isinstance(candidates, str) or not isinstance(candidates, (list, tuple)):
        raise InputError("candidates must be a list of sentences")
    names = list(names) if names is not None else [f"candidate {k + 1}" for k in range(len(candidates))]
    if len(names) != len(candidates):
        raise ValueError("check_group: one name per candidate")
    cleaned = [require_text(c, name, MAX_CHARS) for c, name in zip(candidates, names)]
    if not cleaned:
        raise InputError("Please give at least one candidate simile.")
    if len(cleaned) > MAX_CANDIDATES:
        raise InputError(f"{len(cleaned)} candidates given; the limit is {MAX_CANDIDATES} per literal sentence.")
    for candidate, name in zip(cleaned, names):
        refuse_non_english(candidate, name)
    return literal, cleaned


def score_group(literal: str, candidates: Sequence[str], settings: Settings | None = None) -> GroupScore:
    return score_groups([(literal, list(candidates))], settings)[0]


def score_groups(groups: Sequence[tuple[str, Sequence[str]]], settings: Settings | None = None,
                 progress=None, kb=None) -> list[GroupScore]:
    """Score many (literal, candidates) groups; each model role is called once over all candidates.
    `kb` defaults to the committed simile knowledge base."""
    from .kb_features import KBFeatures

    settings = settings or Settings()
    groups = [check_group(lit, cands) for lit, cands in groups]
    # every model reads a typed tag as blanks (`blank_markup`: the same length, so spans found hold on the text shown)
    flat = [(g, blank_markup(lit), blank_markup(cand)) for g, (lit, cands) in enumerate(groups) for cand in cands]
    registry = get_registry()
    _step(progress, 0.05, "extracting simile components")
    # candidates are literals with a comparison inserted: the learned vehicle boundary was trained on just those
    similes = _unique_map(lambda texts: extract_similes_batch(texts, learned=True), [cand for _, _, cand in flat])
    kb = KBFeatures(kb)
    _step(progress, 0.3, "looking up the knowledge base")
    kb.kb.prefetch_unseen([s.vehicle for sims in similes for s in sims if s.vehicle])
    kb_rows = [kb.features(sims, settings.relevance, settings.property_backoff) for sims in similes]
    items = [(g, cand, sims) for (g, _, cand), sims in zip(flat, similes)]
    lm_rows, lm_backend, lm_used, ironies, lm = [None] * len(flat), None, False, [None] * len(flat), None
    if settings.lm_creativity or settings.irony:
        _step(progress, 0.35, "the small language model's view of each vehicle")
        try:
            lm = shared(registry.get("lm"))
        except ModelUnavailable as exc:  # score anyway, with the paper's formula, and say so
            lm_backend = f"not used ({exc.message}); creativity without the LM back-off, no ironic-simile check"
        else:
            lm_backend = lm.description
            if settings.lm_creativity:
                lm_rows, lm_used = lm.features(items), True
    fit_rows, fit_backend, fit_used, writer = [None] * len(flat), None, False, None
    if settings.lm_relevance:
        _step(progress, 0.4, "how well each vehicle fits its sentence (the writer)")
        try:
            writer = shared(registry.get("writer"))
        except ModelUnavailable as exc:
            fit_backend = f"not used ({exc.message}); relevance without the LM back-off"
        else:
            fit_backend, fit_rows, fit_used = writer.description, writer.fits(items), True
    opposites, stand_ins = [None] * len(flat), [None] * len(flat)
    if settings.irony and lm is not None:  # LM passes only for the "as P as" candidates whose property has an antonym
        from ..figures.antonyms import load_also_see, load_antonyms, load_opposites
        from ..figures.irony import find_served_ironies, find_served_opposites

        ironies = find_served_ironies(lm, writer, items, load_antonyms())
        opposites = find_served_opposites(lm, writer, items, [lit for _, lit, _ in flat], load_opposites(), ironies,
                                          load_also_see())
        stand_ins = find_stand_ins(lm, writer, flat, similes, load_antonyms(), kb.kb)
    # the weights applied: the paper's formulas (0) where a model is off or cannot serve
    lm_weights = (settings.lm_relevance if fit_used else 0.0, settings.lm_creativity if lm_used else 0.0)

    _step(progress, 0.45, "logical consistency (NLI)")
    nli = registry.get("nli")
    # an ironic simile is judged by its literal reading ("as loud as a whisper" → "very soft"), any other "as P as V"
    # by the property it states ("as bitter as regret" → "very bitter")
    # a "like" simile in the place of the literal's manner adverb by the words it replaces ("like a snail" → "very
    # slowly") when its image suits the adverb; one the models are unsure of as it is written
    read = [stand[0].reading if stand and stand[1] is None and stand[2] else irony.reading if irony else (
            settings.stated_property and stated_reading(cand, first_vehicle(sims))) or cand
            for (_, _, cand), sims, irony, stand in zip(flat, similes, ironies, stand_ins)]
    nli_probs = nli.predict([lit for _, lit, _ in flat], read, batch_size=128)
    # an ironic simile of the literal's own word ("…really fast" → "…as fast as a snail", read "very slow"), or a
    # sincere one of its antonym ("…very quiet" → "…as noisy as a rock concert"), contradicts it by construction,
    # whatever the NLI makes of the two sentences
    against = [(irony is not None and states_property(lit, irony)) or opposite is not None
               or (stand is not None and (stand[1] is not None or stand[3] is not None))
               for (_, lit, _), irony, opposite, stand in zip(flat, ironies, opposites, stand_ins)]
    # a simile of what the literal sentence negates ("…was not slow" → "…as slow as a snail") contradicts it, one of
    # its antonym ("…as fast as a cheetah") agrees, whatever the NLI makes of "not" (it reads "not slow" → "very slow"
    # as an entailment)
    negations = [None] * len(flat)
    if settings.irony:
        from ..figures.antonyms import load_antonyms

        antonyms = load_antonyms()
        negations = [negated_reading(lit, cand, first_vehicle(sims), irony, antonyms)
                     for (_, lit, cand), sims, irony in zip(flat, similes, ironies)]
    p_contra = [1.0 if by_construction or (negated and negated[0] == "contradicts") else
                0.0 if negated else float(p)
                for p, by_construction, negated in zip(nli_probs[:, 2], against, negations)]

    _step(progress, 0.7, "sentiment consistency")
    sentiment = registry.get("sentiment")
    cut_pairs = [sentiment_cut(lit, cand, sims) for (_, lit, cand), sims in zip(flat, similes)]
    p_pos = _unique_map(lambda texts: list(sentiment.p_positive(texts, batch_size=128)),
                        [t for pair in cut_pairs for t in pair])
    backends = {"nli": nli.backend, "sentiment": sentiment.backend, "kb": kb.description,
                "parser": registry.get("parser").backend, "lm": lm_backend, "writer": fit_backend}

    _step(progress, 0.9, "normalizing and ranking")
    elsewhere = [False] * len(flat)
    if settings.off_sentence:
        try:
            embedder = registry.get("embedder")
        except ModelUnavailable:  # scored anyway; nothing is flagged
            embedder = None
        elsewhere = off_sentence(registry.get("parser"), embedder, [(lit, cand) for _, lit, cand in flat])
    results, k = [], 0
    for literal, cands in groups:
        rows = []
        for index, cand in enumerate(cands):
            sims = similes[k]
            rel, rel_levels, freqs, freq_levels, vehicles = kb_rows[k]
            valid = bool(vehicles)
            vlm, vfit = lm_rows[k], fit_rows[k]
            fits, surprisals = ([vfit.fit] if vfit is not None else []), ([vlm.surprisal] if vlm is not None else [])
            rows.append(CandidateScore(
                index=index, candidate=cand, has_simile=valid, similes=[s.to_dict() for s in sims],
                flag="" if valid else NO_SIMILE,
                relevance=None if rel is None else C.relevance_with_prior(rel, fits, lm_weights[0]),
                relevance_kb=rel, relevance_levels=rel_levels,
                logical_consistency=C.logical_consistency(p_contra[k]),
                sentiment_consistency=C.sentiment_consistency(p_pos[2 * k], p_pos[2 * k + 1]),
                creativity=C.creativity_with_prior(freqs, surprisals, lm_weights[1]) if valid else None,
                creativity_levels=freq_levels, lm=vlm.to_dict() if vlm is not None else {},
                fit=vfit.to_dict() if vfit is not None else {},
                informativeness=C.informativeness(vehicles) if valid else None,
                sentiment_texts=cut_pairs[k], nli=nli_verdict(nli_probs[k]),
                evidence=kb.evidence(sims, method=settings.relevance, property_backoff=settings.property_backoff)
                if valid else {}, irony={**ironies[k].to_dict(), "states_property": against[k]} if ironies[k] else {},
                nli_read=read[k] if read[k] != flat[k][2] else "", opposite=opposites[k] or "",
                stand_in=_stand_in_dict(stand_ins[k]),
                negated={"verdict": negations[k][0], "said": negations[k][1]} if negations[k] else {},
                off_sentence=elsewhere[k] and valid))
            k += 1
        _normalize_and_rank(rows, settings)
        results.append(GroupScore(literal, rows, _settings_dict(settings), backends))
    return results


def find_stand_ins(lm, writer, flat, similes, antonyms: dict, kb=None) -> list:
    """Per candidate, None or (manner.StandIn, the Irony of its probe or None, whether its image suits the adverb,
    the antonym the simile KB knows V for or None): a "like V" simile in the place of the literal's manner adverb
    ("…walked like a snail…" for "…walked very slowly…"), whether the served irony check (the small LM's and the
    writer's margins) finds V likelier after an antonym of the adverb's adjective ("a rocket" after "fast"), whether
    neither model finds it likelier after any antonym ("a snail"), and, where the models find no irony, whether the
    KB knows V for an antonym ("a cheetah" is "fast": `irony.opposite_in_kb`, as Polish drops such lines). The served
    NLI read such a candidate as a sentence that lost a word: 0.99 contradiction for the snail, the tortoise and the
    cheetah alike.
    why: docs/experiments.md#hauser-manner-stand-in, docs/experiments.md#hauser-stand-in-kb"""
    from ..figures.irony import find_ironies, find_served_ironies, opposite_in_kb
    from ..figures.manner import probe, stand_in

    found = [stand_in(lit, cand, first_vehicle(sims), antonyms) for (_, lit, cand), sims in zip(flat, similes)]
    asked = [(k, (k, *probe(st.adjective, cand[slice(*first_vehicle(sims).spans["vehicle"])])))
             for k, (st, (_, _, cand), sims) in enumerate(zip(found, flat, similes)) if st is not None]
    if not asked:
        return [None] * len(flat)
    items = [item for _, item in asked]
    ironic = find_served_ironies(lm, writer, items, antonyms)
    # the image suits the adverb when no antonym makes it likelier, for either model (gains ≤ 0: "a snail", "a
    # tortoise"); else the models are unsure ("a cheetah" after "slow": +2.3 and +1.8 nats, under the margins)
    gains = [find_ironies(model, items, antonyms, margin=-math.inf) for model in (lm, writer) if model is not None]
    suits = [all(g[i] is not None and g[i].margin <= 0 for g in gains) for i in range(len(items))]
    by_k = {k: (ironic[i], suits[i]) for i, (k, _) in enumerate(asked)}
    out = []
    for k, st in enumerate(found):
        if st is None:
            out.append(None)
            continue
        irony, suits_it = by_k[k]
        vehicle = flat[k][2][slice(*first_vehicle(similes[k]).spans["vehicle"])]
        known = opposite_in_kb(kb, st.adjective, vehicle, antonyms) if kb is not None and irony is None else None
        out.append((st, irony, suits_it and known is None, known))
    return out


def _stand_in_dict(found) -> dict:
    if found is None:
        return {}
    st, irony, suits, known = found
    return {**st.to_dict(), **({"antonym": irony.antonym, "margin": round(irony.margin, 3)} if irony else
                               {"antonym": known, "by": "kb"} if known else {} if suits else {"unsure": True})}


def literal_share(literal_doc, candidate_doc) -> float | None:
    """The share of the literal's content lemmas the candidate holds; None when the literal has none."""
    own = content_lemmas(literal_doc)
    return len(own & content_lemmas(candidate_doc)) / len(own) if own else None


def off_sentence(parser, embedder, pairs: Sequence[tuple[str, str]]) -> list[bool]:
    """Per (literal, candidate): whether the candidate holds less than OFF_SENTENCE_SHARE of the literal's content
    words and its meaning is little like the literal's (the embedder's cosine under OFF_SENTENCE_COSINE); one tagging
    and one vector per distinct text. Without an embedder nothing is flagged."""
    if embedder is None or not pairs:
        return [False] * len(pairs)
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    docs = dict(zip(texts, parser.pipe(texts, disable=("ner", "parser"))))  # lemmas need the tags only
    shares = [literal_share(docs[lit], docs[cand]) for lit, cand in pairs]
    asked = [pair for pair, share in zip(pairs, shares) if share is not None and share < OFF_SENTENCE_SHARE]
    if not asked:
        return [False] * len(pairs)
    words = list(dict.fromkeys(t for pair in asked for t in pair))
    at = dict(zip(words, embedder.encode(words)))  # unit vectors (the Embedder role's contract): a dot is the cosine
    far = {pair for pair in asked if float(at[pair[0]] @ at[pair[1]]) < OFF_SENTENCE_COSINE}
    return [pair in far for pair in pairs]


def nli_verdict(probs) -> dict:
    out = {label: round(float(p), 4) for label, p in zip(NLI_LABELS, probs)}
    return {"verdict": NLI_LABELS[int(max(range(len(NLI_LABELS)), key=lambda i: probs[i]))], **out}


def evidence_text(c: dict) -> str:
    """One line of evidence for a scored candidate (a `CandidateScore.to_dict()`): the KB pairs and triplets behind
    relevance, the vehicle counts behind creativity, with their sources, and the NLI verdict. Topics and vehicles as
    the candidate writes them, the KB's entries spelt as words (its lemma key "lightne" reads "lightning")."""
    parts = []
    ev = c.get("evidence") or {}
    for pair in ev.get("relevance", []):
        written = pair.get("written") or {}
        topic = (written.get("topic") or pair.get("topic") or "(no topic)") if pair.get("topic") else "(no topic)"
        vehicle = written.get("vehicle") or pair["vehicle"]
        matched = ", ".join(f"{m.get('written') or m['pair']} ×{m['n']}" for m in pair["matched"])
        if pair["level"] in ("none", NO_TOPIC):
            parts.append(f"relevance: no KB pair for {topic} ~ {vehicle}")
            continue
        if pair["level"] == PROPERTY:
            trip = ", ".join(f"n={t['n']}, P={t['P']:.2f}" for t in pair["triplets"])
            parts.append(f"relevance [property]: no KB pair for {topic} ~ {vehicle}; {vehicle} is "
                         f"“{pair['property']}” in {matched} ({trip})" + _sources_text(pair["sources"]))
            continue
        trip = ", ".join(f"{t['property']} (n={t['n']}, P={t['P']:.2f})" for t in pair["triplets"])
        parts.append(f"relevance [{pair['level']}]: {matched}" + (f"; properties {trip}" if trip else "")
                     + _sources_text(pair["sources"]))
    for veh in ev.get("creativity", []):
        vehicle = veh.get("written") or veh["vehicle"]
        if veh["level"] == "none":
            parts.append(f"creativity: vehicle {vehicle} unseen in the KB")
            continue
        matched = ", ".join(f"{m.get('written') or m['vehicle']} ×{m['n']}" for m in veh["matched"])
        parts.append(f"creativity [{veh['level']}]: {matched}" + _sources_text(veh["sources"]))
    fit, lm = c.get("fit") or {}, c.get("lm") or {}
    if fit:
        parts.append(f"writer: log P({fit['vehicle']} | …{fit['context'][-40:]}) {fit['logp_context']:.1f} over "
                     f"{fit['tokens']} token{'s' if fit['tokens'] != 1 else ''} (fit {fit['fit']:.2f} a token)")
    if lm:
        parts.append(f"LM: log P({lm['vehicle']} | “{lm['generic_context']}”) {lm['logp_generic']:.1f}")
    nli, irony = c.get("nli") or {}, c.get("irony") or {}
    if irony:
        parts.append(f"ironic: the LM finds the vehicle likelier after “{irony['antonym']}” than after "
                     f"“{irony['property']}” ({irony['margin']:+.1f} nats), so the NLI read “{irony['reading']}”"
                     + (f"; the sentence itself says “{irony['property']}”, so the simile contradicts it"
                        if irony.get("states_property") else ""))
    stand = c.get("stand_in") or {}
    if stand.get("by") == "kb":
        parts.append(f"the simile stands for “{stand['adverb']}”, but the simile KB knows the vehicle as "
                     f"“{stand['antonym']}”, the opposite of “{stand['adjective']}”, so it contradicts the sentence")
    elif stand.get("antonym"):
        parts.append(f"the simile stands for “{stand['adverb']}”, but the LM finds the vehicle likelier after "
                     f"“{stand['antonym']}” than after “{stand['adjective']}” ({stand['margin']:+.1f} nats), so it "
                     "contradicts the sentence")
    elif stand.get("unsure"):
        parts.append(f"the simile stands for “{stand['adverb']}”; the LMs cannot tell whether its image suits "
                     f"“{stand['adjective']}” or its opposite, so the NLI read the candidate as written and its "
                     "contradiction does not rank it last")
    elif stand:
        parts.append(f"the simile stands for “{stand['adverb']}”, the words it replaces, and its image suits that: "
                     f"the NLI read “{stand['reading']}”")
    elif c.get("nli_read") and not irony:
        parts.append(f"the NLI read the simile as the property it states: “{c['nli_read']}”")
    if c.get("opposite"):
        parts.append(f"the sentence itself says “{c['opposite']}”, the opposite of the simile's property, so the "
                     "simile contradicts it")
    negated = c.get("negated") or {}
    if negated:
        parts.append(f"the sentence itself says “{negated['said']}”, so the simile "
                     + ("contradicts it" if negated["verdict"] == "contradicts" else "agrees with it")
                     + " (the NLI's verdict is not used)")
    if nli:
        parts.append(f"NLI: {nli['verdict']} (contradiction {nli['contradiction']:.2f})")
    return " · ".join(parts)





def _sources_text(sources: dict) -> str:
    top = list(sources.items())[:3]
    return (" — from " + ", ".join(f"{name} {n}" for name, n in top)) if top else ""


def _normalize_and_rank(rows: list[CandidateScore], settings: Settings) -> None:
    """Eq. 6-7 within the group's candidates that have a simile; then the three rankings and their combination."""
    valid = [r for r in rows if r.has_simile]
    if valid:
        r_n = C.minmax([r.relevance for r in valid])
        cl_n = C.minmax([r.logical_consistency for r in valid])
        cs_n = C.minmax([r.sentiment_consistency for r in valid])
        q = C.quality(r_n, cl_n, cs_n, settings.quality_weights)
        for row, a, b, c, qq in zip(valid, r_n, cl_n, cs_n, q):
            row.relevance_norm, row.logical_consistency_norm = float(a), float(b)
            row.sentiment_consistency_norm, row.quality = float(c), float(qq)
    gate = settings.contradiction_gate
    for row in rows:
        row.no_words = settings.off_sentence and _wordless(row)
        row.offensive = settings.off_sentence and row.has_simile and bool(offensive_words(_image(row) or "",
                                                                                          vehicle=True))
        p_c = None if row.logical_consistency is None else 1.0 - row.logical_consistency  # Eq. 4 read back
        # an image in the adverb's place the models are unsure of: the NLI reads a dropped word as a contradiction
        # whatever the image, so its verdict is shown, not acted on (only an ironic one is ranked last)
        row.contradicts = gate is not None and row.has_simile and p_c is not None and p_c >= gate \
            and not row.stand_in.get("unsure")
    ranking = C.combine_rankings([r.quality for r in rows], [r.creativity for r in rows],
                                 [r.informativeness for r in rows], [r.has_simile for r in rows], settings.rank_weights,
                                 after=[r.moved for r in rows])
    for k, row in enumerate(rows):
        row.rank_quality, row.rank_creativity = ranking.by_quality[k], ranking.by_creativity[k]
        row.rank_informativeness, row.combined_rank_score = ranking.by_informativeness[k], ranking.combined_score[k]
        row.rank = ranking.final[k]


def _image(row: CandidateScore) -> str | None:
    """The first simile's image (vehicle), or None."""
    return next((s.get("vehicle") for s in row.similes if s.get("vehicle")), None)


def _wordless(row: CandidateScore) -> bool:
    """Its image is an emoji or a sign ("as loud as a 🍋"), which the KB cannot know, so its creativity and relevance
    say nothing: it goes after the candidates whose images are words (a visitor's lemon beat "as loud as thunder")."""
    return row.has_simile and wordless_image(_image(row))


def sentiment_cut(literal: str, candidate: str, similes) -> tuple[str, str]:
    """The paper's rule for sentiment consistency: the simile is cut after its first vehicle and the literal sentence
    after its first event (so that a later clause, or a second topic-vehicle pair, does not sway the polarity).
    Without a vehicle (or an event found in the literal sentence) the whole sentence is used."""
    first = next((s for s in similes if s.vehicle and "vehicle" in s.spans), None)
    if first is None:
        return candidate, literal
    simile_cut = candidate[:first.spans["vehicle"][1]]
    literal_cut = literal
    if first.event:
        match = re.search(r"(?<!\w)" + re.escape(first.event) + r"(?!\w)", literal, flags=re.IGNORECASE)
        if match:
            literal_cut = literal[:match.end()]
    return simile_cut, literal_cut


def _unique_map(fn, items: list) -> list:
    """fn over the distinct items only (candidate lists repeat sentences), results in the original order."""
    distinct = list(dict.fromkeys(items))
    out = dict(zip(distinct, fn(distinct))) if distinct else {}
    return [out[x] for x in items]


def _settings_dict(settings: Settings) -> dict:
    alpha, beta, gamma = settings.quality_weights
    return {"alpha": alpha, "beta": beta, "gamma": gamma, "rank_weights": list(settings.rank_weights),
            "relevance": settings.relevance, "lm_relevance": settings.lm_relevance,
            "lm_creativity": settings.lm_creativity, "irony": settings.irony, "stated_property": settings.stated_property,
            "property_backoff": settings.property_backoff, "contradiction_gate": settings.contradiction_gate,
            "off_sentence": settings.off_sentence}


def _step(progress, fraction: float, what: str) -> None:
    if progress is not None:
        progress(fraction, what)


def table_rows(group: dict) -> list[dict]:
    """One flat row per candidate of a scored group (`GroupScore.to_dict()`), best first: what the CLI prints and the
    UI and CSV show."""
    rows = []
    for c in sorted(group["candidates"], key=lambda c: c["rank"]):
        first = next((s for s in c["similes"] if s.get("vehicle")), {})
        rows.append({
            "rank": c["rank"], "candidate": c["candidate"], "topic": first.get("topic"),
            "vehicle": first.get("vehicle"), "event": first.get("event"), "quality": _r(c["quality"]),
            "creativity": _r(c["creativity"]), "informativeness": _r(c["informativeness"]),
            "relevance": _r(c["relevance"]), "relevance_kb": _r(c.get("relevance_kb")), "relevance_norm": _r(c["relevance_norm"]),
            "logical_consistency": _r(c["logical_consistency"]),
            "logical_consistency_norm": _r(c["logical_consistency_norm"]),
            "sentiment_consistency": _r(c["sentiment_consistency"]),
            "sentiment_consistency_norm": _r(c["sentiment_consistency_norm"]),
            "kb_level": "/".join(dict.fromkeys(c["relevance_levels"] + c["creativity_levels"])) or "—",
            "nli_verdict": (c.get("nli") or {}).get("verdict"),
            "evidence": evidence_text(c),
            "flag": c["flag"],
            "contradicts": bool(c.get("contradicts")),
            "off_sentence": bool(c.get("off_sentence")),
            "no_words": bool(c.get("no_words")),
            "offensive": bool(c.get("offensive")),
        })
    return rows


def _r(x):
    return None if x is None else round(float(x), 4)
