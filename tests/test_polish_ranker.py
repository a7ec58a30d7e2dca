"""Polish's ranker (studio/similes/aptness.py, the `polish_ranker` role): its features, its weights' contract, where
it serves and where it does not, and the fit's bookkeeping (studio/lab/similes/aptness_train.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from studio.similes import aptness
from studio.lab.similes import aptness_train as at
from studio.similes.polish import polish

VECTORS = {  # a tiny world: "lime" goes with tangy things, "drum" with rumbling ones
    "The cake was tangy.": [1.0, 0.0, 0.0, 0.2], "The cake": [0.0, 1.0, 0.0, 0.0], "cake": [0.0, 1.0, 0.0, 0.0],
    "something tangy": [0.9, 0.0, 0.1, 0.0], "something that rumbled": [0.0, 0.0, 1.0, 0.0],
    "a lime": [1.0, 0.0, 0.0, 0.0], "a drum": [0.0, 0.0, 1.0, 0.0], "a person": [0.0, 0.6, 0.0, 0.8],
}


def encode(texts):
    return np.array([VECTORS[t] for t in texts])


def item(vehicle, kind="adjective", cue="tangy", score=0.2, strategy="lm", attested=False):
    return aptness.Item(vehicle, score, strategy, attested, kind, cue, clause=False)


def test_features_put_each_cosine_in_its_column():
    x = aptness.features([item("a lime"), item("a drum"), item("a drum", kind="verb", cue="rumbled")],
                         "The cake was tangy.", "cake", encode)
    col = {name: i for i, name in enumerate(aptness.FEATURES)}
    assert x.shape == (3, len(aptness.FEATURES))
    assert x[0, col["cue_cos_adjective"]] == pytest.approx(0.9 / np.sqrt(0.82))
    assert x[0, col["cue_cos_adjective"]] > x[1, col["cue_cos_adjective"]]
    assert x[0, col["cue_cos_verb"]] == 0 and x[2, col["cue_cos_adjective"]] == 0
    assert x[2, col["cue_cos_verb"]] == pytest.approx(1.0)  # a drum and "something that rumbled"
    assert x[0, col["log_score"]] == pytest.approx(np.log(0.2))
    assert (x[:, col["subject_cos"]] == 0).all()  # the cake is no lime and no drum
    assert x[0, col["adjective"]] == 1 and x[2, col["adjective"]] == 0
    no_subject = aptness.features([item("a lime")], "The cake was tangy.", None, encode)
    assert no_subject[0, col["subject_cos"]] == 0


def _weights(coef):
    n = len(aptness.FEATURES)
    return {"features": list(aptness.FEATURES), "mean": [0.0] * n, "scale": [1.0] * n, "coef": coef,
            "intercept": 0.0}


def test_keep_follows_the_weights_and_refuses_other_features():
    col = aptness.FEATURES.index("cue_cos_adjective")
    coef = [0.0] * len(aptness.FEATURES)
    coef[col] = 3.0
    x = aptness.features([item("a lime"), item("a drum")], "The cake was tangy.", "cake", encode)
    p = aptness.p_keep(_weights(coef), x)
    assert 0.5 < p[1] < p[0] < 1
    assert p == pytest.approx(1 / (1 + np.exp(-3.0 * x[:, col])))
    stale = {**_weights(coef), "features": list(aptness.FEATURES[:-1])}
    with pytest.raises(ValueError, match="train polish-ranker"):
        aptness.p_keep(stale, x)


def test_the_tiny_profile_ranks_by_the_score(tiny_registry):
    """The shipped weights were fitted with the offline MiniLM: beside the tiny embedder they are not used."""
    report = polish("The curtains were very drab.", n=5, seed=0, reread=False)
    cands = report.candidates
    # the image table has nothing for "drab": the order does not name its source
    assert report.ranked_by == "score" and cands and report.expected_keepers is None
    assert "image table" not in report.score_meaning
    assert all(c.keep is None for c in cands)
    assert all(c.kind in ("adjective", "verb") and c.cue for c in cands)


@pytest.mark.offline
def test_offline_polish_ranks_by_keep(offline):
    report = polish("The curtains were very drab.", n=10, seed=0, reread=False)
    cands = report.candidates
    assert report.ranked_by == "keep" and "keep =" in report.score_meaning
    keeps = [c.keep for c in cands]
    assert all(0 < k < 1 for k in keeps) and keeps == sorted(keeps, reverse=True)
    assert report.expected_keepers == pytest.approx(sum(keeps), abs=0.051)  # keep is calibrated: its sum
    report_before = polish("The curtains were very drab.", n=10, seed=0, ranker=False, reread=False)
    before = report_before.candidates
    assert report_before.ranked_by == "score" and all(c.keep is None for c in before)


def test_splits_are_by_literal_set():
    assert [at.split_of(s) for s in (1, 2, 3, 4, 5, 6, 7, 8)] == ["train"] * 3 + ["dev"] * 2 + ["test"] * 3
    assert [at.split_of(s) for s in (21, 23, 27, 33)] == ["test"] * 4  # _dev_N, _report_N: never fitted or chosen on
    sets = at.literal_sets()
    assert sets["The violinist's bow was very steady."] == 7  # blind_reads/polish_literals_7.txt
    assert sets["The hawk circled lazily above the wheat field."] == 23  # blind_reads/polish_literals_dev_23.txt
    assert sets["The yew tree in the churchyard is ancient."] == 33  # blind_reads/polish_literals_report_33.txt
    assert sets["The baby cried all night."] == 1  # in sets 1 and 10: the first
    assert not any(literal.startswith("#") for literal in sets)


def test_top3_compares_the_same_candidates_in_both_orders(tmp_path):
    rows = [{"variant": "new", "literal": "L.", "rank": r, "candidate": f"L like {v}.", "usable": u}
            for r, (v, u) in enumerate([("a", 0), ("b", 0), ("c", 1), ("d", 1), ("e", 1)], 1)]
    path = tmp_path / "polish_blind_read_99.json"
    path.write_text(json.dumps({"rows": rows}))
    labels, lists = at.read_labels([path])
    assert labels[("L.", "l like c")] == [1]
    col = aptness.FEATURES.index("sentence_cos")
    feature_rows = {}
    for k, (v, _) in enumerate([("a", 0), ("b", 0), ("c", 1), ("d", 1), ("e", 1)]):
        x = np.zeros(len(aptness.FEATURES))
        x[col] = k  # the later shown, the likelier kept
        feature_rows[("L.", f"l like {v}")] = x
    coef = [0.0] * len(aptness.FEATURES)
    coef[col] = 1.0
    t = at.top3(lists, feature_rows, {"L.": 6}, "test", _weights(coef))
    assert t == {"lists": 1, "slots": 3, "shown": 1, "ranked": 3, "first_shown": 0, "first_ranked": 1}
    assert at.top3(lists, feature_rows, {"L.": 6}, "dev", _weights(coef))["lists"] == 0


def test_the_writer_fit_is_added_once_and_read_per_token_within_the_literal(monkeypatch):
    """`writer_fit` asks the writer what Polish's reread asks (the words after the comparison word), only for what
    the pool lacks; `reread_rows` turns it into the fit per token and its z-score among the literal's candidates."""
    from types import SimpleNamespace

    asks = []

    class Writer:
        def loglik_many(self, batch):
            asks.extend(batch)
            return [[(-2.0 * len(cont), len(cont)) if "lime" in cont else (-6.0, 2) for cont in conts]
                    for _, conts, _ in batch]

    registry = SimpleNamespace(spec=lambda role: SimpleNamespace(backend="gguf_writer"), get=lambda role: Writer())
    monkeypatch.setattr(at, "get_registry", lambda: registry)
    base = {"offset": 13, "strategy": "lm", "score": 0.5, "attested": False, "kind": "adjective", "cue": "tangy",
            "keep": None, "rank": None}
    pool = {"The cake was tangy.": {"subject": "cake", "candidates": [
        {**base, "sentence": "The cake was as tangy as a lime.", "phrase": "as tangy as a lime", "vehicle": "a lime"},
        {**base, "sentence": "The cake was as tangy as a drum.", "phrase": "as tangy as a drum", "vehicle": "a drum"},
        {**base, "sentence": "The cake was tangy.", "phrase": "tangy", "vehicle": "tangy"}]}}
    assert at.writer_fit(pool, progress=None)
    assert asks == [("The cake was as", [" tangy as a drum", " tangy as a lime"], None)]
    cands = pool["The cake was tangy."]["candidates"]
    assert cands[2]["writer"] is None and cands[1]["writer"] == [-6.0, 2]
    assert at.writer_fit(pool, progress=None) and len(asks) == 1  # nothing left to ask
    rows = {("The cake was tangy.", at.norm(c["sentence"])): np.zeros(len(aptness.FEATURES)) for c in cands}
    reread = at.reread_rows(pool, rows)
    lime, drum, bare = (reread[("The cake was tangy.", at.norm(c["sentence"]))] for c in cands)
    assert lime[-2] == -2.0 and drum[-2] == -3.0 and bare[-2] < drum[-2]  # per token; none: mean less 3 deviations
    assert lime[-1] > 0 > drum[-1] > bare[-1]
    registry.spec = lambda role: SimpleNamespace(backend="transformers_lm")
    assert not at.writer_fit({"L.": {"candidates": []}}, progress=None)  # a writer that does not reread: none


def test_the_reread_weights_serve_only_beside_the_writer_they_were_fitted_with(tmp_path):
    from types import SimpleNamespace

    from studio.models.loaders.simile_reranker import load_polish_ranker

    weights = {"features": list(aptness.FEATURES)}
    reread = {"features": list(aptness.REREAD_FEATURES)}
    path = tmp_path / "polish_ranker.json"
    models = {"embedder": "e", "writer": "w"}
    registry = SimpleNamespace(spec=lambda role: SimpleNamespace(model_id=models[role]))
    for meta, served in (({"embedder": "e", "writer": "w"}, True), ({"embedder": "e", "writer": "other"}, False),
                         ({"embedder": "e"}, False)):
        path.write_text(json.dumps({"weights": weights, "reread": reread, "meta": meta}))
        ranker = load_polish_ranker(SimpleNamespace(model_id=str(path)), registry)
        assert ranker.weights == weights and (ranker.reread == reread) is served and (ranker.reread is None) != served
