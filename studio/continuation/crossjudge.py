"""The judge that reads the narrative: a cross-encoder over "narrative [SEP] option" (studio.models.pair_encoder:
all-mpnet-base-v2 with low-rank factors on its layers and a linear scorer), trained pairwise — a 2-way softmax over
s(option1), s(option2) against the gold `correctanswer` — on the train part of ../shared/data/figurative (idioms
and similes together; data.split3: split by expression into train / dev / test).

Its training and the measures on the benchmark are studio/lab/continuation/judge_train.py.
"""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ..models import ModelUnavailable, get_registry
from ..paths import ASSETS
from ..models.pair_encoder import load_pair_encoder_members, read_calibration
from ..models.pair_folder import has_pair_encoder
from ..models.specs import CROSS_JUDGE as CROSS_DIR  # the registry's `judge_cross` role serves it
from .judgement import RESTATEMENT_PENALTY, Judgement, case_for, restates

ABLATION_DIR = ASSETS / "continuation" / "judge-ablation"
_lock = threading.Lock()
_loaded: dict[str, object] = {}


def _encode(tok, narratives: list[str] | None, options: list[str], max_length: int):
    if narratives is None:
        return tok(options, truncation=True, max_length=max_length, padding=True, return_tensors="pt")
    x = tok(narratives, options, truncation="only_first", max_length=max_length, padding=True, return_tensors="pt")
    if "token_type_ids" not in x:  # MPNet marks no segments: the option's tokens (pooled by the scorer) from the pair
        import torch

        x["token_type_ids"] = torch.tensor([[int(s == 1) for s in x.sequence_ids(i)] for i in range(len(options))])
    return x


def raw_scores(model, tok, narratives, options, max_length: int, batch: int = 32) -> np.ndarray:
    import torch

    out = []
    with torch.inference_mode():
        for i in range(0, len(options), batch):
            x = _encode(tok, None if narratives is None else narratives[i:i + batch], options[i:i + batch],
                        max_length)
            out.append(model(**x).float().numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


class CrossJudge:
    """The served judge: scores / pairs / rank of continuations; Case.knowledge (the meaning) is not read."""

    def __init__(self, members: list[tuple], temperature: float = 1.0):
        """`members`: [(config, tokenizer, model)] of one recipe's runs (seeds); their scores are averaged, then
        divided by `temperature` (fitted on dev, models/pair_encoder.read_calibration) before any softmax, so
        that a probability of 0.8 means right about 8 times in 10; the choice does not depend on it."""
        self.members = list(members)
        self.temperature = float(temperature)
        config = self.config = self.members[0][0]
        self.name = config.get("notes", "cross-encoder judge") + (
            f", {len(self.members)} seeds averaged" if len(self.members) > 1 else "")
        self.metrics = (config.get("metrics", {}) if len(self.members) == 1
                        else {"members (dev, at training)": [c.get("metrics", {}) for c, _, _ in self.members]})
        self.reads_narrative = config.get("inputs", "narrative") == "narrative"

    def scores(self, cases, options: list[list[str]]) -> list[np.ndarray]:
        narr, opts, owner = [], [], []
        for i, (case, os_) in enumerate(zip(cases, options)):
            for o in os_:
                narr.append(case.narrative)
                opts.append(o)
                owner.append(i)
        if not opts:
            return [np.zeros(0) for _ in cases]
        s = np.mean([raw_scores(model, tok, narr if self.reads_narrative else None, opts, int(config["max_length"]))
                     for config, tok, model in self.members], axis=0)
        owner = np.array(owner)
        return [s[owner == i] for i in range(len(cases))]

    def pairs(self, cases, option1, option2):
        """One calibrated Judgement per (case, option1, option2); an option that only restates the narrative's last
        sentence loses `judgement.RESTATEMENT_PENALTY` nats of log-odds against one that does not."""
        out = []
        for case, a, b, s in zip(cases, option1, option2,
                                 self.scores(cases, [[a, b] for a, b in zip(option1, option2)])):
            said_again = (restates(a, case.narrative), restates(b, case.narrative))
            shift = RESTATEMENT_PENALTY * (float(said_again[1]) - float(said_again[0]))
            p2 = float(1.0 / (1.0 + np.exp(-((s[1] - s[0]) / self.temperature - shift))))
            out.append(Judgement(1.0 - p2, p2, said_again))
        return out

    def rank(self, narrative: str, options: list[str], expr=None) -> np.ndarray:
        s = self.scores([case_for(narrative, expr)], [options])[0] / self.temperature
        e = np.exp(s - s.max())
        return e / e.sum()


def get_cross_judge(folder: Path = CROSS_DIR) -> CrossJudge | None:
    """The served cross-encoder judge (the registry's `judge_cross` role), or, for another folder (the ablation,
    evaluation only), that folder's model."""
    if Path(folder) == CROSS_DIR:
        try:
            role = get_registry().get("judge_cross")
        except ModelUnavailable:
            return None
        with _lock:
            if _loaded.get("served", (None,))[0] is not role:  # one wrapper per loaded role
                _loaded["served"] = (role, CrossJudge(role.parts, role.temperature))
            return _loaded["served"][1]
    key = str(folder)
    with _lock:
        if key not in _loaded:
            _loaded[key] = (CrossJudge(load_pair_encoder_members(folder), read_calibration(folder)[0])
                            if has_pair_encoder(folder) else None)
        return _loaded[key]
