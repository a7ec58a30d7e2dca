"""The judge's storage and scoring (an average of pairwise scorers) and its training pieces, on the tiny profile."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from studio.continuation import train
from studio.continuation.data import Item
from studio.continuation.features import Case
from studio.continuation.judge import Judge, option_dim
from studio.models.judge_head import load_judge, save_judge
from studio.models import get_registry
from studio.models import heads as heads_io


def _member(dim: int, hidden: int, seed: int):
    torch.manual_seed(seed)
    return heads_io.build_module(heads_io.HeadConfig("single", dim, hidden, ["plausibility"])).eval()


def test_ensemble_round_trip_averages_member_scores(tmp_path):
    embedder = get_registry().get("embedder")
    dim = option_dim(embedder.dim)
    members = [("linear", 0, _member(dim, 0, 1)), ("mlp", 8, _member(dim, 8, 2))]
    save_judge(tmp_path, members, embedder=embedder.model_id, notes="test judge", metrics={"x": 1})
    cfg, modules = load_judge(tmp_path)
    assert [m["name"] for m in cfg.members] == ["linear", "mlp"] and cfg.metrics == {"x": 1}
    judge = Judge(cfg, modules, embedder)
    case = Case("He slept like a log. The alarm rang.", "like a log", "deeply", "simile")
    options = ["He woke up rested.", "He had not slept at all.", "The log burned."]
    scores = judge.scores([case], [options])[0]
    single = [Judge(cfg, [m], embedder).scores([case], [options])[0] for _, _, m in members]
    assert np.allclose(scores, np.mean(single, axis=0), atol=1e-5)
    j = judge.pairs([case], options[:1], options[1:2])[0]
    assert j.p_option2 == pytest.approx(1 / (1 + np.exp(-(scores[1] - scores[0]))), abs=1e-5)
    assert j.p_option1 + j.p_option2 == pytest.approx(1.0)


def test_pairwise_fit_learns_a_separable_preference():
    rng = np.random.default_rng(0)
    f1, f2 = rng.normal(size=(400, 6)).astype(np.float32), rng.normal(size=(400, 6)).astype(np.float32)
    y = (f2[:, 0] > f1[:, 0]).astype(np.float32)  # the plausible option is the one with the larger first feature
    for hidden in (0, 8):
        _, module = train.fit(f1, f2, y, hidden, epochs=150, weight_decay=0.0)
        assert np.mean((train.margin(module, f1, f2) > 0) == (y > 0.5)) > 0.9


def test_inner_folds_keep_an_expression_together():
    def item(kind, expr, narrative):
        return Item(kind, narrative, expr, "", "a", "b", 0)

    same_idiom = [item("idiom", "spill the beans", f"Story {i}.") for i in range(5)]
    assert len({train.inner_fold(it) for it in same_idiom}) == 1
    folds = {train.inner_fold(item("idiom", f"idiom {i}", "x")) for i in range(60)}
    assert folds == set(range(train.INNER_FOLDS))
