"""In headless Chromium at 1400×1000 and 390×844, what a visitor meets (issue 19): a paste over a limit is counted and refused
with the limit named, never cut and processed; the Models tab is read-only. One app server for the module."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SIZE_IDS, SIZES, close_app, close_toasts, needs_chromium, open_page, select_tab
from studio.continuation.story import MAX_NARRATIVE_CHARS as CONTINUE_MAX
from studio.proverbs.service import MAX_NARRATIVE_CHARS as PROVERBS_MAX

pytestmark = [pytest.mark.browser, needs_chromium]
RESULT_TIMEOUT_MS = 90_000
PASTE = ("The fisherman rowed out at the first light of the grey sea every morning of his life. " * 60)[:4_500]


@pytest.fixture(scope="module", params=SIZES, ids=SIZE_IDS)
def wide_page(browser, app_url, request):
    """The app at each size (the name is older than the phone size)."""
    page = open_page(browser, app_url, *request.param)
    yield page
    page.close()


def _size(page) -> str:
    return "{width}x{height}".format(**page.viewport_size)


def _paste(page, label: str, text: str):
    box = page.get_by_label(label).filter(visible=True).first
    box.click()
    box.press("Control+a")
    page.keyboard.insert_text(text)  # what a paste does: the whole text at once
    return box


def _refused(page, tab: str, button: str, limit: int, shots: Path):
    select_tab(page, tab)
    box = _paste(page, "Narrative", PASTE)
    assert len(box.input_value()) == len(PASTE)  # nothing cut
    count = f"{len(PASTE):,} / {limit:,} characters — over the limit"
    page.get_by_text(count).filter(visible=True).first.wait_for(timeout=5_000)  # the live count says so
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_text(f"limit is {limit:,}").first.wait_for(timeout=RESULT_TIMEOUT_MS)  # the refusal names the limit
    page.wait_for_timeout(1_500)  # time enough for a result that should not come
    page.screenshot(path=str(shots / f"over-limit-{tab.lower()}-{_size(page)}.png"), full_page=True)
    close_toasts(page, wait_gone=False)


def test_continue_refuses_an_over_limit_paste(wide_page, shots):
    _refused(wide_page, "Continue", "Continue", CONTINUE_MAX, shots)
    # no continuation was produced
    assert wide_page.get_by_text(re.compile(r"\bsamples? in ")).filter(visible=True).count() == 0
    assert wide_page.get_by_text("grey sea every").filter(visible=True).count() == 0  # nor the narrative echoed


def test_proverbs_refuses_an_over_limit_paste(wide_page, shots):
    _refused(wide_page, "Proverbs", "Recommend proverbs", PROVERBS_MAX, shots)
    assert wide_page.get_by_text("Scoring:").filter(visible=True).count() == 0  # no ranking was produced


def test_count_follows_the_text(wide_page):
    select_tab(wide_page, "Proverbs")
    _paste(wide_page, "Narrative", "A stitch in time.")
    wide_page.get_by_text(f"17 / {PROVERBS_MAX:,} characters").filter(visible=True).first.wait_for(timeout=5_000)


def test_models_tab_is_read_only_for_visitors(wide_page, shots):
    select_tab(wide_page, "Models")
    wide_page.get_by_text("A read-only status").first.wait_for(timeout=10_000)
    assert wide_page.get_by_role("button", name="Refresh", exact=True).is_visible()
    assert wide_page.get_by_role("button", name="Unload", exact=True).count() == 0
    assert wide_page.get_by_role("button", name="Load", exact=True).count() == 0
    wide_page.screenshot(path=str(shots / f"models-{_size(wide_page)}.png"), full_page=True)


@pytest.fixture(scope="module")
def offline_url(_offline_registry):
    """The app as the offline profile builds it (no clip, no diffusion); nothing is loaded."""
    from conftest import _launch
    from studio.models import get_registry, set_registry

    previous = get_registry()
    set_registry(_offline_registry)
    demo, url = _launch(admin=False)
    try:
        yield url
    finally:
        close_app(demo)
        set_registry(previous)


@pytest.fixture
def offline_page(browser, offline_url):
    """At 1400 px: the panel's words and disabled buttons do not depend on the width (every tab's fit at both sizes:
    tests/test_browser_layout.py)."""
    page = open_page(browser, offline_url, 1400, 1000)
    yield page
    page.close()


def test_imagine_off_is_one_panel_with_disabled_buttons(offline_page, shots):
    page = offline_page
    select_tab(page, "Imagine")
    panel = page.locator("#imagine-off")
    panel.get_by_text("ImaginE is switched off in this studio").wait_for(timeout=10_000)
    assert "STUDIO_PROFILE=hub" not in panel.inner_text()  # the operator's part is folded away from a visitor
    panel.get_by_text("For the studio's operator").click()
    assert "STUDIO_PROFILE=hub" in panel.inner_text() and "STUDIO_MODEL_CLIP" in panel.inner_text()
    help_box = page.locator("#imagine-help")  # the help describes pictures: it says first that they cannot come here
    help_box.get_by_text("How to read this").click()
    help_box.get_by_text("Switched off in this studio").wait_for(timeout=5_000)
    assert page.get_by_role("button", name="Imagine", exact=True).is_disabled()
    assert page.locator("#imagine-gallery").count() == 0 or not page.locator("#imagine-gallery").is_visible()
    page.screenshot(path=str(shots / f"imagine-offline-{_size(page)}.png"), full_page=True)
    select_tab(page, "Rerank")
    page.get_by_text("Imagine top k", exact=True).first.click()  # open the accordion
    page.locator("#imagine-topk-off").get_by_text("Imagine top k is off here").wait_for(timeout=10_000)
    assert page.get_by_role("button", name="Imagine top k", exact=True).is_disabled()
    assert not page.locator("#imagine-topk-gallery").is_visible()  # no empty gallery under the notice
    assert page.get_by_text("Error", exact=True).filter(visible=True).count() == 0
    select_tab(page, "Models")
    page.get_by_text("no CLIP weights ship").filter(visible=True).first.wait_for(timeout=10_000)
    page.screenshot(path=str(shots / f"models-offline-{_size(page)}.png"), full_page=True)


def test_an_edit_of_what_was_judged_takes_the_verdict_away(offline_page):
    """A visitor judged a pair, changed continuation 1, and the old "Too close to call … 52 %" stayed beside the new
    text: typing in the narrative or a continuation empties the verdict and the bars until Judge runs again, and so
    does a Continue example that replaces the narrative."""
    from studio.ui.continue_tab import EXAMPLES, JUDGE_EXAMPLES

    page = offline_page
    select_tab(page, "Continue")
    page.get_by_text(JUDGE_EXAMPLES[0][1][:30], exact=False).filter(visible=True).first.click()
    page.wait_for_function("() => /continuation/.test(document.querySelector('#judge-verdict')?.innerText || '')",
                           timeout=RESULT_TIMEOUT_MS)
    box = page.get_by_label("Continuation 1").filter(visible=True).first
    box.click()
    box.press("End")
    page.keyboard.type(" Then")
    page.wait_for_function("() => !(document.querySelector('#judge-verdict')?.innerText || '').trim()",
                           timeout=10_000)
    # a Continue example replaces the narrative the judge read: its verdict goes too
    page.get_by_role("button", name="Judge", exact=True).click()
    page.wait_for_function("() => /continuation/.test(document.querySelector('#judge-verdict')?.innerText || '')",
                           timeout=RESULT_TIMEOUT_MS)
    page.get_by_text(EXAMPLES[1][0][:30], exact=False).filter(visible=True).first.click()
    page.wait_for_function("() => !(document.querySelector('#judge-verdict')?.innerText || '').trim()",
                           timeout=10_000)
    page.get_by_role("button", name="Stop", exact=True).filter(visible=True).first.click()  # the example's run
