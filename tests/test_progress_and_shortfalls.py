"""Issue 19 items 5 and 6: Polish and Continue report progress that follows the work and stop when told; a shortfall
(fewer candidates, fewer distinct samples, a sentence cut by the token limit) is said, with the reason."""
from __future__ import annotations

import pytest

from studio.continuation.generate import Settings, continue_narrative
from studio.errors import Stopped
from studio.similes.polish import STRATEGIES, polish

NARRATIVE = "Nora dropped her notes on the stage, so she had to [wing it]."


def _recorder():
    calls = []
    return calls, lambda fraction, what: calls.append((fraction, what))


def test_polish_progress_moves_per_strategy_and_batch():
    calls, progress = _recorder()
    cands = polish("He yelps and howls.", n=10, strategies=list(STRATEGIES), seed=0, progress=progress)
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and 0 < fractions[0] < 0.1 and fractions[-1] >= 0.65
    assert sum(what.startswith("source") and " – " not in what for _, what in calls) == len(STRATEGIES)
    # within the LM's strategy the bar follows its decoding steps, and the run does not sit on one number
    lm = [(f, what) for f, what in calls if what.startswith("source") and ": lm – " in what]
    assert len(lm) >= 2 and "step 1/" in lm[0][1] and lm[-1][0] > lm[0][0]
    assert any("scoring candidates" in what for _, what in calls)
    assert len({round(f, 3) for f in fractions}) >= len(STRATEGIES) + 2  # not one number for the whole run
    assert cands == polish("He yelps and howls.", n=10, strategies=list(STRATEGIES), seed=0)  # same result


def test_polish_stops_when_told():
    calls, progress = _recorder()
    with pytest.raises(Stopped):
        polish("He yelps and howls.", n=10, seed=0, progress=progress, should_stop=lambda: len(calls) >= 2,
               strategies=["lm", "retrieval", "property"])
    assert len(calls) == 2  # nothing ran after the stop was seen


def test_polish_says_why_it_delivers_fewer():
    from studio.similes.polish import STRATEGIES, _more_sources

    report = polish("He yelps and howls.", n=50, strategies=["property"], seed=0)
    cands = report.candidates
    assert report.asked == 50 and report.delivered == len(cands) < 50
    assert f"{len(cands)} of the 50 candidates asked" in report.shortfall
    assert "property" in report.shortfall
    # the advice names the sources left unticked, and none when all are (a visitor with all six was told to add some)
    assert "Add sources (images, writer, lm, retrieval, insertion) or try another sentence." in report.shortfall
    assert _more_sources(STRATEGIES) == (" Try another seed (it draws the lm and writer sources' samples anew, though "
                                         "they often name the same images) or try another sentence.")
    assert "the writer source's samples" in _more_sources(("writer", "images"))  # the seed samples the writer too
    full = polish("He yelps and howls.", n=1, seed=0, strategies=["lm", "retrieval", "property"])
    assert full.delivered == 1 and full.shortfall == ""


def test_the_shortfall_accounts_for_every_proposal():
    # a visitor's "The lake was calm." with 50 asked read "images 2, lm 13, retrieval 23, property 12 proposals; 2
    # merged …, 6 dropped": 42, where 28 came; the 14 lines two sources both wrote went uncounted
    import re

    report = polish("Her voice was very loud.", n=50, seed=0, strategies=["retrieval", "property", "insertion"])
    said = report.shortfall
    proposals = sum(int(k) for k in re.findall(r"(?:retrieval|property|insertion) (\d+)", said.split(";")[0]))
    repeated = int(m.group(1)) if (m := re.search(r"(\d+) lines? another proposal also wrote", said)) else 0
    merged = int(re.search(r"(\d+) merged as near duplicates", said).group(1))
    dropped = int(re.search(r"(\d+) dropped as ungrammatical", said).group(1))
    opposite = int(m.group(1)) if (m := re.search(r"(\d+) whose vehicle suits the opposite", said)) else 0
    weak = int(m.group(1)) if (m := re.search(r"(\d+) scored below", said)) else 0
    assert proposals - repeated - merged - dropped - opposite - weak == report.delivered, said
    # a source that proposes nothing says why, not "only 0 … exist"
    none = polish("The cat sat on the mat.", n=10, seed=0, strategies=["images"])
    assert none.delivered == 0 and none.shortfall.startswith("No candidate: no simile could be made")
    assert "an adjective" in none.shortfall and "only 0" not in none.shortfall


def test_continue_progress_follows_decoding_steps():
    calls, progress = _recorder()
    result = continue_narrative(NARRATIVE, Settings(mode="tuned", n=3, max_new_tokens=12, seed=1), progress=progress)
    steps = [what for _, what in calls if what.startswith("decoding token")]
    longest = max(c.tokens for c in result.continuations)
    assert len(steps) >= longest >= 1  # one report per decoding step
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] >= 0.9


def test_continue_stops_within_a_step():
    calls, progress = _recorder()
    with pytest.raises(Stopped):
        continue_narrative(NARRATIVE, Settings(mode="tuned", n=3, max_new_tokens=40, seed=1), progress=progress,
                           should_stop=lambda: sum(w.startswith("decoding token") for _, w in calls) >= 2)
    assert sum(w.startswith("decoding token") for _, w in calls) == 2


def test_continue_says_fewer_distinct_samples():
    # greedy: all alike; tuned mode draws its pool of 16 for the 6 asked
    result = continue_narrative(NARRATIVE, Settings(mode="tuned", n=6, temperature=0.0, max_new_tokens=8))
    assert len(result.continuations) == 1 and result.continuations[0].samples == result.drawn == 16
    assert any("1 distinct continuation from the 16 samples drawn for the 6 asked" in line
               for line in result.shortfall)
    plain = continue_narrative(NARRATIVE, Settings(mode="plain", n=6, temperature=0.0, max_new_tokens=8))
    assert len(plain.continuations) == 1 and plain.continuations[0].samples == plain.drawn == 6
    assert any("1 distinct continuation from the 6 samples asked" in line for line in plain.shortfall)


def test_continue_never_hides_a_cut_sentence():
    result = continue_narrative(NARRATIVE, Settings(mode="tuned", n=2, max_new_tokens=1, seed=0))
    for c in result.continuations:
        assert c.cut or c.text.rstrip("\"')]").endswith((".", "!", "?"))
    assert any(c.cut for c in result.continuations)  # one token ends no sentence of the tiny lm
    assert any("limit of 1 new tokens" in line for line in result.shortfall)
    complete = continue_narrative(NARRATIVE, Settings(mode="tuned", n=2, max_new_tokens=60, seed=0))
    assert all(c.cut or c.text.rstrip("\"')]").endswith((".", "!", "?")) for c in complete.continuations)


def test_the_page_shows_the_shortfalls(client):
    status = client.predict("He yelps and howls.", ["property"], 50, 0, api_name="/polish")[2]
    assert status.startswith("⚠️") and "of the 50 candidates asked" in status
    info = client.predict(NARRATIVE, "plain", 5, 0, 5, 0.0, 8, api_name="/continue")[1]
    assert "1 distinct continuation from the 5 samples asked" in info


def test_cli_polish_says_the_shortfall(capsys):
    from studio.cli import main

    assert main(["polish", "He yelps and howls.", "--n", "20", "--strategies", "property"]) == 0
    assert "of the 20 candidates asked" in capsys.readouterr().out


def test_the_status_says_how_the_list_runs_after_the_writers_reread():
    """A visitor's list of 50 read "best first by keep" and ran 0.13, 0.22, 0.17 from place 21: the writer rereads
    the best 20; the line says the rest keep their earlier order, the image table's and the writer's images in their
    own order."""
    from dataclasses import replace

    from studio.similes.ranking import WRITER_READS_TOP
    from studio.ui.polish_tab import _status

    result = polish("He yelps and howls.", n=25, seed=0, strategies=["property", "insertion"])
    assert result.delivered > WRITER_READS_TOP
    reread = replace(result, reread=True, ranked_by="keep, reread by the writer", shortfall="")
    line = _status(reread, True, ["property", "insertion"])
    assert f"from place {WRITER_READS_TOP + 1} the list keeps the order it had before it, by keep)" in line
    mixed = replace(reread, candidates=[*reread.candidates[:WRITER_READS_TOP],
                                        replace(reread.candidates[WRITER_READS_TOP], strategy="writer"),
                                        *reread.candidates[WRITER_READS_TOP + 1:]])
    assert "the image table's and the writer's images in their own order, the others by keep)" in _status(
        mixed, True, ["writer"])
    short = replace(reread, candidates=reread.candidates[:10], delivered=10)
    assert "from place" not in _status(short, True, ["property"])


def test_a_line_broken_off_before_the_token_limit_is_not_said_to_have_reached_it():
    """A visitor's plain-mode line "He said: …" (6 tokens, the model wrote a new line) was said to have "reached the
    limit of 20 new tokens" while the download said 6 tokens: a line that ended early is said to have ended early,
    and raising the limit is advised only for lines the limit cut."""
    from studio.continuation.generate import Ranked, shortfall_lines

    s = Settings(mode="plain", n=2, max_new_tokens=20).check()
    lines = shortfall_lines([Ranked("He said:", None, 6, cut=True), Ranked("She ran and ran", None, 20, cut=True)], s)
    assert [line.split(" ", 1)[0] for line in lines] == ["1", "1"]
    assert "reached the limit of 20 new tokens" in lines[0] and "ended before its sentence did" in lines[1]
    early = shortfall_lines([Ranked("He said:", None, 6, cut=True), Ranked("He left.", None, 4)], s)
    assert len(early) == 1 and "ended before" in early[0] and "Raise Max new tokens" not in early[0]


def test_a_sentence_of_the_story_is_no_continuation(monkeypatch):
    """A visitor was offered "I went to the shop on Tuesday and bought some milk and a loaf of bread.", their own
    story's sentence, as a continuation of it (closeness 1.00); a long story's earlier sentence came back too. Such a
    sample is dropped and the shortfall says so."""
    from studio.continuation import generate
    from studio.continuation.decoding import Sample

    story = "The children played by the river every day. I went to the shop on Tuesday and bought some milk."
    drawn = [Sample("I went to the shop on Tuesday and bought some milk.", 12),
             Sample("the children played by the river every day", 9),
             Sample("She put the milk in the fridge.", 8), Sample("She put the milk in the fridge.", 8)]
    monkeypatch.setattr(generate, "ensemble_sample", lambda *a, **k: list(drawn))
    result = continue_narrative(story, Settings(mode="plain", n=4, seed=0))
    assert [c.text for c in result.continuations] == ["She put the milk in the fridge."]
    assert any("1 distinct continuation from the 4 samples asked: of the others, 2 repeated a sentence of the "
               "story and were dropped and 1 repeated one already listed (the downloads' samples column counts it)"
               in line for line in result.shortfall)
