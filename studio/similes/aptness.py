"""How likely a writer is to keep a Polish candidate: a logistic model over what the polisher already knows about it
(its fluency score, the source, whether the simile KB attests the vehicle for the adjective) and how well the
vehicle goes with the sentence (cosines of the `embedder`'s vectors: the vehicle against "something ADJ" or
"something that VERB", against the sentence, against its subject and against "a person").

The polisher's score says how fluently a vehicle reads, not whether it is apt ("as steady as a drum" reads as well as
"as steady as a rock"); the cosine of "something tangy" and "a lime" says what the fluency does not. The weights are
fitted on our own blind reads' labels (`blind_reads/polish_blind_read_*.json`, each candidate judged usable or not by a
reader) by `python -m studio train polish-ranker` (aptness_train.py, never imported here) and served by the
registry as the `polish_ranker` role (assets/similes/polish_ranker.json). Without the asset Polish ranks by the
score as before.

Pure logic: no model library, no file access (the weights come in as a dict, the vectors from `encode`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

#: the features, in the order of the weights (aptness_train.py writes them with the weights; a mismatch is refused)
FEATURES = ("log_score", "attested", "lm", "retrieval", "property", "clause", "adjective",
            "cue_cos_adjective", "cue_cos_verb", "sentence_cos", "subject_cos", "person_cos", "words", "definite")
#: the writer's reread (`reread_features`): keep's features and two of the writer's, its log-likelihood per token of the
#: simile's words after the comparison word, and that value's z-score among the candidates it read together.
#: why: docs/experiments.md#polish-learned-reread-served
REREAD_FEATURES = FEATURES + ("writer_per_token", "writer_z")
#: a vehicle close to this is a bare person ("a man", "my sister"): rarely an image
#: why: docs/experiments.md#polish-keep-ranker
PERSON = "a person"


@dataclass(frozen=True)
class Item:
    """What the model reads of one candidate."""
    vehicle: str
    score: float        # the polisher's score (0..1)
    strategy: str
    attested: bool
    kind: str           # "adjective" or "verb": the slot the comparison fills
    cue: str            # the adjective ("loud", "proud of his garden") or the verb as the sentence has it ("rumbled")
    clause: bool        # an "as if" / "as though" clause rather than a noun phrase


def noun_subject(doc):
    """The sentence's first noun subject token ("The old bridge groaned" → bridge), or None (a pronoun, none)."""
    return next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ in ("NOUN", "PROPN")), None)


def subject_of(doc) -> str | None:
    """The noun subject as written, what `features` compares the vehicle with."""
    token = noun_subject(doc)
    return None if token is None else token.text


def cue_text(kind: str, cue: str) -> str:
    """The phrase the vehicle is compared with: "something loud", "something that rumbled"."""
    return f"something {cue}" if kind == "adjective" else f"something that {cue}"


def features(items: Sequence[Item], literal: str, subject: str | None,
             encode: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """One row of FEATURES per item. `encode` maps texts to vectors (normalised here); `subject` is the sentence's
    subject noun or None."""
    if not items:
        return np.zeros((0, len(FEATURES)))
    cues = sorted({cue_text(i.kind, i.cue) for i in items})
    vehicles = sorted({i.vehicle for i in items})
    texts = [literal, PERSON] + ([subject] if subject else []) + cues + vehicles
    vectors = np.asarray(encode(texts), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    at = {t: vectors[k] for k, t in enumerate(texts)}
    rows = []
    for i in items:
        v = at[i.vehicle]
        cue_cos = float(v @ at[cue_text(i.kind, i.cue)])
        words = i.vehicle.split()
        rows.append([
            math.log(max(i.score, 1e-6)), float(i.attested),
            float(i.strategy == "lm"), float(i.strategy == "retrieval"), float(i.strategy == "property"),
            float(i.clause), float(i.kind == "adjective"),
            cue_cos if i.kind == "adjective" else 0.0, 0.0 if i.kind == "adjective" else cue_cos,
            float(v @ at[literal]), float(v @ at[subject]) if subject else 0.0, float(v @ at[PERSON]),
            float(min(len(words), 8)), float(bool(words) and words[0].lower() == "the"),
        ])
    return np.asarray(rows)


def reread_features(x: np.ndarray, per_token: Sequence[float]) -> np.ndarray:
    """Rows of REREAD_FEATURES: keep's rows `x` and, per row, the writer's log-likelihood per token of the simile
    (-inf where it has none: no comparison word) and its z-score among these rows. A row without a value takes the
    rows' mean less three deviations, as the fit did."""
    v = np.asarray(per_token, dtype=np.float64)
    finite = np.isfinite(v)
    mean, sd = (float(v[finite].mean()), float(v[finite].std()) + 1e-6) if finite.any() else (0.0, 1.0)
    v = np.where(finite, v, mean - 3 * sd)
    return np.column_stack([np.asarray(x, dtype=np.float64).reshape(len(v), -1), v, (v - mean) / sd])


def p_keep(weights: dict, x: np.ndarray, features: Sequence[str] = FEATURES) -> np.ndarray:
    """P(a writer keeps it) per row: sigmoid(w · (x − mean) / scale + b), as fitted. `features` names x's columns
    (FEATURES, or REREAD_FEATURES for the reread's weights); weights fitted on others are refused."""
    if list(weights["features"]) != list(features):
        raise ValueError("the ranker's weights were fitted on other features; run `python -m studio train "
                         "polish-ranker`")
    z = (x - np.asarray(weights["mean"])) / np.asarray(weights["scale"])
    return 1.0 / (1.0 + np.exp(-(z @ np.asarray(weights["coef"]) + float(weights["intercept"]))))
