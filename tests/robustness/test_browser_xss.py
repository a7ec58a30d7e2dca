"""Type an `<img onerror>` payload into the Polish and Proverbs tabs of the running app in headless Chromium:
the text must come back as text, never as an element, and its handler must never run."""
from __future__ import annotations

import os

import pytest

from .corpus import XSS_IMG

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]
RESULT_TIMEOUT_MS = 90_000
MARK = "Zorblax"  # a word found nowhere in the page until a result echoes the input


@pytest.fixture(scope="module")
def page(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(app_url, wait_until="domcontentloaded")
        page.get_by_role("tab").first.wait_for(timeout=60_000)
        yield page
        browser.close()


def _assert_not_injected(page):
    assert page.evaluate("typeof window.__studio_xss") == "undefined"
    assert page.locator('img[src="x"]').count() == 0


def _run(page, tab: str, box_label: str, button: str, text: str, expect: str):
    page.get_by_role("tab", name=tab, exact=True).click()
    box = page.get_by_label(box_label, exact=True)
    box.fill(text)
    page.get_by_role("button", name=button, exact=True).click()
    # the payload must come back in an output as visible text (escaped), proving the run finished
    page.get_by_text(expect).filter(visible=True).last.wait_for(timeout=RESULT_TIMEOUT_MS)
    page.wait_for_timeout(500)


def test_components_viewer_shows_html_as_text(page):
    _run(page, "Polish", "Simile sentence", "Show components", f"{XSS_IMG} Zorblax swims like a fish.", MARK)
    assert page.get_by_text("onerror").filter(visible=True).count() > 0  # shown as text
    _assert_not_injected(page)


def test_polish_candidates_show_html_as_text(page):
    _run(page, "Polish", "Literal sentence", "Polish", f"{XSS_IMG} Zorblax yelps and howls.", MARK)
    _assert_not_injected(page)


def test_proverbs_tab_shows_html_as_text(page):
    _run(page, "Proverbs", "Narrative", "Recommend proverbs",
         f"{XSS_IMG} Zorblax saved a little every week and after many years he was rich.", MARK)
    _assert_not_injected(page)
