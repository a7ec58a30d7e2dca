"""In headless Chromium, issue "What a visitor still hits" items 1, 2, 4 and 5: no result is shown for another input
than the one that made it — Send to Rerank waits for a Polish of the sentence in the box, an error or a Stop clears
the results it replaces and says why on the status line —, and Polish and Proverbs refuse, in one line, what they
cannot work with. One app server (the tiny profile) and one browser for the module."""
from __future__ import annotations

import re
import threading
import time

import pytest
from playwright.sync_api import expect

from conftest import close_toasts, needs_chromium, open_page, select_tab

pytestmark = [pytest.mark.browser, needs_chromium]
RESULT_TIMEOUT_MS = 120_000
RIVER, COFFEE = "The river was very slow.", "The coffee was very bitter."
SAVER = "Ana put aside a coin every week for years, and when the storm broke her roof she could pay to mend it."
GARDENER = "Tom planted seeds in spring, watered them every morning, and in autumn his garden fed the whole street."


@pytest.fixture
def fresh(browser, app_url, shots, request):
    page = open_page(browser, app_url)
    yield page
    page.screenshot(path=str(shots / f"stale-{request.node.name}.png"), full_page=True)
    page.close()


def _box(page, label: str):
    return page.get_by_label(label).filter(visible=True).first


def _polish(page, text: str):
    _box(page, "Literal sentence").fill(text)
    page.get_by_role("button", name="Polish", exact=True).click()


def _status(page) -> str:
    return page.locator("#polish-status").inner_text()


def _wait_status(page, selector: str, text: str, timeout: int = RESULT_TIMEOUT_MS):
    page.locator(selector).get_by_text(text, exact=False).first.wait_for(timeout=timeout)


def _close_toasts(page):
    close_toasts(page)


def _error_marks(page) -> int:
    """Gradio's "Error" mark on an output (it covered the status line, or Rerank's input boxes)."""
    return page.get_by_text("Error", exact=True).filter(visible=True).count()


def test_send_to_rerank_waits_for_the_sentence_in_the_box(fresh):
    """Item 1: river similes are never sent to be scored against a coffee sentence (nor after an error)."""
    page = fresh
    select_tab(page, "Polish")
    _polish(page, RIVER)
    _wait_status(page, "#polish-status", "candidates asked")
    send = page.locator("#polish-send")
    page.wait_for_function("() => !document.querySelector('#polish-send').disabled", timeout=10_000)
    _box(page, "Literal sentence").fill(COFFEE)
    page.wait_for_function("() => document.querySelector('#polish-send').disabled", timeout=10_000)
    assert "made for the previous sentence" in page.locator("#polish-stale").inner_text()
    _box(page, "Literal sentence").fill(RIVER)  # the sentence they were made for: sendable again
    page.wait_for_function("() => !document.querySelector('#polish-send').disabled", timeout=10_000)
    assert "previous sentence" not in page.locator("#polish-stale").inner_text()
    send.click()
    page.locator("#rerank-table").get_by_text("river", exact=False).filter(visible=True).first.wait_for(
        timeout=RESULT_TIMEOUT_MS)
    assert _box(page, "Literal sentence").input_value() == RIVER

    select_tab(page, "Polish")
    _polish(page, "")  # an error: nothing to send afterwards
    _wait_status(page, "#polish-status", "No result")
    page.wait_for_function("() => document.querySelector('#polish-send').disabled", timeout=10_000)
    assert "previous sentence" not in page.locator("#polish-stale").inner_text()  # no candidates are shown at all


def test_a_typo_offers_the_corrected_sentence_and_polishes_it(fresh):
    """A likely typo: the button under Polish offers the corrected sentence, a click puts it in the box and polishes it,
    and a sentence without one offers nothing."""
    page = fresh
    select_tab(page, "Polish")
    respell = page.locator("#polish-respell")
    assert not respell.is_visible()
    _polish(page, "The river was vrey slow.")
    _wait_status(page, "#polish-status", "candidates asked")
    respell.wait_for(state="visible", timeout=10_000)
    assert respell.inner_text() == "Polish “The river was very slow.” instead"
    assert "vrey" in _status(page)
    respell.click()
    page.wait_for_function("() => document.querySelector('#polish-status').innerText.includes('candidates asked') && "
                           "!document.querySelector('#polish-status').innerText.includes('vrey')",
                           timeout=RESULT_TIMEOUT_MS)
    assert _box(page, "Literal sentence").input_value() == "The river was very slow."
    assert not respell.is_visible()
    assert "vrey" not in page.locator("#polish-table").inner_text()


def test_a_refused_simile_offers_the_sentence_without_it(fresh):
    """A sentence that already holds a simile is refused with the reason, and the button under Polish offers the
    sentence without it; a click polishes that."""
    page = fresh
    select_tab(page, "Polish")
    offer = page.locator("#polish-respell")
    _polish(page, "Her eyes were as blue as the sea.")
    _wait_status(page, "#polish-status", "already holds a simile")
    offer.wait_for(state="visible", timeout=10_000)
    assert offer.inner_text() == "Polish “Her eyes were blue.” instead"
    offer.click()
    _wait_status(page, "#polish-status", "candidates asked")
    assert _box(page, "Literal sentence").input_value() == "Her eyes were blue."
    assert not offer.is_visible() and " as as " not in page.content()


def test_send_refuses_a_sentence_its_candidates_were_not_made_for():
    """Item 1 on the server: the Send handler itself refuses a box that changed (a click racing the button's state)."""
    import gradio as gr

    from studio.ui.rerank_tab import fill_from_polish

    assert fill_from_polish(RIVER, ["The river was as slow as a snail."], RIVER) == (
        RIVER, "The river was as slow as a snail.")
    with pytest.raises(gr.Error, match="previous sentence"):
        fill_from_polish(COFFEE, ["The river was as slow as a snail."], RIVER)
    with pytest.raises(gr.Error, match="no candidates"):
        fill_from_polish(RIVER, [], RIVER)
    # a page opened from a shared link: no candidates in the session, those of the Details table it restored
    shown = {"headers": ["candidate"], "data": [["The river was as slow as a snail."], [""]]}
    assert fill_from_polish(RIVER, [], "", shown) == (RIVER, "The river was as slow as a snail.")
    with pytest.raises(gr.Error, match="no candidates"):
        fill_from_polish(RIVER, [], "", {"headers": [], "data": []})


REFUSED = [("Hello.", "Nothing to polish"),
           ("Her eyes were as blue as the sea.", "already holds a simile"),
           ("הנהר היה איטי מאוד.", "works in English")]


def test_polish_and_proverbs_refuse_what_they_cannot_work_with(fresh):
    """Item 2: a one-line refusal on the status line, and no candidate (no "Hello like a dog."); Proverbs gives
    "Hello." a refusal on the status line, not five proverbs. One page: each refusal replaces the one before."""
    page = fresh
    select_tab(page, "Polish")
    for text, message in REFUSED:
        _polish(page, text)
        _wait_status(page, "#polish-status", message)
        assert _status(page).count("\n") == 0, text
        assert page.locator("#polish-table").get_by_text(text.split()[0], exact=False).filter(
            visible=True).count() == 0, text
        assert " as as " not in page.content()
    select_tab(page, "Proverbs")
    _box(page, "Narrative").fill("Hello.")
    page.get_by_role("button", name="Recommend proverbs", exact=True).click()
    page.get_by_text("too short to carry a proverb").filter(visible=True).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    assert page.get_by_text("Scoring:").filter(visible=True).count() == 0


def test_an_error_clears_the_results_it_replaces(fresh, tmp_path):
    """Item 4: after a good run, a refused input leaves no earlier result on screen, and no "Error" mark over the
    status line or the input boxes; the status line says why."""
    page = fresh
    select_tab(page, "Polish")
    _polish(page, "He yelps and howls.")
    _wait_status(page, "#polish-status", "candidates asked")
    # the status line and the table are two outputs: wait for the table's rows too
    page.locator("#polish-table").get_by_text("howls", exact=False).filter(visible=True).first.wait_for(
        timeout=RESULT_TIMEOUT_MS)
    _polish(page, "")
    _wait_status(page, "#polish-status", "No result: Please enter a literal sentence")
    page.wait_for_timeout(1_000)
    assert page.locator("#polish-table").get_by_text("howls", exact=False).filter(visible=True).count() == 0
    assert page.get_by_text("candidates asked").filter(visible=True).count() == 0
    _close_toasts(page)
    assert _error_marks(page) == 0

    select_tab(page, "Rerank")
    page.get_by_role("button", name="Rerank", exact=True).click()
    page.locator("#rerank-table").get_by_text("like a child").filter(visible=True).first.wait_for(
        timeout=RESULT_TIMEOUT_MS)
    bad = tmp_path / "foo.csv"
    bad.write_text("foo,bar\na,b\n")
    page.locator("#rerank-upload input[type=file]").set_input_files(str(bad))
    _wait_status(page, "#rerank-status", "No result")
    page.wait_for_timeout(1_000)
    assert "like a child" not in page.locator("#rerank-table").inner_text()
    # the refused file is not left attached (the box would list it by its name, "foo")
    page.wait_for_function("() => !document.querySelector('#rerank-upload').innerText.includes('foo')",
                           timeout=10_000)
    _close_toasts(page)
    assert _error_marks(page) == 0  # neither over the table nor over the literal and candidate boxes

    select_tab(page, "Continue")
    _box(page, "Narrative").fill("After three nights without sleep, Marco lay down on the sofa and slept like a log.")
    page.get_by_role("button", name="Continue", exact=True).click()
    _wait_status(page, "#continue-info", "samples in")
    _box(page, "Narrative").fill("")
    page.get_by_role("button", name="Continue", exact=True).click()
    _wait_status(page, "#continue-info", "No result")
    page.wait_for_timeout(1_000)
    assert page.get_by_text(re.compile(r"\bsamples? in ")).filter(visible=True).count() == 0
    assert page.get_by_text("slept like a log").filter(visible=True).count() == 0  # the old narrative's highlight
    _close_toasts(page)
    assert _error_marks(page) == 0


def _slow_down(monkeypatch, module, name: str, seconds: float) -> tuple[threading.Event, threading.Event]:
    """The server's `module.name` waits `seconds` before each call, so that a run is still going when Stop comes.
    Returns two events: a slowed call has started; a slowed call has returned (the server runs in this process)."""
    real = getattr(module, name)
    started, returned = threading.Event(), threading.Event()

    def slow(*args, **kwargs):
        started.set()
        time.sleep(seconds)
        try:
            return real(*args, **kwargs)
        finally:
            returned.set()

    monkeypatch.setattr(module, name, slow)
    return started, returned


def test_stop_clears_and_says_stopped(fresh, monkeypatch):
    """Item 5: Stop during a run leaves no earlier sentence's candidates and says it stopped."""
    page = fresh
    from studio.similes import polish as P

    select_tab(page, "Polish")
    _polish(page, RIVER)
    _wait_status(page, "#polish-status", "candidates asked")
    started, returned = _slow_down(monkeypatch, P, "vehicles_by_retrieval", 4)
    _polish(page, COFFEE)
    _wait_status(page, "#polish-status", "Polishing", 10_000)
    # under the buttons too, where a laptop's screen still shows it: the run's progress, in plain words
    _wait_status(page, "#polish-stale", "source", 10_000)
    assert started.wait(RESULT_TIMEOUT_MS / 1000)  # the run is inside its slowed step: Stop comes mid-way
    page.get_by_role("button", name="Stop", exact=True).filter(visible=True).first.click()
    _wait_status(page, "#polish-status", "Stopped", 10_000)
    page.wait_for_function("() => !document.querySelector('#polish-stale').innerText.includes('source')",
                           timeout=10_000)
    assert page.get_by_role("cell", name="river", exact=False).filter(visible=True).count() == 0
    assert returned.wait(30)  # the worker ends at its next step; nothing arrives after Stop
    page.wait_for_timeout(2_000)
    assert "Stopped" in _status(page) or "stopped" in _status(page)
    assert page.get_by_text("candidates asked").filter(visible=True).count() == 0


def test_continue_stop_clears_and_says_stopped(fresh, monkeypatch):
    """Item 5 in Continue: Stop leaves no earlier narrative's continuations and says it stopped."""
    from studio.continuation import decoding

    page = fresh
    select_tab(page, "Continue")
    page.get_by_label("plain", exact=True).filter(visible=True).first.check()
    _box(page, "Narrative").fill("After three nights without sleep, Marco lay down on the sofa and slept like a log.")
    page.get_by_role("button", name="Continue", exact=True).click()
    _wait_status(page, "#continue-info", "samples in")
    # a paper's system says it is one (a visitor read its off-story lines with nothing to say so)
    info = page.locator("#continue-info").inner_text()
    assert "plain mode is one of the paper's systems" in info and "*plain*" not in info
    started, _ = _slow_down(monkeypatch, decoding, "_draw", 0.5)
    _box(page, "Narrative").fill("The night was dark and the wind howled like a wolf.")
    page.get_by_role("button", name="Continue", exact=True).click()
    _wait_status(page, "#continue-info", "Continuing", 10_000)
    assert started.wait(RESULT_TIMEOUT_MS / 1000)  # drawing has begun: Stop comes mid-way
    page.get_by_role("button", name="Stop", exact=True).filter(visible=True).first.click()
    _wait_status(page, "#continue-info", "stopped", 10_000)
    page.wait_for_timeout(2_000)
    assert page.get_by_text(re.compile(r"\bsamples? in ")).filter(visible=True).count() == 0
    assert page.get_by_text("slept like a log").filter(visible=True).count() == 0


def test_continue_says_when_its_continuations_are_for_the_previous_narrative(fresh):
    """A visitor clicked the Judge example after a Continue run: the box held the example's story, and the old
    story's continuations stayed under it with nothing to say so. A note under Continue says so until the box holds
    their story again, or a run replaces them."""
    from studio.ui.continue_tab import JUDGE_EXAMPLES

    story = "After three nights without sleep, Marco lay down on the sofa and slept like a log."
    page = fresh
    select_tab(page, "Continue")
    page.get_by_label("plain", exact=True).filter(visible=True).first.check()
    _box(page, "Narrative").fill(story)
    page.get_by_role("button", name="Continue", exact=True).click()
    _wait_status(page, "#continue-info", "samples in")
    stale = page.locator("#continue-stale")
    assert "previous narrative" not in stale.inner_text()
    page.get_by_text(JUDGE_EXAMPLES[0][1][:30], exact=False).filter(visible=True).first.click()
    expect(stale).to_contain_text("for the previous narrative", timeout=10_000)
    _box(page, "Narrative").fill(story)  # their story again: no note
    expect(stale).not_to_contain_text("previous narrative", timeout=10_000)
    _box(page, "Narrative").fill(JUDGE_EXAMPLES[0][0])
    expect(stale).to_contain_text("for the previous narrative", timeout=10_000)
    page.get_by_role("button", name="Continue", exact=True).click()  # a run for the box's story: the note goes
    _wait_status(page, "#continue-info", "samples in")
    expect(stale).not_to_contain_text("previous narrative", timeout=10_000)


def test_the_failure_line_shows_a_message_as_text():
    """A message may quote the input (Rerank's CSV errors do): the status line escapes it, on one line."""
    import gradio as gr

    from studio.ui.common import failed_run, guarded

    request = gr.Request(session_hash="stale-test")

    @guarded
    def refuse(text, request: gr.Request = None):
        raise gr.Error(f"The literal sentence “{text}”\nhas too many candidates.")

    with pytest.raises(gr.Error):
        refuse("<img src=x onerror=alert(1)> [link](http://x)", request)
    table, line = failed_run(None)(request)
    assert table is None and "\n" not in line and line.startswith("⚠️ No result: ")
    assert "<img" not in line and "&lt;img" in line and "\\[link\\]" in line
    assert failed_run(None)(request)[1] == "⚠️ No result: the run ended with an error."  # read once


def test_an_over_long_input_clears_the_results_and_says_why(fresh):
    """A text over its limit is refused before the run (a toast names the limit); the results of the earlier input go
    too, and the status line says why, as for any other refusal (found on a clean clone, 2026-11-29)."""
    select_tab(fresh, "Rerank")
    fresh.get_by_role("button", name="Rerank", exact=True).click()
    fresh.locator("#rerank-table").get_by_text("like a child").filter(visible=True).first.wait_for(
        timeout=RESULT_TIMEOUT_MS)
    _box(fresh, "Literal sentence").fill("word " * 500)  # 2,500 characters; the limit is 2,000
    fresh.get_by_role("button", name="Rerank", exact=True).click()
    _wait_status(fresh, "#rerank-status", "characters long")
    assert "No result" in fresh.locator("#rerank-status").inner_text()
    assert "like a child" not in fresh.locator("#rerank-table").inner_text()


def test_proverbs_align_and_similar_clear_on_an_over_long_narrative(fresh):
    """Align and Find similar refuse an over-long narrative as the main run does: the aligned pairs and the similar
    narratives of the earlier one go, and each section's own line, under its button, says why (the ranking's line
    stays); a later Align within the limit takes that line away."""
    page = fresh
    select_tab(page, "Proverbs")
    _box(page, "Narrative").fill("The fox could not reach the grapes, so it said they were sour anyway. " * 3)
    page.get_by_role("button", name="Recommend proverbs", exact=True).click()
    _wait_status(page, "#proverbs-status", "Scoring:")
    words = re.compile(r"fox|could|reach|grapes|said|they|were|sour|anyway")  # a narrative span holds one
    page.locator("#proverbs-pairs").get_by_text(words).filter(visible=True).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    page.get_by_role("button", name="Find similar narratives", exact=True).click()
    page.locator("#proverbs-similar").get_by_text("neighbour", exact=False).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    _box(page, "Narrative").fill("word " * 1000)  # over the narrative's limit
    page.get_by_role("button", name="Align", exact=True).click()
    _wait_status(page, "#proverbs-align-status", "No result")
    assert "characters long" in page.locator("#proverbs-align-status").inner_text()
    expect(page.locator("#proverbs-pairs")).not_to_contain_text(words, timeout=RESULT_TIMEOUT_MS)
    assert "Scoring:" in page.locator("#proverbs-status").inner_text()
    _close_toasts(page)
    page.get_by_role("button", name="Find similar narratives", exact=True).click()
    _wait_status(page, "#proverbs-similar-status", "No result")
    expect(page.locator("#proverbs-similar")).not_to_contain_text("neighbour", timeout=RESULT_TIMEOUT_MS)
    _close_toasts(page)
    # a narrative within the limit: Align shows its pairs and the refusal's line goes
    _box(page, "Narrative").fill("The fox could not reach the grapes, so it said they were sour anyway. " * 3)
    page.get_by_role("button", name="Align", exact=True).click()
    page.locator("#proverbs-pairs").get_by_text(words).filter(visible=True).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#proverbs-align-status")).not_to_contain_text("No result", timeout=10_000)
    # the ranking refuses an over-long narrative; an Align that answers afterwards takes that refusal off its line
    _box(page, "Narrative").fill("word " * 1000)
    page.get_by_role("button", name="Recommend proverbs", exact=True).click()
    _wait_status(page, "#proverbs-status", "No result")
    _close_toasts(page)
    # the refusal took the last ranking's proverbs away, the Proverb box's too (it kept the first one before
    # `common.fresh`): a proverb typed there is aligned
    expect(page.locator("#proverbs-proverb input")).to_have_value("", timeout=10_000)
    _box(page, "Narrative").fill("The fox could not reach the grapes, so it said they were sour anyway. " * 3)
    page.locator("#proverbs-proverb input").fill("Sour grapes")
    page.get_by_role("button", name="Align", exact=True).click()
    page.locator("#proverbs-pairs").get_by_text(words).filter(visible=True).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    expect(page.locator("#proverbs-status")).not_to_contain_text("No result", timeout=10_000)


def test_section_buttons_say_why_under_themselves(fresh):
    """Show components and Judge, each a section's own button: a refusal (emoji alone; no judge in the tiny profile)
    is written on the section's line under the button, and the section's earlier result goes, with no bare "Error"
    on its outputs."""
    page = fresh
    select_tab(page, "Polish")
    parts = page.locator("#components-parts")
    page.get_by_role("button", name="Show components", exact=True).click()  # the example simile
    parts.get_by_text("child").first.wait_for(timeout=RESULT_TIMEOUT_MS)
    _box(page, "Simile sentence").fill("😀😀🔥")
    page.get_by_role("button", name="Show components", exact=True).click()
    _wait_status(page, "#components-status", "No result")
    assert "no words" in page.locator("#components-status").inner_text()
    expect(parts).not_to_contain_text("child", timeout=10_000)
    assert parts.get_by_text("Error", exact=True).count() == 0
    _close_toasts(page)

    select_tab(page, "Continue")
    _box(page, "Narrative").fill("He had worked all night, and in the morning he was [as tired as a dog].")
    _box(page, "Continuation 1").fill("He went straight to bed.")
    page.get_by_role("button", name="Judge", exact=True).click()
    _wait_status(page, "#judge-status", "No result")
    assert "Please enter continuation 2" in page.locator("#judge-status").inner_text()


def test_rerank_says_when_its_table_scored_other_text_than_the_boxes_hold(fresh, monkeypatch):
    """A visitor pressed Rerank, changed the sentence and emptied the candidates while it ran, and pressed again:
    Gradio drops that press, and the first sentence's table stayed under the new text with no word. The line under
    Rerank now says so whenever the boxes differ from the texts the table scored, and goes when they match again."""
    page = fresh
    from studio.ui import rerank_tab

    select_tab(page, "Rerank")
    literal = _box(page, "Literal sentence")
    candidates = page.get_by_label("Candidates (one per line", exact=False).filter(visible=True).first
    literal.fill(RIVER)
    candidates.fill("The river was as slow as a snail.\nThe river was slow like honey.")
    started, returned = _slow_down(monkeypatch, rerank_tab, "rerank", 3)
    page.locator("#rerank-go").click()
    assert started.wait(RESULT_TIMEOUT_MS / 1000)
    literal.fill(COFFEE)
    candidates.fill("")
    page.locator("#rerank-go").click()  # during the run
    assert returned.wait(RESULT_TIMEOUT_MS / 1000)
    page.wait_for_timeout(4_000)  # whatever Gradio does with the second press has happened
    table = page.locator("#rerank-table").inner_text()
    note = page.locator("#rerank-other-text").inner_text()
    if "snail" in table:  # the first run's table under the coffee sentence: said
        assert "scored other text than the boxes hold" in note, (table, note)
    else:
        assert "scored other text" not in note
    literal.fill(RIVER)
    candidates.fill("The river was slow like honey.\nThe river was  as slow as a snail.")  # order and spaces alike
    page.wait_for_function("() => !/other text/.test(document.querySelector('#rerank-other-text')?.innerText"
                           " || '') && /snail/.test(document.querySelector('#rerank-table')?.innerText || '')",
                           timeout=RESULT_TIMEOUT_MS)
    literal.fill(COFFEE)  # an edit of a scored table's sentence
    page.wait_for_function("() => /other text/.test(document.querySelector('#rerank-other-text')?.innerText || '')",
                           timeout=10_000)


def test_proverbs_says_when_its_proverbs_were_ranked_for_another_narrative(fresh, monkeypatch):
    """A visitor ranked proverbs for one story, replaced it, and read its proverbs (and downloads) under the new one
    with no word; a press during a run is dropped by Gradio alike. The line under the button says so."""
    page = fresh
    from studio.ui import proverbs_tab

    select_tab(page, "Proverbs")
    story = _box(page, "Narrative")
    story.fill(SAVER)
    started, returned = _slow_down(monkeypatch, proverbs_tab, "ranking", 3)
    slowed, stories = proverbs_tab.ranking, []
    monkeypatch.setattr(proverbs_tab, "ranking", lambda narrative, k: stories.append(narrative) or slowed(narrative, k))
    page.locator("#proverbs-go").click()
    assert started.wait(RESULT_TIMEOUT_MS / 1000)
    story.fill(GARDENER)
    page.locator("#proverbs-go").click()  # during the run
    assert returned.wait(RESULT_TIMEOUT_MS / 1000)
    page.wait_for_timeout(4_000)  # whatever Gradio does with the second press has happened
    note = page.locator("#proverbs-other-text").inner_text()
    assert page.locator("#proverbs-table").inner_text().strip()
    if stories[-1].strip() == SAVER:  # the press was dropped: the saver's proverbs under the gardener's story
        assert "another narrative than the box holds" in note, (stories, note)
    else:
        assert "another narrative" not in note, (stories, note)
    story.fill("  " + SAVER.replace(" ", "  "))  # the story ranked, spaced differently: no note
    page.wait_for_function("() => !/another narrative/.test(document.querySelector('#proverbs-other-text')"
                           "?.innerText || '')", timeout=10_000)
    story.fill(GARDENER)  # an edit under a ranked table
    page.wait_for_function("() => /another narrative/.test(document.querySelector('#proverbs-other-text')"
                           "?.innerText || '')", timeout=10_000)
    page.locator("#proverbs-go").click()  # ranked for the box: the note goes
    page.wait_for_function("() => !/another narrative/.test(document.querySelector('#proverbs-other-text')"
                           "?.innerText || '')", timeout=RESULT_TIMEOUT_MS)


def test_a_refused_story_leaves_no_proverb_of_the_last_one_in_the_align_box(fresh):
    """A visitor ranked proverbs for a story, then typed "Hi you": it was refused, yet the Proverb box still held the
    last story's first proverb. The run's first step returns the same `gr.update(choices=[], value=None)` every time,
    and Gradio consumes the dict it is given: from the second run on it changed nothing (`common.fresh`)."""
    page = fresh
    select_tab(page, "Proverbs")
    story = _box(page, "Narrative")
    chosen = page.locator("#proverbs-proverb input")
    for _ in range(2):  # the second success is what the first's consumed update broke
        story.fill(SAVER)
        page.locator("#proverbs-go").click()
        expect(chosen).not_to_have_value("", timeout=RESULT_TIMEOUT_MS)
        story.fill("Hi you")
        page.locator("#proverbs-go").click()
        _wait_status(page, "#proverbs-status", "too short")
        expect(chosen).to_have_value("", timeout=10_000)
