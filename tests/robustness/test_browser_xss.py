"""Type an `<img onerror>` payload into the Polish and Proverbs tabs of the running app in headless Chromium:
the text must come back as text, never as an element, and its handler must never run."""
from __future__ import annotations

import pytest

from conftest import needs_chromium

from .corpus import XSS_IMG

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              needs_chromium]
RESULT_TIMEOUT_MS = 90_000
MARK = "Zorblax"  # a word found nowhere in the page until a result echoes the input


def _assert_not_injected(page):
    assert page.evaluate("typeof window.__studio_xss") == "undefined"
    assert page.locator('img[src="x"]').count() == 0


def _run(page, tab: str, box_label: str, button: str, text: str, expect: str):
    page.get_by_role("tab", name=tab, exact=True).click()
    # the label also holds the limit note (info), so it is matched by its start, on the visible tab only
    box = page.get_by_label(box_label).filter(visible=True).first
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


def test_rerank_shows_a_typed_link_and_address_as_text(page):
    """A candidate holding a Markdown link and bare addresses: "Why these scores" and the table show them as text,
    and no link to them is made (the renderer links a bare "http://…" by itself)."""
    page.get_by_role("tab", name="Rerank", exact=True).click()
    page.get_by_label("Literal sentence").filter(visible=True).first.fill("The coffee was very hot.")
    page.get_by_label("Candidates").filter(visible=True).first.fill(
        "The coffee was as hot as [lava](http://zorblax.example).\n"
        "The coffee was as hot as the sun at http://zorblax.example or www.zorblax.example or a@zorblax.example.")
    page.get_by_role("button", name="Rerank", exact=True).click()
    page.locator("#rerank-why").get_by_text("zorblax", exact=False).first.wait_for(timeout=RESULT_TIMEOUT_MS)
    page.wait_for_timeout(500)
    assert page.locator('a[href*="zorblax"]').count() == 0
    assert "[lava](http://zorblax.example)" in page.locator("#rerank-why").inner_text()
    _assert_not_injected(page)


def test_a_refusal_quoting_typed_markup_shows_it_as_text(page):
    """A refusal that quotes the typed text (here: German, not English) comes up in a toast, which gradio renders as
    HTML: the quoted tags must show as text, not become elements."""
    page.get_by_role("tab", name="Rerank", exact=True).click()
    page.get_by_label("Literal sentence").filter(visible=True).first.fill(
        "Der <b>Zorblax</b> ist heute sehr schnell und sehr laut gewesen.")
    page.get_by_label("Candidates").filter(visible=True).first.fill("He ran like the wind.")
    page.get_by_role("button", name="Rerank", exact=True).click()
    toast = page.locator('[data-testid="toast-body"]').filter(has_text="reads as German")
    toast.first.wait_for(timeout=RESULT_TIMEOUT_MS)
    assert "<b>Zorblax</b>" in toast.first.inner_text()
    assert toast.first.locator("b").count() == 0
