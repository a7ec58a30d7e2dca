"""Open the app in headless Chromium, visit every tab, and keep a screenshot of each."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian chromium is not installed")]


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


@pytest.fixture(scope="module")
def shots():
    folder = Path(os.environ.get("STUDIO_SCREENSHOTS") or tempfile.mkdtemp(prefix="studio-shots-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_every_tab_opens(page, shots):
    from studio.ui.app import TABS  # noqa: F401  (the tab list the app was built from)

    names = [t.inner_text().strip() for t in page.get_by_role("tab").all()]
    assert "Models" in names and "About" in names, names
    for name in names:
        page.get_by_role("tab", name=name).click()
        page.wait_for_timeout(300)
        page.screenshot(path=str(shots / f"tab-{name.lower().replace(' ', '-')}.png"), full_page=True)
    assert len(list(shots.glob("tab-*.png"))) >= len(names)
    page.get_by_role("tab", name="Models").click()
    assert page.get_by_text("Profile:").first.is_visible()
    print(f"screenshots in {shots}")
    if os.environ.get("STUDIO_SCREENSHOT_COPY"):
        shutil.copytree(shots, os.environ["STUDIO_SCREENSHOT_COPY"], dirs_exist_ok=True)
