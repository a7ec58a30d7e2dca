"""The writer's reread of Polish's list (similes/polish.py `_writer_order`): which text the writer scores, how its
order and the list's are combined, and that the list is left as it was when the writer cannot serve."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from studio.models import ModelUnavailable
from studio.similes import polish as P


def _cand(sentence: str, phrase: str) -> P.Candidate:
    return P.Candidate(sentence=sentence, phrase=phrase, offset=sentence.index(phrase), strategy="lm", score=0.5,
                       vehicle=phrase.split(" ", 1)[-1])


def test_the_writer_scores_the_words_after_the_comparison_word():
    verb = _cand("The boy ate his soup noisily like a pig.", "like a pig")
    adjective = _cand("The suitcase was as heavy as lead.", "as heavy as lead")
    clause = _cand("She stared as if she had seen a ghost.", "as if she had seen a ghost")
    assert P.simile_tail(verb) == ("The boy ate his soup noisily like", " a pig")
    assert P.simile_tail(adjective) == ("The suitcase was as", " heavy as lead")
    assert P.simile_tail(clause) == ("She stared as", " if she had seen a ghost")
    assert P.simile_tail(_cand("It rained hard.", "hard")) is None


class _Writer:
    def __init__(self, scores: dict[str, float]):
        self.scores, self.asks = scores, []

    def loglik_many(self, asks):
        self.asks += asks
        return [[(self.scores[cont], 2) for cont in conts] for _, conts, _ in asks]


class _Registry:
    def __init__(self, writer, backend: str = "gguf_writer"):
        self.writer, self.backend = writer, backend

    def spec(self, role):
        assert role == "writer"
        return SimpleNamespace(backend=self.backend)

    def get(self, role):
        assert role == "writer"
        if self.writer is None:
            raise ModelUnavailable("writer", "not in this test", "nothing to do")
        return self.writer


@pytest.fixture
def four():
    names = ["a drum", "a pig", "a bell", "a wolf"]
    return [_cand(f"The dog barked like {v}.", f"like {v}") for v in names]


def test_each_moves_by_its_place_in_the_list_plus_twice_its_place_by_the_writer(monkeypatch, four):
    # the writer's order: wolf, bell, pig, drum → places 3, 2, 1, 0; list places 0, 1, 2, 3
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    assert P.WRITER_WEIGHT == 2.0
    ordered, reread = P._writer_order(four, n=2)
    # sums: drum 0 + 6 = 6, pig 1 + 4 = 5, bell 2 + 2 = 4, wolf 3 + 0 = 3
    assert reread and [c.vehicle for c in ordered] == ["a wolf", "a bell", "a pig", "a drum"]
    assert writer.asks == [("The dog barked like", [" a drum", " a pig", " a bell", " a wolf"], None)]  # one context
    # a tie keeps the list's order: pig and bell swap places by the writer but tie on the sum
    writer.scores.update({" a drum": -1.0, " a pig": -4.0, " a bell": -5.0, " a wolf": -9.0})
    ordered, _ = P._writer_order(four, n=2)
    assert [c.vehicle for c in ordered] == ["a drum", "a pig", "a bell", "a wolf"]


def test_only_the_first_places_are_reread(monkeypatch, four):
    many = four * 6  # 24 candidates; the last 4 stay where they were, however many are asked
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    ordered, reread = P._writer_order(many, n=24)
    assert reread and ordered[P.WRITER_READS_TOP:] == many[P.WRITER_READS_TOP:]
    assert sorted(map(id, ordered[:P.WRITER_READS_TOP])) == sorted(map(id, many[:P.WRITER_READS_TOP]))


def test_without_the_writer_the_list_stays(monkeypatch, four):
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(None))
    assert P._writer_order(four, n=2) == (four, False)


def test_a_writer_that_fails_while_reading_leaves_the_list(monkeypatch, four):
    class Broken(_Writer):
        def loglik_many(self, asks):
            raise RuntimeError("the language model was closed")

    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(Broken({})))
    assert P._writer_order(four, n=2) == (four, False)


def test_the_hub_writer_does_not_reread(monkeypatch, four):
    """The hub profile's writer is the float32 model on transformers (6 GB, not measured for this): no reread."""
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer, backend="transformers_lm"))
    assert P._writer_order(four, n=2) == (four, False) and writer.asks == []


def test_a_candidate_without_a_comparison_word_is_read_last(monkeypatch, four):
    odd = _cand("The dog barked loudly.", "loudly")
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    ordered, reread = P._writer_order([odd] + four, n=2)
    # odd: list place 0 + 2 × writer place 4 = 8; wolf 4 + 0; bell 3 + 2; pig 2 + 4; drum 1 + 6
    assert reread and [c.vehicle for c in ordered] == ["a wolf", "a bell", "a pig", "a drum", "loudly"]


def test_the_served_list_is_reread_and_says_so(tiny_registry):
    report = P.polish("The soup was very bland.", n=5, seed=0)
    cands = report.candidates
    assert report.reread is True and report.ranked_by.endswith(P.WRITER_ORDER) and cands
    assert "rereads" in report.score_meaning and report.to_dict()["reread"] is True
    before = P.polish("The soup was very bland.", n=5, seed=0, reread=False)
    assert before.reread is False and not before.ranked_by.endswith(P.WRITER_ORDER)
