"""The committed offline sentiment head: present, within budget, accurate on a sample recomputed here; the offline
sentiment and NLI sensible on obvious inputs (offline profile, real MiniLM features)."""
from __future__ import annotations

import json

import pytest

from studio.models.heads import has_head
from studio.shared_data import shared_data_dir
from studio.models.specs import HEADS_DIR


def test_committed_head_within_budget():
    folder = HEADS_DIR / "sentiment"
    assert has_head(folder), "run `python -m studio train sentiment`"
    assert (folder / "head.safetensors").stat().st_size <= 5 * 2**20
    assert json.loads((folder / "head.json").read_text())["metrics"]["seed"] == 13


SST2_DEV = shared_data_dir() / "sentiment" / "sst2_dev.tsv"


@pytest.mark.offline
@pytest.mark.skipif(not SST2_DEV.is_file(), reason="SST-2 (../shared/data/sentiment) is not available")
def test_sentiment_head_recomputed_on_a_sample_meets_the_issue_target(offline):
    """40 SST-2 dev sentences through the served head (not the accuracy written in head.json): the issue's 80 %
    target, with room for a 40-row sample."""
    import csv

    with open(SST2_DEV, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))[:40]
    p = offline.get("sentiment").p_positive([r["content"] for r in rows])
    accuracy = sum((x > 0.5) == (r["label"] == "1") for x, r in zip(p, rows)) / len(rows)
    assert accuracy >= 0.75, accuracy


@pytest.mark.offline
def test_offline_heads_on_obvious_inputs(offline):
    sentiment, nli = offline.get("sentiment"), offline.get("nli")
    assert "head" in sentiment.backend and "cross-encoder" in nli.backend
    p = sentiment.p_positive(["a wonderful, moving and beautifully acted film", "a dull, boring and painful mess"])
    assert p[0] > 0.5 > p[1]
    probs = nli.predict(["A man is playing a guitar on stage."] * 2,
                        ["A man is playing an instrument.", "Nobody is playing anything."])
    assert probs.shape == (2, 3) and probs.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert probs[1, 2] > probs[0, 2]  # the denial is the likelier contradiction



def test_a_sentiment_override_folder_picks_its_backend():
    """The served offline sentiment is the linear head; a head folder or `vader` is selectable, any other folder is
    read as a transformers classifier."""
    from studio.models.specs import PROFILE_SPECS, spec_for

    assert PROFILE_SPECS["offline"]["sentiment"].backend == "embedding_head_or_vader"
    assert spec_for("offline", "sentiment", str(HEADS_DIR / "sentiment")).backend == "embedding_head_sentiment"
    assert spec_for("offline", "sentiment", str(HEADS_DIR / "nli-cross")).backend == "transformers_sentiment"
    assert spec_for("offline", "sentiment", "vader").backend == "vader"
