"""In headless Chromium: the Imagine tab renders two texts with two seeds into four gallery images."""
from __future__ import annotations

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]  # fails in CI (conftest)


def test_gallery_shows_four_images(browser, app_url, tmp_path_factory, monkeypatch):
    # the API test renders the same texts and seeds into this cache; alone, this test renders them itself
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "imagine-shared-cache"))
    page = browser.new_page(viewport={"width": 1280, "height": 1000})  # the session's Chromium (conftest)
    try:
        page.goto(app_url, wait_until="domcontentloaded")
        page.get_by_role("tab", name="Imagine").click()
        page.get_by_label("Text A (e.g. the literal sentence or the reference)").fill("The night was very dark.")
        page.get_by_label("Text B (e.g. the simile or the hypothesis)").fill("The night was as dark as ink.")
        page.get_by_label("number input for Seeds per text").fill("2")
        page.get_by_label("number input for Seeds per text").press("Enter")
        page.get_by_role("button", name="Imagine", exact=True).click()
        gallery = page.locator("#imagine-gallery")
        gallery.get_by_text("B · seed 1").first.wait_for(timeout=90_000)
        assert gallery.locator("img").count() == 4
        assert page.get_by_text("ImaginE over 2 seeds").first.is_visible()
    finally:
        page.close()
