"""Evidence behind each score: the KB pairs, triplets and vehicles (with counts and sources) and the NLI verdict, in
the scorer's JSON, the CSV rows and the Rerank tab (escaped: a candidate is user text)."""
from __future__ import annotations

import pytest

from studio.hauser.scorer import Settings, evidence_text, score_groups, table_rows
from studio.figures import kb as kb_module
from studio.figures.kb import SimileKB

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
    assert ev["level"] == "exact" and ev["matched"] == [{"pair": "he ~ child", "n": 3, "written": "he ~ child"}]
    assert [t["property"] for t in ev["triplets"]] == ["small", "innocent", "loud"]  # top 3, most plausible first
    assert ev["sources"] == {"b.tsv": 3}
    assert sourced_kb.pair_evidence("the hero", "a child")["level"] in ("none", "embedding")
    veh = sourced_kb.vehicle_evidence("the child")
    assert veh["level"] == "exact" and veh["matched"] == [{"vehicle": "child", "n": 5, "written": "child"}]
    assert veh["written"] == "the child" and ev["written"] == {"topic": "He", "vehicle": "a child"}
    assert veh["sources"] == {"a.csv": 4, "b.tsv": 1}
    assert sourced_kb.vehicle_evidence("boy")["matched"] == [{"vehicle": "little boy", "n": 3, "written": "little boy"}]


def test_scores_carry_evidence_and_the_nli_verdict(sourced_kb):
    group = score_groups([(LITERAL, CANDIDATES)], Settings())[0].to_dict()
    first = group["candidates"][0]
    assert first["nli"]["verdict"] in ("entailment", "neutral", "contradiction")
    assert sum(first["nli"][k] for k in ("entailment", "neutral", "contradiction")) == pytest.approx(1, abs=1e-3)
    assert first["evidence"]["relevance"][0]["matched"] == [{"pair": "he ~ child", "n": 3, "written": "he ~ child"}]
    line = evidence_text(first)
    assert "he ~ child ×3" in line and "small (n=1, P=0.90)" in line and "b.tsv 3" in line and "NLI:" in line
    rows = table_rows(group)
    assert all(r["evidence"] and r["nli_verdict"] for r in rows)


def test_rerank_tab_shows_evidence_escaped(sourced_kb):
    from studio.hauser.service import rerank
    from studio.ui.rerank_tab import show_group

    text = show_group(rerank(LITERAL, CANDIDATES, Settings()))[3]
    # in words first, the raw lines under Details
    assert "**Why these scores**" in text and "compare “He” with “a child” 3 times" in text
    assert "he \\~ child ×3" in text.split("<details>", 1)[1]
    assert "[link](http://x)" not in text and "\\[link\\]\\(http&#58;//x\\)" in text and "\\*rock\\*" in text


def test_evidence_withholds_a_slur_from_the_kb_but_counts_it(monkeypatch):
    from studio.hauser.kb_features import KBFeatures
    from studio.figures.components import extract_similes

    slur = "nigg" + "er's pocket"  # the KB mined 19th-century books: this is one of its vehicles
    kb = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {slur: 2, "pocket": 1}, "pairs": {"night\t" + slur: 2},
                   "triplets": {}, "contexts": [], "sources": {"names": [], "vehicles": {}, "pairs": {}}})
    ev = KBFeatures(kb).evidence(extract_similes("The night was as dark as a deep pocket."))
    shown = [m for part in ev.values() for e in part for m in e["matched"]]
    assert {"vehicle": "[withheld] pocket", "n": 2, "written": "[withheld] pocket"} in shown
    assert not any("nigg" in str(m) for m in shown)


@pytest.fixture
def property_kb(monkeypatch):
    """"grave" is quiet in two pairs (2 + 1 instances), "mouse" in one; nobody compared a room with either."""
    kb = SimileKB({"meta": {}, "lemmas": {}, "vehicles": {"grave": 3, "mouse": 4},
                   "pairs": {"cellar\tgrave": 2, "night\tgrave": 1, "he\tmouse": 4},
                   "triplets": {"cellar\tgrave": [["quiet", 2, 0.9], ["dark", 1, 0.5]],
                                "night\tgrave": [["quiet", 1, 0.5]], "he\tmouse": [["quiet", 4, 0.99]]},
                   "contexts": [],
                   "sources": {"names": ["a.csv", "b.tsv"], "vehicles": {}, "pairs": {"cellar\tgrave": [[0, 2]],
                                                                                     "night\tgrave": [[1, 1]]}}})
    monkeypatch.setattr(kb_module, "load_kb", lambda: kb)
    return kb


def test_property_triplets_merge_every_topic_of_the_vehicle(property_kb):
    hit = property_kb.property_triplets("quiet", "the grave")
    assert hit.level == "exact" and hit.value == [("quiet", 3, pytest.approx(1 - 0.1 * 0.5))]  # n summed, noisy-or
    assert property_kb.property_triplets("Quiet", "graves").value[0][1] == 3  # lemmatised like every KB phrase
    assert property_kb.property_triplets("loud", "the grave") == ([], "none")
    assert property_kb.property_triplets("quiet", "a whisper") == ([], "none")
    ev = property_kb.property_evidence("quiet", "a grave")
    assert ev["matched"] == [{"pair": "cellar ~ grave", "n": 2, "written": "cellar ~ grave"},
                             {"pair": "night ~ grave", "n": 1, "written": "night ~ grave"}]
    assert ev["sources"] == {"a.csv": 2, "b.tsv": 1}


def test_an_unseen_pair_backs_off_to_the_stated_property_with_eq2_only(property_kb):
    from studio.hauser.kb_features import PROPERTY, KBFeatures
    from studio.figures.components import extract_similes

    feats = KBFeatures(property_kb)
    grave = extract_similes("The room was as quiet as a grave.")
    relevance, levels, *_ = feats.features(grave, "eq2")
    assert levels == [PROPERTY] and relevance == pytest.approx(3 * (1 - 0.1 * 0.5))  # Eq. 2's Σ n·P
    assert feats.features(grave, "eq3")[:2] == (0.0, ["none"])  # Eq. 3, the paper's approximation, unchanged
    like = extract_similes("The room was silent like a grave.")  # a property the KB never gave the grave
    assert feats.features(like, "eq2")[:2] == (0.0, ["none"])
    seen = extract_similes("He was as quiet as a mouse.")  # a pair the KB saw keeps its own triplets
    assert feats.features(seen, "eq2")[1] == ["exact"]


def test_the_property_back_off_is_shown_as_evidence(property_kb):
    group = score_groups([("The room was quiet.", ["The room was as quiet as a grave.",
                                                   "The room was as quiet as a whisper."])], Settings())[0].to_dict()
    grave, whisper = group["candidates"]
    assert grave["relevance_levels"] == [PROPERTY_LEVEL] and whisper["relevance_levels"] == ["none"]
    assert grave["relevance_kb"] > whisper["relevance_kb"] == 0
    line = evidence_text(grave)
    assert "relevance [property]: no KB pair for The room ~ a grave" in line and "cellar ~ grave ×2" in line
    assert "a.csv 2" in line
    paper = score_groups([("The room was quiet.", ["The room was as quiet as a grave."])],
                         Settings(property_backoff=False))[0].to_dict()  # `score --no-property-backoff`
    assert paper["candidates"][0]["relevance_levels"] == ["none"] and paper["candidates"][0]["relevance_kb"] == 0
    assert paper["settings"]["property_backoff"] is False


PROPERTY_LEVEL = "property"


def test_the_rerank_tab_names_an_image_in_the_candidate_s_words_not_the_kb_s_lemma(monkeypatch):
    """A visitor read "Similes compare 'she' with 'lightne'": the KB's lemma table maps "lightning" to "lightne"; the
    explanation quotes the candidate's own words (and an emoji after the image is no part of it)."""
    from studio.hauser.service import rerank
    from studio.ui.rerank_tab import show_group

    kb = SimileKB({"meta": {}, "lemmas": {"lightning": "lightne"}, "vehicles": {"lightne": 29},
                   "surfaces": {"lightne": "lightning"}, "pairs": {"she\tlightne": 2},
                   "triplets": {"she\tlightne": [["quick", 2, 0.9]]}, "contexts": []})
    monkeypatch.setattr(kb_module, "load_kb", lambda: kb)
    text = show_group(rerank("She is really fast.", ["She is fast like lightning 🌩", "She is fast like a hare."],
                             Settings()))[3]
    why = text.split("<details>", 1)[0]
    assert "compare “She” with “lightning” twice" in why and "“lightning” is the image of 29 similes" in why
    assert "lightne”" not in why and "🌩”" not in why
    # the raw evidence under Details spells the KB's entries too ("relevance [exact]: she ~ lightning ×2")
    details = text.split("<details>", 1)[1]
    assert r"she \~ lightning ×2" in details and "lightne" not in details  # "~" markdown-escaped
