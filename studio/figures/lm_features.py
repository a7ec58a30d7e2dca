"""Language models' side of HAUSER: what a knowledge base of a few thousand similes cannot say about a vehicle it has
never seen. For each candidate's first vehicle:

  fit        log P(vehicle | all of the candidate's words before it), per vehicle token, from the `writer` (the
             largest LM the studio serves): how well the vehicle fits this topic, event and property. It backs the
             KB's relevance off (criteria.relevance_with_prior): "he sank like" → " a stone" −0.55 a token, " an empty
             barrel" −2.9. Per token, so that a longer vehicle is not less relevant for its length.
  generic    log P(vehicle | "Like"), the same context for every simile, from the small `lm`: the vehicle's base rate
             as an image; its surprisal backs off the KB's vehicle frequency in creativity
             (criteria.creativity_with_prior).

Relevance once used the small LM's PMI (in context minus generic). The PMI holds the vehicle's surprisal, which is
creativity, not fit: it ranked "sank like an empty barrel" above "sank like a stone", agreed with the paper's own
relevance part at 0.02 within a literal, and fell from 0.39 with people's quality on our rated rows to 0.11 on
unseen ones (why: docs/experiments.md#hauser-relevance-fit).

Cost: the candidates of one literal share their first words, so the words they have in common run once and each
candidate adds only its own words up to the vehicle's end, of which only the vehicle's tokens are scored; the generic
context runs once for all the vehicles; each is one `loglik_many` call (one decode on llama.cpp). Everything is
memoised per (words before, vehicle).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass

_MEMO_LIMIT = 200_000
#: the context of the generic log-probability (creativity's surprisal): the same for every simile, so that it measures
#: the vehicle's base rate as an image (a property in it, "As quiet as", would take the fit to the property out of it)
#: why: docs/experiments.md#hauser-generic-context
GENERIC_CONTEXT = "Like"


@dataclass(frozen=True)
class VehicleLM:
    """The small LM's generic view of a vehicle: log P(vehicle | "Like")."""
    vehicle: str
    generic_context: str
    logp_generic: float
    tokens: int

    @property
    def surprisal(self) -> float:
        return -self.logp_generic

    def to_dict(self) -> dict:
        return {"vehicle": self.vehicle, "generic_context": self.generic_context,
                "logp_generic": round(self.logp_generic, 4), "surprisal": round(self.surprisal, 4),
                "tokens": self.tokens}


@dataclass(frozen=True)
class VehicleFit:
    """A language model's log P(vehicle | the candidate's words before it), and its mean over the vehicle's tokens."""
    vehicle: str
    context: str
    logp_context: float
    tokens: int

    @property
    def fit(self) -> float:
        return self.logp_context / max(1, self.tokens)

    def to_dict(self) -> dict:
        return {"vehicle": self.vehicle, "context": self.context, "logp_context": round(self.logp_context, 4),
                "tokens": self.tokens, "fit": round(self.fit, 4)}


def first_vehicle(similes):
    """The first simile with a located vehicle, or None."""
    return next((s for s in similes if s.vehicle and "vehicle" in s.spans), None)


def contexts(candidate: str, simile) -> tuple[str, str, str]:
    """(the words before the vehicle, generic context, vehicle with its leading space) of one candidate's simile."""
    a, b = simile.spans["vehicle"]
    return " ".join(candidate[:a].split()), GENERIC_CONTEXT, " " + " ".join(candidate[a:b].split())


#: marks that end the clause a fronted simile's image is read after ("Like ink, the night was dark, and …")
_CLAUSE_END = re.compile(r"[,;:.!?…]")


def fit_contexts(candidate: str, simile) -> tuple[str, str, str]:
    """`contexts`, but a simile that opens the sentence, its image followed by a comma ("Like ink, the night was
    dark."), is read after the clause it opens and its comparator ("the night was dark like"): before the bare "Like"
    the image has no sentence to fit (log P(ink | "Like") −18.6 put such a line last in Rerank). Not in quoted speech
    ('“Like ink,” she said, …'), where the clause after the comma is another's. The writer's fit only: the irony
    check compares its own contexts in `contexts`' form. Why: docs/experiments.md#hauser-fronted-fit"""
    before, generic, vehicle = contexts(candidate, simile)
    a, b = simile.spans["vehicle"]
    c0, c1 = simile.spans.get("comparator", (a, a))
    rest = candidate[b:].lstrip()
    if c1 > a or candidate[:c0].strip() or not rest.startswith(",") or re.search(r"[\"“”«»]", candidate):
        return before, generic, vehicle
    clause = _CLAUSE_END.split(rest[1:], maxsplit=1)[0].strip()
    if not clause:
        return before, generic, vehicle
    said = " ".join(candidate[c0:c1].split())
    return " ".join(f"{clause} {said[:1].lower()}{said[1:]}".split()), generic, vehicle


def common_words(texts: list[str]) -> str:
    """The longest run of whole words every text starts with ("" when they differ in the first word)."""
    words = [t.split(" ") for t in texts]
    n = 0
    while all(len(w) > n + 1 for w in words) and len({w[n] for w in words}) == 1:
        n += 1  # the last word of each text stays out, so that every text keeps a word of its own
    return " ".join(words[0][:n]) if words else ""


class LMFeatures:
    """Vehicle log-probabilities from a registry `LanguageModel` (its `loglik_shared`), memoised."""

    def __init__(self, lm):
        self.lm = lm
        self._memo: dict[tuple[str, str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()  # concurrent requests share the memo (the LM itself serves one call at a time)

    @property
    def description(self) -> str:
        return self.lm.backend or type(self.lm).__name__

    def _located(self, items) -> list:
        out = []
        for group, candidate, similes in items:
            s = first_vehicle(similes)
            out.append((group, *fit_contexts(candidate, s)) if s is not None else None)
        return out

    def _room(self, n: int) -> None:
        if len(self._memo) + n > _MEMO_LIMIT:
            self._memo.clear()

    def features(self, items) -> list[VehicleLM | None]:
        """items: (group, candidate, similes) triples; one VehicleLM (the generic log-probability) per item, None
        without a located vehicle."""
        return self._views(items, generic=True)

    def fits(self, items) -> list[VehicleFit | None]:
        """items: (group, candidate, similes) triples, the candidates of one literal under one group key; one
        VehicleFit per item (None without a located vehicle)."""
        return self._views(items, generic=False)

    def _views(self, items, generic: bool) -> list:
        located = self._located(items)
        with self._lock:
            self._room(len(located))
            self._compute([x for x in located if x is not None], in_context=not generic, generic=generic)
            out = []
            for x in located:
                if x is None:
                    out.append(None)
                elif generic:
                    _, _, context, vehicle = x
                    value, n = self._memo[("gen", context, vehicle)]
                    out.append(VehicleLM(vehicle.strip(), context, value, n))
                else:
                    _, before, _, vehicle = x
                    value, n = self._memo[("ctx", before, vehicle)]
                    out.append(VehicleFit(vehicle.strip(), before, value, n))
        return out

    def in_context(self, asks) -> list[float]:
        """log P(vehicle | words before it) of (group, words before, vehicle) triples, in the form `contexts` gives
        them; memoised, and the asks of one group that start alike share a pass."""
        with self._lock:
            self._room(len(asks))
            self._compute([(group, before, None, vehicle) for group, before, vehicle in asks], in_context=True,
                          generic=False)
            return [self._memo[("ctx", before, vehicle)][0] for _, before, vehicle in asks]

    def known(self, asks) -> dict:
        """{(group, words before, vehicle): log P(vehicle | words before it)} of the asks the memo holds; no LM call."""
        with self._lock:
            return {ask: self._memo[("ctx", ask[1], ask[2])][0] for ask in asks
                    if ("ctx", ask[1], ask[2]) in self._memo}

    def _compute(self, located, in_context: bool, generic: bool) -> None:
        """What the memo lacks of `located` (group, words before, generic context, vehicle), in one call to the LM's
        `loglik_many` (one decode on llama.cpp): with `in_context`, log P(vehicle | words before it) per group and
        first two words (their common words once, then per candidate the rest of its words and the vehicle, of which
        only the vehicle's tokens are scored); with `generic`, log P(vehicle | the generic context), that context
        once for all."""
        groups: dict = {}
        for group, before, _, vehicle in located if in_context else ():
            if ("ctx", before, vehicle) not in self._memo:  # candidates of a group that start alike share a pass
                groups.setdefault((group, " ".join(before.split()[:2])), {})[(before, vehicle)] = None
        asks, keys = [], []
        for todo in groups.values():
            todo = list(todo)
            shared = common_words([before for before, _ in todo])
            rests = [before[len(shared):] for before, _ in todo]
            conts = [rest + vehicle for rest, (_, vehicle) in zip(rests, todo)]
            tails = [max(1, self._tokens(c) - self._tokens(rest)) for c, rest in zip(conts, rests)]
            asks.append((shared, conts, tails))
            keys.append([("ctx", before, vehicle) for before, vehicle in todo])
        by_context: dict[str, dict] = {}
        for _, _, context, vehicle in located if generic else ():
            if ("gen", context, vehicle) not in self._memo:
                by_context.setdefault(context, {})[vehicle] = None
        for context, vehicles in by_context.items():
            asks.append((context, list(vehicles), None))
            keys.append([("gen", context, vehicle) for vehicle in vehicles])
        for ask_keys, values in zip(keys, self.lm.loglik_many(asks) if asks else []):
            for key, (value, n) in zip(ask_keys, values):
                self._memo[key] = (float(value), int(n))

    def _tokens(self, text: str) -> int:
        return len(self.lm.tokenizer(text, add_special_tokens=False)["input_ids"]) if text else 0


_SHARED: dict[int, LMFeatures] = {}


def shared(lm) -> LMFeatures:
    """One memoising LMFeatures per loaded LM, so that a warm Rerank reuses what earlier calls computed."""
    feats = _SHARED.get(id(lm))
    if feats is None or feats.lm is not lm:
        feats = _SHARED[id(lm)] = LMFeatures(lm)
    return feats
