"""Judge features: how an option relates to the narrative, its last sentence, the expression and the
expression's meaning/property, all read off frozen `embedder` vectors (L2-normalized, so u*v sums to cosine)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .text import last_sentence

#: the texts an option is compared with
CONTEXTS = ("narrative", "last_sentence", "knowledge", "expression")


@dataclass
class Case:
    """One judgement: a narrative, its expression (may be ""), the expression's meaning/property (may be "")."""
    narrative: str
    expression: str
    knowledge: str
    kind: str  # "idiom" | "simile" | "" (unknown)

    def context_texts(self) -> list[str]:
        return [self.narrative, last_sentence(self.narrative), self.knowledge, self.expression]


def option_features(contexts: np.ndarray, option: np.ndarray, present: np.ndarray) -> np.ndarray:
    """contexts (n, 4, d), option (n, d), present (n, 4) 0/1 -> (n, 5*d + 4): the option itself, its
    elementwise products with each context (zero where the context is missing) and the cosines."""
    prod = contexts * option[:, None, :] * present[:, :, None]
    return np.concatenate([option, prod.reshape(len(option), -1), prod.sum(-1)], axis=1).astype(np.float32)


def kind_onehot(kinds: list[str]) -> np.ndarray:
    return np.array([[k == "idiom", k == "simile"] for k in kinds], dtype=np.float32)


def embed_cases(cases: list[Case], options1: list[str], options2: list[str], encode) -> tuple[np.ndarray, ...]:
    """(contexts (n,4,d), option1 (n,d), option2 (n,d), present (n,4)) using `encode(texts) -> (m,d)`."""
    texts, index = [], {}

    def slot(t: str) -> int:
        if t not in index:
            index[t] = len(texts)
            texts.append(t)
        return index[t]

    ctx_ids = [[slot(t) for t in c.context_texts()] for c in cases]
    o1 = [slot(t) for t in options1]
    o2 = [slot(t) for t in options2]
    vecs = encode(texts)
    present = np.array([[1.0 if t.strip() else 0.0 for t in c.context_texts()] for c in cases], dtype=np.float32)
    return vecs[np.array(ctx_ids)], vecs[np.array(o1)], vecs[np.array(o2)], present
