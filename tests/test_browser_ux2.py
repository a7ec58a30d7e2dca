"""In headless Chromium, the rest of issue 19: Rerank's CSV upload (a bad file clears the results; every literal of a
good one is scored and selectable), Polish's shortfall line, the Stop buttons and the downloads, and Rerank's buttons
that set the paper's and the served quality weights (every tab at 1400×1000 and on a 390×844 phone, with its result:
tests/test_browser_layout.py). One app server and one browser for the module."""
from __future__ import annotations

import pytest

from conftest import SIZES, close_toasts, needs_chromium, open_page, select_tab

pytestmark = [pytest.mark.browser, needs_chromium]
RESULT_TIMEOUT_MS = 120_000
LAPTOP, PHONE = SIZES
MULTI_CSV = ("literal,candidate\nHe is fast.,He is as fast as a cheetah.\nThe lake was calm.,The lake was calm like "
             "a mirror.\nHe is fast.,He is fast like wind.\nThe night was dark.,The night was dark as ink.\n")


def _wait_in_table(page, text: str, timeout: int = RESULT_TIMEOUT_MS):
    page.locator("#rerank-table").get_by_text(text).filter(visible=True).first.wait_for(timeout=timeout)


def _table_texts(page) -> str:
    return page.locator("#rerank-table").inner_text()


def test_rerank_csv_bad_file_clears_and_every_literal_is_scored(browser, app_url, shots, tmp_path):
    """On the phone, where the literal picker is hardest to reach (the flow itself does not depend on the width;
    every tab's layout is checked at both sizes in test_browser_layout.py)."""
    width, height = PHONE
    page = open_page(browser, app_url, width, height)
    size = f"{width}x{height}"
    try:
        select_tab(page, "Rerank")
        page.get_by_role("button", name="Rerank", exact=True).click()
        _wait_in_table(page, "like a child")

        bad = tmp_path / "bad.csv"
        bad.write_text("sentence,simile\na,b\n")
        page.locator("#rerank-upload input[type=file]").set_input_files(str(bad))
        # the error itself (the upload's label also names the columns)
        page.get_by_text("its header is sentence,simile").first.wait_for(timeout=RESULT_TIMEOUT_MS)
        page.wait_for_timeout(1_500)
        assert "like a child" not in _table_texts(page)  # no stale result under the error
        assert page.locator("#rerank-winner").get_by_text("Paganel").count() == 0
        page.screenshot(path=str(shots / f"rerank-bad-csv-{size}.png"), full_page=True)
        close_toasts(page)  # skips a toast that fades by itself meanwhile

        # the refused file has left the upload box by itself: a good one goes straight in
        assert page.locator("#rerank-upload").get_by_role("button", name="Clear").count() == 0
        # Rerank waits while a file is read, and is usable again after a refused one
        page.wait_for_function("() => !document.querySelector('#rerank-go').disabled", timeout=10_000)
        good = tmp_path / "three.csv"
        good.write_text(MULTI_CSV)
        page.locator("#rerank-upload input[type=file]").set_input_files(str(good))
        _wait_in_table(page, "cheetah")
        page.wait_for_function("() => !document.querySelector('#rerank-go').disabled", timeout=10_000)
        picker = page.locator("#rerank-group")
        picker.wait_for(state="visible", timeout=10_000)
        assert "3 scored from the CSV" in picker.inner_text()
        picker.locator("input").click()
        page.get_by_role("option", name="2. The lake was calm.", exact=False).click()
        _wait_in_table(page, "like a mirror", 20_000)
        assert "cheetah" not in _table_texts(page)
        assert page.get_by_label("Literal sentence").filter(visible=True).first.input_value() == "The lake was calm."
        page.screenshot(path=str(shots / f"rerank-csv-groups-{size}.png"), full_page=True)

        # Rerank (say, after new weights) scores the whole file again and keeps the chosen literal on screen
        page.get_by_role("button", name="Rerank", exact=True).click()
        page.wait_for_timeout(500)  # the run's first step (no queue) has begun
        page.locator("#rerank-status").get_by_text("Scoring…").wait_for(state="hidden", timeout=RESULT_TIMEOUT_MS)
        _wait_in_table(page, "like a mirror", 20_000)
        picker.wait_for(state="visible", timeout=10_000)
        assert "3 scored from the CSV" in picker.inner_text()
        assert picker.locator("input").input_value().startswith("2. The lake was calm.")
    except Exception:
        page.screenshot(path=str(shots / f"rerank-csv-FAILED-{size}.png"), full_page=True)
        raise
    finally:
        page.close()


STORY = "Maya kept putting off her thesis all spring, and then she had to write day and night [like a machine]."


def _downloads_shown(page, prefix: str):
    """Issue 19 item 7: the result's CSV and JSON are listed for download."""
    for suffix in ("csv", "json"):
        link = page.locator(f'a[data-testid=download-link][download^="{prefix}-"][download$=".{suffix}"]')
        link.filter(visible=True).first.wait_for(timeout=10_000)


@pytest.fixture(scope="module")
def laptop_page(browser, app_url):
    page = open_page(browser, app_url, *LAPTOP)
    yield page
    page.close()


def test_polish_shortfall_line_and_stop_buttons(laptop_page, shots):
    """Polish asked for 10 with one strategy that proposes fewer: the line above the table says how many came and
    why (item 6); Polish and Continue each have a Stop button beside their run button (item 5); their results, and
    Proverbs', are downloadable as CSV and JSON (item 7); the scores are explained under the tables and the sliders
    show rounded values (item 9). At the laptop size (the Rerank CSV flow runs on the phone; every tab's layout is
    checked at both sizes in test_browser_layout.py)."""
    page = laptop_page
    size = "{width}x{height}".format(**page.viewport_size)
    select_tab(page, "Polish")
    for name in ("insertion", "retrieval", "lm"):
        page.get_by_label(name, exact=True).uncheck()
    page.get_by_role("button", name="Polish", exact=True).click()
    status = page.locator("#polish-status")
    status.get_by_text("of the 10 candidates asked").wait_for(timeout=RESULT_TIMEOUT_MS)
    assert "⚠️" in status.inner_text() and "property" in status.inner_text()
    assert page.get_by_role("button", name="Stop", exact=True).filter(visible=True).count() == 1
    _downloads_shown(page, "polish")
    page.get_by_text("how readily the polisher writes this simile").filter(visible=True).first.wait_for(timeout=5_000)
    page.screenshot(path=str(shots / f"polish-shortfall-{size}.png"), full_page=True)

    select_tab(page, "Proverbs")
    page.get_by_label("Narrative").filter(visible=True).first.fill(STORY)
    page.get_by_role("button", name="Recommend proverbs", exact=True).click()
    page.get_by_text("Scoring:").filter(visible=True).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    _downloads_shown(page, "proverbs")
    page.get_by_text("as a share of the whole catalog").filter(visible=True).first.wait_for(timeout=5_000)

    select_tab(page, "Continue")
    assert page.get_by_role("button", name="Stop", exact=True).filter(visible=True).count() == 1
    page.get_by_label("Narrative").filter(visible=True).first.fill(STORY)
    page.get_by_role("button", name="Continue", exact=True).click()
    page.locator("#continue-info").get_by_text("samples in").wait_for(timeout=RESULT_TIMEOUT_MS)
    _downloads_shown(page, "continue")
    page.get_by_text("the judge's share of plausibility").filter(visible=True).first.wait_for(
        timeout=5_000)
    page.get_by_text("Sampling", exact=True).first.click()  # open the accordion
    temperature = page.get_by_label("number input for Temperature (0 = greedy)")
    assert temperature.input_value() == "0.7"  # rounded, not 0.7000000000000001
    page.screenshot(path=str(shots / f"continue-downloads-{size}.png"), full_page=True)


_SLIDERS = ("α (relevance), parts", "β (logical consistency), parts", "γ (sentiment consistency), parts")


def _expect_parts(page, parts):
    from playwright.sync_api import expect

    for label, value in zip(_SLIDERS, parts):
        expect(page.get_by_label(label).filter(visible=True).first).to_have_value(str(value), timeout=10_000)


def _expect_rank_weights(page, weights):
    from playwright.sync_api import expect

    for label, value in zip(_RANK_SLIDERS, weights):
        expect(page.get_by_label(label).filter(visible=True).first).to_have_value(f"{value:g}", timeout=10_000)


_RANK_SLIDERS = ("rank weight: quality", "creativity", "image words")


def test_rerank_weight_buttons_set_the_papers_and_the_served_parts(laptop_page):
    from studio.hauser.criteria import (DEFAULT_QUALITY_PARTS, DEFAULT_RANK_WEIGHTS, PAPER_QUALITY_PARTS,
                                        PAPER_RANK_WEIGHTS)

    page = laptop_page
    select_tab(page, "Rerank")
    _expect_parts(page, DEFAULT_QUALITY_PARTS)
    _expect_rank_weights(page, DEFAULT_RANK_WEIGHTS)
    page.locator("#rerank-paper-weights").click()
    _expect_parts(page, PAPER_QUALITY_PARTS)
    _expect_rank_weights(page, PAPER_RANK_WEIGHTS)
    page.locator("#rerank-served-weights").click()
    _expect_parts(page, DEFAULT_QUALITY_PARTS)
    _expect_rank_weights(page, DEFAULT_RANK_WEIGHTS)
    # over a scored table a moved weight says the order is the old one until Rerank (a visitor read it as applied)
    assert "settings changed" not in page.locator("#rerank-status").inner_text()
    page.get_by_role("button", name="Rerank", exact=True).click()
    page.locator("#rerank-status").get_by_text("Scored", exact=False).wait_for(timeout=RESULT_TIMEOUT_MS)
    page.locator("#rerank-served-weights").click()  # the same settings: nothing to say
    page.wait_for_timeout(1_000)
    assert "settings changed" not in page.locator("#rerank-status").inner_text()
    page.locator("#rerank-paper-weights").click()
    page.locator("#rerank-status").get_by_text("settings changed", exact=False).wait_for(timeout=10_000)
    page.locator("#rerank-served-weights").click()  # back to the table's own: its own line again
    page.locator("#rerank-status").get_by_text("Scored", exact=False).wait_for(timeout=10_000)
