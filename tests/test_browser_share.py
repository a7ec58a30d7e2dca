"""In headless Chromium: a link naming a tab opens it, a link to no result or to a tab the studio lacks opens the plain
studio with a note (a link to a result is checked in test_browser_layout.py, beside each tab's result); every tab's
"How to read this" is collapsed, opens, and the first screen says what the studio does — at 1400×1000 and at
390×844."""
from __future__ import annotations

import pytest

from conftest import SIZE_IDS, SIZES, needs_chromium, open_page, select_tab
from studio.ui.help import HELP, SHARE_LABEL, UNKNOWN_TAB_NOTE

pytestmark = [pytest.mark.browser, needs_chromium]
RESULT_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def context(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield ctx
    ctx.close()


def _open(ctx, url):
    page = ctx.new_page()
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("tab").first.wait_for(timeout=60_000)
    return page


def _visible(page, text: str, timeout: int = RESULT_TIMEOUT_MS):
    page.get_by_text(text).filter(visible=True).first.wait_for(timeout=timeout)


def test_a_link_to_no_result_or_a_bad_tab_opens_the_plain_studio(context, app_url):
    page = _open(context, f"{app_url}?deep_link=nonexistent&tab=<b>x</b>")
    try:
        assert page.get_by_role("tab", selected=True).inner_text().strip() == "Polish"
        assert page.locator("b", has_text="x").count() == 0
        _visible(page, UNKNOWN_TAB_NOTE.split(",")[0].removeprefix("⚠️ "), 10_000)
    finally:
        page.close()


@pytest.mark.parametrize("query,tab", [("ABOUT", "About")])  # every spelling: tests/test_help.py
def test_a_link_naming_a_tab_by_label_or_id_opens_it(context, app_url, query, tab):
    page = _open(context, f"{app_url}?tab={query}")
    try:
        page.get_by_role("tab", name=tab, exact=True, selected=True).wait_for(timeout=10_000)
        assert page.get_by_text(UNKNOWN_TAB_NOTE.split(",")[0].removeprefix("⚠️ ")).count() == 0
    finally:
        page.close()


@pytest.mark.parametrize("width,height", SIZES, ids=SIZE_IDS)
def test_first_screen_and_how_to_read_this(browser, app_url, shots, width, height):
    page = open_page(browser, app_url, width, height)
    try:
        intro = page.locator("#studio-intro")
        assert "explore its figurative language" in intro.inner_text()
        for tab_id in HELP:
            select_tab(page, tab_id.capitalize())
            accordion = page.locator(f"#{tab_id}-help")
            first_words = HELP[tab_id].strip().split("\n")[0][:30].replace("**", "")
            assert accordion.get_by_text(first_words).filter(visible=True).count() == 0  # collapsed by default
            accordion.get_by_text("How to read this").click()
            accordion.get_by_text(first_words).first.wait_for(timeout=5_000)
            page.screenshot(path=str(shots / f"help-{tab_id}-{width}x{height}.png"), full_page=True)
            share = page.locator(f"#{tab_id}-share")
            assert (share.count() == 1 and SHARE_LABEL.split(" ", 1)[1] in share.inner_text()) is (tab_id != "models")
    finally:
        page.close()


def test_a_link_after_an_example_restores_the_text_that_was_run(browser, app_url):
    """Click an example, type another sentence, run it, share: the link restores the typed sentence beside its
    result, not the example (gr.Examples' property updates left the box's old copy in the shared page)."""
    import time

    page = open_page(browser, app_url, clipboard=True)
    try:
        select_tab(page, "Polish")
        page.get_by_text("The lake was calm.", exact=True).filter(visible=True).first.click()
        box = page.get_by_label("Literal sentence").filter(visible=True).first
        page.wait_for_function("() => [...document.querySelectorAll('textarea')].some(t => t.value === "
                               "'The lake was calm.')", timeout=30_000)
        # the click runs the example, as the Polish button would (a visitor saw an empty table after one)
        page.locator("#polish-table").get_by_text("calm", exact=False).filter(visible=True).first.wait_for(
            timeout=RESULT_TIMEOUT_MS)
        box.fill("The night was very cold.")
        page.get_by_role("button", name="Polish", exact=True).click()
        page.locator("#polish-table").get_by_text("cold", exact=False).filter(visible=True).first.wait_for(
            timeout=RESULT_TIMEOUT_MS)
        page.wait_for_timeout(800)  # the last output reaches the server's copy of the page
        page.evaluate("navigator.clipboard.writeText('')")
        page.locator("#polish-share").click()
        deadline, link = time.monotonic() + 15, ""
        while "deep_link=" not in link and time.monotonic() < deadline:
            page.wait_for_timeout(200)
            link = page.evaluate("navigator.clipboard.readText()")
        opened = _open(page.context, link)
        opened.locator("#polish-table").get_by_text("cold", exact=False).filter(visible=True).first.wait_for(
            timeout=30_000)
        assert opened.get_by_label("Literal sentence").filter(visible=True).first.input_value() == \
            "The night was very cold."
    finally:
        page.context.close()


def test_an_example_of_rerank_and_of_the_judge_runs_on_a_click(browser, app_url):
    """A visitor clicked an example and saw only the box fill: a click now presses the tab's own button."""
    from studio.ui.continue_tab import JUDGE_EXAMPLES
    from studio.ui.rerank_tab import EXAMPLES

    page = open_page(browser, app_url)
    try:
        select_tab(page, "Rerank")
        page.get_by_text(EXAMPLES[0][0][:30], exact=False).filter(visible=True).first.click()
        page.locator("#rerank-why").get_by_text("child", exact=False).first.wait_for(timeout=RESULT_TIMEOUT_MS)
        select_tab(page, "Continue")
        page.get_by_text(JUDGE_EXAMPLES[0][1][:30], exact=False).filter(visible=True).first.click()
        # a verdict, or on the tiny profile (no judge) the refusal: either way the Judge button ran
        page.wait_for_function("() => ['#judge-verdict', '#judge-status'].some(id => /continuation|No result/"
                               ".test(document.querySelector(id)?.innerText || ''))", timeout=RESULT_TIMEOUT_MS)
    finally:
        page.context.close()
