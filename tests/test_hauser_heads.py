"""The committed offline heads: present, within budget, with the metrics their training script measured, and
sensible on obvious inputs (offline profile, real MiniLM features)."""
from __future__ import annotations

import json

import pytest

from studio.models.heads import has_head
from studio.models.specs import HEADS_DIR


@pytest.mark.parametrize("name, metric", [("nli", "flute_simile_test_accuracy"), ("sentiment", "sst2_dev_accuracy")])
def test_committed_head_within_budget_with_metrics(name, metric):
    folder = HEADS_DIR / name
    assert has_head(folder), f"run `python -m studio train {name}`"
    assert (folder / "head.safetensors").stat().st_size <= 5 * 2**20
    cfg = json.loads((folder / "head.json").read_text())
    assert 0.0 < cfg["metrics"][metric] <= 1.0 and cfg["metrics"]["seed"] == 13


def test_sentiment_head_meets_the_issue_target():
    cfg = json.loads((HEADS_DIR / "sentiment" / "head.json").read_text())
    assert cfg["metrics"]["sst2_dev_accuracy"] >= 0.80


@pytest.mark.offline
def test_offline_heads_on_obvious_inputs(offline):
    sentiment, nli = offline.get("sentiment"), offline.get("nli")
    assert "head" in sentiment.backend and "head" in nli.backend
    p = sentiment.p_positive(["a wonderful, moving and beautifully acted film", "a dull, boring and painful mess"])
    assert p[0] > 0.5 > p[1]
    probs = nli.predict(["A man is playing a guitar on stage."] * 2,
                        ["A man is playing an instrument.", "Nobody is playing anything."])
    assert probs.shape == (2, 3) and probs.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert probs[1, 2] > probs[0, 2]  # the denial is the likelier contradiction
