"""Judge features: how an option relates to the narrative, its last sentence, the expression and the
expression's meaning/property, all read off frozen `embedder` vectors (L2-normalized, so u*v sums to cosine)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .text import last_sentence

#: the texts an option is compared with; "literal" is the last sentence with the expression replaced by its
#: meaning/property, which says what the narrative means rather than what it says
CONTEXTS = ("narrative", "last_sentence", "knowledge", "expression", "literal")


@dataclass
class Case:
    """One judgement: a narrative, its expression (may be ""), the expression's meaning/property (may be "")."""
    narrative: str
    expression: str
    knowledge: str
    kind: str  # "idiom" | "simile" | "" (unknown)

    def context_texts(self) -> list[str]:
        last = last_sentence(self.narrative)
        return [self.narrative, last, self.knowledge, self.expression, literal_sentence(last, self.expression,
                                                                                        self.knowledge)]


def literal_sentence(sentence: str, expression: str, knowledge: str) -> str:
    """The sentence with the expression replaced by its meaning ("" when either is unknown or absent)."""
    core = expression.strip().rstrip(".").strip()
    meaning = knowledge.split(" / ")[0].strip().rstrip(".")
    i = sentence.lower().rfind(core.lower()) if core else -1
    if i < 0 or not meaning:
        return ""
    return f"{sentence[:i]}{meaning[:1].lower()}{meaning[1:]}{sentence[i + len(core):]}"


def option_features(contexts: np.ndarray, option: np.ndarray, present: np.ndarray) -> np.ndarray:
    """contexts (n, c, d), option (n, d), present (n, c) 0/1 -> (n, (c+1)*d + c): the option itself, its
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
