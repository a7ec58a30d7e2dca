"""Polish's language models: the polisher that scores every candidate (its prompt; `score_all`), the writer polisher
that proposes the lm source's vehicles, and the scored candidate (`Candidate`)."""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

from ..models import ModelUnavailable, get_registry


#: at most this many samples a slot of the lm source (sources.LM_OVERSAMPLE)
LM_MAX_SAMPLES = 64
#: samples a slot of the writer polisher (`polish_writer`), which proposes the lm source's vehicles when it serves;
#: why: docs/experiments.md#polish-writer-polisher
WRITER_POLISHER_SAMPLES = 32


PROMPT = "Literal: {literal}\nSimile:"  # the polisher's prompt, served here and trained on (polish_data.prompt)
_FEW_SHOT = ("Literal: The baby slept.\nSimile: The baby slept like a log.\n"
             "Literal: The old man was very stubborn.\nSimile: The old man was as stubborn as a mule.\n"
             "Literal: Her voice rang out across the hall.\nSimile: Her voice rang out across the hall like a bell.\n")


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


def prompt(literal: str, trained: bool) -> str:
    return ("" if trained else _FEW_SHOT) + PROMPT.format(literal=literal.strip())


def score_all(lm, trained, literal, groups, step=None) -> list[Candidate]:
    """Every member scored by the polisher: the phrase and the word after it, given the prompt and the sentence
    before the slot (one shared context per slot); the best member of each group is its candidate."""
    flat = [r for members in groups for r in members]
    if not flat:
        return []
    base = prompt(literal, trained) + " "
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
