"""Open the app in headless Chromium, visit every tab, and keep a screenshot of each."""
from __future__ import annotations

import os
import shutil

import pytest

from conftest import needs_chromium, wait_for_tab

pytestmark = [pytest.mark.browser, needs_chromium]


def test_every_tab_opens(page, shots):
    from studio.ui.app import TABS  # noqa: F401  (the tab list the app was built from)

    names = [t.inner_text().strip() for t in page.get_by_role("tab").all()]
    assert "Models" in names and "About" in names, names
    for name in names:
        page.get_by_role("tab", name=name).click()
        wait_for_tab(page, name)
        page.screenshot(path=str(shots / f"tab-{name.lower().replace(' ', '-')}.png"), full_page=True)
    assert len(list(shots.glob("tab-*.png"))) >= len(names)
    page.get_by_role("tab", name="Models").click()
    assert page.get_by_text("Profile:").first.is_visible()
    print(f"screenshots in {shots}")
    if os.environ.get("STUDIO_SCREENSHOT_COPY"):
        shutil.copytree(shots, os.environ["STUDIO_SCREENSHOT_COPY"], dirs_exist_ok=True)
