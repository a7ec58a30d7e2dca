"""The learned proverb scorer with the offline profile's real retrieval embedder (all-mpnet-base-v2)."""
from __future__ import annotations

import pytest

from studio.models.proverbs_head import SCORER_CONFIG, SCORER_WEIGHTS

pytestmark = pytest.mark.offline

# written for the tests; each illustrates one ePiC proverb without naming it
CASES = [
    ("Tom put his entire savings into shares of one small company and ignored advice to spread the money around. "
     "A year later the company went bankrupt and he lost everything.", "Q4"),
    ("Every evening for a year Priya played the same piano piece again and again. At first she stumbled over every "
     "bar, but at the spring concert she played it without a single mistake.", "Q83"),
]


def test_committed_adapter_is_small_and_tied_to_the_retrieval_embedder():
    import json

    from studio.models.specs import spec_for

    assert SCORER_WEIGHTS.stat().st_size <= 20 * 2**20
    cfg = json.loads(SCORER_CONFIG.read_text())
    assert cfg["model_id"] == spec_for("offline", "retrieval_embedder").model_id and len(cfg["quote_ids"]) == 250
    assert cfg["validation"]["n"] == 500  # measured on narratives it was not trained on


def test_committed_encoder_delta_is_small_low_rank_and_tied_to_the_retrieval_embedder():
    import json

    from safetensors import safe_open

    from studio.models.specs import spec_for
    from studio.models.variants import delta_base_id
    from studio.proverbs.delta import DELTA_CONFIG, DELTA_PATH

    assert DELTA_PATH.stat().st_size <= 20 * 2**20
    assert delta_base_id(DELTA_PATH) == spec_for("offline", "retrieval_embedder").model_id
    with safe_open(str(DELTA_PATH), framework="pt") as fh:
        assert fh.keys() and all(k.endswith((".lora_A", ".lora_B")) for k in fh.keys())
    cfg = json.loads(DELTA_CONFIG.read_text())
    assert cfg["validation"]["served"]["n"] == 500  # measured on narratives it was not trained on


def test_the_fine_tuned_encoder_is_served_int8_beside_the_adapter(offline):
    from studio.proverbs import get_scorer

    scorer = get_scorer()
    assert scorer.finetuned is not None and "ONNX Runtime" in scorer.finetuned.embedder.backend
    assert scorer.description.startswith("fine-tuned encoder") and "learned adapter" in scorer.description


def test_learned_scorer_ranks_the_intended_proverb_high(offline):
    from studio.proverbs import get_scorer, ranking

    scorer = get_scorer()
    assert scorer.is_trained and "learned adapter" in scorer.description
    for narrative, quote_id in CASES:
        top = [r.proverb.quote_id for r in ranking(narrative, 5)]
        assert quote_id in top, (quote_id, top)


def test_alignment_pairs_the_proverb_halves_with_the_story(offline):
    from studio.proverbs import align

    narrative, _ = CASES[0]
    pairs = align(narrative, "Q4")
    assert [p.proverb_span.text for p in pairs] == ["Don't put all your eggs", "in one basket"]
    assert pairs[0].narrative_span.start < pairs[1].narrative_span.start


def test_committed_one_pass_adapter_belongs_to_the_committed_delta():
    import json

    from studio.proverbs.delta import delta_digest
    from studio.models.proverbs_head import ONE_PASS_CONFIG, ONE_PASS_WEIGHTS

    assert ONE_PASS_WEIGHTS.stat().st_size <= 20 * 2**20
    cfg = json.loads(ONE_PASS_CONFIG.read_text())
    assert cfg["encoder_delta_sha256"] == delta_digest()
    assert cfg["validation"]["n"] == 500 and len(cfg["quote_ids"]) == 250


def test_a_query_is_one_encoder_pass(offline, monkeypatch):
    """The served scorer reads the narrative once, through the fine-tuned encoder; the base embedder (narrative
    and sentences, the two other passes of the three-pass scorer) is not called."""
    from studio.models import get_registry
    from studio.proverbs import get_scorer, ranking
    from studio.proverbs.index import EMBEDDER_ROLE

    scorer = get_scorer()
    assert scorer.one_pass and "one pass" in scorer.description
    base = get_registry().get(EMBEDDER_ROLE)
    calls = []
    tuned = scorer.finetuned.embedder
    original = type(tuned).encode

    def counting(self, texts, *a, **k):
        calls.append((self is tuned, len(texts)))
        return original(self, texts, *a, **k)

    monkeypatch.setattr(type(tuned), "encode", counting)
    ranking(CASES[1][0], 3)
    assert calls == [(True, 1)], calls
    assert base is not tuned


def test_a_one_pass_adapter_of_another_delta_is_not_served(offline, monkeypatch):
    from studio.proverbs import delta, service

    monkeypatch.setattr(delta, "delta_digest", lambda path=None: "0" * 64)
    scorer = service.build_scorer(service.get_index())
    assert not scorer.one_pass and scorer.finetuned is not None and scorer.is_trained
    narrative, quote_id = CASES[0]
    scores = scorer.score(*service.embed_narratives([narrative]), service.tuned_embeddings(scorer, [narrative]))
    assert scorer.index.catalog[int(scores[0].argmax())].quote_id == quote_id


def test_similar_shares_the_proverbs_the_ranking_shows(offline):
    """*Find similar*'s "proverbs both fit" lists the query's best proverbs in the order the ranking shows them: the
    query is read alone, as the ranking reads it (read in a batch with the pool, two close proverbs of the offline
    encoder swapped places)."""
    from studio.proverbs import ranking, similar
    from studio.proverbs.service import SHARED_TOP

    narrative = ("Ben left his homework until the night before it was due and had to stay up until dawn to finish "
                 "it.")
    near = narrative.replace("Ben", "Sam")
    ranked = similar(narrative, [near, CASES[0][0], CASES[1][0]])
    best = [r.proverb.text for r in ranking(narrative, SHARED_TOP)]
    shared = list(ranked[0].shared)
    assert ranked[0].narrative == near and len(shared) >= 4 and shared == [p for p in best if p in shared]
