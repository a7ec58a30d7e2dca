"""In headless Chromium: a shareable link to a result (Gradio's deep links, plus the tab) opens the tab with the result
on screen, for Polish, Rerank, Proverbs and Continue; every tab's "How to read this" is collapsed, opens, and the first
screen says what the studio does — at 1400×1000 and at 390×844."""
from __future__ import annotations

import time

import pytest

from conftest import needs_chromium
from studio.ui.help import HELP, SHARE_LABEL, UNKNOWN_TAB_NOTE

pytestmark = [pytest.mark.browser, needs_chromium]
RESULT_TIMEOUT_MS = 120_000
STORY = "Maya kept putting off her thesis all spring, and then she had to write day and night [like a machine]."
SIZES = [(1400, 1000), (390, 844)]
COUNTS = {"polish": "18 / 400 characters", "proverbs": f"{len(STORY)} / 4,000 characters",
          "continue": f"{len(STORY)} / 4,000 characters"}


@pytest.fixture(scope="module")
def context(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000},
                              permissions=["clipboard-read", "clipboard-write"])
    yield ctx
    ctx.close()


def _open(ctx, url):
    page = ctx.new_page()
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("tab").first.wait_for(timeout=60_000)
    return page


def _visible(page, text: str, timeout: int = RESULT_TIMEOUT_MS):
    page.get_by_text(text).filter(visible=True).first.wait_for(timeout=timeout)


def _run(page, tab: str):
    """Produce a result in `tab` as a visitor would; returns text that only that result shows."""
    page.get_by_role("tab", name=tab.capitalize(), exact=True).click()
    if tab == "polish":
        page.get_by_label("Literal sentence").filter(visible=True).first.fill("The lake was calm.")
        page.get_by_role("button", name="Polish", exact=True).click()
        page.locator("#polish-status").get_by_text("candidates asked").wait_for(timeout=RESULT_TIMEOUT_MS)
        return "The lake was calm"
    if tab == "rerank":
        page.get_by_role("button", name="Rerank", exact=True).click()
        page.locator("#rerank-table").get_by_text("like a child").first.wait_for(timeout=RESULT_TIMEOUT_MS)
        return "like a little boy"
    page.get_by_label("Narrative").filter(visible=True).first.fill(STORY)
    if tab == "proverbs":
        page.get_by_role("button", name="Recommend proverbs", exact=True).click()
        _visible(page, "Scoring:")
        return "Scoring:"
    page.get_by_role("button", name="Continue", exact=True).click()
    page.locator("#continue-info").get_by_text("sample(s) in").wait_for(timeout=RESULT_TIMEOUT_MS)
    return "sample(s) in"


def _copied_link(page, tab: str) -> str:
    # the context's clipboard still holds the previous test's link: emptied first, so that a slow copy is waited for
    page.evaluate("navigator.clipboard.writeText('')")
    page.locator(f"#{tab}-share").click()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        link = page.evaluate("navigator.clipboard.readText()")
        if "deep_link=" in link:
            return link
        page.wait_for_timeout(200)
    raise AssertionError("no deep link was copied")


@pytest.mark.parametrize("tab", ["polish", "rerank", "proverbs", "continue"])
def test_a_shared_link_opens_the_tab_with_the_result(context, app_url, shots, tab):
    page = _open(context, app_url)
    try:
        shown = _run(page, tab)
        page.wait_for_timeout(500)  # the last output reaches the server's copy of the page
        link = _copied_link(page, tab)
    finally:
        page.close()
    assert f"tab={tab}" in link and link.startswith(app_url)
    opened = _open(context, link)  # as the person the link was sent to
    try:
        _visible(opened, shown, 30_000)
        if tab in COUNTS:  # the restored text is counted, not shown as 0 characters
            _visible(opened, COUNTS[tab], 30_000)  # a busy machine counts late, never wrongly
        assert opened.get_by_role("tab", selected=True).inner_text().strip().lower() == tab
        opened.screenshot(path=str(shots / f"shared-link-{tab}-1400.png"), full_page=True)
    finally:
        opened.close()


def test_a_link_to_no_result_or_a_bad_tab_opens_the_plain_studio(context, app_url):
    page = _open(context, f"{app_url}?deep_link=nonexistent&tab=<b>x</b>")
    try:
        assert page.get_by_role("tab", selected=True).inner_text().strip() == "Polish"
        assert page.locator("b", has_text="x").count() == 0
        _visible(page, UNKNOWN_TAB_NOTE.split(",")[0].removeprefix("⚠️ "), 10_000)
    finally:
        page.close()


@pytest.mark.parametrize("query,tab", [("Proverbs", "Proverbs"), ("continue", "Continue"), ("ABOUT", "About")])
def test_a_link_naming_a_tab_by_label_or_id_opens_it(context, app_url, query, tab):
    page = _open(context, f"{app_url}?tab={query}")
    try:
        page.get_by_role("tab", name=tab, exact=True, selected=True).wait_for(timeout=10_000)
        assert page.get_by_text(UNKNOWN_TAB_NOTE.split(",")[0].removeprefix("⚠️ ")).count() == 0
    finally:
        page.close()


@pytest.mark.parametrize("width,height", SIZES, ids=["1400", "phone390"])
def test_first_screen_and_how_to_read_this(browser, app_url, shots, width, height):
    from conftest import open_page, select_tab

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
