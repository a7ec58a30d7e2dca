"""The writer's reread of Polish's list (similes/ranking.py `writer_order`): which text the writer scores, how its
fit enters keep (the `polish_ranker` role's reread weights), and that the list is left as it was when the writer or
the weights cannot serve."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from studio.models import ModelUnavailable
from studio.similes import aptness
from studio.similes import polish as P
from studio.similes import ranking


def _cand(sentence: str, phrase: str) -> P.Candidate:
    return P.Candidate(sentence=sentence, phrase=phrase, offset=sentence.index(phrase), strategy="lm", score=0.5,
                       vehicle=phrase.split(" ", 1)[-1])


def test_the_writer_scores_the_words_after_the_comparison_word():
    verb = _cand("The boy ate his soup noisily like a pig.", "like a pig")
    adjective = _cand("The suitcase was as heavy as lead.", "as heavy as lead")
    clause = _cand("She stared as if she had seen a ghost.", "as if she had seen a ghost")
    assert ranking.simile_tail(verb) == ("The boy ate his soup noisily like", " a pig")
    assert ranking.simile_tail(adjective) == ("The suitcase was as", " heavy as lead")
    assert ranking.simile_tail(clause) == ("She stared as", " if she had seen a ghost")
    assert ranking.simile_tail(_cand("It rained hard.", "hard")) is None


class _Writer:
    """loglik_many's contract: per context, per continuation (total log-likelihood, tokens)."""
    def __init__(self, scores: dict[str, float], tokens: dict[str, int] | None = None):
        self.scores, self.tokens, self.asks = scores, tokens or {}, []

    def loglik_many(self, asks):
        self.asks += asks
        return [[(self.scores[cont], self.tokens.get(cont, 2)) for cont in conts] for _, conts, _ in asks]


def _weights(**coef):
    """Reread weights that read only the named columns of aptness.REREAD_FEATURES."""
    n = len(aptness.REREAD_FEATURES)
    return {"features": list(aptness.REREAD_FEATURES), "mean": [0.0] * n, "scale": [1.0] * n,
            "coef": [coef.get(f, 0.0) for f in aptness.REREAD_FEATURES], "intercept": 0.0}


class _Registry:
    def __init__(self, writer, backend: str = "gguf_writer", reread: dict | None = None):
        self.writer, self.backend = writer, backend
        self.ranker = SimpleNamespace(reread=_weights(writer_z=1.0) if reread is None else reread)

    def spec(self, role):
        assert role == "writer"
        return SimpleNamespace(backend=self.backend)

    def get(self, role):
        assert role in ("writer", "polish_ranker")
        if role == "polish_ranker":
            return self.ranker
        if self.writer is None:
            raise ModelUnavailable("writer", "not in this test", "nothing to do")
        return self.writer


def _rows(cands, column: str = "sentence_cos", values=None):
    """keep's feature rows by id, zero but for one column."""
    out = {}
    for k, c in enumerate(cands):
        x = np.zeros(len(aptness.FEATURES))
        x[aptness.FEATURES.index(column)] = 0.0 if values is None else values[k]
        out[id(c)] = x
    return out


@pytest.fixture
def four():
    names = ["a drum", "a pig", "a bell", "a wolf"]
    cands = [_cand(f"The dog barked like {v}.", f"like {v}") for v in names]
    for c in cands:
        c.keep = 0.5
    return cands


def test_the_first_places_are_ordered_by_keep_read_again_with_the_writer(monkeypatch, four):
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    ordered, reread = ranking.writer_order(four, _rows(four))
    assert reread and [c.vehicle for c in ordered] == ["a wolf", "a bell", "a pig", "a drum"]
    assert writer.asks == [("The dog barked like", [" a drum", " a pig", " a bell", " a wolf"], None)]  # one context
    keeps = [c.keep for c in ordered]
    assert keeps == sorted(keeps, reverse=True) and keeps[0] > 0.5 > keeps[-1]  # the new keep, in order
    # keep's own features count too: a strong enough column overrules the writer
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer, reread=_weights(
        writer_z=1.0, sentence_cos=10.0)))
    ordered, _ = ranking.writer_order(four, _rows(four, values=[1.0, 0.0, 0.0, 0.0]))
    assert ordered[0].vehicle == "a drum"


def test_the_writer_is_read_per_token(monkeypatch, four):
    """A long vehicle is not punished for its length: the fit is the log-likelihood per token."""
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0},
                     tokens={" a drum": 10, " a pig": 1, " a bell": 1, " a wolf": 1})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    ordered, _ = ranking.writer_order(four, _rows(four))
    assert [c.vehicle for c in ordered] == ["a drum", "a wolf", "a bell", "a pig"]  # -0.9, -1, -4, -5 a token


def test_ties_keep_the_list_order_and_every_line_read_gets_a_keep(monkeypatch, four):
    writer = _Writer({" a drum": -3.0, " a pig": -3.0, " a bell": -3.0, " a wolf": -3.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    four[1].keep = None  # the image table's line had no keep: the reread ranks it, so it shows the keep it ranks by
    ordered, reread = ranking.writer_order(four, _rows(four))
    assert reread and ordered == four and [c.keep for c in four] == [pytest.approx(0.5)] * 4


def test_only_the_first_places_are_reread(monkeypatch, four):
    many = [_cand(f"The dog barked like {v}.", f"like {v}") for v in [f"a dog{k}" for k in range(24)]]
    writer = _Writer({f" a dog{k}": float(k) for k in range(24)})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    ordered, reread = ranking.writer_order(many, _rows(many))
    assert reread and ordered[ranking.WRITER_READS_TOP:] == many[ranking.WRITER_READS_TOP:]
    assert ordered[:ranking.WRITER_READS_TOP] == many[:ranking.WRITER_READS_TOP][::-1]
    assert len(writer.asks[0][1]) == ranking.WRITER_READS_TOP


def test_without_the_writer_the_list_stays(monkeypatch, four):
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(None))
    assert ranking.writer_order(four, _rows(four)) == (four, False)


def test_without_reread_weights_for_this_writer_the_list_stays(monkeypatch, four):
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    registry = _Registry(writer)
    registry.ranker.reread = None  # the file has none, or they were fitted with another writer
    monkeypatch.setattr("studio.models.get_registry", lambda: registry)
    assert ranking.writer_order(four, _rows(four)) == (four, False) and writer.asks == []


def test_a_writer_that_fails_while_reading_leaves_the_list(monkeypatch, four):
    class Broken(_Writer):
        def loglik_many(self, asks):
            raise RuntimeError("the language model was closed")

    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(Broken({})))
    assert ranking.writer_order(four, _rows(four)) == (four, False)
    assert [c.keep for c in four] == [0.5] * 4


def test_the_hub_writer_does_not_reread(monkeypatch, four):
    """The hub profile's writer is the float32 model on transformers (6 GB, not measured for this): no reread."""
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer, backend="transformers_lm"))
    assert ranking.writer_order(four, _rows(four)) == (four, False) and writer.asks == []


def test_a_candidate_without_a_comparison_word_is_read_last(monkeypatch, four):
    odd = _cand("The dog barked loudly.", "loudly")
    odd.keep = 0.9
    writer = _Writer({" a drum": -9.0, " a pig": -5.0, " a bell": -4.0, " a wolf": -1.0})
    monkeypatch.setattr("studio.models.get_registry", lambda: _Registry(writer))
    cands = [odd] + four
    ordered, reread = ranking.writer_order(cands, _rows(cands))
    # it takes the others' mean less three deviations: below all of them
    assert reread and [c.vehicle for c in ordered] == ["a wolf", "a bell", "a pig", "a drum", "loudly"]


def test_reread_features_add_the_fit_and_its_z_score():
    x = aptness.reread_features(np.zeros((3, len(aptness.FEATURES))), [-1.0, -3.0, float("-inf")])
    assert x.shape == (3, len(aptness.REREAD_FEATURES))
    fit, z = x[:, -2], x[:, -1]
    assert fit[:2].tolist() == [-1.0, -3.0] and fit[2] == pytest.approx(-2.0 - 3 * 1.0, abs=1e-5)
    assert z[:2] == pytest.approx([1.0, -1.0], abs=1e-5) and z[2] == pytest.approx(-3.0, abs=1e-4)
    with pytest.raises(ValueError, match="train polish-ranker"):
        aptness.p_keep(_weights(writer_z=1.0), x)  # keep's columns are not the reread's


def test_without_the_ranker_there_is_no_reread(tiny_registry):
    """The tiny profile serves no keep (its embedder is not the one keep was fitted with): nothing to read again."""
    report = P.polish("The soup was very bland.", n=5, seed=0)
    assert report.candidates and report.reread is False and not report.ranked_by.endswith(P.WRITER_ORDER)
    assert "again" not in report.score_meaning


@pytest.mark.offline
def test_the_served_list_is_reread_in_keep_order_and_says_so(offline):
    report = P.polish("The soup was very bland.", n=10, seed=0)
    cands = report.candidates
    assert report.reread is True and report.ranked_by.endswith(P.WRITER_ORDER) and cands
    assert "reads the best 20 candidates again" in report.score_meaning and report.to_dict()["reread"] is True
    keeps = [c.keep for c in cands]
    assert None not in keeps and keeps == sorted(keeps, reverse=True)  # every line has a keep, in order
    assert report.ranked_by == "keep" + P.WRITER_ORDER and report.keep_counted == len(cands)
    from studio.ui.polish_tab import _status

    status = _status(report, True, list(P.DEFAULT_STRATEGIES))  # what the tab says agrees with the table
    assert "best first by keep (the writer model read the best 20 again" in status and "Keep ranks the lines" in status
    assert "first, then the rest" not in status
    before = P.polish("The soup was very bland.", n=10, seed=0, reread=False)
    assert before.reread is False and not before.ranked_by.endswith(P.WRITER_ORDER)
    first = {c.sentence: c.keep for c in before.candidates}
    # keep is computed again for what the writer read: a shared line's keep moves
    assert any(c.keep != first[c.sentence] for c in cands if c.sentence in first and c.keep is not None)
