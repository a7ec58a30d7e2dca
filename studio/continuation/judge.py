"""The plausibility judge (the paper's discriminative task): a scorer over frozen `embedder` features of the
option against the narrative, its last sentence, the expression and its meaning/property (studio.continuation.
features), trained pairwise — P(option a is the plausible one) = sigmoid(s(a) - s(b)) — on the training part of
../shared/data/figurative (`python -m studio train judge`). Among N continuations the scores give Bradley–Terry
probabilities (a softmax), which is how generate-then-rank orders its samples."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from ..models import get_registry
from ..models.config import ASSETS
from ..models import heads as heads_io
from .features import Case, embed_cases, option_features

JUDGE_DIR = ASSETS / "continuation" / "judge"
_lock = threading.Lock()
_loaded: dict[str, "Judge"] = {}


@dataclass
class Judgement:
    p_option1: float
    p_option2: float

    @property
    def choice(self) -> str:
        return "option1" if self.p_option1 >= self.p_option2 else "option2"


class Judge:
    def __init__(self, cfg, module, embedder):
        self.cfg, self.module, self.embedder = cfg, module, embedder
        self.name = f"{cfg.notes} ({embedder.model_id})"

    def _scores(self, contexts, options, present) -> np.ndarray:
        import torch

        with torch.inference_mode():
            return self.module(torch.from_numpy(option_features(contexts, options, present))).squeeze(-1).numpy()

    def scores(self, cases: list[Case], options: list[list[str]], encode=None) -> list[np.ndarray]:
        """Scores of each case's options (any number per case)."""
        encode = encode or self.embedder.encode
        flat_cases, flat_opts, owner = [], [], []
        for i, (case, opts) in enumerate(zip(cases, options)):
            for o in opts:
                flat_cases.append(case)
                flat_opts.append(o)
                owner.append(i)
        if not flat_opts:
            return [np.zeros(0) for _ in cases]
        ctx, o1, _, present = embed_cases(flat_cases, flat_opts, flat_opts[:1] * len(flat_opts), encode)
        s = self._scores(ctx, o1, present)
        owner = np.array(owner)
        return [s[owner == i] for i in range(len(cases))]

    def pairs(self, cases: list[Case], option1: list[str], option2: list[str], encode=None) -> list[Judgement]:
        out = []
        for s in self.scores(cases, [[a, b] for a, b in zip(option1, option2)], encode):
            p2 = float(1.0 / (1.0 + np.exp(-(s[1] - s[0]))))
            out.append(Judgement(1.0 - p2, p2))
        return out

    def rank(self, narrative: str, options: list[str], expr=None) -> np.ndarray:
        case = case_for(narrative, expr)
        s = self.scores([case], [options])[0]
        e = np.exp(s - s.max())
        return e / e.sum()


def case_for(narrative: str, expr=None) -> Case:
    if expr is None:
        return Case(narrative, "", "", "")
    return Case(narrative, expr.text, expr.meaning or "", expr.kind)


def get_judge() -> Judge | None:
    """The committed judge for the registry's embedder, or None when it is not trained (or was trained on
    another embedder: its features would be meaningless)."""
    if not heads_io.has_head(JUDGE_DIR):
        return None
    embedder = get_registry().get("embedder")
    with _lock:
        if embedder.model_id not in _loaded:
            cfg, module = heads_io.load_head(JUDGE_DIR)
            if cfg.embedder != embedder.model_id or cfg.input_dim != option_dim(embedder.dim):
                return None
            _loaded[embedder.model_id] = Judge(cfg, module, embedder)
        return _loaded[embedder.model_id]


def option_dim(d: int) -> int:
    from .features import CONTEXTS

    return (len(CONTEXTS) + 1) * d + len(CONTEXTS)


def judge_pair(narrative: str, option1: str, option2: str, *, expression: str | None = None,
               kind: str | None = None, meaning: str | None = None) -> dict:
    from ..errors import InputError, require_text
    from ..models import ModelUnavailable
    from .expression import Expression, find_expression

    started = time.perf_counter()
    narrative = require_text(narrative, "narrative", 4000)
    option1 = require_text(option1, "option 1", 600)
    option2 = require_text(option2, "option 2", 600)
    judge = get_judge()
    if judge is None:
        raise ModelUnavailable("judge", "the plausibility judge is not trained for this embedder",
                               "run `python -m studio train judge`")
    text, expr = find_expression(narrative)
    if expression:
        kind = kind if kind in ("idiom", "simile") else (expr.kind if expr else "idiom")
        expr = Expression(kind, expression, 0, 0, meaning=meaning or (expr.meaning if expr else ""), source="given")
        if not expr.meaning and kind == "idiom":
            from .lexicon import get_lexicon

            expr.meaning = get_lexicon().meaning(expression) or ""
    elif expr is not None and meaning:
        expr.meaning = meaning
    j = judge.pairs([case_for(text, expr)], [option1], [option2])[0]
    if not all(np.isfinite([j.p_option1, j.p_option2])):
        raise InputError("The judge could not score these texts.")
    return {"p_option1": round(j.p_option1, 4), "p_option2": round(j.p_option2, 4), "choice": j.choice,
            "expression": expr.to_dict() if expr else None, "seconds": round(time.perf_counter() - started, 3)}
