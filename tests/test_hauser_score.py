"""HAUSER scoring end to end on the tiny profile: the pipeline, the CLI (single group and --batch), the eval helpers,
and the Rerank tab through gradio_client."""
from __future__ import annotations

import json
import math

import pytest

from studio.cli import main
from studio.lab.hauser.evaluate import _ranking_metrics, fill_slot
from studio.hauser.inputs import candidates_from_lines, groups_from_csv
from studio.hauser.scorer import NO_SIMILE, Settings, score_groups, table_rows
from studio.figures import kb as kb_module
from studio.figures.kb import SimileKB

LITERAL = "As for Paganel, he wept who does not think of hiding his emotion."
CANDIDATES = [
    "As for Paganel, he wept like a child who does not think of hiding his emotion.",
    "As for Paganel, he wept like a little boy who does not think of hiding his emotion.",
    "As for Paganel, he wept who does not think of it.",
]


@pytest.fixture
def small_kb(monkeypatch):
    kb = SimileKB({"meta": {"triplets": 2}, "lemmas": {}, "vehicles": {"child": 5, "boy": 3, "rock": 2},
                   "pairs": {"he\tchild": 3}, "triplets": {"he\tchild": [["innocent", 2, 0.5], ["small", 1, 0.9]]},
                   "contexts": []})
    monkeypatch.setattr(kb_module, "load_kb", lambda: kb)
    return kb


def test_score_groups_tiny(small_kb):
    group = score_groups([(LITERAL, CANDIDATES)], Settings(lm_relevance=0, lm_creativity=0, irony=False))[0]  # the paper's
    rows = {c.index: c for c in group.candidates}
    assert sorted(c.rank for c in group.candidates) == [1, 2, 3]
    assert rows[2].flag == NO_SIMILE and rows[2].rank == 3 and rows[2].quality is None
    assert rows[0].relevance == pytest.approx(1.9) and rows[0].relevance_levels == ["exact"]
    assert rows[0].relevance_norm == 1.0 and rows[1].relevance_norm == 0.0  # "a little boy": head "boy", no (he, boy)
    assert rows[0].creativity == pytest.approx(-math.log(6)) and rows[0].lm == {} and group.backends["lm"] is None
    assert rows[0].fit == {} and group.backends["writer"] is None  # λ = 0: the writer is not asked
    assert rows[0].informativeness == 2.0 and rows[1].informativeness == 3.0
    assert rows[0].sentiment_texts == ("As for Paganel, he wept like a child", "As for Paganel, he wept")
    assert {"nli", "sentiment", "kb", "parser"} <= set(group.backends)
    json.dumps(group.to_dict())
    assert [r["rank"] for r in table_rows(group.to_dict())] == [1, 2, 3]


def test_the_lms_back_off_relevance_and_creativity(small_kb):
    """Default settings: relevance = log(1 + KB's) + 1·fit, the writer's mean log-probability per token of the vehicle
    after the candidate's words, and creativity = Eq. 8-9 + 0.3·surprisal after "Like", from the small LM (both tiny
    here); the result shows both."""
    from studio.models import get_registry

    group = score_groups([(LITERAL, CANDIDATES)])[0]
    rows = {c.index: c for c in group.candidates}
    fit, lm = rows[0].fit, rows[0].lm
    assert fit["vehicle"] == "a child" and fit["context"] == "As for Paganel, he wept like"
    assert fit["fit"] == pytest.approx(fit["logp_context"] / fit["tokens"], abs=1e-3) and fit["fit"] < 0
    writer = get_registry().get("writer")  # the fit is the writer's own log-probability of the vehicle
    (logp, n), = writer.loglik_shared("As for Paganel, he wept like", [" a child"])
    assert fit["logp_context"] == pytest.approx(logp, abs=1e-3) and fit["tokens"] == n
    assert lm["vehicle"] == "a child" and lm["generic_context"] == "Like" and "pmi" not in lm
    assert rows[0].relevance_kb == pytest.approx(1.9)
    assert rows[0].relevance == pytest.approx(math.log(2.9) + fit["fit"], abs=1e-3)
    assert rows[1].relevance == pytest.approx(rows[1].fit["fit"], abs=1e-3)  # no KB pair: the writer alone
    assert rows[0].creativity == pytest.approx(-math.log(6) + 0.3 * lm["surprisal"], abs=1e-3)
    assert rows[2].lm == {} and rows[2].fit == {} and group.backends["lm"] and group.backends["writer"]
    evidence = " ".join(r["evidence"] for r in table_rows(group.to_dict()))
    assert "writer: log P(a child" in evidence and "LM: log P(a child | “Like”)" in evidence


def test_each_back_off_needs_only_its_own_model(small_kb, monkeypatch):
    """λ > 0 with μ = 0 and no irony check asks the writer only; and a writer that cannot serve leaves relevance to the
    KB (the paper's Eq. 2) while creativity keeps the small LM's surprisal, the backends line saying so."""
    import studio.hauser.scorer as scorer
    from studio.models import ModelUnavailable, get_registry

    writer_only = score_groups([(LITERAL, CANDIDATES)], Settings(lm_creativity=0, irony=False))[0]
    assert writer_only.backends["lm"] is None and writer_only.backends["writer"]
    assert writer_only.candidates[0].fit and writer_only.candidates[0].lm == {}
    assert writer_only.candidates[0].creativity == pytest.approx(-math.log(6))

    real = get_registry()

    class NoWriter:
        def __getattr__(self, name):
            return getattr(real, name)

        def get(self, role):
            if role == "writer":
                raise ModelUnavailable("writer", "not in this test")
            return real.get(role)

    monkeypatch.setattr(scorer, "get_registry", lambda: NoWriter())
    group = score_groups([(LITERAL, CANDIDATES)])[0]
    rows = {c.index: c for c in group.candidates}
    assert group.backends["writer"].startswith("not used (") and "relevance without the LM back-off" in \
        group.backends["writer"]
    assert rows[0].relevance == pytest.approx(1.9) and rows[0].fit == {}  # Eq. 2 as the paper has it
    assert rows[0].creativity == pytest.approx(-math.log(6) + 0.3 * rows[0].lm["surprisal"], abs=1e-3)


def test_eq3_changes_relevance_not_the_rest(small_kb):
    eq2 = score_groups([(LITERAL, CANDIDATES[:2])], Settings(relevance="eq2", lm_relevance=0))[0]
    eq3 = score_groups([(LITERAL, CANDIDATES[:2])], Settings(relevance="eq3", lm_relevance=0))[0]
    assert eq2.candidates[0].relevance == pytest.approx(1.9) and eq3.candidates[0].relevance == pytest.approx(3.0)
    assert eq2.candidates[0].logical_consistency == eq3.candidates[0].logical_consistency


def test_bad_groups_are_input_errors(small_kb):
    from studio.errors import InputError

    with pytest.raises(InputError):
        score_groups([(LITERAL, [])])
    with pytest.raises(InputError):
        score_groups([("", CANDIDATES)])
    with pytest.raises(InputError):
        score_groups([(LITERAL, "not a list")])


def test_cli_single_group(small_kb, capsys):
    argv = ["score", "--literal", LITERAL] + sum((["--candidate", c] for c in CANDIDATES), []) + ["--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["candidates"]) == 3 and out["settings"]["relevance"] == "eq2"
    assert main(["score", "--literal", LITERAL, "--candidate", CANDIDATES[0]]) == 0
    assert "backends:" in capsys.readouterr().out
    assert main(["score", "--literal", LITERAL]) == 2  # no candidate
    assert main(["score", "--literal", LITERAL, "--candidate", CANDIDATES[0], "--alpha", "-1"]) == 2
    capsys.readouterr()
    assert main(argv) == 0
    served = json.loads(capsys.readouterr().out)["settings"]
    assert (served["alpha"], served["beta"], served["gamma"]) == pytest.approx((5 / 6, 1 / 6, 0))
    assert main(argv + ["--paper-weights"]) == 0
    paper = json.loads(capsys.readouterr().out)["settings"]
    assert (paper["alpha"], paper["beta"], paper["gamma"]) == pytest.approx((3 / 6, 2 / 6, 1 / 6))
    assert main(argv[:-1] + ["--alpha", "5", "--beta", "1", "--gamma", "0", "--json"]) == 0  # parts, as the tab's
    parts = json.loads(capsys.readouterr().out)
    assert parts["settings"]["alpha"] == pytest.approx(5 / 6)
    assert all(0 <= c["quality"] <= 1 for c in parts["candidates"] if c["quality"] is not None)


def test_cli_marks_an_image_that_is_a_sign_and_moves_it_unless_the_papers_order(small_kb, capsys):
    argv = ["score", "--literal", "The music was loud.", "--candidate", "The music was as loud as a 🍋.",
            "--candidate", "The music was as loud as thunder."]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "🍋.  [no words: its image is an emoji or a sign" in out
    assert "or an image that is a sign or offensive, ranked" in out
    assert main(argv + ["--no-off-sentence", "--no-contradiction-gate"]) == 0
    out = capsys.readouterr().out
    assert "[no words" not in out and "images that are signs or offensive not moved (the paper's order)" in out


def test_cli_batch_reports_bad_lines(small_kb, tmp_path, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join([json.dumps({"literal": LITERAL, "candidates": CANDIDATES}), "{not json",
                              json.dumps({"literal": LITERAL, "candidates": []}),
                              json.dumps({"literal": LITERAL, "candidates": CANDIDATES[:1]})]) + "\n")
    assert main(["score", "--batch", str(src), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "line 2:" in err and "line 3:" in err and "line 1:" not in err
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [len(x["candidates"]) for x in lines] == [3, 1]


def test_inputs_parsing(tmp_path):
    assert candidates_from_lines(" a \n\n b\n") == ["a", "b"]
    path = tmp_path / "c.csv"
    path.write_text("literal,candidate\nL1,c1\nL1,c2\nL2,c3\n,c4\n", encoding="utf-8")
    assert groups_from_csv(path) == [("L1", ["c1", "c2"]), ("L2", ["c3"])]
    path.write_text("sentence,x\na,b\n", encoding="utf-8")
    from studio.errors import InputError

    with pytest.raises(InputError):
        groups_from_csv(path)


def test_fill_slot():
    assert fill_slot("Stefan moved [insert], every movement easy.", "like water") == \
        "Stefan moved like water, every movement easy."
    assert fill_slot("It ran down its panes [insert].", "") == "It ran down its panes."


def test_ranking_metrics_hand_computed():
    human = [["a", "b", "c"]]
    perfect = _ranking_metrics([[3.0, 2.0, 1.0]], [["a", "b", "c"]], human)
    assert perfect["HR@1"] == 1.0 and perfect["nDCG@3"] == 1.0 and perfect["MRR"] == 1.0
    # system order c, a, b: the human's best is second; rel (a, b, c) = (3, 2, 1)
    worse = _ranking_metrics([[2.0, 1.0, 3.0]], [["a", "b", "c"]], human)
    assert worse["HR@1"] == 0.0 and worse["HR@3"] == 1.0 and worse["MRR"] == 0.5
    assert worse["nDCG@1"] == pytest.approx(round(1 / 3, 3))
    import math

    dcg = 1 + 3 / math.log2(3) + 2 / 2
    idcg = 3 + 2 / math.log2(3) + 1 / 2
    assert worse["nDCG@3"] == pytest.approx(round(dcg / idcg, 3))


def test_rerank_api_end_to_end(client, small_kb):
    table, winner, chart, (csv_file, json_file), backends, _picker = client.predict(
        LITERAL, "\n".join(CANDIDATES), 0.5, 1 / 3, 1 / 6, 2, 2, 1, "eq2", api_name="/rerank")
    data = table["data"]
    assert len(data) == 3 and [row[0] for row in data] == [1, 2, 3]
    assert data[-1][1] == CANDIDATES[2]  # no simile → last
    labels = {entry["class_or_confidence"] if isinstance(entry, dict) else entry[1]
              for entry in (winner if isinstance(winner, list) else winner.get("value", []))}
    assert {"topic", "vehicle", "event"} <= labels
    assert "Backends" in backends
    with open(csv_file, encoding="utf-8") as fh:
        assert fh.readline().startswith("literal,rank,candidate")
    with open(json_file, encoding="utf-8") as fh:  # the JSON: the group as `score --batch` writes it
        saved = json.load(fh)["groups"]
    assert [g["literal"] for g in saved] == [LITERAL] and len(saved[0]["candidates"]) == 3


def test_rerank_api_rejects_empty_candidates(client, small_kb):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="candidate"):
        client.predict(LITERAL, "  \n ", 0.5, 1 / 3, 1 / 6, 2, 2, 1, "eq2", api_name="/rerank")


def test_cli_lm_weights(small_kb, capsys):
    base = ["score", "--literal", LITERAL, "--candidate", CANDIDATES[0], "--candidate", CANDIDATES[1], "--json"]
    assert main(base + ["--lm-relevance", "0", "--lm-creativity", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["settings"]["lm_relevance"] == 0 and out["candidates"][0]["relevance"] == pytest.approx(1.9)
    assert main(base + ["--lm-relevance", "-1"]) != 0
    assert "lm relevance" in capsys.readouterr().err
