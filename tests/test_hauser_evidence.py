"""Evidence behind each score: the KB pairs, triplets and vehicles (with counts and sources) and the NLI verdict, in
the scorer's JSON, the CSV rows and the Rerank tab (escaped: a candidate is user text)."""
from __future__ import annotations

import pytest

from studio.hauser.scorer import Settings, evidence_text, score_groups, table_rows
from studio.similes import kb as kb_module
from studio.similes.kb import SimileKB

LITERAL = "He wept."
CANDIDATES = ["He wept like a child.", "He wept like a little boy.", "He wept like a [link](http://x) *rock*."]


@pytest.fixture
def sourced_kb(monkeypatch):
    kb = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {"child": 5, "little boy": 3, "rock": 2},
                   "pairs": {"he\tchild": 3, "she\tchild": 1},
                   "triplets": {"he\tchild": [["innocent", 2, 0.5], ["small", 1, 0.9], ["loud", 1, 0.2],
                                              ["sad", 1, 0.1]]},
                   "contexts": [],
                   "sources": {"names": ["a.csv", "b.tsv"], "vehicles": {"child": [[0, 4], [1, 1]]},
                               "pairs": {"he\tchild": [[1, 3]]}}})
    monkeypatch.setattr(kb_module, "load_kb", lambda: kb)
    return kb


def test_pair_and_vehicle_evidence_with_counts_and_sources(sourced_kb):
    ev = sourced_kb.pair_evidence("He", "a child")
    assert ev["level"] == "exact" and ev["matched"] == [{"pair": "he ~ child", "n": 3}]
    assert [t["property"] for t in ev["triplets"]] == ["small", "innocent", "loud"]  # top 3, most plausible first
    assert ev["sources"] == {"b.tsv": 3}
    assert sourced_kb.pair_evidence("the hero", "a child")["level"] in ("none", "embedding")
    veh = sourced_kb.vehicle_evidence("the child")
    assert veh["level"] == "exact" and veh["matched"] == [{"vehicle": "child", "n": 5}]
    assert veh["sources"] == {"a.csv": 4, "b.tsv": 1}
    assert sourced_kb.vehicle_evidence("boy")["matched"] == [{"vehicle": "little boy", "n": 3}]


def test_scores_carry_evidence_and_the_nli_verdict(sourced_kb):
    group = score_groups([(LITERAL, CANDIDATES)], Settings())[0].to_dict()
    first = group["candidates"][0]
    assert first["nli"]["verdict"] in ("entailment", "neutral", "contradiction")
    assert sum(first["nli"][k] for k in ("entailment", "neutral", "contradiction")) == pytest.approx(1, abs=1e-3)
    assert first["evidence"]["relevance"][0]["matched"] == [{"pair": "he ~ child", "n": 3}]
    line = evidence_text(first)
    assert "he ~ child ×3" in line and "small (n=1, P=0.90)" in line and "b.tsv 3" in line and "NLI:" in line
    rows = table_rows(group)
    assert all(r["evidence"] and r["nli_verdict"] for r in rows)


def test_rerank_tab_shows_evidence_escaped(sourced_kb):
    from studio.ui.rerank_tab import show_group

    group = score_groups([(LITERAL, CANDIDATES)], Settings())[0].to_dict()
    text = show_group(group)[3]
    assert "**Evidence**" in text and "he \\~ child ×3" in text
    assert "[link](http://x)" not in text and "\\[link\\]\\(http://x\\)" in text and "\\*rock\\*" in text


def test_evidence_withholds_a_slur_from_the_kb_but_counts_it(monkeypatch):
    from studio.hauser.kb_features import KBFeatures
    from studio.similes.components import extract_similes

    slur = "nigg" + "er's pocket"  # the KB mined 19th-century books: this is one of its vehicles
    kb = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {slur: 2, "pocket": 1}, "pairs": {"night\t" + slur: 2},
                   "triplets": {}, "contexts": [], "sources": {"names": [], "vehicles": {}, "pairs": {}}})
    ev = KBFeatures(kb).evidence(extract_similes("The night was as dark as a deep pocket."))
    shown = [m for part in ev.values() for e in part for m in e["matched"]]
    assert {"vehicle": "[withheld] pocket", "n": 2} in shown or {"vehicle": "[withheld]'s pocket", "n": 2} in shown
    assert not any("nigg" in str(m) for m in shown)
